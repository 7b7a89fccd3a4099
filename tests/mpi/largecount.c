/* largecount.c: the MPI_Count ("_c") forms of the point-to-point and
 * collective calls give the same results as the int forms: every send mode
 * (blocking, nonblocking, persistent), receives, Sendrecv(_replace),
 * Isendrecv(_replace), Mrecv/Imrecv, Get_count_c, Buffer_attach_c, and
 * Bcast/Reduce/Allreduce/Gather/Allgather/Scatter/Alltoall _c.  Counts stay
 * below 2^31 (the buffers for more would not fit a test machine). */
#include "common.h"

#define N 300000 /* ints: 1.2 MB, above any eager limit */

static int *sbuf, *rbuf;
static int right, left;

static void fill(int tag)
{
    for (int i = 0; i < N; i++)
        sbuf[i] = t_rank * 1000003 + tag * 7 + i;
}

static void check(MPI_Count n, int tag, const MPI_Status *st, const char *what)
{
    if (st) {
        MPI_Count c = -1;
        MPI_CHK(MPI_Get_count_c(st, MPI_INT, &c));
        CHECK(c == n, "%s: MPI_Get_count_c gave %lld, want %lld", what, (long long)c,
              (long long)n);
        CHECK(st->MPI_SOURCE == left && st->MPI_TAG == tag, "%s: status %d/%d", what,
              st->MPI_SOURCE, st->MPI_TAG);
    }
    for (MPI_Count i = 0; i < n; i++)
        if (rbuf[i] != left * 1000003 + tag * 7 + (int)i) {
            CHECK(0, "%s: element %lld is %d", what, (long long)i, rbuf[i]);
            break;
        }
}

