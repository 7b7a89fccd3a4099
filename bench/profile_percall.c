/* profile_percall: what the MPI profile (mpiexec --profile,
 * docs/profile.md) adds to one MPI call: ns per call of a trivial call
 * (MPI_Comm_size), a one-sided MPI_Accumulate to this rank under
 * MPI_Win_lock_all (the call bfs makes a million times), and an 8 B
 * MPI_Isend + MPI_Irecv + MPI_Waitall to itself. Run it with and without
 * the profile (bench/profile_overhead.sh does, alternating); one rank.
 * Each loop runs in PERCALL_BLOCKS blocks and the median block's ns per
 * call is printed, so that a block the (shared) machine took the core from
 * does not count.
 *   profile_percall [-n CALLS] [--csv]   prints call,ns_per_call lines */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define PERCALL_BLOCKS 50
/* out = median over the blocks of ns per call of stmt, run calls times in all */
#define PERCALL(out, calls, stmt)                                             \
    do {                                                                      \
        double ns_[PERCALL_BLOCKS];                                           \
        long per_ = (calls) / PERCALL_BLOCKS > 0 ? (calls) / PERCALL_BLOCKS : 1; \
        for (int b_ = 0; b_ < PERCALL_BLOCKS; b_++) {                         \
            double t0_ = MPI_Wtime();                                         \
            for (long i = 0; i < per_; i++) { stmt; }                         \
            ns_[b_] = (MPI_Wtime() - t0_) / (double)per_ * 1e9;               \
        }                                                                     \
        out = bench_quantile(ns_, PERCALL_BLOCKS, 0.5);                       \
    } while (0)

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
    double ns_size, ns_acc, ns_p2p;
    PERCALL(ns_size, n, MPI_Comm_size(MPI_COMM_WORLD, &size));
    PERCALL(ns_acc, n, MPI_Accumulate(&x, 1, MPI_INT, 0, i & 511, 1, MPI_INT, MPI_MIN, win);
            if (i == per_ - 1) MPI_Win_flush_all(win)); /* the block's last call waits for them */
    char s[8] = {0}, r[8];
    MPI_Request q[2];
    PERCALL(ns_p2p, n / 10, MPI_Irecv(r, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF, &q[0]);
            MPI_Isend(s, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF, &q[1]); MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (rank == 0) {
        const char *fmt = csv ? "%s,%.1f\n" : "%-28s %8.1f ns per call\n";
        printf(fmt, "MPI_Comm_size", ns_size);
        printf(fmt, "MPI_Accumulate", ns_acc);
        printf(fmt, "Irecv+Isend+Waitall_8B_self", ns_p2p);
    }
    MPI_Finalize();
    return 0;
}
