/* One-sided communication entry points (MPI 4.1 sections 12.3 to 12.5):
 * Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap,
 * the request-based forms (complete when they return: every operation
 * is synchronous here) and the _c forms (the synchronisation calls are
 * in api/rma_sync.c). Argument and epoch checks raise the right class on the window's error
 * handler; the work is in src/rma. A target of MPI_PROC_NULL makes an
 * operation a no-op. Small operations on mapped memory first try the fast
 * paths below (rma/fast.h); anything they do not take comes here.
 *
 * Device buffers (docs/accel.md): origin, compare and result buffers in
 * device memory are staged here, never seen by src/rma. The origin data
 * is copied to a host block before the operation; since every operation
 * is complete when its call returns, a result (or a Get's origin) is
 * copied back to the device right after it, before the call returns,
 * request-based forms included. Window memory is never device memory
 * (api/win.c refuses it). */
#include "accel/stage.h"
#include "api/api.h"
#include "core/op.h"
#include "rma/fast.h"
#include "rma/rma.h"

#include <stdlib.h>
#include <string.h>

enum { K_PUT, K_GET };

/* ------------------------------------------------------------ fast paths
 * Each returns true when it did the whole operation (every argument valid,
 * see rma/fast.h), false when the general path below must run. */
#define FAST(call) DMPI_RMA_FAST_CALL(call)
/* The fast paths touch the buffers in place: host memory only (one test
 * of dmpi_accel_on while no device backend is active). */
__attribute__((noinline)) static bool all_host(const void *a, const void *b, const void *c)
{
    return !dmpi_accel_needs_staging(a) && !dmpi_accel_needs_staging(b) &&
           !dmpi_accel_needs_staging(c);
}
static inline bool host_bufs(const void *a, const void *b, const void *c)
{
    return __builtin_expect(!dmpi_accel_on, 1) || all_host(a, b, c);
}

/* ------------------------------------------------------- device staging
 * Up to three staged buffers of one operation: stage() before it (a
 * no-op unless a device backend is on and the buffer is device memory),
 * unstage() after it, which copies the outputs back when ok. */
typedef struct rma_staging {
    dmpi_stage *s[3];
} rma_staging;

static int stage(rma_staging *g, int i, bool out, void **buf, MPI_Count count, dmpi_datatype *dt)
{
    g->s[i] = NULL;
    if (__builtin_expect(!dmpi_stage_wanted(*buf, count, dt), 1)) return MPI_SUCCESS;
    int rc;
    void *h;
    if (!(g->s[i] = dmpi_stage_new(out, *buf, count, dt, &h, &rc))) return rc;
    *buf = h;
    return MPI_SUCCESS;
}

static int unstage(rma_staging *g, bool ok)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < 3; i++) {
        if (!g->s[i]) continue;
        if (ok && rc == MPI_SUCCESS) rc = dmpi_stage_finish(g->s[i], (MPI_Count)g->s[i]->span);
        dmpi_stage_free(g->s[i]);
        g->s[i] = NULL;
    }
    return rc;
}

static int stage_err(dmpi_win *w, rma_staging *g, int rc, const char *fn)
{
    unstage(g, false);
    return dmpi_win_err(w, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_BUFFER, fn,
                        "a buffer is device memory and cannot be staged: %s", dmpi_accel_error());
}

static inline bool fast_put_get(int kind, void *oaddr, MPI_Count ocount, MPI_Datatype odt,
                                int t, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt,
                                MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || !host_bufs(oaddr, NULL, NULL)) return false;
    size_t n = dmpi_rma_fast_bytes(ocount, dmpi_rma_tinfo_of(odt)->size);
    if (!n || !oaddr || n != dmpi_rma_fast_bytes(tcount, dmpi_rma_tinfo_of(tdt)->size))
        return false;
    dmpi_win_target *tg = dmpi_rma_fast_target(w, t);
    char *p = tg ? dmpi_rma_fast_addr(tg, disp, n) : NULL;
    if (!p) return false;
    if (kind == K_PUT) {
        dmpi_rma_copy(p, oaddr, n);
        w->dirty = true;
    } else {
        dmpi_rma_copy(oaddr, p, n);
        if (!DMPI_RMA_TSO) w->dirty = true;
    }
    return true;
}

