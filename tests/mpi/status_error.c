/* status_error.c: who writes the MPI_ERROR field of a status (MPI 4.1
 * sec. 3.2.5: "message-passing calls do not modify the value of the error
 * code field of status variables. This field may be updated only by the
 * functions in Section 3.7.5 that return multiple statuses. The field is
 * updated if and only if such function returns with an error code of
 * MPI_ERR_IN_STATUS").
 *  - single-completion calls (Recv, Sendrecv(_replace), Probe, Iprobe,
 *    Mprobe, Improbe, Mrecv, Imrecv, Wait, Test, Waitany, Testany,
 *    Request_get_status) leave MPI_ERROR as it was, on success and on a
 *    truncated receive under MPI_ERRORS_RETURN (the error is the return
 *    code);
 *  - Waitall, Testall, Waitsome, Testsome that succeed leave it too;
 *  - when one of several receives is truncated they return
 *    MPI_ERR_IN_STATUS and set every status's field: MPI_ERR_TRUNCATE for
 *    that one, MPI_SUCCESS (or MPI_ERR_PENDING, Waitall/Testall only, for
 *    one neither failed nor completed) for the others.
 * Partners 0<->1, 2<->3, ... (the last rank of an odd count is its own). */
#include "common.h"

#define SENTINEL 0x3c3c3c3c

static int peer;
static MPI_Comm comm; /* MPI_ERRORS_RETURN */

static void set_sentinel(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        t_junk_status(&st[i]);
        st[i].MPI_ERROR = SENTINEL;
    }
}

#define CHECK_KEPT(st, what)                                                        \
    CHECK((st).MPI_ERROR == SENTINEL, "%s changed status.MPI_ERROR to %d", (what),  \
          (st).MPI_ERROR)

/* Sends n bytes (pattern seed tag) to the partner, nonblocking. */
static MPI_Request post_send(const unsigned char *out, int n, int tag)
{
    MPI_Request r;
    MPI_CHK(MPI_Isend(out, n, MPI_BYTE, peer, tag, comm, &r));
    return r;
}

static void single_calls(unsigned char *out, unsigned char *in, int n)
{
    MPI_Status st;
    MPI_Request sr, r;
    int flag;
    MPI_Message m;

    sr = post_send(out, n, 1);
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Recv(in, n, MPI_BYTE, peer, 1, comm, &st));
    CHECK_KEPT(st, "MPI_Recv");
    CHECK_STATUS(st, peer, 1, n);
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Wait(&sr, &st));
    CHECK_KEPT(st, "MPI_Wait (send)");

    set_sentinel(&st, 1);
    MPI_CHK(MPI_Sendrecv(out, n, MPI_BYTE, peer, 2, in, n, MPI_BYTE, peer, 2, comm, &st));
    CHECK_KEPT(st, "MPI_Sendrecv");
    CHECK_STATUS(st, peer, 2, n);
    memcpy(in, out, (size_t)n);
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Sendrecv_replace(in, n, MPI_BYTE, peer, 3, peer, 3, comm, &st));
    CHECK_KEPT(st, "MPI_Sendrecv_replace");

    MPI_CHK(MPI_Irecv(in, n, MPI_BYTE, peer, 4, comm, &r));
    sr = post_send(out, n, 4);
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Wait(&r, &st));
    CHECK_KEPT(st, "MPI_Wait");
    CHECK_STATUS(st, peer, 4, n);
    MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

    MPI_CHK(MPI_Irecv(in, n, MPI_BYTE, peer, 5, comm, &r));
    sr = post_send(out, n, 5);
    flag = 0;
    while (!flag) {
        set_sentinel(&st, 1);
        MPI_CHK(MPI_Request_get_status(r, &flag, &st));
    }
    CHECK_KEPT(st, "MPI_Request_get_status");
    flag = 0;
    while (!flag) {
        set_sentinel(&st, 1);
        MPI_CHK(MPI_Test(&r, &flag, &st));
        if (!flag) CHECK_KEPT(st, "MPI_Test (not complete)");
    }
    CHECK_KEPT(st, "MPI_Test");
    MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

    sr = post_send(out, n, 6);
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Probe(peer, 6, comm, &st));
    CHECK_KEPT(st, "MPI_Probe");
    flag = 0;
    while (!flag) {
        set_sentinel(&st, 1);
        MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, 6, comm, &flag, &st));
    }
    CHECK_KEPT(st, "MPI_Iprobe");
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Mprobe(peer, 6, comm, &m, &st));
    CHECK_KEPT(st, "MPI_Mprobe");
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Mrecv(in, n, MPI_BYTE, &m, &st));
    CHECK_KEPT(st, "MPI_Mrecv");
    CHECK_STATUS(st, peer, 6, n);
    MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

    sr = post_send(out, n, 7);
    flag = 0;
    while (!flag) {
        set_sentinel(&st, 1);
        MPI_CHK(MPI_Improbe(peer, MPI_ANY_TAG, comm, &flag, &m, &st));
    }
    CHECK_KEPT(st, "MPI_Improbe");
    MPI_CHK(MPI_Imrecv(in, n, MPI_BYTE, &m, &r));
    set_sentinel(&st, 1);
    MPI_CHK(MPI_Wait(&r, &st));
    CHECK_KEPT(st, "MPI_Imrecv + MPI_Wait");
    CHECK_PATTERN(in, (size_t)n, (unsigned)peer);
    MPI_CHK(MPI_Wait(&sr, MPI_STATUS_IGNORE));

    /* Waitany / Testany complete one request: single status */
    MPI_Request rs[2];
    int idx;
    MPI_CHK(MPI_Irecv(in, n, MPI_BYTE, peer, 8, comm, &rs[0]));
    rs[1] = post_send(out, n, 8);
    for (int k = 0; k < 2; k++) {
        set_sentinel(&st, 1);
        if (k == 0) {
            MPI_CHK(MPI_Waitany(2, rs, &idx, &st));
            CHECK_KEPT(st, "MPI_Waitany");
        } else {
            flag = 0;
            while (!flag) {
                set_sentinel(&st, 1);
                MPI_CHK(MPI_Testany(2, rs, &idx, &flag, &st));
            }
            CHECK_KEPT(st, "MPI_Testany");
        }
    }
    /* A null request: an empty status, which has MPI_ERROR = MPI_SUCCESS
     * (MPI 4.1 sec. 3.7.3), from every completion and status query. */
    MPI_Request nul[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int how = 0; how < 4; how++) {
        set_sentinel(&st, 1);
        flag = 0;
        if (how == 0) MPI_CHK(MPI_Wait(&nul[0], &st));
        if (how == 1) MPI_CHK(MPI_Test(&nul[0], &flag, &st));
        if (how == 2) MPI_CHK(MPI_Waitany(2, nul, &idx, &st));
        if (how == 3) MPI_CHK(MPI_Request_get_status_any(2, nul, &idx, &flag, &st));
        CHECK(st.MPI_ERROR == MPI_SUCCESS && st.MPI_SOURCE == MPI_ANY_SOURCE &&
                  st.MPI_TAG == MPI_ANY_TAG,
              "null request, call %d: status (%d,%d,%d) is not empty", how, st.MPI_SOURCE,
              st.MPI_TAG, st.MPI_ERROR);
    }
}

