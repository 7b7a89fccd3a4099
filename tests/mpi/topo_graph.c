/* topo_graph: graph and distributed graph topologies.
 *   - MPI_Graph_create (a ring with chords, a self-loop, a graph smaller
 *     than the communicator), MPI_Graphdims_get, MPI_Graph_get,
 *     MPI_Graph_neighbors_count / MPI_Graph_neighbors for every node,
 *     MPI_Graph_map, MPI_Topo_test, MPI_Comm_dup keeping the topology;
 *   - MPI_Dist_graph_create_adjacent with weights, MPI_UNWEIGHTED and
 *     MPI_WEIGHTS_EMPTY, checked by queries and by messages along the edges;
 *   - MPI_Dist_graph_create where processes name edges of others, checked
 *     as multisets (the order of neighbours is not specified);
 *   - error classes under MPI_ERRORS_RETURN. */
#include "common.h"

/* The graph on p nodes: node i is linked to i+1 and i-1 (ring), node 0 to
 * every node and every node to 0, and the last node to itself. */
static int build_graph(int p, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < p; i++) {
        if (p > 1) {
            edges[e++] = (i + 1) % p;
            edges[e++] = (i + p - 1) % p;
        }
        if (i == 0)
            for (int j = 1; j < p; j++) edges[e++] = j;
        else
            edges[e++] = 0;
        if (i == p - 1) edges[e++] = i;
        index[i] = e;
    }
    return e;
}

static void check_graph(MPI_Comm g, int p, const int *index, const int *edges, int nedges)
{
    int status = -1, nn = -1, ne = -1;
    MPI_CHK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH, "Topo_test %d, want MPI_GRAPH", status);
    MPI_CHK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == p && ne == nedges, "Graphdims_get %d %d, want %d %d", nn, ne, p, nedges);
    int *gi = t_malloc((size_t)p * sizeof(int)), *ge = t_malloc((size_t)nedges * sizeof(int));
    MPI_CHK(MPI_Graph_get(g, p, nedges, gi, ge));
    for (int i = 0; i < p; i++) CHECK(gi[i] == index[i], "Graph_get index[%d] = %d", i, gi[i]);
    for (int i = 0; i < nedges; i++) CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d", i, ge[i]);
    for (int r = 0; r < p; r++) {
        int first = r ? index[r - 1] : 0, n = -1;
        MPI_CHK(MPI_Graph_neighbors_count(g, r, &n));
        CHECK(n == index[r] - first, "node %d has %d neighbours, want %d", r, n, index[r] - first);
        int nb[64];
        MPI_CHK(MPI_Graph_neighbors(g, r, 64, nb));
        for (int k = 0; k < n && k < 64; k++)
            CHECK(nb[k] == edges[first + k], "node %d neighbour %d is %d, want %d", r, k, nb[k],
                  edges[first + k]);
    }
    /* The graph is symmetric apart from the self-loop: exchange along it. */
    int me, first, n;
    MPI_Comm_rank(g, &me);
    first = me ? index[me - 1] : 0;
    n = index[me] - first;
    int *in = t_malloc((size_t)n * sizeof(int));
    MPI_Request *rq = t_malloc((size_t)(2 * n) * sizeof(MPI_Request));
    for (int k = 0; k < n; k++) {
        MPI_Irecv(&in[k], 1, MPI_INT, edges[first + k], 3, g, &rq[k]);
        MPI_Isend(&me, 1, MPI_INT, edges[first + k], 3, g, &rq[n + k]);
    }
    MPI_CHK(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; k++)
        CHECK(in[k] == edges[first + k], "message from neighbour %d says %d", edges[first + k],
              in[k]);
    free(in);
    free(rq);
    free(gi);
    free(ge);
}

