/* profile_percall: what the MPI profile (mpiexec --profile,
 * docs/profile.md) adds to one MPI call: ns per call of a trivial call
 * (MPI_Comm_size), a one-sided MPI_Accumulate to this rank under
 * MPI_Win_lock_all (the call bfs makes a million times), and an 8 B
 * MPI_Isend + MPI_Irecv + MPI_Waitall to itself. Run it with and without
 * the profile (bench/profile_overhead.sh does, alternating); one rank.
 *   profile_percall [-n CALLS] [--csv]   prints call,ns_per_call lines */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = 1000000;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--csv")) csv = 1;
        else {
            fprintf(stderr, "profile_percall: unknown argument %s (-n CALLS, --csv)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank, size, x = 1, *base;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_allocate(4096, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    MPI_Win_lock_all(0, win);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t_size = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) MPI_Accumulate(&x, 1, MPI_INT, 0, i & 511, 1, MPI_INT, MPI_MIN, win);
    MPI_Win_flush_all(win);
    double t_acc = MPI_Wtime() - t0;
    char s[8] = {0}, r[8];
    MPI_Request q[2];
    long m = n / 10;
    t0 = MPI_Wtime();
    for (long i = 0; i < m; i++) {
        MPI_Irecv(r, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF, &q[0]);
        MPI_Isend(s, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
    double t_p2p = MPI_Wtime() - t0;
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (rank == 0) {
        const char *fmt = csv ? "%s,%.1f\n" : "%-28s %8.1f ns per call\n";
        printf(fmt, "MPI_Comm_size", t_size / (double)n * 1e9);
        printf(fmt, "MPI_Accumulate", t_acc / (double)n * 1e9);
        printf(fmt, "Irecv+Isend+Waitall_8B_self", t_p2p / (double)m * 1e9);
    }
    MPI_Finalize();
    return 0;
}
