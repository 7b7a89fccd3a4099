/* Neighbourhood collectives (MPI_Neighbor_allgather(v), _alltoall(v,w)) on
 * a communicator's topology: one round in which every receive from an
 * in-neighbour and every send to an out-neighbour is posted; MPI_PROC_NULL
 * neighbours (non-periodic Cartesian edges) are skipped and their receive
 * blocks left alone.
 *
 * Messages between one pair of processes carry the same tag, so they match
 * in the order they are posted. Graphs: the k-th edge to a process matches
 * the k-th edge from it, so sends and receives are posted in list order.
 * Cartesian: block s of the sender lands in block s^1 of the receiver
 * (what goes towards -1 in dimension d arrives from +1), which matters when
 * both neighbours in a periodic dimension of size 1 or 2 are the same
 * process: sends are posted in the order 1, 0, 3, 2, ... and receives in
 * the order 0, 1, 2, 3, ... */
#include "coll/coll.h"
#include "core/topo.h"

/* Where block i goes / comes from, as bytes + count + type. */
static const char *sblock(const dmpi_coll_args *a, int i, MPI_Count *n, dmpi_datatype **dt)
{
    switch (a->coll) {
    case DMPI_COLL_NEIGHBOR_ALLGATHER:
    case DMPI_COLL_NEIGHBOR_ALLGATHERV:
        *n = a->scount;
        *dt = a->sdt;
        return a->sbuf;
    case DMPI_COLL_NEIGHBOR_ALLTOALL:
        *n = a->scount;
        *dt = a->sdt;
        return dmpi_coll_at(a->sbuf, (MPI_Count)i * a->scount, a->sdt);
    case DMPI_COLL_NEIGHBOR_ALLTOALLV:
        *n = a->scounts[i];
        *dt = a->sdt;
        return dmpi_coll_at(a->sbuf, a->sdispls[i], a->sdt);
    default:
        *n = a->scounts[i];
        *dt = a->sdts[i];
        return (const char *)a->sbuf + a->sdispls[i];
    }
}

static char *rblock(const dmpi_coll_args *a, int i, MPI_Count *n, dmpi_datatype **dt)
{
    switch (a->coll) {
    case DMPI_COLL_NEIGHBOR_ALLGATHER:
    case DMPI_COLL_NEIGHBOR_ALLTOALL:
        *n = a->rcount;
        *dt = a->rdt;
        return dmpi_coll_at(a->rbuf, (MPI_Count)i * a->rcount, a->rdt);
    case DMPI_COLL_NEIGHBOR_ALLGATHERV:
    case DMPI_COLL_NEIGHBOR_ALLTOALLV:
        *n = a->rcounts[i];
        *dt = a->rdt;
        return dmpi_coll_at(a->rbuf, a->rdispls[i], a->rdt);
    default:
        *n = a->rcounts[i];
        *dt = a->rdts[i];
        return (char *)a->rbuf + a->rdispls[i];
    }
}

void dmpi_build_neighbor(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int nin, nout, *in, *out;
    int rc = dmpi_topo_neighbors(c, &nin, &in, &nout, &out);
    if (rc != MPI_SUCCESS) {
        dmpi_sched_fail(s, rc);
        return;
    }
    const dmpi_topo *t = dmpi_topo_of(c);
    bool cart = t->kind == MPI_CART;
    MPI_Count n;
    dmpi_datatype *dt;
    for (int i = 0; i < nin; i++) {
        if (in[i] == MPI_PROC_NULL) continue;
        char *b = rblock(a, i, &n, &dt);
        dmpi_sched_recv(s, b, n, dt, in[i]);
    }
    for (int k = 0; k < nout; k++) {
        int j = cart && (k ^ 1) < nout ? k ^ 1 : k;
        if (out[j] == MPI_PROC_NULL) continue;
        const char *b = sblock(a, j, &n, &dt);
        dmpi_sched_send(s, b, n, dt, out[j]);
    }
}
