/* The read/write engine of MPI-IO: moves count elements of a memory
 * datatype to or from the view stream at a view offset.
 *
 * Memory side: a contiguous datatype is used in place; any other is packed
 * (writes) or unpacked (reads) through a staging buffer of at most
 * DMPI_IO_STAGE bytes at a time with the datatype engine. A representation
 * other than native converts the whole access in one buffer (datarep.c).
 * File side: the view maps each stretch of the stream to file pieces
 * (view.c), each written with pwrite or read with pread, retrying partial
 * transfers and EINTR. A read stops at the end of file. In atomic mode the
 * access holds an fcntl lock on the file (shared for reads, exclusive for
 * writes), so concurrent accesses by other processes are serialised.
 * Reads of dense noncontiguous pieces read their span once (data
 * sieving); writes go piece by piece. Collective calls may go through
 * two-phase aggregation first (twophase.c, docs/io.md). */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPIECE 256

ssize_t dmpi_io_pread_full(int fd, void *buf, size_t len, off_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break; /* end of file */
        done += (size_t)n;
    }
    return (ssize_t)done;
}

ssize_t dmpi_io_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static size_t stage_bytes(void)
{
    static long v = -1;
    if (v < 0) {
        v = dmpi_env_long("DMPI_IO_STAGE", 4L << 20);
        if (v < 4096) v = 4096;
    }
    return (size_t)v;
}

static void atomic_lock(dmpi_file *f, short type)
{
    if (!f->atomic) return;
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    while (fcntl(f->fd, F_SETLKW, &fl) != 0 && errno == EINTR) {
    }
}

/* Data sieving for reads: n > 1 pieces that cover at least half of their
 * span, which fits the staging size, are read with one pread of the span.
 * Returns the bytes copied to mem (short at end of file), -1 with errno, or
 * -2 when sieving does not apply. */
static MPI_Offset sieve_read(dmpi_file *f, const MPI_Offset *off, const MPI_Offset *plen, int n,
                             MPI_Offset cov, char *mem)
{
    MPI_Offset lo = off[0], span = off[n - 1] + plen[n - 1] - lo;
    if (n < 2 || span > (MPI_Offset)stage_bytes() || cov * 2 < span) return -2;
    char *s = malloc((size_t)span);
    if (!s) return -2;
    ssize_t got = dmpi_io_pread_full(f->fd, s, (size_t)span, lo);
    MPI_Offset done = 0;
    for (int i = 0; got >= 0 && i < n; i++) {
        MPI_Offset at = off[i] - lo, avail = got - at;
        if (avail > plen[i]) avail = plen[i];
        if (avail <= 0) break;
        memcpy(mem + done, s + at, (size_t)avail);
        done += avail;
        if (avail < plen[i]) break;
    }
    int e = errno;
    free(s);
    errno = e;
    return got < 0 ? -1 : done;
}

/* Moves stream bytes [vpos, vpos+len) between mem and the file. Returns
 * the bytes moved (fewer at end of file for reads) or -1 with errno. */
static MPI_Offset move(dmpi_file *f, bool wr, MPI_Offset vpos, char *mem, MPI_Offset len)
{
    MPI_Offset off[NPIECE], plen[NPIECE], done = 0;
    while (done < len) {
        MPI_Offset cov;
        int n = dmpi_view_map(f, vpos + done, len - done, off, plen, NPIECE, &cov);
        if (n <= 0) break;
        MPI_Offset sv = wr ? -2 : sieve_read(f, off, plen, n, cov, mem + done);
        if (sv == -1) return done == 0 ? -1 : done;
        if (sv >= 0) {
            done += sv;
            if (sv < cov) return done;
            continue;
        }
        for (int i = 0; i < n; i++) {
            ssize_t got = wr ? dmpi_io_pwrite_full(f->fd, mem + done, (size_t)plen[i], off[i])
                             : dmpi_io_pread_full(f->fd, mem + done, (size_t)plen[i], off[i]);
            if (got < 0) return wr || done == 0 ? -1 : done;
            done += got;
            if (got < plen[i]) return done;
        }
    }
    return done;
}

static int fail(int e, bool wr, char *why)
{
    snprintf(why, IO_WHY, "%s failed: %s", wr ? "pwrite" : "pread", strerror(e));
    return dmpi_io_errno_class(e);
}

