/* MPI packing and addresses (MPI 4.1 sections 5.1.5, 5.2): Pack, Unpack,
 * Pack_size, Pack_external, Unpack_external, Pack_external_size (each also
 * _c), Get_address, Aint_add, Aint_diff. The native packed form is the
 * plain concatenation of the data (what point-to-point sends); the only
 * external representation is "external32" (core/dt_external.c). */
#include "api/api.h"
#include "core/dt_layout.h"

#include <limits.h>
#include <string.h>

#define ERR(cls, ...) dmpi_error(c, (cls), fn, __VA_ARGS__)

/* Communicator (may be NULL for the external forms), committed datatype,
 * count. */
static int check_common(const char *fn, MPI_Comm comm, bool has_comm, MPI_Count count,
                        MPI_Datatype type, dmpi_comm **cp, dmpi_datatype **dtp)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c = NULL;
    if (has_comm) DMPI_GET_COMM(c, comm, fn);
    DMPI_CHECK_COUNT(c, count, fn);
    dmpi_datatype *dt;
    DMPI_GET_DTYPE(dt, c, type, fn);
    *cp = c;
    *dtp = dt;
    return MPI_SUCCESS;
}

static bool datarep_ok(const char *datarep)
{
    return datarep && strcmp(datarep, "external32") == 0;
}

/* Pack and Pack_external: bytes of count elements at buf go to outbuf +
 * *position, which must leave them room in outsize bytes. */
static int pack(const char *fn, bool external, const char *datarep, const void *inbuf,
                MPI_Count incount, MPI_Datatype type, void *outbuf, MPI_Count outsize,
                MPI_Count *position, MPI_Comm comm)
{
    dmpi_comm *c;
    dmpi_datatype *dt;
    int rc = check_common(fn, comm, !external, incount, type, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (external && !datarep_ok(datarep))
        return ERR(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\" (only \"external32\")",
                   datarep ? datarep : "(null)");
    DMPI_CHECK_BUF(c, inbuf, incount, dt, fn);
    if (!position) return ERR(MPI_ERR_ARG, "position is NULL");
    if (outsize < 0 || *position < 0)
        return ERR(MPI_ERR_ARG, "negative %s", outsize < 0 ? "outsize" : "position");
    MPI_Count bytes = incount * (external ? dt_external_size(dt) : dt->size);
    if (bytes > outsize - *position)
        return ERR(MPI_ERR_TRUNCATE, "%lld bytes to pack at position %lld do not fit in %lld",
                   (long long)bytes, (long long)*position, (long long)outsize);
    if (bytes == 0) return MPI_SUCCESS;
    if (!outbuf) return ERR(MPI_ERR_BUFFER, "outbuf is NULL");
    char *out = (char *)outbuf + *position;
    if (external) dt_external_pack(inbuf, incount, dt, out);
    else dmpi_dt_pack(inbuf, incount, dt, 0, out, bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack(const char *fn, bool external, const char *datarep, const void *inbuf,
                  MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                  MPI_Datatype type, MPI_Comm comm)
{
    dmpi_comm *c;
    dmpi_datatype *dt;
    int rc = check_common(fn, comm, !external, outcount, type, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (external && !datarep_ok(datarep))
        return ERR(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\" (only \"external32\")",
                   datarep ? datarep : "(null)");
    DMPI_CHECK_BUF(c, outbuf, outcount, dt, fn);
    if (!position) return ERR(MPI_ERR_ARG, "position is NULL");
    if (insize < 0 || *position < 0)
        return ERR(MPI_ERR_ARG, "negative %s", insize < 0 ? "insize" : "position");
    MPI_Count bytes = outcount * (external ? dt_external_size(dt) : dt->size);
    if (bytes > insize - *position)
        return ERR(MPI_ERR_TRUNCATE, "%lld bytes to unpack at position %lld but only %lld in "
                   "the buffer", (long long)bytes, (long long)*position, (long long)insize);
    if (bytes == 0) return MPI_SUCCESS;
    if (!inbuf) return ERR(MPI_ERR_BUFFER, "inbuf is NULL");
    const char *in = (const char *)inbuf + *position;
    if (external) dt_external_unpack(in, outcount, dt, outbuf);
    else dmpi_dt_unpack(outbuf, outcount, dt, 0, in, bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = pack("MPI_Pack", false, NULL, inbuf, incount, datatype, outbuf, outsize,
                  position ? &pos : NULL, comm);
    if (rc == MPI_SUCCESS) *position = (int)pos;
    return rc;
}
DMPI_ALIAS(Pack)

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack("MPI_Pack_c", false, NULL, inbuf, incount, datatype, outbuf, outsize, position, comm);
}
DMPI_ALIAS(Pack_c)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = unpack("MPI_Unpack", false, NULL, inbuf, insize, position ? &pos : NULL, outbuf, outcount,
                    datatype, comm);
    if (rc == MPI_SUCCESS) *position = (int)pos;
    return rc;
}
DMPI_ALIAS(Unpack)

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack("MPI_Unpack_c", false, NULL, inbuf, insize, position, outbuf, outcount, datatype, comm);
}
DMPI_ALIAS(Unpack_c)

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = position ? *position : 0;
    int rc = pack("MPI_Pack_external", true, datarep, inbuf, incount, datatype, outbuf, outsize,
                  position ? &pos : NULL, MPI_COMM_NULL);
    if (rc == MPI_SUCCESS) *position = (MPI_Aint)pos;
    return rc;
}
DMPI_ALIAS(Pack_external)

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack("MPI_Pack_external_c", true, datarep, inbuf, incount, datatype, outbuf, outsize,
                position, MPI_COMM_NULL);
}
DMPI_ALIAS(Pack_external_c)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = position ? *position : 0;
    int rc = unpack("MPI_Unpack_external", true, datarep, inbuf, insize, position ? &pos : NULL, outbuf,
                    outcount, datatype, MPI_COMM_NULL);
    if (rc == MPI_SUCCESS) *position = (MPI_Aint)pos;
    return rc;
}
DMPI_ALIAS(Unpack_external)

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack("MPI_Unpack_external_c", true, datarep, inbuf, insize, position, outbuf, outcount,
                  datatype, MPI_COMM_NULL);
}
DMPI_ALIAS(Unpack_external_c)

