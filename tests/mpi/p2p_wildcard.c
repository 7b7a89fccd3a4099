/* p2p_wildcard.c: MPI_ANY_SOURCE and MPI_ANY_TAG, and the status fields they
 * fill in (needs 2+ ranks).
 *  1. Rank 0 receives one message from every other rank with ANY_SOURCE /
 *     ANY_TAG, small and large (1 MiB); status source, tag and count must
 *     describe the message actually received.
 *  2. Receives are matched in the order they were posted: a wildcard receive
 *     posted before a specific one takes the first message, whether the
 *     messages arrive before or after the receives are posted.
 *  3. A specific receive posted first does not steal a message it does not
 *     match; the wildcard behind it gets that one. */
#include "common.h"

#define BIG (1 << 20)

static int msg_len(int src, int big)
{
    return big ? BIG + src : 4 * (src + 1);
}

static void gather_any(int big)
{
    int tagbase = big ? 200 : 100;
    unsigned char *buf = t_malloc(BIG + 64);
    if (t_rank == 0) {
        char *seen = calloc((size_t)t_size, 1);
        for (int i = 1; i < t_size; i++) {
            MPI_Status st;
            t_junk_status(&st);
            MPI_CHK(MPI_Recv(buf, BIG + 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                             MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE, n = -1;
            MPI_Get_count(&st, MPI_BYTE, &n);
            if (src < 1 || src >= t_size) {
                CHECK(0, "status source %d out of range", src);
                continue;
            }
            CHECK(!seen[src], "message from %d received twice", src);
            seen[src] = 1;
            CHECK(st.MPI_TAG == tagbase + src, "tag %d from %d, want %d", st.MPI_TAG, src,
                  tagbase + src);
            CHECK(n == msg_len(src, big), "count %d from %d, want %d", n, src,
                  msg_len(src, big));
            if (n == msg_len(src, big))
                CHECK_PATTERN(buf, (size_t)n, (unsigned)(src + tagbase));
        }
        free(seen);
    } else {
        int n = msg_len(t_rank, big);
        t_fill(buf, (size_t)n, (unsigned)(t_rank + tagbase));
        MPI_CHK(MPI_Send(buf, n, MPI_BYTE, 0, tagbase + t_rank, MPI_COMM_WORLD));
    }
    free(buf);
}

/* Rank 1 sends values 1 and 2 (both tag 7, or tags 8 then 7 for case 3) to
 * rank 0, which posts receive a then receive b.  If late, rank 0 posts its
 * receives before rank 1 sends, else after both messages were sent. */
static void order_case(int src_a, int tag_a, int src_b, int tag_b, int tag1, int tag2,
                       int want_a, int want_b, int want_tag_a, int late, const char *what)
{
    int tag_go = 50;
    if (t_rank == 1) {
        int v1 = 1, v2 = 2;
        if (late)
            MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, 0, tag_go, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Send(&v1, 1, MPI_INT, 0, tag1, MPI_COMM_WORLD));
        MPI_CHK(MPI_Send(&v2, 1, MPI_INT, 0, tag2, MPI_COMM_WORLD));
        if (!late)
            MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, 0, tag_go, MPI_COMM_WORLD));
    } else if (t_rank == 0) {
        int a = -1, b = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        if (!late) /* both messages are sent (eager ones have likely arrived) */
            MPI_CHK(MPI_Recv(NULL, 0, MPI_BYTE, 1, tag_go, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Irecv(&a, 1, MPI_INT, src_a, tag_a, MPI_COMM_WORLD, &r[0]));
        MPI_CHK(MPI_Irecv(&b, 1, MPI_INT, src_b, tag_b, MPI_COMM_WORLD, &r[1]));
        if (late)
            MPI_CHK(MPI_Send(NULL, 0, MPI_BYTE, 1, tag_go, MPI_COMM_WORLD));
        MPI_CHK(MPI_Waitall(2, r, st));
        CHECK(a == want_a && b == want_b, "%s (%s): first receive got %d, second %d", what,
              late ? "posted first" : "unexpected", a, b);
        CHECK(st[0].MPI_SOURCE == 1 && st[0].MPI_TAG == want_tag_a,
              "%s: first receive status source %d tag %d", what, st[0].MPI_SOURCE, st[0].MPI_TAG);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2) {
        fprintf(stderr, "p2p_wildcard needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    gather_any(0);
    MPI_Barrier(MPI_COMM_WORLD); /* keep the phases apart: ANY_TAG takes all */
    gather_any(1);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int late = 0; late < 2; late++) {
        order_case(MPI_ANY_SOURCE, 7, 1, 7, 7, 7, 1, 2, 7, late, "ANY_SOURCE before specific");
        order_case(1, MPI_ANY_TAG, 1, 7, 7, 7, 1, 2, 7, late, "ANY_TAG before specific");
        order_case(MPI_ANY_SOURCE, MPI_ANY_TAG, 1, 7, 7, 7, 1, 2, 7, late,
                   "ANY/ANY before specific");
        order_case(1, 7, MPI_ANY_SOURCE, MPI_ANY_TAG, 8, 7, 2, 1, 7, late,
                   "specific first, other tag to wildcard");
    }
    return t_finish();
}
