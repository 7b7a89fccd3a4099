/* coll_bench.c: latency of the collectives Barrier, Bcast, Allreduce,
 * Reduce, Allgather and Alltoall (and, when asked for, Allgatherv and
 * Alltoallv with equal counts) on MPI_COMM_WORLD, at several message
 * sizes (default 8 B, 1 KiB, 64 KiB, 1 MiB). Each size is measured as many
 * samples; a sample is a batch of back-to-back calls, timed on every rank,
 * and its value is the slowest rank's time per call (the time the
 * collective takes for the whole communicator). The output is the median
 * and p99 over samples. Sizes are bytes per process: the vector of Bcast,
 * Reduce and Allreduce (as doubles, summed; as bytes when not a multiple
 * of 8), each process's block of Allgather(v), each pair's block of
 * Alltoall(v). With --nb every call is the nonblocking form (MPI_Ibarrier,
 * MPI_Ibcast, ...) followed by MPI_Wait.
 * Plain MPI C: the same source builds with dmpi, MPICH and Open MPI. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { T_BARRIER, T_BCAST, T_ALLREDUCE, T_REDUCE, T_ALLGATHER, T_ALLTOALL, T_DEFAULT,
       T_ALLGATHERV = T_DEFAULT, T_ALLTOALLV, T_COUNT };
static const char *const test_names[T_COUNT] = { "barrier", "bcast", "allreduce",
                                                  "reduce", "allgather", "alltoall",
                                                  "allgatherv", "alltoallv" };

struct options {
    int tests[T_COUNT], ntests;
    size_t sizes[BENCH_MAX_SIZES];
    int nsizes;
    int iters;     /* calls per sample; <= 0: by size */
    int samples;
    int warmup;    /* untimed calls per size */
    size_t budget; /* bytes one sample may move per process */
    int csv, raw;
    int nb; /* --nb: MPI_I<name> + MPI_Wait */
};

static void usage(void)
{
    printf("usage: coll_bench [options]   (any number of ranks)\n"
           "  -t NAME[,...]   tests: barrier bcast allreduce reduce allgather alltoall\n"
           "                  (default: these), allgatherv alltoallv (equal counts)\n"
           "  -m min:max | a,b,c  sizes in bytes per process, K/M suffixes\n"
           "                  (default 8,1K,64K,1M; barrier runs once, as size 0)\n"
           "  -i iters        calls per sample (default 50, fewer for large sizes)\n"
           "  -s samples      samples per size (default 50)\n"
           "  -x warmup       untimed calls per size (default 5)\n"
           "  -B bytes        data one sample may move per process before the\n"
           "                  calls per sample are reduced (default 64M)\n"
           "  --nb            the nonblocking forms, each call waited for at once\n"
           "  --csv           test,size,median_us,p99_us,mbps lines\n"
           "  --raw           every sample: test,size,sample,us lines\n"
           "Times are microseconds per call: the slowest rank's time of a sample\n"
           "divided by its calls. MB/s = bytes per process / median time.\n");
}

static int parse_tests(const char *spec, struct options *o)
{
    char buf[128];
    if (strlen(spec) >= sizeof buf) return -1;
    strcpy(buf, spec);
    o->ntests = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = 0; k < T_COUNT && strcmp(tok, test_names[k]) != 0; k++)
            ;
        if (k == T_COUNT || o->ntests == T_COUNT) return -1;
        o->tests[o->ntests++] = k;
    }
    return o->ntests > 0 ? 0 : -1;
}

static int parse_int(const char *s, int min, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < min || v > 1000000000L) return -1;
    *out = (int)v;
    return 0;
}

