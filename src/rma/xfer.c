/* The communication operations, independent of how a target is reached:
 * type and range checks, the target address, and accumulates. An
 * accumulate goes element by element through the mover's native atomics
 * when the target's memory is mapped and the basic type has 4 or 8 bytes;
 * otherwise it takes the mutual exclusion of dmpi_rma_acc_lock for the
 * bytes it touches (stripes for mapped memory, the target's word for
 * memory reached by CMA), reads the target data, applies the operation
 * and writes it back. The choice depends only on the window, the target
 * and the basic type, so concurrent accumulates of the same type to one
 * location always exclude each other (element-wise atomicity), and every
 * origin's operations complete in the order they were issued (the
 * default accumulate_ordering rar,raw,war,waw holds). */
#include "rma/rma.h"
#include "coll/coll.h"
#include "core/op.h"
#include "transport/shm/heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dmpi_datatype *dmpi_rma_basic(const dmpi_datatype *dt)
{
    if (dt->builtin) return (dmpi_datatype *)dt;
    return dt->basic ? dmpi_dt_builtin((MPI_Datatype)(uintptr_t)dt->basic) : NULL;
}

static const char *type_name(const dmpi_datatype *dt)
{
    return dt->name[0] ? dt->name : "a derived datatype";
}

/* Address of count elements of dt at displacement disp of target t, after
 * checking that they lie in its window; lo/hi: the bytes touched, as
 * offsets from the target's window base (dynamic windows: addresses). */
static int locate(dmpi_win *w, int t, MPI_Aint disp, MPI_Count count, const dmpi_datatype *dt,
                  uintptr_t *addr, MPI_Aint *lo, MPI_Aint *hi, char *why, size_t whylen)
{
    const dmpi_win_target *tg = &w->tgt[t];
    MPI_Aint off, span_lo = dt->true_lb, span_hi = dt->true_lb + dt->true_extent, rep = 0;
    bool ovf = __builtin_mul_overflow(disp, tg->disp_unit, &off);
    if (count > 1) {
        ovf |= __builtin_mul_overflow((MPI_Aint)(count - 1), dt->extent, &rep);
        if (rep < 0) span_lo += rep;
        else span_hi += rep;
    }
    ovf |= __builtin_add_overflow(off, span_lo, lo) | __builtin_add_overflow(off, span_hi, hi);
    if (ovf) {
        snprintf(why, whylen, "target displacement %lld overflows the address space",
                 (long long)disp);
        return MPI_ERR_RMA_RANGE;
    }
    *addr = tg->base + (uintptr_t)off;
    if (count == 0 || dt->size == 0) return MPI_SUCCESS;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        if (!dmpi_win_dyn_contains(w, t, (uintptr_t)*lo, (uintptr_t)*hi)) {
            snprintf(why, whylen,
                     "addresses 0x%llx..0x%llx are not in memory attached to the window by "
                     "rank %d", (unsigned long long)*lo, (unsigned long long)*hi, t);
            return MPI_ERR_RMA_RANGE;
        }
    } else if (*lo < 0 || *hi > tg->size) {
        snprintf(why, whylen,
                 "bytes %lld..%lld are outside the %lld bytes of rank %d's window "
                 "(displacement %lld, unit %lld)", (long long)*lo, (long long)*hi,
                 (long long)tg->size, t, (long long)disp, (long long)tg->disp_unit);
        return MPI_ERR_RMA_RANGE;
    }
    return MPI_SUCCESS;
}

/* The mover for bytes [lo, hi) of t: memory a dynamic window attached
 * from the node's shared heap is mapped here at the same address. */
static const dmpi_rma_ops *mover(const dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi)
{
    const dmpi_rma_ops *ops = w->tgt[t].ops;
    if (ops == &dmpi_rma_cma_ops && w->flavor == MPI_WIN_FLAVOR_DYNAMIC &&
        dmpi_heap_contains((uint64_t)lo, (uint64_t)(hi - lo)))
        return &dmpi_rma_direct_ops;
    return ops;
}

/* In a window across nodes every operation also serves requests from the
 * other nodes: a rank that polls its own memory with one-sided calls
 * (a spin lock, a flag) must let the others' operations in. */
static void serve_others(dmpi_win *w)
{
    if (w->net) dmpi_progress();
}

