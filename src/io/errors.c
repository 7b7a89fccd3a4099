/* Errors raised on files (MPI 4.1 section 14.7): the message is recorded by
 * the core's dmpi_error through a private communicator whose handler
 * returns (so MPI_Error_string names the function and the problem), then
 * the file's handler is applied. A file's handler is the one MPI_FILE_NULL
 * had when it was opened; MPI_FILE_NULL's starts as MPI_ERRORS_RETURN, as
 * the standard says. Also: errno values to the I/O error classes. */
#include "io/io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

dmpi_errhandler *dmpi_file_default_errh = &dmpi_errh_return;

static dmpi_comm quiet; /* records messages; its handler returns */

static int record(int cls, const char *func, const char *detail)
{
    quiet.magic = DMPI_MAGIC_COMM;
    quiet.builtin = true;
    quiet.errh = &dmpi_errh_return;
    return dmpi_error(&quiet, cls, func, "%s", detail);
}

static int apply(dmpi_file *f, int code, bool user_raised)
{
    MPI_File handle = f ? dmpi_file_handle(f) : MPI_FILE_NULL;
    return dmpi_errh_apply(f ? f->errh : dmpi_file_default_errh, DMPI_ERRH_RETURN,
                           DMPI_ERRH_USER_FILE, &handle, code,
                           user_raised ? "MPI_File_call_errhandler: " : "");
}

int dmpi_file_err(dmpi_file *f, int cls, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return apply(f, record(cls, func, detail), false);
}

void dmpi_file_call_errhandler(dmpi_file *f, int code) { apply(f, code, true); }

int dmpi_io_errno_class(int err)
{
    switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG: case ENOTDIR: case EISDIR: case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY: case EBUSY: return MPI_ERR_FILE_IN_USE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}