/* 0 to run, 1 to exit quietly (help), -1 on a bad option. */
static int parse_options(int argc, char **argv, struct options *o, int verbose)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < T_DEFAULT; k++) o->tests[k] = k;
    o->ntests = T_DEFAULT;
    o->nsizes = bench_parse_sizes("8,1K,64K,1M", o->sizes, BENCH_MAX_SIZES);
    o->samples = 50;
    o->warmup = 5;
    o->budget = (size_t)64 << 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return 1;
        } else if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (!strcmp(a, "--raw")) {
            o->raw = 1;
        } else if (!strcmp(a, "--nb")) {
            o->nb = 1;
        } else if (!v || a[0] != '-' || strlen(a) != 2) {
            bad = 1;
        } else {
            i++;
            switch (a[1]) {
            case 't': bad = parse_tests(v, o); break;
            case 'm':
                o->nsizes = bench_parse_sizes(v, o->sizes, BENCH_MAX_SIZES);
                bad = o->nsizes < 0;
                break;
            case 'i': bad = parse_int(v, 1, &o->iters); break;
            case 's': bad = parse_int(v, 1, &o->samples); break;
            case 'x': bad = parse_int(v, 0, &o->warmup); break;
            case 'B': bad = bench_parse_size(v, &o->budget) || o->budget == 0; break;
            default: bad = 1;
            }
        }
        if (bad) {
            if (verbose)
                fprintf(stderr, "coll_bench: bad option or value: %s%s%s (-h for help)\n", a,
                        v ? " " : "", v ? v : "");
            return -1;
        }
    }
    return 0;
}

struct bench {
    const struct options *o;
    int rank, nranks;
    char *sbuf, *rbuf;
    double *samples;
    int *counts, *displs; /* the v forms: equal counts, packed */
};

/* Bytes one call moves out of one process (for the iteration budget). */
static size_t traffic(int t, size_t size, int p)
{
    return t == T_ALLGATHER || t == T_ALLTOALL || t == T_ALLGATHERV || t == T_ALLTOALLV
               ? size * (size_t)p
               : size;
}

static void one_call(struct bench *b, int t, size_t size)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int dbl = size % sizeof(double) == 0;
    int n = (int)(dbl ? size / sizeof(double) : size);
    MPI_Datatype dt = dbl ? MPI_DOUBLE : MPI_BYTE;
    MPI_Op op = dbl ? MPI_SUM : MPI_BOR;
    int nb = b->o->nb, sz = (int)size;
    MPI_Request r = MPI_REQUEST_NULL, *rq = &r;
    if (t == T_ALLGATHERV || t == T_ALLTOALLV)
        for (int j = 0; j < b->nranks; j++) {
            b->counts[j] = sz;
            b->displs[j] = sz * j;
        }
    switch (t) {
    case T_BARRIER: nb ? MPI_Ibarrier(c, rq) : MPI_Barrier(c); break;
    case T_BCAST: nb ? MPI_Ibcast(b->sbuf, sz, MPI_BYTE, 0, c, rq) : MPI_Bcast(b->sbuf, sz, MPI_BYTE, 0, c); break;
    case T_ALLREDUCE:
        nb ? MPI_Iallreduce(b->sbuf, b->rbuf, n, dt, op, c, rq) : MPI_Allreduce(b->sbuf, b->rbuf, n, dt, op, c);
        break;
    case T_REDUCE:
        nb ? MPI_Ireduce(b->sbuf, b->rbuf, n, dt, op, 0, c, rq) : MPI_Reduce(b->sbuf, b->rbuf, n, dt, op, 0, c);
        break;
    case T_ALLGATHER:
        nb ? MPI_Iallgather(b->sbuf, sz, MPI_BYTE, b->rbuf, sz, MPI_BYTE, c, rq)
           : MPI_Allgather(b->sbuf, sz, MPI_BYTE, b->rbuf, sz, MPI_BYTE, c);
        break;
    case T_ALLGATHERV:
        nb ? MPI_Iallgatherv(b->sbuf, sz, MPI_BYTE, b->rbuf, b->counts, b->displs, MPI_BYTE, c, rq)
           : MPI_Allgatherv(b->sbuf, sz, MPI_BYTE, b->rbuf, b->counts, b->displs, MPI_BYTE, c);
        break;
    case T_ALLTOALLV:
        nb ? MPI_Ialltoallv(b->sbuf, b->counts, b->displs, MPI_BYTE, b->rbuf, b->counts, b->displs,
                            MPI_BYTE, c, rq)
           : MPI_Alltoallv(b->sbuf, b->counts, b->displs, MPI_BYTE, b->rbuf, b->counts, b->displs,
                           MPI_BYTE, c);
        break;
    default:
        nb ? MPI_Ialltoall(b->sbuf, sz, MPI_BYTE, b->rbuf, sz, MPI_BYTE, c, rq)
           : MPI_Alltoall(b->sbuf, sz, MPI_BYTE, b->rbuf, sz, MPI_BYTE, c);
        break;
    }
    if (nb) MPI_Wait(rq, MPI_STATUS_IGNORE);
}

