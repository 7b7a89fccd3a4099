/* dmpi_bench_pt2pt.c: point-to-point benchmark.  Between ranks 0 and 1:
 * ping-pong latency (half round trip), uni-directional bandwidth (a window
 * of nonblocking sends, then an ack) and bi-directional bandwidth.  On all
 * ranks, in pairs i <-> i + n/2 streaming at once: aggregate bandwidth
 * (mbw) and message rate (msgrate).  Each message size is measured as many
 * samples (a sample = a batch of iterations timed with MPI_Wtime); the
 * output is the median and p99 over samples of the time per message, and
 * MB/s computed from the median.
 * Plain MPI C: the same source builds with dmpi, MPICH and Open MPI. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum test_kind { TEST_LAT, TEST_BW, TEST_BIBW, TEST_MBW, TEST_MSGRATE, TEST_COUNT };
static const char *const test_names[TEST_COUNT] = { "lat", "bw", "bibw", "mbw", "msgrate" };

/* mbw and msgrate: every rank below 2 * npairs takes part; rank i sends to
 * rank i + npairs.  The others tests use ranks 0 and 1 only. */
static int multi_pair(int t)
{
    return t == TEST_MBW || t == TEST_MSGRATE;
}

#define TAG_DATA 1
#define TAG_ACK 2
#define MAX_WINDOW 1024
/* The receive slots of one window (bw, bibw) never take more than this;
 * the window shrinks for large messages instead. */
#define WINDOW_BYTES_CAP ((size_t)64 << 20)

struct options {
    int tests[TEST_COUNT], ntests;
    size_t sizes[BENCH_MAX_SIZES];
    int nsizes;
    int iters;          /* iterations per sample; <= 0: the test's default */
    int samples;
    int warmup;         /* untimed iterations before the samples */
    int window;         /* messages in flight for bw and bibw */
    size_t budget;      /* bytes one sample may move; fewer iterations above */
    int csv, raw, alloc_mem;
};

/* Buffers and state of one measurement. */
struct bench {
    const struct options *o;
    int rank;
    int npairs;       /* mbw, msgrate: pairs streaming at once */
    char *sbuf;       /* send buffer: one message */
    char *rbuf;       /* receive area: `window` slots of one message */
    MPI_Request *reqs;
    MPI_Status *stats; /* filled by MPI_Waitall (as OSU does; no _IGNORE) */
    double *samples;  /* per-sample microseconds per message */
};

static void usage(void)
{
    printf("usage: dmpi_bench_pt2pt [options]   (run with 2 ranks or more)\n"
           "  -t TEST[,...]         tests to run (default lat): lat, bw, bibw (ranks 0\n"
           "                        and 1); mbw, msgrate (all ranks, pairs i <-> i+n/2)\n"
           "  -m min:max | a,b,c    message sizes, K/M suffixes (default 0:16M)\n"
           "  -i iters              iterations per sample (default 100 lat, 20 others)\n"
           "  -s samples            samples per size (default 100)\n"
           "  -x warmup             untimed iterations per size (default 10)\n"
           "  -w window             messages in flight per pair, all tests but lat\n"
           "                        (default 64)\n"
           "  -B bytes              data one sample may move before iterations\n"
           "                        are reduced for large messages (default 16M)\n"
           "  --csv                 test,size,median_us,p99_us,mbps lines\n"
           "  --raw                 every sample: test,size,sample,us lines\n"
           "  --alloc-mem           buffers from MPI_Alloc_mem instead of malloc\n"
           "Times are per message: ping-pong half round trip (lat), window time /\n"
           "window (bw, bibw), window time / (window x pairs) (mbw, msgrate: the\n"
           "slowest sender's time, so all pairs' messages count). MB/s = bytes per\n"
           "message (bibw: both directions) / median time; 1 MB = 10^6 bytes.\n"
           "msgrate also shows million messages per second = 1 / median time.\n");
}

static int parse_tests(const char *spec, struct options *o)
{
    char buf[64];
    if (strlen(spec) >= sizeof buf)
        return -1;
    strcpy(buf, spec);
    o->ntests = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = 0; k < TEST_COUNT && strcmp(tok, test_names[k]) != 0; k++)
            ;
        if (k == TEST_COUNT || o->ntests == TEST_COUNT)
            return -1;
        o->tests[o->ntests++] = k;
    }
    return o->ntests > 0 ? 0 : -1;
}

