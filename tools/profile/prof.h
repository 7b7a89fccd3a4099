/* Internal interface of libdmpi_profile.so, the MPI profile preloaded by
 * `mpiexec --profile`: per-thread counters, the clock, peer translation to
 * MPI_COMM_WORLD ranks, the report at MPI_Finalize (docs/profile.md). */
#ifndef PROF_H
#define PROF_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "prof_ids.h"

#define PROF_EXPORT __attribute__((visibility("default")))

/* traffic kinds of the matrix; the first two also have size histograms */
enum { PROF_P2P, PROF_COLL, PROF_RMA, PROF_NKIND };
/* size buckets: 0 B, then up to 8^k B for k = 1..PROF_NBUCKET-2, then more */
#define PROF_NBUCKET 10

/* A function's calls are all timed at first; after each PROF_SAMPLE_AFTER
 * timed calls, if those averaged under prof_g.sample_ticks (1 us) it is timed
 * until the next such check one call in PROF_SAMPLE_ONE_IN on average (gaps drawn at random), else
 * every call. Its time is the timed calls' time scaled by calls / timed: reading the clock costs 25-35 ns on
 * some virtual machines, more than some MPI calls. Counts and bytes are
 * always exact. */
#define PROF_SAMPLE_AFTER 256
#define PROF_SAMPLE_ONE_IN 64

/* the process-wide state that every call reads, in one cache line */
struct prof_glob {
    int paused;            /* MPI_Pcontrol(0) paused the profile (per process) */
    int nranks;            /* MPI_COMM_WORLD size once MPI_Init returned, else 0 */
    volatile unsigned gen; /* bumped when a cached rank translation is freed */
    uint64_t sample_ticks; /* 1 us in ticks: the sampling threshold */
    /* ticks two back-to-back clock reads take (the least of some): subtracted
     * from every timed call, so that cheap calls are not charged the clock */
    uint64_t clock_ticks;
} __attribute__((aligned(64)));
extern struct prof_glob prof_g;

/* one function's counters that an untimed call touches, in one cache line */
struct prof_fn {
    uint64_t calls, bytes;
    /* while sampled: calls until the next timed one (> 1: this one is
     * not); 0 while every call is timed */
    int32_t skip;
    /* one-sided functions: the last window named (valid while wgen ==
     * prof_g.gen), its number of ranks wn, their world ranks wr[] (NULL
     * when rank i is world rank i), and the one-sided part of this
     * thread's matrix; the last origin datatype (0 before; a derived
     * one valid while wgen is, MPI_Type_free bumps the generation) and
     * its size */
    int32_t wn;
    MPI_Win win;
    const int *wr;
    uint64_t *rma;
    MPI_Datatype dt;
    uint32_t wgen, dtsize;
} __attribute__((aligned(64)));

/* one function's timing, read and written by timed calls only */
struct prof_time {
    uint64_t ticks, timed;
    uint64_t wticks; /* ticks since the last sampling check */
    uint32_t sampled;
};

/* one thread's counters, 64-byte aligned (prof_thr_new) */
struct prof_thr {
    struct prof_fn fn[PROF_NFUNC];
    struct prof_time tm[PROF_NFUNC];
    uint64_t rng;
    uint64_t hist[2][PROF_NBUCKET];
    uint64_t *mat; /* [kind][world peer][messages, bytes], NULL before MPI_Init */
    struct prof_thr *next;
};

/* MPI_Pcontrol(0) pauses the profile (nothing counted, the wall clock
 * stopped), MPI_Pcontrol(1) resumes it; per process */
extern int prof_pcontrol_used;
extern uint64_t prof_paused_ticks;
void prof_pause_end(uint64_t now);
/* thread-local data in the static TLS block: the library is preloaded at
 * start-up, and the initial-exec model spares every call __tls_get_addr */
#define PROF_TLS __thread __attribute__((tls_model("initial-exec")))
extern PROF_TLS struct prof_thr *prof_self;
struct prof_thr *prof_thr_new(void);

static inline uint64_t prof_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    extern uint64_t prof_now_slow(void);
    return prof_now_slow();
#endif
}

static inline struct prof_thr *prof_thr(void)
{
    struct prof_thr *t = prof_self;
    return t ? t : prof_thr_new();
}

/* The generated wrappers' fast path: true when this call of id by the
 * thread whose counters are t (NULL: none yet) is to be counted but not
 * timed (a sampled function between two timed calls, not paused); the
 * call is then counted by prof_count (or prof_rma_quick). */
static inline __attribute__((always_inline)) int prof_quick(struct prof_thr *t, int id)
{
    if (__builtin_expect(!t || prof_g.paused, 0)) return 0;
    return __builtin_expect(t->fn[id].skip > 1, 1);
}

/* counts a call that prof_quick let through, which moved bytes, in its
 * function's counters f, one call nearer the next timed one */
static inline __attribute__((always_inline)) void prof_count(struct prof_fn *f, uint64_t bytes)
{
    f->calls++;
    f->bytes += bytes;
    f->skip--;
}

/* the tick a call of id starts at, 0 when this call is not timed (paused,
 * or a sampled function between two timed calls) */