/* Multiple completion, all successful: no MPI_ERROR written. */
static void multi_ok(unsigned char *out, unsigned char *in, int n)
{
    MPI_Request rs[4];
    MPI_Status st[4];
    int flag, outc, idx[4];
    for (int how = 0; how < 4; how++) {
        MPI_CHK(MPI_Irecv(in, n, MPI_BYTE, peer, 20 + how, comm, &rs[0]));
        MPI_CHK(MPI_Irecv(in + n, n, MPI_BYTE, peer, 30 + how, comm, &rs[1]));
        rs[2] = post_send(out, n, 20 + how);
        rs[3] = post_send(out, n, 30 + how);
        set_sentinel(st, 4);
        if (how == 0) {
            MPI_CHK(MPI_Waitall(4, rs, st));
            for (int i = 0; i < 4; i++) CHECK_KEPT(st[i], "MPI_Waitall");
        } else if (how == 1) {
            flag = 0;
            while (!flag) MPI_CHK(MPI_Testall(4, rs, &flag, st));
            for (int i = 0; i < 4; i++) CHECK_KEPT(st[i], "MPI_Testall");
        } else {
            int left = 4;
            while (left > 0) {
                set_sentinel(st, 4);
                if (how == 2) MPI_CHK(MPI_Waitsome(4, rs, &outc, idx, st));
                else MPI_CHK(MPI_Testsome(4, rs, &outc, idx, st));
                for (int i = 0; i < outc; i++)
                    CHECK_KEPT(st[i], how == 2 ? "MPI_Waitsome" : "MPI_Testsome");
                left -= outc;
            }
        }
    }
}

/* Three receives of 4 bytes from the partner, the middle one sent 4n+16
 * bytes (truncated); checks the return code and the MPI_ERROR fields. */
