/* part_p2p.c: partitioned communication (MPI 4.1 chapter 4). Each rank
 * sends to the next and receives from the previous one (itself at 1 rank).
 *
 * Checked: data arrives whole for send and receive partition counts that
 * differ (same total bytes, sec. 4.2.2), small partitions (one message at
 * the end) and large ones (a message per partition; with the argument
 * "split", dmpi sends every partition as its own message), partitions marked
 * ready in ascending, descending and shuffled order and through
 * MPI_Pready_range and MPI_Pready_list; MPI_Parrived polled until every
 * partition is there, never true for a partition the sender has not
 * marked (one rank, where the order is known); two pairs with the same
 * peer and tag matching in init order, started the other way; restarts of the same
 * requests over several rounds with new data (persistent), MPI_Startall;
 * a receive type with holes (staged path); under MPI_THREAD_MULTIPLE,
 * threads marking their own partitions at once; MPI_PROC_NULL peers; MPI_Cancel
 * of a round before anything was sent; MPI_Request_free of an active send;
 * and the error classes: MPI_ERR_ARG for MPI_Pready on an inactive
 * request, a partition out of range or marked twice, zero partitions;
 * MPI_ERR_REQUEST for MPI_Pready on a receive or MPI_Parrived on a send;
 * MPI_ERR_RANK / MPI_ERR_TAG for wildcards. */
#include "common.h"

#include <pthread.h>

static int next, prev;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

/* Marks the np partitions of sreq ready in the given order (0 ascending,
 * 1 descending, 2 shuffled, 3 two ranges, 4 two lists: odd then even). */
static void mark_ready(MPI_Request sreq, int np, int order, unsigned seed)
{
    int idx[64];
    for (int i = 0; i < np; i++) idx[i] = order == 1 ? np - 1 - i : i;
    if (order == 2)
        for (int i = np - 1; i > 0; i--) {
            int j = (int)(rnd(&seed) % (unsigned)(i + 1)), t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
    if (order == 3) {
        MPI_CHK(MPI_Pready_range(np / 2, np - 1, sreq));
        if (np / 2 > 0) MPI_CHK(MPI_Pready_range(0, np / 2 - 1, sreq));
        return;
    }
    if (order == 4) {
        int odd[64], even[64], no = 0, ne = 0;
        for (int i = 0; i < np; i++) {
            if (i % 2) odd[no++] = i;
            else even[ne++] = i;
        }
        MPI_CHK(MPI_Pready_list(no, odd, sreq));
        MPI_CHK(MPI_Pready_list(ne, even, sreq));
        return;
    }
    for (int i = 0; i < np; i++) MPI_CHK(MPI_Pready(idx[i], sreq));
}

/* total ints per round, split into sp send and rp receive partitions */
static void exchange(int total, int sp, int rp, int rounds, int order)
{
    int *sbuf = malloc((size_t)total * sizeof(int)), *rbuf = malloc((size_t)total * sizeof(int));
    MPI_Request sreq, rreq;
    MPI_CHK(MPI_Psend_init(sbuf, sp, total / sp, MPI_INT, next, 11, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sreq));
    MPI_CHK(MPI_Precv_init(rbuf, rp, total / rp, MPI_INT, prev, 11, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &rreq));
    int flag = 0;
    MPI_CHK(MPI_Parrived(rreq, 0, &flag));
    CHECK(flag, "MPI_Parrived on an inactive request gave false");
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < total; i++) {
            sbuf[i] = t_rank * 1000003 + round * 7919 + i;
            rbuf[i] = -1;
        }
        MPI_Request both[2] = {rreq, sreq};
        MPI_CHK(MPI_Startall(2, both));
        if (t_size == 1) { /* the order is known: nothing before it is marked */
            MPI_CHK(MPI_Parrived(rreq, rp - 1, &flag));
            CHECK(!flag, "partition %d arrived before the sender marked any", rp - 1);
        }
        mark_ready(sreq, sp, order, (unsigned)(round * 31 + sp));
        for (int j = 0; j < rp; j++) {
            long spins = 0;
            do MPI_CHK(MPI_Parrived(rreq, j, &flag));
            while (!flag && ++spins < 100000000L);
            CHECK(flag, "partition %d never arrived", j);
            /* an arrived partition holds its data already */
            int bad = 0, per = total / rp;
            for (int i = j * per; i < (j + 1) * per; i++)
                bad += rbuf[i] != prev * 1000003 + round * 7919 + i;
            CHECK(!bad, "sp %d rp %d order %d round %d: partition %d has %d wrong ints", sp, rp,
                  order, round, j, bad);
        }
        MPI_Status st;
        MPI_CHK(MPI_Wait(&rreq, &st));
        int count = -1;
        MPI_CHK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 11 && count == total,
              "receive status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        MPI_CHK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK(sreq != MPI_REQUEST_NULL && rreq != MPI_REQUEST_NULL,
              "a partitioned request was freed by MPI_Wait");
    }
    MPI_CHK(MPI_Request_free(&sreq));
    MPI_CHK(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
}

