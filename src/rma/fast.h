/* Fast paths of the small one-sided operations on memory mapped in this
 * process (windows of MPI_Win_allocate(_shared), MPI_Win_create on
 * MPI_Alloc_mem memory): the checks of an MPI_Put, MPI_Get, accumulate,
 * MPI_Fetch_and_op or MPI_Compare_and_swap of contiguous predefined
 * datatypes reduced to a handful of loads and compares, then a memcpy or
 * one C11 atomic on the target's memory. Whatever is not plainly valid
 * here (a bad argument, no epoch, out of range, derived datatypes,
 * unaligned atomics, memory reached by CMA, dynamic windows) returns
 * false and goes down the general path (api/rma.c -> rma/xfer.c), which
 * does the same thing more slowly or raises the right error. So the two
 * paths must agree: an element updated here with an atomic is one the
 * general path would also update with the same atomic (ops_direct.c uses
 * dmpi_rma_elem_atomic too).
 *
 * Flushes: every operation is complete when it returns, so MPI_Win_flush
 * only has to order memory. Stores by a put (or anything on the general
 * path) set w->dirty, and a flush issues a full fence only then. On x86
 * (DMPI_RMA_TSO) loads are never reordered with later accesses and a
 * locked read-modify-write is a full barrier, so gets and atomics leave
 * nothing for a flush to do; elsewhere they set dirty as well. With
 * MPI_THREAD_MULTIPLE the fast paths run under the big lock and flushes
 * always fence. */
#ifndef DMPI_RMA_FAST_H
#define DMPI_RMA_FAST_H

#include "rma/rma.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define DMPI_RMA_TSO 1
#else
#define DMPI_RMA_TSO 0
#endif

/* ------------------------------------------------- element atomics
 * Kinds of basic types that the direct mover updates with atomics, and
 * the operations it knows. */
enum { DMPI_RMA_K_RAW, DMPI_RMA_K_I32, DMPI_RMA_K_U32, DMPI_RMA_K_I64, DMPI_RMA_K_U64,
       DMPI_RMA_K_F32, DMPI_RMA_K_F64 };
/* Bytes from which an accumulate under this origin's exclusive lock leaves
 * the element-by-element fast path for the general one, which combines
 * the run with the op's plain loop (fewer, and an element atomic costs
 * about what the general path's set-up does). */
#define DMPI_RMA_EXCLUSIVE_RUN 1024

enum { DMPI_RMA_O_OTHER, DMPI_RMA_O_SUM, DMPI_RMA_O_PROD, DMPI_RMA_O_MIN, DMPI_RMA_O_MAX,
       DMPI_RMA_O_BAND, DMPI_RMA_O_BOR, DMPI_RMA_O_BXOR, DMPI_RMA_O_REPLACE, DMPI_RMA_O_NO_OP };

int dmpi_rma_type_kind(const dmpi_datatype *bdt); /* DMPI_RMA_K_* */

static inline int dmpi_rma_op_kind(MPI_Op h) /* DMPI_RMA_O_* */
{
    return h == MPI_SUM ? DMPI_RMA_O_SUM : h == MPI_PROD ? DMPI_RMA_O_PROD
         : h == MPI_MIN ? DMPI_RMA_O_MIN : h == MPI_MAX ? DMPI_RMA_O_MAX
         : h == MPI_BAND ? DMPI_RMA_O_BAND : h == MPI_BOR ? DMPI_RMA_O_BOR
         : h == MPI_BXOR ? DMPI_RMA_O_BXOR : h == MPI_REPLACE ? DMPI_RMA_O_REPLACE
         : h == MPI_NO_OP ? DMPI_RMA_O_NO_OP : DMPI_RMA_O_OTHER;
}

typedef struct dmpi_rma_elem_ctx {
    int tk, ok;          /* DMPI_RMA_K_*, DMPI_RMA_O_* */
    dmpi_op *op;         /* for operations of kind O_OTHER (NULL on the fast path) */
    dmpi_datatype *bdt;
} dmpi_rma_elem_ctx;

/* *out = v op old, for the compare-and-swap loop (ops_direct.c). */
void dmpi_rma_elem_compute(const dmpi_rma_elem_ctx *c, const void *v, const void *old, void *out,
                           size_t es);

#define DMPI_RMA_INTEGRAL(tk) ((tk) >= DMPI_RMA_K_I32 && (tk) <= DMPI_RMA_K_U64)

#define DMPI_RMA_ELEM_ATOMIC(UT)                                                          \
    do {                                                                                  \
        _Atomic UT *a = (_Atomic UT *)(void *)p;                                          \
        UT x = 0, old;                                                                    \
        bool integral_ = DMPI_RMA_INTEGRAL(c->tk);                                        \
        if (v) memcpy(&x, v, sizeof x);                                                   \
        if (c->ok == DMPI_RMA_O_NO_OP) old = atomic_load(a);                              \
        else if (c->ok == DMPI_RMA_O_REPLACE) old = atomic_exchange(a, x);                \
        else if (integral_ && c->ok == DMPI_RMA_O_SUM) old = atomic_fetch_add(a, x);      \
        else if (integral_ && c->ok == DMPI_RMA_O_BAND) old = atomic_fetch_and(a, x);     \
        else if (integral_ && c->ok == DMPI_RMA_O_BOR) old = atomic_fetch_or(a, x);       \
        else if (integral_ && c->ok == DMPI_RMA_O_BXOR) old = atomic_fetch_xor(a, x);     \
        else {                                                                            \
            old = atomic_load_explicit(a, memory_order_relaxed);                          \
            UT nv;                                                                        \
            do dmpi_rma_elem_compute(c, &x, &old, &nv, sizeof nv);                        \
            while (!atomic_compare_exchange_weak(a, &old, nv));                           \
        }                                                                                 \
        if (res) memcpy(res, &old, sizeof old);                                           \
    } while (0)

