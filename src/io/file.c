/* MPI-IO files: open (collective: the first member creates the file, the
 * others open it after; every member's outcome is agreed so that all fail
 * together), close (optionally deleting the file), delete, size changes,
 * sync, and the agreement step the collective calls share. */
#include "io/io.h"
#include "coll/coll.h"
#include "core/comm_ops.h"
#include "core/handle_ints.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dmpi_io_agree(dmpi_comm *c, int rc, int *who)
{
    if (who) *who = c->rank;
    if (c->size == 1) return rc;
    int *all = malloc((size_t)c->size * sizeof *all);
    if (!all) dmpi_abort_job(1, "dmpi: rank %d: out of memory in MPI-IO", dmpi_rt.world_rank);
    dmpi_datatype *it = dmpi_dt_builtin(MPI_INT);
    int crc = dmpi_coll_allgather(&rc, 1, it, all, 1, it, c);
    int out = crc;
    for (int i = 0; i < c->size && out == MPI_SUCCESS; i++)
        if (all[i] != MPI_SUCCESS) {
            out = dmpi_error_class_of(all[i]);
            if (who) *who = i;
        }
    free(all);
    return out;
}

static int open_flags(int amode)
{
    int fl = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    return fl | O_CLOEXEC;
}

/* Opens path on this process; creating it when asked. */
static int open_one(const char *path, int amode, bool create, int *fd, char *why)
{
    int fl = open_flags(amode);
    if (create) fl |= O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0);
    int d;
    do d = open(path, fl, 0666);
    while (d < 0 && errno == EINTR);
    if (d < 0) {
        int e = errno;
        snprintf(why, IO_WHY, "cannot open '%s': %s", path, strerror(e));
        return dmpi_io_errno_class(e);
    }
    struct stat st;
    if (fstat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(d);
        snprintf(why, IO_WHY, "'%s' is a directory", path);
        return MPI_ERR_BAD_FILE;
    }
    *fd = d;
    return MPI_SUCCESS;
}

int dmpi_file_open(dmpi_comm *comm, const char *path, int amode, dmpi_info *info,
                   dmpi_file **out, char *why)
{
    *out = NULL;
    dmpi_comm *c = NULL;
    int rc = dmpi_comm_dup(comm, &c);
    if (rc != MPI_SUCCESS) {
        snprintf(why, IO_WHY, "cannot duplicate the communicator");
        return rc;
    }
    int fd = -1, who;
    bool create = amode & MPI_MODE_CREATE;
    /* every member must give the same access mode */
    int *modes = malloc((size_t)c->size * sizeof *modes);
    if (!modes) dmpi_abort_job(1, "dmpi: rank %d: out of memory in MPI-IO", dmpi_rt.world_rank);
    dmpi_datatype *it = dmpi_dt_builtin(MPI_INT);
    modes[0] = amode;
    rc = c->size > 1 ? dmpi_coll_allgather(&amode, 1, it, modes, 1, it, c) : MPI_SUCCESS;
    for (int i = 0; i < c->size && rc == MPI_SUCCESS; i++)
        if (modes[i] != modes[0]) {
            rc = MPI_ERR_NOT_SAME;
            snprintf(why, IO_WHY, "the processes gave different access modes (%#x at rank 0, "
                     "%#x at rank %d)", modes[0], modes[i], i);
        }
    free(modes);
    if (rc != MPI_SUCCESS) goto fail;
    /* the first member creates the file, then the others open it */
    int mine = c->rank == 0 ? open_one(path, amode, create, &fd, why) : MPI_SUCCESS;
    rc = dmpi_io_agree(c, mine, &who);
    if (rc == MPI_SUCCESS && c->rank != 0) mine = open_one(path, amode, false, &fd, why);
    if (rc == MPI_SUCCESS) rc = dmpi_io_agree(c, mine, &who);
    if (rc != MPI_SUCCESS) {
        if (mine == MPI_SUCCESS)
            snprintf(why, IO_WHY, "rank %d of the communicator could not open '%s'", who, path);
        goto fail;
    }
    dmpi_file *f = calloc(1, sizeof *f);
    char *p = strdup(path);
    dmpi_info *h = NULL;
    mine = f && p ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (mine == MPI_SUCCESS && info) mine = dmpi_info_dup(info, &h);
    if (mine != MPI_SUCCESS) {
        free(f);
        free(p);
        f = NULL;
    } else {
        f->magic = DMPI_MAGIC_FILE;
        f->comm = c;
        f->fd = fd;
        f->amode = amode;
        f->path = p;
        f->hints = h;
        f->etype = f->filetype = dmpi_dt_builtin(MPI_BYTE);
        f->rep = IO_REP_NATIVE;
        snprintf(f->rep_name, sizeof f->rep_name, "native");
        f->sp_fd = -1;
        if (amode & MPI_MODE_APPEND) {
            struct stat st;
            if (fstat(fd, &st) == 0) f->pos = st.st_size;
        }
        mine = dmpi_sp_create(f, f->pos, why);
    }
    rc = dmpi_io_agree(c, mine, &who);
    if (rc != MPI_SUCCESS) {
        if (f) {
            dmpi_sp_destroy(f);
            if (h) dmpi_info_free(h);
            free(p);
            f->magic = 0;
            free(f);
        }
        if (mine == MPI_SUCCESS) snprintf(why, IO_WHY, "rank %d could not set up the file", who);
        else if (!why[0]) snprintf(why, IO_WHY, "out of memory");
        goto fail;
    }
    f->errh = dmpi_file_default_errh;
    dmpi_errhandler_retain(f->errh);
    *out = f;
    return MPI_SUCCESS;
fail:
    if (fd >= 0) close(fd);
    dmpi_comm_release(c);
    return rc;
}

