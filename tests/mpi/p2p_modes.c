/* p2p_modes.c: the four blocking send modes (MPI_Send, MPI_Ssend, MPI_Bsend,
 * MPI_Rsend) at every size of t_sizes, between partners 0<->1, 2<->3, ...
 * (the last rank of an odd count talks to itself).  Each side pre-posts an
 * MPI_Irecv, the partners exchange a zero-byte "ready" message (so MPI_Rsend
 * is legal), then both send at once in the mode under test.  Data pattern,
 * status source/tag and byte count are checked. */
#include "common.h"

enum { M_SEND, M_SSEND, M_BSEND, M_RSEND, NMODES };
static const char *mode_name[NMODES] = { "Send", "Ssend", "Bsend", "Rsend" };

static int send_in_mode(int mode, const void *buf, int n, int dest, int tag)
{
    switch (mode) {
    case M_SEND:  return MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    case M_SSEND: return MPI_Ssend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    case M_BSEND: return MPI_Bsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    default:      return MPI_Rsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    size_t max = t_sizes[T_NSIZES - 1];
    unsigned char *sbuf = t_malloc(max), *rbuf = t_malloc(max);

    /* Bsend needs a buffer that holds the largest message (twice: the
     * previous message may still be on its way when the next starts). */
    int bsize = 2 * ((int)max + MPI_BSEND_OVERHEAD);
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    for (int mode = 0; mode < NMODES; mode++) {
        for (size_t k = 0; k < T_NSIZES; k++) {
            int n = (int)t_sizes[k];
            int tag = 100 * mode + (int)k;
            unsigned seed = (unsigned)(t_rank * 1000 + tag);
            unsigned peer_seed = (unsigned)(peer * 1000 + tag);
            MPI_Request req;
            MPI_Status st;

            t_fill(sbuf, (size_t)n, seed);
            memset(rbuf, 0xee, (size_t)n + (n < (int)max));
            MPI_CHK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
            /* Both receives are posted once this exchange finishes. */
            MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9999, NULL, 0, MPI_BYTE, peer, 9999,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int rc = send_in_mode(mode, sbuf, n, peer, tag);
            CHECK(rc == MPI_SUCCESS, "MPI_%s of %d bytes returned %d", mode_name[mode], n, rc);
            t_junk_status(&st);
            MPI_CHK(MPI_Wait(&req, &st));
            CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
            CHECK_STATUS(st, peer, tag, n);
            CHECK_PATTERN(rbuf, (size_t)n, peer_seed);
            if (n < (int)max)
                CHECK(rbuf[n] == 0xee, "MPI_%s of %d bytes wrote past the message",
                      mode_name[mode], n);
        }
    }

    void *addr = NULL;
    int size = 0;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == bbuf && size == bsize, "detach gave %p/%d, attached %p/%d", addr, size,
          bbuf, bsize);
    free(bbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
