/* p2p_sendrecv.c: MPI_Sendrecv, MPI_Sendrecv_replace, MPI_Isendrecv and
 * MPI_Isendrecv_replace in a ring (send right, receive from the left), at
 * sizes from 0 to 4 MiB, in bytes or ints, the receive buffer larger than
 * the message; the receive side may use MPI_ANY_SOURCE / MPI_ANY_TAG; the
 * status describes the received message.  Also each call with the rank
 * itself as partner. */
#include "common.h"

static const int sizes[] = { 0, 1, 100, 8192, 65536, 1 << 20, 4 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
enum { SR, SR_REPLACE, ISR, ISR_REPLACE, NKINDS };
static const char *kind_name[NKINDS] = { "Sendrecv", "Sendrecv_replace", "Isendrecv",
                                         "Isendrecv_replace" };

static void one(int kind, int n, int right, int left, int tag, int wild, unsigned char *sbuf,
                unsigned char *rbuf)
{
    MPI_Status st;
    MPI_Request r;
    int src = wild ? MPI_ANY_SOURCE : left, rtag = wild ? MPI_ANY_TAG : tag;
    t_junk_status(&st);
    switch (kind) {
    case SR:
        t_fill(sbuf, (size_t)n, (unsigned)(t_rank * 1000 + tag));
        memset(rbuf, 0, (size_t)n);
        /* n bytes, as ints where possible, into a larger buffer. */
        if (n % 4 == 0)
            MPI_CHK(MPI_Sendrecv(sbuf, n / 4, MPI_INT, right, tag, rbuf, n / 4 + 4, MPI_INT, src,
                                 rtag, MPI_COMM_WORLD, &st));
        else
            MPI_CHK(MPI_Sendrecv(sbuf, n, MPI_BYTE, right, tag, rbuf, n + 16, MPI_BYTE, src,
                                 rtag, MPI_COMM_WORLD, &st));
        break;
    case ISR:
        t_fill(sbuf, (size_t)n, (unsigned)(t_rank * 1000 + tag));
        memset(rbuf, 0, (size_t)n);
        MPI_CHK(MPI_Isendrecv(sbuf, n, MPI_BYTE, right, tag, rbuf, n + 16, MPI_BYTE, src, rtag,
                              MPI_COMM_WORLD, &r));
        MPI_CHK(MPI_Wait(&r, &st));
        break;
    case SR_REPLACE:
        t_fill(rbuf, (size_t)n, (unsigned)(t_rank * 1000 + tag));
        MPI_CHK(MPI_Sendrecv_replace(rbuf, n, MPI_BYTE, right, tag, src, rtag, MPI_COMM_WORLD,
                                     &st));
        break;
    default: {
        t_fill(rbuf, (size_t)n, (unsigned)(t_rank * 1000 + tag));
        MPI_CHK(MPI_Isendrecv_replace(rbuf, n, MPI_BYTE, right, tag, src, rtag, MPI_COMM_WORLD,
                                      &r));
        int flag = 0;
        while (!flag)
            MPI_CHK(MPI_Test(&r, &flag, &st));
        break;
    }
    }
    if (kind == SR || kind == SR_REPLACE ||
        !T_MPICH_QUIRK("MPICH 5.0.2 gives a stale status for MPI_Isendrecv")) {
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == tag, "MPI_%s: status source %d tag %d",
              kind_name[kind], st.MPI_SOURCE, st.MPI_TAG);
        int cnt = -1, typed = kind == SR && n % 4 == 0;
        MPI_Get_count(&st, typed ? MPI_INT : MPI_BYTE, &cnt);
        CHECK(cnt == (typed ? n / 4 : n), "MPI_%s: count %d, want %d", kind_name[kind], cnt,
              typed ? n / 4 : n);
    }
    CHECK_PATTERN(rbuf, (size_t)n, (unsigned)(left * 1000 + tag));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int max = sizes[NSIZES - 1] + 16;
    unsigned char *sbuf = t_malloc((size_t)max), *rbuf = t_malloc((size_t)max);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int tag = 0;

    for (int kind = 0; kind < NKINDS; kind++)
        for (int k = 0; k < NSIZES; k++)
            for (int wild = 0; wild < 2; wild++, tag++)
                one(kind, sizes[k], right, left, tag, wild, sbuf, rbuf); /* in order: only
                                                            the left neighbour sends here */
    for (int kind = 0; kind < NKINDS; kind++)
        for (int k = 0; k < NSIZES; k++, tag++)
            one(kind, sizes[k], t_rank, t_rank, tag, 0, sbuf, rbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
