/* coll_inter_multi.c: many nonblocking collectives outstanding at once on
 * intercommunicators, completed in an order that differs between ranks
 * (MPI 4.1 sec. 6.12: started in the same order everywhere, completed in
 * any order). The intercommunicators are made three ways: MPI_Intercomm_
 * create, MPI_Comm_create on a duplicate of it (every process but the
 * high group's first), and MPI_Comm_split of it (odd and even world
 * ranks), so collectives are run on the results of the new constructors.
 * Per intercommunicator: Ibcast from a root in each group, Iallreduce,
 * Ireduce, Iallgather, Ialltoall, Ireduce_scatter_block,
 * Igather and Iscatter, Ibarrier, an Iallgatherv with counts by rank,
 * checked against values computed from world ranks. Issue 22 (1). */
#include "common.h"

#define NOPS 12

static int lsize, rsize, lrank, high; /* high: my group is B (see run) */
static int lw[64], rw[64];             /* world ranks of the local and remote groups */

static void groups_of(MPI_Comm ic)
{
    MPI_Group g, w;
    int idx[64];
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    for (int i = 0; i < 64; i++) idx[i] = i;
    MPI_CHK(MPI_Comm_group(ic, &g));
    MPI_CHK(MPI_Group_translate_ranks(g, lsize, idx, w, lw));
    MPI_CHK(MPI_Group_free(&g));
    MPI_CHK(MPI_Comm_remote_group(ic, &g));
    MPI_CHK(MPI_Group_translate_ranks(g, rsize, idx, w, rw));
    MPI_CHK(MPI_Group_free(&g));
    MPI_CHK(MPI_Group_free(&w));
}