static void multi_err(unsigned char *out, int n)
{
    const char *names[] = {"MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome",
                           "MPI_Waitany", "MPI_Recv"};
    for (int how = 0; how < 6; how++) {
        const char *fn = names[how];
        int tag = 40 + 4 * how;
        int small[3][4];
        MPI_Request rs[4], ss[3];
        MPI_Status st[4];
        for (int i = 0; i < 3; i++)
            ss[i] = post_send(out, i == 1 ? 4 * n + 16 : 4, tag + i);
        if (how == 5) { /* a single truncated receive: the error is the return code */
            MPI_CHK(MPI_Recv(small[0], 4, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE));
            set_sentinel(st, 1);
            int rc = MPI_Recv(small[1], 4, MPI_BYTE, peer, tag + 1, comm, &st[0]);
            CHECK(t_class(rc) == MPI_ERR_TRUNCATE, "%s truncated: class %d", fn, t_class(rc));
            CHECK_KEPT(st[0], "MPI_Recv (truncated)");
            MPI_CHK(MPI_Recv(small[2], 4, MPI_BYTE, peer, tag + 2, comm, MPI_STATUS_IGNORE));
            MPI_CHK(MPI_Waitall(3, ss, MPI_STATUSES_IGNORE));
            continue;
        }
        for (int i = 0; i < 3; i++)
            MPI_CHK(MPI_Irecv(small[i], 4, MPI_BYTE, peer, tag + i, comm, &rs[i]));
        int flag = 0, rc = MPI_SUCCESS;
        set_sentinel(st, 4);
        if (how == 0) { /* a null request after the failed one gets MPI_SUCCESS too */
            rs[3] = MPI_REQUEST_NULL;
            rc = MPI_Waitall(4, rs, st);
            if (rc == MPI_ERR_IN_STATUS)
                CHECK(st[3].MPI_ERROR == MPI_SUCCESS, "MPI_Waitall: null request's MPI_ERROR %d after a failure",
                      st[3].MPI_ERROR);
        } else if (how == 1) {
            while (!flag) {
                rc = MPI_Testall(3, rs, &flag, st);
                if (rc != MPI_SUCCESS) break;
                if (!flag) for (int i = 0; i < 3; i++) CHECK_KEPT(st[i], "MPI_Testall (false)");
            }
        }
        if (how <= 1) {
            CHECK(rc == MPI_ERR_IN_STATUS, "%s returned %d, want MPI_ERR_IN_STATUS", fn, rc);
            CHECK(t_class(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                  "%s: truncated one's MPI_ERROR class %d", fn, t_class(st[1].MPI_ERROR));
            for (int i = 0; i < 3; i += 2) {
                CHECK(st[i].MPI_ERROR == MPI_SUCCESS || st[i].MPI_ERROR == MPI_ERR_PENDING,
                      "%s: good one's MPI_ERROR %d", fn, st[i].MPI_ERROR);
                if (st[i].MPI_ERROR == MPI_ERR_PENDING) {
                    CHECK(rs[i] != MPI_REQUEST_NULL, "%s: pending request freed", fn);
                    MPI_CHK(MPI_Wait(&rs[i], MPI_STATUS_IGNORE));
                } else {
                    CHECK(rs[i] == MPI_REQUEST_NULL, "%s: completed request not freed", fn);
                    CHECK_STATUS(st[i], peer, tag + i, 4);
                }
            }
        } else if (how <= 3) {
            int left = 3, saw = 0, outc, idx[3];
            while (left > 0) {
                set_sentinel(st, 3);
                rc = how == 2 ? MPI_Waitsome(3, rs, &outc, idx, st)
                              : MPI_Testsome(3, rs, &outc, idx, st);
                CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, "%s returned %d, want MPI_SUCCESS or MPI_ERR_IN_STATUS", fn, rc);
                for (int i = 0; i < outc; i++) {
                    if (rc == MPI_SUCCESS) {
                        CHECK_KEPT(st[i], fn);
                        CHECK(idx[i] != 1, "%s completed the truncated one with success", fn);
                    } else if (idx[i] == 1) {
                        saw = 1;
                        CHECK(t_class(st[i].MPI_ERROR) == MPI_ERR_TRUNCATE,
                              "%s: truncated one's MPI_ERROR class %d", fn,
                              t_class(st[i].MPI_ERROR));
                    } else {
                        CHECK(st[i].MPI_ERROR == MPI_SUCCESS, "%s: good one's MPI_ERROR %d", fn,
                              st[i].MPI_ERROR);
                    }
                }
                left -= outc;
            }
            CHECK(saw, "%s never reported the truncated receive", fn);
        } else { /* Waitany: one status, the error is the return code */
            for (int k = 0; k < 3; k++) {
                int idx;
                set_sentinel(st, 1);
                rc = MPI_Waitany(3, rs, &idx, &st[0]);
                CHECK_KEPT(st[0], fn);
                if (idx == 1)
                    CHECK(t_class(rc) == MPI_ERR_TRUNCATE, "%s truncated: class %d", fn,
                          t_class(rc));
                else
                    CHECK(rc == MPI_SUCCESS, "%s returned %d", fn, rc);
            }
        }
        MPI_CHK(MPI_Waitall(3, ss, MPI_STATUSES_IGNORE));
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    peer = t_partner();
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_CHK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    static const int sizes[] = {8, 65536, 1 << 22};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        unsigned char *out = t_malloc((size_t)n * 4 + 16), *in = t_malloc((size_t)n * 2);
        t_fill(out, (size_t)n * 4 + 16, (unsigned)t_rank);
        single_calls(out, in, n);
        multi_ok(out, in, n);
        multi_err(out, n);
        MPI_CHK(MPI_Barrier(comm));
        free(out);
        free(in);
    }
    MPI_CHK(MPI_Comm_free(&comm));
    return t_finish();
}
