/* p2p_exchange.c: both partners send large messages to each other at the
 * same time (the case where both rendezvous requests cross):
 *  a. MPI_Irecv then MPI_Isend on both sides, MPI_Waitall;
 *  b. MPI_Isend then MPI_Irecv on both sides (sends start before either
 *     receive is posted), MPI_Waitall;
 *  c. plain MPI_Sendrecv head-on;
 *  d. four large messages in flight each way, received in reverse tag order;
 *  e. a ring over all ranks with MPI_Sendrecv.
 * Sizes 64 KiB to 16 MiB; every byte checked. */
#include "common.h"

static const int sizes[] = { 65536, 65537, 1 << 20, (4 << 20) + 1, 16 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define NMULTI 4

static unsigned seed(int rank, int tag)
{
    return (unsigned)(rank * 131 + tag);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    size_t max = 16 << 20;
    unsigned char *sbuf = t_malloc(max), *rbuf = t_malloc(max);
    MPI_Request r[2 * NMULTI];
    MPI_Status st[2 * NMULTI];
    int tag = 0;

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int how = 0; how < 3; how++, tag++) {
            t_fill(sbuf, (size_t)n, seed(t_rank, tag));
            memset(rbuf, 0, (size_t)n);
            if (how == 0) {
                MPI_CHK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
                MPI_CHK(MPI_Isend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]));
                MPI_CHK(MPI_Waitall(2, r, st));
            } else if (how == 1) {
                MPI_CHK(MPI_Isend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]));
                MPI_CHK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
                MPI_CHK(MPI_Waitall(2, r, st));
            } else {
                MPI_CHK(MPI_Sendrecv(sbuf, n, MPI_BYTE, peer, tag, rbuf, n, MPI_BYTE, peer, tag,
                                     MPI_COMM_WORLD, &st[0]));
            }
            CHECK_STATUS(st[0], peer, tag, n);
            CHECK_PATTERN(rbuf, (size_t)n, seed(peer, tag));
        }
    }

    /* Several large messages in flight both ways. */
    int n = 1 << 20;
    unsigned char *out = t_malloc((size_t)n * NMULTI), *in = t_malloc((size_t)n * NMULTI);
    for (int i = 0; i < NMULTI; i++) {
        t_fill(out + (size_t)i * n, (size_t)n, seed(t_rank, 1000 + i));
        MPI_CHK(MPI_Isend(out + (size_t)i * n, n, MPI_BYTE, peer, 1000 + i, MPI_COMM_WORLD,
                          &r[NMULTI + i]));
    }
    for (int i = NMULTI - 1; i >= 0; i--)
        MPI_CHK(MPI_Irecv(in + (size_t)i * n, n, MPI_BYTE, peer, 1000 + i, MPI_COMM_WORLD,
                          &r[i]));
    MPI_CHK(MPI_Waitall(2 * NMULTI, r, st));
    for (int i = 0; i < NMULTI; i++) {
        CHECK_STATUS(st[i], peer, 1000 + i, n);
        CHECK_PATTERN(in + (size_t)i * n, (size_t)n, seed(peer, 1000 + i));
    }
    free(out);
    free(in);

    /* Ring. */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    for (int k = 0; k < NSIZES; k++, tag++) {
        t_fill(sbuf, (size_t)sizes[k], seed(t_rank, tag));
        MPI_CHK(MPI_Sendrecv(sbuf, sizes[k], MPI_BYTE, right, tag, rbuf, sizes[k], MPI_BYTE,
                             left, tag, MPI_COMM_WORLD, &st[0]));
        CHECK_STATUS(st[0], left, tag, sizes[k]);
        CHECK_PATTERN(rbuf, (size_t)sizes[k], seed(left, tag));
    }
    free(sbuf);
    free(rbuf);
    return t_finish();
}
