/* errors_table_coll.c: bad input to collectives gives the right error class
 * in every form of every collective -- blocking, nonblocking (MPI_I...),
 * persistent (..._init) and large-count (..._c) -- and never a crash or a
 * hang: every rank passes the same bad arguments, so all of them fail
 * alike. Arguments that only the root looks at are tried on MPI_COMM_SELF.
 * The harness is described in errors_table.h. */
#include "errors_table.h"

#include <stdbool.h>

enum { F_B, F_I, F_P, F_BC, F_IC, F_PC, NFORMS };
static const char *const form_name[NFORMS] = {"", "[nonblocking] ", "[persistent] ", "[_c] ",
                                              "[nonblocking _c] ", "[persistent _c] "};

/* Runs `call` (which uses f) in the first nf forms, each checked. */
#define EFN(nf, w1, w2, call)                                                    \
    do {                                                                         \
        const char *l_ = bad_label;                                              \
        for (int f = 0; f < (nf); f++) {                                         \
            bad_label = l_;                                                      \
            form_note = form_name[f];                                            \
            chk(#call, __LINE__, (call), (w1), (w2), (w2));                      \
        }                                                                        \
        form_note = "";                                                          \
    } while (0)
#define EF(want, call) EFN(NFORMS, want, want, call)
#define EF2(w1, w2, call) EFN(NFORMS, w1, w2, call)

#define DISPATCH(B, I, P, BC, IC, PC)    \
    switch (f) {                         \
    case F_B: return B;                  \
    case F_I: return I;                  \
    case F_P: return P;                  \
    case F_BC: return BC;                \
    case F_IC: return IC;                \
    default: return PC;                  \
    }

static MPI_Info pinfo = MPI_INFO_NULL; /* info of the persistent forms */
static bool nullarr;                   /* pass NULL count/displacement arrays */
static int icnt_[8] = {1, 1, 1, 1, 1, 1, 1, 1}, idsp_[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static MPI_Count ccnt_[8] = {1, 1, 1, 1, 1, 1, 1, 1};
static MPI_Aint adsp_[8] = {0, 4, 8, 12, 16, 20, 24, 28};
static MPI_Datatype tys_[8] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT};
#define IC (nullarr ? NULL : icnt_)
#define ID (nullarr ? NULL : idsp_)
#define CC (nullarr ? NULL : ccnt_)
#define AD (nullarr ? NULL : adsp_)

typedef const void *cv;

static int barrier(int f, MPI_Comm c)
{
    DISPATCH(MPI_Barrier(c), MPI_Ibarrier(c, &rq), MPI_Barrier_init(c, pinfo, &rq), 0, 0, 0);
}
static int bcast(int f, void *b, MPI_Count n, MPI_Datatype t, int root, MPI_Comm c)
{
    DISPATCH(MPI_Bcast(b, (int)n, t, root, c), MPI_Ibcast(b, (int)n, t, root, c, &rq),
             MPI_Bcast_init(b, (int)n, t, root, c, pinfo, &rq), MPI_Bcast_c(b, n, t, root, c),
             MPI_Ibcast_c(b, n, t, root, c, &rq), MPI_Bcast_init_c(b, n, t, root, c, pinfo, &rq));
}
static int gather(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                  MPI_Datatype rt, int root, MPI_Comm c)
{
    DISPATCH(MPI_Gather(s, (int)sn, st_, r, (int)rn, rt, root, c),
             MPI_Igather(s, (int)sn, st_, r, (int)rn, rt, root, c, &rq),
             MPI_Gather_init(s, (int)sn, st_, r, (int)rn, rt, root, c, pinfo, &rq),
             MPI_Gather_c(s, sn, st_, r, rn, rt, root, c),
             MPI_Igather_c(s, sn, st_, r, rn, rt, root, c, &rq),
             MPI_Gather_init_c(s, sn, st_, r, rn, rt, root, c, pinfo, &rq));
}
static int gatherv(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Datatype rt,
                   int root, MPI_Comm c)
{
    DISPATCH(MPI_Gatherv(s, (int)sn, st_, r, IC, ID, rt, root, c),
             MPI_Igatherv(s, (int)sn, st_, r, IC, ID, rt, root, c, &rq),
             MPI_Gatherv_init(s, (int)sn, st_, r, IC, ID, rt, root, c, pinfo, &rq),
             MPI_Gatherv_c(s, sn, st_, r, CC, AD, rt, root, c),
             MPI_Igatherv_c(s, sn, st_, r, CC, AD, rt, root, c, &rq),
             MPI_Gatherv_init_c(s, sn, st_, r, CC, AD, rt, root, c, pinfo, &rq));
}
static int scatter(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                   MPI_Datatype rt, int root, MPI_Comm c)
{
    DISPATCH(MPI_Scatter(s, (int)sn, st_, r, (int)rn, rt, root, c),
             MPI_Iscatter(s, (int)sn, st_, r, (int)rn, rt, root, c, &rq),
             MPI_Scatter_init(s, (int)sn, st_, r, (int)rn, rt, root, c, pinfo, &rq),
             MPI_Scatter_c(s, sn, st_, r, rn, rt, root, c),
             MPI_Iscatter_c(s, sn, st_, r, rn, rt, root, c, &rq),
             MPI_Scatter_init_c(s, sn, st_, r, rn, rt, root, c, pinfo, &rq));
}
static int scatterv(int f, cv s, MPI_Datatype st_, void *r, MPI_Count rn, MPI_Datatype rt,
                    int root, MPI_Comm c)
{
    DISPATCH(MPI_Scatterv(s, IC, ID, st_, r, (int)rn, rt, root, c),
             MPI_Iscatterv(s, IC, ID, st_, r, (int)rn, rt, root, c, &rq),
             MPI_Scatterv_init(s, IC, ID, st_, r, (int)rn, rt, root, c, pinfo, &rq),
             MPI_Scatterv_c(s, CC, AD, st_, r, rn, rt, root, c),
             MPI_Iscatterv_c(s, CC, AD, st_, r, rn, rt, root, c, &rq),
             MPI_Scatterv_init_c(s, CC, AD, st_, r, rn, rt, root, c, pinfo, &rq));
}
static int allgather(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                     MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Allgather(s, (int)sn, st_, r, (int)rn, rt, c),
             MPI_Iallgather(s, (int)sn, st_, r, (int)rn, rt, c, &rq),
             MPI_Allgather_init(s, (int)sn, st_, r, (int)rn, rt, c, pinfo, &rq),
             MPI_Allgather_c(s, sn, st_, r, rn, rt, c),
             MPI_Iallgather_c(s, sn, st_, r, rn, rt, c, &rq),
             MPI_Allgather_init_c(s, sn, st_, r, rn, rt, c, pinfo, &rq));
}
static int allgatherv(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Datatype rt,
                      MPI_Comm c)
{
    DISPATCH(MPI_Allgatherv(s, (int)sn, st_, r, IC, ID, rt, c),
             MPI_Iallgatherv(s, (int)sn, st_, r, IC, ID, rt, c, &rq),
             MPI_Allgatherv_init(s, (int)sn, st_, r, IC, ID, rt, c, pinfo, &rq),
             MPI_Allgatherv_c(s, sn, st_, r, CC, AD, rt, c),
             MPI_Iallgatherv_c(s, sn, st_, r, CC, AD, rt, c, &rq),
             MPI_Allgatherv_init_c(s, sn, st_, r, CC, AD, rt, c, pinfo, &rq));
}
static int alltoall(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                    MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Alltoall(s, (int)sn, st_, r, (int)rn, rt, c),
             MPI_Ialltoall(s, (int)sn, st_, r, (int)rn, rt, c, &rq),
             MPI_Alltoall_init(s, (int)sn, st_, r, (int)rn, rt, c, pinfo, &rq),
             MPI_Alltoall_c(s, sn, st_, r, rn, rt, c),
             MPI_Ialltoall_c(s, sn, st_, r, rn, rt, c, &rq),
             MPI_Alltoall_init_c(s, sn, st_, r, rn, rt, c, pinfo, &rq));
}
static int alltoallv(int f, cv s, MPI_Datatype st_, void *r, MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Alltoallv(s, IC, ID, st_, r, IC, ID, rt, c),
             MPI_Ialltoallv(s, IC, ID, st_, r, IC, ID, rt, c, &rq),
             MPI_Alltoallv_init(s, IC, ID, st_, r, IC, ID, rt, c, pinfo, &rq),
             MPI_Alltoallv_c(s, CC, AD, st_, r, CC, AD, rt, c),
             MPI_Ialltoallv_c(s, CC, AD, st_, r, CC, AD, rt, c, &rq),
             MPI_Alltoallv_init_c(s, CC, AD, st_, r, CC, AD, rt, c, pinfo, &rq));
}
static int alltoallw(int f, cv s, const MPI_Datatype *sts, void *r, const MPI_Datatype *rts,
                     MPI_Comm c)
{
    DISPATCH(MPI_Alltoallw(s, IC, ID, sts, r, IC, ID, rts, c),
             MPI_Ialltoallw(s, IC, ID, sts, r, IC, ID, rts, c, &rq),
             MPI_Alltoallw_init(s, IC, ID, sts, r, IC, ID, rts, c, pinfo, &rq),
             MPI_Alltoallw_c(s, CC, AD, sts, r, CC, AD, rts, c),
             MPI_Ialltoallw_c(s, CC, AD, sts, r, CC, AD, rts, c, &rq),
             MPI_Alltoallw_init_c(s, CC, AD, sts, r, CC, AD, rts, c, pinfo, &rq));
}
static int reduce(int f, cv s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, int root,
                  MPI_Comm c)
{
    DISPATCH(MPI_Reduce(s, r, (int)n, t, op, root, c),
             MPI_Ireduce(s, r, (int)n, t, op, root, c, &rq),
             MPI_Reduce_init(s, r, (int)n, t, op, root, c, pinfo, &rq),
             MPI_Reduce_c(s, r, n, t, op, root, c), MPI_Ireduce_c(s, r, n, t, op, root, c, &rq),
             MPI_Reduce_init_c(s, r, n, t, op, root, c, pinfo, &rq));
}
static int allreduce(int f, cv s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    DISPATCH(MPI_Allreduce(s, r, (int)n, t, op, c), MPI_Iallreduce(s, r, (int)n, t, op, c, &rq),
             MPI_Allreduce_init(s, r, (int)n, t, op, c, pinfo, &rq),
             MPI_Allreduce_c(s, r, n, t, op, c), MPI_Iallreduce_c(s, r, n, t, op, c, &rq),
             MPI_Allreduce_init_c(s, r, n, t, op, c, pinfo, &rq));
}
static int reduce_scatter(int f, cv s, void *r, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    DISPATCH(MPI_Reduce_scatter(s, r, IC, t, op, c), MPI_Ireduce_scatter(s, r, IC, t, op, c, &rq),
             MPI_Reduce_scatter_init(s, r, IC, t, op, c, pinfo, &rq),
             MPI_Reduce_scatter_c(s, r, CC, t, op, c),
             MPI_Ireduce_scatter_c(s, r, CC, t, op, c, &rq),
             MPI_Reduce_scatter_init_c(s, r, CC, t, op, c, pinfo, &rq));
}
static int reduce_scatter_block(int f, cv s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op,
                                MPI_Comm c)
{
    DISPATCH(MPI_Reduce_scatter_block(s, r, (int)n, t, op, c),
             MPI_Ireduce_scatter_block(s, r, (int)n, t, op, c, &rq),
             MPI_Reduce_scatter_block_init(s, r, (int)n, t, op, c, pinfo, &rq),
             MPI_Reduce_scatter_block_c(s, r, n, t, op, c),
             MPI_Ireduce_scatter_block_c(s, r, n, t, op, c, &rq),
             MPI_Reduce_scatter_block_init_c(s, r, n, t, op, c, pinfo, &rq));
}
static int scan(int f, cv s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    DISPATCH(MPI_Scan(s, r, (int)n, t, op, c), MPI_Iscan(s, r, (int)n, t, op, c, &rq),
             MPI_Scan_init(s, r, (int)n, t, op, c, pinfo, &rq), MPI_Scan_c(s, r, n, t, op, c),
             MPI_Iscan_c(s, r, n, t, op, c, &rq), MPI_Scan_init_c(s, r, n, t, op, c, pinfo, &rq));
}
static int exscan(int f, cv s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    DISPATCH(MPI_Exscan(s, r, (int)n, t, op, c), MPI_Iexscan(s, r, (int)n, t, op, c, &rq),
             MPI_Exscan_init(s, r, (int)n, t, op, c, pinfo, &rq),
             MPI_Exscan_c(s, r, n, t, op, c), MPI_Iexscan_c(s, r, n, t, op, c, &rq),
             MPI_Exscan_init_c(s, r, n, t, op, c, pinfo, &rq));
}
static int nb_allgather(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                        MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Neighbor_allgather(s, (int)sn, st_, r, (int)rn, rt, c),
             MPI_Ineighbor_allgather(s, (int)sn, st_, r, (int)rn, rt, c, &rq),
             MPI_Neighbor_allgather_init(s, (int)sn, st_, r, (int)rn, rt, c, pinfo, &rq),
             MPI_Neighbor_allgather_c(s, sn, st_, r, rn, rt, c),
             MPI_Ineighbor_allgather_c(s, sn, st_, r, rn, rt, c, &rq),
             MPI_Neighbor_allgather_init_c(s, sn, st_, r, rn, rt, c, pinfo, &rq));
}
static int nb_allgatherv(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Datatype rt,
                         MPI_Comm c)
{
    DISPATCH(MPI_Neighbor_allgatherv(s, (int)sn, st_, r, IC, ID, rt, c),
             MPI_Ineighbor_allgatherv(s, (int)sn, st_, r, IC, ID, rt, c, &rq),
             MPI_Neighbor_allgatherv_init(s, (int)sn, st_, r, IC, ID, rt, c, pinfo, &rq),
             MPI_Neighbor_allgatherv_c(s, sn, st_, r, CC, AD, rt, c),
             MPI_Ineighbor_allgatherv_c(s, sn, st_, r, CC, AD, rt, c, &rq),
             MPI_Neighbor_allgatherv_init_c(s, sn, st_, r, CC, AD, rt, c, pinfo, &rq));
}
static int nb_alltoall(int f, cv s, MPI_Count sn, MPI_Datatype st_, void *r, MPI_Count rn,
                       MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Neighbor_alltoall(s, (int)sn, st_, r, (int)rn, rt, c),
             MPI_Ineighbor_alltoall(s, (int)sn, st_, r, (int)rn, rt, c, &rq),
             MPI_Neighbor_alltoall_init(s, (int)sn, st_, r, (int)rn, rt, c, pinfo, &rq),
             MPI_Neighbor_alltoall_c(s, sn, st_, r, rn, rt, c),
             MPI_Ineighbor_alltoall_c(s, sn, st_, r, rn, rt, c, &rq),
             MPI_Neighbor_alltoall_init_c(s, sn, st_, r, rn, rt, c, pinfo, &rq));
}
static int nb_alltoallv(int f, cv s, MPI_Datatype st_, void *r, MPI_Datatype rt, MPI_Comm c)
{
    DISPATCH(MPI_Neighbor_alltoallv(s, IC, ID, st_, r, IC, ID, rt, c),
             MPI_Ineighbor_alltoallv(s, IC, ID, st_, r, IC, ID, rt, c, &rq),
             MPI_Neighbor_alltoallv_init(s, IC, ID, st_, r, IC, ID, rt, c, pinfo, &rq),
             MPI_Neighbor_alltoallv_c(s, CC, AD, st_, r, CC, AD, rt, c),
             MPI_Ineighbor_alltoallv_c(s, CC, AD, st_, r, CC, AD, rt, c, &rq),
             MPI_Neighbor_alltoallv_init_c(s, CC, AD, st_, r, CC, AD, rt, c, pinfo, &rq));
}
static int nb_alltoallw(int f, cv s, const MPI_Datatype *sts, void *r, const MPI_Datatype *rts,
                        MPI_Comm c)
{
    DISPATCH(MPI_Neighbor_alltoallw(s, IC, AD, sts, r, IC, AD, rts, c),
             MPI_Ineighbor_alltoallw(s, IC, AD, sts, r, IC, AD, rts, c, &rq),
             MPI_Neighbor_alltoallw_init(s, IC, AD, sts, r, IC, AD, rts, c, pinfo, &rq),
             MPI_Neighbor_alltoallw_c(s, CC, AD, sts, r, CC, AD, rts, c),
             MPI_Ineighbor_alltoallw_c(s, CC, AD, sts, r, CC, AD, rts, c, &rq),
             MPI_Neighbor_alltoallw_init_c(s, CC, AD, sts, r, CC, AD, rts, c, pinfo, &rq));
}

