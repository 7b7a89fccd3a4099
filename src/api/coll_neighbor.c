/* MPI neighbourhood collective entry points (MPI 4.1 section 8.6):
 * Neighbor_allgather(v) and Neighbor_alltoall(v,w), blocking, nonblocking
 * and persistent, with the large-count _c forms. The communicator must be
 * an intracommunicator with a Cartesian, graph or distributed-graph
 * topology; the count arrays have one entry per in-neighbour (receive
 * side) or out-neighbour (send side). No MPI_IN_PLACE here. The schedule
 * is in coll/neighbor.c. */
#include "api/coll_api.h"
#include "core/topo.h"

#define TRY(call)                                                                  \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_ != MPI_SUCCESS) return rc_;                                        \
    } while (0)

/* One side of a neighbourhood collective. */
typedef struct nside {
    const void *buf;
    MPI_Count count;           /* allgather, alltoall */
    dmpi_arr counts, displs;   /* v, w (w: displs in bytes, always MPI_Aint) */
    MPI_Datatype type;
    const MPI_Datatype *types; /* w */
} nside;

static int side(dmpi_coll_call *k, int coll, const nside *x, bool send, int n)
{
    dmpi_coll_args *a = &k->a;
    const char *fn = k->how.fn;
    const char *cn = send ? "sendcounts" : "recvcounts", *dn = send ? "sdispls" : "rdispls";
    dmpi_datatype **dt = send ? &a->sdt : &a->rdt;
    TRY(dmpi_coll_not_in_place(k->c, x->buf, send ? "sendbuf" : "recvbuf", fn));
    bool scalar = coll == DMPI_COLL_NEIGHBOR_ALLTOALL || coll == DMPI_COLL_NEIGHBOR_ALLGATHER ||
                  (send && coll == DMPI_COLL_NEIGHBOR_ALLGATHERV);
    if (scalar) return dmpi_coll_check_side(k->c, x->buf, x->count, x->type, dt, fn);
    TRY(dmpi_coll_check_counts(k->c, x->counts, n, cn, fn));
    TRY(dmpi_coll_check_displs(k->c, x->displs, n, dn, fn));
    const MPI_Count *c = dmpi_coll_counts(k, x->counts, n);
    const MPI_Aint *d = dmpi_coll_displs(k, x->displs, n);
    dmpi_datatype *const *t = NULL;
    if (coll == DMPI_COLL_NEIGHBOR_ALLTOALLW) {
        TRY(dmpi_coll_check_types(k->c, x->types, x->counts, n, send ? "sendtypes" : "recvtypes",
                                  fn));
        t = dmpi_coll_types(k, x->types, x->counts, n);
    } else {
        TRY(dmpi_coll_check_type(k->c, x->type, dt, fn));
    }
    if (send) a->scounts = c, a->sdispls = d, a->sdts = t;
    else a->rcounts = c, a->rdispls = d, a->rdts = t;
    return MPI_SUCCESS;
}

static int neighbor(int coll, const nside *snd, const nside *rcv, MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    TRY(dmpi_coll_check_intra(k.c, how.fn));
    int nin, nout, *in, *out;
    DMPI_CHECK(k.c, dmpi_topo_neighbors(k.c, &nin, &in, &nout, &out) == MPI_SUCCESS,
               MPI_ERR_TOPOLOGY, how.fn, "the communicator has no process topology");
    k.a = (dmpi_coll_args){.coll = coll, .sbuf = snd->buf, .scount = snd->count,
                           .rbuf = (void *)rcv->buf, .rcount = rcv->count};
    DMPI_KTRY(k, side(&k, coll, rcv, false, nin));
    DMPI_KTRY(k, side(&k, coll, snd, true, nout));
    return dmpi_coll_go(&k);
}

/* ------------------------------------------------------------- allgather */
#define NAG_ARGS(C, D)                                                                       \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount,     \
        MPI_Datatype recvtype, MPI_Comm comm
#define NAG_PASS(W) sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
static int nallgather(NAG_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    nside s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nside r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor(DMPI_COLL_NEIGHBOR_ALLGATHER, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Neighbor_allgather, Ineighbor_allgather, NAG_ARGS, NAG_PASS, nallgather)

static int nalltoall(NAG_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    nside s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nside r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor(DMPI_COLL_NEIGHBOR_ALLTOALL, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Neighbor_alltoall, Ineighbor_alltoall, NAG_ARGS, NAG_PASS, nalltoall)

#define NAGV_ARGS(C, D)                                                                      \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf,                  \
        const C recvcounts[], const D displs[], MPI_Datatype recvtype, MPI_Comm comm
#define NAGV_PASS(W)                                                                         \
    sendbuf, sendcount, sendtype, recvbuf, DMPI_ARR(recvcounts, W), DMPI_ARR(displs, W),     \
        recvtype, comm
static int nallgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, dmpi_arr recvcounts, dmpi_arr displs,
                       MPI_Datatype recvtype, MPI_Comm comm, dmpi_how how)
{
    nside s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nside r = {.buf = recvbuf, .counts = recvcounts, .displs = displs, .type = recvtype};
    return neighbor(DMPI_COLL_NEIGHBOR_ALLGATHERV, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Neighbor_allgatherv, Ineighbor_allgatherv, NAGV_ARGS, NAGV_PASS, nallgatherv)

/* -------------------------------------------------------------- alltoall */
#define NAAV_ARGS(C, D)                                                                      \
    const void *sendbuf, const C sendcounts[], const D sdispls[], MPI_Datatype sendtype,    \
        void *recvbuf, const C recvcounts[], const D rdispls[], MPI_Datatype recvtype,       \
        MPI_Comm comm
#define NAAV_PASS(W)                                                                         \
    sendbuf, DMPI_ARR(sendcounts, W), DMPI_ARR(sdispls, W), sendtype, recvbuf,               \
        DMPI_ARR(recvcounts, W), DMPI_ARR(rdispls, W), recvtype, comm
static int nalltoallv(const void *sendbuf, dmpi_arr sendcounts, dmpi_arr sdispls,
                      MPI_Datatype sendtype, void *recvbuf, dmpi_arr recvcounts,
                      dmpi_arr rdispls, MPI_Datatype recvtype, MPI_Comm comm, dmpi_how how)
{
    nside s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    nside r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return neighbor(DMPI_COLL_NEIGHBOR_ALLTOALLV, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Neighbor_alltoallv, Ineighbor_alltoallv, NAAV_ARGS, NAAV_PASS, nalltoallv)

/* Byte displacements are MPI_Aint in both forms. */
#define NAAW_ARGS(C, D)                                                                      \
    const void *sendbuf, const C sendcounts[], const MPI_Aint sdispls[],                     \
        const MPI_Datatype sendtypes[], void *recvbuf, const C recvcounts[],                 \
        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define NAAW_PASS(W)                                                                         \
    sendbuf, DMPI_ARR(sendcounts, W), DMPI_ARR(sdispls, 1), sendtypes, recvbuf,              \
        DMPI_ARR(recvcounts, W), DMPI_ARR(rdispls, 1), recvtypes, comm
static int nalltoallw(const void *sendbuf, dmpi_arr sendcounts, dmpi_arr sdispls,
                      const MPI_Datatype *sendtypes, void *recvbuf, dmpi_arr recvcounts,
                      dmpi_arr rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                      dmpi_how how)
{
    nside s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes};
    nside r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes};
    return neighbor(DMPI_COLL_NEIGHBOR_ALLTOALLW, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Neighbor_alltoallw, Ineighbor_alltoallw, NAAW_ARGS, NAAW_PASS, nalltoallw)
