/* p2p_hints.c: point-to-point under the communicator assertion hints
 * (MPI 4.1 section 7.4.4; dmpi's handling is in docs/matching.md).
 *  - the hints given to MPI_Comm_dup_with_info / MPI_Comm_set_info come
 *    back from MPI_Comm_get_info, per communicator (the parent and a plain
 *    duplicate keep theirs);
 *  - on a communicator with mpi_assert_no_any_source and
 *    mpi_assert_no_any_tag, messages of many tags from every rank match
 *    their receives and keep their order per (source, tag), whether the
 *    receives were posted first or the messages arrived first; collectives
 *    work there too; with mpi_assert_allow_overtaking every message still
 *    arrives once, with its data;
 *  - a wildcard the hints rule out (MPI_ANY_SOURCE under no_any_source,
 *    MPI_ANY_TAG under no_any_tag) is an error under MPI_ERRORS_RETURN
 *    (class MPI_ERR_RANK / MPI_ERR_TAG, message naming the hint; blocking,
 *    nonblocking and persistent receives; a user error handler is called
 *    once), consumes no message, and the other wildcard (not ruled out)
 *    still works; after set_info turns the hint off the wildcard works
 *    again.
 * The wildcard checks are dmpi's choice for an erroneous program (the
 * standard lets an implementation assume it never happens), so they are
 * skipped on other MPIs. */
#include "common.h"

#define NTAGS 24
#define NPERTAG 3

static const char *const K_SRC = "mpi_assert_no_any_source";
static const char *const K_TAG = "mpi_assert_no_any_tag";
static const char *const K_OVT = "mpi_assert_allow_overtaking";

static int is_dmpi(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    v[0] = 0;
    MPI_Get_library_version(v, &len);
    return strstr(v, "dmpi") != NULL;
}

static MPI_Comm dup_with(MPI_Comm parent, int no_src, int no_tag, int overtake)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, K_SRC, no_src ? "true" : "false"));
    MPI_CHK(MPI_Info_set(info, K_TAG, no_tag ? "true" : "false"));
    MPI_CHK(MPI_Info_set(info, K_OVT, overtake ? "true" : "false"));
    MPI_CHK(MPI_Comm_dup_with_info(parent, info, &c));
    MPI_CHK(MPI_Info_free(&info));
    MPI_CHK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    return c;
}

static void set_hint(MPI_Comm c, const char *key, const char *value)
{
    MPI_Info info;
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, key, value));
    MPI_CHK(MPI_Comm_set_info(c, info));
    MPI_CHK(MPI_Info_free(&info));
}

/* The hint's value is "true" (want 1) or "false"/absent (want 0). */
static void check_hint(MPI_Comm c, const char *key, int want, const char *what)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0, len = (int)sizeof v;
    MPI_CHK(MPI_Comm_get_info(c, &info));
    if (info == MPI_INFO_NULL) {
        CHECK(0, "%s: get_info gave MPI_INFO_NULL", what);
        return;
    }
    MPI_CHK(MPI_Info_get_string(info, key, &len, v, &flag));
    MPI_CHK(MPI_Info_free(&info));
    if (want)
        CHECK(flag && strcmp(v, "true") == 0, "%s: %s = \"%s\", want \"true\"", what, key,
              flag ? v : "(absent)");
    else
        CHECK(!flag || strcmp(v, "false") == 0, "%s: %s = \"%s\", want false", what, key, v);
}

/* Message m (0..NPERTAG-1) of tag index t from rank s: its payload. */
static int payload(int s, int t, int m) { return s * 100000 + t * 100 + m; }

/* Every rank sends NPERTAG messages on each of NTAGS tags to every rank
 * (itself included). Receives are specific; their posting order is
 * scrambled across sources and tags (never within one (source, tag), where
 * order is what is checked). preposted: receives are posted before the
 * sends start (barrier); else the messages come first and wait
 * unexpected. ordered: check that each (source, tag) keeps send order. */