static int same_size(dmpi_rma_buf a, dmpi_rma_buf b, const char *what, char *why, size_t whylen)
{
    MPI_Count x = a.count * a.dt->size, y = b.count * b.dt->size;
    if (x == y) return MPI_SUCCESS;
    snprintf(why, whylen, "the %s data (%lld bytes) and the target data (%lld bytes) differ",
             what, (long long)x, (long long)y);
    return MPI_ERR_TYPE;
}

int dmpi_rma_put(dmpi_win *w, dmpi_rma_buf o, int t, MPI_Aint disp, dmpi_rma_buf tg,
                 char *why, size_t whylen)
{
    serve_others(w);
    int rc = same_size(o, tg, "origin", why, whylen);
    uintptr_t addr;
    MPI_Aint lo, hi;
    if (rc == MPI_SUCCESS) rc = locate(w, t, disp, tg.count, tg.dt, &addr, &lo, &hi, why, whylen);
    if (rc != MPI_SUCCESS || tg.count * tg.dt->size == 0) return rc;
    return mover(w, t, lo, hi)->put(w, t, addr, tg.count, tg.dt, o.buf, o.count, o.dt);
}

int dmpi_rma_get(dmpi_win *w, dmpi_rma_buf o, int t, MPI_Aint disp, dmpi_rma_buf tg,
                 char *why, size_t whylen)
{
    serve_others(w);
    int rc = same_size(o, tg, "origin", why, whylen);
    uintptr_t addr;
    MPI_Aint lo, hi;
    if (rc == MPI_SUCCESS) rc = locate(w, t, disp, tg.count, tg.dt, &addr, &lo, &hi, why, whylen);
    if (rc != MPI_SUCCESS || tg.count * tg.dt->size == 0) return rc;
    return mover(w, t, lo, hi)->get(w, t, addr, tg.count, tg.dt, o.buf, o.count, o.dt);
}

/* ------------------------------------------------------------ accumulate */
static int check_basic(dmpi_rma_buf b, const dmpi_datatype *bdt, const char *what, char *why,
                       size_t whylen)
{
    if (b.count * b.dt->size == 0 || dmpi_rma_basic(b.dt) == bdt) return MPI_SUCCESS;
    snprintf(why, whylen, "the %s datatype (%s) is not made of the target's basic type %s", what,
             type_name(b.dt), type_name(bdt));
    return MPI_ERR_TYPE;
}

/* Is op defined on bdt (for accumulates)? The answers for the pairs
 * seen last are kept: the check is a table search, and accumulates in a
 * loop ask the same question every time. */
static bool op_ok(const dmpi_op *op, const dmpi_datatype *bdt)
{
    static struct { const dmpi_op *op; const dmpi_datatype *dt; } seen[8];
    unsigned i = (unsigned)(((uintptr_t)op >> 4) ^ ((uintptr_t)bdt >> 6)) & 7u;
    if (seen[i].op == op && seen[i].dt == bdt) return true;
    if (dmpi_op_check(op, bdt, true) != MPI_SUCCESS) return false;
    if (op->builtin && bdt->builtin) { /* never freed: safe to remember */
        seen[i].op = op;
        seen[i].dt = bdt;
    }
    return true;
}

/* Locked read-modify-write of n elements of bdt (arrays operand and
 * result, either may be NULL). */
static int locked_acc(dmpi_win *w, int t, uintptr_t addr, MPI_Aint lo, MPI_Aint hi,
                      dmpi_rma_buf tg, dmpi_datatype *bdt, MPI_Count n, dmpi_op *op,
                      const void *operand, void *result)
{
    const dmpi_rma_ops *ops = mover(w, t, lo, hi);
    size_t abytes = (size_t)(n * bdt->extent);
    /* In place only when the target is aligned for the element type (the
     * reduction kernels load whole elements). */
    uintptr_t first = addr + (uintptr_t)tg.dt->true_lb;
    size_t align = bdt->size >= 16 ? 16 : bdt->size >= 8 ? 8 : bdt->size >= 4 ? 4 : bdt->size >= 2 ? 2 : 1;
    bool inplace = ops == &dmpi_rma_direct_ops && tg.dt->contiguous && bdt->contiguous &&
                   first % align == 0;
    void *tmp = NULL, *cur = inplace ? (char *)addr + tg.dt->true_lb : (tmp = malloc(abytes));
    if (!cur) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    dmpi_rma_acc_lock(w, t, lo, hi);
    if (!inplace) rc = ops->get(w, t, addr, tg.count, tg.dt, cur, n, bdt);
    if (rc == MPI_SUCCESS && result) memcpy(result, cur, abytes);
    if (rc == MPI_SUCCESS && op->handle != MPI_NO_OP) {
        rc = dmpi_op_apply(op, operand, cur, n, bdt);
        if (rc == MPI_SUCCESS && !inplace) rc = ops->put(w, t, addr, tg.count, tg.dt, cur, n, bdt);
    }
    dmpi_rma_acc_unlock(w, t, lo, hi);
    free(tmp);
    return rc;
}

