/* MPI process topology entry points (MPI 4.1 chapter 8): Cartesian, graph
 * and distributed-graph constructors and queries, MPI_Dims_create,
 * MPI_Topo_test, and the mapping functions. Argument checks live here; the
 * objects, arithmetic and collective constructors are in core/topo*.c. */
#include "api/api.h"
#include "core/topo.h"

#include <stdlib.h>

#define CHECK_ARG(c, cond, fn, ...) DMPI_CHECK(c, cond, MPI_ERR_ARG, fn, __VA_ARGS__)
#define CHECK_INTRA(c, fn)                                                           \
    DMPI_CHECK(c, !(c)->remote_group, MPI_ERR_COMM, fn,                              \
               "topologies need an intracommunicator")

static MPI_Comm handle_of(dmpi_comm *c) { return c ? c->handle : MPI_COMM_NULL; }

/* The topology of c when it is of `kind`, else raises MPI_ERR_TOPOLOGY. */
#define GET_TOPO(t, c, want, fn)                                                     \
    do {                                                                             \
        (t) = dmpi_topo_of(c);                                                       \
        if (!(t) || (t)->kind != (want))                                             \
            return dmpi_error((c), MPI_ERR_TOPOLOGY, (fn), "the communicator has %s", \
                              topo_name(t));                                         \
    } while (0)

static const char *topo_name(const dmpi_topo *t)
{
    if (!t) return "no topology";
    return t->kind == MPI_CART    ? "a Cartesian topology"
           : t->kind == MPI_GRAPH ? "a graph topology"
                                  : "a distributed graph topology";
}

/* Error raised for a failed collective constructor. */
static int failed(dmpi_comm *c, int rc, const char *fn)
{
    int cls = dmpi_error_class_of(rc);
    return dmpi_error(c, cls, fn, "%s", cls == MPI_ERR_NO_MEM ? "out of memory"
                                        : cls == MPI_ERR_INTERN
                                            ? "no free context id (too many communicators)"
                                            : "communication with the other members failed");
}

/* dims[0..ndims) are not negative, their product at most size (a grid of
 * no points is allowed: nobody is in it). */
