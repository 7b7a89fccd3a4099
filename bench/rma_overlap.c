/* rma_overlap.c: is passive-target RMA truly one-sided? Rank 0 times
 * MPI_Win_lock(exclusive) + MPI_Get(1 MiB) + MPI_Win_unlock on rank 1's
 * window while rank 1, in each round, either
 *   busy       computes for 20 ms without calling MPI,
 *   idle_sleep sleeps for 20 ms (nanosleep: idle, but outside MPI),
 *   idle_mpi   waits in MPI_Barrier (inside MPI, free to progress);
 * then both meet in MPI_Barrier. Rank 0 does K timed operations per
 * round (started right after the round's barrier). If the target has to
 * take part, busy and idle_sleep times grow towards 20 ms; a truly
 * one-sided implementation gives busy / idle ratios near 1 (the goal is
 * below 1.2). Output: median and p99 per mode and the two ratios of
 * medians. Options: -r rounds (default 30), -k ops per round (default 4),
 * -m bytes (default 1M), -c compute ms (default 20), --create (window
 * from MPI_Win_create on malloc memory instead of MPI_Win_allocate),
 * --csv. Plain MPI C. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

enum { M_BUSY, M_SLEEP, M_MPI, M_COUNT };
static const char *const mode_name[M_COUNT] = {"busy", "idle_sleep", "idle_mpi"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* Floating-point work for `ms` milliseconds, no MPI calls. */
static void compute(double ms)
{
    double end = now() + ms * 1e-3, x = 1.0;
    while (now() < end)
        for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, rounds = 30, k = 4, csv = 0, create = 0;
    size_t bytes = (size_t)1 << 20;
    double ms = 20.0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--create")) create = 1;
        else if (!strcmp(a, "-r")) rounds = atoi(v), i++;
        else if (!strcmp(a, "-k")) k = atoi(v), i++;
        else if (!strcmp(a, "-c")) ms = atof(v), i++;
        else if (!strcmp(a, "-m")) {
            if (bench_parse_size(v, &bytes)) rounds = 0;
            i++;
        } else rounds = 0;
    }
    if (nranks < 2 || rounds < 1 || k < 1 || bytes < 1 || bytes > 0x7fffffff) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 rma_overlap [-r rounds] [-k ops] [-m bytes] "
                            "[-c ms] [--create] [--csv]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Aint wbytes = rank == 1 ? (MPI_Aint)bytes : 0;
    MPI_Win win;
    char *wmem = NULL;
    if (create) {
        wmem = bench_alloc((size_t)wbytes, 'w', 0);
        MPI_Win_create(wmem, wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
        if (wbytes) memset(wmem, 'w', (size_t)wbytes);
    }
    char *buf = bench_alloc(bytes, 0, 0);
    double *t[M_COUNT];
    for (int m = 0; m < M_COUNT; m++) {
        t[m] = malloc((size_t)rounds * (size_t)k * sizeof(double));
        if (!t[m]) bench_die("out of memory");
    }
    /* warm-up: first touch of the buffers, lock words */
    if (rank == 0)
        for (int i = 0; i < 3; i++) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Get(buf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
            MPI_Win_unlock(1, win);
        }
    MPI_Barrier(MPI_COMM_WORLD);

    /* rounds interleave the modes so slow phases of the machine hit all */
    for (int r = 0; r < rounds; r++)
        for (int m = 0; m < M_COUNT; m++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                for (int j = 0; j < k; j++) {
                    double t0 = MPI_Wtime();
                    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                    MPI_Get(buf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
                    MPI_Win_unlock(1, win);
                    t[m][r * k + j] = (MPI_Wtime() - t0) * 1e6;
                    if (buf[0] != 'w' || buf[bytes - 1] != 'w')
                        bench_die("data check failed (0x%02x)", (unsigned char)buf[0]);
                }
            } else if (rank == 1) {
                if (m == M_BUSY) compute(ms);
                else if (m == M_SLEEP) {
                    struct timespec ts = {0, (long)(ms * 1e6)};
                    nanosleep(&ts, NULL);
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }

    if (rank == 0) {
        int n = rounds * k;
        double med[M_COUNT], p99[M_COUNT];
        for (int m = 0; m < M_COUNT; m++) {
            med[m] = bench_quantile(t[m], n, 0.5);
            p99[m] = bench_quantile(t[m], n, 0.99);
        }
        char lib[256];
        bench_library_name(lib, sizeof lib);
        if (!csv) {
            printf("# rma_overlap on %s: lock(exclusive) + get %zu B + unlock on rank 1, window "
                   "from %s\n# rank 1 computes / sleeps %.0f ms or waits in MPI_Barrier; %d "
                   "rounds x %d ops; microseconds\n",
                   lib, bytes, create ? "MPI_Win_create" : "MPI_Win_allocate", ms, rounds, k);
            printf("%-11s %12s %12s %10s\n", "#mode", "median_us", "p99_us", "MB/s");
            for (int m = 0; m < M_COUNT; m++)
                printf("%-11s %12.1f %12.1f %10.1f\n", mode_name[m], med[m], p99[m],
                       (double)bytes / med[m]);
        } else {
            printf("test,size,median_us,p99_us,mbps\n");
            for (int m = 0; m < M_COUNT; m++)
                printf("overlap_%s,%zu,%.4f,%.4f,%.2f\n", mode_name[m], bytes, med[m], p99[m],
                       (double)bytes / med[m]);
        }
        printf("# ratio busy/idle_mpi = %.3f, busy/idle_sleep = %.3f (goal < 1.2)\n",
               med[M_BUSY] / med[M_MPI], med[M_BUSY] / med[M_SLEEP]);
    }
    MPI_Win_free(&win);
    if (create) bench_free(wmem, 0);
    bench_free(buf, 0);
    for (int m = 0; m < M_COUNT; m++) free(t[m]);
    MPI_Finalize();
    return 0;
}
