/* threads_p2p_modes.c: MPI_THREAD_MULTIPLE, 4 threads per rank, each
 * thread t talking to thread t of the partner rank on its own tags, all
 * at once, with the calls threads_multiple.c leaves out (issue 22 item 8):
 *  - buffered sends (MPI_Bsend, MPI_Ibsend) from every thread into one
 *    large attached buffer (64 MiB, much more than the messages in flight:
 *    a buffer big enough must never report "too small");
 *  - matched probes: MPI_Mprobe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv
 *    (a message matched by one thread cannot be received by another);
 *  - persistent sends and receives (MPI_Send_init/Recv_init, restarted);
 *  - synchronous sends (MPI_Ssend, MPI_Issend);
 *  - cancel of a receive that nothing matches (MPI_Test_cancelled true);
 *  - MPI_Request_toint/fromint from every thread at once;
 *  - matched probes of MPI_PROC_NULL from every thread at once (MPI 4.1
 *    sec. 3.8.2: the message is MPI_MESSAGE_NO_PROC, and MPI_Mrecv /
 *    MPI_Imrecv of it complete at once with source MPI_PROC_NULL, tag
 *    MPI_ANY_TAG, count 0), mixed with requests of the other kinds: the
 *    receive of MPI_MESSAGE_NO_PROC once took a request from the shared
 *    free list without the library's lock, and the list broke (a crash
 *    in MPI_Isend, found by MPICH's threads/pt2pt/mt_improbe_isendrecv).
 * Sizes 0 B to 256 KiB (eager and rendezvous). Checks data, counts and
 * status fields; the test hangs (and its timeout fails it) if a matched
 * probe or a cancel loses a message. */
#include "common.h"
#include "threads_common.h"

#define NTHREADS 4
#define ITERS 60
#define BUFFER_BYTES (64 << 20)

static int peer;
static int size_of(int it)
{
    static const int s[] = {0, 8, 1000, 16384, 70000, 262144};
    return s[it % 6];
}

/* Receives the peer's message of n bytes on tag with a matched probe
 * (blocking or not, by it). */
static int recv_matched(int t, int it, void *in, int n, int tag, MPI_Status *st)
{
    MPI_Message msg;
    int rc, count = -1;
    if (it % 2 == 0) {
        rc = MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &msg, st);
    } else {
        int flag = 0;
        do rc = MPI_Improbe(peer, tag, MPI_COMM_WORLD, &flag, &msg, st);
        while (rc == MPI_SUCCESS && !flag);
    }
    MPI_Get_count(st, MPI_BYTE, &count);
    TCHECK(count == n, "iteration %d: matched probe count %d, want %d", it, count, n);
    if (it % 4 < 2) {
        rc |= MPI_Mrecv(in, n, MPI_BYTE, &msg, st);
    } else {
        MPI_Request r;
        rc |= MPI_Imrecv(in, n, MPI_BYTE, &msg, &r);
        rc |= MPI_Wait(&r, st);
    }
    TCHECK(msg == MPI_MESSAGE_NULL, "iteration %d: message handle not freed", it);
    return rc;
}

