/* intercomm_merge.c: MPI_Intercomm_merge with every combination of the
 * high flags. The group passing high = 0 comes first in the merged
 * intracommunicator; with equal flags either order is allowed, but all
 * processes must see the same one, and each group keeps its internal
 * order. The merged communicator works (size, ranks, point-to-point ring,
 * Allreduce, Barrier), and merging an intercommunicator's duplicate works
 * too. Needs at least 2 processes (with 1 it only prints " No Errors"). */
#include "common.h"

/* Part A: world ranks [0, na) in world order; B: the rest. */
static void check_merge(MPI_Comm inter, int in_a, int na, int high_a, int high_b,
                        const char *what)
{
    MPI_Comm m;
    MPI_CHK(MPI_Intercomm_merge(inter, in_a ? high_a : high_b, &m));
    int size = -1, rank = -1, flag = -1;
    MPI_CHK(MPI_Comm_size(m, &size));
    MPI_CHK(MPI_Comm_rank(m, &rank));
    MPI_CHK(MPI_Comm_test_inter(m, &flag));
    CHECK(!flag, "%s: the merged communicator is an intercommunicator", what);
    CHECK(size == t_size, "%s: merged size %d, want %d", what, size, t_size);

    /* World rank of every merged rank, as every process sees it. */
    int *w = t_malloc((size_t)t_size * sizeof(int));
    MPI_CHK(MPI_Allgather(&t_rank, 1, MPI_INT, w, 1, MPI_INT, m));
    CHECK(w[rank] == t_rank, "%s: allgather slot %d holds %d, want %d", what, rank, w[rank],
          t_rank);
    int a_first;
    if (high_a != high_b)
        a_first = !high_a;
    else
        a_first = w[0] == 0; /* either order; check it is one of the two */
    for (int i = 0; i < t_size; i++) {
        int want = a_first ? i : (i < t_size - na ? na + i : i - (t_size - na));
        CHECK(w[i] == want, "%s: merged rank %d is world rank %d, want %d (%s first)", what,
              i, w[i], want, a_first ? "A" : "B");
    }
    /* Everybody agrees on the order (rank 0's view). */
    int *w0 = t_malloc((size_t)t_size * sizeof(int));
    memcpy(w0, w, (size_t)t_size * sizeof(int));
    MPI_CHK(MPI_Bcast(w0, t_size, MPI_INT, 0, m));
    CHECK(memcmp(w0, w, (size_t)t_size * sizeof(int)) == 0, "%s: processes disagree", what);

    /* A ring over the merged ranks, then a reduction and a barrier. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, next, 5, &got, 1, MPI_INT, prev, 5, m,
                         MPI_STATUS_IGNORE));
    CHECK(got == w[prev], "%s: ring got %d from merged rank %d, want %d", what, got, prev,
          w[prev]);
    int sum = -1;
    MPI_CHK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == size * (size - 1) / 2, "%s: allreduce %d", what, sum);
    MPI_CHK(MPI_Barrier(m));
    MPI_CHK(MPI_Comm_free(&m));
    free(w);
    free(w0);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2) {
        for (int split = 0; split < 2; split++) {
            int na = split == 0 ? t_size / 2 : 1, in_a = t_rank < na;
            MPI_Comm local, inter, dup;
            MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, in_a, t_rank, &local));
            MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? na : 0, 3, &inter));
            check_merge(inter, in_a, na, 0, 1, "A low, B high");
            check_merge(inter, in_a, na, 1, 0, "A high, B low");
            check_merge(inter, in_a, na, 0, 0, "both low");
            check_merge(inter, in_a, na, 1, 1, "both high");
            MPI_CHK(MPI_Comm_dup(inter, &dup));
            check_merge(dup, in_a, na, 1, 0, "duplicate, A high");
            MPI_CHK(MPI_Comm_free(&dup));
            MPI_CHK(MPI_Comm_free(&inter));
            MPI_CHK(MPI_Comm_free(&local));
        }
    }
    return t_finish();
}