/* Accumulate (result NULL) and Get_accumulate on elements of one 4- or
 * 8-byte predefined type, the same type and count on every side. */
static inline bool fast_acc(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                            MPI_Count rcount, MPI_Datatype rdt, bool has_result, int t,
                            MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op oph,
                            MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || !host_bufs(oaddr, raddr, NULL)) return false;
    const dmpi_rma_tinfo *ti = dmpi_rma_tinfo_of(tdt);
    bool noop = oph == MPI_NO_OP;
    if (!(ti->ops & dmpi_rma_op_bit(oph)) || (noop && !has_result)) return false;
    if (!noop && (odt != tdt || ocount != tcount || !oaddr)) return false;
    if (has_result && (rdt != tdt || rcount != tcount || !raddr)) return false;
    size_t es = ti->size, n = dmpi_rma_fast_bytes(tcount, ti->size);
    dmpi_win_target *tg = n ? dmpi_rma_fast_target(w, t) : NULL;
    char *p = tg ? dmpi_rma_fast_addr(tg, disp, n) : NULL;
    if (!p || ((uintptr_t)p & (es - 1))) return false;
    /* under an exclusive lock the general path combines a long run of
     * elements without atomics (rma/ops_direct.c) */
    if (n >= DMPI_RMA_EXCLUSIVE_RUN && tg->lock == MPI_LOCK_EXCLUSIVE) return false;
    dmpi_rma_elem_ctx c = {ti->kind, dmpi_rma_op_kind(oph), NULL, NULL};
    for (size_t b = 0; b < n; b += es)
        dmpi_rma_elem_atomic(&c, p + b, noop ? NULL : (const char *)oaddr + b,
                             has_result ? (char *)raddr + b : NULL, es);
    if (!DMPI_RMA_TSO) w->dirty = true;
    return true;
}

static inline bool fast_fop(const void *oaddr, void *raddr, MPI_Datatype dt, int t,
                            MPI_Aint disp, MPI_Op oph, MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || !host_bufs(oaddr, raddr, NULL)) return false;
    const dmpi_rma_tinfo *ti = dmpi_rma_tinfo_of(dt);
    bool noop = oph == MPI_NO_OP;
    if (!(ti->ops & dmpi_rma_op_bit(oph)) || !raddr || (!oaddr && !noop)) return false;
    dmpi_win_target *tg = dmpi_rma_fast_target(w, t);
    char *p = tg ? dmpi_rma_fast_addr(tg, disp, ti->size) : NULL;
    if (!p || ((uintptr_t)p & (ti->size - 1u))) return false;
    dmpi_rma_elem_ctx c = {ti->kind, dmpi_rma_op_kind(oph), NULL, NULL};
    dmpi_rma_elem_atomic(&c, p, noop ? NULL : oaddr, raddr, ti->size);
    if (!DMPI_RMA_TSO) w->dirty = true;
    return true;
}

