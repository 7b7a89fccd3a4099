/* presta_com.c: application benchmark in the manner of the Presta "com"
 * stress test: every rank is paired with another (rank r with r + P/2), and
 * all pairs send at the same time, so the figures show what the library
 * delivers when the whole machine communicates, not one idle pair.
 *
 * For each message size (8 B .. 4 MiB by default) and each mode, one sample
 * is `reps` rounds of a window of W messages:
 *   uni  the lower rank of each pair posts W MPI_Isend, the upper rank W
 *        MPI_Irecv, and the receiver answers each window with a 0-byte ack;
 *   bi   both ranks post W MPI_Irecv and W MPI_Isend.
 * All pairs start each sample together (MPI_Barrier).  Latency is the
 * sample time per message; per-pair bandwidth is bytes per message (twice
 * that in bi) over it; the aggregate bandwidth of a sample is the bytes all
 * pairs moved over the slowest pair's time.  Median and 99th percentile over
 * the samples of all pairs (for bandwidths the p99 is the slow tail: the
 * bandwidth at the p99 time, the 1st percentile of the aggregate).
 * Odd rank counts: the last rank sits out.  One rank: it pairs with itself.
 * Check: every message carries a stamp (sender, size, sequence number) at
 * both ends, and the last sample of each size is compared byte for byte.
 * Figure of merit: the median aggregate bandwidth at the largest size, MB/s. */
#define _POSIX_C_SOURCE 200809L
#include "app_common.h"
#include <stdint.h>

#define APP "presta_com"

