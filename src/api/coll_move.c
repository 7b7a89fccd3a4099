/* MPI collective entry points of the data-movement family: Gather(v),
 * Scatter(v), Allgather(v), Alltoall(v,w), in their blocking, nonblocking
 * and persistent forms with the large-count _c forms. Argument checks and
 * MPI_IN_PLACE rules for intra- and intercommunicators; the algorithms are
 * in src/coll. */
#include "api/coll_api.h"

#define TRY(call)                                                                  \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_ != MPI_SUCCESS) return rc_;                                        \
    } while (0)
/* Checks on a call k: on failure k's converted arrays are freed. */
#define NOT_IN_PLACE(k, buf, what) DMPI_KTRY(k, dmpi_coll_not_in_place((k).c, buf, what, (k).how.fn))
#define SIDE(k, buf, n, h, dtp) DMPI_KTRY(k, dmpi_coll_check_side((k).c, buf, n, h, dtp, (k).how.fn))
#define TYPE(k, h, dtp) DMPI_KTRY(k, dmpi_coll_check_type((k).c, h, dtp, (k).how.fn))
#define COUNTS(k, arr, n, what) DMPI_KTRY(k, dmpi_coll_check_counts((k).c, arr, n, what, (k).how.fn))
#define DISPLS(k, arr, n, what) DMPI_KTRY(k, dmpi_coll_check_displs((k).c, arr, n, what, (k).how.fn))
#define NO_ALIAS(k, sbuf, rbuf, n) DMPI_KTRY(k, dmpi_coll_no_alias((k).c, sbuf, rbuf, n, (k).how.fn))

/* --------------------------------------------------------- gather/scatter */
/* Gather, Gatherv, Scatter, Scatterv. The root's side is the receive side
 * of a gather and the send side of a scatter (with counts and
 * displacements in the v forms); on an intracommunicator MPI_IN_PLACE may
 * stand for the root's other buffer. */
static int rooted(int coll, const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                  MPI_Count rcount, MPI_Datatype rtype, dmpi_arr counts, dmpi_arr displs,
                  int root, MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    DMPI_KTRY(k, dmpi_coll_check_root(k.c, root, how.fn));
    dmpi_coll_args *a = &k.a;
    *a = (dmpi_coll_args){.coll = coll, .sbuf = sbuf, .scount = scount, .rbuf = rbuf,
                          .rcount = rcount, .root = root};
    if (root == MPI_PROC_NULL) return dmpi_coll_go(&k); /* intercommunicator: no part */
    bool inter = k.c->remote_group != NULL, scatter = coll == DMPI_COLL_SCATTER ||
                                                      coll == DMPI_COLL_SCATTERV;
    bool v = coll == DMPI_COLL_GATHERV || coll == DMPI_COLL_SCATTERV;
    bool am_root = inter ? root == MPI_ROOT : k.c->rank == root;
    int np = dmpi_coll_peers(k.c);
    if (am_root) { /* the root's own side */
        if (!scatter) {
            NOT_IN_PLACE(k, rbuf, "recvbuf");
            if (v) {
                COUNTS(k, counts, np, "recvcounts");
                DISPLS(k, displs, np, "displs");
                TYPE(k, rtype, &a->rdt);
                TRY(dmpi_coll_check_vbuf(k.c, rbuf, counts, np, a->rdt, "recvbuf", k.how.fn));
                a->rcounts = dmpi_coll_counts(&k, counts, np);
                a->rdispls = dmpi_coll_displs(&k, displs, np);
            } else {
                SIDE(k, rbuf, rcount, rtype, &a->rdt);
            }
        } else {
            NOT_IN_PLACE(k, sbuf, "sendbuf");
            if (v) {
                COUNTS(k, counts, np, "sendcounts");
                DISPLS(k, displs, np, "displs");
                TYPE(k, stype, &a->sdt);
                TRY(dmpi_coll_check_vbuf(k.c, sbuf, counts, np, a->sdt, "sendbuf", k.how.fn));
                a->scounts = dmpi_coll_counts(&k, counts, np);
                a->sdispls = dmpi_coll_displs(&k, displs, np);
            } else {
                SIDE(k, sbuf, scount, stype, &a->sdt);
            }
        }
    }
    /* The other side: every non-root; the root of an intracommunicator
     * too, unless it passed MPI_IN_PLACE. */
    const void *other = scatter ? rbuf : sbuf;
    if (!am_root) NOT_IN_PLACE(k, other, scatter ? "recvbuf" : "sendbuf");
    if (!am_root || (!inter && other != MPI_IN_PLACE)) {
        if (scatter) SIDE(k, rbuf, rcount, rtype, &a->rdt);
        else SIDE(k, sbuf, scount, stype, &a->sdt);
        if (am_root && !v) NO_ALIAS(k, sbuf, rbuf, scatter ? rcount : scount);
    }
    return dmpi_coll_go(&k);
}

