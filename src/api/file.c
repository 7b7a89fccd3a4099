/* MPI-IO entry points for file management (MPI 4.1 section 14.2): open,
 * close, delete, size, preallocate, sync, access mode, group, info,
 * atomicity, and MPI_Register_datarep. Argument checks here; the work is
 * in src/io/. Errors go to the file's handler, or MPI_FILE_NULL's for open,
 * delete and invalid handles (MPI_ERRORS_RETURN unless changed). */
#include "api/file_api.h"
#include "coll/coll.h"
#include "core/group.h"

#include <string.h>

static bool is_info(MPI_Info h, dmpi_info **out)
{
    *out = NULL;
    if (h == MPI_INFO_NULL) return true;
    return (*out = dmpi_info_get(h)) != NULL;
}

/* Exactly one of RDONLY, RDWR, WRONLY; no CREATE/EXCL with RDONLY; no
 * SEQUENTIAL with RDWR; no unknown bits. */
static const char *amode_problem(int amode)
{
    const int known = MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE |
                      MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                      MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
    if (amode & ~known) return "unknown bits in the access mode";
    if (rw != 1) return "the access mode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR "
                        "and MPI_MODE_WRONLY";
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    return NULL;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char *const FN = "MPI_File_open";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c = dmpi_comm_get(comm);
    DMPI_FCHECK(NULL, c, MPI_ERR_COMM, FN, "invalid communicator");
    DMPI_FCHECK(NULL, !c->remote_group, MPI_ERR_COMM, FN,
                "files cannot be opened on an intercommunicator");
    DMPI_FCHECK(NULL, fh, MPI_ERR_ARG, FN, "fh is NULL");
    *fh = MPI_FILE_NULL;
    DMPI_FCHECK(NULL, filename, MPI_ERR_BAD_FILE, FN, "filename is NULL");
    const char *why_amode = amode_problem(amode);
    DMPI_FCHECK(NULL, !why_amode, MPI_ERR_AMODE, FN, "%s (amode %#x)", why_amode, amode);
    dmpi_info *inf;
    DMPI_FCHECK(NULL, is_info(info, &inf), MPI_ERR_INFO, FN, "invalid info object");
    char why[IO_WHY] = "";
    dmpi_file *f = NULL;
    dmpi_lock();
    int rc = dmpi_file_open(c, filename, amode, inf, &f, why);
    dmpi_unlock();
    if (rc != MPI_SUCCESS) {
        *fh = MPI_FILE_NULL;
        return dmpi_file_fail(NULL, rc, FN, why);
    }
    *fh = dmpi_file_handle(f);
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_open)

int PMPI_File_close(MPI_File *fh)
{
    static const char *const FN = "MPI_File_close";
    DMPI_CHECK_INIT(FN);
    DMPI_FCHECK(NULL, fh, MPI_ERR_ARG, FN, "fh is NULL");
    dmpi_file *f;
    DMPI_GET_FILE(f, *fh, FN);
    char why[IO_WHY] = "";
    dmpi_lock();
    int rc = dmpi_file_close(f, why);
    dmpi_unlock();
    *fh = MPI_FILE_NULL;
    return dmpi_file_fail(NULL, rc, FN, why);
}
DMPI_ALIAS(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    static const char *const FN = "MPI_File_delete";
    DMPI_CHECK_INIT(FN);
    DMPI_FCHECK(NULL, filename, MPI_ERR_BAD_FILE, FN, "filename is NULL");
    dmpi_info *inf;
    DMPI_FCHECK(NULL, is_info(info, &inf), MPI_ERR_INFO, FN, "invalid info object");
    char why[IO_WHY] = "";
    int rc = dmpi_file_delete(filename, why);
    return dmpi_file_fail(NULL, rc, FN, why);
}
DMPI_ALIAS(File_delete)

static int resize(MPI_File fh, MPI_Offset size, bool prealloc, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, fn);
    DMPI_FCHECK(f, size >= 0, MPI_ERR_ARG, fn, "negative size %lld", (long long)size);
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_RDONLY), MPI_ERR_READ_ONLY, fn,
                "the file was opened read-only");
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_SEQUENTIAL), MPI_ERR_UNSUPPORTED_OPERATION, fn,
                "the file was opened with MPI_MODE_SEQUENTIAL");
    char why[IO_WHY] = "";
    dmpi_lock();
    int rc = dmpi_file_set_size(f, size, prealloc, why);
    dmpi_unlock();
    return dmpi_file_fail(f, rc, fn, why);
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, false, "MPI_File_set_size");
}
DMPI_ALIAS(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, true, "MPI_File_preallocate");
}
DMPI_ALIAS(File_preallocate)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    static const char *const FN = "MPI_File_get_size";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, size, MPI_ERR_ARG, FN, "size is NULL");
    char why[IO_WHY] = "";
    return dmpi_file_fail(f, dmpi_file_size(f, size, why), FN, why);
}
DMPI_ALIAS(File_get_size)

