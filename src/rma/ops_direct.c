/* The "direct" mover: the target's memory is mapped in this process (the
 * window segment of MPI_Win_allocate(_shared), the node's shared heap of
 * MPI_Alloc_mem, or this process's own memory), so put and get are typed
 * memory copies by the origin, and accumulates on 4- and 8-byte basic
 * types are C11 atomics on the target element: fetch_add/and/or/xor and
 * exchange where one instruction does it, a compare-and-swap loop for the
 * other operations (MIN, MAX, PROD, floating-point SUM, logical ops,
 * pairs ...). An element that is not naturally aligned cannot be an
 * atomic: it takes the window's stripe mutex for its address instead, as
 * every other origin does for it, so each location is always updated the
 * same way. The element atomic itself (dmpi_rma_elem_atomic) is in
 * rma/fast.h, shared with the fast paths of the API calls. Under this
 * origin's exclusive lock on the target nobody else may touch the
 * elements, so a run of them is combined by the op's plain loop instead. */
#include "rma/rma.h"
#include "rma/fast.h"
#include "coll/coll.h"

#include <string.h>
#include <sys/uio.h>

static int direct_put(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                      const void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    (void)w, (void)t;
    return dmpi_coll_copy(obuf, ocount, odt, (void *)taddr, tcount, tdt);
}

static int direct_get(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                      void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    (void)w, (void)t;
    return dmpi_coll_copy((const void *)taddr, tcount, tdt, obuf, ocount, odt);
}

/* ------------------------------------------------------------ element ops */
enum { K_RAW = DMPI_RMA_K_RAW, K_I32 = DMPI_RMA_K_I32, K_U32 = DMPI_RMA_K_U32,
       K_I64 = DMPI_RMA_K_I64, K_U64 = DMPI_RMA_K_U64, K_F32 = DMPI_RMA_K_F32,
       K_F64 = DMPI_RMA_K_F64 };
enum { O_OTHER = DMPI_RMA_O_OTHER, O_SUM = DMPI_RMA_O_SUM, O_PROD = DMPI_RMA_O_PROD,
       O_MIN = DMPI_RMA_O_MIN, O_MAX = DMPI_RMA_O_MAX, O_NO_OP = DMPI_RMA_O_NO_OP };

int dmpi_rma_type_kind(const dmpi_datatype *bdt)
{
    MPI_Datatype h = bdt->handle;
    if (h == MPI_INT || h == MPI_INT32_T || h == MPI_INTEGER || h == MPI_INTEGER4) return K_I32;
    if (h == MPI_UNSIGNED || h == MPI_UINT32_T) return K_U32;
    if (h == MPI_LONG || h == MPI_LONG_LONG || h == MPI_INT64_T || h == MPI_INTEGER8 ||
        h == MPI_AINT || h == MPI_OFFSET || h == MPI_COUNT)
        return K_I64;
    if (h == MPI_UNSIGNED_LONG || h == MPI_UNSIGNED_LONG_LONG || h == MPI_UINT64_T) return K_U64;
    if (h == MPI_FLOAT || h == MPI_REAL || h == MPI_REAL4) return K_F32;
    if (h == MPI_DOUBLE || h == MPI_DOUBLE_PRECISION || h == MPI_REAL8) return K_F64;
    return K_RAW;
}

/* Predefined types: from the table of rma/fast.h (filled at window creation). */
static int type_kind(const dmpi_datatype *bdt)
{
    if (bdt->builtin) {
        const dmpi_rma_tinfo *ti = dmpi_rma_tinfo_of(bdt->handle);
        if (ti->size) return ti->kind;
    }
    return dmpi_rma_type_kind(bdt);
}

/* *out = v op old for the arithmetic kinds; false: use dmpi_op_apply.
 * Integer arithmetic wraps (done in the unsigned type). */
#define ARITH(T, U)                                                             \
    do {                                                                        \
        T a, b, r;                                                              \
        memcpy(&a, v, sizeof a);                                                \
        memcpy(&b, old, sizeof b);                                              \
        switch (ok) {                                                           \
        case O_SUM: r = (T)((U)a + (U)b); break;                                \
        case O_PROD: r = (T)((U)a * (U)b); break;                               \
        case O_MIN: r = a < b ? a : b; break;                                   \
        case O_MAX: r = a > b ? a : b; break;                                   \
        default: return false;                                                  \
        }                                                                       \
        memcpy(out, &r, sizeof r);                                              \
        return true;                                                            \
    } while (0)

static bool arith(int tk, int ok, const void *v, const void *old, void *out)
{
    switch (tk) {
    case K_I32: ARITH(int32_t, uint32_t);
    case K_U32: ARITH(uint32_t, uint32_t);
    case K_I64: ARITH(int64_t, uint64_t);
    case K_U64: ARITH(uint64_t, uint64_t);
    case K_F32: ARITH(float, float);
    case K_F64: ARITH(double, double);
    default: return false;
    }
}

typedef dmpi_rma_elem_ctx elem_ctx;

void dmpi_rma_elem_compute(const elem_ctx *c, const void *v, const void *old, void *out,
                           size_t es)
{
    if (arith(c->tk, c->ok, v, old, out)) return;
    memcpy(out, old, es);
    dmpi_op_apply(c->op, v, out, 1, c->bdt); /* validity was checked */
}

