/* rma_pscw.c: general active-target synchronisation with groups:
 * odd ranks expose their windows to the even ranks, which each put their
 * rank into their own slot of every odd rank's window (MPI_Win_wait, then
 * MPI_Win_test polling); a ring where every rank is origin and target at
 * once; empty groups; many rounds in a row (the post/complete counters
 * must stay in step); and MPI_MODE_NOCHECK after a barrier. */
#include "common.h"

static MPI_Group make_group(MPI_Group world, int parity) /* ranks of this parity */
{
    int n = 0, *r = t_malloc((size_t)t_size * sizeof(int));
    for (int i = parity; i < t_size; i += 2) r[n++] = i;
    MPI_Group g;
    MPI_Group_incl(world, n, r, &g);
    free(r);
    return g;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    int *mem;
    const int n = t_size + 4;
    MPI_CHK(MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    int *priv = t_malloc(n * sizeof(int));
    MPI_Win pwin;
    MPI_CHK(MPI_Win_create(priv, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &pwin));
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    evens = make_group(world, 0);
    odds = make_group(world, 1);
    int odd = t_rank % 2;

    for (int round = 0; round < 20; round++) {
        MPI_Win w = round % 2 ? pwin : win;
        int *m = round % 2 ? priv : mem;
        for (int i = 0; i < n; i++) m[i] = -1;
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        if (odd) {
            MPI_CHK(MPI_Win_post(evens, 0, w));
            if (round % 4 < 2) {
                MPI_CHK(MPI_Win_wait(w));
            } else {
                int flag = 0;
                while (!flag) MPI_CHK(MPI_Win_test(w, &flag));
            }
            for (int e = 0; e < t_size; e += 2)
                CHECK(m[e] == e * 100 + round, "round %d: slot %d is %d", round, e, m[e]);
        } else {
            MPI_CHK(MPI_Win_start(odds, 0, w));
            int v = t_rank * 100 + round;
            for (int o = 1; o < t_size; o += 2)
                MPI_CHK(MPI_Put(&v, 1, MPI_INT, o, t_rank, 1, MPI_INT, w));
            MPI_CHK(MPI_Win_complete(w));
        }
        for (int i = 1; i < t_size; i += 2) /* untouched by anyone */
            if (odd) CHECK(m[i] == -1, "round %d: slot %d is %d", round, i, m[i]);
    }

    /* ring: expose to the left neighbour, access the right one */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Group lg, rg;
    MPI_Group_incl(world, 1, &left, &lg);
    MPI_Group_incl(world, 1, &right, &rg);
    for (int round = 0; round < 10; round++) {
        mem[0] = -1;
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHK(MPI_Win_post(lg, 0, win));
        MPI_CHK(MPI_Win_start(rg, 0, win));
        int v = t_rank + round;
        MPI_CHK(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_REPLACE, win));
        MPI_CHK(MPI_Win_complete(win));
        MPI_CHK(MPI_Win_wait(win));
        CHECK(mem[0] == left + round, "ring round %d: %d, want %d", round, mem[0], left + round);
    }

    /* empty groups: nothing to wait for */
    MPI_CHK(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    MPI_CHK(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
    MPI_CHK(MPI_Win_complete(win));
    MPI_CHK(MPI_Win_wait(win));

    /* MPI_MODE_NOCHECK: the posts are known to be done (barrier) */
    mem[1] = -1;
    MPI_CHK(MPI_Win_post(lg, MPI_MODE_NOCHECK, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_start(rg, MPI_MODE_NOCHECK, win));
    MPI_CHK(MPI_Put(&t_rank, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    MPI_CHK(MPI_Win_complete(win));
    MPI_CHK(MPI_Win_wait(win));
    CHECK(mem[1] == left, "NOCHECK: %d, want %d", mem[1], left);

    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
    MPI_CHK(MPI_Win_free(&win));
    MPI_CHK(MPI_Win_free(&pwin));
    free(priv);
    return t_finish();
}
