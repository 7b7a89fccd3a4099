/* p2p_local_complete.c: a standard-mode send of every size class up to
 * 64 KiB completes while its receiver sleeps in nanosleep outside MPI
 * (the receiver has not posted, or posted and is busy); a synchronous send
 * does not complete before it is matched. Pairs are ranks of one node
 * (MPI_Comm_split_type SHARED); the sender tells the sleeping receiver that
 * all its sends completed through a flag in a shared window, read by the
 * receiver without calling MPI. The receiver then checks every byte.
 * Sizes: 0, 8 B, 1 KiB, 16 KiB, 32 KiB, 48 KiB, 64 KiB contiguous, and a
 * 48 KiB strided vector. */
#include "common.h"

#include <time.h>

enum { NSIZES = 7, MAXB = 65536, SLEEP_LIMIT_S = 20 };
static const int sizes[NSIZES] = {0, 8, 1024, 16384, 32768, 49152, 65536};

static void fill(unsigned char *p, int n, int seed)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(seed * 13 + i * 7);
}

static int check(const unsigned char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 13 + i * 7)) return i;
    return -1;
}

/* Sleeps outside MPI until *flag == want; false after SLEEP_LIMIT_S. */
static int sleep_until(volatile int *flag, int want)
{
    struct timespec nap = {0, 1000000};
    for (long waited = 0; waited < SLEEP_LIMIT_S * 1000L; waited++) {
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == want) return 1;
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* round 0: the receiver posts nothing before the sends; round 1: it posts
 * every receive first, then sleeps. */
static void pair(MPI_Comm node, int me, int peer, volatile int *flag, int round)
{
    MPI_Datatype vec; /* 48 KiB in 1536 blocks of 32 bytes, stride 64 */
    MPI_CHK(MPI_Type_vector(1536, 32, 64, MPI_BYTE, &vec));
    MPI_CHK(MPI_Type_commit(&vec));
    unsigned char *buf = malloc((size_t)(NSIZES + 1) * MAXB * 2);
    CHECK(buf != NULL, "out of memory");
    if (!buf) return;
    if (me < peer) { /* sender */
        for (int i = 0; i < NSIZES; i++) fill(buf + (size_t)i * MAXB, sizes[i], i + round);
        for (int k = 0; k < 1536; k++) fill(buf + (size_t)NSIZES * MAXB + k * 64, 32, k);
        MPI_CHK(MPI_Barrier(node));
        for (int i = 0; i < NSIZES; i++) /* blocking, then nonblocking */
            MPI_CHK(MPI_Send(buf + (size_t)i * MAXB, sizes[i], MPI_BYTE, peer, i, node));
        MPI_Request rq[NSIZES];
        for (int i = 0; i < NSIZES; i++)
            MPI_CHK(MPI_Isend(buf + (size_t)i * MAXB, sizes[i], MPI_BYTE, peer, 100 + i, node,
                              &rq[i]));
        MPI_CHK(MPI_Waitall(NSIZES, rq, MPI_STATUSES_IGNORE));
        MPI_CHK(MPI_Send(buf + (size_t)NSIZES * MAXB, 1, vec, peer, 200, node));
        __atomic_store_n(flag, round + 1, __ATOMIC_RELEASE);
        /* a synchronous send is not complete before it is matched */
        MPI_Request sr;
        int done = 0;
        MPI_CHK(MPI_Issend(buf, 16384, MPI_BYTE, peer, 300, node, &sr));
        for (int k = 0; k < 50 && !done; k++) {
            MPI_CHK(MPI_Test(&sr, &done, MPI_STATUS_IGNORE));
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
        }
        CHECK(!done, "round %d: MPI_Issend completed before its receive was posted", round);
        __atomic_store_n(flag, round + 11, __ATOMIC_RELEASE);
        MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    } else { /* receiver */
        unsigned char *in = buf + (size_t)(NSIZES + 1) * MAXB;
        MPI_Request rq[2 * NSIZES + 1];
        int nrq = 0;
        if (round == 1) {
            for (int i = 0; i < NSIZES; i++)
                MPI_CHK(MPI_Irecv(in + (size_t)i * MAXB, sizes[i], MPI_BYTE, peer, i, node,
                                  &rq[nrq++]));
        }
        MPI_CHK(MPI_Barrier(node));
        CHECK(sleep_until(flag, round + 1),
              "round %d: the sends did not complete within %d s while the receiver slept", round,
              SLEEP_LIMIT_S);
        if (round == 0)
            for (int i = 0; i < NSIZES; i++)
                MPI_CHK(MPI_Recv(in + (size_t)i * MAXB, sizes[i], MPI_BYTE, peer, i, node,
                                 MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NSIZES; i++) {
            int bad = check(in + (size_t)i * MAXB, sizes[i], i + round);
            CHECK(bad < 0, "round %d, blocking send of %d bytes: wrong byte %d", round, sizes[i],
                  bad);
        }
        for (int i = 0; i < NSIZES; i++) {
            MPI_CHK(MPI_Recv(in + (size_t)i * MAXB, sizes[i], MPI_BYTE, peer, 100 + i, node,
                             MPI_STATUS_IGNORE));
            int bad = check(in + (size_t)i * MAXB, sizes[i], i + round);
            CHECK(bad < 0, "round %d, MPI_Isend of %d bytes: wrong byte %d", round, sizes[i], bad);
        }
        memset(in, 0, MAXB);
        MPI_CHK(MPI_Recv(in, 49152, MPI_BYTE, peer, 200, node, MPI_STATUS_IGNORE));
        for (int k = 0; k < 1536; k++) {
            int bad = check(in + k * 32, 32, k);
            CHECK(bad < 0, "round %d, vector block %d: wrong byte %d", round, k, bad);
            if (bad >= 0) break;
        }
        CHECK(sleep_until(flag, round + 11), "round %d: the sender never got past MPI_Issend",
              round);
        MPI_CHK(MPI_Recv(in, 16384, MPI_BYTE, peer, 300, node, MPI_STATUS_IGNORE));
    }
    free(buf);
    MPI_CHK(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int me, n;
    MPI_Comm node = t_node_comm(&me, &n);
    /* one flag per pair (2k, 2k+1) of the node, in the pair's receiver */
    volatile int *base;
    MPI_Win win;
    MPI_CHK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, (void *)&base,
                                    &win));
    *base = 0;
    MPI_CHK(MPI_Win_fence(0, win));
    int peer = me ^ 1;
    if (peer < n) {
        MPI_Aint sz;
        int du;
        volatile int *flag;
        MPI_CHK(MPI_Win_shared_query(win, me | 1, &sz, &du, (void *)&flag));
        for (int round = 0; round < 2; round++) pair(node, me, peer, flag, round);
    } else {
        for (int round = 0; round < 2; round++) MPI_CHK(MPI_Barrier(node));
    }
    MPI_CHK(MPI_Win_fence(0, win));
    MPI_CHK(MPI_Win_free(&win));
    MPI_CHK(MPI_Comm_free(&node));
    return t_finish();
}