static void usage(void)
{
    printf("usage: presta_com [options]\n"
           "  -m, --min BYTES       smallest message (default 8; at least 8)\n"
           "  -M, --max BYTES       largest message (default 4M)\n"
           "  -f, --factor F        size step factor (default 8; the largest size always runs)\n"
           "  -w, --window W        messages in flight per pair (default 4)\n"
           "  -s, --samples S       samples per size (default 20)\n"
           "  -r, --reps R          windows per sample (default: 1 MiB worth, 1..50)\n"
           "      --mode MODE       uni, bi or both (default both)\n"
           "K/M suffixes are accepted.  An odd rank count leaves the last rank idle.\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* q-quantile of sorted v[0..n-1] (nearest rank) */
static double quantile(const double *v, int n, double q)
{
    int k = (int)(q * n + 0.999999) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static inline uint8_t pattern(long size, int src, long i)
{
    return (uint8_t)(i * 31 + src * 7 + size);
}

/* The 8-byte stamp at both ends of a message (they overlap at 8 bytes). */
static inline uint64_t stamp(int src, long size, int64_t seq)
{
    uint64_t h = ((uint64_t)seq << 20) ^ ((uint64_t)src << 8) ^ (uint64_t)size * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

int main(int argc, char **argv)
{
    long min = 8, max = 4 << 20, factor = 8, window = 4, samples = 20, reps_opt = 0;
    int do_uni = 1, do_bi = 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        }
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0); /* mpiexec --profile: profile only the timed part (docs/profile.md) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-m") || !strcmp(a, "--min"))
            min = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-M") || !strcmp(a, "--max"))
            max = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-f") || !strcmp(a, "--factor"))
            factor = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-w") || !strcmp(a, "--window"))
            window = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-s") || !strcmp(a, "--samples"))
            samples = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-r") || !strcmp(a, "--reps"))
            reps_opt = app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "--mode")) {
            const char *v = app_arg(APP, argc, argv, &i);
            if (strcmp(v, "uni") && strcmp(v, "bi") && strcmp(v, "both"))
                app_refuse(APP, "--mode wants uni, bi or both, got '%s'", v);
            do_uni = strcmp(v, "bi") != 0;
            do_bi = strcmp(v, "uni") != 0;
        } else
            app_refuse(APP, "unknown option '%s' (see --help)", a);
    }
    if (min < 8)
        app_refuse(APP, "--min %ld is below 8 bytes (each message carries an 8-byte stamp)", min);
    if (max < min)
        app_refuse(APP, "--max %ld is below --min %ld", max, min);
    if (factor < 2)
        app_refuse(APP, "--factor wants at least 2, got %ld", factor);
    if (window > 1024)
        app_refuse(APP, "--window %ld is above 1024", window);

    int half = size / 2, active = size == 1 || rank < 2 * half;
    int partner = size == 1 ? 0 : !active ? -1 : rank < half ? rank + half : rank - half;
    int npairs = size == 1 ? 1 : half, leader = active && (size == 1 || rank < half);
    char *sbuf = malloc((size_t)window * max), *rbuf = malloc((size_t)window * max);
    double *times = malloc(samples * sizeof(double)), *all = NULL, *agg = malloc(samples * sizeof(double));
    if (!sbuf || !rbuf || !times || !agg)
        app_refuse(APP, "out of memory for a window of %ld x %ld bytes", window, max);
    if (rank == 0)
        all = malloc((size_t)size * samples * sizeof(double));
    MPI_Request *req = malloc(2 * window * sizeof(MPI_Request));
    long errors = 0;
    int64_t seq = 0;
    MPI_Pcontrol(1);
    double largest_agg = 0, t_start = MPI_Wtime();

    if (rank == 0)
        printf("presta_com: %d ranks, %d pairs%s, window %ld, %ld samples per size\n"
               "%-4s %9s %11s %11s %13s %13s %13s %13s\n", size, npairs,
               size % 2 && size > 1 ? " (last rank idle)" : "", window, samples, "mode", "bytes", "lat_med_us",
               "lat_p99_us", "pair_MB/s_med", "pair_MB/s_p99", "aggr_MB/s_med", "aggr_MB/s_p99");
    for (int mode = 0; mode < 2; mode++) {
        if ((mode == 0 && !do_uni) || (mode == 1 && !do_bi) || (size == 1 && mode == 0 && do_bi))
            continue;
        int bi = mode == 1 || size == 1; /* a rank paired with itself sends both ways */
        for (long len = min;; len = len * factor > max && len < max ? max : len * factor) {
            long reps = reps_opt ? reps_opt : (1 << 20) / (len * window);
            reps = reps < 1 ? 1 : reps > 50 ? 50 : reps;
            for (long w = 0; w < window; w++)
                for (long i = 0; i < len; i++)
                    sbuf[w * len + i] = (char)pattern(len, rank, i);
            for (long s = 0; s < samples; s++) {
                int last = s == samples - 1;
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (long r = 0; active && r < reps; r++) {
                    int nreq = 0, sends = bi || leader, recvs = bi || !leader;
                    if (recvs)
                        for (long w = 0; w < window; w++)
                            MPI_Irecv(rbuf + w * len, (int)len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[nreq++]);
                    if (sends)
                        for (long w = 0; w < window; w++) {
                            uint64_t st = stamp(rank, len, seq + w);
                            memcpy(sbuf + w * len, &st, sizeof st);
                            memcpy(sbuf + (w + 1) * len - sizeof st, &st, sizeof st);
                            MPI_Isend(sbuf + w * len, (int)len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[nreq++]);
                        }
                    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
                    if (recvs)
                        for (long w = 0; w < window; w++) {
                            uint64_t a, b, want = stamp(partner, len, seq + w);
                            memcpy(&a, rbuf + w * len, sizeof a);
                            memcpy(&b, rbuf + (w + 1) * len - sizeof b, sizeof b);
                            if (a != want || b != want) {
                                if (errors++ < 5)
                                    fprintf(stderr, "presta_com: rank %d: bad stamp in a %ld-byte message from %d\n",
                                            rank, len, partner);
                            }
                            if (last && r == reps - 1)
                                for (long i = sizeof a; i < len - (long)sizeof b; i++)
                                    if ((uint8_t)rbuf[w * len + i] != pattern(len, partner, i)) {
                                        if (errors++ < 5)
                                            fprintf(stderr, "presta_com: rank %d: byte %ld of a %ld-byte message "
                                                    "from %d is wrong\n", rank, i, len, partner);
                                        break;
                                    }
                        }
                    if (!bi) { /* the ack closes the window */
                        if (leader)
                            MPI_Recv(NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        else
                            MPI_Send(NULL, 0, MPI_BYTE, partner, 2, MPI_COMM_WORLD);
                    }
                    seq += window;
                }
                times[s] = leader ? (MPI_Wtime() - t0) / (reps * window) : -1; /* seconds per message */
            }
            MPI_Gather(times, (int)samples, MPI_DOUBLE, all, (int)samples, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                /* aggregate per sample: all pairs' bytes over the slowest pair */
                for (long s = 0; s < samples; s++) {
                    double slow = 0;
                    for (int p = 0; p < size; p++)
                        if (all[p * samples + s] > slow)
                            slow = all[p * samples + s];
                    agg[s] = npairs * (bi ? 2.0 : 1.0) * len / slow / 1e6;
                }
                int n = 0;
                for (long k = 0; k < size * samples; k++)
                    if (all[k] >= 0)
                        all[n++] = all[k];
                qsort(all, n, sizeof(double), cmp_double);
                qsort(agg, samples, sizeof(double), cmp_double);
                /* bandwidth p99: the slow tail, from the p99 time (aggregate: the 1st percentile) */
                double med = quantile(all, n, 0.5), p99 = quantile(all, n, 0.99), amed = quantile(agg, samples, 0.5);
                double dir = bi ? 2.0 : 1.0;
                printf("%-4s %9ld %11.2f %11.2f %13.1f %13.1f %13.1f %13.1f\n", bi ? "bi" : "uni", len, med * 1e6,
                       p99 * 1e6, dir * len / med / 1e6, dir * len / p99 / 1e6, amed, quantile(agg, samples, 0.01));
                if (len == max)
                    largest_agg = amed;
            }
            if (len >= max)
                break;
        }
    }
    long gerr;
    MPI_Allreduce(&errors, &gerr, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t_start;
    MPI_Pcontrol(0);
    if (rank == 0 && gerr)
        fprintf(stderr, "presta_com: %ld messages arrived wrong\n", gerr);
    app_result("presta_com", size, 1, gerr == 0, t, largest_agg, "MB/s");
    free(sbuf), free(rbuf), free(times), free(all), free(agg), free(req);
    MPI_Finalize();
    return gerr == 0 ? 0 : 1;
}
