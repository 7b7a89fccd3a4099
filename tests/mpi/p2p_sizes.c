/* p2p_sizes.c: blocking MPI_Send / MPI_Recv of every size from 0 bytes to
 * 16 MiB between partners (even rank sends first, then the odd one answers;
 * a rank without partner sends to itself with MPI_Sendrecv).  The receive
 * buffer is larger than the message: the status count must be the message
 * size and bytes past it untouched.  Also sends counted in MPI_INT and
 * MPI_DOUBLE elements, received as the same type. */
#include "common.h"

static const size_t extra_sizes[] = { 2 << 20, (8 << 20) + 1, 16 << 20 };
#define SLACK 16

static void exchange(void *sbuf, void *rbuf, int count, MPI_Datatype type, int elsize,
                     int peer, int tag, unsigned seed, unsigned peer_seed)
{
    size_t nbytes = (size_t)count * (size_t)elsize;
    MPI_Status st;
    t_fill(sbuf, nbytes, seed);
    memset(rbuf, 0xee, nbytes + SLACK * (size_t)elsize);
    t_junk_status(&st);
    int rcount = count + SLACK;
    if (peer == t_rank) {
        MPI_CHK(MPI_Sendrecv(sbuf, count, type, peer, tag, rbuf, rcount, type, peer, tag,
                             MPI_COMM_WORLD, &st));
    } else if (t_rank % 2 == 0) {
        MPI_CHK(MPI_Send(sbuf, count, type, peer, tag, MPI_COMM_WORLD));
        MPI_CHK(MPI_Recv(rbuf, rcount, type, peer, tag, MPI_COMM_WORLD, &st));
    } else {
        MPI_CHK(MPI_Recv(rbuf, rcount, type, peer, tag, MPI_COMM_WORLD, &st));
        MPI_CHK(MPI_Send(sbuf, count, type, peer, tag, MPI_COMM_WORLD));
    }
    int got = -1;
    MPI_CHK(MPI_Get_count(&st, type, &got));
    CHECK(got == count, "count %d, want %d (%zu bytes)", got, count, nbytes);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag, "status source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_PATTERN(rbuf, nbytes, peer_seed);
    const unsigned char *tail = (const unsigned char *)rbuf + nbytes;
    for (int i = 0; i < SLACK * elsize; i++)
        if (tail[i] != 0xee) {
            CHECK(tail[i] == 0xee, "byte %zu past a %zu-byte message overwritten",
                  (size_t)i, nbytes);
            break;
        }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    size_t max = 16 << 20;
    unsigned char *sbuf = t_malloc(max), *rbuf = t_malloc(max + SLACK * sizeof(double));
    int tag = 0;

    for (size_t k = 0; k < T_NSIZES; k++, tag++)
        exchange(sbuf, rbuf, (int)t_sizes[k], MPI_BYTE, 1, peer, tag,
                 (unsigned)(t_rank * 100 + tag), (unsigned)(peer * 100 + tag));
    for (size_t k = 0; k < sizeof extra_sizes / sizeof extra_sizes[0]; k++, tag++)
        exchange(sbuf, rbuf, (int)extra_sizes[k], MPI_BYTE, 1, peer, tag,
                 (unsigned)(t_rank * 100 + tag), (unsigned)(peer * 100 + tag));

    static const int counts[] = { 0, 1, 3, 256, 2048, 4096, 65536, 1 << 20 };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++, tag++) {
        exchange(sbuf, rbuf, counts[k], MPI_INT, (int)sizeof(int), peer, tag,
                 (unsigned)(t_rank * 100 + tag), (unsigned)(peer * 100 + tag));
        tag++;
        exchange(sbuf, rbuf, counts[k], MPI_DOUBLE, (int)sizeof(double), peer, tag,
                 (unsigned)(t_rank * 100 + tag), (unsigned)(peer * 100 + tag));
    }
    free(sbuf);
    free(rbuf);
    return t_finish();
}
