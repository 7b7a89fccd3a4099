/* rma_comms.c: windows over other communicators than MPI_COMM_WORLD: the
 * halves of a split (ranks in a window are ranks of its communicator, not
 * of the world), MPI_COMM_SELF, and several windows alive at once on
 * overlapping communicators, used in interleaved epochs; MPI_Win_get_group
 * gives the communicator's group. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm half;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, -t_rank, &half)); /* reversed order */
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    MPI_Win wh, ws, ww;
    int64_t *mh, *ms, *mw;
    MPI_CHK(MPI_Win_allocate(8 * hs, 8, MPI_INFO_NULL, half, &mh, &wh));
    int64_t *priv = t_malloc(8 * t_size);
    mw = priv;
    MPI_CHK(MPI_Win_create(mw, 8 * t_size, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &ww));
    MPI_CHK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_SELF, &ms, &ws));

    MPI_Group g, hg;
    int cmp = -1;
    MPI_CHK(MPI_Win_get_group(wh, &g));
    MPI_Comm_group(half, &hg);
    MPI_Group_compare(g, hg, &cmp);
    CHECK(cmp == MPI_IDENT, "window group differs from its communicator's (%d)", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&hg);

    for (int i = 0; i < hs; i++) mh[i] = 0;
    for (int i = 0; i < t_size; i++) mw[i] = 0;
    *ms = 0;
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    for (int round = 0; round < 5; round++) {
        /* interleaved epochs on the three windows */
        MPI_CHK(MPI_Win_fence(0, wh));
        MPI_CHK(MPI_Win_lock_all(0, ww));
        MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, ws));
        int64_t v = t_rank + 1;
        for (int r = 0; r < hs; r++) /* slot hr of every member of my half */
            MPI_CHK(MPI_Accumulate(&v, 1, MPI_INT64_T, r, hr, 1, MPI_INT64_T, MPI_SUM, wh));
        int right = (t_rank + 1) % t_size;
        MPI_CHK(MPI_Accumulate(&v, 1, MPI_INT64_T, right, t_rank, 1, MPI_INT64_T, MPI_SUM, ww));
        MPI_CHK(MPI_Accumulate(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, ws));
        MPI_CHK(MPI_Win_unlock(0, ws));
        MPI_CHK(MPI_Win_unlock_all(ww));
        MPI_CHK(MPI_Win_fence(0, wh));
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* half: slot j holds 5 * (world rank of half-rank j + 1) */
    int *wr = t_malloc(sizeof(int) * hs);
    MPI_CHK(MPI_Allgather(&t_rank, 1, MPI_INT, wr, 1, MPI_INT, half));
    for (int j = 0; j < hs; j++)
        CHECK(mh[j] == 5 * (int64_t)(wr[j] + 1), "half slot %d: %lld, want %lld", j,
              (long long)mh[j], 5 * (long long)(wr[j] + 1));
    int left = (t_rank + t_size - 1) % t_size;
    CHECK(mw[left] == 5 * (int64_t)(left + 1), "world slot %d: %lld", left, (long long)mw[left]);
    CHECK(*ms == 5 * (int64_t)(t_rank + 1), "self window: %lld", (long long)*ms);
    MPI_CHK(MPI_Win_fence(MPI_MODE_NOSUCCEED, wh));
    MPI_CHK(MPI_Win_free(&ws));
    MPI_CHK(MPI_Win_free(&wh));
    MPI_CHK(MPI_Win_free(&ww));
    MPI_Comm_free(&half);
    free(priv);
    free(wr);
    return t_finish();
}
