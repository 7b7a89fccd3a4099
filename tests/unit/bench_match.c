/* bench_match.c: what message matching costs (docs/matching.md).
 *
 *   mpiexec -n 2 <build>/tests/unit/bench_match [-s SAMPLES] [-i ITERS] [-p|-m]
 *   (-p: part 1 only, -m: part 2 only)
 *
 * Part 1, ping-pong between ranks 0 and 1, half round trip per message:
 *   mpi   MPI_Send/MPI_Recv on MPI_COMM_WORLD (specific source and tag);
 *   hint  the same on a duplicate with mpi_assert_no_any_source,
 *         mpi_assert_no_any_tag and mpi_assert_allow_overtaking set;
 *   ring  the same bytes straight over the shared-memory ring both use
 *         (reserve + copy in + publish, peek + copy out + consume): no
 *         envelope, no matching, no request, no API.
 * mpi - ring is what matching + request handling + the API cost. Sizes
 * 8 B to 1 KiB with empty queues, then 8 B with 16 and 256 receives of
 * other tags posted (never matched), and with 16 and 256 unexpected
 * messages of other tags queued, on both sides. The modes alternate
 * sample by sample (the machines are noisy); median and p99 over samples.
 *
 * The ring mode uses the runtime's own rings while MPI is initialised:
 * nothing else may poll them meanwhile. Before each ring phase both ranks
 * exchange two MPI messages (0->1, then 1->0) and leave MPI: after that no
 * packet of the library is in flight in either direction and neither
 * rank is inside a progress loop, so the first ring packet (from rank 0)
 * is read only by the ring loop; the last ring packet is consumed before
 * either rank calls MPI again. Ring packets carry a type the library never
 * sends, checked on arrival.
 *
 * Part 2, rank 0 alone, the match functions with 0, 16 or 256 other
 * entries in the queues (nanoseconds per operation, median and p99):
 *   post+arrive   dmpi_recv_start of a specific receive, then
 *                 dmpi_match_posted of a message for it, with N receives
 *                 of other tags (same source), of other sources, or
 *                 MPI_ANY_SOURCE receives of other tags pending (on the
 *                 same communicator, or for the hinted one, where they
 *                 would be erroneous, on MPI_COMM_WORLD);
 *   unexp         dmpi_unexp_add of a message, then dmpi_match_unexp for
 *                 it (a specific receive), N other-tag messages queued;
 * each on a plain communicator and on the hinted one. Rank 1 waits in a
 * barrier (no progress runs on rank 0 meanwhile, and the queues are left
 * as they were).
 *
 * Uses only match functions that predate the indexed engine, so the same
 * source builds against an older tree for a before/after comparison. */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING_PKT 0x7f /* packet type the library never sends */
enum { TAG_PP = 1, TAG_SYNC = 2, TAG_POSTED = 1000, TAG_UNEXP = 100000 };
enum { M_MPI, M_HINT, M_RING, NMODES };
static const char *const mode_name[NMODES] = {"mpi", "hint", "ring"};

static int me, samples = 41, iters = 2000, part1 = 1, part2 = 1;
static MPI_Comm hinted;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and p99 of v[0..n) (sorts v). */
static void stats(double *v, int n, double *med, double *p99)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    int k = (int)(0.99 * (n - 1) + 0.5);
    *p99 = v[k];
}

