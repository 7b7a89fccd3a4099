/* abort.c: MPI_Abort ends the whole job.  The last rank calls
 * MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in MPI_Barrier and
 * MPI_Recv for something that never happens.  EXPECTED TO FAIL: the runner
 * checks that the job exits nonzero without hanging.  Should MPI_Abort
 * return, the program says so and releases the others, and the job exits 0
 * (reported as a failure). */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int buf = 0;
    if (t_rank == t_size - 1) {
        t_sleep_ms(100); /* let the others block first */
        MPI_Abort(MPI_COMM_WORLD, 3);
        fprintf(stderr, "abort: MPI_Abort returned\n");
        for (int r = 0; r < t_size - 1; r++)
            MPI_Send(&buf, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        if (t_rank % 2)
            MPI_Recv(&buf, 1, MPI_INT, t_size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank % 2 == 0)
            MPI_Recv(&buf, 1, MPI_INT, t_size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