static inline bool fast_cas(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
                            int t, MPI_Aint disp, MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || !host_bufs(oaddr, caddr, raddr)) return false;
    const dmpi_rma_tinfo *ti = dmpi_rma_tinfo_of(dt);
    if (!ti->cas || !oaddr || !caddr || !raddr) return false;
    dmpi_win_target *tg = dmpi_rma_fast_target(w, t);
    char *p = tg ? dmpi_rma_fast_addr(tg, disp, ti->size) : NULL;
    if (!p || ((uintptr_t)p & (ti->size - 1u))) return false;
    if (ti->size == 8) {
        uint64_t exp, des;
        memcpy(&exp, caddr, 8);
        memcpy(&des, oaddr, 8);
        atomic_compare_exchange_strong((_Atomic uint64_t *)(void *)p, &exp, des);
        memcpy(raddr, &exp, 8); /* the old value, swapped or not */
    } else {
        uint32_t exp, des;
        memcpy(&exp, caddr, 4);
        memcpy(&des, oaddr, 4);
        atomic_compare_exchange_strong((_Atomic uint32_t *)(void *)p, &exp, des);
        memcpy(raddr, &exp, 4);
    }
    if (!DMPI_RMA_TSO) w->dirty = true;
    return true;
}

/* Buffer argument: count, committed datatype. */
static int get_buf(dmpi_win *w, void *buf, MPI_Count count, MPI_Datatype h, const char *which,
                   const char *fn, dmpi_rma_buf *out)
{
    DMPI_WCHECK(w, count >= 0, MPI_ERR_COUNT, fn, "negative %s count %lld", which,
                (long long)count);
    dmpi_datatype *dt = dmpi_dt_get(h);
    DMPI_WCHECK(w, dt, MPI_ERR_TYPE, fn, "invalid %s datatype%s", which,
                h == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    DMPI_WCHECK(w, dt->committed, MPI_ERR_TYPE, fn, "%s datatype not committed", which);
    DMPI_WCHECK(w, buf || count == 0 || !dt->builtin || which[0] == 't', MPI_ERR_BUFFER, fn,
                "NULL %s buffer with count %lld", which, (long long)count);
    *out = (dmpi_rma_buf){buf, count, dt};
    return MPI_SUCCESS;
}

/* Target rank (MPI_PROC_NULL: *skip) and, with the window locked, epoch. */
static int check_rank(dmpi_win *w, int t, const char *fn, bool *skip)
{
    *skip = t == MPI_PROC_NULL;
    DMPI_WCHECK(w, *skip || (t >= 0 && t < w->size), MPI_ERR_RANK, fn,
                "invalid target rank %d (window of %d processes)", t, w->size);
    return MPI_SUCCESS;
}

static int check_epoch(dmpi_win *w, int t, bool request_based, const char **why)
{
    if (request_based && !w->lock_all && !w->tgt[t].lock) {
        *why = "request-based operations need a passive-target epoch (MPI_Win_lock or "
               "MPI_Win_lock_all) on the target";
        return MPI_ERR_RMA_SYNC;
    }
    return dmpi_rma_access_ok(w, t, why);
}

/* A request that is complete already. */
static int done_request(dmpi_win *w, MPI_Request *req, const char *fn)
{
    dmpi_lock();
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_DONE);
    if (r) atomic_store(&r->complete, 1);
    dmpi_unlock();
    DMPI_WCHECK(w, r, MPI_ERR_NO_MEM, fn, "out of memory");
    *req = dmpi_request_handle(r);
    return MPI_SUCCESS;
}

