/* dtype_pack.c: pack/unpack throughput of derived datatypes with MPI_Pack
 * and MPI_Unpack: the three faces of a 128^3 array of doubles (subarray
 * types: a contiguous plane, 128 rows of 1 KiB, 16384 single doubles 1 KiB
 * apart) and two strided vectors, plus a plain memcpy of the same bytes as
 * the ceiling. Each case is timed as many samples (a sample = a batch of
 * iterations timed with MPI_Wtime); the output gives GB/s (10^9 bytes/s of
 * packed data) at the median sample and at the slowest 1% (p99 time).
 * Every rank runs the cases on its own (run it with one rank for a clean
 * figure); rank 0 prints. Plain MPI C: builds with dmpi, MPICH, Open MPI.
 *
 *   mpiexec -n 1 dtype_pack [-s samples] [-n edge] [--csv]            */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_SAMPLES 1000

typedef struct {
    const char *name;
    MPI_Datatype type;
    long bytes; /* packed size of one element */
} bcase;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Iterations so that one sample takes about 5 ms. */
static int calibrate(double one)
{
    if (one <= 0) return 1000;
    double n = 5e-3 / one;
    return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

enum { OP_PACK, OP_UNPACK, OP_MEMCPY };

/* Runs `samples` samples of op on case c; fills t[] with seconds per op. */
static void measure(int op, const bcase *c, double *arr, char *packed, int samples, double *t)
{
    int pos;
    double t0 = MPI_Wtime();
    for (int w = 0; w < 3; w++) { /* warm-up, and a first timing */
        pos = 0;
        if (op == OP_PACK) MPI_Pack(arr, 1, c->type, packed, (int)c->bytes, &pos, MPI_COMM_SELF);
        else if (op == OP_UNPACK)
            MPI_Unpack(packed, (int)c->bytes, &pos, arr, 1, c->type, MPI_COMM_SELF);
        else memcpy(packed, arr, (size_t)c->bytes);
    }
    int iters = calibrate((MPI_Wtime() - t0) / 3);
    for (int s = 0; s < samples; s++) {
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            pos = 0;
            if (op == OP_PACK) MPI_Pack(arr, 1, c->type, packed, (int)c->bytes, &pos, MPI_COMM_SELF);
            else if (op == OP_UNPACK)
                MPI_Unpack(packed, (int)c->bytes, &pos, arr, 1, c->type, MPI_COMM_SELF);
            else memcpy(packed, arr, (size_t)c->bytes);
        }
        t[s] = (MPI_Wtime() - t0) / iters;
    }
    qsort(t, (size_t)samples, sizeof *t, cmp_double);
}

/* Packs, unpacks into a cleared array and compares with the source. */
static int verify(const bcase *c, const double *src, double *scratch, char *packed, long n)
{
    int pos = 0;
    MPI_Pack(src, 1, c->type, packed, (int)c->bytes, &pos, MPI_COMM_SELF);
    memset(scratch, 0, (size_t)n * sizeof(double));
    pos = 0;
    MPI_Unpack(packed, (int)c->bytes, &pos, scratch, 1, c->type, MPI_COMM_SELF);
    long moved = 0;
    for (long i = 0; i < n; i++) {
        if (scratch[i] == 0) continue;
        if (scratch[i] != src[i]) return -1;
        moved++;
    }
    return moved * (long)sizeof(double) == c->bytes ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, samples = 50, edge = 128, csv = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) edge = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv")) csv = 1;
        else {
            if (rank == 0)
                printf("usage: dtype_pack [-s samples (default 50)] [-n edge (default 128)] [--csv]\n");
            MPI_Finalize();
            return 0;
        }
    }
    if (samples < 1) samples = 1;
    if (samples > MAX_SAMPLES) samples = MAX_SAMPLES;
    long n = (long)edge * edge * edge;
    double *arr = bench_alloc((size_t)n * sizeof(double), 0, 0);
    double *scratch = bench_alloc((size_t)n * sizeof(double), 0, 0);
    for (long i = 0; i < n; i++) arr[i] = (double)(i + 1);

    bcase cases[6];
    int nc = 0;
    int sizes[3] = {edge, edge, edge};
    static const char *face_names[3] = {"face_dim0 (plane)", "face_dim1 (rows)",
                                        "face_dim2 (points)"};
    for (int d = 0; d < 3; d++) { /* the face at index 1 of dimension d */
        int sub[3] = {edge, edge, edge}, start[3] = {0, 0, 0};
        sub[d] = 1;
        start[d] = 1;
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &cases[nc].type);
        cases[nc++].name = face_names[d];
    }
    MPI_Type_vector(edge * edge * edge / 4, 1, 2, MPI_DOUBLE, &cases[nc].type);
    cases[nc++].name = "vector 1 of 2";
    MPI_Type_vector(edge * edge * edge / 32, 8, 16, MPI_DOUBLE, &cases[nc].type);
    cases[nc++].name = "vector 8 of 16";
    for (int i = 0; i < nc; i++) {
        int sz;
        MPI_Type_commit(&cases[i].type);
        MPI_Type_size(cases[i].type, &sz);
        cases[i].bytes = sz;
    }
    long maxbytes = 0;
    for (int i = 0; i < nc; i++)
        if (cases[i].bytes > maxbytes) maxbytes = cases[i].bytes;
    char *packed = bench_alloc((size_t)maxbytes, 0, 0);
    double t[MAX_SAMPLES];

    char lib[256];
    bench_library_name(lib, sizeof lib);
    if (rank == 0) {
        if (csv) {
            printf("case,bytes,op,median_gbps,p99_gbps\n");
        } else {
            printf("# dtype_pack: MPI_Pack / MPI_Unpack throughput, %d^3 doubles, %d samples\n",
                   edge, samples);
            printf("# %s\n", lib);
            printf("%-20s %10s %8s %12s %12s\n", "case", "bytes", "op", "median_GB/s", "p99_GB/s");
        }
    }
    for (int i = 0; i < nc; i++) {
        if (verify(&cases[i], arr, scratch, packed, n) != 0)
            bench_die("%s: packed data does not match the array", cases[i].name);
        for (int op = 0; op < 3; op++) {
            double *target = op == OP_UNPACK ? scratch : arr;
            measure(op, &cases[i], target, packed, samples, t);
            double med = t[samples / 2], p99 = t[(int)(0.99 * (samples - 1) + 0.5)];
            static const char *const opname[3] = {"pack", "unpack", "memcpy"};
            double gmed = cases[i].bytes / med / 1e9, gp99 = cases[i].bytes / p99 / 1e9;
            if (rank != 0) continue;
            if (csv)
                printf("%s,%ld,%s,%.3f,%.3f\n", cases[i].name, cases[i].bytes, opname[op], gmed, gp99);
            else
                printf("%-20s %10ld %8s %12.2f %12.2f\n", cases[i].name, cases[i].bytes, opname[op],
                       gmed, gp99);
        }
        MPI_Type_free(&cases[i].type);
    }
    bench_free(packed, 0);
    bench_free(arr, 0);
    bench_free(scratch, 0);
    MPI_Finalize();
    return 0;
}
