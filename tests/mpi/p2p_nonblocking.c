/* p2p_nonblocking.c: the nonblocking send modes MPI_Isend, MPI_Issend,
 * MPI_Ibsend and MPI_Irsend with MPI_Irecv, between partners, at every size
 * of t_sizes, in two orders:
 *   receive first: both sides post MPI_Irecv, sync, then send; completion
 *                  by MPI_Waitall;
 *   send first:    both sides start the send, sync, then receive with
 *                  blocking MPI_Recv (the message is often unexpected);
 *                  the send completes by an MPI_Test loop.
 * (MPI_Irsend only in the first order: it needs the receive posted.) */
#include "common.h"

enum { M_ISEND, M_ISSEND, M_IBSEND, M_IRSEND, NMODES };
static const char *mode_name[NMODES] = { "Isend", "Issend", "Ibsend", "Irsend" };

static int isend_in_mode(int mode, const void *buf, int n, int dest, int tag, MPI_Request *r)
{
    switch (mode) {
    case M_ISEND:  return MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    case M_ISSEND: return MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    case M_IBSEND: return MPI_Ibsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    default:       return MPI_Irsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, r);
    }
}

static void sync_with(int peer)
{
    MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9999, NULL, 0, MPI_BYTE, peer, 9999,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    size_t max = t_sizes[T_NSIZES - 1];
    unsigned char *sbuf = t_malloc(max), *rbuf = t_malloc(max);
    /* Room for two messages: the previous one may still be in flight. */
    int bsize = 2 * ((int)max + MPI_BSEND_OVERHEAD);
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    for (int order = 0; order < 2; order++) {
        for (int mode = 0; mode < NMODES; mode++) {
            if (order == 1 && mode == M_IRSEND)
                continue;
            for (size_t k = 0; k < T_NSIZES; k++) {
                int n = (int)t_sizes[k];
                int tag = 1000 * order + 100 * mode + (int)k;
                unsigned seed = (unsigned)(t_rank * 3000 + tag);
                unsigned peer_seed = (unsigned)(peer * 3000 + tag);
                MPI_Request req[2];
                MPI_Status st[2];

                t_fill(sbuf, (size_t)n, seed);
                memset(rbuf, 0xee, (size_t)n);
                t_junk_status(&st[0]);
                if (order == 0) {
                    MPI_CHK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]));
                    sync_with(peer);
                    int rc = isend_in_mode(mode, sbuf, n, peer, tag, &req[1]);
                    CHECK(rc == MPI_SUCCESS, "MPI_%s of %d bytes returned %d", mode_name[mode],
                          n, rc);
                    MPI_CHK(MPI_Waitall(2, req, st));
                    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
                          "MPI_Waitall did not free the requests");
                } else {
                    int rc = isend_in_mode(mode, sbuf, n, peer, tag, &req[1]);
                    CHECK(rc == MPI_SUCCESS, "MPI_%s of %d bytes returned %d", mode_name[mode],
                          n, rc);
                    sync_with(peer);
                    MPI_CHK(MPI_Recv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st[0]));
                    int done = 0;
                    while (!done)
                        MPI_CHK(MPI_Test(&req[1], &done, MPI_STATUS_IGNORE));
                    CHECK(req[1] == MPI_REQUEST_NULL, "MPI_Test did not free the request");
                }
                CHECK_STATUS(st[0], peer, tag, n);
                CHECK_PATTERN(rbuf, (size_t)n, peer_seed);
            }
        }
    }

    void *addr = NULL;
    int size = 0;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == bbuf && size == bsize, "detach gave %p/%d", addr, size);
    free(bbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
