/* Error handlers of files, and the creation of session handlers (the
 * other session handler calls are in api/session.c). MPI_FILE_NULL carries
 * the default handler of files (MPI_ERRORS_RETURN until set), which a file
 * takes when it is opened; errors on files are applied in io/errors.c. */
#include "api/api.h"
#include "io/io.h"

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

/* MPI_FILE_NULL or a valid file: *f is the file, or NULL for
 * MPI_FILE_NULL (whose handler is the default of files to be opened). */
#define GET_FILE_OR_NULL(f, file, FN)                                                 \
    do {                                                                              \
        DMPI_CHECK_INIT(FN);                                                          \
        (f) = dmpi_file_get(file);                                                    \
        if (!(f) && (file) != MPI_FILE_NULL)                                          \
            return dmpi_file_err(NULL, MPI_ERR_FILE, FN, "invalid file handle");      \
    } while (0)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char *const FN = "MPI_File_set_errhandler";
    dmpi_file *f;
    GET_FILE_OR_NULL(f, file, FN);
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    if (!e || (!e->builtin && e->kind != DMPI_ERRH_USER_FILE))
        return dmpi_file_err(f, MPI_ERR_ARG, FN, "invalid error handler for files");
    dmpi_lock();
    dmpi_errhandler **slot = f ? &f->errh : &dmpi_file_default_errh;
    dmpi_errhandler_retain(e);
    dmpi_errhandler_release(*slot);
    *slot = e;
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_File_get_errhandler";
    dmpi_file *f;
    GET_FILE_OR_NULL(f, file, FN);
    if (!errhandler) return dmpi_file_err(f, MPI_ERR_ARG, FN, "errhandler is NULL");
    dmpi_lock();
    dmpi_errhandler *e = f ? f->errh : dmpi_file_default_errh;
    dmpi_errhandler_retain(e);
    *errhandler = dmpi_errhandler_handle(e);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File file, int errorcode)
{
    static const char *const FN = "MPI_File_call_errhandler";
    dmpi_file *f;
    GET_FILE_OR_NULL(f, file, FN);
    dmpi_file_call_errhandler(f, errorcode);
    return MPI_SUCCESS;
}
DMPI_ALIAS(File_call_errhandler)
