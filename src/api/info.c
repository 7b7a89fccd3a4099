/* Info object entry points (MPI 4.1 chapter 10): create, dup, free, set,
 * delete, the getters (Info_get is deprecated but in the ABI) and
 * Info_create_env. Like the standard allows, these work before MPI_Init
 * and after MPI_Finalize too. Errors concern no communicator, so they go
 * to the default handler (dmpi_error_noobj). Storage is in core/info.c. */
#include "api/api.h"
#include "core/handle_ints.h"
#include "core/info.h"

#include <limits.h>
#include <string.h>

/* Looks up the info object of handle h into var, or raises MPI_ERR_INFO. */
#define GET_INFO(var, h, fn)                                                        \
    do {                                                                            \
        (var) = dmpi_info_get(h);                                                   \
        if (!(var))                                                                 \
            return dmpi_error_noobj(MPI_ERR_INFO, (fn), "invalid info object%s",    \
                                    (h) == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : ""); \
    } while (0)

#define CHECK_ARG(cond, fn, ...) DMPI_CHECK(NULL, cond, MPI_ERR_ARG, fn, __VA_ARGS__)

/* Raises MPI_ERR_INFO_KEY unless key is a valid key. */
#define CHECK_KEY(key, fn)                                                          \
    do {                                                                            \
        if (dmpi_info_check_key(key) != MPI_SUCCESS)                                \
            return dmpi_error_noobj(MPI_ERR_INFO_KEY, (fn), "%s",                   \
                                    !(key) ? "key is NULL"                          \
                                    : !*(key) ? "key is empty"                      \
                                              : "key longer than MPI_MAX_INFO_KEY-1 (255) characters"); \
    } while (0)

int PMPI_Info_create(MPI_Info *info)
{
    static const char *const FN = "MPI_Info_create";
    CHECK_ARG(info, FN, "info is NULL");
    dmpi_info *i = dmpi_info_new();
    if (!i) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    *info = dmpi_info_handle(i);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_create)

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char *const FN = "MPI_Info_create_env";
    CHECK_ARG(info, FN, "info is NULL");
    CHECK_ARG(argc >= 0, FN, "negative argc %d", argc);
    dmpi_info *i = dmpi_info_new();
    if (!i) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    int rc = dmpi_info_fill_env(i, argc, argv);
    if (rc != MPI_SUCCESS) {
        dmpi_info_free(i);
        return dmpi_error_noobj(rc, FN, "out of memory");
    }
    *info = dmpi_info_handle(i);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_create_env)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char *const FN = "MPI_Info_dup";
    dmpi_info *i, *copy;
    GET_INFO(i, info, FN);
    CHECK_ARG(newinfo, FN, "newinfo is NULL");
    int rc = dmpi_info_dup(i, &copy);
    if (rc != MPI_SUCCESS) return dmpi_error_noobj(rc, FN, "out of memory");
    *newinfo = dmpi_info_handle(copy);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    static const char *const FN = "MPI_Info_free";
    CHECK_ARG(info, FN, "info is NULL");
    dmpi_info *i;
    GET_INFO(i, *info, FN);
    if (dmpi_info_is_builtin(i))
        return dmpi_error_noobj(MPI_ERR_INFO, FN, "MPI_INFO_ENV is predefined and cannot be freed");
    dmpi_handle_forget((uintptr_t)(void *)*info);
    dmpi_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_free)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char *const FN = "MPI_Info_set";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_KEY(key, FN);
    if (dmpi_info_check_value(value) != MPI_SUCCESS)
        return dmpi_error_noobj(MPI_ERR_INFO_VALUE, FN, "%s",
                                value ? "value longer than MPI_MAX_INFO_VAL-1 (1023) characters"
                                      : "value is NULL");
    if (dmpi_info_is_builtin(i))
        return dmpi_error_noobj(MPI_ERR_INFO, FN, "MPI_INFO_ENV is read-only");
    int rc = dmpi_info_set_kv(i, key, value);
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "cannot set key \"%s\"", key);
}
DMPI_ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char *const FN = "MPI_Info_delete";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_KEY(key, FN);
    if (dmpi_info_is_builtin(i))
        return dmpi_error_noobj(MPI_ERR_INFO, FN, "MPI_INFO_ENV is read-only");
    int rc = dmpi_info_delete_key(i, key);
    if (rc == MPI_ERR_INFO_NOKEY)
        return dmpi_error_noobj(rc, FN, "key \"%s\" is not in the info object", key);
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "cannot delete key \"%s\"", key);
}
DMPI_ALIAS(Info_delete)

/* Deprecated: value gets at most valuelen characters plus a NUL. */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char *const FN = "MPI_Info_get";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_KEY(key, FN);
    CHECK_ARG(valuelen >= 0, FN, "negative valuelen %d", valuelen);
    CHECK_ARG(value, FN, "value is NULL");
    CHECK_ARG(flag, FN, "flag is NULL");
    int len;
    *flag = dmpi_info_copy_value(i, key, value, valuelen < INT_MAX ? valuelen + 1 : INT_MAX, &len);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_get)

/* MPI 4.0 semantics: on input *buflen is the size of value (NUL included);
 * if the key is present, value gets the value cut to *buflen-1 characters
 * and a NUL (nothing when *buflen is 0), and *buflen becomes the length
 * of the whole value plus one. If absent, *flag is false and value and
 * *buflen are left alone. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char *const FN = "MPI_Info_get_string";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_KEY(key, FN);
    CHECK_ARG(buflen, FN, "buflen is NULL");
    CHECK_ARG(flag, FN, "flag is NULL");
    CHECK_ARG(*buflen >= 0, FN, "negative buflen %d", *buflen);
    CHECK_ARG(value || *buflen == 0, FN, "value is NULL but buflen is %d", *buflen);
    int len;
    *flag = dmpi_info_copy_value(i, key, value, *buflen, &len);
    if (*flag) *buflen = len + 1;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char *const FN = "MPI_Info_get_valuelen";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_KEY(key, FN);
    CHECK_ARG(valuelen, FN, "valuelen is NULL");
    CHECK_ARG(flag, FN, "flag is NULL");
    int len;
    *flag = dmpi_info_copy_value(i, key, NULL, 0, &len);
    if (*flag) *valuelen = len;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char *const FN = "MPI_Info_get_nkeys";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_ARG(nkeys, FN, "nkeys is NULL");
    *nkeys = dmpi_info_nkeys(i);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char *const FN = "MPI_Info_get_nthkey";
    dmpi_info *i;
    GET_INFO(i, info, FN);
    CHECK_ARG(key, FN, "key is NULL");
    if (!dmpi_info_nthkey(i, n, key))
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "key number %d out of range (the object has %d keys)",
                                n, dmpi_info_nkeys(i));
    return MPI_SUCCESS;
}
DMPI_ALIAS(Info_get_nthkey)