/* The receiver's type has holes: 2 ints, then one skipped. */
static void holes(int total, int sp, int rp)
{
    MPI_Datatype v;
    MPI_CHK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    MPI_CHK(MPI_Type_commit(&v));
    int nelem = total / 2, *sbuf = malloc((size_t)total * sizeof(int));
    int *rbuf = malloc((size_t)nelem * 3 * sizeof(int));
    for (int i = 0; i < total; i++) sbuf[i] = t_rank * 100000 + i;
    for (int i = 0; i < nelem * 3; i++) rbuf[i] = -1;
    MPI_Request sreq, rreq;
    MPI_CHK(MPI_Psend_init(sbuf, sp, total / sp, MPI_INT, next, 12, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sreq));
    MPI_CHK(MPI_Precv_init(rbuf, rp, nelem / rp, v, prev, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rreq));
    MPI_CHK(MPI_Start(&rreq));
    MPI_CHK(MPI_Start(&sreq));
    mark_ready(sreq, sp, 1, 0);
    MPI_CHK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int e = 0; e < nelem; e++)
        bad += rbuf[3 * e] != prev * 100000 + 2 * e || rbuf[3 * e + 1] != -1 ||
               rbuf[3 * e + 2] != prev * 100000 + 2 * e + 1;
    CHECK(!bad, "type with holes, sp %d rp %d: %d wrong elements", sp, rp, bad);
    MPI_CHK(MPI_Request_free(&sreq));
    MPI_CHK(MPI_Request_free(&rreq));
    MPI_CHK(MPI_Type_free(&v));
    free(sbuf);
    free(rbuf);
}

/* Four threads each mark every fourth partition ready (the use partitioned
 * communication is made for), the main thread waits. */
#define NTHREADS 4
typedef struct { MPI_Request req; int *buf, first, np, per, round; } marker;

static void *mark_mine(void *arg)
{
    marker *m = arg;
    for (int i = m->first; i < m->np; i += NTHREADS) {
        for (int e = i * m->per; e < (i + 1) * m->per; e++) m->buf[e] = t_rank * 7 + m->round + e;
        MPI_CHK(MPI_Pready(i, m->req));
    }
    return NULL;
}