static int parse_int(const char *s, int min, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < min || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

/* Returns 0 to run, 1 to exit quietly (help), -1 on a bad option. */
static int parse_options(int argc, char **argv, struct options *o, int verbose)
{
    memset(o, 0, sizeof *o);
    o->tests[0] = TEST_LAT;
    o->ntests = 1;
    o->nsizes = bench_parse_sizes("0:16M", o->sizes, BENCH_MAX_SIZES);
    o->iters = 0;
    o->samples = 100;
    o->warmup = 10;
    o->window = 64;
    o->budget = (size_t)16 << 20;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return 1;
        } else if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (!strcmp(a, "--raw")) {
            o->raw = 1;
        } else if (!strcmp(a, "--alloc-mem")) {
            o->alloc_mem = 1;
        } else if (!v || a[0] != '-' || strlen(a) != 2) {
            bad = 1;
        } else {
            i++;
            switch (a[1]) {
            case 't': bad = parse_tests(v, o); break;
            case 'm': o->nsizes = bench_parse_sizes(v, o->sizes, BENCH_MAX_SIZES);
                      bad = o->nsizes < 0; break;
            case 'i': bad = parse_int(v, 1, &o->iters); break;
            case 's': bad = parse_int(v, 1, &o->samples); break;
            case 'x': bad = parse_int(v, 0, &o->warmup); break;
            case 'w': bad = parse_int(v, 1, &o->window) || o->window > MAX_WINDOW; break;
            case 'B': bad = bench_parse_size(v, &o->budget) || o->budget == 0; break;
            default: bad = 1;
            }
        }
        if (bad) {
            if (verbose)
                fprintf(stderr, "dmpi_bench_pt2pt: bad option or value: %s%s%s"
                                " (-h for help)\n", a, v ? " " : "", v ? v : "");
            return -1;
        }
    }
    return 0;
}

/* Messages in flight for this size: the window, made smaller when its
 * receive slots would exceed WINDOW_BYTES_CAP. */
static int window_for(const struct options *o, enum test_kind t, size_t size)
{
    if (t == TEST_LAT)
        return 1;
    size_t w = (size_t)o->window;
    if (size > 0 && w * size > WINDOW_BYTES_CAP)
        w = WINDOW_BYTES_CAP / size;
    return w < 1 ? 1 : (int)w;
}

/* Iterations so that one sample moves about o->budget bytes at most
 * (never fewer than one). */
static int iters_for(const struct options *o, int want, enum test_kind t, size_t size)
{
    size_t per_iter = size * (size_t)window_for(o, t, size) * (t == TEST_LAT || t == TEST_BIBW ? 2 : 1);
    if (per_iter == 0)
        return want;
    size_t fit = o->budget / per_iter;
    if (fit < 1)
        fit = 1;
    return (size_t)want < fit ? want : (int)fit;
}

/* The byte pattern of one sample: the first and last byte of each message
 * carry it, receive slots are cleared to its complement beforehand. */
static unsigned char pattern(int sample)
{
    return (unsigned char)(0x5a + 37 * (sample + 1));
}

static void mark(char *buf, size_t size, unsigned char v)
{
    if (size > 0) {
        buf[0] = (char)v;
        buf[size - 1] = (char)v;
    }
}

static void check(const struct bench *b, const char *test, size_t size, int nslots,
                  unsigned char want)
{
    for (int w = 0; w < nslots && size > 0; w++) {
        const unsigned char *m = (const unsigned char *)b->rbuf + (size_t)w * size;
        if (m[0] != want || m[size - 1] != want)
            bench_die("%s: data check failed on rank %d, size %zu, slot %d: first/last"
                      " byte 0x%02x/0x%02x, expected 0x%02x", test, b->rank, size, w,
                      m[0], m[size - 1], want);
    }
}

/* mbw, msgrate: each sender posts a window of sends to its partner, the
 * receiver a window of receives; the receiver acks once its window is in.
 * Ranks at or past 2 * npairs (odd rank counts) only join the barrier. */
