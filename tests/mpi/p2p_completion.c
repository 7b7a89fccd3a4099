/* p2p_completion.c: the completion calls and MPI_REQUEST_NULL.
 * MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome, MPI_Waitall and
 * MPI_Testall over arrays that mix active requests with MPI_REQUEST_NULL:
 * each active request completes exactly once, is set to MPI_REQUEST_NULL,
 * with the right status; when only null requests remain the calls say
 * MPI_UNDEFINED (index / outcount) and give empty statuses.  MPI_Test and
 * MPI_Wait on MPI_REQUEST_NULL complete at once with an empty status, and
 * MPI_Request_get_status reports completion without freeing the request.
 * Partners 0<->1, ... (odd count: the last rank is its own partner). */
#include "common.h"

#define NREQ 6
static const int active[NREQ] = { 0, 1, 0, 1, 1, 0 }; /* which slots get a receive */
static int peer, vals[NREQ], outv[NREQ];
static MPI_Request sreq[NREQ];

/* Post receives in the active slots, and send their messages (tag = slot). */
static void post(MPI_Request *r)
{
    for (int i = 0; i < NREQ; i++) {
        r[i] = MPI_REQUEST_NULL;
        sreq[i] = MPI_REQUEST_NULL;
        vals[i] = -1;
        if (active[i]) {
            MPI_CHK(MPI_Irecv(&vals[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]));
            outv[i] = 100 * t_rank + i;
            MPI_CHK(MPI_Isend(&outv[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &sreq[i]));
        }
    }
}

static void check_done(int i, const MPI_Status *st, int *seen, const char *what)
{
    if (i < 0 || i >= NREQ || !active[i]) {
        CHECK(0, "%s completed index %d, which holds no request", what, i);
        return;
    }
    CHECK(!seen[i], "%s completed index %d twice", what, i);
    seen[i] = 1;
    CHECK(vals[i] == 100 * peer + i, "%s: slot %d got %d", what, i, vals[i]);
    if (st)
        CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == i, "%s: slot %d status %d/%d", what, i,
              st->MPI_SOURCE, st->MPI_TAG);
}