static void threaded(int np, int per)
{
    int total = np * per, *sbuf = malloc((size_t)total * sizeof(int));
    int *rbuf = malloc((size_t)total * sizeof(int));
    MPI_Request sreq, rreq;
    MPI_CHK(MPI_Psend_init(sbuf, np, per, MPI_INT, next, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    MPI_CHK(MPI_Precv_init(rbuf, np, per, MPI_INT, prev, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (int round = 0; round < 3; round++) {
        MPI_CHK(MPI_Start(&rreq));
        MPI_CHK(MPI_Start(&sreq));
        pthread_t th[NTHREADS];
        marker m[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            m[t] = (marker){sreq, sbuf, t, np, per, round};
            pthread_create(&th[t], NULL, mark_mine, &m[t]);
        }
        for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
        MPI_CHK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int e = 0; e < total; e++) bad += rbuf[e] != prev * 7 + round + e;
        CHECK(!bad, "threads, %d partitions of %d ints: %d wrong", np, per, bad);
    }
    MPI_CHK(MPI_Request_free(&sreq));
    MPI_CHK(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
}

/* Two pairs with the same peer and tag match in the order they were
 * initialized (sec. 4.2), whatever order they are started in. */
static void init_order(int per)
{
    int sa[64], sb[64], ra[64], rb[64];
    for (int i = 0; i < 4 * per; i++) {
        sa[i] = 1000 + t_rank;
        sb[i] = 2000 + t_rank;
        ra[i] = rb[i] = -1;
    }
    MPI_Request s[2], r[2];
    MPI_CHK(MPI_Psend_init(sa, 4, per, MPI_INT, next, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &s[0]));
    MPI_CHK(MPI_Psend_init(sb, 2, 2 * per, MPI_INT, next, 15, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &s[1]));
    MPI_CHK(MPI_Precv_init(ra, 1, 4 * per, MPI_INT, prev, 15, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &r[0]));
    MPI_CHK(MPI_Precv_init(rb, 4, per, MPI_INT, prev, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_CHK(MPI_Start(&r[1]));
    MPI_CHK(MPI_Start(&s[1]));
    MPI_CHK(MPI_Pready_range(0, 1, s[1]));
    MPI_CHK(MPI_Start(&r[0]));
    MPI_CHK(MPI_Start(&s[0]));
    MPI_CHK(MPI_Pready_list(4, (int[]){3, 1, 0, 2}, s[0]));
    MPI_CHK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
    MPI_CHK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    int bad = 0;
    for (int i = 0; i < 4 * per; i++) bad += ra[i] != 1000 + prev || rb[i] != 2000 + prev;
    CHECK(!bad, "pairs with the same tag matched out of init order (%d wrong)", bad);
    for (int k = 0; k < 2; k++) {
        MPI_CHK(MPI_Request_free(&s[k]));
        MPI_CHK(MPI_Request_free(&r[k]));
    }
}

static void proc_null(void)
{
    int buf[8] = {0};
    MPI_Request s, r;
    MPI_CHK(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &s));
    MPI_CHK(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &r));
    for (int round = 0; round < 2; round++) {
        MPI_CHK(MPI_Start(&s));
        MPI_CHK(MPI_Start(&r));
        MPI_CHK(MPI_Pready_range(0, 3, s));
        int flag = 0;
        MPI_CHK(MPI_Parrived(r, 3, &flag));
        CHECK(flag, "MPI_PROC_NULL: partition not arrived");
        MPI_Status st;
        MPI_CHK(MPI_Wait(&r, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL: source %d", st.MPI_SOURCE);
        MPI_CHK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    MPI_CHK(MPI_Request_free(&s));
    MPI_CHK(MPI_Request_free(&r));
}

static void errors(void)
{
    int buf[8];
    MPI_Request s, r, q;
    MPI_CHK(MPI_Psend_init(buf, 4, 2, MPI_INT, t_rank, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_CHK(MPI_Precv_init(buf, 4, 2, MPI_INT, t_rank, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_ARG); /* inactive */
    CHECK_CLASS(MPI_Psend_init(buf, 0, 2, MPI_INT, t_rank, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &q),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &q),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(buf, 4, 2, MPI_INT, t_rank, MPI_ANY_TAG, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &q),
                MPI_ERR_TAG);
    /* cancel a round of the send before anything is ready */
    MPI_CHK(MPI_Start(&s));
    MPI_CHK(MPI_Cancel(&s));
    MPI_Status st;
    MPI_CHK(MPI_Wait(&s, &st));
    int cancelled = 0;
    MPI_CHK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "a partitioned send with nothing ready was not cancelled");
    /* a real round */
    MPI_CHK(MPI_Start(&r));
    MPI_CHK(MPI_Start(&s));
    CHECK_CLASS(MPI_Pready(4, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(2, 1, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_list(1, (int[]){7}, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
    int flag;
    CHECK_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Parrived(r, 4, &flag), MPI_ERR_ARG);
    MPI_CHK(MPI_Pready(1, s));
    CHECK_CLASS(MPI_Pready(1, s), MPI_ERR_ARG); /* twice */
    MPI_CHK(MPI_Pready_list(3, (int[]){0, 3, 2}, s));
    MPI_CHK(MPI_Request_free(&s)); /* active: completes on its own */
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_Request_free(&r));
}

int main(int argc, char **argv)
{
    /* "split": every partition its own message, however small, so the
     * per-partition paths see every configuration */
    if (argc > 1 && strcmp(argv[1], "split") == 0) setenv("DMPI_PART_SPLIT_MIN", "0", 1);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    next = (t_rank + 1) % t_size;
    prev = (t_rank + t_size - 1) % t_size;
    static const int pairs[][2] = {{4, 4}, {1, 8}, {8, 1}, {6, 4}, {3, 5}, {12, 10}, {1, 1}};
    int npairs = (int)(sizeof pairs / sizeof pairs[0]);
    for (int k = 0; k < npairs; k++)
        for (int order = 0; order < 5; order++) {
            exchange(120, pairs[k][0], pairs[k][1], 2, order);        /* small partitions */
            exchange(120 * 256, pairs[k][0], pairs[k][1], 2, order);  /* large ones */
        }
    exchange(120 * 4096, 8, 8, 3, 2); /* partitions of 240 KiB */
    holes(120, 4, 6);
    holes(120 * 256, 8, 4);
    holes(120 * 256, 6, 6);
    if (provided == MPI_THREAD_MULTIPLE) {
        threaded(16, 8);     /* small partitions: one message at the end */
        threaded(8, 16384);  /* 64 KiB partitions: a message each */
    }
    init_order(2);
    init_order(16);
    proc_null();
    errors();
    return t_finish();
}
