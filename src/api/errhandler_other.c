/* Error handlers of files, and the creation of session handlers (the
 * other session handler calls are in api/session.c). dmpi has no MPI-IO
 * yet, but the file error-handler calls work as far as they can without
 * file objects: handlers can be created, and MPI_FILE_NULL carries the
 * default handler for file operations (MPI_ERRORS_RETURN until set), which
 * MPI_File_set/get/call_errhandler manage. Any other file handle is
 * invalid (MPI_ERR_FILE). */
#include "api/api.h"

static dmpi_errhandler *file_default = &dmpi_errh_return;

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return dmpi_errhandler_create(DMPI_ERRH_USER_FILE, (void (*)(void))fn, errhandler,
                  "MPI_File_create_errhandler");
}
DMPI_ALIAS(File_create_errhandler)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn,
                                   MPI_Errhandler *errhandler)
{
    return dmpi_errhandler_create(DMPI_ERRH_USER_SESSION, (void (*)(void))fn, errhandler,
                  "MPI_Session_create_errhandler");
}
DMPI_ALIAS(Session_create_errhandler)

#define CHECK_FILE(file, FN)                                                          \
    do {                                                                              \
        DMPI_CHECK_INIT(FN);                                                          \
        if ((file) != MPI_FILE_NULL)                                                  \
            return dmpi_error_noobj(MPI_ERR_FILE, FN,                                 \
                                    "invalid file (MPI-IO is not implemented yet)");  \
    } while (0)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char *const FN = "MPI_File_set_errhandler";
    CHECK_FILE(file, FN);
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    if (!e || (!e->builtin && e->kind != DMPI_ERRH_USER_FILE))
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "invalid error handler for files");
    dmpi_lock();
    dmpi_errhandler_retain(e);
    dmpi_errhandler_release(file_default);
    file_default = e;
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_File_get_errhandler";
    CHECK_FILE(file, FN);
    if (!errhandler) return dmpi_error_noobj(MPI_ERR_ARG, FN, "errhandler is NULL");
    dmpi_lock();
    dmpi_errhandler_retain(file_default);
    *errhandler = dmpi_errhandler_handle(file_default);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File file, int errorcode)
{
    static const char *const FN = "MPI_File_call_errhandler";
    CHECK_FILE(file, FN);
    dmpi_errhandler *e = file_default;
    if (e->kind == DMPI_ERRH_USER_FILE) {
        MPI_File f = file;
        int code = errorcode;
        ((MPI_File_errhandler_function *)(void (*)(void))e->comm_fn)(&f, &code);
        return MPI_SUCCESS;
    }
    if (e->kind == DMPI_ERRH_RETURN) return MPI_SUCCESS;
    dmpi_abort_job(1, "dmpi: rank %d: %s: error %d (%s) on MPI_FILE_NULL under a fatal handler",
                   dmpi_rt.world_rank, FN, errorcode,
                   dmpi_error_text(errorcode) ? dmpi_error_text(errorcode) : "unknown code");
}
DMPI_ALIAS(File_call_errhandler)