static void finish_sends(MPI_Request *r, const char *what)
{
    for (int i = 0; i < NREQ; i++)
        CHECK(r[i] == MPI_REQUEST_NULL, "%s left slot %d active", what, i);
    MPI_CHK(MPI_Waitall(NREQ, sreq, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    peer = t_partner();
    MPI_Request r[NREQ], nulls[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st, sts[NREQ];
    int idx, flag, outcount, indices[NREQ], seen[NREQ];

    /* Null requests alone. */
    t_junk_status(&st);
    MPI_CHK(MPI_Wait(&nulls[0], &st));
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    t_junk_status(&st);
    flag = 0;
    MPI_CHK(MPI_Test(&nulls[0], &flag, &st));
    CHECK(flag == 1, "MPI_Test(MPI_REQUEST_NULL) flag %d", flag);
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    t_junk_status(&st);
    flag = 0;
    MPI_CHK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag == 1, "MPI_Request_get_status(MPI_REQUEST_NULL) flag %d", flag);
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    t_junk_status(&st);
    MPI_CHK(MPI_Waitany(3, nulls, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany on nulls gave index %d", idx);
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    MPI_CHK(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany(count 0) gave index %d", idx);
    t_junk_status(&st);
    flag = 0;
    MPI_CHK(MPI_Testany(3, nulls, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "MPI_Testany on nulls gave flag %d index %d", flag,
          idx);
    CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
    MPI_CHK(MPI_Waitsome(3, nulls, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome on nulls gave outcount %d", outcount);
    MPI_CHK(MPI_Testsome(3, nulls, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome on nulls gave outcount %d", outcount);
    flag = 0;
    MPI_CHK(MPI_Testall(3, nulls, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1, "MPI_Testall on nulls gave flag %d", flag);
    MPI_CHK(MPI_Waitall(3, nulls, MPI_STATUSES_IGNORE));

    /* Waitany until MPI_UNDEFINED. */
    post(r);
    memset(seen, 0, sizeof seen);
    for (int n = 0;; n++) {
        t_junk_status(&st);
        MPI_CHK(MPI_Waitany(NREQ, r, &idx, &st));
        if (idx == MPI_UNDEFINED) {
            CHECK(n == 3, "MPI_Waitany said MPI_UNDEFINED after %d completions", n);
            CHECK_NULL_STATUS(st, MPI_ANY_SOURCE);
            break;
        }
        CHECK(n < 3, "MPI_Waitany completed more than 3 requests");
        if (n >= 3)
            break;
        check_done(idx, &st, seen, "MPI_Waitany");
        if (idx >= 0 && idx < NREQ)
            CHECK(r[idx] == MPI_REQUEST_NULL, "MPI_Waitany did not free slot %d", idx);
    }
    finish_sends(r, "MPI_Waitany");

    /* Testany: poll. */
    post(r);
    memset(seen, 0, sizeof seen);
    for (int n = 0; n < 3;) {
        flag = 0;
        MPI_CHK(MPI_Testany(NREQ, r, &idx, &flag, &st));
        CHECK(flag == 0 || idx != MPI_UNDEFINED, "MPI_Testany: UNDEFINED with requests left");
        if (flag && idx != MPI_UNDEFINED) {
            check_done(idx, &st, seen, "MPI_Testany");
            n++;
        }
    }
    MPI_CHK(MPI_Testany(NREQ, r, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "MPI_Testany at the end: flag %d index %d", flag,
          idx);
    finish_sends(r, "MPI_Testany");

    /* Waitsome / Testsome until MPI_UNDEFINED. */
    for (int use_test = 0; use_test < 2; use_test++) {
        const char *what = use_test ? "MPI_Testsome" : "MPI_Waitsome";
        post(r);
        memset(seen, 0, sizeof seen);
        int total = 0;
        for (int iter = 0;; iter++) {
            if (use_test)
                MPI_CHK(MPI_Testsome(NREQ, r, &outcount, indices, sts));
            else
                MPI_CHK(MPI_Waitsome(NREQ, r, &outcount, indices, sts));
            if (outcount == MPI_UNDEFINED)
                break;
            CHECK(outcount >= 0 && outcount <= 3 - total, "%s outcount %d", what, outcount);
            CHECK(use_test || outcount > 0, "MPI_Waitsome returned with nothing completed");
            if (outcount < 0 || outcount > 3 - total)
                break;
            for (int k = 0; k < outcount; k++)
                check_done(indices[k], &sts[k], seen, what);
            total += outcount;
        }
        CHECK(total == 3, "%s completed %d of 3", what, total);
        finish_sends(r, what);
    }

    /* Waitall / Testall: statuses of null slots are empty. */
    for (int use_test = 0; use_test < 2; use_test++) {
        const char *what = use_test ? "MPI_Testall" : "MPI_Waitall";
        post(r);
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < NREQ; i++)
            t_junk_status(&sts[i]);
        if (use_test) {
            flag = 0;
            while (!flag)
                MPI_CHK(MPI_Testall(NREQ, r, &flag, sts));
        } else {
            MPI_CHK(MPI_Waitall(NREQ, r, sts));
        }
        for (int i = 0; i < NREQ; i++) {
            if (active[i])
                check_done(i, &sts[i], seen, what);
            else
                CHECK_NULL_STATUS(sts[i], MPI_ANY_SOURCE);
        }
        finish_sends(r, what);
    }

    /* Request_get_status leaves the request to MPI_Wait. */
    post(r);
    for (int i = 0; i < NREQ; i++) {
        if (!active[i])
            continue;
        MPI_Status st2;
        flag = 0;
        while (!flag)
            MPI_CHK(MPI_Request_get_status(r[i], &flag, &st));
        CHECK(r[i] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
        flag = 0;
        MPI_CHK(MPI_Request_get_status(r[i], &flag, &st2));
        CHECK(flag == 1, "second MPI_Request_get_status says incomplete");
        CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == st.MPI_TAG,
              "MPI_Request_get_status gave two different statuses");
        t_junk_status(&st2);
        MPI_CHK(MPI_Wait(&r[i], &st2));
        CHECK(r[i] == MPI_REQUEST_NULL, "MPI_Wait after get_status did not free");
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == i, "get_status: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        CHECK(st2.MPI_SOURCE == peer && st2.MPI_TAG == i, "Wait: source %d tag %d",
              st2.MPI_SOURCE, st2.MPI_TAG);
        CHECK(vals[i] == 100 * peer + i, "slot %d got %d", i, vals[i]);
    }
    for (int i = 0; i < NREQ; i++) {
        if (sreq[i] == MPI_REQUEST_NULL)
            continue;
        flag = 0;
        while (!flag)
            MPI_CHK(MPI_Request_get_status(sreq[i], &flag, MPI_STATUS_IGNORE));
        CHECK(sreq[i] != MPI_REQUEST_NULL, "MPI_Request_get_status freed a send request");
    }
    finish_sends(r, "MPI_Request_get_status");
    return t_finish();
}
