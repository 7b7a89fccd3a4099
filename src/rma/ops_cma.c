/* The "cma" mover: the target's window memory is private to the target
 * (MPI_Win_create, MPI_Win_attach), so the origin moves the data itself
 * with process_vm_writev/readv (cross-memory attach), gathering both
 * sides' datatypes into iovec lists: one system call per run of up to
 * IOVN pieces a side, no bounce buffer, no help from the target. It has
 * no native atomics: accumulates to such memory take the target's
 * read-modify-write mutex in the control block (rma/xfer.c). */
#include "rma/rma.h"
#include "transport/shm/shm.h"

#include <errno.h>
#include <sys/uio.h>

#define IOVN 128

/* Cuts iov[0..n) to cover exactly `bytes`; returns the new count. */
static int trim(struct iovec *iov, int n, MPI_Count bytes)
{
    MPI_Count sum = 0;
    for (int i = 0; i < n; i++) {
        if (sum + (MPI_Count)iov[i].iov_len >= bytes) {
            iov[i].iov_len = (size_t)(bytes - sum);
            return i + 1;
        }
        sum += (MPI_Count)iov[i].iov_len;
    }
    return n;
}

/* Drops the first k bytes of *iov (*n entries). */
static void advance(struct iovec **iov, int *n, size_t k)
{
    while (*n > 0 && k >= (*iov)->iov_len) {
        k -= (*iov)->iov_len;
        (*iov)++;
        (*n)--;
    }
    if (*n > 0 && k) {
        (*iov)->iov_base = (char *)(*iov)->iov_base + k;
        (*iov)->iov_len -= k;
    }
}

static int cma_move(dmpi_win *w, int t, bool write, uintptr_t taddr, MPI_Count tcount,
                    dmpi_datatype *tdt, void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    pid_t pid = dmpi_shm.pids[w->tgt[t].world];
    MPI_Count total = tcount * tdt->size, off = 0;
    struct iovec l[IOVN], r[IOVN];
    while (off < total) {
        MPI_Count rcov = 0, lcov = 0;
        int nr = dmpi_dt_iov((const void *)taddr, tcount, tdt, off, r, IOVN, &rcov);
        int nl = dmpi_dt_iov(obuf, ocount, odt, off, l, IOVN, &lcov);
        MPI_Count n = rcov < lcov ? rcov : lcov;
        if (n <= 0) return MPI_ERR_INTERN;
        nr = trim(r, nr, n);
        nl = trim(l, nl, n);
        struct iovec *lp = l, *rp = r;
        for (MPI_Count done = 0; done < n;) {
            ssize_t k = write ? process_vm_writev(pid, lp, (unsigned long)nl, rp,
                                                  (unsigned long)nr, 0)
                              : process_vm_readv(pid, lp, (unsigned long)nl, rp,
                                                 (unsigned long)nr, 0);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return errno == EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER;
            done += k;
            advance(&lp, &nl, (size_t)k);
            advance(&rp, &nr, (size_t)k);
        }
        off += n;
    }
    return MPI_SUCCESS;
}

static int cma_put(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                   const void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    return cma_move(w, t, true, taddr, tcount, tdt, (void *)obuf, ocount, odt);
}

static int cma_get(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                   void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    return cma_move(w, t, false, taddr, tcount, tdt, obuf, ocount, odt);
}

static void cma_flush(dmpi_win *w, int t)
{
    (void)w, (void)t;
    atomic_thread_fence(memory_order_seq_cst); /* the copies are done: order only */
}

const dmpi_rma_ops dmpi_rma_cma_ops = {
    .name = "cma",
    .put = cma_put,
    .get = cma_get,
    .atomic = NULL,
    .cas = NULL,
    .flush = cma_flush,
};
