/* p2p_truncate.c: a message longer than the receive buffer gives an error
 * of class MPI_ERR_TRUNCATE (under MPI_ERRORS_RETURN), for small (eager)
 * and large (rendezvous) messages, with the receive posted before the
 * message arrives and after, for MPI_Recv, MPI_Irecv+MPI_Wait and
 * MPI_Waitall (MPI_ERR_IN_STATUS with MPI_ERR_TRUNCATE in the status).  The
 * bytes past the receive buffer are never written, the sender's call does
 * not hang, and communication goes on normally afterwards.  Partners
 * 0<->1, 2<->3, ...: the even rank sends, the odd one receives. */
#include "common.h"

#define GO_TAG 77

static const int sizes[][2] = { /* message bytes, receive buffer bytes */
    { 1, 0 }, { 100, 10 }, { 4096, 4095 }, { 20000, 1000 }, { 1 << 20, 65536 },
    { 4 << 20, (4 << 20) - 1 },
};
#define NCASES (int)(sizeof sizes / sizeof sizes[0])
enum { R_RECV, R_IRECV, R_WAITALL, NRECV };

static void sender(int peer, int n, int tag, int posted_first, unsigned char *buf)
{
    t_fill(buf, (size_t)n, (unsigned)tag);
    if (posted_first) {
        /* The receiver has posted its receive when its go message comes. */
        MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int rc = MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_TRUNCATE,
              "sender of truncated %d-byte message got %d", n, rc);
    } else {
        MPI_Request r;
        MPI_CHK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r));
        MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD));
        int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS || t_class(rc) == MPI_ERR_TRUNCATE,
              "sender of truncated %d-byte message got %d", n, rc);
    }
}

static void receiver(int peer, int n, int cap, int tag, int posted_first, int how,
                     unsigned char *buf)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int rc;
    memset(buf, 0xee, (size_t)n);
    if (!posted_first) /* the message was sent (perhaps still travelling) */
        MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (how == R_RECV) {
        if (posted_first) {
            /* A blocking receive cannot be posted before the go message:
             * it follows right after it. */
            MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD));
        }
        rc = MPI_Recv(buf, cap, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st[0]);
        CHECK(t_class(rc) == MPI_ERR_TRUNCATE, "MPI_Recv of %d bytes into %d gave %d (%s)", n,
              cap, rc, t_errstr(rc));
    } else {
        MPI_CHK(MPI_Irecv(buf, cap, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
        if (posted_first)
            MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD));
        if (how == R_IRECV) {
            rc = MPI_Wait(&r[0], &st[0]);
            CHECK(t_class(rc) == MPI_ERR_TRUNCATE, "MPI_Wait of %d bytes into %d gave %d (%s)",
                  n, cap, rc, t_errstr(rc));
        } else {
            r[1] = MPI_REQUEST_NULL;
            st[0].MPI_ERROR = -1;
            rc = MPI_Waitall(2, r, st);
            CHECK(t_class(rc) == MPI_ERR_IN_STATUS, "MPI_Waitall gave %d (%s), want IN_STATUS",
                  rc, t_errstr(rc));
            CHECK(t_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
                  "MPI_Waitall status error %d, want class MPI_ERR_TRUNCATE", st[0].MPI_ERROR);
            CHECK(r[0] == MPI_REQUEST_NULL, "failed request not freed by MPI_Waitall");
        }
    }
    CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == tag, "status source %d tag %d",
          st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK_PATTERN(buf, (size_t)cap, (unsigned)tag);
    for (int i = cap; i < n; i++)
        if (buf[i] != 0xee) {
            CHECK(buf[i] == 0xee, "byte %d past the %d-byte receive buffer written", i, cap);
            break;
        }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = t_partner();
    unsigned char *buf = t_malloc(4 << 20);
    int tag = 0;

    if (peer != t_rank) {
        for (int c = 0; c < NCASES; c++)
            for (int posted = 0; posted < 2; posted++)
                for (int how = 0; how < NRECV; how++, tag++) {
                    int n = sizes[c][0], cap = sizes[c][1];
                    if (t_rank % 2 == 0)
                        sender(peer, n, tag, posted, buf);
                    else
                        receiver(peer, n, cap, tag, posted, how, buf);
                }
    }

    /* Normal traffic still works, in both directions. */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    for (int k = 0; k < 3; k++) {
        int n = k == 0 ? 8 : k == 1 ? 20000 : 1 << 20;
        unsigned char *in = t_malloc((size_t)n);
        t_fill(buf, (size_t)n, (unsigned)(t_rank + k));
        MPI_Status st;
        MPI_CHK(MPI_Sendrecv(buf, n, MPI_BYTE, right, 500 + k, in, n, MPI_BYTE, left, 500 + k,
                             MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, left, 500 + k, n);
        CHECK_PATTERN(in, (size_t)n, (unsigned)(left + k));
        free(in);
    }
    free(buf);
    return t_finish();
}