/* Pack_size and Pack_external_size. */
static int pack_size(const char *fn, const char *datarep, MPI_Count incount, MPI_Datatype type,
                     MPI_Comm comm, MPI_Count *size)
{
    bool external = datarep != NULL;
    dmpi_comm *c;
    dmpi_datatype *dt;
    int rc = check_common(fn, comm, !external, incount, type, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (external && !datarep_ok(datarep))
        return ERR(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\" (only \"external32\")",
                   datarep);
    if (!size) return ERR(MPI_ERR_ARG, "size is NULL");
    *size = incount * (external ? dt_external_size(dt) : dt->size);
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    const char *fn = "MPI_Pack_size";
    MPI_Count n = 0;
    int rc = pack_size(fn, NULL, incount, datatype, comm, size ? &n : NULL);
    if (rc != MPI_SUCCESS) return rc;
    if (n > INT_MAX) {
        dmpi_comm *c = dmpi_comm_get(comm);
        return ERR(MPI_ERR_VALUE_TOO_LARGE, "%lld bytes do not fit in an int: use MPI_Pack_size_c",
                   (long long)n);
    }
    *size = (int)n;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Pack_size)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", NULL, incount, datatype, comm, size);
}
DMPI_ALIAS(Pack_size_c)

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    const char *fn = "MPI_Pack_external_size";
    if (!datarep) return dmpi_error_noobj(MPI_ERR_ARG, fn, "datarep is NULL");
    MPI_Count n = 0;
    int rc = pack_size(fn, datarep, incount, datatype, MPI_COMM_NULL, size ? &n : NULL);
    if (rc == MPI_SUCCESS) *size = (MPI_Aint)n;
    return rc;
}
DMPI_ALIAS(Pack_external_size)

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    const char *fn = "MPI_Pack_external_size_c";
    if (!datarep) return dmpi_error_noobj(MPI_ERR_ARG, fn, "datarep is NULL");
    return pack_size(fn, datarep, incount, datatype, MPI_COMM_NULL, size);
}
DMPI_ALIAS(Pack_external_size_c)

/* ------------------------------------------------------------ addresses */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
DMPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
DMPI_ALIAS(Aint_diff)
