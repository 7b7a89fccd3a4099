/* Topology objects: attaching a Cartesian, graph or distributed-graph
 * topology to a communicator, copying it on MPI_Comm_dup, freeing it, the
 * neighbour lists of the neighbourhood collectives, and Cartesian
 * arithmetic (rank <-> coordinates, shifts). Interface in core/topo.h. */
#include "core/topo.h"

#include <stdlib.h>
#include <string.h>

/* malloc'd copy of n ints (a valid pointer even for n == 0); NULL when out
 * of memory. src NULL: filled with `fill`. */
static int *ints(int n, const int *src, int fill)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!p) return NULL;
    for (int i = 0; i < n; i++) p[i] = src ? src[i] : fill;
    return p;
}

static void topo_free(dmpi_topo *t)
{
    if (!t) return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->in);
    free(t->inw);
    free(t->out);
    free(t->outw);
    free(t->nbr_in);
    free(t->nbr_out);
    free(t);
}

void dmpi_topo_release(dmpi_comm *c)
{
    topo_free(c->topo);
    c->topo = NULL;
}

/* Attaches t to c, or frees it and fails when an allocation failed. */
static int attach(dmpi_comm *c, dmpi_topo *t, bool ok)
{
    if (!ok || !t->nbr_in || !t->nbr_out) {
        topo_free(t);
        return MPI_ERR_NO_MEM;
    }
    c->topo = t;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- Cartesian */
int dmpi_cart_size(int ndims, const int *dims)
{
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        n *= dims[i];
        if (n > 0x7fffffff) return -1;
    }
    return (int)n;
}

void dmpi_cart_coords(const dmpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int dmpi_cart_rank(const dmpi_topo *t, const int *coords, int *rank)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i]) c = ((c % d) + d) % d;
        else if (c < 0 || c >= d) return MPI_ERR_RANK;
        r = r * d + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

/* Rank of the process at `rank`'s coordinates moved by disp along dim, or
 * MPI_PROC_NULL off a non-periodic edge. */
static int moved(const dmpi_topo *t, int rank, int dim, long long disp)
{
    long long stride = 1, d = t->dims[dim];
    for (int i = dim + 1; i < t->ndims; i++) stride *= t->dims[i];
    long long c = (rank / stride) % d, n = c + disp;
    if (t->periods[dim]) n = ((n % d) + d) % d;
    else if (n < 0 || n >= d) return MPI_PROC_NULL;
    return (int)(rank + (n - c) * stride);
}

void dmpi_cart_shift(const dmpi_topo *t, int rank, int dim, int disp, int *src, int *dst)
{
    *dst = moved(t, rank, dim, disp);
    *src = moved(t, rank, dim, -(long long)disp);
}

int dmpi_topo_attach_cart(dmpi_comm *c, int ndims, const int *dims, const int *periods)
{
    dmpi_topo *t = calloc(1, sizeof *t);
    if (!t) return MPI_ERR_NO_MEM;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = ints(ndims, dims, 0);
    t->periods = ints(ndims, NULL, 0);
    t->coords = ints(ndims, NULL, 0);
    t->nin = t->nout = 2 * ndims;
    t->nbr_in = ints(2 * ndims, NULL, MPI_PROC_NULL);
    t->nbr_out = ints(2 * ndims, NULL, MPI_PROC_NULL);
    bool ok = t->dims && t->periods && t->coords;
    if (ok && t->nbr_in && t->nbr_out) {
        for (int i = 0; i < ndims; i++) t->periods[i] = periods[i] != 0;
        dmpi_cart_coords(t, c->rank, t->coords);
        for (int i = 0; i < ndims; i++) {
            dmpi_cart_shift(t, c->rank, i, 1, &t->nbr_in[2 * i], &t->nbr_in[2 * i + 1]);
            t->nbr_out[2 * i] = t->nbr_in[2 * i];
            t->nbr_out[2 * i + 1] = t->nbr_in[2 * i + 1];
        }
    }
    return attach(c, t, ok);
}

/* ------------------------------------------------------------------ graph */
int dmpi_topo_attach_graph(dmpi_comm *c, int nnodes, const int *index, const int *edges)
{
    dmpi_topo *t = calloc(1, sizeof *t);
    if (!t) return MPI_ERR_NO_MEM;
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    int first = c->rank > 0 ? index[c->rank - 1] : 0, last = index[c->rank];
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = ints(nnodes, index, 0);
    t->edges = ints(nedges, edges, 0);
    t->nin = t->nout = last - first;
    t->nbr_in = ints(last - first, edges + first, 0);
    t->nbr_out = ints(last - first, edges + first, 0);
    return attach(c, t, t->index && t->edges);
}

/* ------------------------------------------------------- distributed graph */
int dmpi_topo_attach_dist(dmpi_comm *c, int indegree, const int *in, const int *inw,
                          int outdegree, const int *out, const int *outw, bool weighted)
{
    dmpi_topo *t = calloc(1, sizeof *t);
    if (!t) return MPI_ERR_NO_MEM;
    t->kind = MPI_DIST_GRAPH;
    t->weighted = weighted;
    t->indegree = t->nin = indegree;
    t->outdegree = t->nout = outdegree;
    t->in = ints(indegree, in, 0);
    t->inw = ints(indegree, inw, 1);
    t->out = ints(outdegree, out, 0);
    t->outw = ints(outdegree, outw, 1);
    t->nbr_in = ints(indegree, in, 0);
    t->nbr_out = ints(outdegree, out, 0);
    return attach(c, t, t->in && t->inw && t->out && t->outw);
}

/* ------------------------------------------------------------ dup, lists */
int dmpi_comm_topo_copy(dmpi_comm *from, dmpi_comm *to)
{
    const dmpi_topo *t = dmpi_topo_of(from);
    if (!t) return MPI_SUCCESS;
    switch (t->kind) {
    case MPI_CART: return dmpi_topo_attach_cart(to, t->ndims, t->dims, t->periods);
    case MPI_GRAPH: return dmpi_topo_attach_graph(to, t->nnodes, t->index, t->edges);
    default:
        return dmpi_topo_attach_dist(to, t->indegree, t->in, t->inw, t->outdegree, t->out,
                                     t->outw, t->weighted);
    }
}

int dmpi_topo_neighbors(const dmpi_comm *c, int *nin, int **in, int *nout, int **out)
{
    const dmpi_topo *t = dmpi_topo_of(c);
    if (!t) return MPI_ERR_TOPOLOGY;
    *nin = t->nin;
    *in = t->nbr_in;
    *nout = t->nout;
    *out = t->nbr_out;
    return MPI_SUCCESS;
}