static void run_size(struct bench *b, int t, size_t size)
{
    const struct options *o = b->o;
    int iters = o->iters > 0 ? o->iters : 50;
    size_t per = traffic(t, size, b->nranks);
    if (per > 0 && (size_t)iters * per > o->budget) iters = (int)(o->budget / per);
    if (iters < 1) iters = 1;
    for (int w = 0; w < o->warmup; w++) one_call(b, t, size);
    for (int s = 0; s < o->samples; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) one_call(b, t, size);
        double us = (MPI_Wtime() - t0) * 1e6 / iters, worst;
        MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        b->samples[s] = worst;
    }
    if (b->rank != 0) return;
    if (o->raw) {
        for (int s = 0; s < o->samples; s++)
            printf("%s,%zu,%d,%.4f\n", test_names[t], size, s, b->samples[s]);
        fflush(stdout);
        return;
    }
    double med = bench_quantile(b->samples, o->samples, 0.5);
    double p99 = bench_quantile(b->samples, o->samples, 0.99);
    bench_print_result(o->csv, test_names[t], size, med, p99, med > 0 ? (double)size / med : 0.0);
}

int main(int argc, char **argv)
{
    struct options o;
    struct bench b = { .o = &o };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.nranks);
    int rc = parse_options(argc, argv, &o, b.rank == 0);
    if (rc != 0) {
        if (b.rank == 0 && rc > 0) usage();
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    size_t max = 8;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > max) max = o.sizes[i];
    if (max > (size_t)0x7fffffff) bench_die("size %zu does not fit an int count", max);
    b.sbuf = bench_alloc(max * (size_t)b.nranks, 1, 0);
    b.rbuf = bench_alloc(max * (size_t)b.nranks, 0, 0);
    b.samples = malloc((size_t)o.samples * sizeof *b.samples);
    b.counts = malloc((size_t)b.nranks * sizeof *b.counts);
    b.displs = malloc((size_t)b.nranks * sizeof *b.displs);
    if (!b.samples || !b.counts || !b.displs) bench_die("out of memory");
    if (b.rank == 0) {
        if (!o.csv && !o.raw) {
            char lib[256];
            bench_library_name(lib, sizeof lib);
            printf("# coll_bench on %s, %d ranks\n", lib, b.nranks);
            printf("# %d samples per size; times in microseconds per call (slowest rank)\n",
                   o.samples);
        }
        bench_print_header(o.csv, o.raw);
    }
    for (int k = 0; k < o.ntests; k++) {
        int t = o.tests[k];
        if (t == T_BARRIER) {
            run_size(&b, t, 0);
            continue;
        }
        for (int i = 0; i < o.nsizes; i++) run_size(&b, t, o.sizes[i]);
    }
    bench_free(b.sbuf, 0);
    bench_free(b.rbuf, 0);
    free(b.samples);
    free(b.counts);
    free(b.displs);
    MPI_Finalize();
    return 0;
}