static int check_grid(dmpi_comm *c, int ndims, const int *dims, const char *fn)
{
    DMPI_CHECK(c, ndims >= 0, MPI_ERR_DIMS, fn, "ndims %d is negative", ndims);
    CHECK_ARG(c, dims || ndims == 0, fn, "dims is NULL");
    for (int i = 0; i < ndims; i++)
        DMPI_CHECK(c, dims[i] >= 0, MPI_ERR_DIMS, fn, "dims[%d] = %d is negative", i, dims[i]);
    int n = dmpi_cart_size(ndims, dims);
    DMPI_CHECK(c, n >= 0 && n <= c->size, MPI_ERR_TOPOLOGY, fn,
               "the grid has %s%d processes, more than the communicator's %d",
               n < 0 ? "over " : "", n < 0 ? 0x7fffffff : n, c->size);
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- Cartesian */
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char *const FN = "MPI_Cart_create";
    (void)reorder; /* ranks are never reordered */
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm_old, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, comm_cart, FN, "comm_cart is NULL");
    int rc = check_grid(c, ndims, dims, FN);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_ARG(c, periods || ndims == 0, FN, "periods is NULL");
    dmpi_lock();
    rc = dmpi_cart_create(c, ndims, dims, periods, &n);
    dmpi_unlock();
    *comm_cart = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char *const FN = "MPI_Cartdim_get";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, ndims, FN, "ndims is NULL");
    GET_TOPO(t, c, MPI_CART, FN);
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char *const FN = "MPI_Cart_get";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_CART, FN);
    CHECK_ARG(c, maxdims >= t->ndims, FN, "maxdims %d is below the %d dimensions", maxdims,
              t->ndims);
    CHECK_ARG(c, t->ndims == 0 || (dims && periods && coords), FN, "NULL argument");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char *const FN = "MPI_Cart_rank";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_CART, FN);
    CHECK_ARG(c, rank && (coords || t->ndims == 0), FN, "NULL argument");
    if (dmpi_cart_rank(t, coords, rank) == MPI_SUCCESS) return MPI_SUCCESS;
    for (int i = 0; i < t->ndims; i++)
        DMPI_CHECK(c, t->periods[i] || (coords[i] >= 0 && coords[i] < t->dims[i]), MPI_ERR_RANK,
                   FN, "coords[%d] = %d is outside 0..%d (not periodic)", i, coords[i],
                   t->dims[i] - 1);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char *const FN = "MPI_Cart_coords";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_CART, FN);
    DMPI_CHECK(c, rank >= 0 && rank < c->size, MPI_ERR_RANK, FN,
               "invalid rank %d (communicator size %d)", rank, c->size);
    CHECK_ARG(c, maxdims >= t->ndims, FN, "maxdims %d is below the %d dimensions", maxdims,
              t->ndims);
    CHECK_ARG(c, coords || t->ndims == 0, FN, "coords is NULL");
    dmpi_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char *const FN = "MPI_Cart_shift";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_CART, FN);
    CHECK_ARG(c, rank_source && rank_dest, FN, "NULL argument");
    CHECK_ARG(c, direction >= 0 && direction < t->ndims, FN,
              "direction %d is not a dimension (0..%d)", direction, t->ndims - 1);
    dmpi_cart_shift(t, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Cart_sub";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n = NULL;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_CART, FN);
    CHECK_ARG(c, newcomm && (remain_dims || t->ndims == 0), FN, "NULL argument");
    dmpi_lock();
    int rc = dmpi_cart_sub(c, remain_dims, &n);
    dmpi_unlock();
    *newcomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Cart_sub)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                  int *newrank)
{
    static const char *const FN = "MPI_Cart_map";
    (void)periods;
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, newrank, FN, "newrank is NULL");
    int rc = check_grid(c, ndims, dims, FN);
    if (rc != MPI_SUCCESS) return rc;
    *newrank = c->rank < dmpi_cart_size(ndims, dims) ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cart_map)

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char *const FN = "MPI_Dims_create";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, ndims >= 0, MPI_ERR_DIMS, FN, "ndims %d is negative", ndims);
    DMPI_CHECK(NULL, nnodes > 0, MPI_ERR_DIMS, FN, "nnodes %d is not positive", nnodes);
    DMPI_CHECK(NULL, dims || ndims == 0, MPI_ERR_ARG, FN, "dims is NULL");
    for (int i = 0; i < ndims; i++)
        DMPI_CHECK(NULL, dims[i] >= 0, MPI_ERR_DIMS, FN, "dims[%d] = %d is negative", i, dims[i]);
    int rc = dmpi_dims_create(nnodes, ndims, dims);
    if (rc == MPI_ERR_DIMS)
        return dmpi_error_noobj(MPI_ERR_DIMS, FN,
                                "nnodes %d is not a multiple of the product of the nonzero "
                                "dims",
                                nnodes);
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "out of memory");
}
DMPI_ALIAS(Dims_create)

/* ------------------------------------------------------------------ graph */
/* index non-decreasing from >= 0, edges within 0..nnodes-1. */
static int check_graph(dmpi_comm *c, int nnodes, const int *index, const int *edges,
                       const char *fn)
{
    CHECK_ARG(c, nnodes >= 0, fn, "nnodes %d is negative", nnodes);
    DMPI_CHECK(c, nnodes <= c->size, MPI_ERR_TOPOLOGY, fn,
               "nnodes %d is more than the communicator's %d processes", nnodes, c->size);
    CHECK_ARG(c, nnodes == 0 || index, fn, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        DMPI_CHECK(c, index[i] >= (i ? index[i - 1] : 0), MPI_ERR_TOPOLOGY, fn,
                   "index[%d] = %d is below the previous entry", i, index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    CHECK_ARG(c, nedges == 0 || edges, fn, "edges is NULL");
    for (int i = 0; i < nedges; i++)
        DMPI_CHECK(c, edges[i] >= 0 && edges[i] < nnodes, MPI_ERR_TOPOLOGY, fn,
                   "edges[%d] = %d is not a node (0..%d)", i, edges[i], nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char *const FN = "MPI_Graph_create";
    (void)reorder;
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm_old, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, comm_graph, FN, "comm_graph is NULL");
    int rc = check_graph(c, nnodes, indx, edges, FN);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_lock();
    rc = dmpi_graph_create(c, nnodes, indx, edges, &n);
    dmpi_unlock();
    *comm_graph = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char *const FN = "MPI_Graphdims_get";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_GRAPH, FN);
    CHECK_ARG(c, nnodes && nedges, FN, "NULL argument");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    static const char *const FN = "MPI_Graph_get";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_GRAPH, FN);
    CHECK_ARG(c, maxindex >= 0 && maxedges >= 0, FN, "negative maxindex or maxedges");
    CHECK_ARG(c, (indx || !maxindex) && (edges || !maxedges), FN, "NULL argument");
    for (int i = 0; i < t->nnodes && i < maxindex; i++) indx[i] = t->index[i];
    for (int i = 0; i < t->nedges && i < maxedges; i++) edges[i] = t->edges[i];
    return MPI_SUCCESS;
}
DMPI_ALIAS(Graph_get)

