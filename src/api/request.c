/* MPI request completion: Wait/Test and their -all/-any/-some forms,
 * Start/Startall for persistent requests, Request_free,
 * Request_get_status, Cancel. A request that is MPI_REQUEST_NULL or an
 * inactive persistent request completes at once with an empty status. */
#include "api/api.h"
#include "api/coll_api.h"
#include "coll/sched.h"
#include "p2p/p2p.h"
#include "p2p/part.h"

#include <stdlib.h>

/* Looks up *h; NULL handle and inactive persistent requests are "null". */
static int get_req(MPI_Request h, dmpi_request **out, const char *fn)
{
    *out = NULL;
    if (h == MPI_REQUEST_NULL) return MPI_SUCCESS;
    dmpi_request *r = dmpi_request_get(h);
    if (!r) return dmpi_error_noobj(MPI_ERR_REQUEST, fn, "invalid request handle %p", (void *)h);
    if (r->persistent && !r->active) return MPI_SUCCESS;
    *out = r;
    return MPI_SUCCESS;
}

static bool is_done(dmpi_request *r)
{
    return atomic_load_explicit(&r->complete, memory_order_acquire);
}

void dmpi_greq_query(dmpi_request *r);
int dmpi_greq_release(dmpi_request *r);
int dmpi_greq_cancel(dmpi_request *r);

/* Finishes a completed request: status out, then free or deactivate it
 * (unless keep: the MPI_Request_get_status family only looks). */
static int finish_keep(MPI_Request *h, dmpi_request *r, MPI_Status *status, bool keep)
{
    if (r->kind == DMPI_REQ_GREQ) dmpi_greq_query(r);
    int err = r->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &r->status);
    if (keep) return err;
    if (r->persistent) {
        r->active = false;
    } else {
        if (r->kind == DMPI_REQ_GREQ) { /* the free function's error counts too */
            int ferr = dmpi_greq_release(r);
            if (err == MPI_SUCCESS) err = ferr;
        }
        dmpi_request_free(r);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

static int finish(MPI_Request *h, dmpi_request *r, MPI_Status *status)
{
    return finish_keep(h, r, status, false);
}

static int report(dmpi_request *r, dmpi_comm *c, int err, const char *fn)
{
    (void)r;
    if (err == MPI_SUCCESS) return MPI_SUCCESS;
    return dmpi_error(c, err, fn, "%s", err == MPI_ERR_TRUNCATE
                                            ? "message truncated: the receive buffer is too small"
                                            : "the request failed");
}

/* A null or inactive request completes with an empty status, whose
 * MPI_ERROR is MPI_SUCCESS (MPI 4.1 sec. 3.7.3; mpi4py checks it). */
static void set_empty(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) dmpi_status_empty(status);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char *const FN = "MPI_Wait";
    DMPI_CHECK_INIT(FN);
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, FN, "request pointer is NULL");
    dmpi_request *r;
    int rc = get_req(*request, &r, FN);
    if (rc != MPI_SUCCESS) return rc;
    if (!r) {
        set_empty(status);
        return MPI_SUCCESS;
    }
    dmpi_lock();
    dmpi_wait_complete(r);
    dmpi_comm *c = r->comm;
    int err = finish(request, r, status);
    dmpi_unlock();
    return report(r, c, err, FN);
}
DMPI_ALIAS(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char *const FN = "MPI_Test";
    DMPI_CHECK_INIT(FN);
    if (!request || !flag) return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
    dmpi_request *r;
    int rc = get_req(*request, &r, FN);
    if (rc != MPI_SUCCESS) return rc;
    if (!r) {
        *flag = 1;
        set_empty(status);
        return MPI_SUCCESS;
    }
    dmpi_lock();
    if (!is_done(r)) dmpi_progress();
    int err = MPI_SUCCESS;
    dmpi_comm *c = r->comm;
    *flag = is_done(r);
    if (*flag) err = finish(request, r, status);
    dmpi_unlock();
    dmpi_poll_result(*flag);
    return report(r, c, err, FN);
}
DMPI_ALIAS(Test)

