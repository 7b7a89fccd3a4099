/* Standard-ABI entry points (MPI 5.0 chapter 21) other than
 * MPI_Abi_get_version: MPI_Abi_get_info, the Fortran registration calls
 * (dmpi has no Fortran binding, so it knows nothing about Fortran until a
 * Fortran layer tells it through MPI_Abi_set_fortran_info/_booleans), the
 * handle <-> int conversions of every handle kind, and MPI_Pcontrol.
 * None of these needs MPI to be initialised. */
#include "api/api.h"
#include "core/handle_ints.h"
#include "core/info.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------- MPI_Abi_get_info */

int PMPI_Abi_get_info(MPI_Info *info)
{
    static const char *const FN = "MPI_Abi_get_info";
    if (!info) return dmpi_error_noobj(MPI_ERR_ARG, FN, "info is NULL");
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {
        {"mpi_aint_size", sizeof(MPI_Aint)},
        {"mpi_count_size", sizeof(MPI_Count)},
        {"mpi_offset_size", sizeof(MPI_Offset)},
    };
    dmpi_info *i = dmpi_info_new();
    if (!i) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char v[24];
        snprintf(v, sizeof v, "%zu", sizes[k].size);
        if (dmpi_info_set_kv(i, sizes[k].key, v) != MPI_SUCCESS) {
            dmpi_info_free(i);
            return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
        }
    }
    *info = dmpi_info_handle(i);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Abi_get_info)

/* ------------------------------------------------ Fortran registration */

static pthread_mutex_t fortran_mu = PTHREAD_MUTEX_INITIALIZER;
static dmpi_info *fortran_info;       /* copy of what was set, or NULL */

enum { MAX_LOGICAL = 16 };            /* LOGICAL*16 is the widest kind */
static struct {
    bool set;
    int size;
    unsigned char t[MAX_LOGICAL], f[MAX_LOGICAL];
} booleans;

/* Without a Fortran binding the properties of the Fortran compiler are
 * unknown: MPI_INFO_NULL, unless the application registered them. */
int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    static const char *const FN = "MPI_Abi_get_fortran_info";
    if (!info) return dmpi_error_noobj(MPI_ERR_ARG, FN, "info is NULL");
    pthread_mutex_lock(&fortran_mu);
    dmpi_info *copy = NULL;
    int rc = fortran_info ? dmpi_info_dup(fortran_info, &copy) : MPI_SUCCESS;
    pthread_mutex_unlock(&fortran_mu);
    if (rc != MPI_SUCCESS) return dmpi_error_noobj(rc, FN, "out of memory");
    *info = dmpi_info_handle(copy);   /* MPI_INFO_NULL when nothing is known */
    return MPI_SUCCESS;
}
DMPI_ALIAS(Abi_get_fortran_info)

/* Only the first call counts; later ones fail with MPI_ERR_ABI. */
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    static const char *const FN = "MPI_Abi_set_fortran_info";
    dmpi_info *i = dmpi_info_get(info);
    if (!i)
        return dmpi_error_noobj(MPI_ERR_INFO, FN, "invalid info object%s",
                                info == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
    pthread_mutex_lock(&fortran_mu);
    int rc = fortran_info ? MPI_ERR_ABI : dmpi_info_dup(i, &fortran_info);
    pthread_mutex_unlock(&fortran_mu);
    if (rc == MPI_ERR_ABI)
        return dmpi_error_noobj(rc, FN, "the Fortran properties are already set");
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "out of memory");
}
DMPI_ALIAS(Abi_set_fortran_info)

static bool logical_size_ok(int n)
{
    return n > 0 && n <= MAX_LOGICAL && (n & (n - 1)) == 0;
}