#define GATHER_ARGS(C, D)                                                                    \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount,     \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define GATHER_PASS(W) sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
static int gather(GATHER_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    dmpi_arr none = DMPI_ARR(NULL, false);
    return rooted(DMPI_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  none, none, root, comm, how);
}
static int scatter(GATHER_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    dmpi_arr none = DMPI_ARR(NULL, false);
    return rooted(DMPI_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, none, none, root, comm, how);
}
DMPI_COLL_ENTRIES(Gather, Igather, GATHER_ARGS, GATHER_PASS, gather)
DMPI_COLL_ENTRIES(Scatter, Iscatter, GATHER_ARGS, GATHER_PASS, scatter)

#define GATHERV_ARGS(C, D)                                                                   \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf,                  \
        const C recvcounts[], const D displs[], MPI_Datatype recvtype, int root, MPI_Comm comm
#define GATHERV_PASS(W)                                                                      \
    sendbuf, sendcount, sendtype, recvbuf, DMPI_ARR(recvcounts, W), DMPI_ARR(displs, W),     \
        recvtype, root, comm
static int gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, dmpi_arr recvcounts, dmpi_arr displs, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, dmpi_how how)
{
    return rooted(DMPI_COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype,
                  recvcounts, displs, root, comm, how);
}
DMPI_COLL_ENTRIES(Gatherv, Igatherv, GATHERV_ARGS, GATHERV_PASS, gatherv)

#define SCATTERV_ARGS(C, D)                                                                  \
    const void *sendbuf, const C sendcounts[], const D displs[], MPI_Datatype sendtype,      \
        void *recvbuf, C recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define SCATTERV_PASS(W)                                                                     \
    sendbuf, DMPI_ARR(sendcounts, W), DMPI_ARR(displs, W), sendtype, recvbuf, recvcount,     \
        recvtype, root, comm
static int scatterv(const void *sendbuf, dmpi_arr sendcounts, dmpi_arr displs,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, dmpi_how how)
{
    return rooted(DMPI_COLL_SCATTERV, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype,
                  sendcounts, displs, root, comm, how);
}
DMPI_COLL_ENTRIES(Scatterv, Iscatterv, SCATTERV_ARGS, SCATTERV_PASS, scatterv)

/* ------------------------------------------------------------- allgather */
/* Allgather and Allgatherv (counts/displs given). */
static int allgath(bool v, const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                   MPI_Count rcount, dmpi_arr counts, dmpi_arr displs, MPI_Datatype rtype,
                   MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    dmpi_coll_args *a = &k.a;
    int np = dmpi_coll_peers(k.c);
    *a = (dmpi_coll_args){.coll = v ? DMPI_COLL_ALLGATHERV : DMPI_COLL_ALLGATHER, .sbuf = sbuf,
                          .scount = scount, .rbuf = rbuf, .rcount = rcount};
    NOT_IN_PLACE(k, rbuf, "recvbuf");
    if (v) {
        COUNTS(k, counts, np, "recvcounts");
        DISPLS(k, displs, np, "displs");
        TYPE(k, rtype, &a->rdt);
        TRY(dmpi_coll_check_vbuf(k.c, rbuf, counts, np, a->rdt, "recvbuf", k.how.fn));
        a->rcounts = dmpi_coll_counts(&k, counts, np);
        a->rdispls = dmpi_coll_displs(&k, displs, np);
    } else {
        SIDE(k, rbuf, rcount, rtype, &a->rdt);
    }
    if (k.c->remote_group) NOT_IN_PLACE(k, sbuf, "sendbuf");
    if (sbuf != MPI_IN_PLACE) {
        SIDE(k, sbuf, scount, stype, &a->sdt);
        if (!v) NO_ALIAS(k, sbuf, rbuf, scount);
    }
    return dmpi_coll_go(&k);
}

