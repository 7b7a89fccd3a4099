/* rma_bench.c: one-sided communication benchmark between ranks 0 and 1.
 * Rank 0 opens a passive-target epoch on the window (MPI_Win_lock_all)
 * and times operations on rank 1's memory while rank 1 waits in
 * MPI_Barrier; every operation is followed by MPI_Win_flush, so a sample
 * measures completed operations:
 *   put, get          8-byte MPI_Put / MPI_Get + flush (latency)
 *   acc               8-byte MPI_Accumulate(MPI_SUM, int64) + flush
 *   fop               MPI_Fetch_and_op(MPI_SUM, int64) + flush
 *   cas               MPI_Compare_and_swap(int64) + flush
 *   put_bw, get_bw    a window of W operations of each size, then one
 *                     flush; time per operation and MB/s
 *   acc_bw            the same with MPI_Accumulate(MPI_SUM, int64) (only
 *                     when asked for with -t)
 * With --exclusive rank 0 holds MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1)
 * instead of MPI_Win_lock_all.
 * Each test runs as many samples; the output is the median and p99 over
 * samples of the time per operation (and MB/s from the median), as
 * dmpi_bench_pt2pt does. The window comes from MPI_Win_allocate, or with
 * --create from MPI_Win_create on malloc memory (--alloc-mem: on
 * MPI_Alloc_mem memory). Plain MPI C: builds with any MPI. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { T_PUT, T_GET, T_ACC, T_FOP, T_CAS, T_PUT_BW, T_GET_BW, T_ACC_BW, T_COUNT };
static const char *const names[T_COUNT] = {"put", "get", "acc", "fop", "cas", "put_bw", "get_bw",
                                           "acc_bw"};

struct options {
    int tests[T_COUNT], ntests;
    size_t sizes[BENCH_MAX_SIZES]; /* for the bandwidth tests */
    int nsizes, iters, bw_iters, samples, warmup, window, csv, raw, create, alloc_mem, exclusive;
};

static void usage(void)
{
    printf("usage: rma_bench [options]   (run with 2 ranks)\n"
           "  -t LIST        tests: put,get,acc,fop,cas,put_bw,get_bw (default),\n"
           "                 acc_bw (sizes a multiple of 8)\n"
           "  -m SIZES       sizes of put_bw/get_bw: a,b,c or min:max, K/M (default 64K,4M)\n"
           "  -i iters       operations per sample of the latency tests (default 100)\n"
           "  -I windows     windows per sample of put_bw/get_bw (default 4)\n"
           "  -s samples     samples per test and size (default 100)\n"
           "  -x warmup      untimed iterations first (default 10)\n"
           "  -w window      operations per flush in put_bw/get_bw (default 16)\n"
           "  --create       window from MPI_Win_create on malloc memory\n"
           "  --alloc-mem    window from MPI_Win_create on MPI_Alloc_mem memory\n"
           "  --exclusive    MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on rank 1, not lock_all\n"
           "  --csv          test,size,median_us,p99_us,mbps lines\n"
           "  --raw          every sample: test,size,sample,us\n"
           "Times are per operation, each completed by MPI_Win_flush (bandwidth tests:\n"
           "one flush per window). Rank 1 waits in MPI_Barrier meanwhile.\n");
}

