/* MPI_T performance variables, categories, events and sources (MPI 4.1
 * sections 15.3.7-15.3.10): everything can be enumerated and found again
 * by name; a session's counters of messages sent and matched see real
 * traffic (N messages sent: the counters move by at least N), stop, read,
 * write, reset and readreset behave as the standard says, the unexpected
 * queue's level shows messages waiting; bad sessions, handles, indices
 * and operations give their MPI_T_ERR_* codes. The named dmpi variables
 * are checked where they exist (any MPI passes the generic part). */
#include "common.h"

#include <string.h>

#define T_RC(call, want)                                                              \
    do {                                                                              \
        int t_rc_ = (call);                                                           \
        if (t_rc_ != (want))                                                          \
            t_fail(__FILE__, __LINE__, #call, "returned %d, expected %d (%s)", t_rc_, \
                   (int)(want), #want);                                               \
    } while (0)

#define N 100

static const char *const sent_msgs[] = {"dmpi_send_eager_shm", "dmpi_send_rndv_shm",
                                        "dmpi_send_offer_shm", "dmpi_send_eager_net",
                                        "dmpi_send_rndv_net",  "dmpi_send_self"};
#define NSENT (int)(sizeof sent_msgs / sizeof sent_msgs[0])

static void enumerate(void)
{
    int n = -1;
    MPI_CHK(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum et;
        MPI_CHK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind, &ro,
                                    &cont, &atomic));
        CHECK(nl == (int)strlen(name) + 1, "pvar %d: name_len %d", i, nl);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC, "pvar %s: class %d",
              name, cls);
        int idx = -1;
        MPI_CHK(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i, "pvar %s: get_index gave %d, not %d", name, idx, i);
        int other = cls == MPI_T_PVAR_CLASS_GENERIC ? MPI_T_PVAR_CLASS_STATE : MPI_T_PVAR_CLASS_GENERIC;
        T_RC(MPI_T_pvar_get_index(name, other, &idx), MPI_T_ERR_INVALID_NAME);
    }
    T_RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                             NULL),
         MPI_T_ERR_INVALID_INDEX);

    int nc = -1, ncv = 0, npv = 0;
    MPI_CHK(MPI_T_category_get_num(&nc));
    MPI_CHK(MPI_T_cvar_get_num(&ncv));
    int seen_c = 0, seen_p = 0;
    for (int c = 0; c < nc; c++) {
        char name[256];
        int nl = sizeof name, cv, pv, sub;
        MPI_CHK(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &cv, &pv, &sub));
        int idx = -1;
        MPI_CHK(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s: get_index gave %d", name, idx);
        int list[512];
        if (cv <= 512) MPI_CHK(MPI_T_category_get_cvars(c, cv, list));
        for (int k = 0; k < cv && k < 512; k++)
            CHECK(list[k] >= 0 && list[k] < ncv, "category %s: cvar %d", name, list[k]);
        if (pv <= 512) MPI_CHK(MPI_T_category_get_pvars(c, pv, list));
        for (int k = 0; k < pv && k < 512; k++)
            CHECK(list[k] >= 0 && list[k] < n, "category %s: pvar %d", name, list[k]);
        if (sub <= 512) MPI_CHK(MPI_T_category_get_categories(c, sub, list));
        int ne = -1;
        MPI_CHK(MPI_T_category_get_num_events(c, &ne));
        seen_c += cv;
        seen_p += pv;
    }
    (void)npv;
    T_RC(MPI_T_category_get_info(nc, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
    T_RC(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    int idx;
    T_RC(MPI_T_category_get_index("no such category, surely", &idx), MPI_T_ERR_INVALID_NAME);
    int upd = -1;
    MPI_CHK(MPI_T_category_changed(&upd));

    /* events: however many there are, past the last is invalid */
    int ne = -1;
    MPI_CHK(MPI_T_event_get_num(&ne));
    CHECK(ne >= 0, "event_get_num gave %d", ne);
    T_RC(MPI_T_event_get_info(ne, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL),
         MPI_T_ERR_INVALID_INDEX);
    MPI_T_event_registration reg;
    T_RC(MPI_T_event_handle_alloc(ne, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    T_RC(MPI_T_event_handle_alloc(-1, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    T_RC(MPI_T_event_get_index("no such event, surely", &idx), MPI_T_ERR_INVALID_NAME);

    /* sources */
    int ns = -1;
    MPI_CHK(MPI_T_source_get_num(&ns));
    for (int s = 0; s < ns; s++) {
        MPI_Count tps = 0, maxt = 0, t1 = 0, t2 = 0;
        MPI_T_source_order ord;
        MPI_Info info = MPI_INFO_NULL;
        char name[256];
        int nl = sizeof name;
        MPI_CHK(MPI_T_source_get_info(s, name, &nl, NULL, NULL, &ord, &tps, &maxt, &info));
        CHECK(tps > 0, "source %d: %lld ticks per second", s, (long long)tps);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        MPI_CHK(MPI_T_source_get_timestamp(s, &t1));
        MPI_CHK(MPI_T_source_get_timestamp(s, &t2));
        CHECK(ord != MPI_T_SOURCE_ORDERED || t2 >= t1, "source %d went back", s);
    }
    MPI_Count ts;
    T_RC(MPI_T_source_get_timestamp(ns, &ts), MPI_T_ERR_INVALID_INDEX);
}

/* A handle on the counter named name, or NULL. */
static MPI_T_pvar_handle counter(MPI_T_pvar_session s, const char *name, int cls)
{
    int idx, count;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    if (MPI_T_pvar_get_index(name, cls, &idx) != MPI_SUCCESS) return NULL;
    MPI_CHK(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    CHECK(count == 1, "pvar %s: count %d", name, count);
    return h;
}

static unsigned long long rd(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    if (h) MPI_CHK(MPI_T_pvar_read(s, h, &v));
    return v;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_CHK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    t_init(&argc, &argv);
    enumerate();

    MPI_T_pvar_session s, s2;
    MPI_CHK(MPI_T_pvar_session_create(&s));
    MPI_CHK(MPI_T_pvar_session_create(&s2));
    MPI_T_pvar_handle sent[NSENT], posted, unexp, level, hwm, other;
    int have = 0;
    MPI_T_pvar_handle sentb[NSENT]; /* the bytes of each */
    for (int i = 0; i < NSENT; i++) {
        char bname[64];
        snprintf(bname, sizeof bname, "%s_bytes", sent_msgs[i]);
        have += (sent[i] = counter(s, sent_msgs[i], MPI_T_PVAR_CLASS_COUNTER)) != NULL;
        have += (sentb[i] = counter(s, bname, MPI_T_PVAR_CLASS_COUNTER)) != NULL;
    }
    posted = counter(s, "dmpi_match_posted", MPI_T_PVAR_CLASS_COUNTER);
    unexp = counter(s, "dmpi_match_unexpected", MPI_T_PVAR_CLASS_COUNTER);
    level = counter(s, "dmpi_unexpected_queue", MPI_T_PVAR_CLASS_LEVEL);
    hwm = counter(s, "dmpi_unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    other = counter(s2, "dmpi_send_eager_shm", MPI_T_PVAR_CLASS_COUNTER);

    int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
    double x[N];
    if (have == 2 * NSENT) {
        /* stopped counters do not count */
        for (int i = 0; i < NSENT; i++) CHECK(rd(s, sent[i]) == 0, "%s counted while stopped", sent_msgs[i]);
        MPI_CHK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        /* N messages posted before they come (after the barrier) */
        MPI_Request rq[N];
        for (int i = 0; i < N; i++) MPI_Irecv(&x[i], 1, MPI_DOUBLE, from, i, MPI_COMM_WORLD, &rq[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < N; i++) MPI_Send(&x[i], 1, MPI_DOUBLE, to, i, MPI_COMM_WORLD);
        MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
        unsigned long long total = 0;
        for (int i = 0; i < NSENT; i++) total += rd(s, sent[i]);
        CHECK(total >= N, "%llu messages counted, %d sent", total, N);
        unsigned long long bytes = 0;
        for (int i = 0; i < NSENT; i++) bytes += rd(s, sentb[i]);
        CHECK(bytes >= N * sizeof(double), "%llu bytes counted, %zu sent", bytes, N * sizeof(double));
        unsigned long long matched = rd(s, posted) + rd(s, unexp);
        CHECK(matched >= N, "%llu matches counted, %d received", matched, N);
        /* N messages that come before their receives */
        for (int i = 0; i < N; i++) MPI_Send(&x[i], 1, MPI_DOUBLE, to, N + i, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        int flag = 0;
        MPI_Iprobe(from, 2 * N - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        while (!flag) MPI_Iprobe(from, 2 * N - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (level) CHECK(rd(s, level) >= N, "unexpected queue %llu, %d waiting", rd(s, level), N);
        unsigned long long u0 = rd(s, unexp);
        for (int i = 0; i < N; i++) MPI_Recv(&x[i], 1, MPI_DOUBLE, from, N + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(s, unexp) >= u0 + N, "unexpected matches %llu -> %llu", u0, rd(s, unexp));
        /* (a faster neighbour's next message may be waiting already) */
        if (level) CHECK(rd(s, level) < N, "unexpected queue %llu after receiving all", rd(s, level));
        if (hwm) CHECK(rd(s, hwm) >= N, "unexpected queue max %llu", rd(s, hwm));
        /* stop: the value stays */
        MPI_CHK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        unsigned long long before = 0;
        for (int i = 0; i < NSENT; i++) before += rd(s, sent[i]);
        MPI_Sendrecv(&x[0], 1, MPI_DOUBLE, to, 0, &x[1], 1, MPI_DOUBLE, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        unsigned long long after = 0;
        for (int i = 0; i < NSENT; i++) after += rd(s, sent[i]);
        CHECK(after == before, "stopped counters moved: %llu -> %llu", before, after);
        /* the other session's handle never started */
        CHECK(rd(s2, other) == 0, "a handle of another session counted %llu", rd(s2, other));
        /* write, readreset, reset */
        unsigned long long w = 5, v = 0;
        MPI_CHK(MPI_T_pvar_write(s, sent[0], &w));
        CHECK(rd(s, sent[0]) == 5, "read %llu after writing 5", rd(s, sent[0]));
        MPI_CHK(MPI_T_pvar_readreset(s, sent[0], &v));
        CHECK(v == 5 && rd(s, sent[0]) == 0, "readreset gave %llu, then %llu", v, rd(s, sent[0]));
        MPI_CHK(MPI_T_pvar_write(s, sent[1], &w));
        MPI_CHK(MPI_T_pvar_reset(s, sent[1]));
        CHECK(rd(s, sent[1]) == 0, "read %llu after reset", rd(s, sent[1]));
        MPI_CHK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
        /* errors */
        T_RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
        T_RC(MPI_T_pvar_read(s2, sent[0], &v), MPI_T_ERR_INVALID_HANDLE);
        T_RC(MPI_T_pvar_read(s, other, &v), MPI_T_ERR_INVALID_HANDLE);
        if (level) {
            T_RC(MPI_T_pvar_start(s, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
            T_RC(MPI_T_pvar_stop(s, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
            T_RC(MPI_T_pvar_write(s, level, &w), MPI_T_ERR_PVAR_NO_WRITE);
            T_RC(MPI_T_pvar_reset(s, level), MPI_T_ERR_PVAR_NO_WRITE);
        }
        MPI_CHK(MPI_T_pvar_handle_free(s, &sent[0]));
        CHECK(sent[0] == MPI_T_PVAR_HANDLE_NULL, "handle_free left the handle");
    }
    int n, count;
    MPI_CHK(MPI_T_pvar_get_num(&n));
    MPI_T_pvar_handle h;
    T_RC(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    MPI_T_pvar_session gone = s2;
    MPI_CHK(MPI_T_pvar_session_free(&s2));
    CHECK(s2 == MPI_T_PVAR_SESSION_NULL, "session_free left the session");
    T_RC(MPI_T_pvar_session_free(&gone), MPI_T_ERR_INVALID_SESSION);
    T_RC(MPI_T_pvar_start(gone, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    if (n > 0) T_RC(MPI_T_pvar_handle_alloc(gone, 0, NULL, &h, &count), MPI_T_ERR_INVALID_SESSION);
    MPI_CHK(MPI_T_pvar_session_free(&s)); /* frees its handles too */
    MPI_CHK(MPI_T_finalize());
    T_RC(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_RC(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    return t_finish();
}