#define ALLGATHER_ARGS(C, D)                                                                 \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount,     \
        MPI_Datatype recvtype, MPI_Comm comm
#define ALLGATHER_PASS(W) sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
static int allgather(ALLGATHER_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    dmpi_arr none = DMPI_ARR(NULL, false);
    return allgath(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, none, none, recvtype,
                   comm, how);
}
DMPI_COLL_ENTRIES(Allgather, Iallgather, ALLGATHER_ARGS, ALLGATHER_PASS, allgather)

#define ALLGATHERV_ARGS(C, D)                                                                \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf,                  \
        const C recvcounts[], const D displs[], MPI_Datatype recvtype, MPI_Comm comm
#define ALLGATHERV_PASS(W)                                                                   \
    sendbuf, sendcount, sendtype, recvbuf, DMPI_ARR(recvcounts, W), DMPI_ARR(displs, W),     \
        recvtype, comm
static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, dmpi_arr recvcounts, dmpi_arr displs,
                      MPI_Datatype recvtype, MPI_Comm comm, dmpi_how how)
{
    return allgath(true, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype,
                   comm, how);
}
DMPI_COLL_ENTRIES(Allgatherv, Iallgatherv, ALLGATHERV_ARGS, ALLGATHERV_PASS, allgatherv)

/* -------------------------------------------------------------- alltoall */
/* Alltoall, Alltoallv (counts/displs in elements) and Alltoallw (counts,
 * byte displacements and a datatype per block). The send side may be
 * MPI_IN_PLACE on an intracommunicator: then it is ignored. */
typedef struct a2a {
    const void *buf;
    MPI_Count count;        /* alltoall */
    dmpi_arr counts, displs; /* v, w */
    MPI_Datatype type;      /* alltoall, v */
    const MPI_Datatype *types; /* w */
} a2a;

static int a2a_side(dmpi_coll_call *k, int coll, const a2a *x, bool send, int np)
{
    dmpi_coll_args *a = &k->a;
    const char *cn = send ? "sendcounts" : "recvcounts", *dn = send ? "sdispls" : "rdispls";
    dmpi_datatype **dt = send ? &a->sdt : &a->rdt;
    if (coll == DMPI_COLL_ALLTOALL)
        return dmpi_coll_check_side(k->c, x->buf, x->count, x->type, dt, k->how.fn);
    TRY(dmpi_coll_check_counts(k->c, x->counts, np, cn, k->how.fn));
    TRY(dmpi_coll_check_displs(k->c, x->displs, np, dn, k->how.fn));
    if (coll == DMPI_COLL_ALLTOALLV) {
        TRY(dmpi_coll_check_type(k->c, x->type, dt, k->how.fn));
        TRY(dmpi_coll_check_vbuf(k->c, x->buf, x->counts, np, *dt, send ? "sendbuf" : "recvbuf",
                                 k->how.fn));
    }
    else TRY(dmpi_coll_check_types(k->c, x->types, x->counts, np,
                                   send ? "sendtypes" : "recvtypes", k->how.fn));
    const MPI_Count *c = dmpi_coll_counts(k, x->counts, np);
    const MPI_Aint *d = dmpi_coll_displs(k, x->displs, np);
    dmpi_datatype *const *t =
        coll == DMPI_COLL_ALLTOALLW ? dmpi_coll_types(k, x->types, x->counts, np) : NULL;
    if (send) a->scounts = c, a->sdispls = d, a->sdts = t;
    else a->rcounts = c, a->rdispls = d, a->rdts = t;
    return MPI_SUCCESS;
}

