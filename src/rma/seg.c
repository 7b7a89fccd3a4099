/* The shared-memory segment of a window and what lives in its control
 * block: the layout (header, one record per rank with its lock words,
 * accumulate stripes, PSCW counters (the attach tables of dynamic windows
 * are in each rank's own memory, see rma/win.c),
 * then the window memory of the allocate flavors), creation and mapping
 * (POSIX shm, 0600, created by one rank, unlinked by it as soon as every
 * rank has mapped it: see rma/win.c), the window barrier, and the locks:
 * the reader-writer lock of MPI_Win_lock and the mutexes that make
 * accumulates element-wise atomic where no native atomic does. */
#include "rma/rma.h"
#include "coll/coll.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define CTL_MAGIC 0x646d70692d77696eull
#define NSTRIPES 128u
#define PAGE 4096u

struct dmpi_win_ctl {
    uint64_t magic;
    uint32_t nranks, nstripes;
    uint64_t bytes;
    _Alignas(64) _Atomic uint32_t bar_count;
    _Alignas(64) _Atomic uint32_t bar_sense;
};

typedef struct layout {
    size_t rank_off, stripe_off, post_off, complete_off, total;
} layout;

static size_t up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static layout compute(int size)
{
    layout L;
    size_t n = (size_t)size;
    L.rank_off = up(sizeof(struct dmpi_win_ctl), 64);
    L.stripe_off = L.rank_off + n * sizeof(dmpi_win_ctl_rank);
    L.post_off = up(L.stripe_off + NSTRIPES * DMPI_WIN_STRIPE_STRIDE * sizeof(uint32_t), 64);
    L.complete_off = up(L.post_off + n * n * sizeof(uint32_t), 64);
    L.total = up(L.complete_off + n * n * sizeof(uint32_t), PAGE);
    return L;
}

size_t dmpi_win_ctl_bytes(int size) { return compute(size).total; }

void dmpi_win_ctl_attach(dmpi_win *w, bool init, size_t bytes)
{
    layout L = compute(w->size);
    char *s = w->seg;
    w->ctl = (struct dmpi_win_ctl *)(void *)s;
    w->ctl_rank = (dmpi_win_ctl_rank *)(void *)(s + L.rank_off);
    w->stripes = (_Atomic uint32_t *)(void *)(s + L.stripe_off);
    w->nstripes = NSTRIPES;
    w->post = (_Atomic uint32_t *)(void *)(s + L.post_off);
    w->complete = (_Atomic uint32_t *)(void *)(s + L.complete_off);
    if (init) { /* the file is fresh: all zero already */
        w->ctl->nranks = (uint32_t)w->size;
        w->ctl->nstripes = NSTRIPES;
        w->ctl->bytes = bytes;
        w->ctl->magic = CTL_MAGIC;
    }
}

/* ---------------------------------------------------------------- segment */
static int map_fd(int fd, size_t bytes, void **out, char *why, size_t whylen)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, whylen, "cannot map %zu bytes of shared memory: %s", bytes,
                 strerror(errno));
        return errno == ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    }
    *out = p;
    return MPI_SUCCESS;
}

int dmpi_win_seg_create(const char *name, size_t bytes, void **out, char *why, size_t whylen)
{
    /* tmpfs hands out pages on first touch: refuse what cannot fit now
     * rather than die of SIGBUS later */
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) == 0 && sv.f_frsize > 0 &&
        bytes / sv.f_frsize > (size_t)sv.f_bavail) {
        snprintf(why, whylen,
                 "%zu bytes of window memory do not fit into /dev/shm (%llu bytes free)", bytes,
                 (unsigned long long)sv.f_bavail * sv.f_frsize);
        return MPI_ERR_NO_MEM;
    }
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create shared memory %s: %s", name, strerror(errno));
        return MPI_ERR_OTHER;
    }
    int rc = MPI_SUCCESS;
    if (ftruncate(fd, (off_t)bytes) != 0) {
        snprintf(why, whylen, "cannot size shared memory %s to %zu bytes: %s", name, bytes,
                 strerror(errno));
        rc = MPI_ERR_NO_MEM;
    } else {
        rc = map_fd(fd, bytes, out, why, whylen);
    }
    close(fd);
    if (rc != MPI_SUCCESS) shm_unlink(name);
    return rc;
}

int dmpi_win_seg_map(const char *name, size_t bytes, void **out, char *why, size_t whylen)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open shared memory %s: %s", name, strerror(errno));
        return MPI_ERR_OTHER;
    }
    int rc = map_fd(fd, bytes, out, why, whylen);
    close(fd);
    if (rc == MPI_SUCCESS && ((struct dmpi_win_ctl *)*out)->magic != CTL_MAGIC) {
        munmap(*out, bytes);
        snprintf(why, whylen, "shared memory %s is not a window segment", name);
        rc = MPI_ERR_INTERN;
    }
    return rc;
}

/* ---------------------------------------------------------------- barrier */
static void wait_idle(unsigned *idle)
{
    if (dmpi_progress()) *idle = 0;
    else dmpi_progress_idle(idle);
}

