/* coll_forms.c: every collective of MPI 4.1 chapter 6 against a serial
 * reference, in the form chosen by the first argument:
 *   b  blocking (MPI_Bcast ...)
 *   i  nonblocking (MPI_Ibcast ..., completed by MPI_Test polling while
 *      the process computes)
 *   p  persistent (MPI_Bcast_init ..., started three times with new data
 *      each time, then freed)
 * Further arguments alt1..alt3 or NAME=VALUE choose dmpi's algorithms (see
 * coll_algos.h; other MPIs ignore them).
 * Covered: Barrier, Bcast, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan,
 * on MPI_COMM_WORLD and on the halves of a split, with several roots,
 * counts from 0 to ~64K ints per block and ~1 MiB per process (on
 * MPI_COMM_WORLD), MPI_IN_PLACE where the standard
 * allows it, and (v forms) zero counts and gaps between blocks that must
 * stay untouched. */
#include "common.h"
#include "coll_algos.h"

#include <stdbool.h>

static char g_mode = 'b';
#define ITERS 3
#define GAP (-7) /* value of receive-buffer elements nobody writes */

static int counts_n[] = { 0, 1, 7, 1000, 16411 };
#define NCOUNTS (int)(sizeof counts_n / sizeof counts_n[0])

/* Polls a request while doing some arithmetic, as an application would,
 * then waits (spinning on MPI_Test alone would starve the other ranks
 * when they outnumber the cores). */
