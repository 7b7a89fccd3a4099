/* p2p_flood.c: a flood of small unexpected messages.  Ranks 1..n-1 (rank 0
 * itself on one rank) start tens of thousands of small MPI_Isends to rank 0
 * and then enter a barrier; rank 0 posts no receive until the barrier is
 * over and it has slept a little, so the messages pile up unexpected.  Then:
 *  round 1: 30000 messages, received with MPI_ANY_SOURCE: every message
 *           arrives once, in order per sender, content intact;
 *  round 2: 10000 messages alternating tags A and B; rank 0 receives sender
 *           by sender (highest rank first), all tag-B messages before the
 *           tag-A ones: each tag's sequence still arrives in order. */
#include "common.h"

#define ROUND1 30000
#define ROUND2 10000
#define MAXLEN 64

static int len_of(int seq)
{
    return 4 + seq % (MAXLEN - 3); /* 4..64 bytes */
}

/* Message seq of a sender: 4-byte sequence number, then a pattern. */
static void make(unsigned char *m, int seq, int src)
{
    memcpy(m, &seq, 4);
    t_fill(m + 4, (size_t)len_of(seq) - 4, (unsigned)(seq * 7 + src));
}

static void check(const unsigned char *m, const MPI_Status *st, int want_seq, int src)
{
    int seq = -1, n = -1;
    memcpy(&seq, m, 4);
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(seq == want_seq, "from %d: got message %d, want %d", src, seq, want_seq);
    CHECK(n == len_of(want_seq), "from %d: message %d has %d bytes, want %d", src, want_seq, n,
          len_of(want_seq));
    if (seq == want_seq && n == len_of(seq))
        CHECK_PATTERN(m + 4, (size_t)n - 4, (unsigned)(seq * 7 + src));
}

static void round_trip(int total, int two_tags)
{
    int first = t_size == 1 ? 0 : 1, nsend = t_size == 1 ? 1 : t_size - 1;
    int per = total / nsend;
    int is_sender = t_size == 1 || t_rank > 0;
    unsigned char *msgs = NULL;
    MPI_Request *req = NULL;

    if (is_sender) {
        msgs = t_malloc((size_t)per * MAXLEN);
        req = t_malloc((size_t)per * sizeof *req);
        for (int s = 0; s < per; s++) {
            unsigned char *m = msgs + (size_t)s * MAXLEN;
            make(m, s, t_rank);
            int tag = two_tags ? 10 + s % 2 : 10;
            MPI_CHK(MPI_Isend(m, len_of(s), MPI_BYTE, 0, tag, MPI_COMM_WORLD, &req[s]));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        unsigned char m[MAXLEN];
        MPI_Status st;
        t_sleep_ms(100);
        if (!two_tags) {
            int *next = calloc((size_t)t_size, sizeof(int));
            for (int i = 0; i < per * nsend; i++) {
                MPI_CHK(MPI_Recv(m, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st));
                int src = st.MPI_SOURCE;
                if (src < first || src >= first + nsend) {
                    CHECK(0, "message from unexpected source %d", src);
                    continue;
                }
                check(m, &st, next[src]++, src);
            }
            for (int src = first; src < first + nsend; src++)
                CHECK(next[src] == per, "got %d messages from %d, want %d", next[src], src, per);
            free(next);
        } else {
            for (int src = first + nsend - 1; src >= first; src--) {
                for (int odd = 1; odd >= 0; odd--)
                    for (int s = odd; s < per; s += 2) {
                        MPI_CHK(MPI_Recv(m, MAXLEN, MPI_BYTE, src, 10 + odd, MPI_COMM_WORLD, &st));
                        check(m, &st, s, src);
                    }
            }
        }
        int flag = -1;
        MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag == 0, "a message is left over (from %d, tag %d)", st.MPI_SOURCE, st.MPI_TAG);
    }
    if (is_sender) {
        MPI_CHK(MPI_Waitall(per, req, MPI_STATUSES_IGNORE));
        free(req);
        free(msgs);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    round_trip(ROUND1, 0);
    round_trip(ROUND2, 1);
    return t_finish();
}
