/* Helpers of the collective entry points (see api/coll_api.h): argument
 * checks that raise the right error class, conversion of int arrays to
 * MPI_Count / MPI_Aint, and dmpi_coll_go, which builds the schedule of a
 * checked call and runs, starts or wraps it. */
#include "api/coll_api.h"

#include "accel/accel.h"
#include "coll/hier.h"

#include "core/info.h"
#include "core/op.h"

#include <stdlib.h>

int dmpi_coll_check_how(dmpi_comm *c, const dmpi_how *how)
{
    if (how->mode == DMPI_HOW_BLOCKING) return MPI_SUCCESS;
    DMPI_CHECK(c, how->req != NULL, MPI_ERR_ARG, how->fn, "request is NULL");
    if (how->mode == DMPI_HOW_PERSISTENT)
        DMPI_CHECK(c, how->info == MPI_INFO_NULL || dmpi_info_get(how->info), MPI_ERR_INFO,
                   how->fn, "invalid info object");
    return MPI_SUCCESS;
}

int dmpi_coll_check_type(dmpi_comm *c, MPI_Datatype h, dmpi_datatype **dt, const char *fn)
{
    DMPI_GET_DTYPE(*dt, c, h, fn);
    return MPI_SUCCESS;
}

int dmpi_coll_check_side(dmpi_comm *c, const void *buf, MPI_Count n, MPI_Datatype h,
                         dmpi_datatype **dt, const char *fn)
{
    DMPI_CHECK_COUNT(c, n, fn);
    DMPI_GET_DTYPE(*dt, c, h, fn);
    DMPI_CHECK_BUF(c, buf, n, *dt, fn);
    return MPI_SUCCESS;
}