static void p2p(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Status st;
    MPI_Request r[2];
    static const MPI_Count counts[] = { 0, 1, 1000, N };
    for (int k = 0; k < 4; k++) {
        MPI_Count n = counts[k];
        int tag = k * 20;
        /* Each mode: receive posted, then a sync, then the send. */
        for (int mode = 0; mode < 8; mode++, tag++) {
            fill(tag);
            MPI_CHK(MPI_Irecv_c(rbuf, n, MPI_INT, left, tag, w, &r[0]));
            MPI_CHK(MPI_Sendrecv_c(NULL, 0, MPI_BYTE, left, 9999, NULL, 0, MPI_BYTE, right, 9999,
                                   w, MPI_STATUS_IGNORE));
            r[1] = MPI_REQUEST_NULL;
            switch (mode) {
            case 0: MPI_CHK(MPI_Send_c(sbuf, n, MPI_INT, right, tag, w)); break;
            case 1: MPI_CHK(MPI_Ssend_c(sbuf, n, MPI_INT, right, tag, w)); break;
            case 2: MPI_CHK(MPI_Bsend_c(sbuf, n, MPI_INT, right, tag, w)); break;
            case 3: MPI_CHK(MPI_Rsend_c(sbuf, n, MPI_INT, right, tag, w)); break;
            case 4: MPI_CHK(MPI_Isend_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            case 5: MPI_CHK(MPI_Issend_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            case 6: MPI_CHK(MPI_Ibsend_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            default: MPI_CHK(MPI_Irsend_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            }
            MPI_Status sts[2];
            MPI_CHK(MPI_Waitall(2, r, sts));
            check(n, tag, &sts[0], "send mode");
        }
        /* Blocking receive of an unexpected message. */
        fill(tag);
        MPI_CHK(MPI_Isend_c(sbuf, n, MPI_INT, right, tag, w, &r[1]));
        MPI_CHK(MPI_Recv_c(rbuf, n, MPI_INT, left, tag, w, &st));
        MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        check(n, tag, &st, "MPI_Recv_c");
        tag++;
        /* Persistent, all modes. */
        for (int mode = 0; mode < 4; mode++, tag++) {
            fill(tag);
            MPI_CHK(MPI_Recv_init_c(rbuf, n, MPI_INT, left, tag, w, &r[0]));
            switch (mode) {
            case 0: MPI_CHK(MPI_Send_init_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            case 1: MPI_CHK(MPI_Ssend_init_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            case 2: MPI_CHK(MPI_Bsend_init_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            default: MPI_CHK(MPI_Rsend_init_c(sbuf, n, MPI_INT, right, tag, w, &r[1])); break;
            }
            MPI_CHK(MPI_Start(&r[0]));
            MPI_CHK(MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 9999, NULL, 0, MPI_BYTE, right, 9999, w,
                                 MPI_STATUS_IGNORE));
            MPI_CHK(MPI_Start(&r[1]));
            MPI_CHK(MPI_Wait(&r[0], &st));
            MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            check(n, tag, &st, "persistent _c");
            MPI_CHK(MPI_Request_free(&r[0]));
            MPI_CHK(MPI_Request_free(&r[1]));
        }
        /* Sendrecv and friends. */
        fill(tag);
        MPI_CHK(MPI_Sendrecv_c(sbuf, n, MPI_INT, right, tag, rbuf, n, MPI_INT, left, tag, w, &st));
        check(n, tag, &st, "MPI_Sendrecv_c");
        tag++;
        fill(tag);
        MPI_CHK(MPI_Isendrecv_c(sbuf, n, MPI_INT, right, tag, rbuf, n, MPI_INT, left, tag, w,
                                &r[0]));
        MPI_CHK(MPI_Wait(&r[0], &st));
        check(n, tag, T_MPICH_QUIRK("stale Isendrecv status") ? NULL : &st, "MPI_Isendrecv_c");
        tag++;
        fill(tag);
        memcpy(rbuf, sbuf, (size_t)n * sizeof(int));
        MPI_CHK(MPI_Sendrecv_replace_c(rbuf, n, MPI_INT, right, tag, left, tag, w, &st));
        check(n, tag, &st, "MPI_Sendrecv_replace_c");
        tag++;
        fill(tag);
        memcpy(rbuf, sbuf, (size_t)n * sizeof(int));
        MPI_CHK(MPI_Isendrecv_replace_c(rbuf, n, MPI_INT, right, tag, left, tag, w, &r[0]));
        MPI_CHK(MPI_Wait(&r[0], &st));
        check(n, tag, T_MPICH_QUIRK("stale Isendrecv status") ? NULL : &st,
              "MPI_Isendrecv_replace_c");
        tag++;
        /* Matched probe + receive. */
        for (int nb = 0; nb < 2; nb++, tag++) {
            MPI_Message m;
            fill(tag);
            MPI_CHK(MPI_Isend_c(sbuf, n, MPI_INT, right, tag, w, &r[1]));
            MPI_CHK(MPI_Mprobe(left, tag, w, &m, &st));
            if (nb) {
                MPI_CHK(MPI_Imrecv_c(rbuf, n, MPI_INT, &m, &r[0]));
                MPI_CHK(MPI_Wait(&r[0], &st));
            } else {
                MPI_CHK(MPI_Mrecv_c(rbuf, n, MPI_INT, &m, &st));
            }
            MPI_CHK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            check(n, tag, &st, nb ? "MPI_Imrecv_c" : "MPI_Mrecv_c");
        }
    }
}

static void coll(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int p = t_size, root = p - 1;
    MPI_Count n = 1000;
    int *in = t_malloc((size_t)n * p * sizeof(int)), *out = t_malloc((size_t)n * p * sizeof(int));

    for (MPI_Count i = 0; i < n; i++)
        in[i] = t_rank == root ? (int)i * 3 : -1;
    MPI_CHK(MPI_Bcast_c(in, n, MPI_INT, root, w));
    for (MPI_Count i = 0; i < n; i++)
        if (in[i] != (int)i * 3) {
            CHECK(0, "MPI_Bcast_c element %lld is %d", (long long)i, in[i]);
            break;
        }

    for (MPI_Count i = 0; i < n; i++)
        in[i] = t_rank + (int)i;
    int sumranks = p * (p - 1) / 2;
    memset(out, 0, (size_t)n * sizeof(int));
    MPI_CHK(MPI_Reduce_c(in, out, n, MPI_INT, MPI_SUM, root, w));
    if (t_rank == root)
        for (MPI_Count i = 0; i < n; i++)
            if (out[i] != sumranks + p * (int)i) {
                CHECK(0, "MPI_Reduce_c element %lld is %d", (long long)i, out[i]);
                break;
            }
    MPI_CHK(MPI_Allreduce_c(in, out, n, MPI_INT, MPI_MAX, w));
    for (MPI_Count i = 0; i < n; i++)
        if (out[i] != p - 1 + (int)i) {
            CHECK(0, "MPI_Allreduce_c element %lld is %d", (long long)i, out[i]);
            break;
        }

    /* Gather / Allgather: block r holds r*n + i. */
    for (MPI_Count i = 0; i < n; i++)
        in[i] = t_rank * (int)n + (int)i;
    MPI_CHK(MPI_Gather_c(in, n, MPI_INT, out, n, MPI_INT, root, w));
    if (t_rank == root)
        for (MPI_Count i = 0; i < n * p; i++)
            if (out[i] != (int)i) {
                CHECK(0, "MPI_Gather_c element %lld is %d", (long long)i, out[i]);
                break;
            }
    memset(out, 0, (size_t)n * p * sizeof(int));
    MPI_CHK(MPI_Allgather_c(in, n, MPI_INT, out, n, MPI_INT, w));
    for (MPI_Count i = 0; i < n * p; i++)
        if (out[i] != (int)i) {
            CHECK(0, "MPI_Allgather_c element %lld is %d", (long long)i, out[i]);
            break;
        }

    /* Scatter from the root's out (0..n*p-1): block r to rank r. */
    MPI_CHK(MPI_Scatter_c(out, n, MPI_INT, in, n, MPI_INT, root, w));
    for (MPI_Count i = 0; i < n; i++)
        if (in[i] != t_rank * (int)n + (int)i) {
            CHECK(0, "MPI_Scatter_c element %lld is %d", (long long)i, in[i]);
            break;
        }

    /* Alltoall: block j of rank r carries r*p + j. */
    for (int j = 0; j < p; j++)
        for (MPI_Count i = 0; i < n; i++)
            in[j * n + i] = (t_rank * p + j) * 1000 + (int)i % 1000;
    MPI_CHK(MPI_Alltoall_c(in, n, MPI_INT, out, n, MPI_INT, w));
    for (int j = 0; j < p; j++)
        for (MPI_Count i = 0; i < n; i++)
            if (out[j * n + i] != (j * p + t_rank) * 1000 + (int)i % 1000) {
                CHECK(0, "MPI_Alltoall_c block %d element %lld is %d", j, (long long)i,
                      out[j * n + i]);
                j = p;
                break;
            }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    right = (t_rank + 1) % t_size;
    left = (t_rank + t_size - 1) % t_size;
    sbuf = t_malloc(N * sizeof(int));
    rbuf = t_malloc(N * sizeof(int));
    MPI_Count bsize = 2 * (N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach_c(bbuf, bsize));

    p2p();
    coll();

    void *addr;
    MPI_Count sz;
    MPI_CHK(MPI_Buffer_detach_c(&addr, &sz));
    CHECK(addr == bbuf && sz == bsize, "MPI_Buffer_detach_c gave %p/%lld", addr, (long long)sz);
    free(bbuf);
    free(sbuf);
    free(rbuf);
    return t_finish();
}
