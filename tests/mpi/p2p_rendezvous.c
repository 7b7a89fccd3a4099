/* p2p_rendezvous.c: large messages in each order of send and receive,
 * the cases a rendezvous protocol must get right (between ranks of one
 * node and across nodes alike): the receive posted long before the send
 * (receiver first), the send long before the receive (sender first), both
 * at once, a receive that fits the next message's envelope but not its
 * size (truncation), a receive with MPI_ANY_TAG, a non-contiguous receive
 * buffer, a synchronous send, and a large receive cancelled while nothing
 * is sent to it, after which the same pair still works. Pairs are
 * 0<->1, 2<->3, ...; an odd last rank only takes part in the barriers. */
#include "common.h"

#include <unistd.h>

enum { N = 1 << 20 };

static void sync_pair(int partner)
{
    char x = 0, y;
    MPI_CHK(MPI_Sendrecv(&x, 1, MPI_CHAR, partner, 99, &y, 1, MPI_CHAR, partner, 99,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int partner = t_partner();
    if (partner == t_rank) partner = -1;
    char *a = malloc(N), *b = malloc(2 * N);
    CHECK(a && b, "out of memory");
    MPI_Status st;
    int count;
    if (partner >= 0) {
        int sender = t_rank < partner;
        for (int round = 0; round < 3; round++) {
            unsigned seed = 100u * (unsigned)round + (unsigned)t_rank;
            /* receiver first: the receive waits, then the send comes */
            if (sender) {
                sync_pair(partner);
                t_fill(a, N, seed);
                MPI_CHK(MPI_Send(a, N, MPI_CHAR, partner, 1, MPI_COMM_WORLD));
            } else {
                MPI_Request r;
                memset(b, 0, N);
                MPI_CHK(MPI_Irecv(b, N, MPI_CHAR, partner, 1, MPI_COMM_WORLD, &r));
                sync_pair(partner);
                MPI_CHK(MPI_Wait(&r, &st));
                MPI_CHK(MPI_Get_count(&st, MPI_CHAR, &count));
                CHECK(count == N, "receiver first: count %d", count);
                CHECK_PATTERN(b, N, seed - 1);
            }
            /* receiver first with no message in between, so the receive is
             * the one the sender's next message must match (the sender
             * waits a little to let the receive be posted first) */
            if (sender) {
                usleep(20000);
                t_fill(a, N, seed + 3);
                MPI_CHK(MPI_Send(a, N, MPI_CHAR, partner, 7, MPI_COMM_WORLD));
            } else {
                memset(b, 0, N);
                MPI_CHK(MPI_Recv(b, N, MPI_CHAR, partner, 7, MPI_COMM_WORLD, &st));
                CHECK_PATTERN(b, N, seed + 2);
            }
            /* sender first: the send waits for the receive */
            if (sender) {
                MPI_Request r;
                t_fill(a, N, seed + 7);
                MPI_CHK(MPI_Isend(a, N, MPI_CHAR, partner, 2, MPI_COMM_WORLD, &r));
                sync_pair(partner);
                MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            } else {
                sync_pair(partner);
                MPI_CHK(MPI_Recv(b, N, MPI_CHAR, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK(st.MPI_TAG == 2, "sender first: tag %d", st.MPI_TAG);
                CHECK_PATTERN(b, N, seed + 6);
            }
            /* both at once, a synchronous send into a larger receive */
            if (sender) {
                t_fill(a, N, seed + 11);
                MPI_CHK(MPI_Ssend(a, N, MPI_CHAR, partner, 3, MPI_COMM_WORLD));
            } else {
                MPI_CHK(MPI_Recv(b, 2 * N, MPI_CHAR, partner, 3, MPI_COMM_WORLD, &st));
                MPI_CHK(MPI_Get_count(&st, MPI_CHAR, &count));
                CHECK(count == N, "simultaneous: count %d", count);
                CHECK_PATTERN(b, N, seed + 10);
            }
            /* a receive posted first that is too small: truncation */
            if (sender) {
                sync_pair(partner);
                MPI_CHK(MPI_Send(a, N, MPI_CHAR, partner, 4, MPI_COMM_WORLD));
            } else {
                MPI_Request r;
                MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
                MPI_CHK(MPI_Irecv(b, N / 2, MPI_CHAR, partner, 4, MPI_COMM_WORLD, &r));
                sync_pair(partner);
                int rc = MPI_Wait(&r, &st);
                int cls = -1;
                MPI_Error_class(rc, &cls);
                CHECK(cls == MPI_ERR_TRUNCATE, "short receive gave class %d", cls);
                MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
            }
            /* a strided receive (every other int) posted first */
            if (sender) {
                sync_pair(partner);
                int *v = (int *)(void *)a;
                for (int i = 0; i < N / 8; i++) v[i] = i ^ round;
                MPI_CHK(MPI_Send(v, N / 8, MPI_INT, partner, 5, MPI_COMM_WORLD));
            } else {
                MPI_Datatype strided;
                MPI_CHK(MPI_Type_vector(N / 8, 1, 2, MPI_INT, &strided));
                MPI_CHK(MPI_Type_commit(&strided));
                MPI_Request r;
                int *v = (int *)(void *)b;
                memset(b, 0xff, N);
                MPI_CHK(MPI_Irecv(v, 1, strided, partner, 5, MPI_COMM_WORLD, &r));
                sync_pair(partner);
                MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                int bad = 0;
                for (int i = 0; i < N / 8; i++) bad += v[2 * i] != (i ^ round) || v[2 * i + 1] != -1;
                CHECK(bad == 0, "strided receive: %d wrong", bad);
                MPI_CHK(MPI_Type_free(&strided));
            }
            /* a large receive cancelled while nothing comes for it */
            if (!sender) {
                MPI_Request r;
                int flag = 0;
                MPI_CHK(MPI_Irecv(b, N, MPI_CHAR, partner, 6, MPI_COMM_WORLD, &r));
                MPI_CHK(MPI_Cancel(&r));
                MPI_CHK(MPI_Wait(&r, &st));
                MPI_CHK(MPI_Test_cancelled(&st, &flag));
                CHECK(flag, "the cancelled receive was not cancelled");
            }
            sync_pair(partner);
        }
    }
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    free(a);
    free(b);
    return t_finish();
}
