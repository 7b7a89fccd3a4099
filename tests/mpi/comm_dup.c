/* comm_dup.c: MPI_Comm_dup and MPI_Comm_idup give a congruent communicator
 * with its own matching context: a message sent on the duplicate is not
 * seen by probes or wildcard receives on the original (and back); a
 * duplicate of a duplicate is separate again.  Also MPI_Comm_compare,
 * MPI_Comm_test_inter, names (MPI_Comm_set_name / get_name, predefined
 * names), MPI_Comm_free, and collectives on the duplicates. */
#include "common.h"

static void check_name(MPI_Comm c, const char *want, const char *what)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    memset(name, 'x', sizeof name);
    MPI_CHK(MPI_Comm_get_name(c, name, &len));
    CHECK(len == (int)strlen(want) && strcmp(name, want) == 0,
          "%s: name \"%.*s\" (length %d), want \"%s\"", what, len > 0 && len < 128 ? len : 0,
          name, len, want);
}

/* Rank 0 sends on `on`; rank 1 sees it there but not on `other`. */
static void isolation(MPI_Comm on, MPI_Comm other, const char *what)
{
    if (t_size < 2)
        return;
    int v = 7, flag = -1;
    MPI_Status st;
    if (t_rank == 0) {
        MPI_CHK(MPI_Send(&v, 1, MPI_INT, 1, 3, on));
    } else if (t_rank == 1) {
        MPI_CHK(MPI_Probe(0, 3, on, &st)); /* the message has arrived */
        MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, other, &flag, &st));
        CHECK(flag == 0, "%s: message sent on one communicator seen on the other", what);
        v = -1;
        MPI_CHK(MPI_Recv(&v, 1, MPI_INT, 0, 3, on, &st));
        CHECK(v == 7, "%s: got %d", what, v);
    }
    MPI_CHK(MPI_Barrier(on));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int result = -1, flag = -1, size = -1, rank = -1;

    MPI_CHK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_IDENT, "compare(world, world) = %d, want MPI_IDENT", result);
    MPI_CHK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result));
    CHECK(result == (t_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, self) = %d",
          result);
    check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD", "world");
    check_name(MPI_COMM_SELF, "MPI_COMM_SELF", "self");
    MPI_CHK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "MPI_COMM_WORLD reported as intercommunicator");

    MPI_Comm dup, dup2, idup;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(dup != MPI_COMM_WORLD && dup != MPI_COMM_NULL, "MPI_Comm_dup handle");
    MPI_CHK(MPI_Comm_size(dup, &size));
    MPI_CHK(MPI_Comm_rank(dup, &rank));
    CHECK(size == t_size && rank == t_rank, "dup size %d rank %d", size, rank);
    MPI_CHK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(result == MPI_CONGRUENT, "compare(world, dup) = %d, want MPI_CONGRUENT", result);
    MPI_CHK(MPI_Comm_compare(dup, dup, &result));
    CHECK(result == MPI_IDENT, "compare(dup, dup) = %d, want MPI_IDENT", result);
    MPI_CHK(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag == 0, "dup reported as intercommunicator");

    MPI_CHK(MPI_Comm_set_name(dup, "my duplicate"));
    check_name(dup, "my duplicate", "named dup");
    check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD", "world after naming dup");
    MPI_CHK(MPI_Comm_set_name(dup, "renamed"));
    check_name(dup, "renamed", "renamed dup");

    MPI_CHK(MPI_Comm_dup(dup, &dup2));
    MPI_CHK(MPI_Comm_compare(dup, dup2, &result));
    CHECK(result == MPI_CONGRUENT, "compare(dup, dup2) = %d", result);

    MPI_Request r;
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &r));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_Comm_compare(MPI_COMM_WORLD, idup, &result));
    CHECK(result == MPI_CONGRUENT, "compare(world, idup) = %d", result);

    isolation(dup, MPI_COMM_WORLD, "dup vs world");
    isolation(MPI_COMM_WORLD, dup, "world vs dup");
    isolation(dup2, dup, "dup2 vs dup");
    isolation(idup, MPI_COMM_WORLD, "idup vs world");
    isolation(MPI_COMM_WORLD, idup, "world vs idup");

    /* Same tag and source on three communicators at once: each receive gets
     * its own communicator's message, whatever the order. */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int got[3] = { -1, -1, -1 }, sent[3];
    MPI_Comm cs[3] = { MPI_COMM_WORLD, dup, idup };
    MPI_Request rr[6];
    for (int i = 0; i < 3; i++) {
        sent[i] = t_rank * 10 + i;
        MPI_CHK(MPI_Irecv(&got[i], 1, MPI_INT, left, 5, cs[i], &rr[i]));
    }
    for (int i = 2; i >= 0; i--)
        MPI_CHK(MPI_Isend(&sent[i], 1, MPI_INT, right, 5, cs[i], &rr[3 + i]));
    MPI_CHK(MPI_Waitall(6, rr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++)
        CHECK(got[i] == left * 10 + i, "communicator %d received %d, want %d", i, got[i],
              left * 10 + i);

    /* Collectives on the duplicates. */
    int sum = -1;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, dup2));
    CHECK(sum == t_size * (t_size - 1) / 2, "Allreduce on dup2 gave %d", sum);
    MPI_CHK(MPI_Barrier(idup));

    MPI_CHK(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
    MPI_CHK(MPI_Comm_free(&idup));
    /* The first duplicate still works after its duplicate was freed. */
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_MAX, dup));
    CHECK(sum == t_size - 1, "Allreduce on dup after freeing dup2 gave %d", sum);
    MPI_CHK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");

    /* Many duplicates created and freed (context ids are recycled). */
    for (int i = 0; i < 200; i++) {
        MPI_Comm c;
        MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        if (i % 50 == 0)
            MPI_CHK(MPI_Barrier(c));
        MPI_CHK(MPI_Comm_free(&c));
    }
    return t_finish();
}