static void multi_pair_iter(struct bench *b, size_t size, int win)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    const int np = b->npairs;
    int ack = 0;

    if (b->rank < np) {
        for (int w = 0; w < win; w++)
            MPI_Isend(b->sbuf, (int)size, MPI_BYTE, b->rank + np, TAG_DATA, comm, &b->reqs[w]);
        MPI_Waitall(win, b->reqs, b->stats);
        MPI_Recv(&ack, 1, MPI_INT, b->rank + np, TAG_ACK, comm, MPI_STATUS_IGNORE);
    } else if (b->rank < 2 * np) {
        for (int w = 0; w < win; w++)
            MPI_Irecv(b->rbuf + (size_t)w * size, (int)size, MPI_BYTE, b->rank - np, TAG_DATA,
                      comm, &b->reqs[w]);
        MPI_Waitall(win, b->reqs, b->stats);
        MPI_Send(&ack, 1, MPI_INT, b->rank - np, TAG_ACK, comm);
    }
}

/* One sample of `iters` iterations; returns seconds (meaningful on rank 0,
 * and for mbw/msgrate on every sender). */
static double run_sample(struct bench *b, enum test_kind t, size_t size, int iters, int sample)
{
    const int peer = 1 - b->rank;
    const int win = window_for(b->o, t, size);
    const unsigned char pat = pattern(sample);
    const int idle = multi_pair(t) && b->rank >= 2 * b->npairs;
    MPI_Comm comm = MPI_COMM_WORLD;
    int ack = 0;

    if (!idle) {
        mark(b->sbuf, size, pat);
        for (int w = 0; w < win; w++)
            mark(b->rbuf + (size_t)w * size, size, (unsigned char)~pat);
    }
    if (multi_pair(t))
        MPI_Barrier(comm); /* all pairs start together */

    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        if (multi_pair(t)) {
            multi_pair_iter(b, size, win);
        } else if (t == TEST_LAT) {
            if (b->rank == 0) {
                MPI_Send(b->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm);
                MPI_Recv(b->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm, MPI_STATUS_IGNORE);
                MPI_Send(b->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm); /* echo */
            }
        } else if (t == TEST_BW) {
            for (int w = 0; w < win; w++) {
                if (b->rank == 0)
                    MPI_Isend(b->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm, &b->reqs[w]);
                else
                    MPI_Irecv(b->rbuf + (size_t)w * size, (int)size, MPI_BYTE, peer, TAG_DATA,
                              comm, &b->reqs[w]);
            }
            MPI_Waitall(win, b->reqs, b->stats);
            if (b->rank == 0)
                MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, comm, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, comm);
        } else {
            for (int w = 0; w < win; w++)
                MPI_Irecv(b->rbuf + (size_t)w * size, (int)size, MPI_BYTE, peer, TAG_DATA,
                          comm, &b->reqs[w]);
            for (int w = 0; w < win; w++)
                MPI_Isend(b->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, comm, &b->reqs[win + w]);
            MPI_Waitall(2 * win, b->reqs, b->stats);
        }
    }
    double elapsed = MPI_Wtime() - t0;

    /* who received: rank 0 in lat and bibw, rank 1 in lat, bw and bibw, the
     * upper half of the pairs in mbw and msgrate */
    int received;
    if (multi_pair(t))
        received = b->rank >= b->npairs && !idle;
    else
        received = b->rank == 1 || t != TEST_BW;
    if (iters > 0 && received)
        check(b, test_names[t], size, win, pat);
    return elapsed;
}