static void check_recv(int t, int it, const char *what, const MPI_Status *st,
                       const unsigned char *in, int n, int tag, unsigned pseed)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    TCHECK(st->MPI_SOURCE == peer && st->MPI_TAG == tag && cnt == n,
           "%s %d: status %d/%d/%d, want %d/%d/%d", what, it, st->MPI_SOURCE, st->MPI_TAG, cnt,
           peer, tag, n);
    long bad = t_verify(in, (size_t)n, pseed);
    TCHECK(bad < 0, "%s %d: %d-byte message wrong at byte %ld", what, it, n, bad);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *out = t_malloc(262144), *in = t_malloc(262144);

    /* buffered and synchronous sends, received by matched probes */
    for (int it = 0; it < ITERS; it++) {
        int n = size_of(it), tag = 100 + t;
        t_fill(out, (size_t)n, (unsigned)(t_rank * 7919 + t * 131 + it));
        memset(in, 0, (size_t)n);
        MPI_Request r = MPI_REQUEST_NULL;
        int rc;
        switch (it % 4) {
        case 0: rc = MPI_Bsend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD); break;
        case 1: rc = MPI_Ibsend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r); break;
        case 2: rc = MPI_Issend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r); break;
        default: rc = MPI_Isend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r); break;
        }
        TCHECK(rc == MPI_SUCCESS, "send %d (mode %d) failed: %d", it, it % 4, rc);
        MPI_Status st;
        rc = recv_matched(t, it, in, n, tag, &st);
        TCHECK(rc == MPI_SUCCESS, "matched receive %d failed: %d", it, rc);
        check_recv(t, it, "matched receive", &st, in, n, tag,
                   (unsigned)(peer * 7919 + t * 131 + it));
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }

    /* a blocking synchronous send against a receive posted late */
    {
        int tag = 200 + t, n = 1000;
        t_fill(out, (size_t)n, (unsigned)(t_rank + t));
        MPI_Request r;
        MPI_Irecv(in, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
        int rc = MPI_Ssend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        MPI_Status st;
        rc |= MPI_Wait(&r, &st);
        TCHECK(rc == MPI_SUCCESS, "Ssend/Irecv failed");
        check_recv(t, 0, "Ssend", &st, in, n, tag, (unsigned)(peer + t));
    }

    /* persistent requests, restarted */
    {
        int tag = 300 + t, n = 70000;
        MPI_Request r[2];
        MPI_Recv_init(in, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]);
        MPI_Send_init(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]);
        for (int it = 0; it < ITERS / 2; it++) {
            t_fill(out, (size_t)n, (unsigned)(t_rank * 31 + t * 7 + it));
            /* handle <-> int conversions from every thread at once */
            int ri = MPI_Request_toint(r[it % 2]);
            TCHECK(MPI_Request_fromint(ri) == r[it % 2] && MPI_Request_toint(r[it % 2]) == ri,
                   "request %d: toint/fromint round trip", it);
            int rc = MPI_Startall(2, r);
            MPI_Status st[2];
            rc |= MPI_Waitall(2, r, st);
            TCHECK(rc == MPI_SUCCESS, "persistent round %d failed", it);
            check_recv(t, it, "persistent", &st[0], in, n, tag,
                       (unsigned)(peer * 31 + t * 7 + it));
        }
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }

    /* matched probes of MPI_PROC_NULL, with real requests in between */
    for (int it = 0; it < 20000; it++) {
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        int flag = 0, rc;
        if (it % 2 == 0) rc = MPI_Mprobe(MPI_PROC_NULL, 7, MPI_COMM_WORLD, &msg, &st);
        else rc = MPI_Improbe(MPI_PROC_NULL, 7, MPI_COMM_WORLD, &flag, &msg, &st);
        TCHECK(rc == MPI_SUCCESS && (it % 2 == 0 || flag) && msg == MPI_MESSAGE_NO_PROC,
               "probe %d of MPI_PROC_NULL: rc %d flag %d", it, rc, flag);
        st.MPI_ERROR = MPI_ERR_OTHER;
        if (it % 4 < 2) {
            rc = MPI_Mrecv(in, 4, MPI_BYTE, &msg, &st);
        } else {
            MPI_Request r = MPI_REQUEST_NULL;
            rc = MPI_Imrecv(in, 4, MPI_BYTE, &msg, &r);
            rc |= MPI_Wait(&r, &st);
        }
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        TCHECK(rc == MPI_SUCCESS && msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL &&
                   st.MPI_TAG == MPI_ANY_TAG && count == 0 && st.MPI_ERROR == MPI_ERR_OTHER,
               "receive %d of MPI_MESSAGE_NO_PROC: rc %d source %d tag %d count %d error %d", it,
               rc, st.MPI_SOURCE, st.MPI_TAG, count, st.MPI_ERROR);
        if (it % 2000 == 0) { /* a request of another kind from the same free list */
            MPI_Request r[2];
            MPI_Irecv(in, 8, MPI_BYTE, peer, 400 + t, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(out, 8, MPI_BYTE, peer, 400 + t, MPI_COMM_WORLD, &r[1]);
            TCHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "exchange %d", it);
        }
    }

    /* a receive nobody sends to is cancelled */
    {
        MPI_Request r;
        MPI_Status st;
        int cancelled = 0;
        MPI_Irecv(in, 4, MPI_BYTE, peer, 900 + t, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        TCHECK(cancelled, "an unmatched receive was not cancelled");
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)",
              provided);
        return t_finish();
    }
    peer = t_partner();
    char *buffer = t_malloc(BUFFER_BYTES);
    MPI_CHK(MPI_Buffer_attach(buffer, BUFFER_BYTES));

    t_run_threads(NTHREADS, worker);
    void *addr;
    int bytes = 0;
    MPI_CHK(MPI_Buffer_detach(&addr, &bytes));
    CHECK(addr == buffer && bytes == BUFFER_BYTES, "detach gave %p/%d", addr, bytes);
    free(buffer);
    return t_finish();
}
