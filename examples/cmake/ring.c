/* ring.c: the program of the CMake example. Passes a token round the ring
 * of processes (each adds its rank), checks the sum and an allreduce, and
 * rank 0 prints one line that the ctest test matches. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long token = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        if (size > 1) {
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    }
    long want = (long)size * (size - 1) / 2, sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    int ok = sum == want && (rank != 0 || token == want);
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        printf("ring: %d processes, token 0+1+...=%ld %s (%s)\n", size, token,
               all_ok ? "OK" : "WRONG", lib);
    }
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
