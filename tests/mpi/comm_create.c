/* comm_create.c: groups and MPI_Comm_create.  MPI_Comm_group of world,
 * MPI_Group_incl (even ranks, in reverse order), MPI_Group_excl (without
 * rank 0), MPI_Group_size / rank (MPI_UNDEFINED for non-members),
 * MPI_Group_translate_ranks (MPI_UNDEFINED where absent, MPI_PROC_NULL kept),
 * MPI_Group_free, MPI_GROUP_EMPTY; MPI_Comm_create gives members a working
 * communicator in the group's order and others MPI_COMM_NULL. */
#include "common.h"

static void use_comm(MPI_Comm c, const int *world_of, int n, const char *what)
{
    int size = -1, rank = -1;
    MPI_CHK(MPI_Comm_size(c, &size));
    MPI_CHK(MPI_Comm_rank(c, &rank));
    CHECK(size == n, "%s: size %d, want %d", what, size, n);
    if (rank < 0 || rank >= n) {
        CHECK(0, "%s: rank %d out of range", what, rank);
        return;
    }
    CHECK(world_of[rank] == t_rank, "%s: rank %d is world rank %d, want %d", what, rank, t_rank,
          world_of[rank]);
    int v = t_rank * 2, sum = -1, want = 0;
    for (int i = 0; i < n; i++)
        want += world_of[i] * 2;
    MPI_CHK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "%s: Allreduce gave %d, want %d", what, sum, want);
    int right = (rank + 1) % n, left = (rank + n - 1) % n, got = -1;
    MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, c,
                         MPI_STATUS_IGNORE));
    CHECK(got == world_of[left], "%s: ring got %d, want %d", what, got, world_of[left]);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Group world, evens, rest, g;
    int n = -1, r = -1;
    int *list = t_malloc((size_t)t_size * sizeof(int)), *out = t_malloc((size_t)t_size * sizeof(int));

    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_CHK(MPI_Group_size(world, &n));
    MPI_CHK(MPI_Group_rank(world, &r));
    CHECK(n == t_size && r == t_rank, "world group size %d rank %d", n, r);

    /* Even ranks, highest first. */
    int ne = 0;
    for (int i = t_size - 1; i >= 0; i--)
        if (i % 2 == 0)
            list[ne++] = i;
    MPI_CHK(MPI_Group_incl(world, ne, list, &evens));
    MPI_CHK(MPI_Group_size(evens, &n));
    MPI_CHK(MPI_Group_rank(evens, &r));
    CHECK(n == ne, "incl group size %d, want %d", n, ne);
    int want = MPI_UNDEFINED;
    for (int i = 0; i < ne; i++)
        if (list[i] == t_rank)
            want = i;
    CHECK(r == want, "incl group rank %d, want %d", r, want);

    /* Translate world ranks into the even group. */
    int q[3] = { 0, t_size - 1, MPI_PROC_NULL }, qo[3] = { -7, -7, -7 };
    MPI_CHK(MPI_Group_translate_ranks(world, 3, q, evens, qo));
    CHECK(qo[0] == ne - 1, "world rank 0 in evens is %d, want %d", qo[0], ne - 1);
    int want_last = (t_size - 1) % 2 == 0 ? 0 : MPI_UNDEFINED;
    CHECK(qo[1] == want_last, "world rank %d in evens is %d, want %d", t_size - 1, qo[1],
          want_last);
    CHECK(qo[2] == MPI_PROC_NULL, "MPI_PROC_NULL translated to %d", qo[2]);

    MPI_Comm ce;
    MPI_CHK(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
    if (t_rank % 2 == 0) {
        CHECK(ce != MPI_COMM_NULL, "member got MPI_COMM_NULL from MPI_Comm_create");
        if (ce != MPI_COMM_NULL)
            use_comm(ce, list, ne, "evens");
    } else {
        CHECK(ce == MPI_COMM_NULL, "non-member got a communicator from MPI_Comm_create");
    }

    /* Everybody but rank 0. */
    int zero = 0;
    MPI_CHK(MPI_Group_excl(world, 1, &zero, &rest));
    MPI_CHK(MPI_Group_size(rest, &n));
    MPI_CHK(MPI_Group_rank(rest, &r));
    CHECK(n == t_size - 1, "excl group size %d", n);
    CHECK(r == (t_rank == 0 ? MPI_UNDEFINED : t_rank - 1), "excl group rank %d", r);
    for (int i = 0; i < t_size - 1; i++)
        list[i] = i;
    MPI_CHK(MPI_Group_translate_ranks(rest, t_size - 1, list, world, out));
    for (int i = 0; i < t_size - 1; i++)
        CHECK(out[i] == i + 1, "excl rank %d is world rank %d", i, out[i]);
    MPI_Comm cr;
    MPI_CHK(MPI_Comm_create(MPI_COMM_WORLD, rest, &cr));
    if (t_rank == 0) {
        CHECK(cr == MPI_COMM_NULL, "rank 0 got a communicator it is not in");
    } else if (cr != MPI_COMM_NULL) {
        for (int i = 0; i < t_size - 1; i++)
            list[i] = i + 1;
        use_comm(cr, list, t_size - 1, "all but 0");
    } else {
        CHECK(0, "member got MPI_COMM_NULL");
    }

    /* The empty group. */
    MPI_CHK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK(n == 0, "MPI_GROUP_EMPTY size %d", n);
    MPI_CHK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK(r == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY %d", r);
    MPI_Comm cnull;
    MPI_CHK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &cnull));
    CHECK(cnull == MPI_COMM_NULL, "MPI_Comm_create(MPI_GROUP_EMPTY) gave a communicator");
    MPI_CHK(MPI_Group_incl(world, 0, list, &g));
    MPI_CHK(MPI_Group_size(g, &n));
    CHECK(n == 0, "incl of nothing has size %d", n);
    MPI_CHK(MPI_Group_free(&g));

    /* Comm_create from a non-world parent: the even communicator's group
     * minus its rank 0. */
    if (ce != MPI_COMM_NULL) {
        MPI_Group eg, eg2;
        MPI_CHK(MPI_Comm_group(ce, &eg));
        MPI_CHK(MPI_Group_excl(eg, 1, &zero, &eg2));
        MPI_Comm c2;
        MPI_CHK(MPI_Comm_create(ce, eg2, &c2));
        int erank = -1;
        MPI_CHK(MPI_Comm_rank(ce, &erank));
        if (erank == 0) {
            CHECK(c2 == MPI_COMM_NULL, "excluded rank got a communicator");
        } else if (c2 != MPI_COMM_NULL) {
            int m = 0;
            for (int i = t_size - 1; i >= 0; i--)
                if (i % 2 == 0)
                    list[m++] = i;
            use_comm(c2, list + 1, m - 1, "evens but the first");
            MPI_CHK(MPI_Comm_free(&c2));
        } else {
            CHECK(0, "member got MPI_COMM_NULL from a nested MPI_Comm_create");
        }
        MPI_CHK(MPI_Group_free(&eg));
        MPI_CHK(MPI_Group_free(&eg2));
        MPI_CHK(MPI_Comm_free(&ce));
    }
    if (cr != MPI_COMM_NULL)
        MPI_CHK(MPI_Comm_free(&cr));
    MPI_CHK(MPI_Group_free(&evens));
    MPI_CHK(MPI_Group_free(&rest));
    MPI_CHK(MPI_Group_free(&world));
    CHECK(world == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
    free(list);
    free(out);
    return t_finish();
}
