/* coll_bigcount.c: the large-count (_c) collectives with MPI_Count counts
 * and MPI_Aint displacements, each in its blocking, nonblocking and
 * persistent form, on small data checked against a reference: Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w), Reduce, Allreduce,
 * Reduce_scatter(_block), Scan, Exscan, Reduce_local, and the neighbourhood
 * collectives on a periodic ring. */
#include "common.h"

static int form; /* 0 blocking, 1 nonblocking, 2 persistent */

#define COLL(NAME, INAME, ...)                                                       \
    do {                                                                             \
        MPI_Request rq_ = MPI_REQUEST_NULL;                                          \
        if (form == 0) MPI_CHK(MPI_##NAME##_c(__VA_ARGS__));                         \
        else if (form == 1) MPI_CHK(MPI_##INAME##_c(__VA_ARGS__, &rq_));              \
        else {                                                                       \
            MPI_CHK(MPI_##NAME##_init_c(__VA_ARGS__, MPI_INFO_NULL, &rq_));          \
            MPI_CHK(MPI_Start(&rq_));                                                \
        }                                                                            \
        if (form) MPI_CHK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                        \
        if (form == 2) MPI_CHK(MPI_Request_free(&rq_));                              \
    } while (0)

#define N 5
static int val(int r, int i) { return r * 1000 + i; }

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int p = t_size, me = t_rank;
    int pa = p < 2 ? 2 : p; /* arrays also serve the ring's two neighbours */
    MPI_Comm w = MPI_COMM_WORLD;
    int *sb = t_malloc((size_t)N * pa * sizeof(int)), *rb = t_malloc((size_t)(N + 1) * pa * sizeof(int));
    MPI_Count *cnt = t_malloc((size_t)pa * sizeof(MPI_Count));
    MPI_Aint *dsp = t_malloc((size_t)pa * sizeof(MPI_Aint)), *bdsp = t_malloc((size_t)pa * sizeof(MPI_Aint));
    MPI_Datatype *ty = t_malloc((size_t)pa * sizeof(MPI_Datatype));
    for (int j = 0; j < pa; j++) {
        cnt[j] = N;
        dsp[j] = (MPI_Aint)j * (N + 1); /* a gap after each block */
        bdsp[j] = dsp[j] * (MPI_Aint)sizeof(int);
        ty[j] = MPI_INT;
    }
#define FILL_S(f) for (int i_ = 0; i_ < N * pa; i_++) sb[i_] = (f)
#define CLEAR_R() for (int i_ = 0; i_ < (N + 1) * pa; i_++) rb[i_] = -1
    long sum[N];
    for (int i = 0; i < N; i++) {
        sum[i] = 0;
        for (int q = 0; q < p; q++) sum[i] += val(q, i);
    }

    for (form = 0; form < 3; form++) {
        int root = p - 1;
        /* bcast */
        for (int i = 0; i < N; i++) rb[i] = me == root ? val(root, i) : -1;
        COLL(Bcast, Ibcast, rb, (MPI_Count)N, MPI_INT, root, w);
        for (int i = 0; i < N; i++) CHECK(rb[i] == val(root, i), "bcast_c form %d", form);
        /* gather, gatherv */
        FILL_S(val(me, i_ % N));
        CLEAR_R();
        COLL(Gather, Igather, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, root, w);
        if (me == root)
            for (int i = 0; i < N * p; i++) CHECK(rb[i] == val(i / N, i % N), "gather_c form %d", form);
        CLEAR_R();
        COLL(Gatherv, Igatherv, sb, (MPI_Count)N, MPI_INT, rb, cnt, dsp, MPI_INT, root, w);
        if (me == root)
            for (int q = 0; q < p; q++)
                for (int i = 0; i <= N; i++)
                    CHECK(rb[q * (N + 1) + i] == (i < N ? val(q, i) : -1), "gatherv_c form %d", form);
        /* scatter, scatterv */
        FILL_S(val(i_ / N, i_ % N));
        CLEAR_R();
        COLL(Scatter, Iscatter, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, root, w);
        for (int i = 0; i < N; i++) CHECK(rb[i] == val(me, i), "scatter_c form %d", form);
        int *vb = t_malloc((size_t)(N + 1) * p * sizeof(int));
        for (int q = 0; q < p; q++)
            for (int i = 0; i <= N; i++) vb[q * (N + 1) + i] = i < N ? val(q, i) : -9;
        CLEAR_R();
        COLL(Scatterv, Iscatterv, vb, cnt, dsp, MPI_INT, rb, (MPI_Count)N, MPI_INT, root, w);
        for (int i = 0; i <= N; i++) CHECK(rb[i] == (i < N ? val(me, i) : -1), "scatterv_c form %d", form);
        free(vb);
        /* allgather, allgatherv */
        FILL_S(val(me, i_ % N));
        CLEAR_R();
        COLL(Allgather, Iallgather, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, w);
        for (int i = 0; i < N * p; i++) CHECK(rb[i] == val(i / N, i % N), "allgather_c form %d", form);
        CLEAR_R();
        COLL(Allgatherv, Iallgatherv, sb, (MPI_Count)N, MPI_INT, rb, cnt, dsp, MPI_INT, w);
        for (int q = 0; q < p; q++)
            for (int i = 0; i <= N; i++)
                CHECK(rb[q * (N + 1) + i] == (i < N ? val(q, i) : -1), "allgatherv_c form %d", form);
        /* alltoall(v,w): block for rank j holds val(me * 64 + j, i) */
        FILL_S(val(me * 64 + i_ / N, i_ % N));
        CLEAR_R();
        COLL(Alltoall, Ialltoall, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, w);
        for (int i = 0; i < N * p; i++)
            CHECK(rb[i] == val((i / N) * 64 + me, i % N), "alltoall_c form %d", form);
        MPI_Aint *sd = t_malloc((size_t)p * sizeof(MPI_Aint)), *sdb = t_malloc((size_t)p * sizeof(MPI_Aint));
        for (int j = 0; j < p; j++) sd[j] = (MPI_Aint)j * N, sdb[j] = sd[j] * (MPI_Aint)sizeof(int);
        CLEAR_R();
        COLL(Alltoallv, Ialltoallv, sb, cnt, sd, MPI_INT, rb, cnt, dsp, MPI_INT, w);
        for (int q = 0; q < p; q++)
            for (int i = 0; i <= N; i++)
                CHECK(rb[q * (N + 1) + i] == (i < N ? val(q * 64 + me, i) : -1), "alltoallv_c form %d", form);
        CLEAR_R();
        COLL(Alltoallw, Ialltoallw, sb, cnt, sdb, ty, rb, cnt, bdsp, ty, w);
        for (int q = 0; q < p; q++)
            for (int i = 0; i <= N; i++)
                CHECK(rb[q * (N + 1) + i] == (i < N ? val(q * 64 + me, i) : -1), "alltoallw_c form %d", form);
        free(sd);
        free(sdb);
        /* reductions */
        FILL_S(val(me, i_ % N));
        CLEAR_R();
        COLL(Reduce, Ireduce, sb, rb, (MPI_Count)N, MPI_INT, MPI_SUM, root, w);
        if (me == root)
            for (int i = 0; i < N; i++) CHECK(rb[i] == sum[i], "reduce_c form %d", form);
        CLEAR_R();
        COLL(Allreduce, Iallreduce, sb, rb, (MPI_Count)N, MPI_INT, MPI_SUM, w);
        for (int i = 0; i < N; i++) CHECK(rb[i] == sum[i], "allreduce_c form %d", form);
        CLEAR_R();
        COLL(Scan, Iscan, sb, rb, (MPI_Count)N, MPI_INT, MPI_SUM, w);
        for (int i = 0; i < N; i++) {
            long s = 0;
            for (int q = 0; q <= me; q++) s += val(q, i);
            CHECK(rb[i] == s, "scan_c form %d", form);
        }
        CLEAR_R();
        COLL(Exscan, Iexscan, sb, rb, (MPI_Count)N, MPI_INT, MPI_SUM, w);
        for (int i = 0; i < N && me > 0; i++) {
            long s = 0;
            for (int q = 0; q < me; q++) s += val(q, i);
            CHECK(rb[i] == s, "exscan_c form %d", form);
        }
        FILL_S(val(me, i_));
        CLEAR_R();
        COLL(Reduce_scatter_block, Ireduce_scatter_block, sb, rb, (MPI_Count)N, MPI_INT, MPI_SUM, w);
        for (int i = 0; i < N; i++) {
            long s = 0;
            for (int q = 0; q < p; q++) s += val(q, me * N + i);
            CHECK(rb[i] == s, "reduce_scatter_block_c form %d", form);
        }
        CLEAR_R();
        COLL(Reduce_scatter, Ireduce_scatter, sb, rb, cnt, MPI_INT, MPI_SUM, w);
        for (int i = 0; i < N; i++) {
            long s = 0;
            for (int q = 0; q < p; q++) s += val(q, me * N + i);
            CHECK(rb[i] == s, "reduce_scatter_c form %d", form);
        }
        /* neighbourhood collectives on a periodic ring */
        MPI_Comm ring;
        int dims = p, per = 1;
        MPI_CHK(MPI_Cart_create(w, 1, &dims, &per, 0, &ring));
        int left = (me - 1 + p) % p, right = (me + 1) % p;
        FILL_S(val(me * 64 + i_ / N, i_ % N));
        CLEAR_R();
        COLL(Neighbor_allgather, Ineighbor_allgather, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, ring);
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == val(left * 64, i) && rb[N + i] == val(right * 64, i), "neighbor_allgather_c form %d", form);
        CLEAR_R();
        COLL(Neighbor_alltoall, Ineighbor_alltoall, sb, (MPI_Count)N, MPI_INT, rb, (MPI_Count)N, MPI_INT, ring);
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == val(left * 64 + 1, i) && rb[N + i] == val(right * 64, i), "neighbor_alltoall_c form %d", form);
        MPI_Aint nd[2] = { 0, N + 1 }, nsd[2] = { 0, N }, nbd[2] = { 0, (N + 1) * (MPI_Aint)sizeof(int) },
                 nsbd[2] = { 0, N * (MPI_Aint)sizeof(int) };
        CLEAR_R();
        COLL(Neighbor_allgatherv, Ineighbor_allgatherv, sb, (MPI_Count)N, MPI_INT, rb, cnt, nd, MPI_INT, ring);
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == val(left * 64, i) && rb[N + 1 + i] == val(right * 64, i), "neighbor_allgatherv_c form %d", form);
        CLEAR_R();
        COLL(Neighbor_alltoallv, Ineighbor_alltoallv, sb, cnt, nsd, MPI_INT, rb, cnt, nd, MPI_INT, ring);
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == val(left * 64 + 1, i) && rb[N + 1 + i] == val(right * 64, i), "neighbor_alltoallv_c form %d", form);
        CLEAR_R();
        COLL(Neighbor_alltoallw, Ineighbor_alltoallw, sb, cnt, nsbd, ty, rb, cnt, nbd, ty, ring);
        for (int i = 0; i < N; i++)
            CHECK(rb[i] == val(left * 64 + 1, i) && rb[N + 1 + i] == val(right * 64, i), "neighbor_alltoallw_c form %d", form);
        MPI_CHK(MPI_Comm_free(&ring));
    }
    int in[3] = { 1, 2, 3 }, io[3] = { 10, 20, 30 };
    MPI_CHK(MPI_Reduce_local_c(in, io, (MPI_Count)3, MPI_INT, MPI_SUM));
    CHECK(io[0] == 11 && io[1] == 22 && io[2] == 33, "reduce_local_c");
    free(sb);
    free(rb);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(ty);
    return t_finish();
}