/* Neighbours of `rank` in a graph topology: edges[first..last). */
static int graph_node(dmpi_comm *c, const dmpi_topo *t, int rank, int *first, int *last,
                      const char *fn)
{
    DMPI_CHECK(c, rank >= 0 && rank < t->nnodes, MPI_ERR_RANK, fn,
               "invalid rank %d (the graph has %d nodes)", rank, t->nnodes);
    *first = rank ? t->index[rank - 1] : 0;
    *last = t->index[rank];
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char *const FN = "MPI_Graph_neighbors_count";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_GRAPH, FN);
    CHECK_ARG(c, nneighbors, FN, "nneighbors is NULL");
    int first, last, rc = graph_node(c, t, rank, &first, &last, FN);
    if (rc != MPI_SUCCESS) return rc;
    *nneighbors = last - first;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char *const FN = "MPI_Graph_neighbors";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_GRAPH, FN);
    int first, last, rc = graph_node(c, t, rank, &first, &last, FN);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_ARG(c, maxneighbors >= 0, FN, "maxneighbors %d is negative", maxneighbors);
    CHECK_ARG(c, neighbors || !maxneighbors, FN, "neighbors is NULL");
    for (int i = first; i < last && i - first < maxneighbors; i++) neighbors[i - first] = t->edges[i];
    return MPI_SUCCESS;
}
DMPI_ALIAS(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    static const char *const FN = "MPI_Graph_map";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, newrank, FN, "newrank is NULL");
    int rc = check_graph(c, nnodes, indx, edges, FN);
    if (rc != MPI_SUCCESS) return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Graph_map)

/* ------------------------------------------------------ distributed graph */
/* Weights of a list of n edges: NULL (or MPI_UNWEIGHTED, meaning the same)
 * is unweighted; MPI_WEIGHTS_EMPTY only for an empty list; none negative. */