static void run_size(struct bench *b, enum test_kind t, size_t size)
{
    const struct options *o = b->o;
    const int want = o->iters > 0 ? o->iters : (t == TEST_LAT ? 100 : 20);
    const int iters = iters_for(o, want, t, size);
    const int warm = iters_for(o, o->warmup, t, size);
    /* messages one sample times: all pairs' for mbw and msgrate */
    const double msgs = (double)iters * window_for(o, t, size) * (multi_pair(t) ? b->npairs : 1);

    if (o->warmup > 0)
        run_sample(b, t, size, warm, -1);
    for (int s = 0; s < o->samples; s++)
        b->samples[s] = run_sample(b, t, size, iters, s) * 1e6 / msgs / (t == TEST_LAT ? 2 : 1);

    if (multi_pair(t)) {
        /* a sample lasts as long as its slowest sender */
        if (b->rank >= b->npairs)
            for (int s = 0; s < o->samples; s++)
                b->samples[s] = 0.0;
        MPI_Reduce(b->rank == 0 ? MPI_IN_PLACE : b->samples, b->samples, o->samples,
                   MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (b->rank != 0)
        return;
    if (o->raw) {
        for (int s = 0; s < o->samples; s++)
            printf("%s,%zu,%d,%.4f\n", test_names[t], size, s, b->samples[s]);
        fflush(stdout);
        return;
    }
    double med = bench_quantile(b->samples, o->samples, 0.5);
    double p99 = bench_quantile(b->samples, o->samples, 0.99);
    double bytes = (double)size * (t == TEST_BIBW ? 2 : 1);
    bench_print_result(o->csv, test_names[t], size, med, p99, med > 0 ? bytes / med : 0.0);
    if (t == TEST_MSGRATE && !o->csv && med > 0)
        printf("#   msgrate %zu: %.4g million messages per second\n", size, 1.0 / med);
}

int main(int argc, char **argv)
{
    struct options o;
    int rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    int rc = parse_options(argc, argv, &o, rank == 0);
    if (rc != 0) {
        if (rank == 0 && rc > 0)
            usage();
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "dmpi_bench_pt2pt: needs 2 ranks (got %d)\n", nranks);
        MPI_Finalize();
        return 2;
    }

    const int npairs = nranks / 2;
    int any_multi = 0;
    for (int k = 0; k < o.ntests; k++)
        any_multi |= multi_pair(o.tests[k]);
    /* ranks that send or receive in some test; with mbw/msgrate every rank
     * joins their barriers and reductions */
    const int moves_data = rank < 2 || (any_multi && rank < 2 * npairs);

    if (moves_data || any_multi) {
        size_t max_size = 0, max_area = 1;
        for (int i = 0; i < o.nsizes && moves_data; i++) {
            if (o.sizes[i] > max_size)
                max_size = o.sizes[i];
            for (int k = 0; k < o.ntests; k++) {
                size_t area = o.sizes[i] * (size_t)window_for(&o, o.tests[k], o.sizes[i]);
                if (area > max_area)
                    max_area = area;
            }
        }
        if (max_size > (size_t)0x7fffffff)
            bench_die("message size %zu does not fit an int count", max_size);

        struct bench b = { .o = &o, .rank = rank, .npairs = npairs };
        b.sbuf = bench_alloc(max_size, 's', o.alloc_mem);
        b.rbuf = bench_alloc(max_area, 'r', o.alloc_mem);
        b.reqs = malloc(2 * (size_t)MAX_WINDOW * sizeof *b.reqs);
        b.stats = malloc(2 * (size_t)MAX_WINDOW * sizeof *b.stats);
        b.samples = malloc((size_t)o.samples * sizeof *b.samples);
        if (!b.reqs || !b.stats || !b.samples)
            bench_die("out of memory");

        if (rank == 0) {
            if (!o.csv && !o.raw) {
                char lib[256];
                bench_library_name(lib, sizeof lib);
                printf("# dmpi_bench_pt2pt on %s, %d ranks (lat, bw, bibw: 0 and 1 take"
                       " part; mbw, msgrate: %d pair%s i <-> i+%d)\n", lib, nranks, npairs,
                       npairs == 1 ? "" : "s", npairs);
                char it[64];
                if (o.iters > 0)
                    snprintf(it, sizeof it, "%d", o.iters);
                else
                    snprintf(it, sizeof it, "100 (lat) or 20 (others)");
                printf("# %d samples per size of %s iterations each, fewer when a sample"
                       " would move over %zu bytes; window %d; warmup %d\n",
                       o.samples, it, o.budget, o.window, o.warmup);
                printf("# times in microseconds per message (lat: half round trip;"
                       " mbw, msgrate: all pairs' messages, aggregate MB/s)\n");
            }
            bench_print_header(o.csv, o.raw);
        }
        for (int k = 0; k < o.ntests; k++)
            for (int i = 0; i < o.nsizes; i++)
                if (multi_pair(o.tests[k]) || rank < 2)
                    run_size(&b, o.tests[k], o.sizes[i]);

        bench_free(b.sbuf, o.alloc_mem);
        bench_free(b.rbuf, o.alloc_mem);
        free(b.reqs);
        free(b.stats);
        free(b.samples);
    }
    MPI_Finalize();
    return 0;
}
