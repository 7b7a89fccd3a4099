/* Helpers shared by the MPI_File_* entry points (api/file.c, file_rw.c,
 * file_view.c): looking up a file handle and raising errors on the file
 * (its own error handler; MPI_FILE_NULL's for calls without a file). */
#ifndef DMPI_FILE_API_H
#define DMPI_FILE_API_H

#include "api/api.h"
#include "io/io.h"

#define DMPI_GET_FILE(var, h, fn)                                                    \
    do {                                                                             \
        (var) = dmpi_file_get(h);                                                    \
        if (__builtin_expect((var) == NULL, 0))                                      \
            return dmpi_file_err(NULL, MPI_ERR_FILE, (fn), "invalid file handle%s",  \
                                 (h) == MPI_FILE_NULL ? " (MPI_FILE_NULL)" : "");    \
    } while (0)

/* Raise `cls` on file f (NULL: MPI_FILE_NULL's handler) unless cond holds. */
#define DMPI_FCHECK(f, cond, cls, fn, ...)                                           \
    do {                                                                             \
        if (__builtin_expect(!(cond), 0)) return dmpi_file_err((f), (cls), (fn), __VA_ARGS__); \
    } while (0)

/* A failed step: raise rc with the engine's reason. */
static inline int dmpi_file_fail(dmpi_file *f, int rc, const char *fn, const char *why)
{
    return rc == MPI_SUCCESS ? rc : dmpi_file_err(f, rc, fn, "%s", why[0] ? why : "failed");
}

/* Adds the pairs of info `from` (may be NULL) to f's hints (api/file.c). */
int dmpi_file_merge_hints(dmpi_file *f, dmpi_info *from);

#endif
