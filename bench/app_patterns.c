/* app_patterns.c: three waiting patterns of real applications, timed as a
 * whole (plain MPI C, builds with any MPI; bench/app_patterns.sh runs it
 * beside the peers):
 *
 *   poll       each rank exchanges small messages with up to 4 ring
 *              neighbours and waits for them by MPI_Testany in its own loop,
 *              with a little compute between tests (an event loop).
 *   alltosome  the graph-search pattern: every round each rank sends
 *              messages of 1-64 KiB from malloc'ed buffers to randomly
 *              chosen ranks, one buffer per destination that it may reuse
 *              only once its last send completed; it receives with one
 *              MPI_Irecv(MPI_ANY_SOURCE) at a time and computes for a
 *              random while on each message; a small MPI_Allreduce ends the
 *              round.
 *   latemix    compute and communicate with half the ranks late: even
 *              ranks MPI_Send a message to their odd partner, compute, then
 *              MPI_Recv the answer; odd ranks compute twice as long, then
 *              MPI_Recv and MPI_Send the answer. A sender held up by its
 *              late receiver loses its own compute time.
 *
 * Compute is a fixed number of dependent floating-point steps (not a clock
 * wait), so a rank that loses its processor computes late, as real code
 * does. Prints one line: "pattern,ranks,seconds" (the slowest rank's wall
 * time); -c checks the data and fails loudly on a mismatch. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

/* About one step per nanosecond on the machines at hand. */
static void compute(long steps)
{
    double x = 1.0;
    for (long i = 0; i < steps; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}

static int check(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7)) return 0;
    return 1;
}

static void die(const char *what)
{
    fprintf(stderr, "app_patterns: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ------------------------------------------------------------------ poll */
static void pattern_poll(int rank, int np, int iters, size_t size, long work, int verify)
{
    int peers[4], npeers = 0;
    for (int d = 1; d <= 2; d++)
        for (int s = -1; s <= 1; s += 2) {
            int p = ((rank + s * d) % np + np) % np;
            int dup = p == rank;
            for (int k = 0; k < npeers; k++) dup |= peers[k] == p;
            if (!dup) peers[npeers++] = p;
        }
    unsigned char *out = malloc(size * 4 + 1), *in = malloc(size * 4 + 1);
    MPI_Request rr[4], sr[4];
    if (!out || !in) die("out of memory");
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < npeers; k++)
            MPI_Irecv(in + k * size, (int)size, MPI_BYTE, peers[k], it & 0x3fff, MPI_COMM_WORLD,
                      &rr[k]);
        for (int k = 0; k < npeers; k++) {
            if (verify) fill(out + k * size, size, (unsigned)(rank + it));
            MPI_Isend(out + k * size, (int)size, MPI_BYTE, peers[k], it & 0x3fff,
                      MPI_COMM_WORLD, &sr[k]);
        }
        for (int left = npeers; left > 0;) {
            int idx, flag;
            MPI_Testany(npeers, rr, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED) {
                left--;
                if (verify && !check(in + idx * size, size, (unsigned)(peers[idx] + it)))
                    die("poll: wrong data");
            }
            compute(work);
        }
        for (int flag = 0; !flag; compute(work)) MPI_Testall(npeers, sr, &flag, MPI_STATUSES_IGNORE);
    }
    free(out);
    free(in);
}

/* ------------------------------------------------------------- alltosome */
enum { MAXMSG = 65536 };

/* Rank src's messages of one round: destinations and sizes. Every rank
 * draws every plan, so each knows how many messages it will receive. */
static void draw_plan(int round, int src, int np, int n, int *dst, size_t *len)
{
    uint64_t s = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(round + 1) << 20) ^ (uint64_t)(src + 1);
    for (int m = 0; m < n; m++) {
        dst[m] = (int)(rng_next(&s) % (uint64_t)np);
        len[m] = 1024 + (size_t)(rng_next(&s) % (MAXMSG - 1024 + 1));
    }
}

