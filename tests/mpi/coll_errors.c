/* coll_errors.c: bad arguments to collectives return the right error
 * class (with MPI_ERRORS_RETURN) in the blocking, nonblocking and
 * persistent forms: invalid roots (MPI_ERR_ROOT), null or unsuitable ops
 * (MPI_ERR_OP), null and uncommitted datatypes (MPI_ERR_TYPE), negative
 * counts (MPI_ERR_COUNT), NULL count / displacement / type arrays and NULL
 * request pointers (MPI_ERR_ARG), MPI_COMM_NULL (MPI_ERR_COMM), Scan on an
 * intercommunicator (MPI_ERR_COMM), neighbourhood collectives without a
 * topology (MPI_ERR_TOPOLOGY), MPI_IN_PLACE where it is not allowed
 * (MPI_ERR_BUFFER). Errors that only the root can see are tried on
 * MPI_COMM_SELF so that no process is left waiting. After all that, the
 * collectives still work. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF;
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
    int a[64] = { 0 }, b[64] = { 0 }, cnt[64], dsp[64];
    for (int i = 0; i < 64; i++) cnt[i] = 1, dsp[i] = i;
    MPI_Datatype types[64];
    for (int i = 0; i < 64; i++) types[i] = MPI_INT;
    MPI_Request r;
    int p = t_size;

    /* roots */
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, p, w), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Ibcast(a, 1, MPI_INT, p, w, &r), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Bcast_init(a, 1, MPI_INT, -5, w, MPI_INFO_NULL, &r), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, p + 3, w), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_ROOT, w), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, -1, w, &r), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, p, w), MPI_ERR_ROOT);

    /* ops */
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w, &r), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_init(a, b, 1, MPI_INT, MPI_OP_NULL, 0, w, MPI_INFO_NULL, &r), MPI_ERR_OP);
    double d[2] = { 0, 0 }, e[2];
    CHECK_CLASS(MPI_Allreduce(d, e, 1, MPI_DOUBLE, MPI_LAND, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Scan(d, e, 1, MPI_DOUBLE, MPI_BXOR, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    CHECK_CLASS(MPI_Exscan(a, b, 1, MPI_INT, MPI_REPLACE, w), MPI_ERR_OP);

    /* datatypes */
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc); /* not committed */
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Bcast(a, 1, unc, 0, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Iallgather(a, 1, unc, b, 1, MPI_INT, w, &r), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE);
    types[0] = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Alltoallw(a, cnt, dsp, types, b, cnt, dsp, types, s), MPI_ERR_TYPE);
    types[0] = MPI_INT;
    MPI_Type_free(&unc);

    /* counts */
    CHECK_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Allreduce(a, b, -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Ialltoall(a, -1, MPI_INT, b, 1, MPI_INT, w, &r), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, b, -1, MPI_INT, w), MPI_ERR_COUNT);
    cnt[0] = -1;
    CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, s), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, s), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, s, &r), MPI_ERR_COUNT);
    cnt[0] = 1;

    /* NULL arrays and request pointers */
    CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, 0, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Scatterv(a, cnt, NULL, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, dsp, MPI_INT, w), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Alltoallv(a, cnt, NULL, MPI_INT, b, cnt, dsp, MPI_INT, w), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Alltoallw(a, cnt, dsp, NULL, b, cnt, dsp, types, w), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Ibarrier(w, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, w, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Barrier_init(w, MPI_INFO_NULL, NULL), MPI_ERR_ARG);

    /* communicators */
    CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Ibcast(a, 1, MPI_INT, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_TOPOLOGY);
    CHECK_CLASS(MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, w, &r), MPI_ERR_TOPOLOGY);
    if (p >= 2) {
        MPI_Comm local, inter;
        int g = t_rank >= p / 2;
        MPI_Comm_split(w, g, t_rank, &local);
        MPI_Intercomm_create(local, 0, w, g ? 0 : p / 2, 5, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        CHECK_CLASS(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, inter, &r), MPI_ERR_COMM);
        int rs;
        MPI_Comm_remote_size(inter, &rs);
        CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, rs, inter), MPI_ERR_ROOT);
        CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -7, inter), MPI_ERR_ROOT);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }

    /* MPI_IN_PLACE where the standard does not allow it */
    CHECK_CLASS(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER);

    /* still working */
    a[0] = t_rank;
    MPI_CHK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, w));
    CHECK(b[0] == p * (p - 1) / 2, "allreduce after errors gave %d", b[0]);
    MPI_CHK(MPI_Ibarrier(w, &r));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    return t_finish();
}