/* Validates an array of handles; fills objs (NULL for null/inactive). */
static int get_reqs(int n, MPI_Request reqs[], dmpi_request **objs, const char *fn)
{
    if (n < 0) return dmpi_error_noobj(MPI_ERR_COUNT, fn, "negative count %d", n);
    if (n > 0 && !reqs) return dmpi_error_noobj(MPI_ERR_ARG, fn, "request array is NULL");
    for (int i = 0; i < n; i++) {
        int rc = get_req(reqs[i], &objs[i], fn);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

#define WITH_OBJS(n, fn)                                                          \
    dmpi_request *stack_objs[64];                                                 \
    dmpi_request **objs = (n) <= 64 ? stack_objs : malloc((size_t)(n) * sizeof *objs); \
    if (!objs) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
#define FREE_OBJS() \
    if (objs != stack_objs) free(objs)

/* Completes all of them (every one is done or null). A status's MPI_ERROR
 * is written only when the call returns MPI_ERR_IN_STATUS, and then in
 * every status: the request's error, MPI_SUCCESS for the good and the null
 * ones (MPI 4.1 sec. 3.2.5, 3.7.5). */
static int finish_all(int n, MPI_Request reqs[], dmpi_request **objs, MPI_Status st[], bool keep,
                      dmpi_comm **errc)
{
    int any_err = 0;
    for (int i = 0; i < n; i++) {
        MPI_Status *s = st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[i];
        if (!objs[i]) {
            set_empty(s); /* MPI_ERROR = MPI_SUCCESS, also under MPI_ERR_IN_STATUS */
            continue;
        }
        dmpi_comm *c = objs[i]->comm;
        int err = finish_keep(&reqs[i], objs[i], s, keep);
        if (err != MPI_SUCCESS) {
            if (!any_err && s != MPI_STATUS_IGNORE)
                for (int j = 0; j < i; j++) st[j].MPI_ERROR = MPI_SUCCESS;
            if (!any_err) *errc = c;
            any_err = 1;
        }
        if (any_err && s != MPI_STATUS_IGNORE) s->MPI_ERROR = err;
    }
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* MPI_ERR_IN_STATUS goes to the error handler of the first failed
 * request's communicator (a request without one: the default handler). */
static int in_status_error(dmpi_comm *c, int rc, const char *fn)
{
    static const char *const why = "one or more requests failed (see the statuses)";
    /* the handler runs; the call returns the code MPI_ERR_IN_STATUS itself,
     * which a program compares with == (MPI 4.1 sec. 3.7.5) */
    if (c) dmpi_error(c, rc, fn, "%s", why);
    else dmpi_error_noobj(rc, fn, "%s", why);
    return rc;
}

static int all_done(int n, dmpi_request **objs)
{
    for (int i = 0; i < n; i++)
        if (objs[i] && !is_done(objs[i])) return 0;
    return 1;
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    static const char *const FN = "MPI_Waitall";
    DMPI_CHECK_INIT(FN);
    WITH_OBJS(count, FN);
    int rc = get_reqs(count, reqs, objs, FN);
    if (rc == MPI_SUCCESS) {
        dmpi_lock();
        unsigned idle = 0;
        while (!all_done(count, objs)) {
            if (dmpi_progress()) idle = 0;
            else dmpi_progress_idle(&idle);
        }
        dmpi_comm *errc = NULL;
        rc = finish_all(count, reqs, objs, statuses, false, &errc);
        dmpi_unlock();
        if (rc != MPI_SUCCESS) rc = in_status_error(errc, rc, FN);
    }
    FREE_OBJS();
    return rc;
}
DMPI_ALIAS(Waitall)

static int testall_common(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[],
                          bool keep, const char *FN)
{
    DMPI_CHECK_INIT(FN);
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, FN, "flag is NULL");
    WITH_OBJS(count, FN);
    int rc = get_reqs(count, reqs, objs, FN);
    if (rc == MPI_SUCCESS) {
        dmpi_lock();
        if (!all_done(count, objs)) dmpi_progress();
        *flag = all_done(count, objs);
        dmpi_comm *errc = NULL;
        if (*flag) rc = finish_all(count, reqs, objs, statuses, keep, &errc);
        dmpi_unlock();
        dmpi_poll_result(*flag);
        if (rc != MPI_SUCCESS) rc = in_status_error(errc, rc, FN);
    }
    FREE_OBJS();
    return rc;
}

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    return testall_common(count, reqs, flag, statuses, false, "MPI_Testall");
}
DMPI_ALIAS(Testall)

int PMPI_Request_get_status_all(int count, const MPI_Request reqs[], int *flag,
                                MPI_Status statuses[])
{
    return testall_common(count, (MPI_Request *)reqs, flag, statuses, true,
                          "MPI_Request_get_status_all");
}
DMPI_ALIAS(Request_get_status_all)

/* Index of a completed request, -1 if none, -2 if all are null. */
static int find_done(int n, dmpi_request **objs)
{
    int active = 0;
    for (int i = 0; i < n; i++) {
        if (!objs[i]) continue;
        active = 1;
        if (is_done(objs[i])) return i;
    }
    return active ? -1 : -2;
}

static int any_common(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
                      bool block, bool keep, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    if (!index) return dmpi_error_noobj(MPI_ERR_ARG, fn, "index is NULL");
    WITH_OBJS(count, fn);
    int rc = get_reqs(count, reqs, objs, fn);
    if (rc == MPI_SUCCESS) {
        dmpi_lock();
        int i = find_done(count, objs);
        unsigned idle = 0;
        while (i == -1) {
            int n = dmpi_progress();
            i = find_done(count, objs);
            if (i != -1 || !block) break;
            if (n) idle = 0;
            else dmpi_progress_idle(&idle);
        }
        dmpi_comm *c = NULL;
        if (flag) *flag = i != -1;
        if (i < 0) {
            *index = MPI_UNDEFINED;
            if (i == -2) set_empty(status);
        } else {
            *index = i;
            c = objs[i]->comm;
            rc = finish_keep(&reqs[i], objs[i], status, keep);
        }
        dmpi_unlock();
        if (!block) dmpi_poll_result(i != -1);
        rc = report(NULL, c, rc, fn);
    }
    FREE_OBJS();
    return rc;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any_common(count, reqs, index, NULL, status, true, false, "MPI_Waitany");
}
DMPI_ALIAS(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Testany", "flag is NULL");
    return any_common(count, reqs, index, flag, status, false, false, "MPI_Testany");
}
DMPI_ALIAS(Testany)

int PMPI_Request_get_status_any(int count, const MPI_Request reqs[], int *index, int *flag,
                                MPI_Status *status)
{
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Request_get_status_any", "flag is NULL");
    return any_common(count, (MPI_Request *)reqs, index, flag, status, false, true,
                      "MPI_Request_get_status_any");
}
DMPI_ALIAS(Request_get_status_any)

static int some_common(int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[], bool block, bool keep, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    if (!outcount || (incount > 0 && !indices))
        return dmpi_error_noobj(MPI_ERR_ARG, fn, "NULL argument");
    WITH_OBJS(incount, fn);
    int rc = get_reqs(incount, reqs, objs, fn);
    if (rc == MPI_SUCCESS) {
        dmpi_lock();
        int i = find_done(incount, objs);
        unsigned idle = 0;
        while (i == -1) {
            int n = dmpi_progress();
            i = find_done(incount, objs);
            if (i != -1 || !block) break;
            if (n) idle = 0;
            else dmpi_progress_idle(&idle);
        }
        dmpi_comm *errc = NULL;
        if (i == -2) {
            *outcount = MPI_UNDEFINED;
        } else {
            /* MPI_ERROR only when returning MPI_ERR_IN_STATUS, as in finish_all */
            int k = 0, any_err = 0;
            for (int j = 0; j < incount; j++) {
                if (!objs[j] || !is_done(objs[j])) continue;
                MPI_Status *s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
                dmpi_comm *c = objs[j]->comm;
                int err = finish_keep(&reqs[j], objs[j], s, keep);
                if (err != MPI_SUCCESS) {
                    if (!any_err && s != MPI_STATUS_IGNORE)
                        for (int m = 0; m < k; m++) statuses[m].MPI_ERROR = MPI_SUCCESS;
                    if (!any_err) errc = c;
                    any_err = 1;
                }
                if (any_err && s != MPI_STATUS_IGNORE) s->MPI_ERROR = err;
                indices[k++] = j;
            }
            *outcount = k;
            if (any_err) rc = MPI_ERR_IN_STATUS;
        }
        dmpi_unlock();
        if (!block) dmpi_poll_result(i != -1);
        if (rc != MPI_SUCCESS) rc = in_status_error(errc, rc, fn);
    }
    FREE_OBJS();
    return rc;
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some_common(incount, reqs, outcount, indices, statuses, true, false, "MPI_Waitsome");
}
DMPI_ALIAS(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    return some_common(incount, reqs, outcount, indices, statuses, false, false, "MPI_Testsome");
}
DMPI_ALIAS(Testsome)

int PMPI_Request_get_status_some(int incount, const MPI_Request reqs[], int *outcount,
                                 int indices[], MPI_Status statuses[])
{
    return some_common(incount, (MPI_Request *)reqs, outcount, indices, statuses, false, true,
                       "MPI_Request_get_status_some");
}
DMPI_ALIAS(Request_get_status_some)

/* ------------------------------------------------------------ persistent */

static int start_one(MPI_Request h, const char *fn)
{
    dmpi_request *r = dmpi_request_get(h);
    if (!r || !r->persistent)
        return dmpi_error_noobj(MPI_ERR_REQUEST, fn, "not a persistent request");
    if (r->active) return dmpi_error(r->comm, MPI_ERR_REQUEST, fn, "request is already active");
    if (r->kind == DMPI_REQ_PSEND || r->kind == DMPI_REQ_PRECV) return dmpi_start_persistent(r, fn);
    if (dmpi_coll_is_persistent(r)) {
        /* device buffers: the blocks get the device bytes as they are now */
        if (__builtin_expect(r->stage != NULL, 0)) {
            int rc = dmpi_coll_stage_restart(r);
            if (rc != MPI_SUCCESS) return dmpi_coll_stage_error(r->comm, rc, fn);
        }
        return dmpi_coll_start_persistent(r);
    }
    if (r->kind == DMPI_REQ_PART) return dmpi_part_start(r);
    return dmpi_error(r->comm, MPI_ERR_REQUEST, fn, "cannot start this request");
}

int PMPI_Start(MPI_Request *request)
{
    DMPI_CHECK_INIT("MPI_Start");
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Start", "request is NULL");
    dmpi_lock();
    int rc = start_one(*request, "MPI_Start");
    dmpi_unlock();
    return rc;
}
DMPI_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request reqs[])
{
    DMPI_CHECK_INIT("MPI_Startall");
    if (count < 0) return dmpi_error_noobj(MPI_ERR_COUNT, "MPI_Startall", "negative count");
    if (count > 0 && !reqs) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Startall", "NULL array");
    int rc = MPI_SUCCESS;
    dmpi_lock();
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) rc = start_one(reqs[i], "MPI_Startall");
    dmpi_unlock();
    return rc;
}
DMPI_ALIAS(Startall)

