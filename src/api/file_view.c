/* MPI-IO entry points for views and file pointers (MPI 4.1 sections 14.3,
 * 14.4.3 and 14.4.4): set/get view, type extent in the file, seek and
 * position of the individual and the shared file pointer, byte offsets. */
#include "api/file_api.h"
#include "coll/coll.h"
#include "core/dt_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char *const FN = "MPI_File_set_view";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    dmpi_datatype *et = dmpi_dt_get(etype), *ft = dmpi_dt_get(filetype);
    DMPI_FCHECK(f, et, MPI_ERR_TYPE, FN, "invalid etype");
    DMPI_FCHECK(f, ft, MPI_ERR_TYPE, FN, "invalid filetype");
    DMPI_FCHECK(f, et->committed && ft->committed, MPI_ERR_TYPE, FN,
                "the etype and the filetype must be committed");
    DMPI_FCHECK(f, disp >= 0 || (disp == MPI_DISPLACEMENT_CURRENT &&
                                 (f->amode & MPI_MODE_SEQUENTIAL)),
                MPI_ERR_ARG, FN, "invalid displacement %lld%s", (long long)disp,
                disp == MPI_DISPLACEMENT_CURRENT ? " (MPI_DISPLACEMENT_CURRENT needs a file "
                                                   "opened with MPI_MODE_SEQUENTIAL)" : "");
    DMPI_FCHECK(f, datarep, MPI_ERR_UNSUPPORTED_DATAREP, FN, "datarep is NULL");
    DMPI_FCHECK(f, info == MPI_INFO_NULL || dmpi_info_get(info), MPI_ERR_INFO, FN,
                "invalid info object");
    char why[IO_WHY] = "";
    dmpi_lock();
    int rc = dmpi_file_set_view(f, disp, et, ft, datarep, why);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = dmpi_file_merge_hints(f, dmpi_info_get(info));
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, why);
}
DMPI_ALIAS(File_set_view)

/* A handle for the view's type: predefined ones as they are, derived ones
 * as a new duplicate the caller frees (MPI 4.1 section 14.3). */
static int type_out(dmpi_datatype *dt, MPI_Datatype *out)
{
    if (dt->named) {
        *out = dt->handle;
        return MPI_SUCCESS;
    }
    dmpi_dt_args *a = dt_args_new(MPI_COMBINER_DUP, 0, 0, 0, 1);
    dmpi_datatype *d = NULL;
    int rc = a ? dt_create_dup(dt, &d) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(a);
        return rc;
    }
    a->types[0] = dt;
    dt_set_args(d, a);
    d->committed = true;
    *out = d->handle;
    return MPI_SUCCESS;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    static const char *const FN = "MPI_File_get_view";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, disp && etype && filetype && datarep, MPI_ERR_ARG, FN,
                "an output argument is NULL");
    dmpi_lock();
    MPI_Datatype e = MPI_DATATYPE_NULL, t = MPI_DATATYPE_NULL;
    int rc = type_out(f->etype, &e);
    if (rc == MPI_SUCCESS) rc = type_out(f->filetype, &t);
    if (rc == MPI_SUCCESS) {
        *disp = f->disp;
        *etype = e;
        *filetype = t;
        snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->rep_name);
    }
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, "out of memory");
}
DMPI_ALIAS(File_get_view)

static int type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, fn);
    dmpi_datatype *dt = dmpi_dt_get(datatype);
    DMPI_FCHECK(f, dt, MPI_ERR_TYPE, fn, "invalid datatype");
    DMPI_FCHECK(f, extent, MPI_ERR_ARG, fn, "extent is NULL");
    int rc = dmpi_file_type_extent(f, dt, extent);
    return dmpi_file_fail(f, rc, fn, "the data representation's extent function failed");
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e = 0;
    int rc = type_extent(fh, datatype, extent ? &e : NULL, "MPI_File_get_type_extent");
    if (rc == MPI_SUCCESS) *extent = (MPI_Aint)e;
    return rc;
}
DMPI_ALIAS(File_get_type_extent)

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return type_extent(fh, datatype, extent, "MPI_File_get_type_extent_c");
}
DMPI_ALIAS(File_get_type_extent_c)