static void exchange(MPI_Comm c, int preposted, int ordered, const char *what)
{
    int n = t_size * NTAGS * NPERTAG;
    int *rbuf = t_malloc(sizeof(int) * (size_t)n), *sbuf = t_malloc(sizeof(int) * (size_t)n);
    MPI_Request *rr = t_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Request *sr = t_malloc(sizeof(MPI_Request) * (size_t)n);
    /* Receive m * t_size * NTAGS + i is the (m+1)-th for the pair
     * (source, tag) of index i; pairs come in an order that differs by
     * rank and mixes sources and tags. */
    int *ks = t_malloc(sizeof(int) * (size_t)n * 3);
    for (int m = 0; m < NPERTAG; m++)
        for (int i = 0; i < t_size * NTAGS; i++) {
            int idx = m * t_size * NTAGS + i;
            ks[3 * idx] = i % t_size;
            ks[3 * idx + 1] = (i / t_size + 5 * (i % t_size) + t_rank) % NTAGS;
            ks[3 * idx + 2] = m;
        }
    for (int i = 0; i < n; i++) rbuf[i] = -1;
    if (!preposted) {
        for (int s = 0, q = 0; s < t_size; s++)
            for (int t = 0; t < NTAGS; t++)
                for (int m = 0; m < NPERTAG; m++, q++) {
                    sbuf[q] = payload(t_rank, t, m);
                    MPI_CHK(MPI_Isend(&sbuf[q], 1, MPI_INT, s, 1000 + t, c, &sr[q]));
                }
        MPI_CHK(MPI_Barrier(c)); /* most messages wait unexpected */
    }
    for (int i = 0; i < n; i++)
        MPI_CHK(MPI_Irecv(&rbuf[i], 1, MPI_INT, ks[3 * i], 1000 + ks[3 * i + 1], c, &rr[i]));
    if (preposted) {
        MPI_CHK(MPI_Barrier(c)); /* every receive is posted before a send */
        for (int s = 0, q = 0; s < t_size; s++)
            for (int t = 0; t < NTAGS; t++)
                for (int m = 0; m < NPERTAG; m++, q++) {
                    sbuf[q] = payload(t_rank, t, m);
                    MPI_CHK(MPI_Isend(&sbuf[q], 1, MPI_INT, s, 1000 + t, c, &sr[q]));
                }
    }
    MPI_Status *st = t_malloc(sizeof(MPI_Status) * (size_t)n);
    MPI_CHK(MPI_Waitall(n, rr, st));
    MPI_CHK(MPI_Waitall(n, sr, MPI_STATUSES_IGNORE));
    /* Receive i was the (m+1)-th posted for its (source, tag): with order
     * kept it holds message m; without, each message arrives once. */
    int *seen = t_malloc(sizeof(int) * (size_t)n);
    memset(seen, 0, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int s = ks[3 * i], t = ks[3 * i + 1], m = ks[3 * i + 2], v = rbuf[i];
        CHECK(st[i].MPI_SOURCE == s && st[i].MPI_TAG == 1000 + t,
              "%s: status (%d, %d), want (%d, %d)", what, st[i].MPI_SOURCE, st[i].MPI_TAG, s,
              1000 + t);
        int vs = v / 100000, vt = v / 100 % 1000, vm = v % 100;
        CHECK(v >= 0 && vs == s && vt == t && vm < NPERTAG,
              "%s: receive (%d, %d) got payload %d", what, s, t, v);
        if (ordered)
            CHECK(vm == m, "%s: from %d tag %d: message %d arrived as number %d", what, s, t, vm,
                  m);
        if (v >= 0 && vs == s && vt == t && vm < NPERTAG) {
            int slot = (s * NTAGS + t) * NPERTAG + vm;
            CHECK(!seen[slot], "%s: message %d from %d tag %d arrived twice", what, vm, s, t);
            seen[slot] = 1;
        }
    }
    free(seen);
    free(st);
    free(ks);
    free(sr);
    free(rr);
    free(sbuf);
    free(rbuf);
}

