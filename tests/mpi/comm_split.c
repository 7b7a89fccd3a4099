/* comm_split.c: MPI_Comm_split.  Colors rank % 3 with key -rank (reversed
 * order), MPI_UNDEFINED (gives MPI_COMM_NULL), one color with equal keys
 * (order of the old ranks: congruent to world) and with reversed keys
 * (similar), a split of a split.  Sizes, ranks and group membership
 * (MPI_Group_translate_ranks) are compared with a serial computation, and
 * each new communicator carries point-to-point and collective traffic that
 * stays inside it. */
#include "common.h"

/* Members of color c among world ranks, in the order of key -rank. */
static int members(int c, int *list)
{
    int n = 0;
    for (int r = t_size - 1; r >= 0; r--)
        if (r % 3 == c)
            list[n++] = r;
    return n;
}

static void check_comm(MPI_Comm c, const int *list, int n, const char *what)
{
    int size = -1, rank = -1;
    MPI_CHK(MPI_Comm_size(c, &size));
    MPI_CHK(MPI_Comm_rank(c, &rank));
    CHECK(size == n, "%s: size %d, want %d", what, size, n);
    int want_rank = -1;
    for (int i = 0; i < n; i++)
        if (list[i] == t_rank)
            want_rank = i;
    CHECK(rank == want_rank, "%s: rank %d, want %d", what, rank, want_rank);
    if (size != n || rank != want_rank)
        return;

    /* Group of the new communicator, translated to world ranks. */
    MPI_Group g, wg;
    MPI_CHK(MPI_Comm_group(c, &g));
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *idx = t_malloc((size_t)n * sizeof(int)), *out = t_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_CHK(MPI_Group_translate_ranks(g, n, idx, wg, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == list[i], "%s: rank %d is world rank %d, want %d", what, i, out[i],
              list[i]);
    MPI_CHK(MPI_Group_free(&g));
    MPI_CHK(MPI_Group_free(&wg));

    /* Ring inside: everyone gets its left neighbour's world rank. */
    int right = (rank + 1) % n, left = (rank + n - 1) % n, got = -1;
    MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, c,
                         MPI_STATUS_IGNORE));
    CHECK(got == list[left], "%s: ring got %d, want %d", what, got, list[left]);

    /* Allreduce of world ranks and a Bcast from the last rank. */
    int sum = -1, want = 0;
    for (int i = 0; i < n; i++)
        want += list[i];
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "%s: Allreduce gave %d, want %d", what, sum, want);
    int v = t_rank;
    MPI_CHK(MPI_Bcast(&v, 1, MPI_INT, n - 1, c));
    CHECK(v == list[n - 1], "%s: Bcast gave %d, want %d", what, v, list[n - 1]);
    free(idx);
    free(out);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int *list = t_malloc((size_t)t_size * sizeof(int)), n, result;
    MPI_Comm c3, all, rev, none, sub;

    /* Three colors, reversed order. */
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 3, -t_rank, &c3));
    n = members(t_rank % 3, list);
    check_comm(c3, list, n, "split by rank%3");

    /* One color, keys equal: old order; keys reversed: similar. */
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &all));
    MPI_CHK(MPI_Comm_compare(all, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT, "split with one color and equal keys: compare gave %d",
          result);
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, 5, t_size - t_rank, &rev));
    MPI_CHK(MPI_Comm_compare(rev, MPI_COMM_WORLD, &result));
    CHECK(result == (t_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
          "split with reversed keys: compare gave %d", result);
    int rrank = -1;
    MPI_CHK(MPI_Comm_rank(rev, &rrank));
    CHECK(rrank == t_size - 1 - t_rank, "reversed split: rank %d", rrank);

    /* MPI_UNDEFINED: the last rank gets MPI_COMM_NULL. */
    int color = t_rank == t_size - 1 ? MPI_UNDEFINED : 1;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &none));
    if (color == MPI_UNDEFINED) {
        CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED color did not give MPI_COMM_NULL");
    } else {
        CHECK(none != MPI_COMM_NULL, "got MPI_COMM_NULL with a color");
        for (int i = 0; i < t_size - 1; i++)
            list[i] = i;
        check_comm(none, list, t_size - 1, "split without the last rank");
    }

    /* Split of a split: halves of the reversed rank%3 groups. */
    int r3 = -1, s3 = -1;
    MPI_CHK(MPI_Comm_rank(c3, &r3));
    MPI_CHK(MPI_Comm_size(c3, &s3));
    MPI_CHK(MPI_Comm_split(c3, r3 < s3 / 2, r3, &sub));
    n = members(t_rank % 3, list);
    int lo = r3 < s3 / 2, m = 0;
    for (int i = 0; i < n; i++)
        if ((i < s3 / 2) == lo)
            list[m++] = list[i];
    check_comm(sub, list, m, "split of a split");

    /* Traffic on c3 stays there: nothing arrives on world or `all`. */
    int flag = -1;
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "a message of a split communicator showed up on MPI_COMM_WORLD");

    MPI_CHK(MPI_Comm_free(&sub));
    MPI_CHK(MPI_Comm_free(&c3));
    MPI_CHK(MPI_Comm_free(&all));
    MPI_CHK(MPI_Comm_free(&rev));
    if (none != MPI_COMM_NULL)
        MPI_CHK(MPI_Comm_free(&none));
    free(list);
    return t_finish();
}
