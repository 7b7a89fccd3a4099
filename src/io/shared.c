/* The shared file pointer (MPI 4.1 section 14.4.4): one 8-byte counter (in
 * etypes of the current view) per open file, kept in a hidden side file
 * that every member of the group opens and updates under an fcntl record
 * lock, so it works between processes on different (simulated) nodes as
 * long as they share the file system. The first member creates the side
 * file next to the data file (or in $TMPDIR or /tmp when that directory is
 * not writable) and unlinks it as soon as every member has it open: nothing
 * is left behind, even when the job dies. A group of one process keeps the
 * pointer in memory. */
#include "io/io.h"
#include "coll/coll.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned side_seq;

/* Creates the side file in dir; its name goes to name. */
static int make_side(const char *dir, char *name, size_t cap)
{
    snprintf(name, cap, "%s/.dmpi-shfp.%d.%u", dir, (int)getpid(), side_seq++);
    int fd;
    do fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    while (fd < 0 && errno == EINTR);
    return fd;
}

static int put(int fd, MPI_Offset v)
{
    int64_t x = v;
    return dmpi_io_pwrite_full(fd, &x, sizeof x, 0) == (ssize_t)sizeof x ? 0 : -1;
}

int dmpi_sp_create(dmpi_file *f, MPI_Offset initial, char *why)
{
    f->sp_fd = -1;
    f->sp_local = initial;
    dmpi_comm *c = f->comm;
    if (c->size == 1) return MPI_SUCCESS;
    struct { int rc; char name[PATH_MAX]; } m = {MPI_SUCCESS, ""};
    if (c->rank == 0) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", f->path);
        char *slash = strrchr(dir, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == dir) dir[1] = 0;
        else *slash = 0;
        const char *tmp = getenv("TMPDIR");
        const char *dirs[3] = {dir, tmp && *tmp ? tmp : "/tmp", "/tmp"};
        int fd = -1;
        for (int i = 0; i < 3 && fd < 0; i++) fd = make_side(dirs[i], m.name, sizeof m.name);
        if (fd < 0 || put(fd, initial) != 0) {
            snprintf(why, IO_WHY, "cannot create the shared file pointer's side file: %s",
                     strerror(errno));
            m.rc = MPI_ERR_IO;
            if (fd >= 0) {
                close(fd);
                unlink(m.name);
                fd = -1;
            }
        }
        f->sp_fd = fd;
    }
    int rc = dmpi_coll_bcast(&m, sizeof m, dmpi_dt_builtin(MPI_BYTE), 0, c);
    if (rc == MPI_SUCCESS) rc = m.rc;
    int mine = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && c->rank != 0) {
        do f->sp_fd = open(m.name, O_RDWR | O_CLOEXEC);
        while (f->sp_fd < 0 && errno == EINTR);
        if (f->sp_fd < 0) {
            snprintf(why, IO_WHY, "cannot open the shared file pointer's side file '%s': %s",
                     m.name, strerror(errno));
            mine = MPI_ERR_IO;
        }
    }
    if (rc == MPI_SUCCESS) rc = dmpi_io_agree(c, mine, NULL);
    if (c->rank == 0 && m.rc == MPI_SUCCESS) unlink(m.name);
    if (rc != MPI_SUCCESS) dmpi_sp_destroy(f);
    return rc != MPI_SUCCESS && mine == MPI_SUCCESS && m.rc == MPI_SUCCESS ? MPI_ERR_IO : rc;
}

void dmpi_sp_destroy(dmpi_file *f)
{
    if (f->sp_fd >= 0) close(f->sp_fd);
    f->sp_fd = -1;
}

static int lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 8};
    int r;
    do r = fcntl(fd, F_SETLKW, &fl);
    while (r != 0 && errno == EINTR);
    return r;
}

static int sp_update(dmpi_file *f, bool set, MPI_Offset v, MPI_Offset *old, char *why)
{
    if (f->sp_fd < 0) {
        if (old) *old = f->sp_local;
        f->sp_local = set ? v : f->sp_local + v;
        return MPI_SUCCESS;
    }
    int64_t x = 0;
    bool ok = lock(f->sp_fd, F_WRLCK) == 0;
    if (ok) ok = dmpi_io_pread_full(f->sp_fd, &x, sizeof x, 0) == (ssize_t)sizeof x;
    if (ok && (set || v != 0)) ok = put(f->sp_fd, set ? v : x + v) == 0;
    int e = errno;
    lock(f->sp_fd, F_UNLCK);
    if (!ok) {
        snprintf(why, IO_WHY, "shared file pointer: %s", strerror(e));
        return MPI_ERR_IO;
    }
    if (old) *old = x;
    return MPI_SUCCESS;
}

int dmpi_sp_fetch_add(dmpi_file *f, MPI_Offset delta, MPI_Offset *old, char *why)
{
    return sp_update(f, false, delta, old, why);
}

int dmpi_sp_set(dmpi_file *f, MPI_Offset value, char *why)
{
    return sp_update(f, true, value, NULL, why);
}