/* A wildcard the hints rule out: error of class cls in every receive form,
 * and the pending message from me to me stays for a specific receive. */
static void refused(MPI_Comm c, int src, int tag, int cls, const char *hintkey)
{
    int v = 42, got = -1, rc;
    MPI_Request sreq, r;
    MPI_Status st;
    MPI_CHK(MPI_Isend(&v, 1, MPI_INT, t_rank, 5, c, &sreq));

    rc = MPI_Recv(&got, 1, MPI_INT, src, tag, c, &st);
    CHECK(t_class(rc) == cls, "MPI_Recv(%d, %d): class %d, want %d", src, tag, t_class(rc), cls);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, hintkey) != NULL, "error message \"%s\" does not name %s", msg,
              hintkey);
    }
    CHECK(got == -1, "refused MPI_Recv wrote %d into the buffer", got);

    rc = MPI_Irecv(&got, 1, MPI_INT, src, tag, c, &r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
    CHECK(t_class(rc) == cls, "MPI_Irecv+Wait(%d, %d): class %d, want %d", src, tag,
          t_class(rc), cls);

    rc = MPI_Recv_init(&got, 1, MPI_INT, src, tag, c, &r);
    if (rc == MPI_SUCCESS) {
        int rs = MPI_Start(&r);
        if (rs == MPI_SUCCESS) rs = MPI_Wait(&r, &st);
        rc = rs;
        MPI_CHK(MPI_Request_free(&r));
    }
    CHECK(t_class(rc) == cls, "MPI_Recv_init+Start+Wait(%d, %d): class %d, want %d", src, tag,
          t_class(rc), cls);

    rc = MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &got, 1, MPI_INT, src, tag, c, &st);
    CHECK(t_class(rc) == cls, "MPI_Sendrecv(%d, %d): class %d, want %d", src, tag, t_class(rc),
          cls);
    CHECK(got == -1, "refused receives wrote %d into the buffer", got);

    MPI_CHK(MPI_Recv(&got, 1, MPI_INT, t_rank, 5, c, &st));
    CHECK(got == 42, "the message waiting for the specific receive holds %d", got);
    MPI_CHK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

static int handler_calls, handler_class;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_class = t_class(*code);
}

/* A user error handler sees the refused receive once, with its class. */
static void refused_to_handler(MPI_Comm c)
{
    MPI_Errhandler eh;
    int got = -1;
    MPI_CHK(MPI_Comm_create_errhandler(count_errors, &eh));
    MPI_CHK(MPI_Comm_set_errhandler(c, eh));
    handler_calls = 0;
    int rc = MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, c, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS && handler_calls == 1 && handler_class == MPI_ERR_RANK,
          "user handler: rc %d, %d calls, class %d (want 1 call, class %d)", rc, handler_calls,
          handler_class, MPI_ERR_RANK);
    MPI_CHK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Errhandler_free(&eh));
}

