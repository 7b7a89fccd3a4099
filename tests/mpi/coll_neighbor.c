/* coll_neighbor.c: the neighbourhood collectives (MPI 4.1 section 8.6):
 * Neighbor_allgather(v) and Neighbor_alltoall(v,w), in the form chosen by
 * the first argument (b blocking, i nonblocking, p persistent started
 * three times), on
 *  - Cartesian grids: 1-D periodic and not, 2-D from MPI_Dims_create, and
 *    3-D with two periodic dimensions of size 1 (both neighbours are the
 *    process itself); at 1 or 2 processes a periodic ring has the same
 *    neighbour twice. Block s of the sender lands in block s^1 of the
 *    receiver; MPI_PROC_NULL neighbours leave their blocks alone.
 *  - distributed graphs (adjacent and general constructors) with repeated
 *    edges and self loops: the k-th edge to a process matches the k-th edge
 *    from it;
 *  - a graph topology (a ring, MPI_Graph_create).
 * Block k of rank r's send buffer holds val(r, k, i); counts differ per
 * block in the v and w forms (w: receive even counts as int pairs). */
#include "common.h"

#include <stdbool.h>

static char g_mode = 'b';
#define ITERS 3
#define GAP (-7)
#define MAXN 16 /* neighbours per process */

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

static int val(int r, int k, int i, int it) { return (r * 7919 + k * 613 + i * 31 + it * 1009) % 100003; }

/* The topology seen by everyone: in/out lists of every rank. */
typedef struct topo {
    const char *name;
    bool cart;
    int nin, nout, in[MAXN], out[MAXN];   /* mine */
    int *all_nout, *all_out;              /* [rank][MAXN] */
} topo;

static void learn(MPI_Comm c, topo *t)
{
    int kind;
    MPI_CHK(MPI_Topo_test(c, &kind));
    t->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        MPI_CHK(MPI_Cartdim_get(c, &nd));
        t->nin = t->nout = 2 * nd;
        for (int d = 0; d < nd; d++) {
            int src, dst;
            MPI_CHK(MPI_Cart_shift(c, d, 1, &src, &dst));
            t->in[2 * d] = t->out[2 * d] = src;
            t->in[2 * d + 1] = t->out[2 * d + 1] = dst;
        }
    } else if (kind == MPI_GRAPH) {
        int me, n;
        MPI_Comm_rank(c, &me);
        MPI_CHK(MPI_Graph_neighbors_count(c, me, &n));
        MPI_CHK(MPI_Graph_neighbors(c, me, MAXN, t->in));
        t->nin = t->nout = n;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int w;
        MPI_CHK(MPI_Dist_graph_neighbors_count(c, &t->nin, &t->nout, &w));
        MPI_CHK(MPI_Dist_graph_neighbors(c, MAXN, t->in, MPI_UNWEIGHTED, MAXN, t->out,
                                         MPI_UNWEIGHTED));
    }
    int p;
    MPI_Comm_size(c, &p);
    t->all_nout = t_malloc((size_t)p * sizeof(int));
    t->all_out = t_malloc((size_t)p * MAXN * sizeof(int));
    MPI_CHK(MPI_Allgather(&t->nout, 1, MPI_INT, t->all_nout, 1, MPI_INT, c));
    MPI_CHK(MPI_Allgather(t->out, MAXN, MPI_INT, t->all_out, MAXN, MPI_INT, c));
}

/* The sender's block that lands in my receive block i, or -1 (PROC_NULL). */
static int source_block(const topo *t, int me, int i)
{
    int s = t->in[i];
    if (s == MPI_PROC_NULL) return -1;
    if (t->cart) return i ^ 1;
    int k = 0; /* earlier edges from s in my list */
    for (int j = 0; j < i; j++) k += t->in[j] == s;
    for (int j = 0; j < t->all_nout[s]; j++)
        if (t->all_out[s * MAXN + j] == me && k-- == 0) return j;
    return -2; /* inconsistent topology */
}

/* kind: 0 allgather, 1 allgatherv, 2 alltoall, 3 alltoallv, 4 alltoallw.
 * Non-v forms: blocks of n elements back to back; v forms: a one-element
 * gap after each block; one more element after the whole buffer. */