/* ---------------------------------------------------------- free, cancel */

int PMPI_Request_free(MPI_Request *request)
{
    static const char *const FN = "MPI_Request_free";
    DMPI_CHECK_INIT(FN);
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, FN, "request is NULL");
    dmpi_request *r = dmpi_request_get(*request);
    if (!r) return dmpi_error_noobj(MPI_ERR_REQUEST, FN, "invalid request");
    int err = MPI_SUCCESS;
    dmpi_lock();
    if (is_done(r) || (r->persistent && !r->active)) {
        if (r->kind == DMPI_REQ_GREQ) err = dmpi_greq_release(r);
        dmpi_request_free(r);
    } else {
        r->freed_by_user = true;
    }
    dmpi_unlock();
    *request = MPI_REQUEST_NULL;
    if (err != MPI_SUCCESS)
        return dmpi_error_noobj(err, FN, "the free function of the generalized request failed");
    return MPI_SUCCESS;
}
DMPI_ALIAS(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char *const FN = "MPI_Request_get_status";
    DMPI_CHECK_INIT(FN);
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, FN, "flag is NULL");
    dmpi_request *r;
    int rc = get_req(request, &r, FN);
    if (rc != MPI_SUCCESS) return rc;
    if (!r) {
        *flag = 1;
        set_empty(status);
        return MPI_SUCCESS;
    }
    dmpi_lock();
    if (!is_done(r)) dmpi_progress();
    *flag = is_done(r);
    if (*flag) finish_keep(&request, r, status, true);
    dmpi_unlock();
    dmpi_poll_result(*flag);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Request_get_status)

