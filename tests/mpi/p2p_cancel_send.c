/* p2p_cancel_send.c: MPI_Cancel of sends (MPI 4.1 sec. 3.8.4). A wait on a
 * cancelled request returns whatever the other process does; then either
 * the send was cancelled (MPI_Test_cancelled true, the receiver never gets
 * the message) or it completed normally (false, and a receive gets it),
 * never both and never neither. Checked for:
 *  - MPI_Isend, MPI_Issend, MPI_Ibsend, persistent MPI_Send_init and
 *    MPI_Ssend_init, of 8 B, 64 KiB and 4 MiB, to a partner that posts no
 *    receive: a synchronous send cannot complete without a matching
 *    receive, so it must come back cancelled;
 *  - several such sends cancelled together and completed by MPI_Waitall,
 *    then traffic on the same pair still flows;
 *  - a send whose message the partner has received: cancel does nothing,
 *    MPI_Test_cancelled false;
 *  - receives (specific, MPI_ANY_SOURCE, every size) that nothing matches,
 *    cancelled while the partner cancels its sends: cancelled, and a later
 *    message goes to a later receive.
 * The partner answers with MPI_Sendrecv and MPI_Recv only, so every cancel
 * is waited for while the other side is inside MPI.
 * Partners 0<->1, 2<->3, ... (the last rank of an odd count is its own). */
#include "common.h"

static int peer;
static MPI_Comm comm;
static const int sizes[] = {8, 65536, 4 << 20};
enum { NSIZES = 3, TAG_FLAG = 999 };

/* After this rank's send (tag) was cancelled or not (mine), and the
 * partner's likewise: the partner's message must be receivable exactly
 * when its send was not cancelled. The flag travels after the message on
 * the same pair, so once the flag is here the message would be too. */
static void settle(int mine, int tag, unsigned char *in, int n, const char *what)
{
    int theirs = -1;
    MPI_CHK(MPI_Sendrecv(&mine, 1, MPI_INT, peer, TAG_FLAG, &theirs, 1, MPI_INT, peer, TAG_FLAG,
                         comm, MPI_STATUS_IGNORE));
    int there = -1;
    MPI_Status st;
    MPI_CHK(MPI_Iprobe(peer, tag, comm, &there, &st));
    if (theirs) {
        CHECK(!there, "%s (%d B): the partner's cancelled message arrived", what, n);
        if (there) MPI_CHK(MPI_Recv(in, n, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE));
    } else {
        CHECK(there, "%s (%d B): the partner's message, not cancelled, is not here", what, n);
        MPI_CHK(MPI_Recv(in, n, MPI_BYTE, peer, tag, comm, &st));
        CHECK_STATUS(st, peer, tag, n);
        CHECK_PATTERN(in, (size_t)n, (unsigned)peer);
    }
    /* neither side sends this tag again before both have looked */
    MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_FLAG, NULL, 0, MPI_BYTE, peer, TAG_FLAG,
                         comm, MPI_STATUS_IGNORE));
}

static int cancel_wait(MPI_Request *r, int use_test)
{
    MPI_Status st;
    int flag = 0;
    MPI_CHK(MPI_Cancel(r));
    if (use_test)
        while (!flag) MPI_CHK(MPI_Test(r, &flag, &st));
    else
        MPI_CHK(MPI_Wait(r, &st));
    flag = -1;
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 || flag == 1, "MPI_Test_cancelled gave %d", flag);
    return flag;
}

/* One unmatched send of each kind: cancel, wait, settle. */
static void unmatched_sends(unsigned char *out, unsigned char *in)
{
    static const char *kinds[] = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Send_init",
                                  "MPI_Ssend_init"};
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int k = 0; k < 5; k++) {
            int tag = 100 + 10 * s + k;
            MPI_Request r;
            if (k == 0) MPI_CHK(MPI_Isend(out, n, MPI_BYTE, peer, tag, comm, &r));
            if (k == 1) MPI_CHK(MPI_Issend(out, n, MPI_BYTE, peer, tag, comm, &r));
            if (k == 2) MPI_CHK(MPI_Ibsend(out, n, MPI_BYTE, peer, tag, comm, &r));
            if (k == 3) MPI_CHK(MPI_Send_init(out, n, MPI_BYTE, peer, tag, comm, &r));
            if (k == 4) MPI_CHK(MPI_Ssend_init(out, n, MPI_BYTE, peer, tag, comm, &r));
            if (k >= 3) MPI_CHK(MPI_Start(&r));
            int c = cancel_wait(&r, k == 0 && s == 1);
            if (k == 1 || k == 4)
                CHECK(c == 1, "%s of %d B to a rank not receiving: not cancelled", kinds[k], n);
            settle(c, tag, in, n, kinds[k]);
            if (k >= 3) { /* the persistent request works again afterwards */
                MPI_Request rr;
                MPI_CHK(MPI_Irecv(in, n, MPI_BYTE, peer, tag, comm, &rr));
                MPI_CHK(MPI_Start(&r));
                MPI_Status st;
                MPI_CHK(MPI_Wait(&r, &st));
                int f = -1;
                MPI_CHK(MPI_Test_cancelled(&st, &f));
                CHECK(f == 0, "%s restarted after a cancel: reported cancelled", kinds[k]);
                MPI_CHK(MPI_Wait(&rr, &st));
                CHECK_STATUS(st, peer, tag, n);
                CHECK_PATTERN(in, (size_t)n, (unsigned)peer);
                MPI_CHK(MPI_Request_free(&r));
            }
        }
    }
}