static void die(const char *what)
{
    fprintf(stderr, "bench_match: rank %d: %s\n", me, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ------------------------------------------------------------ raw ring */
static void ring_send(int peer, const void *buf, uint32_t n)
{
    dmpi_ring *ring = &dmpi_tp.out[peer];
    uint32_t cells = dmpi_pkt_cells(n);
    dmpi_pkt *p;
    while (!(p = dmpi_ring_reserve(ring, cells))) {
    }
    dmpi_ring_write_payload(ring, p, buf, n);
    p->type = RING_PKT;
    p->flags = 0;
    p->seq = 0;
    p->ctx = 0;
    p->tag = 0;
    p->src = me;
    p->len = n;
    p->cookie = 0;
    dmpi_ring_publish(ring, p, cells);
}

static void ring_recv(int peer, void *buf, uint32_t n)
{
    dmpi_ring *ring = &dmpi_tp.in[peer];
    dmpi_pkt *p;
    while (!(p = dmpi_ring_peek(ring))) {
    }
    if (p->type != RING_PKT || p->plen != n) die("a library packet reached the ring loop");
    dmpi_ring_read_payload(ring, p, 0, buf, n);
    dmpi_ring_consume(ring, p);
    dmpi_ring_release(ring);
}

/* Both ranks leave MPI with nothing in flight (see the header). */
static void handover(void)
{
    char b = 0;
    if (me == 0) {
        MPI_Send(&b, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD);
        MPI_Recv(&b, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&b, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&b, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD);
    }
}

/* One sample: ns per half round trip (meaningful on rank 0). */
static double pingpong(int mode, char *buf, int n)
{
    int peer = 1 - me;
    double t0;
    if (mode == M_RING) {
        handover();
        t0 = now_ns();
        for (int i = 0; i < iters; i++) {
            if (me == 0) {
                ring_send(peer, buf, (uint32_t)n);
                ring_recv(peer, buf, (uint32_t)n);
            } else {
                ring_recv(peer, buf, (uint32_t)n);
                ring_send(peer, buf, (uint32_t)n);
            }
        }
    } else {
        MPI_Comm c = mode == M_HINT ? hinted : MPI_COMM_WORLD;
        t0 = now_ns();
        for (int i = 0; i < iters; i++) {
            if (me == 0) {
                MPI_Send(buf, n, MPI_BYTE, peer, TAG_PP, c);
                MPI_Recv(buf, n, MPI_BYTE, peer, TAG_PP, c, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_BYTE, peer, TAG_PP, c, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_BYTE, peer, TAG_PP, c);
            }
        }
    }
    return (now_ns() - t0) / (2.0 * iters);
}

/* Background queues for a ping-pong scenario, on both communicators. */
enum { BG_NONE, BG_POSTED, BG_UNEXP };
static MPI_Request *bg_reqs;

static void bg_setup(int kind, int q)
{
    MPI_Comm comms[2] = {MPI_COMM_WORLD, hinted};
    int peer = 1 - me;
    char b = 0;
    if (kind == BG_POSTED) {
        bg_reqs = malloc(sizeof *bg_reqs * 2 * (size_t)q);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < q; i++)
                MPI_Irecv(NULL, 0, MPI_BYTE, peer, TAG_POSTED + i, comms[c], &bg_reqs[c * q + i]);
    } else if (kind == BG_UNEXP) {
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < q; i++) MPI_Send(&b, 1, MPI_BYTE, peer, TAG_UNEXP + i, comms[c]);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the peer's messages are queued or on the ring */
}

static void bg_cleanup(int kind, int q)
{
    MPI_Comm comms[2] = {MPI_COMM_WORLD, hinted};
    int peer = 1 - me;
    char b;
    if (kind == BG_POSTED) {
        for (int i = 0; i < 2 * q; i++) {
            MPI_Cancel(&bg_reqs[i]);
            MPI_Wait(&bg_reqs[i], MPI_STATUS_IGNORE);
        }
        free(bg_reqs);
    } else if (kind == BG_UNEXP) {
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < q; i++)
                MPI_Recv(&b, 1, MPI_BYTE, peer, TAG_UNEXP + i, comms[c], MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void pingpong_scenario(const char *label, int kind, int q, int n)
{
    static char buf[1024];
    double *t[NMODES];
    for (int m = 0; m < NMODES; m++) t[m] = malloc(sizeof(double) * (size_t)samples);
    bg_setup(kind, q);
    for (int m = 0; m < NMODES; m++) pingpong(m, buf, n); /* warm up */
    for (int s = 0; s < samples; s++)
        for (int k = 0; k < NMODES; k++) {
            int m = (s + k) % NMODES; /* rotate the order */
            t[m][s] = pingpong(m, buf, n);
        }
    bg_cleanup(kind, q);
    if (me == 0) {
        double med[NMODES], p99[NMODES];
        for (int m = 0; m < NMODES; m++) stats(t[m], samples, &med[m], &p99[m]);
        printf("pingpong %-14s %5d B", label, n);
        for (int m = 0; m < NMODES; m++)
            printf("  %s %7.1f/%7.1f", mode_name[m], med[m], p99[m]);
        printf("  mpi-ring %6.1f  hint-ring %6.1f\n", med[M_MPI] - med[M_RING],
               med[M_HINT] - med[M_RING]);
        fflush(stdout);
    }
    for (int m = 0; m < NMODES; m++) free(t[m]);
}

/* ------------------------------------------------- match functions alone */
enum { BG_TAGS, BG_SOURCES, BG_WILD };
static const char *const match_bg_name[] = {"other tags", "other sources", "any-source"};
/* BG_WILD: on the plain communicator the wildcards share its context; on
 * the hinted one (where they would be erroneous) they are on the plain one. */

static dmpi_request *new_recv(dmpi_comm *c, int src, int tag)
{
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
    if (!r) die("out of requests");
    r->comm = c;
    r->peer = src;
    r->tag = tag;
    r->ctx_kind = DMPI_CTX_P2P;
    r->dt = dmpi_dt_builtin(MPI_BYTE);
    dmpi_dt_retain(r->dt);
    r->count = 0;
    r->buf = NULL;
    return r;
}

/* post+arrive: ns per (receive posted, message matched); the wildcard
 * receives of BG_WILD are pending on wc. */
static double bench_post_arrive(dmpi_comm *c, dmpi_comm *wc, int bg, int q, int ops)
{
    dmpi_request **pend = malloc(sizeof *pend * (size_t)(q ? q : 1));
    for (int i = 0; i < q; i++) {
        pend[i] = bg == BG_TAGS ? new_recv(c, 1, TAG_POSTED + i)
                  : bg == BG_SOURCES ? new_recv(c, 2 + i, 7)
                                     : new_recv(wc, MPI_ANY_SOURCE, TAG_POSTED + i);
        dmpi_posted_add(pend[i]);
    }
    dmpi_request *r = new_recv(c, 1, 7);
    dmpi_env env = {c->context_id + DMPI_CTX_P2P, 1, 7, 0};
    double t0 = now_ns();
    for (int k = 0; k < ops; k++) {
        dmpi_recv_start(r);
        if (dmpi_match_posted(&env) != r) die("the message matched the wrong receive");
    }
    double t = (now_ns() - t0) / ops;
    dmpi_request_free(r);
    for (int i = 0; i < q; i++) {
        dmpi_posted_remove(pend[i]);
        dmpi_request_free(pend[i]);
    }
    free(pend);
    return t;
}

/* unexp: ns per (message queued unexpected, found by its receive). */
static double bench_unexp(dmpi_comm *c, int q, int ops)
{
    uint32_t ctx = c->context_id + DMPI_CTX_P2P;
    dmpi_unexp *bgu = calloc((size_t)(q ? q : 1), sizeof *bgu), u;
    for (int i = 0; i < q; i++) {
        bgu[i].env = (dmpi_env){ctx, 1, TAG_UNEXP + i, 0};
        dmpi_unexp_add(&bgu[i]);
    }
    memset(&u, 0, sizeof u);
    u.env = (dmpi_env){ctx, 1, 7, 0};
    double t0 = now_ns();
    for (int k = 0; k < ops; k++) {
        dmpi_unexp_add(&u);
        if (dmpi_match_unexp(ctx, 1, 7, true) != &u) die("the receive found the wrong message");
    }
    double t = (now_ns() - t0) / ops;
    for (int i = 0; i < q; i++) dmpi_unexp_remove(&bgu[i]);
    free(bgu);
    return t;
}

static void match_alone(void)
{
    static const int depth[] = {0, 16, 256};
    enum { OPS = 2000 };
    dmpi_comm *comms[2] = {dmpi_comm_get(MPI_COMM_WORLD), dmpi_comm_get(hinted)};
    const char *cname[2] = {"plain", "hinted"};
    double *v = malloc(sizeof(double) * (size_t)samples);
    printf("\n%-8s %-14s %-7s %5s %9s %9s   (ns per operation)\n", "match", "queued", "comm",
           "N", "median", "p99");
    for (int what = 0; what < 4; what++)
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 2; c++) {
                int q = depth[d];
                for (int s = 0; s < samples; s++)
                    v[s] = what < 3 ? bench_post_arrive(comms[c], comms[0], what, q, OPS)
                                    : bench_unexp(comms[c], q, OPS);
                double med, p99;
                stats(v, samples, &med, &p99);
                printf("%-8s %-14s %-7s %5d %9.1f %9.1f\n", what < 3 ? "post+arr" : "unexp",
                       what < 3 ? match_bg_name[what] : "other tags", cname[c], q, med, p99);
            }
    free(v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-p")) part2 = 0;
        else if (!strcmp(argv[i], "-m")) part1 = 0;
        else samples = 0; /* usage */
    }
    if (np != 2 || samples < 1 || iters < 1) {
        if (me == 0)
            fprintf(stderr, "usage: mpiexec -n 2 bench_match [-s SAMPLES] [-i ITERS] [-p|-m]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &hinted);
    MPI_Info_free(&info);
    if (me == 0)
        printf("# bench_match: %d samples x %d round trips; ns per half round trip, "
               "median/p99\n", samples, iters);

    static const int sizes[] = {8, 64, 256, 1024};
    if (part1) {
        for (int i = 0; i < 4; i++) pingpong_scenario("empty queues", BG_NONE, 0, sizes[i]);
        pingpong_scenario("16 posted", BG_POSTED, 16, 8);
        pingpong_scenario("256 posted", BG_POSTED, 256, 8);
        pingpong_scenario("16 unexpected", BG_UNEXP, 16, 8);
        pingpong_scenario("256 unexpected", BG_UNEXP, 256, 8);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && part2) match_alone();
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Comm_free(&hinted);
    MPI_Finalize();
    return 0;
}
