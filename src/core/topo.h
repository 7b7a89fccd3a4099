/* Process topologies (MPI 4.1 chapter 8): the topology object that hangs on
 * dmpi_comm.topo, Cartesian arithmetic, MPI_Dims_create's factorisation,
 * and the collective constructors of topology communicators. Implemented
 * in core/topo.c (objects, arithmetic, neighbour lists) and
 * core/topo_create.c (constructors, Dims_create). Functions return MPI
 * error classes. */
#ifndef DMPI_TOPO_H
#define DMPI_TOPO_H

#include "core/dmpi.h"

typedef struct dmpi_topo {
    int kind;                 /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian: row-major ranks (the last dimension varies fastest) */
    int ndims;
    int *dims, *periods, *coords; /* coords: of this process */
    /* graph: the whole graph, as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: this process's edges */
    bool weighted;
    int indegree, outdegree;
    int *in, *inw, *out, *outw;
    /* neighbour lists of this process for neighbourhood collectives */
    int nin, nout;
    int *nbr_in, *nbr_out;
} dmpi_topo;

/* The topology of c, or NULL. */
static inline dmpi_topo *dmpi_topo_of(const dmpi_comm *c) { return (dmpi_topo *)c->topo; }

/* Neighbour lists of this process in c, in the order the neighbourhood
 * collectives use: Cartesian: for each dimension the -1 then the +1
 * neighbour (MPI_PROC_NULL at a non-periodic edge), both lists alike;
 * graph: the node's neighbours, both lists alike; distributed graph: the
 * sources, then the destinations, as given. The arrays belong to the
 * topology. MPI_ERR_TOPOLOGY when c has no topology. */
int dmpi_topo_neighbors(const dmpi_comm *c, int *nin, int **in, int *nout, int **out);

/* ------------------------------------------------------------ attaching
 * Each gives c a topology (c must have none); the arrays are copied. */
int dmpi_topo_attach_cart(dmpi_comm *c, int ndims, const int *dims, const int *periods);
int dmpi_topo_attach_graph(dmpi_comm *c, int nnodes, const int *index, const int *edges);
/* Weights may be NULL (unweighted: stored as 1). */
int dmpi_topo_attach_dist(dmpi_comm *c, int indegree, const int *in, const int *inw,
                          int outdegree, const int *out, const int *outw, bool weighted);
/* Hook of MPI_Comm_dup (api/comm.c): to gets a copy of from's topology. */
int dmpi_comm_topo_copy(dmpi_comm *from, dmpi_comm *to);
/* Frees c's topology (c->topo becomes NULL). */
void dmpi_topo_release(dmpi_comm *c);

/* ----------------------------------------------------- Cartesian arithmetic */
/* Rank of coords; periodic dimensions wrap, others must be in range
 * (MPI_ERR_RANK otherwise). */
int dmpi_cart_rank(const dmpi_topo *t, const int *coords, int *rank);
void dmpi_cart_coords(const dmpi_topo *t, int rank, int *coords);
/* Source and destination of a shift of `rank` by disp along dim. */
void dmpi_cart_shift(const dmpi_topo *t, int rank, int dim, int disp, int *src, int *dst);
/* Number of grid points (product of dims, 1 for no dimension); -1 when the
 * product does not fit in an int. */
int dmpi_cart_size(int ndims, const int *dims);

/* ------------------------------------------------- constructors (collective) */
/* *out is NULL for processes outside the new topology. */
int dmpi_cart_create(dmpi_comm *old, int ndims, const int *dims, const int *periods,
                     dmpi_comm **out);
int dmpi_cart_sub(dmpi_comm *cart, const int *remain, dmpi_comm **out);
int dmpi_graph_create(dmpi_comm *old, int nnodes, const int *index, const int *edges,
                      dmpi_comm **out);
/* Weights NULL: unweighted. */
int dmpi_dist_graph_create_adjacent(dmpi_comm *old, int indegree, const int *in,
                                    const int *inw, int outdegree, const int *out,
                                    const int *outw, bool weighted, dmpi_comm **out_comm);
/* This process names n sources, each with degrees[i] destinations (in
 * dests, weights alike or NULL). */
int dmpi_dist_graph_create(dmpi_comm *old, int n, const int *sources, const int *degrees,
                           const int *dests, const int *weights, bool weighted,
                           dmpi_comm **out_comm);

/* MPI_Dims_create: fills the zero entries of dims (ndims >= 0, entries >= 0)
 * with factors as close to each other as possible, in non-increasing order;
 * MPI_ERR_DIMS when nnodes is not a multiple of the fixed entries. */
int dmpi_dims_create(int nnodes, int ndims, int *dims);

#endif