void dmpi_win_barrier(dmpi_win *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (w->size == 1) return;
    if (w->net) { /* across nodes: everything done at its target, then all meet */
        dmpi_rma_net_flush_all(w);
        dmpi_coll_barrier(w->comm);
        return;
    }
    w->bar_sense = !w->bar_sense;
    uint32_t sense = w->bar_sense;
    struct dmpi_win_ctl *c = w->ctl;
    if (atomic_fetch_add_explicit(&c->bar_count, 1, memory_order_acq_rel) ==
        (uint32_t)w->size - 1) {
        atomic_store_explicit(&c->bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&c->bar_sense, sense, memory_order_release);
        return;
    }
    unsigned idle = 0;
    while (atomic_load_explicit(&c->bar_sense, memory_order_acquire) != sense) wait_idle(&idle);
}

/* ------------------------------------------------------------------ locks */
void dmpi_rma_backoff(unsigned *spins)
{
    if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield(); /* the holder may be descheduled (more ranks than cores) */
    }
}

/* Shared holders count in the low bits; DMPI_RWLOCK_EXCL marks the
 * exclusive holder. No queue: waiters poll (progressing p2p meanwhile). */
bool dmpi_rma_rwlock_try(dmpi_win *w, int t, int type)
{
    _Atomic uint64_t *l = &w->ctl_rank[t].rwlock;
    for (;;) {
        uint64_t v = atomic_load_explicit(l, memory_order_relaxed);
        if (type == MPI_LOCK_EXCLUSIVE)
            return v == 0 && atomic_compare_exchange_strong_explicit(
                                 l, &v, DMPI_RWLOCK_EXCL, memory_order_acquire, memory_order_relaxed);
        if (v & DMPI_RWLOCK_EXCL) return false;
        if (atomic_compare_exchange_weak_explicit(l, &v, v + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
        /* another reader came in: retry at once */
    }
}

void dmpi_rma_rwlock_acquire(dmpi_win *w, int t, int type)
{
    if (w->tgt[t].ops->lock) {
        w->tgt[t].ops->lock(w, t, type);
        return;
    }
    unsigned idle = 0;
    while (!dmpi_rma_rwlock_try(w, t, type)) wait_idle(&idle);
}

void dmpi_rma_rwlock_release_word(dmpi_win *w, int t, int type)
{
    _Atomic uint64_t *l = &w->ctl_rank[t].rwlock;
    if (type == MPI_LOCK_EXCLUSIVE) atomic_store_explicit(l, 0, memory_order_release);
    else atomic_fetch_sub_explicit(l, 1, memory_order_release);
}

void dmpi_rma_rwlock_release(dmpi_win *w, int t, int type)
{
    if (w->tgt[t].ops->unlock) w->tgt[t].ops->unlock(w, t, type);
    else dmpi_rma_rwlock_release_word(w, t, type);
}

static void mutex_lock(_Atomic uint32_t *m)
{
    unsigned spins = 0;
    for (;;) {
        uint32_t z = 0;
        if (atomic_load_explicit(m, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(m, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        dmpi_rma_backoff(&spins);
    }
}

static void mutex_unlock(_Atomic uint32_t *m) { atomic_store_explicit(m, 0, memory_order_release); }

/* Stripe of 64-byte line `line` of target t: consecutive lines get
 * consecutive stripes, so a range takes its stripes in ascending order
 * (two runs when it wraps) and lockers never deadlock. */
typedef struct stripe_run { unsigned first[2], count[2]; } stripe_run;

static stripe_run stripes_of(const dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi)
{
    stripe_run r = {{0, 0}, {0, 0}};
    unsigned n = w->nstripes;
    uint64_t l0 = (uint64_t)lo >> 6, l1 = (uint64_t)(hi > lo ? hi - 1 : lo) >> 6;
    if (l1 - l0 + 1 >= n) {
        r.count[0] = n;
        return r;
    }
    unsigned k = (unsigned)(l1 - l0 + 1), s0 = (unsigned)((l0 + (uint64_t)t * 37u) % n);
    if (s0 + k <= n) {
        r.first[0] = s0;
        r.count[0] = k;
    } else {
        r.first[0] = 0;
        r.count[0] = s0 + k - n;
        r.first[1] = s0;
        r.count[1] = n - s0;
    }
    return r;
}

void dmpi_rma_acc_lock(dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi)
{
    if (!w->tgt[t].mapped) {
        mutex_lock(&w->ctl_rank[t].acc_lock);
        return;
    }
    stripe_run r = stripes_of(w, t, lo, hi);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < r.count[k]; i++)
            mutex_lock(&w->stripes[(r.first[k] + i) * DMPI_WIN_STRIPE_STRIDE]);
}

void dmpi_rma_acc_unlock(dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi)
{
    if (!w->tgt[t].mapped) {
        mutex_unlock(&w->ctl_rank[t].acc_lock);
        return;
    }
    stripe_run r = stripes_of(w, t, lo, hi);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < r.count[k]; i++)
            mutex_unlock(&w->stripes[(r.first[k] + i) * DMPI_WIN_STRIPE_STRIDE]);
}
