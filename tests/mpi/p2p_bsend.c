/* p2p_bsend.c: buffered sends and MPI_Buffer_attach / MPI_Buffer_detach.
 *  1. MPI_Bsend is local: the even rank of each pair buffers several
 *     messages (up to 1 MiB) and then sends a note; the odd rank receives
 *     the note first, the buffered messages after (a Bsend that waited for
 *     its receive would deadlock here).
 *  2. Detach waits for pending buffered messages: the even rank buffers
 *     three 1 MiB messages and detaches at once, then overwrites the buffer;
 *     the odd rank receives them only after a pause and must see intact data.
 *     Detach returns the address and size that were attached.
 *  3. MPI_Ibsend and MPI_Bsend_init with a buffer attached by the _c calls;
 *     a message that does not fit the buffer fails with MPI_ERR_BUFFER
 *     (under MPI_ERRORS_RETURN).
 *  4. Bsend to oneself, small and large.
 *  5. The space of a message that has been received is free for the next
 *     one: with a buffer for one 1 MiB message, the even rank Bsends one,
 *     the odd rank receives it, both pass a barrier, and the next Bsend
 *     must fit, 50 times. MPI 4.1 sec. 3.6.2 (model implementation): a
 *     buffered send first reclaims the entries of messages whose sends
 *     test complete. (A send that only looked at completions already
 *     noticed, without a progress pass, failed with MPI_ERR_BUFFER while
 *     the receiver's reply sat unread: MPICH's threads/pt2pt
 *     mt_ibsendirecv_huge, 1 run in 4.) */
#include "common.h"

