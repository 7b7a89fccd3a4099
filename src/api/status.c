/* Status queries and setters: Get_count, Get_elements (+_x, _c),
 * Status_set_elements, Status_set_cancelled, Test_cancelled and the
 * MPI-5 source/tag/error accessors. A status keeps the received byte
 * count in its hidden fields; basic elements are counted on the
 * datatype's typed layout (core/dt_walk.c), so a message that ends inside
 * an element of a derived type still counts the basic elements it holds. */
#include "api/api.h"
#include "core/dt_layout.h"

static int get_count(const char *fn, const MPI_Status *status, MPI_Datatype type, MPI_Count *count,
                     bool elements)
{
    if (!status || !count) return dmpi_error_noobj(MPI_ERR_ARG, fn, "NULL argument");
    dmpi_datatype *dt = dmpi_dt_get(type);
    if (!dt) return dmpi_error_noobj(MPI_ERR_TYPE, fn, "invalid datatype");
    MPI_Count bytes = dmpi_status_bytes(status);
    if (elements) {
        MPI_Count n = dt_count_elements(dt, bytes);
        *count = n < 0 ? MPI_UNDEFINED : n;
    } else if (dt->size == 0) {
        *count = 0;
    } else {
        *count = bytes % dt->size ? MPI_UNDEFINED : bytes / dt->size;
    }
    return MPI_SUCCESS;
}

static int narrow(MPI_Count v, int *out)
{
    *out = v > 0x7fffffff ? MPI_UNDEFINED : (int)v;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count)
{
    MPI_Count n;
    if (!count) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_count", "count is NULL");
    int rc = get_count("MPI_Get_count", status, type, &n, false);
    return rc != MPI_SUCCESS ? rc : narrow(n, count);
}
DMPI_ALIAS(Get_count)

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype type, MPI_Count *count)
{
    return get_count("MPI_Get_count_c", status, type, count, false);
}
DMPI_ALIAS(Get_count_c)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype type, int *count)
{
    MPI_Count n;
    if (!count) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_elements", "count is NULL");
    int rc = get_count("MPI_Get_elements", status, type, &n, true);
    return rc != MPI_SUCCESS ? rc : narrow(n, count);
}
DMPI_ALIAS(Get_elements)

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype type, MPI_Count *count)
{
    return get_count("MPI_Get_elements_c", status, type, count, true);
}
DMPI_ALIAS(Get_elements_c)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype type, MPI_Count *count)
{
    return get_count("MPI_Get_elements_x", status, type, count, true);
}
DMPI_ALIAS(Get_elements_x)

static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype type, MPI_Count count)
{
    if (!status) return dmpi_error_noobj(MPI_ERR_ARG, fn, "status is NULL");
    if (count < 0) return dmpi_error_noobj(MPI_ERR_COUNT, fn, "negative count");
    dmpi_datatype *dt = dmpi_dt_get(type);
    if (!dt) return dmpi_error_noobj(MPI_ERR_TYPE, fn, "invalid datatype");
    MPI_Count bytes = dt_bytes_of_elements(dt, count);
    dmpi_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype type, int count)
{
    return set_elements("MPI_Status_set_elements", status, type, count);
}
DMPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype type, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, type, count);
}
DMPI_ALIAS(Status_set_elements_x)

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype type, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, type, count);
}
DMPI_ALIAS(Status_set_elements_c)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    dmpi_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Status_set_cancelled)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = dmpi_status_cancelled(status);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Test_cancelled)

/* MPI-5 accessors for the public fields. */
#define STATUS_FIELD(Field, member)                                                         \
    int PMPI_Status_get_##Field(const MPI_Status *status, int *v)                          \
    {                                                                                      \
        if (!status || !v)                                                                 \
            return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Status_get_" #Field, "NULL argument"); \
        *v = status->member;                                                               \
        return MPI_SUCCESS;                                                                \
    }                                                                                      \
    DMPI_ALIAS(Status_get_##Field)                                                         \
    int PMPI_Status_set_##Field(MPI_Status *status, int v)                                 \
    {                                                                                      \
        if (!status)                                                                       \
            return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Status_set_" #Field, "status is NULL"); \
        status->member = v;                                                                \
        return MPI_SUCCESS;                                                                \
    }                                                                                      \
    DMPI_ALIAS(Status_set_##Field)

STATUS_FIELD(source, MPI_SOURCE)
STATUS_FIELD(tag, MPI_TAG)
STATUS_FIELD(error, MPI_ERROR)