/* The view offset (etypes) of the end of file. */
static int eof_offset(dmpi_file *f, MPI_Offset *out, char *why)
{
    MPI_Offset size = 0;
    int rc = dmpi_file_size(f, &size, why);
    if (rc == MPI_SUCCESS) *out = dmpi_view_bytes_before(f, size) / f->etype->size;
    return rc;
}

/* New pointer value for (offset, whence) from cur; MPI_ERR_ARG if it
 * would be negative or whence is unknown. */
static int seek_target(dmpi_file *f, MPI_Offset cur, MPI_Offset offset, int whence,
                       MPI_Offset *out, char *why)
{
    MPI_Offset base = 0;
    if (whence == MPI_SEEK_SET) base = 0;
    else if (whence == MPI_SEEK_CUR) base = cur;
    else if (whence == MPI_SEEK_END) {
        int rc = eof_offset(f, &base, why);
        if (rc != MPI_SUCCESS) return rc;
    } else {
        snprintf(why, IO_WHY, "invalid whence %d", whence);
        return MPI_ERR_ARG;
    }
    if (base + offset < 0) {
        snprintf(why, IO_WHY, "the new position (%lld) would be negative",
                 (long long)(base + offset));
        return MPI_ERR_ARG;
    }
    *out = base + offset;
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char *const FN = "MPI_File_seek";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_SEQUENTIAL), MPI_ERR_UNSUPPORTED_OPERATION, FN,
                "the file was opened with MPI_MODE_SEQUENTIAL");
    char why[IO_WHY] = "";
    dmpi_lock();
    MPI_Offset to = 0;
    int rc = seek_target(f, f->pos, offset, whence, &to, why);
    if (rc == MPI_SUCCESS) f->pos = to;
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, why);
}
DMPI_ALIAS(File_seek)

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    static const char *const FN = "MPI_File_get_position";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, offset, MPI_ERR_ARG, FN, "offset is NULL");
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_SEQUENTIAL), MPI_ERR_UNSUPPORTED_OPERATION, FN,
                "the file was opened with MPI_MODE_SEQUENTIAL");
    *offset = f->pos;
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_position)

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char *const FN = "MPI_File_seek_shared";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    char why[IO_WHY] = "";
    dmpi_lock();
    /* collective: rank 0 moves the pointer after every process got here
     * (their earlier shared accesses are done), all leave after it */
    int rc = dmpi_io_agree(f->comm, MPI_SUCCESS, NULL), mine = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && f->comm->rank == 0) {
        MPI_Offset cur = 0, to = 0;
        mine = whence == MPI_SEEK_CUR ? dmpi_sp_fetch_add(f, 0, &cur, why) : MPI_SUCCESS;
        if (mine == MPI_SUCCESS) mine = seek_target(f, cur, offset, whence, &to, why);
        if (mine == MPI_SUCCESS) mine = dmpi_sp_set(f, to, why);
    }
    if (rc == MPI_SUCCESS) rc = dmpi_io_agree(f->comm, mine, NULL);
    dmpi_unlock();
    if (rc != MPI_SUCCESS && mine == MPI_SUCCESS && !why[0])
        snprintf(why, sizeof why, "rank 0 could not move the shared file pointer");
    return dmpi_file_fail(f, rc, FN, why);
}
DMPI_ALIAS(File_seek_shared)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    static const char *const FN = "MPI_File_get_position_shared";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, offset, MPI_ERR_ARG, FN, "offset is NULL");
    char why[IO_WHY] = "";
    dmpi_lock();
    int rc = dmpi_sp_fetch_add(f, 0, offset, why);
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, why);
}
DMPI_ALIAS(File_get_position_shared)

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char *const FN = "MPI_File_get_byte_offset";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, disp, MPI_ERR_ARG, FN, "disp is NULL");
    DMPI_FCHECK(f, offset >= 0, MPI_ERR_ARG, FN, "negative offset %lld", (long long)offset);
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_SEQUENTIAL), MPI_ERR_UNSUPPORTED_OPERATION, FN,
                "the file was opened with MPI_MODE_SEQUENTIAL");
    dmpi_lock();
    *disp = dmpi_view_byte(f, offset * f->etype->size);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_byte_offset)
