/* part_bench.c: partitioned communication, partitions sent as they become
 * ready (MPI_Psend_init + MPI_Pready after each partition's work) against
 * one message at the end (a persistent MPI_Send_init of the whole buffer,
 * started once all the work is done). Two ranks: rank 0 computes P
 * partitions of S bytes, spending W microseconds on each before it is
 * ready; rank 1 receives and answers with an empty message. A round is
 * timed at rank 0 from its start to the answer, so it is the work plus
 * whatever of the transfer the work did not hide, plus one latency.
 *
 *   mpiexec -n 2 bench/part_bench [-p P] [-w W1,W2,..] [-s SIZES] [-n ROUNDS]
 *
 * SIZES as in the other benchmarks ("64:1M" doubles, "a,b,c" a list) are
 * partition sizes. Prints per (S, W): the median round time of both ways
 * in microseconds and end/part (above 1: sending as ready is faster). In
 * dmpi, partitions smaller than DMPI_PART_SPLIT_MIN bytes are sent as one
 * message at the end anyway; run with DMPI_PART_SPLIT_MIN=0 to see what
 * splitting them would give. */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void work(double us, char *part, size_t n)
{
    double end = MPI_Wtime() + us * 1e-6;
    size_t i = 0;
    while (MPI_Wtime() < end) part[i++ % (n ? n : 1)] += n ? 1 : 0; /* touch the data */
    if (n) part[0]++;
}

/* One round either way; returns rank 0's time for it. */
static double round_part(MPI_Request req, char *buf, int P, size_t S, double W, int rank)
{
    double t0 = MPI_Wtime();
    MPI_Start(&req);
    if (rank == 0) {
        for (int i = 0; i < P; i++) {
            work(W, buf + (size_t)i * S, S);
            MPI_Pready(i, req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static double round_end(MPI_Request req, char *buf, int P, size_t S, double W, int rank)
{
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (int i = 0; i < P; i++) work(W, buf + (size_t)i * S, S);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int P = 8, rounds = 30;
    const char *spec = "64:1M", *wspec = "0,20";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-p")) P = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s")) spec = argv[i + 1];
        else if (!strcmp(argv[i], "-w")) wspec = argv[i + 1];
        else if (!strcmp(argv[i], "-n")) rounds = atoi(argv[i + 1]);
    }
    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_parse_sizes(spec, sizes, BENCH_MAX_SIZES);
    if (size != 2 || nsizes < 1 || P < 1 || rounds < 1) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpiexec -n 2 part_bench [-p P] [-w W,..] [-s SIZES] [-n ROUNDS]\n");
        MPI_Finalize();
        return 1;
    }
    double ws[16];
    int nw = 0;
    for (const char *c = wspec; *c && nw < 16;) {
        ws[nw++] = atof(c);
        c = strchr(c, ',');
        if (!c) break;
        c++;
    }
    double *tp = malloc((size_t)rounds * sizeof(double));
    double *te = malloc((size_t)rounds * sizeof(double));
    if (rank == 0)
        printf("# part_bench: %d partitions, median of %d rounds\n# %10s %8s %12s %12s %9s\n", P,
               rounds, "part_bytes", "work_us", "part_us", "end_us", "end/part");
    for (int w = 0; w < nw; w++)
        for (int k = 0; k < nsizes; k++) {
            size_t S = sizes[k] ? sizes[k] : 1;
            char *buf = bench_alloc(S * (size_t)P, 1, 0);
            MPI_Request pr, er;
            if (rank == 0) {
                MPI_Psend_init(buf, P, (MPI_Count)S, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &pr);
                MPI_Send_init(buf, (int)(S * (size_t)P), MPI_BYTE, 1, 2, MPI_COMM_WORLD, &er);
            } else {
                MPI_Precv_init(buf, P, (MPI_Count)S, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &pr);
                MPI_Recv_init(buf, (int)(S * (size_t)P), MPI_BYTE, 0, 2, MPI_COMM_WORLD, &er);
            }
            for (int r = -3; r < rounds; r++) { /* alternating, 3 warm-up rounds */
                MPI_Barrier(MPI_COMM_WORLD);
                double a = round_part(pr, buf, P, S, ws[w], rank);
                MPI_Barrier(MPI_COMM_WORLD);
                double b = round_end(er, buf, P, S, ws[w], rank);
                if (r >= 0) {
                    tp[r] = a;
                    te[r] = b;
                }
            }
            if (rank == 0) {
                double mp = bench_quantile(tp, rounds, 0.5) * 1e6;
                double me = bench_quantile(te, rounds, 0.5) * 1e6;
                printf("  %10zu %8.1f %12.2f %12.2f %9.2f\n", S, ws[w], mp, me, me / mp);
                fflush(stdout);
            }
            MPI_Request_free(&pr);
            MPI_Request_free(&er);
            bench_free(buf, 0);
        }
    free(tp);
    free(te);
    MPI_Finalize();
    return 0;
}