__attribute__((noinline))
static int put_get(int kind, void *oaddr, MPI_Count ocount, MPI_Datatype odt, int t,
                   MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win,
                   MPI_Request *req, bool rq, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, fn);
    DMPI_WCHECK(w, !rq || req, MPI_ERR_ARG, fn, "request is NULL");
    dmpi_rma_buf o, tg;
    bool skip;
    int rc = get_buf(w, oaddr, ocount, odt, "origin", fn, &o);
    if (rc == MPI_SUCCESS) rc = get_buf(w, NULL, tcount, tdt, "target", fn, &tg);
    if (rc == MPI_SUCCESS) rc = check_rank(w, t, fn, &skip);
    if (rc != MPI_SUCCESS) return rc;
    rma_staging g = {{NULL}};
    if (!skip && (rc = stage(&g, 0, kind == K_GET, &o.buf, o.count, o.dt)) != MPI_SUCCESS)
        return stage_err(w, &g, rc, fn);
    char why[256];
    why[0] = '\0';
    const char *cwhy = NULL;
    if (!skip) {
        dmpi_lock();
        rc = check_epoch(w, t, rq, &cwhy);
        if (rc == MPI_SUCCESS)
            rc = kind == K_PUT ? dmpi_rma_put(w, o, t, disp, tg, why, sizeof why)
                               : dmpi_rma_get(w, o, t, disp, tg, why, sizeof why);
        /* a request, or a staged copy that goes away below: the transfer
         * must be over (it is at once unless t is on another node) */
        if (rc == MPI_SUCCESS && (rq || g.s[0])) dmpi_rma_net_wait_local(w, t);
        w->dirty = true;
        dmpi_unlock();
    }
    if (__builtin_expect(g.s[0] != NULL, 0)) {
        int src = unstage(&g, rc == MPI_SUCCESS);
        if (src != MPI_SUCCESS) return stage_err(w, &g, src, fn);
    }
    if (rc != MPI_SUCCESS)
        return dmpi_win_err(w, rc, fn, "%s", cwhy ? cwhy : why[0] ? why : "the access failed");
    return rq ? done_request(w, req, fn) : MPI_SUCCESS;
}

/* Accumulate (has_result false), Get_accumulate and Fetch_and_op. */
__attribute__((noinline))
static int acc_common(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                      MPI_Count rcount, MPI_Datatype rdt, bool has_result, int t, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op oph, MPI_Win win,
                      MPI_Request *req, bool rq, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, fn);
    DMPI_WCHECK(w, !rq || req, MPI_ERR_ARG, fn, "request is NULL");
    dmpi_op *op = dmpi_op_get(oph);
    DMPI_WCHECK(w, op, MPI_ERR_OP, fn, "invalid operation");
    bool noop = oph == MPI_NO_OP;
    DMPI_WCHECK(w, has_result || !noop, MPI_ERR_OP, fn,
                "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op");
    dmpi_rma_buf o = {NULL, 0, NULL}, res = {NULL, 0, NULL}, tg;
    bool skip;
    int rc = get_buf(w, NULL, tcount, tdt, "target", fn, &tg);
    if (rc == MPI_SUCCESS && !noop) rc = get_buf(w, (void *)oaddr, ocount, odt, "origin", fn, &o);
    if (rc == MPI_SUCCESS && has_result) rc = get_buf(w, raddr, rcount, rdt, "result", fn, &res);
    if (rc == MPI_SUCCESS) rc = check_rank(w, t, fn, &skip);
    if (rc != MPI_SUCCESS) return rc;
    rma_staging g = {{NULL}};
    if (!skip && ((rc = stage(&g, 0, false, &o.buf, o.count, o.dt)) != MPI_SUCCESS ||
                  (rc = stage(&g, 1, true, &res.buf, res.count, res.dt)) != MPI_SUCCESS))
        return stage_err(w, &g, rc, fn);
    char why[256];
    why[0] = '\0';
    const char *cwhy = NULL;
    if (!skip) {
        dmpi_lock();
        rc = check_epoch(w, t, rq, &cwhy);
        if (rc == MPI_SUCCESS)
            rc = dmpi_rma_acc(w, o, has_result ? &res : NULL, t, disp, tg, op, why, sizeof why);
        w->dirty = true;
        dmpi_unlock();
    }
    if (__builtin_expect(g.s[0] || g.s[1], 0)) {
        int src = unstage(&g, rc == MPI_SUCCESS);
        if (src != MPI_SUCCESS) return stage_err(w, &g, src, fn);
    }
    if (rc != MPI_SUCCESS)
        return dmpi_win_err(w, rc, fn, "%s", cwhy ? cwhy : why[0] ? why : "the access failed");
    return rq ? done_request(w, req, fn) : MPI_SUCCESS;
}