static void run(MPI_Comm ic, const char *what)
{
    MPI_CHK(MPI_Comm_size(ic, &lsize));
    MPI_CHK(MPI_Comm_remote_size(ic, &rsize));
    MPI_CHK(MPI_Comm_rank(ic, &lrank));
    groups_of(ic);
    high = lw[0] > rw[0]; /* group A holds the lower first world rank */
    int me = t_rank;
    int bc[2] = {-1, -1}, ar = 0, rd = -1, ag[64], a2a_s[64], a2a_r[64];
    int ga[64], sc_s[64], sc = -1, agv[64 * 3], agv_counts[64], agv_displs[64];
    for (int i = 0; i < rsize; i++) a2a_s[i] = me * 100 + rw[i];
    for (int i = 0; i < rsize; i++) sc_s[i] = 1000 + rw[i];
    int nagv = 1 + me % 3, agv_s[3] = {me, me, me}, tot = 0; /* counts known to all */
    for (int i = 0; i < rsize; i++) {
        agv_counts[i] = 1 + rw[i] % 3;
        agv_displs[i] = tot;
        tot += agv_counts[i];
    }
    MPI_Request r[NOPS];
    int n = 0;
    /* Ibcast rooted in group A at its rank 0, then in group B at its last */
    for (int g = 0; g < 2; g++) {
        int in_root_group = high == g;
        int root_rank = g == 0 ? 0 : (in_root_group ? lsize : rsize) - 1;
        int root = in_root_group ? (lrank == root_rank ? MPI_ROOT : MPI_PROC_NULL) : root_rank;
        if (root == MPI_ROOT) bc[g] = 500 + g;
        MPI_CHK(MPI_Ibcast(&bc[g], 1, MPI_INT, root, ic, &r[n++]));
    }
    MPI_CHK(MPI_Iallreduce(&me, &ar, 1, MPI_INT, MPI_SUM, ic, &r[n++]));
    { /* Ireduce to group B's rank 0 */
        int root = high ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_CHK(MPI_Ireduce(&me, &rd, 1, MPI_INT, MPI_MAX, root, ic, &r[n++]));
    }
    MPI_CHK(MPI_Iallgather(&me, 1, MPI_INT, ag, 1, MPI_INT, ic, &r[n++]));
    MPI_CHK(MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, ic, &r[n++]));
    MPI_CHK(MPI_Ibarrier(ic, &r[n++]));
    /* reduce_scatter_block (6.11.2): each group's vectors have local size x
     * recvcount elements, the same number in both groups; the sum of the
     * other group's vectors is scattered in blocks of recvcount. Here
     * recvcount = remote size, so both vectors have lsize * rsize. */
    int *rsb_in = t_malloc(sizeof(int) * (size_t)(lsize * rsize)), rsb[64];
    for (int i = 0; i < lsize * rsize; i++) rsb_in[i] = me + i;
    MPI_CHK(MPI_Ireduce_scatter_block(rsb_in, rsb, rsize, MPI_INT, MPI_SUM, ic, &r[n++]));
    { /* Igather to group A's rank 0 */
        int root = !high ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_CHK(MPI_Igather(&me, 1, MPI_INT, ga, 1, MPI_INT, root, ic, &r[n++]));
    }
    { /* Iscatter from group B's rank 0 */
        int root = high ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_CHK(MPI_Iscatter(sc_s, 1, MPI_INT, &sc, 1, MPI_INT, root, ic, &r[n++]));
    }
    MPI_CHK(MPI_Iallgatherv(agv_s, nagv, MPI_INT, agv, agv_counts, agv_displs, MPI_INT, ic,
                            &r[n++]));
    /* complete in an order that depends on the rank */
    for (int k = 0; k < n; k++) {
        int i = (k * 5 + t_rank) % n;
        if (r[i] == MPI_REQUEST_NULL) { /* taken already: the next free one */
            for (i = 0; r[i] == MPI_REQUEST_NULL; i++) {}
        }
        MPI_CHK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    }
    int rsum = 0, rmax = -1;
    for (int i = 0; i < rsize; i++) {
        rsum += rw[i];
        rmax = rw[i] > rmax ? rw[i] : rmax;
    }
    for (int g = 0; g < 2; g++)
        if (high != g) CHECK(bc[g] == 500 + g, "%s: ibcast %d got %d", what, g, bc[g]);
    CHECK(ar == rsum, "%s: iallreduce %d, want %d", what, ar, rsum);
    if (high && lrank == 0) CHECK(rd == rmax, "%s: ireduce %d, want %d", what, rd, rmax);
    for (int i = 0; i < rsize; i++) {
        CHECK(ag[i] == rw[i], "%s: iallgather[%d] %d, want %d", what, i, ag[i], rw[i]);
        CHECK(a2a_r[i] == rw[i] * 100 + me, "%s: ialltoall[%d] %d", what, i, a2a_r[i]);
    }
    for (int k = 0; k < rsize; k++) {
        int want = rsum + rsize * (lrank * rsize + k);
        CHECK(rsb[k] == want, "%s: ireduce_scatter_block[%d] %d, want %d", what, k, rsb[k], want);
    }
    free(rsb_in);
    if (!high && lrank == 0)
        for (int i = 0; i < rsize; i++)
            CHECK(ga[i] == rw[i], "%s: igather[%d] %d, want %d", what, i, ga[i], rw[i]);
    if (!high) CHECK(sc == 1000 + me, "%s: iscatter %d, want %d", what, sc, 1000 + me);
    for (int i = 0; i < rsize; i++)
        for (int j = 0; j < agv_counts[i]; j++)
            CHECK(agv[agv_displs[i] + j] == rw[i], "%s: iallgatherv[%d][%d] %d", what, i, j,
                  agv[agv_displs[i] + j]);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 3 && t_size <= 64) {
        int low = t_rank < t_size / 2;
        MPI_Comm local, ic, d, c, s;
        MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, low, t_rank, &local));
        MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? t_size / 2 : 0, 3, &ic));
        run(ic, "intercomm_create");
        /* every process but the high group's first */
        MPI_CHK(MPI_Comm_dup(ic, &d));
        MPI_Group g, sub;
        MPI_CHK(MPI_Comm_group(d, &g));
        int first = 0;
        if (low) MPI_CHK(MPI_Group_excl(g, 0, &first, &sub));
        else MPI_CHK(MPI_Group_excl(g, 1, &first, &sub));
        MPI_CHK(MPI_Comm_create(d, sub, &c));
        if (t_rank == t_size / 2) CHECK(c == MPI_COMM_NULL, "create: want MPI_COMM_NULL");
        else if (c == MPI_COMM_NULL) CHECK(0, "create: got MPI_COMM_NULL");
        else run(c, "comm_create");
        if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&c));
        MPI_CHK(MPI_Group_free(&sub));
        MPI_CHK(MPI_Group_free(&g));
        if (t_size >= 4) {
            MPI_CHK(MPI_Comm_split(d, t_rank % 2, t_rank, &s));
            run(s, "comm_split");
            MPI_CHK(MPI_Comm_free(&s));
        }
        MPI_CHK(MPI_Comm_free(&d));
        MPI_CHK(MPI_Comm_free(&ic));
        MPI_CHK(MPI_Comm_free(&local));
    }
    return t_finish();
}