int PMPI_File_sync(MPI_File fh)
{
    static const char *const FN = "MPI_File_sync";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    char why[IO_WHY] = "";
    dmpi_lock();
    int rc = dmpi_file_sync(f, why);
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, why);
}
DMPI_ALIAS(File_sync)

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    static const char *const FN = "MPI_File_get_amode";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, amode, MPI_ERR_ARG, FN, "amode is NULL");
    *amode = f->amode;
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_amode)

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    static const char *const FN = "MPI_File_get_group";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, group, MPI_ERR_ARG, FN, "group is NULL");
    dmpi_lock();
    dmpi_group_retain(f->comm->group);
    *group = dmpi_group_handle(f->comm->group);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_group)

int dmpi_file_merge_hints(dmpi_file *f, dmpi_info *from)
{
    if (!from) return MPI_SUCCESS;
    if (!f->hints && !(f->hints = dmpi_info_new())) return MPI_ERR_NO_MEM;
    char key[MPI_MAX_INFO_KEY];
    int n = dmpi_info_nkeys(from), rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (dmpi_info_nthkey(from, i, key))
            rc = dmpi_info_set_kv(f->hints, key, dmpi_info_lookup(from, key));
    return rc;
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    static const char *const FN = "MPI_File_set_info";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    dmpi_info *inf;
    DMPI_FCHECK(f, is_info(info, &inf), MPI_ERR_INFO, FN, "invalid info object");
    dmpi_lock();
    int rc = dmpi_file_merge_hints(f, inf);
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, "cannot store the hints");
}
DMPI_ALIAS(File_set_info)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    static const char *const FN = "MPI_File_get_info";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, info_used, MPI_ERR_ARG, FN, "info_used is NULL");
    dmpi_lock();
    dmpi_info *out = NULL;
    int rc = f->hints ? dmpi_info_dup(f->hints, &out)
                      : (out = dmpi_info_new()) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    dmpi_unlock();
    if (rc != MPI_SUCCESS) return dmpi_file_err(f, rc, FN, "out of memory");
    *info_used = dmpi_info_handle(out);
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_info)

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    static const char *const FN = "MPI_File_set_atomicity";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    int mine = flag ? 1 : 0;
    dmpi_lock();
    /* collective: every process must give the same flag */
    int sum = mine, rc = MPI_SUCCESS;
    if (f->comm->size > 1)
        rc = dmpi_coll_allreduce(&mine, &sum, 1, dmpi_dt_builtin(MPI_INT),
                                 dmpi_op_builtin(MPI_SUM), f->comm);
    if (rc == MPI_SUCCESS && sum != 0 && sum != f->comm->size) rc = MPI_ERR_NOT_SAME;
    if (rc == MPI_SUCCESS) f->atomic = mine;
    dmpi_unlock();
    return dmpi_file_fail(f, rc, FN, rc == MPI_ERR_NOT_SAME
                                         ? "the processes gave different flags" : "failed");
}
DMPI_ALIAS(File_set_atomicity)

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    static const char *const FN = "MPI_File_get_atomicity";
    DMPI_CHECK_INIT(FN);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, FN);
    DMPI_FCHECK(f, flag, MPI_ERR_ARG, FN, "flag is NULL");
    *flag = f->atomic;
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_atomicity)

static int register_rep(const char *name, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr,
                        MPI_Datarep_conversion_function_c *rd_c,
                        MPI_Datarep_conversion_function_c *wr_c,
                        MPI_Datarep_extent_function *ext, void *extra, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    DMPI_FCHECK(NULL, name && *name, MPI_ERR_ARG, fn, "datarep name is NULL or empty");
    DMPI_FCHECK(NULL, strlen(name) < MPI_MAX_DATAREP_STRING, MPI_ERR_ARG, fn,
                "datarep name longer than MPI_MAX_DATAREP_STRING-1");
    DMPI_FCHECK(NULL, ext, MPI_ERR_ARG, fn, "dtype_file_extent_fn is NULL");
    dmpi_lock();
    int rc = dmpi_datarep_register(name, rd, wr, rd_c, wr_c, ext, extra);
    dmpi_unlock();
    if (rc == MPI_ERR_DUP_DATAREP)
        return dmpi_file_err(NULL, rc, fn, "data representation '%s' is already defined", name);
    return dmpi_file_fail(NULL, rc, fn, "out of memory");
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_rep(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL,
                        dtype_file_extent_fn, extra_state, "MPI_Register_datarep");
}
DMPI_ALIAS(Register_datarep)

int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_rep(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn,
                        dtype_file_extent_fn, extra_state, "MPI_Register_datarep_c");
}
DMPI_ALIAS(Register_datarep_c)