/* The wildcard works: a message from the next rank with tag 6. */
static void wildcard_works(MPI_Comm c, int src, int tag, const char *what)
{
    int to = (t_rank + t_size - 1) % t_size, from = (t_rank + 1) % t_size;
    int v = 1000 + t_rank, got = -1;
    MPI_Status st;
    MPI_CHK(MPI_Sendrecv(&v, 1, MPI_INT, to, 6, &got, 1, MPI_INT, src, tag, c, &st));
    CHECK(got == 1000 + from && st.MPI_SOURCE == from && st.MPI_TAG == 6,
          "%s: got %d from %d tag %d, want %d from %d tag 6", what, got, st.MPI_SOURCE,
          st.MPI_TAG, 1000 + from, from);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Hints per communicator, from dup_with_info and set_info. */
    MPI_Comm both = dup_with(MPI_COMM_WORLD, 1, 1, 0);
    MPI_Comm over = dup_with(MPI_COMM_WORLD, 0, 0, 1);
    MPI_Comm plain, only_src, only_tag;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &plain));
    MPI_CHK(MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Comm_dup(plain, &only_src));
    MPI_CHK(MPI_Comm_dup(plain, &only_tag));
    set_hint(only_src, K_SRC, "true");
    set_hint(only_tag, K_TAG, "true");
    check_hint(both, K_SRC, 1, "dup_with_info");
    check_hint(both, K_TAG, 1, "dup_with_info");
    check_hint(both, K_OVT, 0, "dup_with_info");
    check_hint(over, K_OVT, 1, "dup_with_info");
    check_hint(over, K_SRC, 0, "dup_with_info");
    check_hint(only_src, K_SRC, 1, "set_info");
    check_hint(only_src, K_TAG, 0, "set_info");
    check_hint(only_tag, K_TAG, 1, "set_info");
    check_hint(only_tag, K_SRC, 0, "set_info");
    check_hint(plain, K_SRC, 0, "parent of set_info");
    check_hint(MPI_COMM_WORLD, K_SRC, 0, "parent of dup_with_info");
    check_hint(MPI_COMM_WORLD, K_TAG, 0, "parent of dup_with_info");
    MPI_Comm both2;
    MPI_CHK(MPI_Comm_dup(both, &both2)); /* a plain dup copies the hints */
    check_hint(both2, K_SRC, 1, "dup of a hinted communicator");
    check_hint(both2, K_TAG, 1, "dup of a hinted communicator");

    /* Matching with the hints: order per (source, tag) kept. */
    exchange(both, 1, 1, "no_any_* hints, receives first");
    exchange(both, 0, 1, "no_any_* hints, messages first");
    exchange(both2, 1, 1, "dup of hinted");
    exchange(plain, 0, 1, "no hints, messages first");
    exchange(over, 1, 0, "allow_overtaking, receives first");
    exchange(over, 0, 0, "allow_overtaking, messages first");
    /* Traffic on two communicators at once keeps them apart. */
    exchange(both, 0, 1, "hinted again");
    int x = t_rank, sum = -1;
    MPI_CHK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, both));
    CHECK(sum == t_size * (t_size - 1) / 2, "allreduce on the hinted communicator gave %d", sum);
    MPI_CHK(MPI_Barrier(both));

    /* Wildcards the hints rule out fail; the others work. */
    if (is_dmpi()) {
        refused(both, MPI_ANY_SOURCE, 5, MPI_ERR_RANK, K_SRC);
        refused(both, t_rank, MPI_ANY_TAG, MPI_ERR_TAG, K_TAG);
        refused(only_src, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_ERR_RANK, K_SRC);
        refused(only_tag, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_ERR_TAG, K_TAG);
        refused_to_handler(both2);
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        wildcard_works(only_src, (t_rank + 1) % t_size, MPI_ANY_TAG, "any tag under no_any_source");
        wildcard_works(only_tag, MPI_ANY_SOURCE, 6, "any source under no_any_tag");
        wildcard_works(over, MPI_ANY_SOURCE, MPI_ANY_TAG, "both wildcards under allow_overtaking");
        set_hint(only_src, K_SRC, "false");
        check_hint(only_src, K_SRC, 0, "set_info back to false");
        wildcard_works(only_src, MPI_ANY_SOURCE, 6, "any source once the hint is off");
    }

    MPI_CHK(MPI_Comm_free(&both2));
    MPI_CHK(MPI_Comm_free(&only_tag));
    MPI_CHK(MPI_Comm_free(&only_src));
    MPI_CHK(MPI_Comm_free(&plain));
    MPI_CHK(MPI_Comm_free(&over));
    MPI_CHK(MPI_Comm_free(&both));
    return t_finish();
}