static void test_graph(void)
{
    int p = t_size;
    int *index = t_malloc((size_t)p * sizeof(int)), *edges = t_malloc((size_t)(4 * p) * sizeof(int));
    int nedges = build_graph(p, index, edges);
    MPI_Comm g, dup;
    MPI_CHK(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &g));
    CHECK(g != MPI_COMM_NULL, "Graph_create gave MPI_COMM_NULL");
    if (g != MPI_COMM_NULL) {
        check_graph(g, p, index, edges, nedges);
        MPI_CHK(MPI_Comm_dup(g, &dup));
        check_graph(dup, p, index, edges, nedges);
        MPI_Comm_free(&dup);
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        int n;
        CHECK_CLASS(MPI_Graph_neighbors_count(g, p, &n), MPI_ERR_RANK);
        CHECK_CLASS(MPI_Cartdim_get(g, &n), MPI_ERR_TOPOLOGY);
        int in, out, w;
        CHECK_CLASS(MPI_Dist_graph_neighbors_count(g, &in, &out, &w), MPI_ERR_TOPOLOGY);
        MPI_Comm_free(&g);
    }
    int newrank = -7;
    MPI_CHK(MPI_Graph_map(MPI_COMM_WORLD, p, index, edges, &newrank));
    CHECK(newrank == t_rank, "Graph_map gave %d", newrank);

    /* A graph on fewer nodes: the others get MPI_COMM_NULL. */
    if (p > 1) {
        nedges = build_graph(p - 1, index, edges);
        MPI_CHK(MPI_Graph_create(MPI_COMM_WORLD, p - 1, index, edges, 1, &g));
        if (t_rank < p - 1) {
            CHECK(g != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL", t_rank);
            if (g != MPI_COMM_NULL) {
                check_graph(g, p - 1, index, edges, nedges);
                MPI_Comm_free(&g);
            }
        } else {
            CHECK(g == MPI_COMM_NULL, "rank %d outside the graph got a communicator", t_rank);
        }
        MPI_CHK(MPI_Graph_map(MPI_COMM_WORLD, p - 1, index, edges, &newrank));
        CHECK(newrank == (t_rank < p - 1 ? t_rank : MPI_UNDEFINED), "Graph_map gave %d", newrank);
    }
    /* An edge to a node that does not exist. */
    index[0] = 1;
    edges[0] = p;
    if (!T_MPICH_QUIRK("MPICH does not check the edges")) {
        int rc = MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g);
        CHECK(rc != MPI_SUCCESS, "Graph_create with an edge to node %d succeeded", p);
    }
    free(index);
    free(edges);
}

/* Queries and message exchange on a distributed graph whose neighbours
 * were given in this order. */
static void check_dist(MPI_Comm g, int nin, const int *src, const int *sw, int nout,
                       const int *dst, const int *dw, int weighted)
{
    int status = -1, in = -1, out = -1, w = -1;
    MPI_CHK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_DIST_GRAPH, "Topo_test %d, want MPI_DIST_GRAPH", status);
    MPI_CHK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == nin && out == nout && !w == !weighted, "counts %d %d %d, want %d %d %d", in, out,
          w, nin, nout, weighted);
    int s[8], swg[8], d[8], dwg[8];
    if (in != nin || out != nout || nin > 8 || nout > 8) return;
    MPI_CHK(MPI_Dist_graph_neighbors(g, nin, s, weighted ? swg : MPI_UNWEIGHTED, nout, d,
                                     weighted ? dwg : MPI_UNWEIGHTED));
    for (int k = 0; k < nin && k < 8; k++) {
        CHECK(s[k] == src[k], "source %d is %d, want %d", k, s[k], src[k]);
        if (weighted) CHECK(swg[k] == sw[k], "source weight %d is %d, want %d", k, swg[k], sw[k]);
    }
    for (int k = 0; k < nout && k < 8; k++) {
        CHECK(d[k] == dst[k], "destination %d is %d, want %d", k, d[k], dst[k]);
        if (weighted) CHECK(dwg[k] == dw[k], "dest weight %d is %d, want %d", k, dwg[k], dw[k]);
    }
    /* Every process sends its rank along its out-edges. */
    int me, got[8];
    MPI_Comm_rank(g, &me);
    MPI_Request rq[16];
    for (int k = 0; k < nin; k++) MPI_Irecv(&got[k], 1, MPI_INT, src[k], 4, g, &rq[k]);
    for (int k = 0; k < nout; k++) MPI_Isend(&me, 1, MPI_INT, dst[k], 4, g, &rq[nin + k]);
    MPI_CHK(MPI_Waitall(nin + nout, rq, MPI_STATUSES_IGNORE));
    /* Messages from one source match in order; with repeated sources any
     * of them will do: check that each value names a source. */
    for (int k = 0; k < nin; k++) {
        int ok = 0;
        for (int j = 0; j < nin; j++) ok |= got[k] == src[j];
        CHECK(ok, "message %d says %d, not a source", k, got[k]);
    }
}

static void test_dist_adjacent(void)
{
    int p = t_size, r = t_rank;
    int src[2] = {(r + p - 1) % p, (r + 2) % p}, dst[2] = {(r + 1) % p, (r + p - 2) % p};
    /* weight of edge a->b: 10 * a + b, known to both ends */
    int sw[2] = {10 * src[0] + r, 10 * src[1] + r}, dw[2] = {10 * r + dst[0], 10 * r + dst[1]};
    MPI_Comm g;
    MPI_CHK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL,
                                           0, &g));
    check_dist(g, 2, src, sw, 2, dst, dw, 1);
    MPI_Comm dup;
    MPI_CHK(MPI_Comm_dup(g, &dup));
    check_dist(dup, 2, src, sw, 2, dst, dw, 1);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);

    MPI_CHK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    check_dist(g, 2, src, NULL, 2, dst, NULL, 0);
    MPI_Comm_free(&g);

    /* A star from rank 0, weighted, with empty lists elsewhere. */
    int all[64], wall[64], n = p < 64 ? p - 1 : 63, zero = 0, wz = 7;
    for (int i = 0; i < n; i++) {
        all[i] = i + 1;
        wall[i] = 7;
    }
    if (r == 0)
        MPI_CHK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, n, all,
                                               wall, MPI_INFO_NULL, 0, &g));
    else
        MPI_CHK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, r <= n, &zero, &wz, 0, NULL,
                                               MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    if (r == 0) check_dist(g, 0, NULL, NULL, n < 8 ? n : 8, all, wall, 1);
    else check_dist(g, r <= n, &zero, &wz, 0, NULL, NULL, 1);
    MPI_Comm_free(&g);
}