static int check_whole(dmpi_file *f, MPI_Count total, char *why)
{
    if (total % f->etype->size == 0) return MPI_SUCCESS;
    snprintf(why, IO_WHY, "the data (%lld bytes) is not a whole number of etypes (%lld bytes)",
             (long long)total, (long long)f->etype->size);
    return MPI_ERR_TYPE;
}

/* A representation other than native: the whole access converted at once. */
static int converted(dmpi_file *f, bool wr, MPI_Offset vpos, void *buf, MPI_Count count,
                     dmpi_datatype *dt, MPI_Count *bytes, char *why)
{
    MPI_Count total = count * dt->size;
    char *s = malloc(total ? (size_t)total : 1);
    if (!s) {
        snprintf(why, IO_WHY, "out of memory for %lld bytes of conversion buffer",
                 (long long)total);
        return MPI_ERR_NO_MEM;
    }
    int rc = wr ? dmpi_datarep_to_file(f, buf, count, dt, s) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) snprintf(why, IO_WHY, "the write conversion function failed");
    MPI_Offset got = 0;
    if (rc == MPI_SUCCESS) {
        atomic_lock(f, wr ? F_WRLCK : F_RDLCK);
        got = move(f, wr, vpos, s, total);
        int e = errno;
        atomic_lock(f, F_UNLCK);
        if (got < 0) rc = fail(e, wr, why);
    }
    if (rc == MPI_SUCCESS && !wr && got > 0) {
        rc = dmpi_datarep_from_file(f, buf, got / dt->size, dt, s);
        if (rc != MPI_SUCCESS) snprintf(why, IO_WHY, "the read conversion function failed");
    }
    free(s);
    *bytes = got > 0 ? got : 0;
    return rc;
}

static int access_data(dmpi_file *f, bool wr, MPI_Offset off, void *buf, MPI_Count count,
                       dmpi_datatype *dt, MPI_Count *bytes, char *why)
{
    *bytes = 0;
    MPI_Count total = count * dt->size;
    int rc = check_whole(f, total, why);
    if (rc != MPI_SUCCESS || total == 0) return rc;
    MPI_Offset vpos = off * f->etype->size;
    if (f->rep != IO_REP_NATIVE) return converted(f, wr, vpos, buf, count, dt, bytes, why);
    if (dt->contiguous) {
        atomic_lock(f, wr ? F_WRLCK : F_RDLCK);
        MPI_Offset got = move(f, wr, vpos, (char *)buf + dt->true_lb, total);
        int e = errno;
        atomic_lock(f, F_UNLCK);
        if (got < 0) return fail(e, wr, why);
        *bytes = got;
        return MPI_SUCCESS;
    }
    size_t cap = stage_bytes();
    if ((MPI_Count)cap > total) cap = (size_t)total;
    char *s = malloc(cap);
    if (!s) {
        snprintf(why, IO_WHY, "out of memory for the staging buffer");
        return MPI_ERR_NO_MEM;
    }
    atomic_lock(f, wr ? F_WRLCK : F_RDLCK);
    MPI_Count done = 0;
    while (done < total) {
        MPI_Count n = total - done < (MPI_Count)cap ? total - done : (MPI_Count)cap;
        if (wr) dmpi_dt_pack(buf, count, dt, done, s, n);
        MPI_Offset got = move(f, wr, vpos + done, s, n);
        if (got < 0) {
            rc = fail(errno, wr, why);
            break;
        }
        if (!wr) dmpi_dt_unpack(buf, count, dt, done, s, got);
        done += got;
        if (got < n) break;
    }
    atomic_lock(f, F_UNLCK);
    free(s);
    *bytes = done;
    return rc;
}

int dmpi_io_read(dmpi_file *f, MPI_Offset off, void *buf, MPI_Count count, dmpi_datatype *dt,
                 MPI_Count *bytes, char *why)
{
    return access_data(f, false, off, buf, count, dt, bytes, why);
}

int dmpi_io_write(dmpi_file *f, MPI_Offset off, const void *buf, MPI_Count count,
                  dmpi_datatype *dt, MPI_Count *bytes, char *why)
{
    return access_data(f, true, off, (void *)buf, count, dt, bytes, why);
}