/* Counts and displacements arrays given as NULL: MPI_ERR_ARG (or COUNT). */
#define NULLARR(call) do { nullarr = true; EF2(MPI_ERR_ARG, MPI_ERR_COUNT, call); nullarr = false; } while (0)

static void test_rooted(void)
{
    MPI_Comm bc;
    MPI_Datatype bt;
    int n = t_size;
    int *sb = ibuf, *rb = ibuf2;
    FOR_BAD(badcomm, bc) EFN(3, MPI_ERR_COMM, MPI_ERR_COMM, barrier(f, bc));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, bcast(f, sb, 1, MPI_INT, 0, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, bcast(f, sb, 1, bt, 0, W));
    EF(MPI_ERR_TYPE, bcast(f, sb, 1, uncommitted_t, 0, W));
    EF(MPI_ERR_COUNT, bcast(f, sb, -1, MPI_INT, 0, W));
    EF(MPI_ERR_ROOT, bcast(f, sb, 1, MPI_INT, n, W));
    EF(MPI_ERR_ROOT, bcast(f, sb, 1, MPI_INT, -7, W));
    EF(MPI_ERR_BUFFER, bcast(f, NULL, 1, MPI_INT, 0, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, gather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, 0, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, gather(f, sb, 1, bt, rb, 1, MPI_INT, 0, W));
    EF(MPI_ERR_COUNT, gather(f, sb, -1, MPI_INT, rb, 1, MPI_INT, 0, W));
    EF(MPI_ERR_ROOT, gather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, n, W));
    EF(MPI_ERR_BUFFER, gather(f, NULL, 1, MPI_INT, rb, 1, MPI_INT, 0, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, gather(f, sb, 1, MPI_INT, rb, 1, bt, 0, S));
    EF(MPI_ERR_COUNT, gather(f, sb, 1, MPI_INT, rb, -1, MPI_INT, 0, S));
    EF(MPI_ERR_BUFFER, gather(f, sb, 1, MPI_INT, NULL, 1, MPI_INT, 0, S));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, gatherv(f, sb, 1, MPI_INT, rb, MPI_INT, 0, bc));
    EF(MPI_ERR_COUNT, gatherv(f, sb, -1, MPI_INT, rb, MPI_INT, 0, W));
    EF(MPI_ERR_ROOT, gatherv(f, sb, 1, MPI_INT, rb, MPI_INT, n, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, gatherv(f, sb, 1, bt, rb, MPI_INT, 0, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, gatherv(f, sb, 1, MPI_INT, rb, bt, 0, S));
    NULLARR(gatherv(f, sb, 1, MPI_INT, rb, MPI_INT, 0, S));
    EF(MPI_ERR_BUFFER, gatherv(f, sb, 1, MPI_INT, NULL, MPI_INT, 0, S));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, scatter(f, sb, 1, MPI_INT, rb, 1, MPI_INT, 0, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, scatter(f, sb, 1, MPI_INT, rb, 1, bt, 0, W));
    EF(MPI_ERR_COUNT, scatter(f, sb, 1, MPI_INT, rb, -1, MPI_INT, 0, W));
    EF(MPI_ERR_ROOT, scatter(f, sb, 1, MPI_INT, rb, 1, MPI_INT, -7, W));
    EF(MPI_ERR_BUFFER, scatter(f, sb, 1, MPI_INT, NULL, 1, MPI_INT, 0, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, scatter(f, sb, 1, bt, rb, 1, MPI_INT, 0, S));
    EF(MPI_ERR_COUNT, scatter(f, sb, -1, MPI_INT, rb, 1, MPI_INT, 0, S));
    EF(MPI_ERR_BUFFER, scatter(f, NULL, 1, MPI_INT, rb, 1, MPI_INT, 0, S));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, scatterv(f, sb, MPI_INT, rb, 1, MPI_INT, 0, bc));
    EF(MPI_ERR_COUNT, scatterv(f, sb, MPI_INT, rb, -1, MPI_INT, 0, W));
    EF(MPI_ERR_ROOT, scatterv(f, sb, MPI_INT, rb, 1, MPI_INT, n, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, scatterv(f, sb, MPI_INT, rb, 1, bt, 0, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, scatterv(f, sb, bt, rb, 1, MPI_INT, 0, S));
    NULLARR(scatterv(f, sb, MPI_INT, rb, 1, MPI_INT, 0, S));
}

static void test_all(void)
{
    MPI_Comm bc;
    MPI_Datatype bt;
    int *sb = ibuf, *rb = ibuf2;
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, allgather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, allgather(f, sb, 1, bt, rb, 1, MPI_INT, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, allgather(f, sb, 1, MPI_INT, rb, 1, bt, W));
    EF(MPI_ERR_COUNT, allgather(f, sb, -1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_COUNT, allgather(f, sb, 1, MPI_INT, rb, -1, MPI_INT, W));
    EF(MPI_ERR_BUFFER, allgather(f, NULL, 1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_BUFFER, allgather(f, sb, 1, MPI_INT, NULL, 1, MPI_INT, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, allgatherv(f, sb, 1, MPI_INT, rb, MPI_INT, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, allgatherv(f, sb, 1, MPI_INT, rb, bt, W));
    EF(MPI_ERR_COUNT, allgatherv(f, sb, -1, MPI_INT, rb, MPI_INT, W));
    NULLARR(allgatherv(f, sb, 1, MPI_INT, rb, MPI_INT, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, alltoall(f, sb, 1, MPI_INT, rb, 1, MPI_INT, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, alltoall(f, sb, 1, bt, rb, 1, MPI_INT, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, alltoall(f, sb, 1, MPI_INT, rb, 1, bt, W));
    EF(MPI_ERR_COUNT, alltoall(f, sb, -1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_BUFFER, alltoall(f, NULL, 1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_BUFFER, alltoall(f, sb, 1, MPI_INT, NULL, 1, MPI_INT, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, alltoallv(f, sb, MPI_INT, rb, MPI_INT, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, alltoallv(f, sb, bt, rb, MPI_INT, W));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, alltoallv(f, sb, MPI_INT, rb, bt, W));
    NULLARR(alltoallv(f, sb, MPI_INT, rb, MPI_INT, W));

    MPI_Datatype badtys[8];
    for (int i = 0; i < 8; i++) badtys[i] = i == t_size - 1 ? MPI_DATATYPE_NULL : MPI_INT;
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, alltoallw(f, sb, tys_, rb, tys_, bc));
    EF(MPI_ERR_TYPE, alltoallw(f, sb, badtys, rb, tys_, W));
    EF(MPI_ERR_TYPE, alltoallw(f, sb, tys_, rb, badtys, W));
    NULLARR(alltoallw(f, sb, tys_, rb, tys_, W));
    EF(MPI_ERR_ARG, alltoallw(f, sb, NULL, rb, tys_, W));
}

static void test_reductions(void)
{
    MPI_Comm bc;
    MPI_Datatype bt;
    MPI_Op bo;
    int n = t_size;
    int *sb = ibuf, *rb = ibuf2;
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, reduce(f, sb, rb, 1, MPI_INT, MPI_SUM, 0, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, reduce(f, sb, rb, 1, bt, MPI_SUM, 0, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, reduce(f, sb, rb, 1, MPI_INT, bo, 0, W));
    EF(MPI_ERR_COUNT, reduce(f, sb, rb, -1, MPI_INT, MPI_SUM, 0, W));
    EF(MPI_ERR_ROOT, reduce(f, sb, rb, 1, MPI_INT, MPI_SUM, n, W));
    EF(MPI_ERR_BUFFER, reduce(f, NULL, rb, 1, MPI_INT, MPI_SUM, 0, W));
    EF(MPI_ERR_BUFFER, reduce(f, sb, NULL, 1, MPI_INT, MPI_SUM, 0, S));
    EF(MPI_ERR_OP, reduce(f, sb, rb, 1, MPI_BYTE, MPI_PROD, 0, W)); /* op not defined on type */

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, allreduce(f, sb, rb, 1, MPI_INT, MPI_SUM, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, allreduce(f, sb, rb, 1, bt, MPI_SUM, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, allreduce(f, sb, rb, 1, MPI_INT, bo, W));
    EF(MPI_ERR_COUNT, allreduce(f, sb, rb, -1, MPI_INT, MPI_SUM, W));
    EF(MPI_ERR_BUFFER, allreduce(f, NULL, rb, 1, MPI_INT, MPI_SUM, W));
    EF(MPI_ERR_BUFFER, allreduce(f, sb, NULL, 1, MPI_INT, MPI_SUM, W));
    EF(MPI_ERR_OP, allreduce(f, sb, rb, 1, MPI_BYTE, MPI_SUM, W));
    EF(MPI_ERR_OP, allreduce(f, sb, rb, 1, MPI_INT, MPI_MAXLOC, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, reduce_scatter(f, sb, rb, MPI_INT, MPI_SUM, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, reduce_scatter(f, sb, rb, bt, MPI_SUM, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, reduce_scatter(f, sb, rb, MPI_INT, bo, W));
    NULLARR(reduce_scatter(f, sb, rb, MPI_INT, MPI_SUM, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, reduce_scatter_block(f, sb, rb, 1, MPI_INT, MPI_SUM, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, reduce_scatter_block(f, sb, rb, 1, bt, MPI_SUM, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, reduce_scatter_block(f, sb, rb, 1, MPI_INT, bo, W));
    EF(MPI_ERR_COUNT, reduce_scatter_block(f, sb, rb, -1, MPI_INT, MPI_SUM, W));

    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, scan(f, sb, rb, 1, MPI_INT, MPI_SUM, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, scan(f, sb, rb, 1, bt, MPI_SUM, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, scan(f, sb, rb, 1, MPI_INT, bo, W));
    EF(MPI_ERR_COUNT, scan(f, sb, rb, -1, MPI_INT, MPI_SUM, W));
    EF(MPI_ERR_BUFFER, scan(f, NULL, rb, 1, MPI_INT, MPI_SUM, W));
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, exscan(f, sb, rb, 1, MPI_INT, MPI_SUM, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, exscan(f, sb, rb, 1, bt, MPI_SUM, W));
    FOR_BAD(badop, bo) EF(MPI_ERR_OP, exscan(f, sb, rb, 1, MPI_INT, bo, W));
    EF(MPI_ERR_COUNT, exscan(f, sb, rb, -1, MPI_INT, MPI_SUM, W));

    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Reduce_local(sb, rb, 1, bt, MPI_SUM));
    FOR_BAD(badop, bo) E(MPI_ERR_OP, MPI_Reduce_local(sb, rb, 1, MPI_INT, bo));
    E(MPI_ERR_COUNT, MPI_Reduce_local(sb, rb, -1, MPI_INT, MPI_SUM));
    E(MPI_ERR_BUFFER, MPI_Reduce_local(NULL, rb, 1, MPI_INT, MPI_SUM));
    E(MPI_ERR_BUFFER, MPI_Reduce_local(sb, NULL, 1, MPI_INT, MPI_SUM));
    E(MPI_ERR_OP, MPI_Reduce_local(sb, rb, 1, MPI_INT, MPI_MINLOC));
    E(MPI_ERR_COUNT, MPI_Reduce_local_c(sb, rb, -1, MPI_INT, MPI_SUM));

    /* user ops */
    MPI_Op op;
    E(MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
    E(MPI_ERR_ARG, MPI_Op_create(sum_fn, 1, NULL));
    E(MPI_ERR_ARG, MPI_Op_create_c(NULL, 1, &op));
    E(MPI_ERR_ARG, MPI_Op_create_c(sum_fn_c, 1, NULL));
    op = MPI_SUM;
    E(MPI_ERR_OP, MPI_Op_free(&op)); /* predefined */
    FOR_BAD(badop, bo) { op = bo; E(MPI_ERR_OP, MPI_Op_free(&op)); }
    E(MPI_ERR_ARG, MPI_Op_free(NULL));
    FOR_BAD(badop, bo) E(MPI_ERR_OP, MPI_Op_commutative(bo, &flag));
    E(MPI_ERR_ARG, MPI_Op_commutative(MPI_SUM, NULL));
}

static void test_neighbor(void)
{
    MPI_Comm bc;
    MPI_Datatype bt;
    int *sb = ibuf, *rb = ibuf2;
    const MPI_Comm C = cartcomm; /* 1-D, not periodic: two neighbours at most */
    /* no topology on MPI_COMM_WORLD */
    EF(MPI_ERR_TOPOLOGY, nb_allgather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_TOPOLOGY, nb_allgatherv(f, sb, 1, MPI_INT, rb, MPI_INT, W));
    EF(MPI_ERR_TOPOLOGY, nb_alltoall(f, sb, 1, MPI_INT, rb, 1, MPI_INT, W));
    EF(MPI_ERR_TOPOLOGY, nb_alltoallv(f, sb, MPI_INT, rb, MPI_INT, W));
    EF(MPI_ERR_TOPOLOGY, nb_alltoallw(f, sb, tys_, rb, tys_, W));
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, nb_allgather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, bc));
    FOR_BAD(badcomm, bc) EF(MPI_ERR_COMM, nb_alltoallw(f, sb, tys_, rb, tys_, bc));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, nb_allgather(f, sb, 1, bt, rb, 1, MPI_INT, C));
    EF(MPI_ERR_COUNT, nb_allgather(f, sb, -1, MPI_INT, rb, 1, MPI_INT, C));
    EF(MPI_ERR_BUFFER, nb_allgather(f, NULL, 1, MPI_INT, rb, 1, MPI_INT, C));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, nb_allgatherv(f, sb, 1, MPI_INT, rb, bt, C));
    EF(MPI_ERR_COUNT, nb_allgatherv(f, sb, -1, MPI_INT, rb, MPI_INT, C));
    NULLARR(nb_allgatherv(f, sb, 1, MPI_INT, rb, MPI_INT, C));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, nb_alltoall(f, sb, 1, MPI_INT, rb, 1, bt, C));
    EF(MPI_ERR_COUNT, nb_alltoall(f, sb, 1, MPI_INT, rb, -1, MPI_INT, C));
    FOR_BAD(badtype, bt) EF(MPI_ERR_TYPE, nb_alltoallv(f, sb, bt, rb, MPI_INT, C));
    NULLARR(nb_alltoallv(f, sb, MPI_INT, rb, MPI_INT, C));
    MPI_Datatype badtys[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    EF(MPI_ERR_TYPE, nb_alltoallw(f, sb, badtys, rb, tys_, C));
    NULLARR(nb_alltoallw(f, sb, tys_, rb, tys_, C));
}

/* Persistent forms: the info argument; nonblocking forms: the request. */
#define EFP(want, call)                                                         \
    do {                                                                        \
        const char *l_ = bad_label;                                             \
        for (int k_ = 0; k_ < 2; k_++) {                                        \
            int f = k_ ? F_PC : F_P;                                            \
            bad_label = l_;                                                     \
            form_note = form_name[f];                                           \
            chk(#call, __LINE__, (call), (want), (want), (want));               \
        }                                                                       \
        form_note = "";                                                         \
    } while (0)

static void test_forms(void)
{
    MPI_Info bi;
    int *sb = ibuf, *rb = ibuf2;
    FOR_BAD(badinfo, bi) {
        pinfo = bi;
        { const char *l_ = bad_label; E(MPI_ERR_INFO, barrier(F_P, W)); bad_label = l_; }
        EFP(MPI_ERR_INFO, bcast(f, sb, 1, MPI_INT, 0, W));
        EFP(MPI_ERR_INFO, gather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, 0, W));
        EFP(MPI_ERR_INFO, allreduce(f, sb, rb, 1, MPI_INT, MPI_SUM, W));
        EFP(MPI_ERR_INFO, alltoall(f, sb, 1, MPI_INT, rb, 1, MPI_INT, W));
        EFP(MPI_ERR_INFO, nb_allgather(f, sb, 1, MPI_INT, rb, 1, MPI_INT, cartcomm));
    }
    pinfo = MPI_INFO_NULL;
    E(MPI_ERR_ARG, MPI_Ibarrier(W, NULL));
    E(MPI_ERR_ARG, MPI_Ibcast(sb, 1, MPI_INT, 0, W, NULL));
    E(MPI_ERR_ARG, MPI_Iallreduce(sb, rb, 1, MPI_INT, MPI_SUM, W, NULL));
    E(MPI_ERR_ARG, MPI_Barrier_init(W, MPI_INFO_NULL, NULL));
    E(MPI_ERR_ARG, MPI_Allreduce_init(sb, rb, 1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, NULL));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    setup();
    test_rooted();
    test_all();
    test_reductions();
    test_neighbor();
    test_forms();
    return et_finish("errors_table_coll");
}
