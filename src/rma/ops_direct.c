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
 * same way. */
#include "rma/rma.h"
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
enum { K_RAW, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64 };
enum { O_OTHER, O_SUM, O_PROD, O_MIN, O_MAX, O_BAND, O_BOR, O_BXOR, O_REPLACE, O_NO_OP };

static int type_kind_of(const dmpi_datatype *bdt)
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

/* The answer for the type seen last is kept (predefined types only). */
static int type_kind(const dmpi_datatype *bdt)
{
    static const dmpi_datatype *last;
    static int last_kind;
    if (bdt == last) return last_kind;
    int k = type_kind_of(bdt);
    if (bdt->builtin) {
        last_kind = k;
        last = bdt;
    }
    return k;
}

static int op_kind(const dmpi_op *op)
{
    MPI_Op h = op->handle;
    return h == MPI_SUM ? O_SUM : h == MPI_PROD ? O_PROD : h == MPI_MIN ? O_MIN
         : h == MPI_MAX ? O_MAX : h == MPI_BAND ? O_BAND : h == MPI_BOR ? O_BOR
         : h == MPI_BXOR ? O_BXOR : h == MPI_REPLACE ? O_REPLACE : h == MPI_NO_OP ? O_NO_OP
         : O_OTHER;
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

typedef struct elem_ctx {
    int tk, ok;
    dmpi_op *op;
    dmpi_datatype *bdt;
} elem_ctx;

static void compute(const elem_ctx *c, const void *v, const void *old, void *out, size_t es)
{
    if (arith(c->tk, c->ok, v, old, out)) return;
    memcpy(out, old, es);
    dmpi_op_apply(c->op, v, out, 1, c->bdt); /* validity was checked */
}

#define INTEGRAL(tk) ((tk) == K_I32 || (tk) == K_U32 || (tk) == K_I64 || (tk) == K_U64)

#define ELEM_ATOMIC(UT)                                                         \
    do {                                                                        \
        _Atomic UT *a = (_Atomic UT *)(void *)p;                                \
        UT x = 0, old;                                                          \
        if (v) memcpy(&x, v, sizeof x);                                         \
        if (c->ok == O_NO_OP) old = atomic_load(a);                             \
        else if (c->ok == O_REPLACE) old = atomic_exchange(a, x);               \
        else if (INTEGRAL(c->tk) && c->ok == O_SUM) old = atomic_fetch_add(a, x); \
        else if (INTEGRAL(c->tk) && c->ok == O_BAND) old = atomic_fetch_and(a, x); \
        else if (INTEGRAL(c->tk) && c->ok == O_BOR) old = atomic_fetch_or(a, x); \
        else if (INTEGRAL(c->tk) && c->ok == O_BXOR) old = atomic_fetch_xor(a, x); \
        else {                                                                  \
            old = atomic_load_explicit(a, memory_order_relaxed);                \
            UT nv;                                                              \
            do compute(c, &x, &old, &nv, sizeof nv);                            \
            while (!atomic_compare_exchange_weak(a, &old, nv));                 \
        }                                                                       \
        if (res) memcpy(res, &old, sizeof old);                                 \
    } while (0)

static void native_elem(const elem_ctx *c, char *p, const void *v, void *res, size_t es)
{
    if (es == 4) ELEM_ATOMIC(uint32_t);
    else ELEM_ATOMIC(uint64_t);
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

static int direct_atomic(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount,
                         dmpi_datatype *tdt, dmpi_datatype *bdt, dmpi_op *op,
                         const void *operand, void *result)
{
    size_t es = (size_t)bdt->size;
    if ((es != 4 && es != 8) || bdt->extent != (MPI_Aint)es) return DMPI_RMA_NOT_NATIVE;
    elem_ctx c = {type_kind(bdt), op_kind(op), op, bdt};
    MPI_Count total = tcount * tdt->size, off = 0, i = 0;
    if (tdt->contiguous) { /* the usual case: no need to walk the type */
        char *p = (char *)taddr + tdt->true_lb;
        for (MPI_Count b = 0; b < total; b += (MPI_Count)es, i++) {
            const void *v = operand ? (const char *)operand + i * es : NULL;
            void *res = result ? (char *)result + i * es : NULL;
            if (((uintptr_t)(p + b) & (es - 1)) == 0) native_elem(&c, p + b, v, res, es);
            else locked_elem(w, t, &c, p + b, v, res, es);
        }
        return MPI_SUCCESS;
    }
    struct iovec iov[64];
    while (off < total) {
        MPI_Count cov = 0;
        int n = dmpi_dt_iov((const void *)taddr, tcount, tdt, off, iov, 64, &cov);
        if (n <= 0 || cov <= 0) return MPI_ERR_INTERN;
        for (int k = 0; k < n; k++) {
            char *p = iov[k].iov_base;
            for (size_t b = 0; b + es <= iov[k].iov_len; b += es, i++) {
                const void *v = operand ? (const char *)operand + i * es : NULL;
                void *res = result ? (char *)result + i * es : NULL;
                if (((uintptr_t)(p + b) & (es - 1)) == 0) native_elem(&c, p + b, v, res, es);
                else locked_elem(w, t, &c, p + b, v, res, es);
            }
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
