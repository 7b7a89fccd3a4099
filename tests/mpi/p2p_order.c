/* p2p_order.c: the non-overtaking rule.  Messages from one sender to one
 * receiver with the same tag must be received in the order they were sent,
 * whatever their sizes and send modes.  Senders are ranks 1..n-1 (rank 0
 * itself when run on one rank); rank 0 receives.
 *  1. Each sender starts 300 messages, same tag, sizes mixed from 0 bytes to
 *     200 KB (eager and rendezvous interleaved), with MPI_Isend, MPI_Issend
 *     and MPI_Ibsend mixed; rank 0 receives them with ANY_SOURCE and checks
 *     that every sender's sequence arrives in order (size and content).
 *  2. Each sender sends 1500 small messages with one tag; rank 0 pre-posts
 *     receives in batches (specific source, ANY_TAG) and checks the order.
 *  3. Same as 2 but rank 0 posts its receives only after the messages were
 *     sent (unexpected queue). */
#include "common.h"

#define N1 300
#define N2 1500
#define BATCH 128

static int size_of(int seq)
{
    if (seq % 10 == 3)
        return 200000 + seq;
    if (seq % 10 == 7)
        return 20000 + seq;
    if (seq % 5 == 0)
        return 0;
    return 8 + seq % 50;
}

static void phase1(int nsenders, int is_sender)
{
    MPI_Request *req = NULL;
    unsigned char *sbuf = NULL;
    size_t total = 0;
    for (int s = 0; s < N1; s++)
        total += (size_t)size_of(s);
    if (is_sender) {
        req = t_malloc(N1 * sizeof *req);
        sbuf = t_malloc(total);
        size_t off = 0;
        for (int s = 0; s < N1; s++) {
            int n = size_of(s);
            t_fill(sbuf + off, (size_t)n, (unsigned)(s + 1000 * t_rank));
            if (s % 3 == 1)
                MPI_CHK(MPI_Issend(sbuf + off, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req[s]));
            else if (s % 3 == 2)
                MPI_CHK(MPI_Ibsend(sbuf + off, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req[s]));
            else
                MPI_CHK(MPI_Isend(sbuf + off, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req[s]));
            off += (size_t)n;
        }
    }
    if (t_rank == 0) {
        int *next = calloc((size_t)t_size, sizeof(int));
        unsigned char *rbuf = t_malloc(300000);
        for (int i = 0; i < N1 * nsenders; i++) {
            MPI_Status st;
            MPI_CHK(MPI_Recv(rbuf, 300000, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE, n = -1;
            if (src < 0 || src >= t_size) {
                CHECK(0, "bad source %d", src);
                continue;
            }
            int seq = next[src]++;
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK(n == size_of(seq), "message %d from %d: %d bytes, want %d (out of order?)",
                  seq, src, n, size_of(seq));
            if (n == size_of(seq))
                CHECK_PATTERN(rbuf, (size_t)n, (unsigned)(seq + 1000 * src));
        }
        free(rbuf);
        free(next);
    }
    if (is_sender) {
        MPI_CHK(MPI_Waitall(N1, req, MPI_STATUSES_IGNORE));
        free(req);
        free(sbuf);
    }
}

/* Phase 2 and 3: N2 ints 0..N2-1 from each sender, one tag. */
static void phase23(int nsenders, int is_sender, int late)
{
    int first = t_size == 1 ? 0 : 1;
    MPI_Request *req = NULL;
    int *vals = NULL;
    if (is_sender) {
        req = t_malloc(N2 * sizeof *req);
        vals = t_malloc(N2 * sizeof *vals);
        for (int s = 0; s < N2; s++) {
            vals[s] = s;
            MPI_CHK(MPI_Isend(&vals[s], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &req[s]));
        }
    }
    if (late)
        MPI_Barrier(MPI_COMM_WORLD); /* all messages are on their way */
    if (t_rank == 0) {
        int got[BATCH];
        MPI_Request r[BATCH];
        MPI_Status st[BATCH];
        for (int src = first; src < first + nsenders; src++) {
            for (int base = 0; base < N2; base += BATCH) {
                int cnt = N2 - base < BATCH ? N2 - base : BATCH;
                for (int i = 0; i < cnt; i++)
                    MPI_CHK(MPI_Irecv(&got[i], 1, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD,
                                      &r[i]));
                MPI_CHK(MPI_Waitall(cnt, r, st));
                for (int i = 0; i < cnt; i++) {
                    CHECK(got[i] == base + i, "%s: receive %d from %d got %d",
                          late ? "unexpected" : "posted", base + i, src, got[i]);
                    CHECK(st[i].MPI_TAG == 9 && st[i].MPI_SOURCE == src,
                          "status tag %d source %d", st[i].MPI_TAG, st[i].MPI_SOURCE);
                }
            }
        }
    }
    if (is_sender) {
        MPI_CHK(MPI_Waitall(N2, req, MPI_STATUSES_IGNORE));
        free(req);
        free(vals);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int nsenders = t_size == 1 ? 1 : t_size - 1;
    int is_sender = t_size == 1 || t_rank > 0;

    /* Ibsend space for every message of phase 1. */
    int bsize = 0;
    for (int s = 0; s < N1; s++)
        bsize += size_of(s) + MPI_BSEND_OVERHEAD;
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    phase1(nsenders, is_sender);
    MPI_Barrier(MPI_COMM_WORLD);
    phase23(nsenders, is_sender, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    phase23(nsenders, is_sender, 1);

    void *addr;
    int size;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    free(bbuf);
    return t_finish();
}
