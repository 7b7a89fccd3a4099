/* comm_split_type.c: MPI_Comm_split_type with MPI_COMM_TYPE_SHARED.  All
 * ranks of a test run on one node, so the shared communicator holds every
 * rank (same size as world, ranks ordered by key), processor names agree
 * on all its members, MPI_UNDEFINED gives MPI_COMM_NULL, and splitting a
 * subcommunicator gives that subcommunicator's members. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm node, rev, none, half, halfnode;
    int size = -1, rank = -1, result = -1;

    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK(node != MPI_COMM_NULL, "split_type SHARED gave MPI_COMM_NULL");
    MPI_CHK(MPI_Comm_size(node, &size));
    MPI_CHK(MPI_Comm_rank(node, &rank));
    CHECK(size == t_size, "shared communicator has %d ranks, world %d (one node)", size, t_size);
    CHECK(rank == t_rank, "shared rank %d, world rank %d (equal keys keep the order)", rank,
          t_rank);
    MPI_CHK(MPI_Comm_compare(node, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT, "compare(shared, world) gave %d", result);

    /* Every member runs on the same host. */
    char name[MPI_MAX_PROCESSOR_NAME] = { 0 }, root[MPI_MAX_PROCESSOR_NAME] = { 0 };
    int len;
    MPI_CHK(MPI_Get_processor_name(name, &len));
    memcpy(root, name, sizeof root);
    MPI_CHK(MPI_Bcast(root, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, node));
    CHECK(strcmp(root, name) == 0, "processor name %s differs from rank 0's %s", name, root);

    /* Keys reverse the order. */
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -t_rank, MPI_INFO_NULL,
                                &rev));
    MPI_CHK(MPI_Comm_rank(rev, &rank));
    CHECK(rank == t_size - 1 - t_rank, "reversed shared rank %d", rank);

    /* MPI_UNDEFINED on odd ranks. */
    int type = t_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, MPI_INFO_NULL, &none));
    if (t_rank % 2) {
        CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED split type gave a communicator");
    } else {
        MPI_CHK(MPI_Comm_size(none, &size));
        CHECK(size == (t_size + 1) / 2, "shared among even ranks has %d ranks", size);
        MPI_CHK(MPI_Comm_free(&none));
    }

    /* From a subcommunicator: the shared split of the lower half is the
     * lower half. */
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank < t_size / 2, t_rank, &half));
    MPI_CHK(MPI_Comm_split_type(half, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &halfnode));
    MPI_CHK(MPI_Comm_compare(half, halfnode, &result));
    CHECK(result == MPI_CONGRUENT, "shared split of a half gave compare %d", result);
    int sum = -1, want = 0;
    for (int i = 0; i < t_size; i++)
        if ((i < t_size / 2) == (t_rank < t_size / 2))
            want += i;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, halfnode));
    CHECK(sum == want, "Allreduce on the shared half gave %d, want %d", sum, want);

    MPI_CHK(MPI_Comm_free(&halfnode));
    MPI_CHK(MPI_Comm_free(&half));
    MPI_CHK(MPI_Comm_free(&rev));
    MPI_CHK(MPI_Comm_free(&node));
    return t_finish();
}