static int parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < T_ACC_BW; k++) o->tests[o->ntests++] = k;
    o->nsizes = bench_parse_sizes("64K,4M", o->sizes, BENCH_MAX_SIZES);
    o->samples = 100;
    o->warmup = 10;
    o->window = 16;
    o->iters = 100;
    o->bw_iters = 4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!strcmp(a, "--csv")) { o->csv = 1; continue; }
        if (!strcmp(a, "--raw")) { o->raw = 1; continue; }
        if (!strcmp(a, "--create")) { o->create = 1; continue; }
        if (!strcmp(a, "--alloc-mem")) { o->create = o->alloc_mem = 1; continue; }
        if (!strcmp(a, "--exclusive")) { o->exclusive = 1; continue; }
        if (!v) return -1;
        i++;
        if (!strcmp(a, "-t")) {
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            o->ntests = 0;
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int k = 0;
                while (k < T_COUNT && strcmp(tok, names[k])) k++;
                if (k == T_COUNT || o->ntests == T_COUNT) return -1;
                o->tests[o->ntests++] = k;
            }
        } else if (!strcmp(a, "-m")) {
            if ((o->nsizes = bench_parse_sizes(v, o->sizes, BENCH_MAX_SIZES)) < 1) return -1;
        } else if (!strcmp(a, "-i")) {
            if ((o->iters = atoi(v)) < 1) return -1;
        } else if (!strcmp(a, "-I")) {
            if ((o->bw_iters = atoi(v)) < 1) return -1;
        } else if (!strcmp(a, "-s")) {
            if ((o->samples = atoi(v)) < 1) return -1;
        } else if (!strcmp(a, "-x")) {
            o->warmup = atoi(v);
        } else if (!strcmp(a, "-w")) {
            if ((o->window = atoi(v)) < 1) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* One sample of `iters` iterations of test t (rank 0); seconds per op. */
static double sample(int t, size_t size, int iters, int window, MPI_Win win, char *buf,
                     char *res)
{
    int64_t one = 1, cmp = 0, swp = 0, out;
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        switch (t) {
        case T_PUT: MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win); break;
        case T_GET: MPI_Get(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win); break;
        case T_ACC: MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 8, 1, MPI_INT64_T, MPI_SUM, win); break;
        case T_FOP: MPI_Fetch_and_op(&one, &out, MPI_INT64_T, 1, 16, MPI_SUM, win); break;
        case T_CAS: MPI_Compare_and_swap(&swp, &cmp, &out, MPI_INT64_T, 1, 24, win); break;
        case T_PUT_BW:
            for (int w = 0; w < window; w++)
                MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        case T_ACC_BW:
            for (int w = 0; w < window; w++)
                MPI_Accumulate(buf, (int)(size / 8), MPI_INT64_T, 1, 0, (int)(size / 8),
                               MPI_INT64_T, MPI_SUM, win);
            break;
        case T_GET_BW: /* each into its own slot: the gets may be in flight together */
            for (int w = 0; w < window; w++)
                MPI_Get(res + (size_t)w * size, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        }
        MPI_Win_flush(1, win);
    }
    int per = t >= T_PUT_BW ? window : 1;
    return (MPI_Wtime() - t0) / ((double)iters * per);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc != 0 || nranks < 2) {
        if (rank == 0) {
            if (rc > 0) usage();
            else if (rc < 0) fprintf(stderr, "rma_bench: bad option (-h for help)\n");
            else fprintf(stderr, "rma_bench: needs 2 ranks (got %d)\n", nranks);
        }
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    size_t maxsize = 64;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsize) maxsize = o.sizes[i];
    if (maxsize > 0x7fffffff) bench_die("size %zu does not fit an int count", maxsize);
    /* rank 1's window holds one message; ranks above 1 give none */
    MPI_Aint wbytes = rank == 1 ? (MPI_Aint)maxsize : 0;
    MPI_Win win;
    char *wmem = NULL;
    if (o.create) {
        wmem = bench_alloc((size_t)wbytes, 0, o.alloc_mem);
        MPI_Win_create(wmem, wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
        if (wbytes) memset(wmem, 0, (size_t)wbytes);
    }
    char *buf = bench_alloc(maxsize, 'b', 0);
    char *res = rank == 0 ? bench_alloc(maxsize * (size_t)o.window, 'r', 0) : NULL;
    double *samples = malloc((size_t)o.samples * sizeof *samples);
    if (!samples) bench_die("out of memory");
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        if (!o.csv && !o.raw) {
            char lib[256];
            bench_library_name(lib, sizeof lib);
            printf("# rma_bench on %s, %d ranks (0 and 1 take part), window from %s\n", lib,
                   nranks, o.alloc_mem ? "MPI_Win_create(MPI_Alloc_mem)"
                           : o.create ? "MPI_Win_create(malloc)" : "MPI_Win_allocate");
            printf("# %s + op + flush; %d samples; times in microseconds per operation\n",
                   o.exclusive ? "exclusive lock" : "lock_all", o.samples);
        }
        bench_print_header(o.csv, o.raw);
        if (o.exclusive) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        else MPI_Win_lock_all(0, win);
        for (int k = 0; k < o.ntests; k++) {
            int t = o.tests[k], bw = t >= T_PUT_BW;
            int nsz = bw ? o.nsizes : 1;
            for (int si = 0; si < nsz; si++) {
                size_t size = bw ? o.sizes[si] : 8;
                int iters = bw ? o.bw_iters : o.iters;
                int window = bw ? o.window : 1;
                if (bw && size * (size_t)window > ((size_t)256 << 20)) window = 1;
                if (o.warmup > 0) sample(t, size, bw ? 1 : o.warmup, window, win, buf, res);
                for (int s = 0; s < o.samples; s++)
                    samples[s] = 1e6 * sample(t, size, iters, window, win, buf, res);
                if (o.raw) {
                    for (int s = 0; s < o.samples; s++)
                        printf("%s,%zu,%d,%.4f\n", names[t], size, s, samples[s]);
                    continue;
                }
                double med = bench_quantile(samples, o.samples, 0.5);
                double p99 = bench_quantile(samples, o.samples, 0.99);
                bench_print_result(o.csv, names[t], size, med, p99,
                                   med > 0 ? (double)size / med : 0.0);
            }
        }
        if (o.exclusive) MPI_Win_unlock(1, win);
        else MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 (and the rest) wait here */
    MPI_Win_free(&win);
    if (o.create) bench_free(wmem, o.alloc_mem);
    bench_free(buf, 0);
    if (res) bench_free(res, 0);
    free(samples);
    MPI_Finalize();
    return 0;
}