/* The accumulate of n elements of bdt at addr ([lo, hi) of t) by the
 * mover's native atomics (mapped memory, or a target on another node that
 * applies it itself), else locked. */
static int apply_acc(dmpi_win *w, int t, uintptr_t addr, MPI_Aint lo, MPI_Aint hi,
                     dmpi_rma_buf tg, dmpi_datatype *bdt, MPI_Count n, dmpi_op *op,
                     const void *operand, void *result)
{
    const dmpi_win_target *tt = &w->tgt[t];
    int rc = DMPI_RMA_NOT_NATIVE;
    if ((tt->mapped || tt->ops->remote) && tt->ops->atomic)
        rc = tt->ops->atomic(w, t, addr, tg.count, tg.dt, bdt, op, operand, result);
    if (rc == DMPI_RMA_NOT_NATIVE)
        rc = locked_acc(w, t, addr, lo, hi, tg, bdt, n, op, operand, result);
    return rc;
}

int dmpi_rma_acc_self(dmpi_win *w, uintptr_t addr, dmpi_datatype *bdt, MPI_Count n,
                      dmpi_op *op, const void *operand, void *result)
{
    MPI_Aint lo = (MPI_Aint)(addr - w->tgt[w->rank].base);
    dmpi_rma_buf tg = {NULL, n, bdt};
    return apply_acc(w, w->rank, addr, lo, lo + (MPI_Aint)(n * bdt->size), tg, bdt, n, op,
                     operand, result);
}

/* An array of n elements of bdt holding buffer b's data: b itself when
 * its layout already is one, else a copy in *alloc (filled if copy). */
static void *as_array(dmpi_rma_buf b, dmpi_datatype *bdt, MPI_Count n, void **alloc, bool copy)
{
    *alloc = NULL;
    if (b.dt->contiguous && bdt->contiguous) return (char *)b.buf + b.dt->true_lb;
    *alloc = malloc((size_t)(n * bdt->extent) + 1);
    if (*alloc && copy) dmpi_coll_copy(b.buf, b.count, b.dt, *alloc, n, bdt);
    return *alloc;
}

int dmpi_rma_acc(dmpi_win *w, dmpi_rma_buf o, const dmpi_rma_buf *res, int t, MPI_Aint disp,
                 dmpi_rma_buf tg, dmpi_op *op, char *why, size_t whylen)
{
    serve_others(w);
    bool noop = op->handle == MPI_NO_OP;
    if (!op->builtin) {
        snprintf(why, whylen, "accumulate operations take predefined operations only");
        return MPI_ERR_OP;
    }
    /* An empty accumulate moves nothing: any op/type pair is fine (as
     * MPICH and mpi4py expect), and a target type without elements (a
     * contiguous type of none) has no basic type to check. */
    bool empty = tg.count == 0 || tg.dt->size == 0;
    dmpi_datatype *bdt = dmpi_rma_basic(tg.dt);
    if (!bdt && !empty) {
        snprintf(why, whylen, "the target datatype mixes basic types");
        return MPI_ERR_TYPE;
    }
    if (!empty && !op_ok(op, bdt)) {
        snprintf(why, whylen, "%s is not defined on %s", dmpi_op_name(op), type_name(bdt));
        return MPI_ERR_OP;
    }
    int rc = MPI_SUCCESS;
    if (!noop && !empty) {
        rc = check_basic(o, bdt, "origin", why, whylen);
        if (rc == MPI_SUCCESS) rc = same_size(o, tg, "origin", why, whylen);
    }
    if (rc == MPI_SUCCESS && res) {
        if (!empty) rc = check_basic(*res, bdt, "result", why, whylen);
        if (rc == MPI_SUCCESS) rc = same_size(*res, tg, "result", why, whylen);
    }
    uintptr_t addr;
    MPI_Aint lo, hi;
    if (rc == MPI_SUCCESS) rc = locate(w, t, disp, tg.count, tg.dt, &addr, &lo, &hi, why, whylen);
    if (rc != MPI_SUCCESS || empty) return rc;
    MPI_Count n = tg.count * tg.dt->size / bdt->size;

    void *oalloc = NULL, *ralloc = NULL;
    const void *operand = noop ? NULL : as_array(o, bdt, n, &oalloc, true);
    void *result = res ? as_array(*res, bdt, n, &ralloc, false) : NULL;
    if ((!noop && !operand) || (res && !result)) {
        free(oalloc);
        free(ralloc);
        return MPI_ERR_NO_MEM;
    }
    rc = apply_acc(w, t, addr, lo, hi, tg, bdt, n, op, operand, result);
    if (rc == MPI_SUCCESS && ralloc) dmpi_coll_copy(ralloc, n, bdt, res->buf, res->count, res->dt);
    free(oalloc);
    free(ralloc);
    if (rc == MPI_ERR_OP)
        snprintf(why, whylen, "%s is not defined on %s", dmpi_op_name(op), type_name(bdt));
    return rc;
}