static int check_weights(dmpi_comm *c, int n, const int *w, const char *what, const char *fn)
{
    if (!w || w == MPI_UNWEIGHTED) return MPI_SUCCESS;
    CHECK_ARG(c, w != MPI_WEIGHTS_EMPTY || n == 0, fn,
              "%s is MPI_WEIGHTS_EMPTY but there are %d edges", what, n);
    for (int i = 0; i < n && w != MPI_WEIGHTS_EMPTY; i++)
        CHECK_ARG(c, w[i] >= 0, fn, "%s[%d] = %d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

static int check_ranks(dmpi_comm *c, int n, const int *r, const char *what, const char *fn)
{
    CHECK_ARG(c, n >= 0, fn, "negative number (%d) of %s", n, what);
    CHECK_ARG(c, r || n == 0, fn, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        DMPI_CHECK(c, r[i] >= 0 && r[i] < c->size, MPI_ERR_RANK, fn,
                   "%s[%d] = %d is not a rank (communicator size %d)", what, i, r[i], c->size);
    return MPI_SUCCESS;
}

/* Does a list of n edges with weights w say "unweighted"? NULL (which
 * MPI_UNWEIGHTED was in older headers) does, unless the list is empty. */
static bool unweighted(const int *w, int n)
{
    return w == MPI_UNWEIGHTED || (!w && n > 0);
}

/* The weights to store: NULL for none (unweighted or empty). */
static const int *weights_of(const int *w)
{
    return !w || w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? NULL : w;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[], const int *destweights,
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char *const FN = "MPI_Dist_graph_create_adjacent";
    (void)reorder;
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm_old, FN);
    CHECK_INTRA(c, FN);
    DMPI_CHECK_INFO(c, info, FN);
    CHECK_ARG(c, comm_dist_graph, FN, "comm_dist_graph is NULL");
    int rc = check_ranks(c, indegree, sources, "sources", FN);
    if (rc == MPI_SUCCESS) rc = check_ranks(c, outdegree, destinations, "destinations", FN);
    if (rc == MPI_SUCCESS) rc = check_weights(c, indegree, sourceweights, "sourceweights", FN);
    if (rc == MPI_SUCCESS) rc = check_weights(c, outdegree, destweights, "destweights", FN);
    if (rc != MPI_SUCCESS) return rc;
    bool weighted = !unweighted(sourceweights, indegree) && !unweighted(destweights, outdegree);
    dmpi_lock();
    rc = dmpi_dist_graph_create_adjacent(c, indegree, sources, weights_of(sourceweights),
                                         outdegree, destinations, weights_of(destweights),
                                         weighted, &n);
    dmpi_unlock();
    *comm_dist_graph = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char *const FN = "MPI_Dist_graph_create";
    (void)reorder;
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *nc = NULL;
    DMPI_GET_COMM(c, comm_old, FN);
    CHECK_INTRA(c, FN);
    DMPI_CHECK_INFO(c, info, FN);
    CHECK_ARG(c, comm_dist_graph, FN, "comm_dist_graph is NULL");
    int rc = check_ranks(c, n, sources, "sources", FN);
    if (rc != MPI_SUCCESS) return rc;
    CHECK_ARG(c, degrees || n == 0, FN, "degrees is NULL");
    long long total = 0;
    for (int i = 0; i < n; i++) {
        CHECK_ARG(c, degrees[i] >= 0, FN, "degrees[%d] = %d is negative", i, degrees[i]);
        total += degrees[i];
    }
    CHECK_ARG(c, total <= 0x7fffffff / 3, FN, "too many edges (%lld)", total);
    rc = check_ranks(c, (int)total, destinations, "destinations", FN);
    if (rc == MPI_SUCCESS) rc = check_weights(c, (int)total, weights, "weights", FN);
    if (rc != MPI_SUCCESS) return rc;
    bool weighted = !unweighted(weights, (int)total);
    dmpi_lock();
    rc = dmpi_dist_graph_create(c, n, sources, degrees, destinations, weights_of(weights),
                                weighted, &nc);
    dmpi_unlock();
    *comm_dist_graph = handle_of(nc);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                    int *weighted)
{
    static const char *const FN = "MPI_Dist_graph_neighbors_count";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_DIST_GRAPH, FN);
    CHECK_ARG(c, indegree && outdegree && weighted, FN, "NULL argument");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                              int maxoutdegree, int destinations[], int *destweights)
{
    static const char *const FN = "MPI_Dist_graph_neighbors";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    const dmpi_topo *t;
    DMPI_GET_COMM(c, comm, FN);
    GET_TOPO(t, c, MPI_DIST_GRAPH, FN);
    CHECK_ARG(c, maxindegree >= 0 && maxoutdegree >= 0, FN, "negative maximum degree");
    CHECK_ARG(c, (sources || !maxindegree) && (destinations || !maxoutdegree), FN,
              "NULL argument");
    bool sw = t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
              sourceweights != MPI_WEIGHTS_EMPTY;
    bool dw = t->weighted && destweights && destweights != MPI_UNWEIGHTED &&
              destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < t->indegree && i < maxindegree; i++) {
        sources[i] = t->in[i];
        if (sw) sourceweights[i] = t->inw[i];
    }
    for (int i = 0; i < t->outdegree && i < maxoutdegree; i++) {
        destinations[i] = t->out[i];
        if (dw) destweights[i] = t->outw[i];
    }
    return MPI_SUCCESS;
}
DMPI_ALIAS(Dist_graph_neighbors)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char *const FN = "MPI_Topo_test";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, status, FN, "status is NULL");
    const dmpi_topo *t = dmpi_topo_of(c);
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Topo_test)
