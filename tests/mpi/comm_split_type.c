/* comm_split_type.c: MPI_Comm_split_type with MPI_COMM_TYPE_SHARED.  The
 * shared communicator holds exactly the ranks on this rank's host, told
 * apart by processor name (one host: every rank; test hosts: each host's
 * ranks), ordered by key then world rank; MPI_UNDEFINED gives
 * MPI_COMM_NULL; splitting a subcommunicator gives its members on this
 * host. (A run that makes ranks of one host look like several nodes, with
 * DMPI_PROCESS_MAPPING, leaves this test out: names no longer tell.) */
#include "common.h"

static char (*names)[MPI_MAX_PROCESSOR_NAME];

static int same_host(int i) { return strcmp(names[i], names[t_rank]) == 0; }

/* Ranks i on this host with lo <= i < hi; and how many of them are below me. */
static int count_host(int lo, int hi, int *below)
{
    int n = 0;
    *below = 0;
    for (int i = lo; i < hi; i++)
        if (same_host(i)) {
            n++;
            if (i < t_rank) (*below)++;
        }
    return n;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm node, rev, none, half, halfnode;
    int size = -1, rank = -1, result = -1, below;

    names = calloc((size_t)t_size, sizeof *names);
    CHECK(names != NULL, "out of memory");
    int len;
    MPI_CHK(MPI_Get_processor_name(names[t_rank], &len));
    MPI_CHK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names, MPI_MAX_PROCESSOR_NAME,
                          MPI_CHAR, MPI_COMM_WORLD));
    int here = count_host(0, t_size, &below);

    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK(node != MPI_COMM_NULL, "split_type SHARED gave MPI_COMM_NULL");
    MPI_CHK(MPI_Comm_size(node, &size));
    MPI_CHK(MPI_Comm_rank(node, &rank));
    CHECK(size == here, "shared communicator has %d ranks, %d run on this host", size, here);
    CHECK(rank == below, "shared rank %d, want %d (equal keys keep the order)", rank, below);
    MPI_CHK(MPI_Comm_compare(node, MPI_COMM_WORLD, &result));
    if (here == t_size) CHECK(result == MPI_CONGRUENT, "compare(shared, world) gave %d", result);
    else CHECK(result == MPI_UNEQUAL, "compare(shared, world) gave %d", result);

    /* Every member runs on the same host. */
    char root[MPI_MAX_PROCESSOR_NAME] = { 0 };
    memcpy(root, names[t_rank], sizeof root);
    MPI_CHK(MPI_Bcast(root, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, node));
    CHECK(strcmp(root, names[t_rank]) == 0, "processor name %s differs from the shared rank 0's %s",
          names[t_rank], root);

    /* Keys reverse the order. */
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -t_rank, MPI_INFO_NULL,
                                &rev));
    MPI_CHK(MPI_Comm_rank(rev, &rank));
    CHECK(rank == here - 1 - below, "reversed shared rank %d", rank);

    /* MPI_UNDEFINED on odd ranks. */
    int type = t_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, MPI_INFO_NULL, &none));
    if (t_rank % 2) {
        CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED split type gave a communicator");
    } else {
        int even = 0;
        for (int i = 0; i < t_size; i += 2) even += same_host(i);
        MPI_CHK(MPI_Comm_size(none, &size));
        CHECK(size == even, "shared among even ranks has %d ranks, want %d", size, even);
        MPI_CHK(MPI_Comm_free(&none));
    }

    /* From a subcommunicator: the shared split of the lower half is the
     * lower half's ranks on this host. */
    int lower = t_rank < t_size / 2;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, lower, t_rank, &half));
    MPI_CHK(MPI_Comm_split_type(half, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &halfnode));
    int lo = lower ? 0 : t_size / 2, hi = lower ? t_size / 2 : t_size;
    int mine = count_host(lo, hi, &below);
    MPI_CHK(MPI_Comm_compare(half, halfnode, &result));
    if (mine == hi - lo)
        CHECK(result == MPI_CONGRUENT, "shared split of a half gave compare %d", result);
    int sum = -1, want = 0;
    for (int i = lo; i < hi; i++)
        if (same_host(i)) want += i;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, halfnode));
    CHECK(sum == want, "Allreduce on the shared half gave %d, want %d", sum, want);

    MPI_CHK(MPI_Comm_free(&halfnode));
    MPI_CHK(MPI_Comm_free(&half));
    MPI_CHK(MPI_Comm_free(&rev));
    MPI_CHK(MPI_Comm_free(&node));
    free(names);
    return t_finish();
}