static int alltoall_any(int coll, const a2a *snd, const a2a *rcv, MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    int np = dmpi_coll_peers(k.c);
    k.a = (dmpi_coll_args){.coll = coll, .sbuf = snd->buf, .scount = snd->count,
                           .rbuf = (void *)rcv->buf, .rcount = rcv->count};
    NOT_IN_PLACE(k, rcv->buf, "recvbuf");
    DMPI_KTRY(k, a2a_side(&k, coll, rcv, false, np));
    if (k.c->remote_group) NOT_IN_PLACE(k, snd->buf, "sendbuf");
    if (snd->buf != MPI_IN_PLACE) {
        DMPI_KTRY(k, a2a_side(&k, coll, snd, true, np));
        if (coll == DMPI_COLL_ALLTOALL) NO_ALIAS(k, snd->buf, rcv->buf, snd->count);
    }
    return dmpi_coll_go(&k);
}

#define ALLTOALL_ARGS ALLGATHER_ARGS
#define ALLTOALL_PASS ALLGATHER_PASS
static int alltoall(ALLTOALL_ARGS(MPI_Count, MPI_Aint), dmpi_how how)
{
    a2a s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    a2a r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return alltoall_any(DMPI_COLL_ALLTOALL, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Alltoall, Ialltoall, ALLTOALL_ARGS, ALLTOALL_PASS, alltoall)

#define ALLTOALLV_ARGS(C, D)                                                                 \
    const void *sendbuf, const C sendcounts[], const D sdispls[], MPI_Datatype sendtype,    \
        void *recvbuf, const C recvcounts[], const D rdispls[], MPI_Datatype recvtype,       \
        MPI_Comm comm
#define ALLTOALLV_PASS(W)                                                                    \
    sendbuf, DMPI_ARR(sendcounts, W), DMPI_ARR(sdispls, W), sendtype, recvbuf,               \
        DMPI_ARR(recvcounts, W), DMPI_ARR(rdispls, W), recvtype, comm
static int alltoallv(const void *sendbuf, dmpi_arr sendcounts, dmpi_arr sdispls,
                     MPI_Datatype sendtype, void *recvbuf, dmpi_arr recvcounts,
                     dmpi_arr rdispls, MPI_Datatype recvtype, MPI_Comm comm, dmpi_how how)
{
    a2a s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    a2a r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return alltoall_any(DMPI_COLL_ALLTOALLV, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Alltoallv, Ialltoallv, ALLTOALLV_ARGS, ALLTOALLV_PASS, alltoallv)

#define ALLTOALLW_ARGS(C, D)                                                                 \
    const void *sendbuf, const C sendcounts[], const D sdispls[],                            \
        const MPI_Datatype sendtypes[], void *recvbuf, const C recvcounts[],                 \
        const D rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define ALLTOALLW_PASS(W)                                                                    \
    sendbuf, DMPI_ARR(sendcounts, W), DMPI_ARR(sdispls, W), sendtypes, recvbuf,              \
        DMPI_ARR(recvcounts, W), DMPI_ARR(rdispls, W), recvtypes, comm
static int alltoallw(const void *sendbuf, dmpi_arr sendcounts, dmpi_arr sdispls,
                     const MPI_Datatype *sendtypes, void *recvbuf, dmpi_arr recvcounts,
                     dmpi_arr rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                     dmpi_how how)
{
    a2a s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes};
    a2a r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes};
    return alltoall_any(DMPI_COLL_ALLTOALLW, &s, &r, comm, how);
}
DMPI_COLL_ENTRIES(Alltoallw, Ialltoallw, ALLTOALLW_ARGS, ALLTOALLW_PASS, alltoallw)
