/* slurm_prog.c: the small MPI program of tests/slurm/run_slurm.sh, the
 * checks of dmpi under a real Slurm (srun, sbatch, salloc + mpiexec).
 * Built by the script with BUILD_DIR/bin/mpicc.
 *
 * Usage: slurm_prog MODE [N]
 *   hello  every rank prints "slurm_prog: rank R of N on HOST", then the
 *          ranks check an Allreduce of their ranks and a ring exchange, and
 *          with N that MPI_COMM_WORLD has N ranks (K ranks that each think
 *          they are a singleton fail there); rank 0 prints " No Errors"
 *          when all is well; exit 0, else 1.
 *   abort  every rank prints "slurm_prog: rank R of N ready" and enters a
 *          barrier; then the last rank calls MPI_Abort(MPI_COMM_WORLD, 3) after 200 ms
 *          while the others wait in MPI_Recv from it and MPI_Barrier: the
 *          job must end with a nonzero status, never by itself.
 *   kill   the last rank sends itself SIGKILL after 200 ms while the others
 *          wait for it as in abort: the job must end with a nonzero status.
 * In abort and kill, a rank that returns from the wait says so and exits 0
 * (a job that then ends with status 0 is the failure the script reports). */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int hello(int rank, int size, int want)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int len = 0, errs = 0;
    MPI_Get_processor_name(host, &len);
    printf("slurm_prog: rank %d of %d on %s\n", rank, size, host);
    fflush(stdout);

    if (want > 0 && size != want) {
        fprintf(stderr, "slurm_prog: rank %d: MPI_COMM_WORLD has %d ranks, want %d\n", rank,
                size, want);
        errs++;
    }
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "slurm_prog: rank %d: Allreduce gave %d, want %d\n", rank, sum,
                size * (size - 1) / 2);
        errs++;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (got != left) {
        fprintf(stderr, "slurm_prog: rank %d: got %d from the left, want %d\n", rank, got, left);
        errs++;
    }
    int all = 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0 || errs != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "hello";

    if (strcmp(mode, "hello") == 0)
        return hello(rank, size, argc > 2 ? atoi(argv[2]) : 0);
    if (strcmp(mode, "abort") != 0 && strcmp(mode, "kill") != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: slurm_prog hello|abort|kill\n");
        MPI_Finalize();
        return 2;
    }
    int buf = 0;
    printf("slurm_prog: rank %d of %d ready\n", rank, size);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        sleep_ms(200); /* the others are waiting by now */
        if (mode[0] == 'a') {
            MPI_Abort(MPI_COMM_WORLD, 3);
            fprintf(stderr, "slurm_prog: rank %d: MPI_Abort returned\n", rank);
        } else {
            raise(SIGKILL);
            fprintf(stderr, "slurm_prog: rank %d: SIGKILL did not kill\n", rank);
        }
        for (int r = 0; r < size - 1; r++)
            MPI_Send(&buf, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fprintf(stderr, "slurm_prog: rank %d: the wait for rank %d returned\n", rank, size - 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
