/* coll_inter.c: the collectives on an intercommunicator (MPI 4.1 section
 * 6.2.2), against a serial reference, in the form chosen by the first
 * argument (b blocking, i nonblocking, p persistent started three times).
 * MPI_COMM_WORLD is cut into a low group (ranks 0 .. p/2-1) and a high one;
 * every rooted collective is run with the root in either group (MPI_ROOT at
 * the root, MPI_PROC_NULL at its group's other members, the root's rank in
 * the other group). Covered: Barrier, Bcast, Gather(v), Scatter(v),
 * Allgather(v), Alltoall(v,w), Reduce, Allreduce, Reduce_scatter(_block);
 * counts 0 to a few thousand ints. */
#include "common.h"

#include <stdbool.h>

static char g_mode = 'b';
#define ITERS 3
#define GAP (-7)

static MPI_Comm ic;
static int G, L, LP, RP; /* my group (0 low, 1 high), local rank, local size, remote size */

#define COLL(NAME, INAME, ...)                                                       \
    do {                                                                             \
        if (g_mode == 'b') {                                                         \
            MPI_CHK(MPI_##NAME(__VA_ARGS__));                                        \
        } else if (g_mode == 'i') {                                                  \
            MPI_Request rq_ = MPI_REQUEST_NULL;                                      \
            MPI_CHK(MPI_##INAME(__VA_ARGS__, &rq_));                                 \
            MPI_CHK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                              \
        } else {                                                                     \
            if (it == 0) MPI_CHK(MPI_##NAME##_init(__VA_ARGS__, MPI_INFO_NULL, &preq)); \
            MPI_CHK(MPI_Start(&preq));                                               \
            MPI_CHK(MPI_Wait(&preq, MPI_STATUS_IGNORE));                             \
        }                                                                            \
    } while (0)
#define ITER_BEGIN                                                                   \
    MPI_Request preq = MPI_REQUEST_NULL;                                             \
    for (int it = 0; it < ITERS; it++) {
#define ITER_END                                                                     \
    }                                                                                \
    if (preq != MPI_REQUEST_NULL) MPI_CHK(MPI_Request_free(&preq));

/* Element i contributed by local rank r of group g. */
static int val(int g, int r, long i, int it)
{
    return (int)(((g * 100 + r) * 7919L + i * 31 + it * 1009) % 100003);
}

/* Root argument for "root is local rank rr of group rg". */
static int root_arg(int rg, int rr) { return G == rg ? (L == rr ? MPI_ROOT : MPI_PROC_NULL) : rr; }

static int vcnt(int n, int j) { return n == 0 ? 0 : (j % 3 == 1 ? 0 : n + j * 2); }

static void t_bcast(int n, int rg, int rr)
{
    /* MPICH 5.0.2's nonblocking and persistent intercommunicator bcast
     * loses the data when the root is not rank 0 of its group. */
    if (g_mode != 'b' && rr != 0 && T_MPICH_QUIRK("intercomm Ibcast from a root other than 0"))
        return;
    int *b = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i <= n; i++) b[i] = i == n ? GAP : G == rg && L == rr ? val(rg, rr, i, it) : -1;
    COLL(Bcast, Ibcast, b, n, MPI_INT, root_arg(rg, rr), ic);
    for (int i = 0; i <= n; i++) {
        int want = i == n ? GAP : G != rg || L == rr ? val(rg, rr, i, it) : -1;
        if (b[i] != want) {
            CHECK(0, "bcast n=%d root %d/%d it=%d: [%d]=%d want %d", n, rg, rr, it, i, b[i], want);
            break;
        }
    }
    ITER_END
    free(b);
}

/* Gather (v = 0), Gatherv (v = 1): the root gathers the remote group. */
static void t_gather(int n, int rg, int rr, int v)
{
    int cnt[64], dsp[64], total = 0;
    for (int j = 0; j < RP; j++) {
        cnt[j] = v ? vcnt(n, j) : n;
        dsp[j] = total;
        total += cnt[j] + v;
    }
    int mine = v ? vcnt(n, L) : n;
    int *sb = t_malloc(((size_t)mine + 1) * sizeof(int)), *rb = t_malloc(((size_t)total + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < mine; i++) sb[i] = val(G, L, i, it);
    for (int i = 0; i <= total; i++) rb[i] = GAP;
    int root = root_arg(rg, rr);
    if (v) COLL(Gatherv, Igatherv, sb, mine, MPI_INT, rb, cnt, dsp, MPI_INT, root, ic);
    else COLL(Gather, Igather, sb, n, MPI_INT, rb, n, MPI_INT, root, ic);
    if (root == MPI_ROOT)
        for (int j = 0; j < RP; j++)
            for (int i = 0; i <= cnt[j]; i++) {
                int want = i < cnt[j] ? val(1 - G, j, i, it) : GAP;
                if (i == cnt[j] && !v) continue;
                if (rb[dsp[j] + i] != want) {
                    CHECK(0, "gather%s n=%d from %d it=%d: [%d]=%d", v ? "v" : "", n, j, it, i,
                          rb[dsp[j] + i]);
                    j = RP;
                    break;
                }
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_scatter(int n, int rg, int rr, int v)
{
    int cnt[64], dsp[64], total = 0;
    for (int j = 0; j < RP; j++) {
        cnt[j] = v ? vcnt(n, j) : n;
        dsp[j] = total;
        total += cnt[j] + v;
    }
    int mine = v ? vcnt(n, L) : n;
    int *sb = t_malloc(((size_t)total + 1) * sizeof(int)), *rb = t_malloc(((size_t)mine + 1) * sizeof(int));
    ITER_BEGIN
    for (int j = 0; j < RP; j++)
        for (int i = 0; i < cnt[j]; i++) sb[dsp[j] + i] = val(G, j, i, it);
    for (int i = 0; i <= mine; i++) rb[i] = GAP;
    int root = root_arg(rg, rr);
    if (v) COLL(Scatterv, Iscatterv, sb, cnt, dsp, MPI_INT, rb, mine, MPI_INT, root, ic);
    else COLL(Scatter, Iscatter, sb, n, MPI_INT, rb, n, MPI_INT, root, ic);
    if (G != rg)
        for (int i = 0; i <= mine; i++)
            if (rb[i] != (i < mine ? val(rg, L, i, it) : GAP)) {
                CHECK(0, "scatter%s n=%d it=%d: [%d]=%d", v ? "v" : "", n, it, i, rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_allgather(int n, int v)
{
    int cnt[64], dsp[64], total = 0;
    for (int j = 0; j < RP; j++) {
        cnt[j] = v ? vcnt(n, j) : n;
        dsp[j] = total;
        total += cnt[j] + v;
    }
    int mine = v ? vcnt(n, L) : n;
    int *sb = t_malloc(((size_t)mine + 1) * sizeof(int)), *rb = t_malloc(((size_t)total + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < mine; i++) sb[i] = val(G, L, i, it);
    for (int i = 0; i <= total; i++) rb[i] = GAP;
    if (v) COLL(Allgatherv, Iallgatherv, sb, mine, MPI_INT, rb, cnt, dsp, MPI_INT, ic);
    else COLL(Allgather, Iallgather, sb, n, MPI_INT, rb, n, MPI_INT, ic);
    for (int j = 0; j < RP; j++)
        for (int i = 0; i < cnt[j] + v; i++)
            if (rb[dsp[j] + i] != (i < cnt[j] ? val(1 - G, j, i, it) : GAP)) {
                CHECK(0, "allgather%s n=%d from %d it=%d: [%d]=%d", v ? "v" : "", n, j, it, i,
                      rb[dsp[j] + i]);
                j = RP;
                break;
            }
    CHECK(rb[total] == GAP, "allgather wrote past the end");
    ITER_END
    free(sb);
    free(rb);
}

/* Elements (g, r) sends to remote rank j: count and values. */
static int acnt(int n, int g, int r, int j) { return n == 0 ? 0 : (r + 2 * j + g) % 4 == 3 ? 0 : n + (r + j) % 5; }
static int aval(int g, int r, int j, long i, int it) { return val(g, r * 64 + j, i, it); }

/* kind 0 alltoall, 1 alltoallv, 2 alltoallw */
static void t_alltoall(int n, int kind)
{
    int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64], st = 0, rt = 0;
    MPI_Datatype sty[64], rty[64];
    for (int j = 0; j < RP; j++) {
        sc[j] = kind ? acnt(n, G, L, j) : n;
        rc[j] = kind ? acnt(n, 1 - G, j, L) : n;
        sd[j] = st;
        rd[j] = rt;
        st += sc[j] + (kind > 0);
        rt += rc[j] + (kind > 0);
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
        sty[j] = rty[j] = MPI_INT;
    }
    int *sb = t_malloc(((size_t)st + 1) * sizeof(int)), *rb = t_malloc(((size_t)rt + 1) * sizeof(int));
    ITER_BEGIN
    for (int j = 0; j < RP; j++)
        for (int i = 0; i < sc[j]; i++) sb[sd[j] + i] = aval(G, L, j, i, it);
    for (int i = 0; i <= rt; i++) rb[i] = GAP;
    if (kind == 0) COLL(Alltoall, Ialltoall, sb, n, MPI_INT, rb, n, MPI_INT, ic);
    else if (kind == 1) COLL(Alltoallv, Ialltoallv, sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic);
    else COLL(Alltoallw, Ialltoallw, sb, sc, sdb, sty, rb, rc, rdb, rty, ic);
    for (int j = 0; j < RP; j++)
        for (int i = 0; i < rc[j] + (kind > 0); i++)
            if (rb[rd[j] + i] != (i < rc[j] ? aval(1 - G, j, L, i, it) : GAP)) {
                CHECK(0, "alltoall kind %d n=%d from %d it=%d: [%d]=%d", kind, n, j, it, i,
                      rb[rd[j] + i]);
                j = RP;
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static long remote_sum(long i, int it)
{
    long s = 0;
    for (int r = 0; r < RP; r++) s += val(1 - G, r, i, it);
    return s;
}

static void t_reduce(int n, int rg, int rr, int all)
{
    int *sb = t_malloc(((size_t)n + 1) * sizeof(int)), *rb = t_malloc(((size_t)n + 1) * sizeof(int));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = val(G, L, i, it);
    for (int i = 0; i <= n; i++) rb[i] = GAP;
    int root = root_arg(rg, rr);
    if (all) COLL(Allreduce, Iallreduce, sb, rb, n, MPI_INT, MPI_SUM, ic);
    else COLL(Reduce, Ireduce, sb, rb, n, MPI_INT, MPI_SUM, root, ic);
    if (all || root == MPI_ROOT)
        for (int i = 0; i <= n; i++)
            if (rb[i] != (i < n ? remote_sum(i, it) : GAP)) {
                CHECK(0, "%sreduce n=%d it=%d: [%d]=%d", all ? "all" : "", n, it, i, rb[i]);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

/* Both groups reduce vectors of the same length T = LP*RP*m; block:
 * my group's recvcount is T / LP; v: counts spread unevenly. */
static void t_reduce_scatter(int m, int block)
{
    long T = (long)LP * RP * m;
    int cnt[64];
    long left = T, off = 0;
    for (int j = 0; j < LP; j++) {
        cnt[j] = block ? (int)(T / LP) : j == LP - 1 ? (int)left : (int)((left * (j % 2 + 1)) / 4);
        left -= cnt[j];
    }
    for (int j = 0; j < L; j++) off += cnt[j];
    int *sb = t_malloc(((size_t)T + 1) * sizeof(int)), *rb = t_malloc(((size_t)cnt[L] + 1) * sizeof(int));
    ITER_BEGIN
    for (long i = 0; i < T; i++) sb[i] = val(G, L, i, it);
    for (int i = 0; i <= cnt[L]; i++) rb[i] = GAP;
    if (block)
        COLL(Reduce_scatter_block, Ireduce_scatter_block, sb, rb, cnt[0], MPI_INT, MPI_SUM, ic);
    else
        COLL(Reduce_scatter, Ireduce_scatter, sb, rb, cnt, MPI_INT, MPI_SUM, ic);
    for (int i = 0; i <= cnt[L]; i++)
        if (rb[i] != (i < cnt[L] ? remote_sum(off + i, it) : GAP)) {
            CHECK(0, "reduce_scatter%s m=%d it=%d: [%d]=%d", block ? "_block" : "", m, it, i,
                  rb[i]);
            break;
        }
    ITER_END
    free(sb);
    free(rb);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The last rank of the high group comes late; nobody in either group may
 * leave before it entered. */
static void t_barrier(void)
{
    ITER_BEGIN
    double entered = 0;
    bool late = G == 1 && L == LP - 1;
    if (late) {
        t_sleep_ms(20);
        entered = now();
    }
    COLL(Barrier, Ibarrier, ic);
    double left = now();
    MPI_CHK(MPI_Allreduce(MPI_IN_PLACE, &entered, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(left >= entered, "barrier left %.6f s before the late rank entered", entered - left);
    ITER_END
}

int main(int argc, char **argv)
{
    if (argc > 1) g_mode = argv[1][0];
    t_init(&argc, &argv);
    if (t_size < 2 || t_size > 64) return t_finish();
    int h = t_size / 2;
    G = t_rank >= h;
    MPI_Comm local;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, G, t_rank, &local));
    MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, G ? 0 : h, 17, &ic));
    MPI_Comm_rank(ic, &L);
    MPI_Comm_size(ic, &LP);
    MPI_Comm_remote_size(ic, &RP);

    t_barrier();
    static const int ns[] = { 0, 1, 5, 1000, 4099 };
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        for (int rg = 0; rg < 2; rg++) {
            int gsize = rg == G ? LP : RP;
            int roots[2] = { 0, gsize - 1 };
            for (int ri = 0; ri < 2; ri++) {
                if (ri == 1 && roots[1] == roots[0]) continue;
                t_bcast(n, rg, roots[ri]);
                t_gather(n, rg, roots[ri], 0);
                t_gather(n, rg, roots[ri], 1);
                t_scatter(n, rg, roots[ri], 0);
                t_scatter(n, rg, roots[ri], 1);
                t_reduce(n, rg, roots[ri], 0);
            }
        }
        t_allgather(n, 0);
        t_allgather(n, 1);
        t_alltoall(n, 0);
        t_alltoall(n, 1);
        t_alltoall(n, 2);
        t_reduce(n, 0, 0, 1);
        t_reduce_scatter(n / 16, 1);
        t_reduce_scatter(n / 16, 0);
    }
    MPI_CHK(MPI_Comm_free(&ic));
    MPI_CHK(MPI_Comm_free(&local));
    return t_finish();
}
