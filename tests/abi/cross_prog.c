/* cross_prog.c: a small MPI program used to show binary compatibility
 * through the standard ABI: built by one implementation's compiler wrapper
 * and run on the other's library. It exchanges messages in a ring (eager
 * and rendezvous sizes), does an Allreduce and a Bcast, checks the results,
 * checks a few predefined handles and error classes, and prints which
 * library ran it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sizes[] = {8, 4096, 1 << 20};
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        char *s = malloc((size_t)n), *r = malloc((size_t)n);
        memset(s, 'a' + rank % 26, (size_t)n);
        MPI_Status st;
        int left = (rank + size - 1) % size;
        MPI_Sendrecv(s, n, MPI_CHAR, (rank + 1) % size, k, r, n, MPI_CHAR, left, k,
                     MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_CHAR, &cnt);
        if (cnt != n || st.MPI_SOURCE != left || r[0] != 'a' + left % 26 ||
            r[n - 1] != 'a' + left % 26)
            bad++;
        free(s);
        free(r);
    }
    long v = rank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * (size + 1) / 2) bad++;
    double d = rank == 0 ? 3.25 : 0;
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (d != 3.25) bad++;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Send(&v, 1, MPI_LONG, size + 5, 0, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(err, &cls);
    if (cls != MPI_ERR_RANK) bad++;
    int total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *nl = strchr(lib, '\n');
        if (nl) *nl = 0;
        printf("library: %.80s\n", lib);
        printf("%s (%d errors)\n", total ? "cross_prog: FAILED" : "cross_prog: PASSED", total);
    }
    MPI_Finalize();
    return total != 0;
}