/* ------------------------------------------------------------ Put / Get */
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    FAST(fast_put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win));
    return put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL, false, "MPI_Put");
}
DMPI_ALIAS(Put)

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    FAST(fast_put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win));
    return put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL, false, "MPI_Put_c");
}
DMPI_ALIAS(Put_c)

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request, true, "MPI_Rput");
}
DMPI_ALIAS(Rput)

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get(K_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request, true, "MPI_Rput_c");
}
DMPI_ALIAS(Rput_c)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    FAST(fast_put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win));
    return put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL, false, "MPI_Get");
}
DMPI_ALIAS(Get)

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    FAST(fast_put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win));
    return put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL, false, "MPI_Get_c");
}
DMPI_ALIAS(Get_c)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request, true, "MPI_Rget");
}
DMPI_ALIAS(Rget)

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get(K_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request, true, "MPI_Rget_c");
}
DMPI_ALIAS(Rget_c)

/* ---------------------------------------------------------- accumulates */
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FAST(fast_acc(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, false,
                  target_rank, target_disp, target_count, target_datatype, op, win));
    return acc_common(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      false, target_rank, target_disp, target_count, target_datatype, op, win,
                      NULL, false, "MPI_Accumulate");
}
DMPI_ALIAS(Accumulate)

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win)
{
    FAST(fast_acc(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, false,
                  target_rank, target_disp, target_count, target_datatype, op, win));
    return acc_common(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      false, target_rank, target_disp, target_count, target_datatype, op, win,
                      NULL, false, "MPI_Accumulate_c");
}
DMPI_ALIAS(Accumulate_c)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return acc_common(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      false, target_rank, target_disp, target_count, target_datatype, op, win,
                      request, true, "MPI_Raccumulate");
}
DMPI_ALIAS(Raccumulate)

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    return acc_common(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      false, target_rank, target_disp, target_count, target_datatype, op, win,
                      request, true, "MPI_Raccumulate_c");
}
DMPI_ALIAS(Raccumulate_c)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FAST(fast_acc(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                  result_datatype, true, target_rank, target_disp, target_count, target_datatype,
                  op, win));
    return acc_common(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, true, target_rank, target_disp, target_count,
                      target_datatype, op, win, NULL, false, "MPI_Get_accumulate");
}
DMPI_ALIAS(Get_accumulate)

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    FAST(fast_acc(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                  result_datatype, true, target_rank, target_disp, target_count, target_datatype,
                  op, win));
    return acc_common(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, true, target_rank, target_disp, target_count,
                      target_datatype, op, win, NULL, false, "MPI_Get_accumulate_c");
}
DMPI_ALIAS(Get_accumulate_c)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    return acc_common(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, true, target_rank, target_disp, target_count,
                      target_datatype, op, win, request, true, "MPI_Rget_accumulate");
}
DMPI_ALIAS(Rget_accumulate)

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                           MPI_Request *request)
{
    return acc_common(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, true, target_rank, target_disp, target_count,
                      target_datatype, op, win, request, true, "MPI_Rget_accumulate_c");
}
DMPI_ALIAS(Rget_accumulate_c)

