/* errors_fatal.c: with the default error handler (MPI_ERRORS_ARE_FATAL) a
 * bad call ends the whole job.  Rank 0 calls MPI_Send with a rank that does
 * not exist while every other rank waits in MPI_Recv for a message that
 * never comes.  EXPECTED TO FAIL: the runner checks that the job exits
 * nonzero, without hanging, and that the output names MPI_Send.  Should
 * the call return instead, the program says so, releases the other ranks
 * and exits 0, which the runner reports as a failure. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int buf = 42;
    if (t_rank == 0) {
        int rc = MPI_Send(&buf, 1, MPI_INT, t_size + 1, 0, MPI_COMM_WORLD);
        fprintf(stderr, "errors_fatal: MPI_Send to rank %d returned %d instead of aborting\n",
                t_size + 1, rc);
        for (int r = 1; r < t_size; r++)
            MPI_Send(&buf, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
