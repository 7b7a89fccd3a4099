/* p2p_cancel.c: MPI_Cancel of receives and MPI_Test_cancelled.
 *  - a posted receive that nothing matches (specific, wildcard, large,
 *    persistent) is cancelled: MPI_Wait / MPI_Test complete it and
 *    MPI_Test_cancelled says true; a message sent afterwards goes to a later
 *    receive, not to the cancelled one;
 *  - a receive already matched and complete (seen with
 *    MPI_Request_get_status) is not cancelled: Test_cancelled says false and
 *    the data is there;
 *  - MPI_Isendrecv and MPI_Isendrecv_replace with nothing on the other side
 *    are cancelled as a whole (both halves).
 * Partners 0<->1, 2<->3, ... (the last rank of an odd count is its own). */
#include "common.h"

static void sync_with(int peer, MPI_Comm comm)
{
    MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9999, NULL, 0, MPI_BYTE, peer, 9999, comm,
                         MPI_STATUS_IGNORE));
}

static void expect_cancelled(MPI_Request *r, int use_test, const char *what)
{
    MPI_Status st;
    int flag = 0;
    MPI_CHK(MPI_Cancel(r));
    if (use_test) {
        while (!flag)
            MPI_CHK(MPI_Test(r, &flag, &st));
    } else {
        MPI_CHK(MPI_Wait(r, &st));
    }
    flag = -1;
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "%s: MPI_Test_cancelled gave %d", what, flag);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    MPI_Comm quiet; /* no traffic at all: wildcards match nothing there */
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    int big = 1 << 20;
    unsigned char *buf = t_malloc((size_t)big), *out = t_malloc((size_t)big);
    MPI_Request r;
    MPI_Status st;
    int flag, x = -1;

    MPI_CHK(MPI_Irecv(&x, 1, MPI_INT, peer, 1000, MPI_COMM_WORLD, &r));
    expect_cancelled(&r, 0, "specific receive, Wait");
    CHECK(r == MPI_REQUEST_NULL, "cancelled request not freed");
    MPI_CHK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &r));
    expect_cancelled(&r, 1, "wildcard receive, Test");
    MPI_CHK(MPI_Irecv(buf, big, MPI_BYTE, peer, 1001, MPI_COMM_WORLD, &r));
    expect_cancelled(&r, 0, "1 MiB receive");

    /* A cancelled receive does not take the message sent after it. */
    MPI_CHK(MPI_Irecv(&x, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r));
    expect_cancelled(&r, 0, "receive before a send");
    sync_with(peer, MPI_COMM_WORLD); /* both cancels done */
    int v = 500 + t_rank;
    MPI_Request sr;
    MPI_CHK(MPI_Isend(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &sr));
    x = -1;
    MPI_CHK(MPI_Recv(&x, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &st));
    CHECK(x == 500 + peer, "receive after a cancelled one got %d, want %d", x, 500 + peer);
    MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

    /* A matched, complete receive cannot be cancelled. */
    t_fill(out, (size_t)big, (unsigned)t_rank);
    for (int k = 0; k < 2; k++) {
        int n = k == 0 ? 4 : big;
        MPI_CHK(MPI_Irecv(buf, n, MPI_BYTE, peer, 6 + k, MPI_COMM_WORLD, &r));
        MPI_CHK(MPI_Isend(out, n, MPI_BYTE, peer, 6 + k, MPI_COMM_WORLD, &sr));
        flag = 0;
        while (!flag)
            MPI_CHK(MPI_Request_get_status(r, &flag, &st));
        CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
        MPI_CHK(MPI_Cancel(&r));
        MPI_CHK(MPI_Wait(&r, &st));
        flag = -1;
        MPI_CHK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 0, "completed %d-byte receive reported cancelled", n);
        CHECK_STATUS(st, peer, 6 + k, n);
        CHECK_PATTERN(buf, (size_t)n, (unsigned)peer);
        MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }

    /* A persistent receive: cancel one activation, then use it normally. */
    MPI_CHK(MPI_Recv_init(&x, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &r));
    MPI_CHK(MPI_Start(&r));
    MPI_CHK(MPI_Cancel(&r));
    MPI_CHK(MPI_Wait(&r, &st));
    flag = -1;
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "persistent receive: MPI_Test_cancelled gave %d", flag);
    CHECK(r != MPI_REQUEST_NULL, "persistent request freed by Wait after cancel");
    sync_with(peer, MPI_COMM_WORLD);
    MPI_CHK(MPI_Start(&r));
    v = 800 + t_rank;
    MPI_CHK(MPI_Send(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
    MPI_CHK(MPI_Wait(&r, &st));
    CHECK(x == 800 + peer, "persistent receive after cancel got %d", x);
    MPI_CHK(MPI_Request_free(&r));

    /* MPI_Isendrecv(_replace) whose receive nothing matches and whose send
     * nothing receives (eager and rendezvous sizes): cancelling the request
     * cancels both halves and it reports cancelled (its receive was). */
    for (int k = 0; k < 3; k++) {
        int n = k == 1 ? big : 4;
        if (k < 2)
            MPI_CHK(MPI_Isendrecv(out, n, MPI_BYTE, peer, 20 + k, buf, 4, MPI_BYTE, peer, 30 + k,
                                  MPI_COMM_WORLD, &r));
        else
            MPI_CHK(MPI_Isendrecv_replace(buf, 4, MPI_BYTE, peer, 22, peer, 32, MPI_COMM_WORLD,
                                          &r));
        expect_cancelled(&r, k == 2, k < 2 ? "MPI_Isendrecv" : "MPI_Isendrecv_replace");
    }
    sync_with(peer, MPI_COMM_WORLD);
    /* The 4-byte sends went eagerly and completed at once, so they could
     * not be cancelled ("completes normally"): their messages may be here,
     * and are received. The 1 MiB one waited for its receiver: cancelled,
     * it never arrives. */
    for (int tag = 20; tag <= 22; tag++) {
        flag = 0;
        MPI_CHK(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag || tag != 21, "the cancelled 1 MiB send of MPI_Isendrecv arrived");
        if (flag) MPI_CHK(MPI_Recv(buf, big, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    }

    MPI_CHK(MPI_Comm_free(&quiet));
    free(buf);
    free(out);
    return t_finish();
}