__attribute__((noinline))
static int fop_slow(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    static const char *const FN = "MPI_Fetch_and_op";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    dmpi_datatype *dt = dmpi_dt_get(datatype);
    DMPI_WCHECK(w, dt && dt->builtin, MPI_ERR_TYPE, FN, "the datatype must be predefined");
    dmpi_op *o = dmpi_op_get(op);
    DMPI_WCHECK(w, o, MPI_ERR_OP, FN, "invalid operation");
    DMPI_WCHECK(w, result_addr && (origin_addr || op == MPI_NO_OP), MPI_ERR_BUFFER, FN,
                "NULL buffer");
    bool skip;
    int rc = check_rank(w, target_rank, FN, &skip);
    if (rc != MPI_SUCCESS || skip) return rc;
    rma_staging g = {{NULL}};
    void *oa = (void *)origin_addr;
    if ((oa && (rc = stage(&g, 0, false, &oa, 1, dt)) != MPI_SUCCESS) ||
        (rc = stage(&g, 1, true, &result_addr, 1, dt)) != MPI_SUCCESS)
        return stage_err(w, &g, rc, FN);
    char why[256];
    why[0] = '\0';
    const char *cwhy = NULL;
    dmpi_lock();
    rc = check_epoch(w, target_rank, false, &cwhy);
    if (rc == MPI_SUCCESS)
        rc = dmpi_rma_fop(w, oa, result_addr, dt, target_rank, target_disp, o, why, sizeof why);
    w->dirty = true;
    dmpi_unlock();
    if (__builtin_expect(g.s[0] || g.s[1], 0)) {
        int src = unstage(&g, rc == MPI_SUCCESS);
        if (src != MPI_SUCCESS) return stage_err(w, &g, src, FN);
    }
    if (rc != MPI_SUCCESS)
        return dmpi_win_err(w, rc, FN, "%s", cwhy ? cwhy : why[0] ? why : "the access failed");
    return MPI_SUCCESS;
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    FAST(fast_fop(origin_addr, result_addr, datatype, target_rank, target_disp, op, win));
    return fop_slow(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}
DMPI_ALIAS(Fetch_and_op)

__attribute__((noinline))
static int cas_slow(const void *origin_addr, const void *compare_addr, void *result_addr,
                    MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char *const FN = "MPI_Compare_and_swap";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    dmpi_datatype *dt = dmpi_dt_get(datatype);
    DMPI_WCHECK(w, dt && dt->builtin, MPI_ERR_TYPE, FN, "the datatype must be predefined");
    /* integer, logical, byte and multi-language types: those BAND or LAND take */
    DMPI_WCHECK(w, dmpi_op_check(dmpi_op_builtin(MPI_BAND), dt, false) == MPI_SUCCESS ||
                       dmpi_op_check(dmpi_op_builtin(MPI_LAND), dt, false) == MPI_SUCCESS,
                MPI_ERR_TYPE, FN, "compare-and-swap takes integer, logical or byte types");
    DMPI_WCHECK(w, origin_addr && compare_addr && result_addr, MPI_ERR_BUFFER, FN,
                "NULL buffer");
    bool skip;
    int rc = check_rank(w, target_rank, FN, &skip);
    if (rc != MPI_SUCCESS || skip) return rc;
    rma_staging g = {{NULL}};
    void *oa = (void *)origin_addr, *ca = (void *)compare_addr;
    if ((rc = stage(&g, 0, false, &oa, 1, dt)) != MPI_SUCCESS ||
        (rc = stage(&g, 1, false, &ca, 1, dt)) != MPI_SUCCESS ||
        (rc = stage(&g, 2, true, &result_addr, 1, dt)) != MPI_SUCCESS)
        return stage_err(w, &g, rc, FN);
    char why[256];
    why[0] = '\0';
    const char *cwhy = NULL;
    dmpi_lock();
    rc = check_epoch(w, target_rank, false, &cwhy);
    if (rc == MPI_SUCCESS)
        rc = dmpi_rma_cas(w, oa, ca, result_addr, dt, target_rank, target_disp, why, sizeof why);
    w->dirty = true;
    dmpi_unlock();
    if (__builtin_expect(g.s[0] || g.s[1] || g.s[2], 0)) {
        int src = unstage(&g, rc == MPI_SUCCESS);
        if (src != MPI_SUCCESS) return stage_err(w, &g, src, FN);
    }
    if (rc != MPI_SUCCESS)
        return dmpi_win_err(w, rc, FN, "%s", cwhy ? cwhy : why[0] ? why : "the access failed");
    return MPI_SUCCESS;
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    FAST(fast_cas(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp,
                  win));
    return cas_slow(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp,
                    win);
}
DMPI_ALIAS(Compare_and_swap)
