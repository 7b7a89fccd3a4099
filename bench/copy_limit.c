/* copy_limit.c: the copy rate of the machine itself, no MPI: the physical
 * limit that intra-node bandwidth figures are measured against.
 *
 *   copy_limit [-s SIZE] [-w WINDOW] [-t THREADS] [-i ITERS] [-r REPS]
 *
 * Each thread (pinned to its own processor where it may) copies SIZE bytes
 * from a source buffer of its own into WINDOW destination buffers in turn,
 * as a receiver fills a window of receive buffers; every thread works at
 * once. Two ways of storing are timed: memcpy (the C library's, ordinary
 * stores that pull each destination line into the cache first), and
 * streaming stores that bypass the cache (SSE2, part of every x86-64; on
 * other processors only memcpy is timed). A window of destinations larger
 * than the last-level cache is what a bandwidth test with a window of big
 * messages does; one destination that stays in cache is what a ping-pong
 * does. Prints GB/s per thread and in all, median and best of REPS.
 * Defaults: 4 MiB, window 16, 2 threads, enough iterations for 256 MiB per
 * thread, 5 repetitions. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#define HAVE_STREAM 1
#else
#define HAVE_STREAM 0
#endif

static size_t size = 4u << 20;
static int window = 16, nthreads = 2, iters, reps = 5;
static pthread_barrier_t barrier;
static double *secs; /* [rep][mode][thread] */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void copy_streaming(void *dst, const void *src, size_t n)
{
#if HAVE_STREAM
    __m128i *d = dst;
    const __m128i *s = src;
    size_t i = 0;
    for (; i + 4 <= n / 16; i += 4) {
        __m128i a = _mm_load_si128(s + i), b = _mm_load_si128(s + i + 1);
        __m128i c = _mm_load_si128(s + i + 2), e = _mm_load_si128(s + i + 3);
        _mm_stream_si128(d + i, a);
        _mm_stream_si128(d + i + 1, b);
        _mm_stream_si128(d + i + 2, c);
        _mm_stream_si128(d + i + 3, e);
    }
    _mm_sfence();
    memcpy((char *)dst + i * 16, (const char *)src + i * 16, n - i * 16);
#else
    memcpy(dst, src, n);
#endif
}

static void pin(int k)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < nthreads)
        return;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed) || seen++ != k) continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        return;
    }
}

static void *worker(void *arg)
{
    int k = (int)(long)arg;
    pin(k);
    char *src = aligned_alloc(4096, size);
    char **dst = malloc((size_t)window * sizeof *dst);
    if (!src || !dst) {
        fprintf(stderr, "copy_limit: out of memory\n");
        exit(1);
    }
    memset(src, 0x5a, size);
    for (int w = 0; w < window; w++) {
        if (!(dst[w] = aligned_alloc(4096, size))) {
            fprintf(stderr, "copy_limit: out of memory\n");
            exit(1);
        }
        memset(dst[w], 0, size);
    }
    for (int rep = 0; rep < reps; rep++)
        for (int mode = 0; mode < 1 + HAVE_STREAM; mode++) {
            pthread_barrier_wait(&barrier);
            double t0 = now();
            for (int i = 0; i < iters; i++) {
                if (mode) copy_streaming(dst[i % window], src, size);
                else memcpy(dst[i % window], src, size);
            }
            secs[((size_t)rep * 2 + (size_t)mode) * (size_t)nthreads + (size_t)k] = now() - t0;
            pthread_barrier_wait(&barrier);
        }
    for (int w = 0; w < window; w++) free(dst[w]);
    free(dst);
    free(src);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') v *= 1024;
    else if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    else if (*end == 'G' || *end == 'g') v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "s:w:t:i:r:h")) != -1) {
        switch (opt) {
        case 's': size = parse_size(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 't': nthreads = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: copy_limit [-s SIZE[K|M|G]] [-w WINDOW] [-t THREADS] "
                            "[-i ITERS] [-r REPS]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    size = (size + 63) & ~(size_t)63;
    if (size < 64 || window < 1 || nthreads < 1 || reps < 1 || iters < 0) {
        fprintf(stderr, "copy_limit: bad argument\n");
        return 2;
    }
    if (!iters) iters = (int)((256u << 20) / size) + 1;
    secs = calloc((size_t)reps * 2 * (size_t)nthreads, sizeof *secs);
    pthread_t *t = malloc((size_t)nthreads * sizeof *t);
    if (!secs || !t) return 1;
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    for (long k = 0; k < nthreads; k++) pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < nthreads; k++) pthread_join(t[k], NULL);

    printf("copy_limit: %zu bytes, window %d, %d threads, %d copies per thread, %d reps\n",
           size, window, nthreads, iters, reps);
    static const char *const names[2] = {"memcpy", "streaming stores"};
    for (int mode = 0; mode < 1 + HAVE_STREAM; mode++) {
        double rate[64];
        int n = reps < 64 ? reps : 64;
        for (int rep = 0; rep < n; rep++) {
            double slowest = 0; /* all threads together: the last one to finish */
            for (int k = 0; k < nthreads; k++) {
                double s = secs[((size_t)rep * 2 + (size_t)mode) * (size_t)nthreads + (size_t)k];
                if (s > slowest) slowest = s;
            }
            rate[rep] = (double)size * iters / slowest / 1e9;
        }
        qsort(rate, (size_t)n, sizeof rate[0], cmp_double);
        double med = rate[n / 2], best = rate[n - 1];
        printf("  %-17s per thread %6.1f GB/s (best %6.1f), all threads %6.1f GB/s (best %6.1f)\n",
               names[mode], med, best, med * nthreads, best * nthreads);
    }
    free(t);
    free(secs);
    return 0;
}