/* Cancels a receive that nothing has matched; a send is cancelled if its
 * receiver has not matched it yet, else it completes normally
 * (src/p2p/send.c). Other requests are left alone. */
static void cancel_p2p(dmpi_request *r)
{
    if ((r->kind == DMPI_REQ_RECV || r->kind == DMPI_REQ_PRECV) && !is_done(r) &&
        dmpi_offer_withdraw_req(r) && dmpi_posted_remove(r)) {
        dmpi_status_set_cancelled(&r->status, 1);
        r->status.MPI_ERROR = MPI_SUCCESS;
        dmpi_request_complete(r);
    }
    if ((r->kind == DMPI_REQ_SEND || r->kind == DMPI_REQ_PSEND) && !is_done(r) &&
        (!r->persistent || r->active))
        dmpi_send_cancel(r);
}

int PMPI_Cancel(MPI_Request *request)
{
    static const char *const FN = "MPI_Cancel";
    DMPI_CHECK_INIT(FN);
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, FN, "request is NULL");
    dmpi_request *r = dmpi_request_get(*request);
    if (!r) return dmpi_error_noobj(MPI_ERR_REQUEST, FN, "invalid request");
    dmpi_lock();
    dmpi_request *recv, *send;
    if (!is_done(r) && dmpi_pair_parts(r, &recv, &send)) { /* MPI_Isendrecv(_replace) */
        cancel_p2p(recv);
        cancel_p2p(send);
    }
    cancel_p2p(r);
    if (r->kind == DMPI_REQ_PART && r->active && !is_done(r)) dmpi_part_cancel(r);
    int err = r->kind == DMPI_REQ_GREQ ? dmpi_greq_cancel(r) : MPI_SUCCESS;
    dmpi_unlock();
    if (err != MPI_SUCCESS)
        return dmpi_error_noobj(err, FN, "the cancel function of the generalized request failed");
    return MPI_SUCCESS;
}
DMPI_ALIAS(Cancel)