/* One naturally aligned element of 4 or 8 bytes at p: *res = old value
 * (res may be NULL), then *p = v op old (v NULL for MPI_NO_OP). */
static inline void dmpi_rma_elem_atomic(const dmpi_rma_elem_ctx *c, char *p, const void *v,
                                        void *res, size_t es)
{
    if (es == 8) DMPI_RMA_ELEM_ATOMIC(uint64_t);
    else DMPI_RMA_ELEM_ATOMIC(uint32_t);
}

/* ------------------------------------------------ predefined datatypes
 * Facts about the predefined datatypes, indexed by handle value (every
 * predefined datatype handle is below DMPI_RMA_NTYPES); filled when the
 * first window is made. Entry 0 and any invalid handle: all zero. */
#define DMPI_RMA_NTYPES 0x400

typedef struct dmpi_rma_tinfo {
    uint8_t size;  /* bytes of one element when a raw copy moves it (contiguous,
                      true_lb 0), else 0 */
    uint8_t kind;  /* DMPI_RMA_K_* when elements are 4- or 8-byte atomics, else RAW */
    bool cas;      /* MPI_Compare_and_swap takes it and it is a 4- or 8-byte atomic */
    uint32_t ops;  /* bit (op handle - MPI_OP_NULL): an accumulate operation defined
                      on it that dmpi_rma_elem_atomic does (kind != RAW only) */
} dmpi_rma_tinfo;

extern dmpi_rma_tinfo dmpi_rma_tinfo_tab[DMPI_RMA_NTYPES];
/* Fills the table once (window creation calls it). */
void dmpi_rma_fast_init(void);

static inline const dmpi_rma_tinfo *dmpi_rma_tinfo_of(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    return &dmpi_rma_tinfo_tab[v < DMPI_RMA_NTYPES ? v : 0];
}

/* Bit of op handle h in dmpi_rma_tinfo.ops (0 for non-predefined ops). */
static inline uint32_t dmpi_rma_op_bit(MPI_Op h)
{
    uintptr_t v = (uintptr_t)(void *)h - (uintptr_t)(void *)MPI_OP_NULL;
    return v < 32 ? (uint32_t)1 << v : 0;
}

/* ---------------------------------------------------------- the checks */
static inline bool dmpi_rma_fast_mt(void) { return dmpi_rt.locking; }
static inline bool dmpi_rma_fast_ready(void) { return dmpi_rt.initialized && !dmpi_rt.finalized; }

/* In an MPI entry point: return MPI_SUCCESS if `call` (a fast path: true
 * when it did the whole operation) succeeds; with MPI_THREAD_MULTIPLE it
 * runs under the big lock. */
#define DMPI_RMA_FAST_CALL(call)                                                     \
    do {                                                                             \
        if (__builtin_expect(!dmpi_rma_fast_mt(), 1)) {                              \
            if (__builtin_expect((call), 1)) return MPI_SUCCESS;                     \
        } else {                                                                     \
            dmpi_lock();                                                             \
            bool done_ = (call);                                                     \
            dmpi_unlock();                                                           \
            if (done_) return MPI_SUCCESS;                                           \
        }                                                                            \
    } while (0)

/* Target t of w when it is mapped here and an access epoch to it is open
 * (the conditions of dmpi_rma_access_ok), else NULL. Never in windows
 * across nodes: each of their calls also serves the other nodes' requests
 * (rma/xfer.c), which a rank polling its own memory would otherwise starve. */
static inline dmpi_win_target *dmpi_rma_fast_target(dmpi_win *w, int t)
{
    if ((unsigned)t >= (unsigned)w->size) return NULL;
    dmpi_win_target *tg = &w->tgt[t];
    if (!tg->fast || !(w->lock_all || tg->lock || tg->in_start || w->fence_open)) return NULL;
    return tg;
}

/* Address of bytes [disp * disp_unit, + bytes) of tg's window (bytes > 0),
 * or NULL when they are not all inside it. */
static inline char *dmpi_rma_fast_addr(const dmpi_win_target *tg, MPI_Aint disp, size_t bytes)
{
    MPI_Aint off;
    if (__builtin_mul_overflow(disp, tg->disp_unit, &off) || off < 0 ||
        (size_t)off > (size_t)tg->size || bytes > (size_t)tg->size - (size_t)off)
        return NULL;
    return (char *)tg->base + off;
}

/* Byte count of count elements of a type of `size` bytes (size 0: not a
 * raw-copy type), or 0 when the fast path does not take it. */
static inline size_t dmpi_rma_fast_bytes(MPI_Count count, unsigned size)
{
    return count > 0 && count < ((MPI_Count)1 << 40) ? (size_t)count * size : 0;
}

/* memmove with the common small sizes done inline (a put or get may be
 * inside the window itself, so overlap is possible). */
static inline void dmpi_rma_copy(void *d, const void *s, size_t n)
{
    switch (n) {
    case 1: memmove(d, s, 1); break;
    case 2: memmove(d, s, 2); break;
    case 4: memmove(d, s, 4); break;
    case 8: memmove(d, s, 8); break;
    case 16: memmove(d, s, 16); break;
    default: memmove(d, s, n); break;
    }
}

/* A flush of w: fences when something is pending. */
static inline void dmpi_rma_fast_flush(dmpi_win *w)
{
    if (dmpi_rma_fast_mt()) {
        atomic_thread_fence(memory_order_seq_cst);
    } else if (w->dirty) {
        atomic_thread_fence(memory_order_seq_cst);
        w->dirty = false;
    }
}

#endif
