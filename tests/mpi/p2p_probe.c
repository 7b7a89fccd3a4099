/* p2p_probe.c: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv and
 * MPI_Imrecv.  Every rank sends a set of messages (distinct tags, small and
 * 1 MiB) to its partner (itself on an odd rank count) with MPI_Isend, then
 * inspects the partner's messages:
 *  - Probe reports source, tag and count and does not consume the message;
 *  - Iprobe eventually finds a message, and finds none for an unused tag;
 *  - Mprobe/Improbe remove the message from matching: a later Iprobe does
 *    not see it, Mrecv/Imrecv receive exactly it and reset the handle;
 *  - a wildcard Mprobe takes the earliest message of the sender. */
#include "common.h"

#define BIG (1 << 20)
static const int len_of_tag[] = { 0, 40, BIG, 13, 1, 16, BIG + 5, 8, 24, 0 };
#define NTAGS (int)(sizeof len_of_tag / sizeof len_of_tag[0])

static unsigned seed_of(int src, int tag)
{
    return (unsigned)(src * 100 + tag);
}

static void check_msg(const unsigned char *buf, const MPI_Status *st, int src, int tag)
{
    CHECK_STATUS(*st, src, tag, len_of_tag[tag]);
    CHECK_PATTERN(buf, (size_t)len_of_tag[tag], seed_of(src, tag));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    unsigned char *out[NTAGS], *in = t_malloc(BIG + 64);
    MPI_Request sreq[NTAGS];
    MPI_Status st;
    int flag, n;

    for (int tag = 1; tag < NTAGS; tag++) {
        out[tag] = t_malloc((size_t)len_of_tag[tag]);
        t_fill(out[tag], (size_t)len_of_tag[tag], seed_of(t_rank, tag));
        MPI_CHK(MPI_Isend(out[tag], len_of_tag[tag], MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                          &sreq[tag]));
    }

    /* Probe (specific and wildcard) then receive; probing twice sees the
     * same message. */
    for (int tag = 1; tag <= 2; tag++) {
        t_junk_status(&st);
        MPI_CHK(MPI_Probe(peer, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, tag, len_of_tag[tag]);
        t_junk_status(&st);
        MPI_CHK(MPI_Probe(tag == 1 ? MPI_ANY_SOURCE : peer, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, tag, len_of_tag[tag]);
        MPI_CHK(MPI_Get_count(&st, MPI_BYTE, &n));
        MPI_CHK(MPI_Recv(in, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        check_msg(in, &st, peer, tag);
    }

    /* Iprobe until the message is there. */
    flag = 0;
    while (!flag)
        MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, &st));
    CHECK_STATUS(st, peer, 3, len_of_tag[3]);
    MPI_CHK(MPI_Recv(in, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st));
    check_msg(in, &st, peer, 3);
    flag = -1;
    MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "MPI_Iprobe found a message with a tag nobody used");

    /* Mprobe removes the message from matching. */
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_CHK(MPI_Mprobe(peer, 4, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "MPI_Mprobe message handle");
    CHECK_STATUS(st, peer, 4, len_of_tag[4]);
    flag = -1;
    MPI_CHK(MPI_Iprobe(peer, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "MPI_Iprobe still sees a message taken by MPI_Mprobe");
    memset(in, 0xee, 64);
    MPI_CHK(MPI_Mrecv(in, 64, MPI_BYTE, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv did not reset the message handle");
    check_msg(in, &st, peer, 4);

    /* Improbe until found, then Imrecv a large message. */
    flag = 0;
    msg = MPI_MESSAGE_NULL;
    while (!flag)
        MPI_CHK(MPI_Improbe(peer, 6, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_STATUS(st, peer, 6, len_of_tag[6]);
    MPI_Request r;
    MPI_CHK(MPI_Imrecv(in, BIG + 64, MPI_BYTE, &msg, &r));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv did not reset the message handle");
    t_junk_status(&st);
    MPI_CHK(MPI_Wait(&r, &st));
    check_msg(in, &st, peer, 6);
    flag = -1;
    MPI_CHK(MPI_Improbe(peer, 6, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag == 0, "MPI_Improbe found tag 6 again after it was received");

    /* A wildcard Mprobe takes the earliest remaining message (tag 5), a
     * specific one the next; receive them in the opposite order. */
    MPI_Message m5, m7;
    MPI_Status st5, st7;
    MPI_CHK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m5, &st5));
    CHECK_STATUS(st5, peer, 5, len_of_tag[5]);
    MPI_CHK(MPI_Mprobe(peer, 7, MPI_COMM_WORLD, &m7, &st7));
    CHECK_STATUS(st7, peer, 7, len_of_tag[7]);
    MPI_CHK(MPI_Mrecv(in, len_of_tag[7], MPI_BYTE, &m7, &st));
    check_msg(in, &st, peer, 7);
    MPI_CHK(MPI_Mrecv(in, len_of_tag[5], MPI_BYTE, &m5, &st));
    check_msg(in, &st, peer, 5);

    /* The rest with Probe + Recv by wildcard: tags 8, 9 in order. */
    for (int tag = 8; tag < NTAGS; tag++) {
        MPI_CHK(MPI_Probe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == tag, "wildcard probe found tag %d, want %d", st.MPI_TAG, tag);
        MPI_CHK(MPI_Recv(in, BIG, MPI_BYTE, peer, st.MPI_TAG, MPI_COMM_WORLD, &st));
        check_msg(in, &st, peer, tag);
    }

    MPI_CHK(MPI_Waitall(NTAGS - 1, sreq + 1, MPI_STATUSES_IGNORE));
    for (int tag = 1; tag < NTAGS; tag++)
        free(out[tag]);
    free(in);
    return t_finish();
}
