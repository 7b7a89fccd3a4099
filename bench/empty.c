/* bench/empty.c: the empty MPI program of bench/slurm_startup.sh, which
 * times how long a launcher takes to start and end a job: MPI_Init and
 * MPI_Finalize, nothing in between. With the argument "--check" (used once
 * per case before timing, never in the timed runs) every rank prints
 * "rank R of N" so that the script can see that the ranks formed one job
 * and were not N singletons. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "--check") == 0) {
        int rank, size;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        printf("rank %d of %d\n", rank, size);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
