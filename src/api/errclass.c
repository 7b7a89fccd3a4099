/* User-defined error classes, codes and strings (MPI 4.1 section 9.5):
 * MPI_Add_error_class/_code/_string and MPI_Remove_error_class/_code/
 * _string. The registry is in core/errors.c (core/errclass.h). Like
 * MPI_Error_string and MPI_Error_class, these may be called at any time,
 * also before MPI_Init and after MPI_Finalize, and from any thread. */
#include "api/api.h"
#include "core/errclass.h"

#include <string.h>

int PMPI_Add_error_class(int *errorclass)
{
    static const char *const FN = "MPI_Add_error_class";
    if (!errorclass) return dmpi_error_noobj(MPI_ERR_ARG, FN, "errorclass is NULL");
    int rc = dmpi_error_add_class(errorclass);
    if (rc == MPI_SUCCESS) return rc;
    return dmpi_error_noobj(rc, FN, "%s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                             : "no error class values left");
}
DMPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char *const FN = "MPI_Add_error_code";
    if (!errorcode) return dmpi_error_noobj(MPI_ERR_ARG, FN, "errorcode is NULL");
    int rc = dmpi_error_add_code(errorclass, errorcode);
    if (rc == MPI_SUCCESS) return rc;
    if (rc == MPI_ERR_ARG)
        return dmpi_error_noobj(rc, FN, "%d is not an error class", errorclass);
    return dmpi_error_noobj(rc, FN, "%s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                             : "no error code values left");
}
DMPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char *const FN = "MPI_Add_error_string";
    if (!string) return dmpi_error_noobj(MPI_ERR_ARG, FN, "string is NULL");
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "string longer than %d characters",
                                MPI_MAX_ERROR_STRING - 1);
    int rc = dmpi_error_add_string(errorcode, string);
    if (rc == MPI_SUCCESS) return rc;
    if (rc == MPI_ERR_ARG)
        return dmpi_error_noobj(rc, FN, "%d is not an error class or code added by the user",
                                errorcode);
    return dmpi_error_noobj(rc, FN, "out of memory");
}
DMPI_ALIAS(Add_error_string)

static int remove_common(int value, int what, const char *fn, const char *noun)
{
    const char *why;
    int rc = dmpi_error_remove(value, what, &why);
    if (rc == MPI_SUCCESS) return rc;
    return dmpi_error_noobj(rc, fn, "%s %d %s", noun, value, why ? why : "cannot be removed");
}

int PMPI_Remove_error_class(int errorclass)
{
    return remove_common(errorclass, DMPI_ERR_REMOVE_CLASS, "MPI_Remove_error_class",
                         "error class");
}
DMPI_ALIAS(Remove_error_class)

int PMPI_Remove_error_code(int errorcode)
{
    return remove_common(errorcode, DMPI_ERR_REMOVE_CODE, "MPI_Remove_error_code", "error code");
}
DMPI_ALIAS(Remove_error_code)

int PMPI_Remove_error_string(int errorcode)
{
    return remove_common(errorcode, DMPI_ERR_REMOVE_STRING, "MPI_Remove_error_string",
                         "error code");
}
DMPI_ALIAS(Remove_error_string)