/* is_set is true only for the size registered by
 * MPI_Abi_set_fortran_booleans; otherwise the values are unknown and
 * logical_true/logical_false are left alone. */
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    static const char *const FN = "MPI_Abi_get_fortran_booleans";
    if (!logical_size_ok(logical_size))
        return dmpi_error_noobj(MPI_ERR_ARG, FN,
                                "logical_size %d is not a power of two from 1 to %d",
                                logical_size, MAX_LOGICAL);
    if (!logical_true || !logical_false || !is_set)
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
    pthread_mutex_lock(&fortran_mu);
    *is_set = booleans.set && booleans.size == logical_size;
    if (*is_set) {
        memcpy(logical_true, booleans.t, (size_t)logical_size);
        memcpy(logical_false, booleans.f, (size_t)logical_size);
    }
    pthread_mutex_unlock(&fortran_mu);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Abi_get_fortran_booleans)

/* May be called once; later calls fail with MPI_ERR_ABI. */
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    static const char *const FN = "MPI_Abi_set_fortran_booleans";
    if (!logical_size_ok(logical_size))
        return dmpi_error_noobj(MPI_ERR_ARG, FN,
                                "logical_size %d is not a power of two from 1 to %d",
                                logical_size, MAX_LOGICAL);
    if (!logical_true || !logical_false)
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
    if (memcmp(logical_true, logical_false, (size_t)logical_size) == 0)
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "the values of .TRUE. and .FALSE. are equal");
    pthread_mutex_lock(&fortran_mu);
    bool already = booleans.set;
    if (!already) {
        booleans.size = logical_size;
        memcpy(booleans.t, logical_true, (size_t)logical_size);
        memcpy(booleans.f, logical_false, (size_t)logical_size);
        booleans.set = true;
    }
    pthread_mutex_unlock(&fortran_mu);
    if (already)
        return dmpi_error_noobj(MPI_ERR_ABI, FN, "the Fortran booleans are already set");
    return MPI_SUCCESS;
}
DMPI_ALIAS(Abi_set_fortran_booleans)

/* ----------------------------------------------------------- MPI_Pcontrol */

/* Profiling control: accepted and ignored here; a profiling library that
 * wraps MPI_Pcontrol sees the call (dmpi's own, libdmpi_profile.so, pauses
 * at level 0 and resumes at any other: docs/profile.md). */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Pcontrol)

/* --------------------------------------------- handle <-> int conversion */

/* MPI_<Name>_toint and MPI_<Name>_fromint for handle type Type. */
#define DMPI_HANDLE_INT_FNS(Name, Type, kind)                                    \
    int PMPI_##Name##_toint(Type h)                                              \
    {                                                                            \
        return dmpi_handle_toint(kind, (uintptr_t)(void *)h);                    \
    }                                                                            \
    DMPI_ALIAS(Name##_toint)                                                     \
    Type PMPI_##Name##_fromint(int i)                                            \
    {                                                                            \
        return (Type)(void *)dmpi_handle_fromint(kind, i);                       \
    }                                                                            \
    DMPI_ALIAS(Name##_fromint)

DMPI_HANDLE_INT_FNS(Comm, MPI_Comm, DMPI_HK_COMM)
DMPI_HANDLE_INT_FNS(Type, MPI_Datatype, DMPI_HK_DATATYPE)
DMPI_HANDLE_INT_FNS(Errhandler, MPI_Errhandler, DMPI_HK_ERRHANDLER)
DMPI_HANDLE_INT_FNS(File, MPI_File, DMPI_HK_FILE)
DMPI_HANDLE_INT_FNS(Group, MPI_Group, DMPI_HK_GROUP)
DMPI_HANDLE_INT_FNS(Info, MPI_Info, DMPI_HK_INFO)
DMPI_HANDLE_INT_FNS(Message, MPI_Message, DMPI_HK_MESSAGE)
DMPI_HANDLE_INT_FNS(Op, MPI_Op, DMPI_HK_OP)
DMPI_HANDLE_INT_FNS(Request, MPI_Request, DMPI_HK_REQUEST)
DMPI_HANDLE_INT_FNS(Session, MPI_Session, DMPI_HK_SESSION)
DMPI_HANDLE_INT_FNS(Win, MPI_Win, DMPI_HK_WIN)