static void run(MPI_Comm c, const topo *t, int kind, int n)
{
    static const char *names[] = { "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw" };
    int me;
    MPI_Comm_rank(c, &me);
    bool gath = kind < 2, v = kind == 1 || kind >= 3, varied = kind >= 3;
    int gap = v ? 1 : 0;
    int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN], rcw[MAXN];
    MPI_Aint sdb[MAXN], rdb[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN], pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int so = 0, ro = 0, nsb = gath ? 1 : t->nout;
    for (int k = 0; k < nsb; k++) { /* send block k: n + k % 3 elements (v, w) */
        sc[k] = varied ? n + k % 3 : n;
        sd[k] = so;
        sdb[k] = (MPI_Aint)so * (MPI_Aint)sizeof(int);
        st[k] = MPI_INT;
        so += sc[k] + gap;
    }
    for (int i = 0; i < t->nin; i++) {
        int sb = source_block(t, me, i);
        rc[i] = varied && sb >= 0 ? n + sb % 3 : n;
        rd[i] = ro;
        rdb[i] = (MPI_Aint)ro * (MPI_Aint)sizeof(int);
        rt[i] = kind == 4 && rc[i] % 2 == 0 ? pair : MPI_INT;
        rcw[i] = rt[i] == pair ? rc[i] / 2 : rc[i];
        ro += rc[i] + gap;
    }
    int *sbuf = t_malloc(((size_t)so + 1) * sizeof(int)), *rbuf = t_malloc(((size_t)ro + 1) * sizeof(int));
    MPI_Request preq = MPI_REQUEST_NULL;
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < so; i++) sbuf[i] = GAP;
        for (int k = 0; k < nsb; k++)
            for (int i = 0; i < sc[k]; i++) sbuf[sd[k] + i] = val(me, k, i, it);
        for (int i = 0; i <= ro; i++) rbuf[i] = GAP;
        switch (kind) {
        case 0: COLL(Neighbor_allgather, Ineighbor_allgather, sbuf, n, MPI_INT, rbuf, n, MPI_INT, c); break;
        case 1: COLL(Neighbor_allgatherv, Ineighbor_allgatherv, sbuf, n, MPI_INT, rbuf, rc, rd, MPI_INT, c); break;
        case 2: COLL(Neighbor_alltoall, Ineighbor_alltoall, sbuf, n, MPI_INT, rbuf, n, MPI_INT, c); break;
        case 3: COLL(Neighbor_alltoallv, Ineighbor_alltoallv, sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, c); break;
        default: COLL(Neighbor_alltoallw, Ineighbor_alltoallw, sbuf, sc, sdb, st, rbuf, rcw, rdb, rt, c); break;
        }
        for (int i = 0; i < t->nin; i++) {
            int sb = source_block(t, me, i);
            if (sb == -2) {
                CHECK(0, "%s: inconsistent topology at in-edge %d", t->name, i);
                break;
            }
            int bad = -1;
            for (int e = 0; e < rc[i] + gap && bad < 0; e++) {
                int want = sb < 0 || e >= rc[i] ? GAP : val(t->in[i], gath ? 0 : sb, e, it);
                if (rbuf[rd[i] + e] != want) bad = e;
            }
            if (bad >= 0) {
                CHECK(0, "%s neighbor_%s n=%d it=%d: block %d (from %d, its block %d) [%d]=%d",
                      t->name, names[kind], n, it, i, t->in[i], sb, bad, rbuf[rd[i] + bad]);
                break;
            }
        }
        CHECK(rbuf[ro] == GAP, "%s neighbor_%s wrote past the buffer", t->name, names[kind]);
    }
    if (preq != MPI_REQUEST_NULL) MPI_CHK(MPI_Request_free(&preq));
    MPI_Type_free(&pair);
    free(sbuf);
    free(rbuf);
}

static void run_topo(MPI_Comm c, const char *name)
{
    if (c == MPI_COMM_NULL) return;
    topo t = { .name = name };
    learn(c, &t);
    static const int ns[] = { 0, 1, 100, 5000 };
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int kind = 0; kind < 5; kind++) run(c, &t, kind, ns[k]);
    free(t.all_nout);
    free(t.all_out);
}

static void cart(int nd, const int *dims_in, const int *periods, const char *name)
{
    int dims[3];
    memcpy(dims, dims_in, (size_t)nd * sizeof(int));
    MPI_CHK(MPI_Dims_create(t_size, nd, dims));
    MPI_Comm c;
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &c));
    run_topo(c, name);
    if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    if (argc > 1) g_mode = argv[1][0];
    t_init(&argc, &argv);
    int p = t_size, r = t_rank;

    cart(1, (int[]){ 0 }, (int[]){ 1 }, "cart 1-D periodic");
    cart(1, (int[]){ 0 }, (int[]){ 0 }, "cart 1-D");
    cart(2, (int[]){ 0, 0 }, (int[]){ 1, 0 }, "cart 2-D");
    cart(3, (int[]){ 0, 1, 1 }, (int[]){ 0, 1, 1 }, "cart 3-D, two loop-back dims");

    /* distributed graph, adjacent: out-edges r+1, r (self), r+1 again, r+2 */
    int out[4] = { (r + 1) % p, r, (r + 1) % p, (r + 2) % p };
    int in[4] = { (r - 2 + 2 * p) % p, (r - 1 + p) % p, r, (r - 1 + p) % p };
    MPI_Comm dg;
    MPI_CHK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, in, MPI_UNWEIGHTED, 4, out,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    run_topo(dg, "dist graph adjacent");
    MPI_CHK(MPI_Comm_free(&dg));

    /* distributed graph, general: rank r names the edges r -> r+1 and
     * (r+3) -> r (others' edges), and rank 0 adds 0 -> 0 */
    int srcs[2] = { r, (r + 3) % p }, degs[2] = { 1, 1 }, dsts[2] = { (r + 1) % p, r };
    MPI_CHK(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, srcs, degs, dsts, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &dg));
    run_topo(dg, "dist graph");
    MPI_CHK(MPI_Comm_free(&dg));

    /* graph: a ring (at 2 processes, the one neighbour twice) */
    if (p >= 2) {
        int *index = t_malloc((size_t)p * sizeof(int)), *edges = t_malloc((size_t)2 * p * sizeof(int));
        for (int i = 0; i < p; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i - 1 + p) % p;
            edges[2 * i + 1] = (i + 1) % p;
        }
        MPI_Comm g;
        MPI_CHK(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &g));
        run_topo(g, "graph ring");
        MPI_CHK(MPI_Comm_free(&g));
        free(index);
        free(edges);
    }
    return t_finish();
}