static inline __attribute__((always_inline)) uint64_t prof_start(int id)
{
    struct prof_thr *t = prof_thr();
    if (prof_g.paused) return 0;
    struct prof_fn *f = &t->fn[id];
    if (f->skip > 1) {
        f->skip--;
        return 0;
    }
    if (t->tm[id].sampled) { /* timed now: draw the gap to the next timed call */
        t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17; /* xorshift64 */
        f->skip = 1 + (int32_t)(t->rng % (2 * PROF_SAMPLE_ONE_IN - 1)); /* 1..127, mean 64 */
    }
    return prof_now();
}

/* the tick a call that started at t0 ends at (0 if not timed) */
static inline uint64_t prof_stop(uint64_t t0) { return t0 ? prof_now() : 0; }

/* counts one call of id, timed from t0 to t1 unless t0 is 0, that moved bytes */
static inline __attribute__((always_inline)) void prof_add(int id, uint64_t t0, uint64_t t1, uint64_t bytes)
{
    if (prof_g.paused) return;
    struct prof_thr *t = prof_self; /* prof_start made it */
    struct prof_fn *f = &t->fn[id];
    f->calls++;
    f->bytes += bytes;
    if (!t0) return;
    struct prof_time *tm = &t->tm[id];
    uint64_t d = t1 - t0 > prof_g.clock_ticks ? t1 - t0 - prof_g.clock_ticks : 0;
    tm->ticks += d;
    tm->wticks += d;
    if (++tm->timed % PROF_SAMPLE_AFTER == 0) {
        tm->sampled = tm->wticks < PROF_SAMPLE_AFTER * prof_g.sample_ticks;
        if (!tm->sampled) f->skip = 0; /* every call timed until the next check */
        tm->wticks = 0;
    }
}

/* size bucket of n bytes */
static inline int prof_bucket(uint64_t n)
{
    int b = 0;
    if (n == 0) return 0;
    for (uint64_t lim = 8; b < PROF_NBUCKET - 2 && n > lim; lim *= 8) b++;
    return b + 1;
}

/* one message (p2p) or one collective call of n bytes in the histogram */
static inline void prof_hist(int kind, uint64_t n)
{
    if (!prof_g.paused) prof_thr()->hist[kind][prof_bucket(n)]++;
}

/* one message of n bytes from this rank to world rank peer (ignored if < 0) */
uint64_t *prof_mat_new(struct prof_thr *t);
static inline __attribute__((always_inline)) void prof_msg(int kind, int peer, uint64_t n)
{
    if (peer < 0 || peer >= prof_g.nranks || prof_g.paused) return;
    struct prof_thr *t = prof_thr();
    uint64_t *mat = t->mat ? t->mat : prof_mat_new(t);
    if (!mat) return;
    uint64_t *e = mat + ((size_t)kind * (size_t)prof_g.nranks + (size_t)peer) * 2;
    e[0]++;
    e[1] += n;
}

/* a communicator's (or window's) ranks as MPI_COMM_WORLD ranks (-1: none) */
struct prof_map { int n, me, inter; int r[]; };
/* the map of comm, NULL when it cannot be made (no MPI_COMM_WORLD yet) */
const struct prof_map *prof_comm(MPI_Comm comm);

/* the accounting of the calls that move data (prof_acct.c, used by the
 * generated wrappers): each fills the matrix (and the histogram of its
 * kind) and returns the bytes this rank sends in the call */