/* Several cancelled at once (with a wildcard receive), one Waitall. */
static void together(unsigned char *out, unsigned char *in)
{
    MPI_Request rs[2 * NSIZES + 1];
    MPI_Status st[2 * NSIZES + 1];
    int x;
    for (int s = 0; s < NSIZES; s++) {
        MPI_CHK(MPI_Isend(out, sizes[s], MPI_BYTE, peer, 200 + s, comm, &rs[s]));
        MPI_CHK(MPI_Issend(out, sizes[s], MPI_BYTE, peer, 210 + s, comm, &rs[NSIZES + s]));
    }
    MPI_CHK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 299, comm, &rs[2 * NSIZES]));
    for (int i = 0; i < 2 * NSIZES + 1; i++) MPI_CHK(MPI_Cancel(&rs[i]));
    MPI_CHK(MPI_Waitall(2 * NSIZES + 1, rs, st));
    int c[2 * NSIZES + 1];
    for (int i = 0; i < 2 * NSIZES + 1; i++) MPI_CHK(MPI_Test_cancelled(&st[i], &c[i]));
    for (int s = 0; s < NSIZES; s++)
        CHECK(c[NSIZES + s], "MPI_Issend of %d B in a Waitall: not cancelled", sizes[s]);
    CHECK(c[2 * NSIZES], "MPI_ANY_SOURCE receive in a Waitall: not cancelled");
    for (int s = 0; s < NSIZES; s++) {
        settle(c[s], 200 + s, in, sizes[s], "MPI_Isend in a Waitall");
        settle(c[NSIZES + s], 210 + s, in, sizes[s], "MPI_Issend in a Waitall");
    }
    /* the pair still works, both ways, every size */
    for (int s = 0; s < NSIZES; s++) {
        MPI_Status rst;
        MPI_CHK(MPI_Sendrecv(out, sizes[s], MPI_BYTE, peer, 299, in, sizes[s], MPI_BYTE,
                             MPI_ANY_SOURCE, 299, comm, &rst));
        CHECK_STATUS(rst, peer, 299, sizes[s]);
        CHECK_PATTERN(in, (size_t)sizes[s], (unsigned)peer);
    }
}

/* A send the partner has received cannot be cancelled. */
static void matched_sends(unsigned char *out, unsigned char *in)
{
    for (int s = 0; s < NSIZES; s++) {
        for (int sync = 0; sync < 2; sync++) {
            int n = sizes[s], tag = 300 + 2 * s + sync;
            MPI_Request r;
            MPI_Status st;
            if (sync) MPI_CHK(MPI_Issend(out, n, MPI_BYTE, peer, tag, comm, &r));
            else MPI_CHK(MPI_Isend(out, n, MPI_BYTE, peer, tag, comm, &r));
            MPI_CHK(MPI_Recv(in, n, MPI_BYTE, sync ? MPI_ANY_SOURCE : peer, tag, comm, &st));
            CHECK_STATUS(st, peer, tag, n);
            CHECK_PATTERN(in, (size_t)n, (unsigned)peer);
            /* both received: the partner has my message */
            MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_FLAG, NULL, 0, MPI_BYTE, peer,
                                 TAG_FLAG, comm, MPI_STATUS_IGNORE));
            int c = cancel_wait(&r, sync);
            CHECK(c == 0, "%s of %d B, received: reported cancelled", sync ? "MPI_Issend" : "MPI_Isend",
                  n);
        }
    }
}

/* Receives nothing matches, every size, specific and MPI_ANY_SOURCE. */
static void unmatched_recvs(unsigned char *in)
{
    for (int s = 0; s < NSIZES; s++) {
        for (int any = 0; any < 2; any++) {
            MPI_Request r;
            int tag = 400 + 2 * s + any;
            MPI_CHK(MPI_Irecv(in, sizes[s], MPI_BYTE, any ? MPI_ANY_SOURCE : peer, tag, comm, &r));
            int c = cancel_wait(&r, any);
            CHECK(c == 1, "%s receive of %d B: not cancelled", any ? "MPI_ANY_SOURCE" : "specific",
                  sizes[s]);
            CHECK(r == MPI_REQUEST_NULL, "cancelled receive not freed");
        }
    }
    /* a message sent after the cancels goes to a later receive */
    MPI_CHK(MPI_Barrier(comm));
    int v = 7000 + t_rank, x = -1;
    MPI_Status st;
    MPI_CHK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 401, &x, 1, MPI_INT, MPI_ANY_SOURCE, 401, comm,
                         &st));
    CHECK(x == 7000 + peer, "receive after cancelled ones got %d, want %d", x, 7000 + peer);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    peer = t_partner();
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    size_t big = (size_t)sizes[NSIZES - 1];
    unsigned char *out = t_malloc(big), *in = t_malloc(big);
    t_fill(out, big, (unsigned)t_rank);
    int bsize = (int)big + 4 * MPI_BSEND_OVERHEAD + 1024;
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    unmatched_recvs(in);
    unmatched_sends(out, in);
    together(out, in);
    matched_sends(out, in);

    void *got;
    int gotsize;
    MPI_CHK(MPI_Buffer_detach(&got, &gotsize));
    free(bbuf);
    free(out);
    free(in);
    MPI_CHK(MPI_Comm_free(&comm));
    return t_finish();
}