static void pattern_alltosome(int rank, int np, int rounds, int per_round, long work,
                              int verify)
{
    unsigned char **sbuf = calloc((size_t)np, sizeof *sbuf);
    MPI_Request *sreq = malloc((size_t)np * sizeof *sreq);
    unsigned char *rbuf = malloc(MAXMSG);
    int *dst = malloc((size_t)per_round * sizeof *dst);
    size_t *len = malloc((size_t)per_round * sizeof *len);
    if (!sbuf || !sreq || !rbuf || !dst || !len) die("out of memory");
    for (int p = 0; p < np; p++) {
        sbuf[p] = malloc(MAXMSG);
        if (!sbuf[p]) die("out of memory");
        sreq[p] = MPI_REQUEST_NULL;
    }
    uint64_t delays = (uint64_t)(rank + 1) * 0x100000001b3ull;
    for (int round = 0; round < rounds; round++) {
        int expect = 0;
        for (int src = 0; src < np; src++) {
            if (src == rank) continue;
            draw_plan(round, src, np, per_round, dst, len);
            for (int m = 0; m < per_round; m++) expect += dst[m] == rank;
        }
        draw_plan(round, rank, np, per_round, dst, len);
        MPI_Request rr = MPI_REQUEST_NULL;
        MPI_Status st;
        int got = 0, sent = 0, flag;
        if (expect) MPI_Irecv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &rr);
        while (got < expect || sent < per_round) {
            if (sent < per_round && dst[sent] == rank) {
                sent++;
            } else if (sent < per_round) {
                /* the destination's buffer is ours again only once its
                 * last send completed: serve receives meanwhile */
                int d = dst[sent];
                MPI_Test(&sreq[d], &flag, MPI_STATUS_IGNORE);
                if (flag) {
                    if (verify) fill(sbuf[d], len[sent], (unsigned)(rank * 31 + round));
                    MPI_Isend(sbuf[d], (int)len[sent], MPI_BYTE, d, 7, MPI_COMM_WORLD, &sreq[d]);
                    sent++;
                }
            }
            if (got < expect) {
                MPI_Test(&rr, &flag, &st);
                if (flag) {
                    int n;
                    MPI_Get_count(&st, MPI_BYTE, &n);
                    if (verify && !check(rbuf, (size_t)n, (unsigned)(st.MPI_SOURCE * 31 + round)))
                        die("alltosome: wrong data");
                    compute((long)(rng_next(&delays) % (uint64_t)(2 * work + 1)));
                    if (++got < expect)
                        MPI_Irecv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &rr);
                }
            }
        }
        for (int p = 0; p < np; p++)
            for (flag = 0; !flag;) MPI_Test(&sreq[p], &flag, MPI_STATUS_IGNORE);
        long total = got, sum;
        MPI_Allreduce(&total, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int p = 0; p < np; p++) free(sbuf[p]);
    free(sbuf);
    free(sreq);
    free(rbuf);
    free(dst);
    free(len);
}

/* --------------------------------------------------------------- latemix */
static void pattern_latemix(int rank, int np, int iters, size_t size, long work, int verify)
{
    int partner = rank ^ 1;
    unsigned char *out = malloc(size + 1), *in = malloc(size + 1);
    if (!out || !in) die("out of memory");
    if (partner >= np) { /* an odd rank count: the last rank only computes */
        for (int it = 0; it < iters; it++) compute(2 * work);
        free(out);
        free(in);
        return;
    }
    for (int it = 0; it < iters; it++) {
        if (verify) fill(out, size, (unsigned)(rank + it));
        if (rank % 2 == 0) {
            MPI_Send(out, (int)size, MPI_BYTE, partner, 3, MPI_COMM_WORLD);
            compute(work);
            MPI_Recv(in, (int)size, MPI_BYTE, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            compute(2 * work);
            MPI_Recv(in, (int)size, MPI_BYTE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, (int)size, MPI_BYTE, partner, 4, MPI_COMM_WORLD);
        }
        if (verify && !check(in, size, (unsigned)(partner + it))) die("latemix: wrong data");
    }
    free(out);
    free(in);
}

static void usage(void)
{
    fprintf(stderr, "usage: app_patterns -p poll|alltosome|latemix [-n iterations] "
                    "[-s bytes] [-w compute_steps] [-m messages_per_round] [-c]\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *pattern = NULL;
    int iters = -1, per_round = 16, verify = 0;
    long size = -1, work = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-c")) verify = 1;
        else if (v && !strcmp(a, "-p")) pattern = v, i++;
        else if (v && !strcmp(a, "-n")) iters = atoi(v), i++;
        else if (v && !strcmp(a, "-s")) size = atol(v), i++;
        else if (v && !strcmp(a, "-w")) work = atol(v), i++;
        else if (v && !strcmp(a, "-m")) per_round = atoi(v), i++;
        else {
            if (rank == 0) usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (!pattern) {
        if (rank == 0) usage();
        MPI_Finalize();
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (!strcmp(pattern, "poll"))
        pattern_poll(rank, np, iters < 0 ? 2000 : iters, size < 0 ? 1024 : (size_t)size,
                     work < 0 ? 200 : work, verify);
    else if (!strcmp(pattern, "alltosome"))
        pattern_alltosome(rank, np, iters < 0 ? 200 : iters, per_round, work < 0 ? 20000 : work,
                          verify);
    else if (!strcmp(pattern, "latemix"))
        pattern_latemix(rank, np, iters < 0 ? 400 : iters, size < 0 ? 65536 : (size_t)size,
                        work < 0 ? 50000 : work, verify);
    else
        die("unknown pattern (poll, alltosome, latemix)");
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s,%d,%.4f\n", pattern, np, tmax);
    MPI_Finalize();
    return 0;
}