int dmpi_coll_check_op(dmpi_comm *c, MPI_Op h, const dmpi_datatype *dt, dmpi_op **out,
                       const char *fn)
{
    dmpi_op *op = dmpi_op_get(h);
    if (!op)
        return dmpi_error(c, MPI_ERR_OP, fn, "invalid op%s",
                          h == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
    if (dmpi_op_check(op, dt, false) != MPI_SUCCESS)
        return dmpi_error(c, MPI_ERR_OP, fn, "%s is not defined on datatype %s",
                          dmpi_op_name(op), dt->name[0] ? dt->name : "(unnamed derived type)");
    *out = op;
    return MPI_SUCCESS;
}

static MPI_Count elem(dmpi_arr a, int i)
{
    return a.wide ? ((const MPI_Count *)a.p)[i] : ((const int *)a.p)[i];
}

int dmpi_coll_check_counts(dmpi_comm *c, dmpi_arr a, int n, const char *what, const char *fn)
{
    DMPI_CHECK(c, a.p || n == 0, MPI_ERR_ARG, fn, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        DMPI_CHECK(c, elem(a, i) >= 0, MPI_ERR_COUNT, fn, "%s[%d] is negative (%lld)", what, i,
                   (long long)elem(a, i));
    return MPI_SUCCESS;
}

int dmpi_coll_check_vbuf(dmpi_comm *c, const void *buf, dmpi_arr counts, int n,
                         const dmpi_datatype *dt, const char *what, const char *fn)
{
    if (buf || !dt->builtin) return MPI_SUCCESS; /* NULL is MPI_BOTTOM for derived types */
    for (int i = 0; i < n; i++)
        DMPI_CHECK(c, elem(counts, i) == 0, MPI_ERR_BUFFER, fn, "%s is NULL with a count of %lld",
                   what, (long long)elem(counts, i));
    return MPI_SUCCESS;
}

int dmpi_coll_check_displs(dmpi_comm *c, dmpi_arr a, int n, const char *what, const char *fn)
{
    DMPI_CHECK(c, a.p || n == 0, MPI_ERR_ARG, fn, "%s is NULL", what);
    return MPI_SUCCESS;
}

int dmpi_coll_check_types(dmpi_comm *c, const MPI_Datatype *h, dmpi_arr counts, int n,
                          const char *what, const char *fn)
{
    DMPI_CHECK(c, h || n == 0, MPI_ERR_ARG, fn, "%s is NULL", what);
    for (int i = 0; i < n; i++) {
        if (elem(counts, i) == 0) continue;
        dmpi_datatype *dt = dmpi_dt_get(h[i]);
        DMPI_CHECK(c, dt, MPI_ERR_TYPE, fn, "%s[%d] is not a valid datatype", what, i);
        DMPI_CHECK(c, dt->committed, MPI_ERR_TYPE, fn, "%s[%d] is not committed", what, i);
    }
    return MPI_SUCCESS;
}

int dmpi_coll_check_root(dmpi_comm *c, int root, const char *fn)
{
    if (!c->remote_group) {
        DMPI_CHECK_ROOT(c, root, fn);
        return MPI_SUCCESS;
    }
    int q = c->remote_group->size;
    DMPI_CHECK(c, root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < q),
               MPI_ERR_ROOT, fn,
               "invalid root %d (intercommunicator: MPI_ROOT, MPI_PROC_NULL or a rank of the "
               "remote group of size %d)", root, q);
    return MPI_SUCCESS;
}

int dmpi_coll_not_in_place(dmpi_comm *c, const void *buf, const char *what, const char *fn)
{
    DMPI_CHECK(c, buf != MPI_IN_PLACE, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed as %s%s",
               what, c && c->remote_group ? " on an intercommunicator" : "");
    return MPI_SUCCESS;
}

int dmpi_coll_no_alias(dmpi_comm *c, const void *sbuf, const void *rbuf, MPI_Count n,
                       const char *fn)
{
    DMPI_CHECK(c, sbuf != rbuf || n == 0 || sbuf == NULL, MPI_ERR_BUFFER, fn,
               "the send and receive buffers are the same; use MPI_IN_PLACE");
    return MPI_SUCCESS;
}

int dmpi_coll_check_intra(dmpi_comm *c, const char *fn)
{
    DMPI_CHECK(c, !c->remote_group, MPI_ERR_COMM, fn,
               "not defined on an intercommunicator");
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ conversion */
static void *owned(dmpi_coll_call *k, size_t bytes)
{
    void *p = k->nowned < (int)(sizeof k->owned / sizeof k->owned[0]) ? malloc(bytes ? bytes : 1)
                                                                       : NULL;
    if (!p) k->oom = true;
    else k->owned[k->nowned++] = p;
    return p;
}

const MPI_Count *dmpi_coll_counts(dmpi_coll_call *k, dmpi_arr a, int n)
{
    if (!a.p) return NULL;
    if (a.wide) return a.p;
    MPI_Count *out = owned(k, (size_t)n * sizeof *out);
    if (out)
        for (int i = 0; i < n; i++) out[i] = ((const int *)a.p)[i];
    return out;
}

const MPI_Aint *dmpi_coll_displs(dmpi_coll_call *k, dmpi_arr a, int n)
{
    if (!a.p) return NULL;
    if (a.wide) return a.p;
    MPI_Aint *out = owned(k, (size_t)n * sizeof *out);
    if (out)
        for (int i = 0; i < n; i++) out[i] = ((const int *)a.p)[i];
    return out;
}

dmpi_datatype *const *dmpi_coll_types(dmpi_coll_call *k, const MPI_Datatype *h, dmpi_arr counts,
                                      int n)
{
    dmpi_datatype **out = owned(k, (size_t)n * sizeof *out);
    if (!out) return NULL;
    for (int i = 0; i < n; i++)
        out[i] = elem(counts, i) == 0 ? dmpi_coll_byte() : dmpi_dt_get(h[i]);
    if (k->ntarr < 2) { /* held by nonblocking and persistent calls */
        k->tarr[k->ntarr] = out;
        k->tlen[k->ntarr++] = n;
    }
    return out;
}

/* ------------------------------------------------------------------ go */
static int coll_failed(dmpi_comm *c, int rc, const char *fn)
{
    int cls = dmpi_error_class_of(rc);
    const char *why = cls == MPI_ERR_TRUNCATE ? "a message was longer than its receive buffer: "
                                                "counts or datatypes differ between processes"
                      : cls == MPI_ERR_NO_MEM ? "out of memory for temporary buffers"
                      : cls == MPI_ERR_OP     ? "the op failed on this datatype"
                      : cls == MPI_ERR_TOPOLOGY ? "the communicator has no topology"
                      : cls == MPI_ERR_COMM ? "not defined on this communicator"
                                              : "communication with another member failed";
    return dmpi_error(c, cls, fn, "%s", why);
}

static void hold_all(dmpi_sched *s, const dmpi_coll_call *k)
{
    dmpi_sched_hold_dt(s, k->a.sdt);
    dmpi_sched_hold_dt(s, k->a.rdt);
    dmpi_sched_hold_op(s, k->a.op);
    for (int t = 0; t < k->ntarr; t++)
        for (int i = 0; i < k->tlen[t]; i++) dmpi_sched_hold_dt(s, k->tarr[t][i]);
}

int dmpi_coll_drop(dmpi_coll_call *k, int rc)
{
    for (int i = 0; i < k->nowned; i++) free(k->owned[i]);
    k->nowned = 0;
    return rc;
}

/* The body of dmpi_coll_go; st: the call's device staging (NULL, a
 * constant on the host path, where this compiles to what it was). */
static inline __attribute__((always_inline)) int go(dmpi_coll_call *k, dmpi_coll_stage *st)
{
    int rc = MPI_SUCCESS;
    dmpi_lock();
    dmpi_sched *s = NULL;
    if (k->oom) {
        rc = MPI_ERR_NO_MEM;
    } else if (k->how.mode == DMPI_HOW_BLOCKING) {
        rc = dmpi_coll_run(k->c, &k->a);
    } else if (!(s = dmpi_sched_new())) {
        rc = MPI_ERR_NO_MEM;
    } else {
        hold_all(s, k);
        if (!dmpi_coll_hier_sched(s, k->c, &k->a)) dmpi_coll_sched(s, k->c, &k->a);
        dmpi_request *r;
        rc = dmpi_sched_post(s, k->c, k->how.mode == DMPI_HOW_PERSISTENT, &r);
        if (rc == MPI_SUCCESS) *k->how.req = dmpi_request_handle(r);
        if (st && rc == MPI_SUCCESS) { /* the request copies back and frees */
            dmpi_coll_stage_attach(r, st);
            st = NULL;
        }
    }
    dmpi_unlock();
    dmpi_coll_drop(k, rc);
    if (st) { /* blocking, or failed */
        int src = rc == MPI_SUCCESS ? dmpi_coll_stage_end(st) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) dmpi_coll_stage_free(st);
        if (src != MPI_SUCCESS) return dmpi_coll_stage_error(k->c, src, k->how.fn);
    }
    return rc == MPI_SUCCESS ? rc : coll_failed(k->c, rc, k->how.fn);
}

/* A device backend is on: stage the call's device buffers, if any. */
__attribute__((noinline)) static int go_staged(dmpi_coll_call *k)
{
    dmpi_coll_stage *st = NULL;
    int rc = k->oom ? MPI_SUCCESS : dmpi_coll_stage_begin(k, &st);
    if (rc != MPI_SUCCESS) {
        dmpi_coll_drop(k, rc);
        return dmpi_coll_stage_error(k->c, rc, k->how.fn);
    }
    return st ? go(k, st) : go(k, NULL);
}

int dmpi_coll_go(dmpi_coll_call *k)
{
    if (__builtin_expect(dmpi_accel_on, 0)) return go_staged(k);
    return go(k, NULL);
}