static volatile double sink;
static void wait_overlapped(MPI_Request *r)
{
    int flag = 0;
    double x = 1.0;
    for (int k = 0; k < 20 && !flag; k++) {
        for (int i = 0; i < 500; i++) x = x * 1.0000001 + 1e-9;
        MPI_CHK(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
    }
    if (!flag) MPI_CHK(MPI_Wait(r, MPI_STATUS_IGNORE));
    sink = x;
}

/* Runs one call in the chosen form; `it` is the iteration (persistent:
 * the request is made at it == 0 and started every iteration). */
#define COLL(NAME, INAME, ...)                                                       \
    do {                                                                             \
        if (g_mode == 'b') {                                                         \
            MPI_CHK(MPI_##NAME(__VA_ARGS__));                                        \
        } else if (g_mode == 'i') {                                                  \
            MPI_Request rq_ = MPI_REQUEST_NULL;                                      \
            MPI_CHK(MPI_##INAME(__VA_ARGS__, &rq_));                                 \
            wait_overlapped(&rq_);                                                   \
        } else {                                                                     \
            if (it == 0) MPI_CHK(MPI_##NAME##_init(__VA_ARGS__, MPI_INFO_NULL, &preq)); \
            MPI_CHK(MPI_Start(&preq));                                               \
            wait_overlapped(&preq);                                                  \
        }                                                                            \
    } while (0)
#define ITER_BEGIN                                                                   \
    MPI_Request preq = MPI_REQUEST_NULL;                                             \
    for (int it = 0; it < ITERS; it++) {
#define ITER_END                                                                     \
    }                                                                                \
    if (preq != MPI_REQUEST_NULL) MPI_CHK(MPI_Request_free(&preq));

/* The value rank r contributes at index i in iteration it (small enough
 * that sums over 8 ranks fit an int). */
static int val(int r, long i, int it) { return (int)((r * 7919L + i * 31 + it * 1009) % 100003); }

static MPI_Comm g_comm;
static int P, R; /* size and rank in g_comm */
static const char *g_cname;

#define FAIL_IF(cond, ...)                                                           \
    do {                                                                             \
        if (cond) {                                                                  \
            CHECK(0, __VA_ARGS__);                                                   \
            return;                                                                  \
        }                                                                            \
    } while (0)

/* ---------------------------------------------------------------- rooted */
static void t_bcast(int n, int root)
{
    int *buf = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) buf[i] = R == root ? val(root, i, it) : -1;
    buf[n] = GAP;
    COLL(Bcast, Ibcast, buf, n, MPI_INT, root, g_comm);
    for (int i = 0; i <= n; i++)
        if (buf[i] != (i < n ? val(root, i, it) : GAP)) {
            CHECK(0, "%s bcast n=%d root=%d it=%d: [%d]=%d", g_cname, n, root, it, i, buf[i]);
            break;
        }
    ITER_END
    free(buf);
}

static void t_gather(int n, int root, int in_place)
{
    int *sb = t_malloc(((size_t)n + 1) * sizeof(int));
    int *rb = t_malloc(((size_t)n * P + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = val(R, i, it);
    for (long i = 0; i < (long)n * P; i++) rb[i] = R == root && in_place && i / n == R ? val(R, i % n, it) : -1;
    const void *s = in_place && R == root ? MPI_IN_PLACE : sb;
    COLL(Gather, Igather, s, n, MPI_INT, rb, n, MPI_INT, root, g_comm);
    if (R == root)
        for (long i = 0; i < (long)n * P; i++)
            if (rb[i] != val((int)(i / n), i % n, it)) {
                CHECK(0, "%s gather n=%d root=%d ip=%d it=%d: [%ld]=%d", g_cname, n, root,
                      in_place, it, i, rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_scatter(int n, int root, int in_place)
{
    int *sb = t_malloc(((size_t)n * P + 1) * sizeof(int));
    int *rb = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (long i = 0; i < (long)n * P; i++) sb[i] = val((int)(i / n), i % n, it);
    for (int i = 0; i <= n; i++) rb[i] = GAP;
    void *r = in_place && R == root ? MPI_IN_PLACE : rb;
    COLL(Scatter, Iscatter, sb, n, MPI_INT, r, n, MPI_INT, root, g_comm);
    if (r != MPI_IN_PLACE)
        for (int i = 0; i <= n; i++)
            if (rb[i] != (i < n ? val(R, i, it) : GAP)) {
                CHECK(0, "%s scatter n=%d root=%d it=%d: [%d]=%d", g_cname, n, root, it, i,
                      rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

/* v forms: rank j's block has cnt(j) elements; blocks are placed with a
 * one-element gap after each. */
static int vcnt(int n, int j) { return n == 0 ? 0 : (j % 3 == 1 ? 0 : n + j * 3); }

static void layout(int n, int *cnt, int *dsp, long *total)
{
    long at = 0;
    for (int j = 0; j < P; j++) {
        cnt[j] = vcnt(n, j);
        dsp[j] = (int)at;
        at += cnt[j] + 1;
    }
    *total = at + 1;
}

/* Checks a buffer laid out by layout() holding block j = val(j, ..). */
static int check_v(const int *rb, int n, const int *cnt, const int *dsp, long total, int it,
                   int skip)
{
    for (int j = 0; j < P; j++) {
        if (j == skip) continue;
        for (int i = 0; i < cnt[j]; i++)
            if (rb[dsp[j] + i] != val(j, i, it)) return dsp[j] + i;
        if (rb[dsp[j] + cnt[j]] != GAP) return dsp[j] + cnt[j];
    }
    (void)total;
    (void)n;
    return -1;
}

static void t_gatherv(int n, int root, int in_place)
{
    int cnt[64], dsp[64];
    long total;
    layout(n, cnt, dsp, &total);
    int *sb = t_malloc(((size_t)cnt[R] + 1) * sizeof(int));
    int *rb = t_malloc((size_t)total * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < cnt[R]; i++) sb[i] = val(R, i, it);
    for (long i = 0; i < total; i++) rb[i] = GAP;
    if (in_place && R == root)
        for (int i = 0; i < cnt[R]; i++) rb[dsp[R] + i] = val(R, i, it);
    const void *s = in_place && R == root ? MPI_IN_PLACE : sb;
    COLL(Gatherv, Igatherv, s, cnt[R], MPI_INT, rb, cnt, dsp, MPI_INT, root, g_comm);
    int bad = R == root ? check_v(rb, n, cnt, dsp, total, it, -1) : -1;
    CHECK(bad < 0, "%s gatherv n=%d root=%d ip=%d it=%d: [%d]=%d", g_cname, n, root, in_place,
          it, bad, bad >= 0 ? rb[bad] : 0);
    ITER_END
    free(sb);
    free(rb);
}

static void t_scatterv(int n, int root, int in_place)
{
    int cnt[64], dsp[64];
    long total;
    layout(n, cnt, dsp, &total);
    int *sb = t_malloc((size_t)total * sizeof(int));
    int *rb = t_malloc(((size_t)cnt[R] + 1) * sizeof(int));
    ITER_BEGIN
    for (long i = 0; i < total; i++) sb[i] = GAP;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < cnt[j]; i++) sb[dsp[j] + i] = val(j, i, it);
    for (int i = 0; i <= cnt[R]; i++) rb[i] = GAP;
    void *r = in_place && R == root ? MPI_IN_PLACE : rb;
    COLL(Scatterv, Iscatterv, sb, cnt, dsp, MPI_INT, r, cnt[R], MPI_INT, root, g_comm);
    if (r != MPI_IN_PLACE)
        for (int i = 0; i <= cnt[R]; i++)
            if (rb[i] != (i < cnt[R] ? val(R, i, it) : GAP)) {
                CHECK(0, "%s scatterv n=%d root=%d it=%d: [%d]=%d", g_cname, n, root, it, i,
                      rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

/* ------------------------------------------------------------- allgather */
static void t_allgather(int n, int in_place)
{
    int *sb = t_malloc(((size_t)n + 1) * sizeof(int));
    int *rb = t_malloc(((size_t)n * P + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = val(R, i, it);
    for (long i = 0; i < (long)n * P; i++) rb[i] = in_place && i / n == R ? val(R, i % n, it) : -1;
    rb[(long)n * P] = GAP;
    COLL(Allgather, Iallgather, in_place ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n, MPI_INT,
         g_comm);
    for (long i = 0; i <= (long)n * P; i++)
        if (rb[i] != (i < (long)n * P ? val((int)(i / n), i % n, it) : GAP)) {
            CHECK(0, "%s allgather n=%d ip=%d it=%d: [%ld]=%d", g_cname, n, in_place, it, i,
                  rb[i]);
            break;
        }
    ITER_END
    free(sb);
    free(rb);
}

static void t_allgatherv(int n, int in_place)
{
    int cnt[64], dsp[64];
    long total;
    layout(n, cnt, dsp, &total);
    int *sb = t_malloc(((size_t)cnt[R] + 1) * sizeof(int));
    int *rb = t_malloc((size_t)total * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < cnt[R]; i++) sb[i] = val(R, i, it);
    for (long i = 0; i < total; i++) rb[i] = GAP;
    if (in_place)
        for (int i = 0; i < cnt[R]; i++) rb[dsp[R] + i] = val(R, i, it);
    COLL(Allgatherv, Iallgatherv, in_place ? MPI_IN_PLACE : sb, cnt[R], MPI_INT, rb, cnt, dsp,
         MPI_INT, g_comm);
    int bad = check_v(rb, n, cnt, dsp, total, it, -1);
    CHECK(bad < 0, "%s allgatherv n=%d ip=%d it=%d: [%d]=%d", g_cname, n, in_place, it, bad,
          bad >= 0 ? rb[bad] : 0);
    ITER_END
    free(sb);
    free(rb);
}

/* -------------------------------------------------------------- alltoall */
/* Element i of the block rank `from` sends to rank `to`. */
static int aval(int from, int to, long i, int it) { return val(from * 64 + to, i, it); }

static void t_alltoall(int n, int in_place)
{
    n /= P > 1 ? P : 1; /* blocks per pair */
    size_t tot = (size_t)n * P;
    int *sb = t_malloc((tot + 1) * sizeof(int)), *rb = t_malloc((tot + 1) * sizeof(int));
    ITER_BEGIN
    for (size_t i = 0; i < tot; i++) sb[i] = aval(R, (int)(i / n), (long)(i % n), it);
    for (size_t i = 0; i < tot; i++) rb[i] = in_place ? sb[i] : -1;
    rb[tot] = GAP;
    COLL(Alltoall, Ialltoall, in_place ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n, MPI_INT, g_comm);
    for (size_t i = 0; i <= tot; i++)
        if (rb[i] != (i < tot ? aval((int)(i / n), R, (long)(i % n), it) : GAP)) {
            CHECK(0, "%s alltoall n=%d ip=%d it=%d: [%zu]=%d", g_cname, n, in_place, it, i,
                  rb[i]);
            break;
        }
    ITER_END
    free(sb);
    free(rb);
}

/* v/w: from sends acnt(from, to) elements to `to`.  Skewed: the count
 * depends on the receiver only and rank 0 receives nothing, though it
 * sends to everyone else (a rank with nothing to receive must still send). */
static bool g_skew;
static int acnt(int n, int from, int to)
{
    if (g_skew) return to == 0 ? 0 : 1 + to;
    return n == 0 ? 0 : (from + 2 * to) % 5 == 3 ? 0 : n + (from * 3 + to) % 7;
}

static void a_layout(int n, int me, bool send, int *cnt, int *dsp, long *total)
{
    long at = 0;
    for (int j = 0; j < P; j++) {
        cnt[j] = send ? acnt(n, me, j) : acnt(n, j, me);
        dsp[j] = (int)at;
        at += cnt[j] + 1;
    }
    *total = at + 1;
}

static void t_alltoallv(int n, int in_place, int w)
{
    n /= P > 1 ? P : 1;
    int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
    long stot, rtot;
    a_layout(n, R, true, sc, sd, &stot);
    a_layout(n, R, false, rc, rd, &rtot);
    if (in_place) /* one layout for both directions: counts must be symmetric */
        for (int j = 0; j < P; j++) rc[j] = sc[j] = acnt(n, R < j ? R : j, R < j ? j : R);
    if (in_place) {
        long at = 0;
        for (int j = 0; j < P; j++) sd[j] = rd[j] = (int)at, at += rc[j] + 1;
        stot = rtot = at + 1;
    }
    MPI_Datatype st[64], rt[64], pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int rcw[64];
    for (int j = 0; j < P; j++) {
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
        st[j] = MPI_INT;
        /* receive even counts as pairs: same type signature, another type */
        rt[j] = rc[j] % 2 == 0 && !in_place ? pair : MPI_INT;
        rcw[j] = rt[j] == pair ? rc[j] / 2 : rc[j];
    }
    int *sb = t_malloc((size_t)stot * sizeof(int)), *rb = t_malloc((size_t)rtot * sizeof(int));
    ITER_BEGIN
    for (long i = 0; i < stot; i++) sb[i] = GAP;
    for (long i = 0; i < rtot; i++) rb[i] = GAP;
    int *src = in_place ? rb : sb;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < sc[j]; i++) src[sd[j] + i] = aval(R, j, i, it);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (!w)
        COLL(Alltoallv, Ialltoallv, s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, g_comm);
    else
        COLL(Alltoallw, Ialltoallw, s, sc, sdb, st, rb, rcw, rdb, rt, g_comm);
    for (int j = 0; j < P; j++) {
        int bad = -1;
        for (int i = 0; i < rc[j] && bad < 0; i++)
            if (rb[rd[j] + i] != aval(j, R, i, it)) bad = rd[j] + i;
        if (bad < 0 && rb[rd[j] + rc[j]] != GAP) bad = rd[j] + rc[j];
        if (bad >= 0) {
            CHECK(0, "%s alltoall%c n=%d ip=%d it=%d: from %d [%d]=%d", g_cname, w ? 'w' : 'v',
                  n, in_place, it, j, bad, rb[bad]);
            break;
        }
    }
    ITER_END
    MPI_Type_free(&pair);
    free(sb);
    free(rb);
}

/* ------------------------------------------------------------ reductions */
static long sum_upto(int hi, long i, int it) /* sum of val(r, i, it), r < hi */
{
    long s = 0;
    for (int r = 0; r < hi; r++) s += val(r, i, it);
    return s;
}

static void t_reduce(int n, int root, int in_place, int all)
{
    int *sb = t_malloc(((size_t)n + 1) * sizeof(int)), *rb = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = val(R, i, it);
    for (int i = 0; i <= n; i++) rb[i] = i < n && in_place ? sb[i] : GAP;
    bool ip = in_place && (all || R == root);
    const void *s = ip ? MPI_IN_PLACE : sb;
    if (all) COLL(Allreduce, Iallreduce, s, rb, n, MPI_INT, MPI_SUM, g_comm);
    else COLL(Reduce, Ireduce, s, rb, n, MPI_INT, MPI_SUM, root, g_comm);
    if (all || R == root)
        for (int i = 0; i <= n; i++)
            if (rb[i] != (i < n ? sum_upto(P, i, it) : GAP)) {
                CHECK(0, "%s %sreduce n=%d root=%d ip=%d it=%d: [%d]=%d", g_cname,
                      all ? "all" : "", n, root, in_place, it, i, rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_scan(int n, int in_place, int ex)
{
    int *sb = t_malloc(((size_t)n + 1) * sizeof(int)), *rb = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = val(R, i, it);
    for (int i = 0; i <= n; i++) rb[i] = i < n && in_place ? sb[i] : GAP;
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (ex) COLL(Exscan, Iexscan, s, rb, n, MPI_INT, MPI_SUM, g_comm);
    else COLL(Scan, Iscan, s, rb, n, MPI_INT, MPI_SUM, g_comm);
    if (!(ex && R == 0)) /* rank 0's Exscan result is undefined */
        for (int i = 0; i <= n; i++)
            if (rb[i] != (i < n ? sum_upto(ex ? R : R + 1, i, it) : GAP)) {
                CHECK(0, "%s %sscan n=%d ip=%d it=%d: [%d]=%d", g_cname, ex ? "ex" : "", n,
                      in_place, it, i, rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_reduce_scatter(int n, int in_place, int block)
{
    n /= P > 1 ? P : 1;
    int cnt[64];
    long total = 0;
    for (int j = 0; j < P; j++) total += cnt[j] = block ? n : vcnt(n, j);
    long off = 0;
    for (int j = 0; j < R; j++) off += cnt[j];
    int *sb = t_malloc(((size_t)total + 1) * sizeof(int)), *rb = t_malloc(((size_t)total + 1) * sizeof(int));
    ITER_BEGIN
    for (long i = 0; i < total; i++) sb[i] = val(R, i, it);
    for (long i = 0; i <= total; i++) rb[i] = i < total && in_place ? sb[i] : GAP;
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (block)
        COLL(Reduce_scatter_block, Ireduce_scatter_block, s, rb, n, MPI_INT, MPI_SUM, g_comm);
    else
        COLL(Reduce_scatter, Ireduce_scatter, s, rb, cnt, MPI_INT, MPI_SUM, g_comm);
    for (int i = 0; i < cnt[R]; i++)
        if (rb[i] != sum_upto(P, off + i, it)) {
            CHECK(0, "%s reduce_scatter%s n=%d ip=%d it=%d: [%d]=%d", g_cname,
                  block ? "_block" : "", n, in_place, it, i, rb[i]);
            break;
        }
    if (!in_place) CHECK(rb[cnt[R]] == GAP, "reduce_scatter wrote past its block");
    ITER_END
    free(sb);
    free(rb);
}

/* Seconds on the node-wide monotonic clock (all ranks run on one node). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void t_barrier(void)
{
    /* Rank 0 comes late; nobody may leave before it has entered. */
    ITER_BEGIN
    double entered = 0;
    if (R == 0) {
        t_sleep_ms(20);
        entered = now();
    }
    COLL(Barrier, Ibarrier, g_comm);
    double left = now();
    MPI_CHK(MPI_Bcast(&entered, 1, MPI_DOUBLE, 0, g_comm));
    CHECK(left >= entered, "%s barrier left %.6f s before rank 0 entered", g_cname,
          entered - left);
    ITER_END
}

/* About 1 MiB per process: the large-message algorithms. */
static void run_big(void)
{
    int n = 262144, per = n / P; /* ints: 1 MiB vectors, 1 MiB spread over blocks */
    t_bcast(n, P - 1);
    for (int ip = 0; ip < 2; ip++) {
        t_reduce(n, 0, ip, 0);
        t_reduce(n, P / 2, ip, 1);
    }
    t_scan(n / 4, 0, 0);
    t_scan(n / 4, 1, 1);
    t_reduce_scatter(n, 0, 1);
    t_reduce_scatter(n, 1, 0);
    t_gather(per, 0, 0);
    t_scatter(per, P - 1, 1);
    t_gatherv(per, P / 2, 0);
    t_scatterv(per, 0, 0);
    t_allgather(per, 0);
    t_allgatherv(per, 1);
    t_alltoall(n, 0);
    t_alltoallv(n, 1, 0);
    t_alltoallv(n, 0, 1);
}

static void run_all(void)
{
    int roots[3] = { 0, P / 2, P - 1 };
    t_barrier();
    for (int k = 0; k < NCOUNTS; k++) {
        int n = counts_n[k];
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri];
            if (ri > 0 && roots[ri] == roots[ri - 1]) continue;
            t_bcast(n, root);
            for (int ip = 0; ip < 2; ip++) {
                t_gather(n, root, ip);
                t_scatter(n, root, ip);
                t_gatherv(n, root, ip);
                t_scatterv(n, root, ip);
                t_reduce(n, root, ip, 0);
            }
        }
        for (int ip = 0; ip < 2; ip++) {
            t_allgather(n, ip);
            t_allgatherv(n, ip);
            t_alltoall(n, ip);
            t_alltoallv(n, ip, 0);
            t_alltoallv(n, ip, 1);
            t_reduce(n, 0, ip, 1);
            t_scan(n, ip, 0);
            t_scan(n, ip, 1);
            t_reduce_scatter(n, ip, 0);
            t_reduce_scatter(n, ip, 1);
        }
    }
    g_skew = true;
    t_alltoallv(0, 0, 0);
    t_alltoallv(0, 0, 1);
    g_skew = false;
}

int main(int argc, char **argv)
{
    t_coll_args(argc, argv, &g_mode);
    t_init(&argc, &argv);
    if (t_size > 64) return t_finish();
    g_comm = MPI_COMM_WORLD;
    g_cname = "world";
    P = t_size;
    R = t_rank;
    run_all();
    run_big();
    if (t_size >= 3) {
        MPI_Comm half;
        MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_size - t_rank, &half));
        g_comm = half;
        g_cname = "split";
        MPI_Comm_size(half, &P);
        MPI_Comm_rank(half, &R);
        run_all();
        MPI_CHK(MPI_Comm_free(&half));
    }
    return t_finish();
}
