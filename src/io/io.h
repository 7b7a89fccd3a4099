/* Internal interface of the MPI-IO engine (src/io/): the file object,
 * opening and closing (file.c), file views and their mapping from view
 * offsets to file byte ranges (view.c), the read/write engine over
 * pread/pwrite (access.c), the shared file pointer kept in a hidden side
 * file under fcntl locks (shared.c), errors raised on files (errors.c) and
 * data representations, registered ones included (datarep.c). The MPI_File_*
 * entry points are in src/api/file*.c; docs/io.md describes the design.
 *
 * Offsets: a "view offset" counts etypes from the start of the view; the
 * "view stream" is the sequence of data bytes the view makes visible
 * (etype i is stream bytes [i*esize, (i+1)*esize)); file positions are
 * absolute bytes. All functions return MPI error classes; the ones that
 * can fail for a reason worth telling fill `why` (IO_WHY bytes). */
#ifndef DMPI_IO_H
#define DMPI_IO_H

#include "core/dmpi.h"
#include "core/info.h"

#include <stdbool.h>
#include <sys/types.h>

#define DMPI_MAGIC_FILE 0x46494c45u
#define IO_WHY 256

enum { IO_REP_NATIVE, IO_REP_EXTERNAL32, IO_REP_USER };

typedef struct dmpi_datarep dmpi_datarep; /* registered (datarep.c) */

typedef struct dmpi_file {
    uint32_t magic;
    dmpi_comm *comm;          /* private duplicate of the communicator */
    int fd;
    int amode;
    char *path;
    dmpi_errhandler *errh;
    dmpi_info *hints;         /* hints given at open/set_info/set_view (may be NULL) */
    bool atomic;
    /* view */
    MPI_Offset disp;
    dmpi_datatype *etype, *filetype; /* references held */
    int rep;                  /* IO_REP_* */
    dmpi_datarep *urep;       /* IO_REP_USER */
    char rep_name[MPI_MAX_DATAREP_STRING];
    MPI_Offset pos;           /* individual file pointer, in etypes */
    /* shared file pointer (shared.c) */
    int sp_fd;                /* side file; -1 when the group has one process */
    MPI_Offset sp_local;      /* the pointer itself when sp_fd is -1 */
    /* split collective in progress (0: none), its status and error */
    int split;
    const void *split_buf;
    MPI_Status split_status;
    int split_rc;
} dmpi_file;

static inline dmpi_file *dmpi_file_get(MPI_File h)
{
    if ((uintptr_t)(void *)h < 0x1000) return NULL;
    dmpi_file *f = (dmpi_file *)(void *)h;
    return f->magic == DMPI_MAGIC_FILE ? f : NULL;
}
static inline MPI_File dmpi_file_handle(dmpi_file *f) { return (MPI_File)(void *)f; }

/* ---- errors (errors.c). The handler of MPI_FILE_NULL (for open and
 * delete, and inherited by files at open): MPI_ERRORS_RETURN until set. */
extern dmpi_errhandler *dmpi_file_default_errh;
/* Records "func: message" and applies f's handler (the MPI_FILE_NULL one
 * when f is NULL); returns the code to give back. */
