/* p2p_self.c: every rank sends to itself, on MPI_COMM_WORLD (to its own
 * rank) and on MPI_COMM_SELF (to rank 0), small and large (up to 8 MiB):
 * MPI_Isend then MPI_Recv (unexpected), MPI_Irecv then MPI_Send / MPI_Ssend
 * / MPI_Rsend (posted), MPI_Sendrecv, MPI_Issend + MPI_Irecv, and a
 * wildcard receive and a probe that find the self message. */
#include "common.h"

static const int sizes[] = { 0, 1, 100, 4096, 16384, 65536, 1 << 20, 8 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static void run(MPI_Comm comm, int me, unsigned char *sbuf, unsigned char *rbuf)
{
    MPI_Status st;
    MPI_Request r[2];
    int tag = 0;
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int how = 0; how < 7; how++, tag++) {
            t_fill(sbuf, (size_t)n, (unsigned)(tag * 3 + me));
            memset(rbuf, 0, (size_t)n);
            t_junk_status(&st);
            switch (how) {
            case 0: /* unexpected */
                MPI_CHK(MPI_Isend(sbuf, n, MPI_BYTE, me, tag, comm, &r[0]));
                MPI_CHK(MPI_Recv(rbuf, n, MPI_BYTE, me, tag, comm, &st));
                MPI_CHK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
                break;
            case 1: /* posted, standard, blocking */
            case 2: /* posted, synchronous */
            case 3: /* posted, ready */
                MPI_CHK(MPI_Irecv(rbuf, n, MPI_BYTE, me, tag, comm, &r[0]));
                if (how == 1)
                    MPI_CHK(MPI_Send(sbuf, n, MPI_BYTE, me, tag, comm));
                else if (how == 2)
                    MPI_CHK(MPI_Ssend(sbuf, n, MPI_BYTE, me, tag, comm));
                else
                    MPI_CHK(MPI_Rsend(sbuf, n, MPI_BYTE, me, tag, comm));
                MPI_CHK(MPI_Wait(&r[0], &st));
                break;
            case 4:
                MPI_CHK(MPI_Sendrecv(sbuf, n, MPI_BYTE, me, tag, rbuf, n, MPI_BYTE, me, tag, comm,
                                     &st));
                break;
            case 5: /* synchronous send before the receive, wildcard receive */
                MPI_CHK(MPI_Issend(sbuf, n, MPI_BYTE, me, tag, comm, &r[1]));
                MPI_CHK(MPI_Recv(rbuf, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
                MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
                break;
            default: /* probe first */
                MPI_CHK(MPI_Isend(sbuf, n, MPI_BYTE, me, tag, comm, &r[1]));
                MPI_CHK(MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st));
                CHECK_STATUS(st, me, tag, n);
                MPI_CHK(MPI_Recv(rbuf, n, MPI_BYTE, me, tag, comm, &st));
                MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
                break;
            }
            CHECK_STATUS(st, me, tag, n);
            CHECK_PATTERN(rbuf, (size_t)n, (unsigned)(tag * 3 + me));
        }
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int max = sizes[NSIZES - 1];
    unsigned char *sbuf = t_malloc((size_t)max), *rbuf = t_malloc((size_t)max);
    run(MPI_COMM_WORLD, t_rank, sbuf, rbuf);
    run(MPI_COMM_SELF, 0, sbuf, rbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