static int pair_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorted (rank, weight) pairs of a neighbour list. */
static void sorted_pairs(int n, const int *ranks, const int *w, int *pairs)
{
    for (int i = 0; i < n; i++) {
        pairs[2 * i] = ranks[i];
        pairs[2 * i + 1] = w ? w[i] : 0;
    }
    qsort(pairs, (size_t)n, 2 * sizeof(int), pair_cmp);
}

static void test_dist_general(int weighted)
{
    int p = t_size, r = t_rank;
    /* Every rank names its ring edge r -> r+1 (weight r); rank 0 also names
     * s -> 0 (weight 100 + s) for every other s. */
    int sources[65], degrees[65], dests[65], weights[65], n = 0;
    sources[n] = r;
    degrees[n] = 1;
    dests[n] = (r + 1) % p;
    weights[n++] = r;
    if (r == 0)
        for (int s = 1; s < p && n < 65; s++) {
            sources[n] = s;
            degrees[n] = 1;
            dests[n] = 0;
            weights[n++] = 100 + s;
        }
    MPI_Comm g;
    MPI_CHK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                                  weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    int in = -1, out = -1, w = -1;
    MPI_CHK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    int want_in = 1 + (r == 0 ? p - 1 : 0), want_out = 1 + (r > 0);
    CHECK(in == want_in && out == want_out && !w == !weighted, "counts %d %d %d, want %d %d %d",
          in, out, w, want_in, want_out, weighted);
    if (in != want_in || out != want_out || in > 65 || out > 2) {
        MPI_Comm_free(&g);
        return;
    }
    int s[65], sw[65], d[2], dw[2], ps[130], pw[130];
    MPI_CHK(MPI_Dist_graph_neighbors(g, in, s, weighted ? sw : MPI_UNWEIGHTED, out, d,
                                     weighted ? dw : MPI_UNWEIGHTED));
    /* expected in-edges */
    int es[65], ew[65], k = 0;
    es[k] = (r + p - 1) % p;
    ew[k++] = (r + p - 1) % p;
    if (r == 0)
        for (int x = 1; x < p; x++) {
            es[k] = x;
            ew[k++] = 100 + x;
        }
    sorted_pairs(in, s, weighted ? sw : NULL, ps);
    sorted_pairs(in, es, weighted ? ew : NULL, pw);
    for (int i = 0; i < 2 * in; i++)
        CHECK(ps[i] == pw[i], "in-edges differ at %d: %d, want %d", i, ps[i], pw[i]);
    int ed[2] = {(r + 1) % p, 0}, edw[2] = {r, 100 + r};
    sorted_pairs(out, d, weighted ? dw : NULL, ps);
    sorted_pairs(out, ed, weighted ? edw : NULL, pw);
    for (int i = 0; i < 2 * out; i++)
        CHECK(ps[i] == pw[i], "out-edges differ at %d: %d, want %d", i, ps[i], pw[i]);
    MPI_Comm_free(&g);

    /* Nobody names anything: an empty graph. */
    MPI_CHK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY,
                                  MPI_INFO_NULL, 0, &g));
    MPI_CHK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 0 && out == 0, "empty graph: degrees %d %d", in, out);
    MPI_Comm_free(&g);
}

static void test_errors(void)
{
    MPI_Comm g = MPI_COMM_NULL;
    int bad = t_size, zero = 0, status;
    int neg = -1;
    if (!T_MPICH_QUIRK("MPICH checks neither ranks nor weights here")) {
        CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0,
                                                   NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                    MPI_ERR_RANK);
        CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 1,
                                                   &zero, &neg, MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG);
    }
    int nn, ne;
    CHECK_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne), MPI_ERR_TOPOLOGY);
    MPI_CHK(MPI_Topo_test(MPI_COMM_SELF, &status));
    CHECK(status == MPI_UNDEFINED, "Topo_test(MPI_COMM_SELF) = %d", status);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_graph();
    test_dist_adjacent();
    test_dist_general(1);
    test_dist_general(0);
    test_errors();
    return t_finish();
}
