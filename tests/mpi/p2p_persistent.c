/* p2p_persistent.c: persistent requests.  For each of MPI_Send_init,
 * MPI_Bsend_init, MPI_Ssend_init and MPI_Rsend_init, paired with
 * MPI_Recv_init, between partners and at several sizes: start the pair
 * several times (MPI_Start one by one, or MPI_Startall), with new data each
 * round; the requests must stay allocated after MPI_Wait/Waitall/Test, an
 * inactive persistent request completes at once with an empty status, and
 * MPI_Request_free releases it. */
#include "common.h"

enum { M_SEND, M_BSEND, M_SSEND, M_RSEND, NMODES };
static const char *mode_name[NMODES] = { "Send_init", "Bsend_init", "Ssend_init", "Rsend_init" };
static const int sizes[] = { 0, 1, 100, 8192, 65536, 1 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define ROUNDS 4

static int init_in_mode(int mode, const void *buf, int n, int dest, int tag, MPI_Request *r)
{
    switch (mode) {
    case M_SEND:  return MPI_Send_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    case M_BSEND: return MPI_Bsend_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    case M_SSEND: return MPI_Ssend_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    default:      return MPI_Rsend_init(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    }
}

static void sync_with(int peer)
{
    MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9999, NULL, 0, MPI_BYTE, peer, 9999,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* An inactive persistent request: Wait and Test return at once, with an
 * empty status, and leave the request allocated. */
static void check_inactive(MPI_Request *r)
{
    MPI_Request keep = *r;
    MPI_Status st;
    int flag = 0;
    t_junk_status(&st);
    MPI_CHK(MPI_Wait(r, &st));
    CHECK(*r == keep, "MPI_Wait freed an inactive persistent request");
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    t_junk_status(&st);
    MPI_CHK(MPI_Test(r, &flag, &st));
    CHECK(flag == 1, "MPI_Test on an inactive request gave flag %d", flag);
    CHECK(*r == keep, "MPI_Test freed an inactive persistent request");
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    int max = sizes[NSIZES - 1];
    unsigned char *sbuf = t_malloc((size_t)max), *rbuf = t_malloc((size_t)max);
    int bsize = 2 * (max + MPI_BSEND_OVERHEAD);
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    for (int mode = 0; mode < NMODES; mode++) {
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k], tag = mode * 10 + k;
            MPI_Request req[2];
            MPI_CHK(MPI_Recv_init(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]));
            int rc = init_in_mode(mode, sbuf, n, peer, tag, &req[1]);
            CHECK(rc == MPI_SUCCESS, "MPI_%s returned %d", mode_name[mode], rc);
            check_inactive(&req[0]);
            check_inactive(&req[1]);

            for (int round = 0; round < ROUNDS; round++) {
                unsigned seed = (unsigned)(t_rank * 7919 + tag * 31 + round);
                unsigned peer_seed = (unsigned)(peer * 7919 + tag * 31 + round);
                MPI_Status st[2];
                t_fill(sbuf, (size_t)n, seed);
                memset(rbuf, 0xee, (size_t)n);
                t_junk_status(&st[0]);
                if (round % 2 == 0) {
                    MPI_CHK(MPI_Start(&req[0]));
                    sync_with(peer); /* peer's receive is active: Rsend is legal */
                    MPI_CHK(MPI_Start(&req[1]));
                    MPI_CHK(MPI_Waitall(2, req, st));
                } else {
                    if (mode == M_RSEND) {
                        MPI_CHK(MPI_Start(&req[0]));
                        sync_with(peer);
                        MPI_CHK(MPI_Start(&req[1]));
                    } else {
                        MPI_CHK(MPI_Startall(2, req));
                    }
                    int done = 0;
                    while (!done)
                        MPI_CHK(MPI_Test(&req[1], &done, MPI_STATUS_IGNORE));
                    MPI_CHK(MPI_Wait(&req[0], &st[0]));
                }
                CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
                      "completion freed a persistent request (%s, round %d)", mode_name[mode],
                      round);
                CHECK_STATUS(st[0], peer, tag, n);
                CHECK_PATTERN(rbuf, (size_t)n, peer_seed);
                /* The send buffer may be changed as soon as the send completed. */
                memset(sbuf, 0x11, (size_t)n);
            }
            check_inactive(&req[0]);
            MPI_CHK(MPI_Request_free(&req[0]));
            MPI_CHK(MPI_Request_free(&req[1]));
            CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
                  "MPI_Request_free did not set MPI_REQUEST_NULL");
        }
    }

    void *addr = NULL;
    int size = 0;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    free(bbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