static void compute(const elem_ctx *c, const void *v, const void *old, void *out, size_t es)
{
    dmpi_rma_elem_compute(c, v, old, out, es);
}

static void native_elem(const elem_ctx *c, char *p, const void *v, void *res, size_t es)
{
    dmpi_rma_elem_atomic(c, p, v, res, es);
}

static void locked_elem(dmpi_win *w, int t, const elem_ctx *c, char *p, const void *v,
                        void *res, size_t es)
{
    MPI_Aint lo = (MPI_Aint)((uintptr_t)p - w->tgt[t].base);
    dmpi_rma_acc_lock(w, t, lo, lo + (MPI_Aint)es);
    if (res) memcpy(res, p, es);
    if (c->ok != O_NO_OP) {
        unsigned char nv[8];
        compute(c, v, p, nv, es);
        memcpy(p, nv, es);
    }
    dmpi_rma_acc_unlock(w, t, lo, lo + (MPI_Aint)es);
}

/* One contiguous run of n elements at p; operand and result point at
 * its first element (or are NULL). Under this origin's exclusive lock on
 * the target no other process may access them until it is released
 * (MPI 4.1 sec. 12.5.3), so an aligned run is read and combined as a
 * whole with the op's plain loop (a 64 KiB MPI_SUM accumulate ran at
 * about 540 MB/s element by element); otherwise each element is one
 * atomic, or locked where it is not aligned. */
static void run_elems(dmpi_win *w, int t, const elem_ctx *c, char *p, MPI_Count n, size_t es,
                      const char *operand, char *result, bool exclusive)
{
    if (exclusive && ((uintptr_t)p & (es - 1)) == 0) {
        if (result) memcpy(result, p, (size_t)n * es);
        if (c->ok != O_NO_OP) dmpi_op_apply(c->op, operand, p, n, c->bdt); /* validity was checked */
        return;
    }
    for (MPI_Count i = 0; i < n; i++, p += es) {
        const void *v = operand ? operand + i * es : NULL;
        void *res = result ? result + i * es : NULL;
        if (((uintptr_t)p & (es - 1)) == 0) native_elem(c, p, v, res, es);
        else locked_elem(w, t, c, p, v, res, es);
    }
}

static int direct_atomic(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount,
                         dmpi_datatype *tdt, dmpi_datatype *bdt, dmpi_op *op,
                         const void *operand, void *result)
{
    size_t es = (size_t)bdt->size;
    if ((es != 4 && es != 8) || bdt->extent != (MPI_Aint)es) return DMPI_RMA_NOT_NATIVE;
    elem_ctx c = {type_kind(bdt), dmpi_rma_op_kind(op->handle), op, bdt};
    MPI_Count total = tcount * tdt->size, off = 0, i = 0;
    bool exclusive = w->tgt[t].lock == MPI_LOCK_EXCLUSIVE;
    const char *opd = operand;
    char *res = result;
    if (tdt->contiguous) { /* the usual case: no need to walk the type */
        run_elems(w, t, &c, (char *)taddr + tdt->true_lb, total / (MPI_Count)es, es, opd, res,
                  exclusive);
        return MPI_SUCCESS;
    }
    struct iovec iov[64];
    while (off < total) {
        MPI_Count cov = 0;
        int n = dmpi_dt_iov((const void *)taddr, tcount, tdt, off, iov, 64, &cov);
        if (n <= 0 || cov <= 0) return MPI_ERR_INTERN;
        for (int k = 0; k < n; k++) {
            MPI_Count run = (MPI_Count)(iov[k].iov_len / es);
            run_elems(w, t, &c, iov[k].iov_base, run, es, opd ? opd + i * es : NULL,
                      res ? res + i * es : NULL, exclusive);
            i += run;
        }
        off += cov;
    }
    return MPI_SUCCESS;
}

static int direct_cas(dmpi_win *w, int t, uintptr_t taddr, dmpi_datatype *bdt, const void *value,
                      const void *compare, void *result)
{
    (void)w, (void)t;
    size_t es = (size_t)bdt->size;
    if ((es != 4 && es != 8) || (taddr & (es - 1))) return DMPI_RMA_NOT_NATIVE;
    if (es == 4) {
        uint32_t exp, des;
        memcpy(&exp, compare, 4);
        memcpy(&des, value, 4);
        atomic_compare_exchange_strong((_Atomic uint32_t *)taddr, &exp, des);
        memcpy(result, &exp, 4); /* the old value, whether it was swapped or not */
    } else {
        uint64_t exp, des;
        memcpy(&exp, compare, 8);
        memcpy(&des, value, 8);
        atomic_compare_exchange_strong((_Atomic uint64_t *)taddr, &exp, des);
        memcpy(result, &exp, 8);
    }
    return MPI_SUCCESS;
}

static void direct_flush(dmpi_win *w, int t)
{
    (void)w, (void)t;
    atomic_thread_fence(memory_order_seq_cst);
}

const dmpi_rma_ops dmpi_rma_direct_ops = {
    .name = "direct",
    .put = direct_put,
    .get = direct_get,
    .atomic = direct_atomic,
    .cas = direct_cas,
    .flush = direct_flush,
};
