/* p2p_ssend.c: synchronous sends do not complete before the matching
 * receive has started (needs 2+ ranks; pairs 0<->1, 2<->3, ...).
 *  1. The even rank starts MPI_Issend (tag A) and polls MPI_Test for a while:
 *     it must stay incomplete, because the odd rank is blocked receiving a
 *     different message (tag B) that the even rank sends only after polling.
 *     Then the odd rank receives tag A and the Issend completes.
 *  2. Same with MPI_Ssend_init + MPI_Start.
 *  3. A blocking MPI_Ssend lasts at least as long as the receiver waits
 *     before posting (the receiver sleeps 300 ms first).
 * Sizes 0 bytes (still synchronous) to 1 MiB. */
#include "common.h"

static const int sizes[] = { 0, 8, 4096, 65536, 1 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define TAG_A 1
#define TAG_B 2
#define POLL_MS 100

static void sync_with(int peer)
{
    MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9999, NULL, 0, MPI_BYTE, peer, 9999,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = t_partner();
    unsigned char *buf = t_malloc(1 << 20);

    if (peer != t_rank) {
        for (int persistent = 0; persistent < 2; persistent++)
            for (int k = 0; k < NSIZES; k++) {
                int n = sizes[k];
                if (t_rank % 2 == 0) {
                    MPI_Request r;
                    int flag = 0;
                    t_fill(buf, (size_t)n, (unsigned)k);
                    if (persistent) {
                        MPI_CHK(MPI_Ssend_init(buf, n, MPI_BYTE, peer, TAG_A, MPI_COMM_WORLD,
                                               &r));
                        MPI_CHK(MPI_Start(&r));
                    } else {
                        MPI_CHK(MPI_Issend(buf, n, MPI_BYTE, peer, TAG_A, MPI_COMM_WORLD, &r));
                    }
                    double t0 = MPI_Wtime();
                    while (MPI_Wtime() - t0 < POLL_MS / 1000.0) {
                        MPI_CHK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                        if (flag)
                            break;
                    }
                    CHECK(!flag, "%s of %d bytes completed before the receive was posted",
                          persistent ? "Ssend_init/Start" : "MPI_Issend", n);
                    MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_B, MPI_COMM_WORLD));
                    if (!flag)
                        MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                    if (persistent)
                        MPI_CHK(MPI_Request_free(&r));
                } else {
                    MPI_Status st;
                    MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_B, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
                    MPI_CHK(MPI_Recv(buf, n, MPI_BYTE, peer, TAG_A, MPI_COMM_WORLD, &st));
                    CHECK_STATUS(st, peer, TAG_A, n);
                    CHECK_PATTERN(buf, (size_t)n, (unsigned)k);
                }
            }

        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k];
            sync_with(peer);
            if (t_rank % 2 == 0) {
                double t0 = MPI_Wtime();
                MPI_CHK(MPI_Ssend(buf, n, MPI_BYTE, peer, TAG_A, MPI_COMM_WORLD));
                double dt = MPI_Wtime() - t0;
                CHECK(dt > 0.05, "MPI_Ssend of %d bytes returned after %.3f s, before the "
                      "receiver (asleep for 0.3 s) posted its receive", n, dt);
            } else {
                t_sleep_ms(300);
                MPI_CHK(MPI_Recv(buf, n, MPI_BYTE, peer, TAG_A, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
            }
        }
    }
    free(buf);
    return t_finish();
}