int dmpi_rma_fop(dmpi_win *w, const void *origin, void *result, dmpi_datatype *dt, int t,
                 MPI_Aint disp, dmpi_op *op, char *why, size_t whylen)
{
    serve_others(w);
    if (!op->builtin || !op_ok(op, dt)) {
        snprintf(why, whylen, "%s is not defined on %s", dmpi_op_name(op), type_name(dt));
        return MPI_ERR_OP;
    }
    uintptr_t addr;
    MPI_Aint lo, hi;
    int rc = locate(w, t, disp, 1, dt, &addr, &lo, &hi, why, whylen);
    if (rc != MPI_SUCCESS) return rc;
    if (op->handle == MPI_NO_OP) origin = NULL;
    dmpi_rma_buf tg = {NULL, 1, dt};
    return apply_acc(w, t, addr, lo, hi, tg, dt, 1, op, origin, result);
}

/* Compare-and-swap of one element at addr ([lo, hi) of t). */
static int apply_cas(dmpi_win *w, int t, uintptr_t addr, MPI_Aint lo, MPI_Aint hi,
                     dmpi_datatype *dt, const void *value, const void *compare, void *result)
{
    const dmpi_win_target *tt = &w->tgt[t];
    int rc = DMPI_RMA_NOT_NATIVE;
    if ((tt->mapped || tt->ops->remote) && tt->ops->cas)
        rc = tt->ops->cas(w, t, addr, dt, value, compare, result);
    if (rc != DMPI_RMA_NOT_NATIVE) return rc;
    _Alignas(16) unsigned char old[64];
    size_t es = (size_t)dt->size;
    if (es > sizeof old) return MPI_ERR_TYPE;
    const dmpi_rma_ops *ops = mover(w, t, lo, hi);
    dmpi_rma_acc_lock(w, t, lo, hi);
    rc = ops->get(w, t, addr, 1, dt, old, 1, dt);
    if (rc == MPI_SUCCESS && memcmp(old, compare, es) == 0)
        rc = ops->put(w, t, addr, 1, dt, value, 1, dt);
    dmpi_rma_acc_unlock(w, t, lo, hi);
    if (rc == MPI_SUCCESS) memcpy(result, old, es);
    return rc;
}

int dmpi_rma_cas_self(dmpi_win *w, uintptr_t addr, dmpi_datatype *dt, const void *value,
                      const void *compare, void *result)
{
    MPI_Aint lo = (MPI_Aint)(addr - w->tgt[w->rank].base);
    return apply_cas(w, w->rank, addr, lo, lo + (MPI_Aint)dt->size, dt, value, compare, result);
}

int dmpi_rma_cas(dmpi_win *w, const void *value, const void *compare, void *result,
                 dmpi_datatype *dt, int t, MPI_Aint disp, char *why, size_t whylen)
{
    serve_others(w);
    uintptr_t addr;
    MPI_Aint lo, hi;
    int rc = locate(w, t, disp, 1, dt, &addr, &lo, &hi, why, whylen);
    if (rc != MPI_SUCCESS) return rc;
    return apply_cas(w, t, addr, lo, hi, dt, value, compare, result);
}