static const int sizes[] = { 0, 10, 1000, 65536, 1 << 20, 7 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define MB (1 << 20)

static void *attach(int bytes)
{
    void *b = t_malloc((size_t)bytes);
    MPI_CHK(MPI_Buffer_attach(b, bytes));
    return b;
}

static void detach(void *want, int want_size)
{
    void *addr = NULL;
    int size = -1;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == want, "MPI_Buffer_detach gave address %p, attached %p", addr, want);
    CHECK(size == want_size, "MPI_Buffer_detach gave size %d, attached %d", size, want_size);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = t_partner();
    unsigned char *msg = t_malloc(MB), *in = t_malloc(MB);
    MPI_Status st;

    if (peer != t_rank) {
        /* 1. Bsend is local. */
        int bytes = 0;
        for (int k = 0; k < NSIZES; k++)
            bytes += sizes[k] + MPI_BSEND_OVERHEAD;
        void *b = attach(bytes);
        if (t_rank % 2 == 0) {
            for (int k = 0; k < NSIZES; k++) {
                t_fill(msg, (size_t)sizes[k], (unsigned)k);
                MPI_CHK(MPI_Bsend(msg, sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD));
            }
            memset(msg, 0, MB); /* the buffered copies must not care */
            MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD));
        } else {
            MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int k = 0; k < NSIZES; k++) {
                MPI_CHK(MPI_Recv(in, MB, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
                CHECK_STATUS(st, peer, k, sizes[k]);
                CHECK_PATTERN(in, (size_t)sizes[k], (unsigned)k);
            }
        }
        detach(b, bytes);
        free(b);

        /* 2. Detach waits for the buffered messages to leave. */
        bytes = 3 * (MB + MPI_BSEND_OVERHEAD);
        b = attach(bytes);
        if (t_rank % 2 == 0) {
            for (int k = 0; k < 3; k++) {
                t_fill(msg, MB, (unsigned)(10 + k));
                MPI_CHK(MPI_Bsend(msg, MB, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD));
            }
            detach(b, bytes);
            memset(b, 0xee, (size_t)bytes);
        } else {
            t_sleep_ms(200);
            for (int k = 0; k < 3; k++) {
                MPI_CHK(MPI_Recv(in, MB, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &st));
                CHECK_STATUS(st, peer, 10 + k, MB);
                CHECK_PATTERN(in, MB, (unsigned)(10 + k));
            }
            detach(b, bytes);
        }
        free(b);
    }

    /* 3. Ibsend, Bsend_init, _c attach/detach, and a message too large. */
    MPI_Count cbytes = 2 * (MB + MPI_BSEND_OVERHEAD);
    void *cb = t_malloc((size_t)cbytes);
    MPI_CHK(MPI_Buffer_attach_c(cb, cbytes));
    MPI_Request r[3];
    t_fill(msg, MB, (unsigned)(t_rank + 20));
    MPI_CHK(MPI_Irecv(in, MB, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &r[0]));
    MPI_CHK(MPI_Ibsend(msg, MB, MPI_BYTE, peer, 20, MPI_COMM_WORLD, &r[1]));
    MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    memset(msg, 0, MB); /* buffered: the send completed with a copy */
    MPI_CHK(MPI_Wait(&r[0], &st));
    CHECK_STATUS(st, peer, 20, MB);
    CHECK_PATTERN(in, MB, (unsigned)(peer + 20));

    MPI_CHK(MPI_Recv_init(in, 1000, MPI_BYTE, peer, 21, MPI_COMM_WORLD, &r[0]));
    MPI_CHK(MPI_Bsend_init(msg, 1000, MPI_BYTE, peer, 21, MPI_COMM_WORLD, &r[1]));
    for (int round = 0; round < 3; round++) {
        t_fill(msg, 1000, (unsigned)(t_rank * 10 + round));
        MPI_CHK(MPI_Start(&r[0]));
        MPI_CHK(MPI_Start(&r[1]));
        MPI_CHK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_PATTERN(in, 1000, (unsigned)(peer * 10 + round));
    }
    MPI_CHK(MPI_Request_free(&r[0]));
    MPI_CHK(MPI_Request_free(&r[1]));
    /* The buffer holds two 1 MiB messages, not three. */
    unsigned char *huge = t_malloc((size_t)cbytes + 1);
    memset(huge, 1, (size_t)cbytes + 1);
    int rc = MPI_Bsend(huge, (int)cbytes + 1, MPI_BYTE, peer, 22, MPI_COMM_WORLD);
    CHECK(t_class(rc) == MPI_ERR_BUFFER, "MPI_Bsend larger than the buffer gave %d (%s)", rc,
          t_errstr(rc));
    free(huge);
    void *addr = NULL;
    MPI_Count csize = -1;
    MPI_CHK(MPI_Buffer_detach_c(&addr, &csize));
    CHECK(addr == cb && csize == cbytes, "MPI_Buffer_detach_c gave %p/%lld", addr,
          (long long)csize);
    free(cb);

    /* 4. Bsend to oneself. */
    void *b = attach(MB + 100 + 2 * MPI_BSEND_OVERHEAD);
    for (int k = 0; k < 2; k++) {
        int n = k ? MB : 100;
        t_fill(msg, (size_t)n, (unsigned)(30 + k));
        MPI_CHK(MPI_Bsend(msg, n, MPI_BYTE, t_rank, 30 + k, MPI_COMM_WORLD));
    }
    for (int k = 0; k < 2; k++) {
        int n = k ? MB : 100;
        MPI_CHK(MPI_Recv(in, n, MPI_BYTE, t_rank, 30 + k, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, t_rank, 30 + k, n);
        CHECK_PATTERN(in, (size_t)n, (unsigned)(30 + k));
    }
    detach(b, MB + 100 + 2 * MPI_BSEND_OVERHEAD);
    free(b);

    /* 5. The space of a received message is reused. */
    if (peer != t_rank) {
        int one = MB + MPI_BSEND_OVERHEAD;
        b = attach(one);
        for (int k = 0; k < 50; k++) {
            if (t_rank % 2 == 0) {
                t_fill(msg, MB, (unsigned)(40 + k));
                rc = MPI_Bsend(msg, MB, MPI_BYTE, peer, 40, MPI_COMM_WORLD);
                CHECK(rc == MPI_SUCCESS, "round %d: MPI_Bsend into the space of a received message gave %s",
                      k, t_errstr(rc));
                if (rc != MPI_SUCCESS) /* the partner still waits for it */
                    MPI_CHK(MPI_Send(msg, MB, MPI_BYTE, peer, 40, MPI_COMM_WORLD));
            } else {
                MPI_CHK(MPI_Recv(in, MB, MPI_BYTE, peer, 40, MPI_COMM_WORLD, &st));
                CHECK_PATTERN(in, MB, (unsigned)(40 + k));
            }
            MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        }
        detach(b, one);
        free(b);
    } else {
        for (int k = 0; k < 50; k++) MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    }

    free(msg);
    free(in);
    return t_finish();
}