uint64_t prof_send(MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm);
uint64_t prof_bcast(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
uint64_t prof_reduce(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
uint64_t prof_allreduce(MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
uint64_t prof_gather(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
uint64_t prof_scatter(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
uint64_t prof_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                        MPI_Datatype rtype, MPI_Comm comm);
#define prof_alltoall prof_allgather /* the same flow: one block to every other rank */
uint64_t prof_reduce_scatter_block(MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
uint64_t prof_scan(MPI_Count count, MPI_Datatype dt, MPI_Comm comm);
uint64_t prof_barrier(MPI_Comm comm);
/* the v and w forms: counts are int[] or, in the _c forms, MPI_Count[] */
#define PROF_WIDE(a) (sizeof *(a) == sizeof(MPI_Count))
#define PROF_SCATTERV(c, t, root, comm) prof_scatterv(c, PROF_WIDE(c), t, root, comm)
#define PROF_ALLGATHERV(sb, sc, st, rc, rt, comm) prof_allgatherv(sb, sc, st, rc, PROF_WIDE(rc), rt, comm)
#define PROF_ALLTOALLV(sb, sc, st, rc, rt, comm) prof_alltoallv(sb, sc, st, rc, PROF_WIDE(rc), rt, comm)
#define PROF_ALLTOALLW(sb, sc, st, rc, rt, comm) prof_alltoallw(sb, sc, st, rc, PROF_WIDE(rc), rt, comm)
#define PROF_REDUCE_SCATTER(rc, t, comm) prof_reduce_scatter(rc, PROF_WIDE(rc), t, comm)
uint64_t prof_scatterv(const void *counts, int wide, MPI_Datatype dt, int root, MPI_Comm comm);
uint64_t prof_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, const void *rcounts,
                         int wide, MPI_Datatype rtype, MPI_Comm comm);
uint64_t prof_alltoallv(const void *sbuf, const void *scounts, MPI_Datatype stype, const void *rcounts,
                        int wide, MPI_Datatype rtype, MPI_Comm comm);
uint64_t prof_alltoallw(const void *sbuf, const void *scounts, const MPI_Datatype *stypes,
                        const void *rcounts, int wide, const MPI_Datatype *rtypes, MPI_Comm comm);
uint64_t prof_reduce_scatter(const void *rcounts, int wide, MPI_Datatype dt, MPI_Comm comm);

/* the size of dt in bytes, -1 for MPI_DATATYPE_NULL or errors; the sizes
 * of predefined types (small handle values in the standard ABI) are kept
 * in a table, derived types asked of the library every time */
#define PROF_NPREDEF 1024
extern int64_t prof_predef_size[PROF_NPREDEF]; /* 0: not known yet */
int64_t prof_type_size_slow(MPI_Datatype dt);
static inline int64_t prof_type_size(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;
    return h < PROF_NPREDEF && prof_predef_size[h] > 0 ? prof_predef_size[h] : prof_type_size_slow(dt);
}
/* bytes of count elements of dt (0 for MPI_DATATYPE_NULL or errors) */
static inline uint64_t prof_bytes(MPI_Count count, MPI_Datatype dt)
{
    if (count <= 0) return 0;
    int64_t sz = prof_type_size(dt);
    return sz > 0 ? (uint64_t)count * (uint64_t)sz : 0;
}
/* MPI_COMM_WORLD rank of rank in comm (the remote group of an
 * intercommunicator); -1 for MPI_PROC_NULL, wildcards and errors */
int prof_peer(MPI_Comm comm, int rank);
/* one one-sided operation of n bytes to target of win in the matrix, by
 * the function whose counters are f, when win is not the one f has cached
 * (or its translation was freed): caches win's map in f (prof_core.c) */
void prof_rma_slow(struct prof_fn *f, MPI_Win win, int target, uint64_t n);

/* whether f's cached window is win, still valid, with a rank target */
static inline __attribute__((always_inline)) int prof_win_hit(const struct prof_fn *f, MPI_Win win, int target)
{
    return win == f->win && f->wgen == prof_g.gen && (unsigned)target < (unsigned)f->wn;
}

/* n bytes to rank target of f's cached window in the matrix */
static inline __attribute__((always_inline)) void prof_win_msg(const struct prof_fn *f, int target, uint64_t n)
{
    int p = f->wr ? f->wr[target] : target;
    if (p >= 0) {
        uint64_t *e = f->rma + 2 * (size_t)p;
        e[0]++;
        e[1] += n;
    }
}

/* a one-sided operation of count x dt to target of win by the function
 * whose counters are f (in this thread): the matrix; its bytes. Caches dt
 * and its size in f, under the generation of f's window */
static inline __attribute__((always_inline)) uint64_t prof_rma(struct prof_fn *f, MPI_Count count,
                                                               MPI_Datatype dt, int target, MPI_Win win)
{
    int64_t sz = prof_type_size(dt);
    uint64_t n = count > 0 && sz > 0 ? (uint64_t)count * (uint64_t)sz : 0;
    if (prof_win_hit(f, win, target)) prof_win_msg(f, target, n);
    else prof_rma_slow(f, win, target, n);
    if (sz >= 0 && sz <= (int64_t)UINT32_MAX && f->wgen == prof_g.gen) f->dt = dt, f->dtsize = (uint32_t)sz;
    return n;
}

/* The generated one-sided wrappers' fast path, after prof_quick: when dt
 * and win are the ones f has cached (and no datatype, communicator or
 * window was freed since), counts the call as prof_rma and
 * prof_count would and returns 1; else changes nothing and returns 0. It
 * reads f's cache line, the window's map and the matrix entry and calls
 * nothing, so that the wrapper keeps none of its arguments across a call */
static inline __attribute__((always_inline)) int prof_rma_quick(struct prof_fn *f, MPI_Count count,
                                                                MPI_Datatype dt, int target, MPI_Win win)
{
    if (dt != f->dt || count <= 0 || !prof_win_hit(f, win, target)) return 0;
    uint64_t n = (uint64_t)count * f->dtsize;
    prof_win_msg(f, target, n);
    prof_count(f, n);
    return 1;
}

/* the accounting of persistent point-to-point requests (prof_p2p.c) */
void prof_persist_add(MPI_Request req, int send, int peer, uint64_t n);
void prof_persist_start(MPI_Request req);
void prof_persist_drop(MPI_Request req);

/* MPI_Init* and MPI_Finalize hooks (prof_core.c, prof_report.c) */
void prof_after_init(void);
void prof_report(void);
/* the merged counters of all threads, the timer in ns per tick */
void prof_merge(struct prof_thr *into);
double prof_ns_per_tick(void);
extern uint64_t prof_t_init, prof_t_fin; /* ticks at MPI_Init return, MPI_Finalize entry */

#endif