int dmpi_file_err(dmpi_file *f, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI_File_call_errhandler: applies the handler to code as it is. */
void dmpi_file_call_errhandler(dmpi_file *f, int code);
/* The class for an errno value from open, read, write and the like. */
int dmpi_io_errno_class(int err);

/* ---- open, close, delete, size (file.c). Collective over comm. */
int dmpi_file_open(dmpi_comm *comm, const char *path, int amode, dmpi_info *info,
                   dmpi_file **out, char *why);
int dmpi_file_close(dmpi_file *f, char *why);
int dmpi_file_delete(const char *path, char *why);
int dmpi_file_set_size(dmpi_file *f, MPI_Offset size, bool preallocate, char *why);
int dmpi_file_size(dmpi_file *f, MPI_Offset *size, char *why);
int dmpi_file_sync(dmpi_file *f, char *why);
/* The agreed error of a collective step over c: every member passes its
 * own class (MPI_SUCCESS or not) and gets the first failure by rank (and
 * *who, if given, the rank that had it). Also a barrier. */
int dmpi_io_agree(dmpi_comm *c, int rc, int *who);

/* ---- views (view.c) */
/* Checks etype/filetype/datarep and installs the view; resets both file
 * pointers (the shared one collectively). */
int dmpi_file_set_view(dmpi_file *f, MPI_Offset disp, dmpi_datatype *etype,
                       dmpi_datatype *filetype, const char *datarep, char *why);
/* Absolute byte position of view stream byte vpos (the first data byte at
 * or after it). */
MPI_Offset dmpi_view_byte(const dmpi_file *f, MPI_Offset vpos);
/* View stream bytes that lie before file byte `fsize` (end of file). */
MPI_Offset dmpi_view_bytes_before(const dmpi_file *f, MPI_Offset fsize);
/* File pieces of view stream bytes [vpos, vpos+len): at most max of them
 * (offset, length) into off[]/len[]; returns the count and the stream
 * bytes covered in *covered. */
int dmpi_view_map(const dmpi_file *f, MPI_Offset vpos, MPI_Offset len, MPI_Offset *off,
                  MPI_Offset *plen, int max, MPI_Offset *covered);
/* Extent of dt in the file's representation. */
int dmpi_file_type_extent(const dmpi_file *f, dmpi_datatype *dt, MPI_Count *extent);

/* ---- data access (access.c). `count` elements of dt at buf, from view
 * offset `off` (etypes). Sets *bytes to the bytes moved (reads stop at
 * the end of file). */
int dmpi_io_read(dmpi_file *f, MPI_Offset off, void *buf, MPI_Count count, dmpi_datatype *dt,
                 MPI_Count *bytes, char *why);
int dmpi_io_write(dmpi_file *f, MPI_Offset off, const void *buf, MPI_Count count,
                  dmpi_datatype *dt, MPI_Count *bytes, char *why);
/* pread/pwrite of a whole range, retrying on EINTR and partial transfers;
 * reads return the bytes before end of file. -1 with errno on failure. */
ssize_t dmpi_io_pread_full(int fd, void *buf, size_t len, off_t off);
ssize_t dmpi_io_pwrite_full(int fd, const void *buf, size_t len, off_t off);

/* ---- two-phase collective access (twophase.c). Collective over the
 * file's group: every process calls it for the same collective call (ok
 * false: this one takes part with no data). Returns -1 when the call is
 * better done by each process on its own (then nothing happened), else the
 * agreed class, with *bytes as dmpi_io_read/write give it. */
int dmpi_io_coll(dmpi_file *f, bool wr, MPI_Offset off, void *buf, MPI_Count count,
                 dmpi_datatype *dt, bool ok, MPI_Count *bytes, char *why);

/* ---- shared file pointer (shared.c), in etypes */
/* Made at open by the first member, opened by the others (collective):
 * the side file is unlinked as soon as every member has it open. */
int dmpi_sp_create(dmpi_file *f, MPI_Offset initial, char *why);
void dmpi_sp_destroy(dmpi_file *f);
/* Atomically: *old = pointer; pointer += delta. */
int dmpi_sp_fetch_add(dmpi_file *f, MPI_Offset delta, MPI_Offset *old, char *why);
int dmpi_sp_set(dmpi_file *f, MPI_Offset value, char *why);

/* ---- data representations (datarep.c) */
struct dmpi_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra;
};
int dmpi_datarep_register(const char *name, MPI_Datarep_conversion_function *rd,
                          MPI_Datarep_conversion_function *wr,
                          MPI_Datarep_conversion_function_c *rd_c,
                          MPI_Datarep_conversion_function_c *wr_c,
                          MPI_Datarep_extent_function *ext, void *extra);
dmpi_datarep *dmpi_datarep_find(const char *name);
/* Is the representation usable with these types: file extents equal to
 * the native ones (MPI_ERR_UNSUPPORTED_DATAREP otherwise)? */
int dmpi_datarep_check(const dmpi_file *f, dmpi_datatype *dt, char *why);
/* Converts count elements of dt between memory (buf) and the packed file
 * representation (stream, count * dt->size bytes). */
int dmpi_datarep_to_file(const dmpi_file *f, const void *buf, MPI_Count count,
                         dmpi_datatype *dt, void *stream);
int dmpi_datarep_from_file(const dmpi_file *f, void *buf, MPI_Count count, dmpi_datatype *dt,
                           const void *stream);

#endif