/* Freed files stay allocated (marked) for a while, so that a stale handle
 * is caught as invalid instead of reading freed memory. */
#define QUARANTINE 64
static dmpi_file *quarantine[QUARANTINE];
static unsigned quarantine_next;

int dmpi_file_close(dmpi_file *f, char *why)
{
    dmpi_sp_destroy(f);
    int mine = MPI_SUCCESS;
    if (close(f->fd) != 0 && errno != EINTR) {
        mine = dmpi_io_errno_class(errno);
        snprintf(why, IO_WHY, "close: %s", strerror(errno));
    }
    int rc = dmpi_io_agree(f->comm, mine, NULL);
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->comm->rank == 0 && unlink(f->path) != 0 &&
        errno != ENOENT && rc == MPI_SUCCESS) {
        rc = dmpi_io_errno_class(errno);
        snprintf(why, IO_WHY, "cannot delete '%s' on close: %s", f->path, strerror(errno));
    }
    if (rc != MPI_SUCCESS && mine == MPI_SUCCESS && !why[0])
        snprintf(why, IO_WHY, "another process could not close the file");
    dmpi_handle_forget((uintptr_t)(void *)f);
    dmpi_dt_release(f->etype);
    dmpi_dt_release(f->filetype);
    dmpi_comm_release(f->comm);
    dmpi_errhandler_release(f->errh);
    if (f->hints) dmpi_info_free(f->hints);
    free(f->path);
    f->magic = DMPI_MAGIC_FREED;
    unsigned i = quarantine_next++ % QUARANTINE;
    free(quarantine[i]);
    quarantine[i] = f;
    return rc;
}

int dmpi_file_delete(const char *path, char *why)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, IO_WHY, "'%s' is a directory", path);
        return MPI_ERR_BAD_FILE;
    }
    if (unlink(path) == 0) return MPI_SUCCESS;
    snprintf(why, IO_WHY, "cannot delete '%s': %s", path, strerror(errno));
    return dmpi_io_errno_class(errno);
}

int dmpi_file_size(dmpi_file *f, MPI_Offset *size, char *why)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        snprintf(why, IO_WHY, "fstat: %s", strerror(errno));
        return dmpi_io_errno_class(errno);
    }
    *size = st.st_size;
    return MPI_SUCCESS;
}

int dmpi_file_set_size(dmpi_file *f, MPI_Offset size, bool preallocate, char *why)
{
    /* every member's earlier writes are done before the size changes */
    int rc = dmpi_io_agree(f->comm, MPI_SUCCESS, NULL);
    int mine = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && f->comm->rank == 0) {
        if (preallocate) {
            MPI_Offset now = 0;
            mine = dmpi_file_size(f, &now, why);
            int e = mine == MPI_SUCCESS && size > now ? posix_fallocate(f->fd, 0, size) : 0;
            if (e) {
                mine = dmpi_io_errno_class(e);
                snprintf(why, IO_WHY, "posix_fallocate: %s", strerror(e));
            }
        } else {
            int r;
            do r = ftruncate(f->fd, size);
            while (r != 0 && errno == EINTR);
            if (r != 0) {
                mine = dmpi_io_errno_class(errno);
                snprintf(why, IO_WHY, "ftruncate: %s", strerror(errno));
            }
        }
    }
    if (rc == MPI_SUCCESS) rc = dmpi_io_agree(f->comm, mine, NULL);
    if (rc != MPI_SUCCESS && mine == MPI_SUCCESS && !why[0])
        snprintf(why, IO_WHY, "rank 0 could not change the size");
    return rc;
}

int dmpi_file_sync(dmpi_file *f, char *why)
{
    int mine = MPI_SUCCESS;
    if (fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS) {
        mine = dmpi_io_errno_class(errno);
        snprintf(why, IO_WHY, "fsync: %s", strerror(errno));
    }
    int rc = dmpi_io_agree(f->comm, mine, NULL);
    if (rc != MPI_SUCCESS && mine == MPI_SUCCESS)
        snprintf(why, IO_WHY, "another process could not sync the file");
    return rc;
}
