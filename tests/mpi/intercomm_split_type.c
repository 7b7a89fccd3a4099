/* intercomm_split_type.c: MPI_Comm_split_type on an intercommunicator (as
 * MPICH and Open MPI accept; mpi4py's test_comm_inter uses it): with
 * MPI_COMM_TYPE_SHARED every process is on this node, so the result is an
 * intercommunicator between the whole of both groups; with MPI_UNDEFINED
 * it is MPI_COMM_NULL. Needs at least 2 processes. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2) {
        if (t_rank == 0) printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    int half = t_size / 2, low = t_rank < half;
    MPI_Comm local, inter, split;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, low, t_rank, &local));
    MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter));

    MPI_CHK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, t_rank, MPI_INFO_NULL, &split));
    CHECK(split != MPI_COMM_NULL, "SHARED split of an intercommunicator gave MPI_COMM_NULL");
    if (split != MPI_COMM_NULL) {
        int flag = 0, lsize = 0, rsize = 0;
        MPI_CHK(MPI_Comm_test_inter(split, &flag));
        MPI_CHK(MPI_Comm_size(split, &lsize));
        MPI_CHK(MPI_Comm_remote_size(split, &rsize));
        int want_l = low ? half : t_size - half, want_r = t_size - want_l;
        CHECK(flag && lsize == want_l && rsize == want_r, "inter %d, sizes %d/%d, want %d/%d",
              flag, lsize, rsize, want_l, want_r);
        int mine = 1, sum = 0; /* the result carries traffic between the groups */
        MPI_CHK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, split));
        CHECK(sum == want_r, "allreduce over the split intercommunicator gave %d, want %d", sum,
              want_r);
        MPI_CHK(MPI_Comm_free(&split));
    }
    MPI_CHK(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &split));
    CHECK(split == MPI_COMM_NULL, "MPI_UNDEFINED split gave a communicator");
    MPI_CHK(MPI_Comm_free(&inter));
    MPI_CHK(MPI_Comm_free(&local));
    return t_finish();
}
