/* One-sided communication (MPI 4.1 chapter 12), internal interface of
 * src/rma: the window object, the control block every window keeps in a
 * shared-memory segment of its own, the epoch state, and the small table
 * of data movers (dmpi_rma_ops) through which every access to a target's
 * memory goes.
 *
 * Truly one-sided: a target never has to call MPI for an access to
 * complete. Window memory from MPI_Win_allocate(_shared) lies in the
 * window's segment, mapped by every rank, so an access is a memcpy (or a
 * C11 atomic) by the origin (ops "direct"); memory the user gave to
 * MPI_Win_create or attached to a dynamic window is reached with
 * process_vm_readv/writev (ops "cma"). Locks (MPI_Win_lock), PSCW
 * counters, the barrier of MPI_Win_fence and the mutexes of accumulates
 * live in the control block, never in messages. Every operation is
 * complete when its call returns, so flushes only order memory. The
 * common small operations take the short paths of rma/fast.h.
 *
 * Another transport (RDMA between nodes) plugs in as a further
 * dmpi_rma_ops; the epoch logic (sync.c) and the argument checks
 * (xfer.c, api/rma.c) do not change. */
#ifndef DMPI_RMA_H
#define DMPI_RMA_H

#include "core/dmpi.h"
#include "core/info.h"
#include "transport/transport.h"

#define DMPI_MAGIC_WIN 0x57494e5fu
/* dmpi_errhandler.kind of a handler made by MPI_Win_create_errhandler
 * (its comm_fn holds the MPI_Win_errhandler_function). */

struct dmpi_win;

/* --------------------------------------------------------------- movers
 * Target addresses (taddr) are what the mover uses: an address in the
 * target process for cma, an address in this process for direct (see
 * dmpi_win_target.base). Both sides may be derived datatypes; the packed
 * sizes are equal (checked by the caller). All return MPI error classes. */
typedef struct dmpi_rma_ops {
    const char *name;
    bool remote;          /* the target is on another node: atomic and cas
                           * serve every accumulate (there is no control
                           * block of the target's here to lock) */
    int (*put)(struct dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount,
               dmpi_datatype *tdt, const void *obuf, MPI_Count ocount, dmpi_datatype *odt);
    int (*get)(struct dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount,
               dmpi_datatype *tdt, void *obuf, MPI_Count ocount, dmpi_datatype *odt);
    /* Element-wise atomic read-modify-write of the n basic elements (type
     * bdt) that tcount elements of tdt cover at taddr: for each element i,
     * result[i] = old value (if result), then target = operand[i] op old
     * (operand NULL for MPI_NO_OP). operand and result are arrays of n
     * bdt. DMPI_RMA_NOT_NATIVE (before touching anything) when this mover
     * cannot do it for bdt; the caller then locks and uses get + put. */
    int (*atomic)(struct dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount,
                  dmpi_datatype *tdt, dmpi_datatype *bdt, dmpi_op *op,
                  const void *operand, void *result);
    /* One element of bdt: result = old; if old == compare, target = value. */
    int (*cas)(struct dmpi_win *w, int t, uintptr_t taddr, dmpi_datatype *bdt,
               const void *value, const void *compare, void *result);
    /* Makes this process's completed accesses to t visible at t. */
    void (*flush)(struct dmpi_win *w, int t);
    /* MPI_Win_lock's lock of t's memory, where it is not a word of this
     * node's control block (NULL: it is). */
    void (*lock)(struct dmpi_win *w, int t, int type);
    void (*unlock)(struct dmpi_win *w, int t, int type);
} dmpi_rma_ops;

#define DMPI_RMA_NOT_NATIVE (-1)
extern const dmpi_rma_ops dmpi_rma_direct_ops, dmpi_rma_cma_ops, dmpi_rma_net_ops;

/* --------------------------------------------------------- control block
 * Lives at the start of the window's segment (rma/seg.c). Per rank: */
typedef struct dmpi_win_ctl_rank {
    _Alignas(64) _Atomic uint64_t rwlock; /* passive-target lock of this rank's memory */
    _Atomic uint32_t acc_lock;            /* read-modify-write mutex (cma-reached memory) */
    _Atomic uint32_t attach_seq;          /* dynamic windows: seqlock of the attach table */
    _Atomic uint32_t nattach;             /* its regions */
    _Atomic uint64_t attach_tab;          /* its address in the owner (dmpi_win_span[nattach]) */
} dmpi_win_ctl_rank;

/* A region attached to a dynamic window: [base, base + len). */
typedef struct dmpi_win_span {
    uint64_t base, len;
} dmpi_win_span;

/* An origin's copy of a target's attach table, valid while the target's
 * attach_seq still reads seq (rma/win.c). */
typedef struct dmpi_win_dyn_cache {
    uint32_t seq, n, cap;
    dmpi_win_span *v;
} dmpi_win_dyn_cache;

#define DMPI_RWLOCK_EXCL (1ull << 63)

/* ------------------------------------------------------------- targets */
typedef struct dmpi_win_target {
    uintptr_t base;       /* window memory start for the mover (dynamic: 0) */
    MPI_Aint size;        /* bytes (dynamic: 0, see the attach table) */
    MPI_Aint disp_unit;
    MPI_Aint qsize;       /* Win_shared_query: bytes, and its local address */
    void *qbase;
    bool mapped;          /* its memory is in the segment (stripes guard accumulates) */
    bool fast;            /* mapped, in a window on one node: the paths of rma/fast.h */
    const dmpi_rma_ops *ops;
    dmpi_rts_info remote; /* on another node: its memory's network address and key */
    int world;            /* MPI_COMM_WORLD rank (pid table index) */
    int lock;             /* my passive-target lock on it: 0 or MPI_LOCK_* */
    bool lock_nocheck;    /* taken with MPI_MODE_NOCHECK: nothing to release */
    bool in_start;        /* in the group of my MPI_Win_start */
    bool in_post;         /* in the group of my MPI_Win_post */
    uint32_t post_seen;   /* its posts to me consumed by my starts */
    uint32_t complete_seen; /* its completes to me consumed by my waits */
} dmpi_win_target;

/* Info hints (MPI 4.1 section 12.2.1). */
typedef struct dmpi_win_hints {
    bool no_locks, same_size, same_disp_unit, alloc_shared_noncontig;
    bool same_op;                 /* accumulate_ops = same_op */
    char acc_ordering[32];        /* "rar,raw,war,waw" (default) or "none" */
} dmpi_win_hints;

typedef struct dmpi_win {
    uint32_t magic;
    int flavor;                   /* MPI_WIN_FLAVOR_* */
    dmpi_comm *comm;              /* private duplicate of the creating communicator */
    int rank, size;
    void *base;                   /* my memory */
    MPI_Aint bytes, disp_unit;
    dmpi_win_target *tgt;         /* [size] */
    /* windows whose ranks span nodes (rma/net.c): the ranks of my node
     * (they share the segment) and the network state; NULL otherwise */
    dmpi_comm *node_comm;
    struct dmpi_win_net *net;
    /* the segment (of my node's ranks) */
    void *seg;
    size_t seg_bytes;
    struct dmpi_win_ctl *ctl;
    dmpi_win_ctl_rank *ctl_rank;  /* [size] */
    _Atomic uint32_t *stripes;    /* accumulate mutexes, DMPI_WIN_STRIPE_STRIDE apart */
    unsigned nstripes;
    _Atomic uint32_t *post;       /* [target * size + origin] posts made */
    _Atomic uint32_t *complete;   /* [target * size + origin] completes made */
    /* dynamic windows: my attached regions, sorted by (base, len), in
     * private memory (published in my ctl_rank record); copies of the
     * other ranks' tables */
    dmpi_win_span *attach;
    uint32_t nattach, attach_cap;
    dmpi_win_dyn_cache *dyn;      /* [size] */
    bool bar_sense;
    /* epochs */
    bool fence_open;              /* after a fence without MPI_MODE_NOSUCCEED */
    int nlocked;                  /* targets locked one by one */
    bool lock_all, lock_all_nocheck;
    bool started, posted;         /* PSCW access / exposure epoch open */
    int post_nocheck;
    bool dirty;                   /* stores since the last fence (rma/fast.h) */
    bool all_mapped;              /* every target's memory is mapped here */
    /* user-visible things */
    dmpi_win_hints hints;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    dmpi_errhandler *errh;
    char name[MPI_MAX_OBJECT_NAME];
    void *attrs;
} dmpi_win;

#define DMPI_WIN_STRIPE_STRIDE 16 /* uint32 words: one mutex per 64 bytes */

static inline MPI_Win dmpi_win_handle(dmpi_win *w) { return (MPI_Win)(void *)w; }
/* The window behind a handle, or NULL. */
static inline dmpi_win *dmpi_win_get(MPI_Win h)
{
    if ((uintptr_t)(void *)h < 0x1000) return NULL;
    dmpi_win *w = (dmpi_win *)(void *)h;
    return w->magic == DMPI_MAGIC_WIN ? w : NULL;
}

/* ------------------------------------------------------ creation (win.c) */
/* Collective over comm (an intracommunicator). flavor is MPI_WIN_FLAVOR_*;
 * base is the user's memory for CREATE; for ALLOCATE and SHARED the new
 * memory's address goes to *baseptr. info may be NULL. Returns an MPI
 * error class; *why says what went wrong. */
int dmpi_win_create(dmpi_comm *comm, int flavor, void *base, MPI_Aint size,
                    MPI_Aint disp_unit, dmpi_info *info, void **baseptr, dmpi_win **out,
                    char *why, size_t whylen);
/* Collective; the caller checked the epochs. */
int dmpi_win_free(dmpi_win *w);
/* Dynamic windows: MPI_SUCCESS or MPI_ERR_RMA_ATTACH (why says why). */
int dmpi_win_attach(dmpi_win *w, void *base, MPI_Aint size, const char **why);
int dmpi_win_detach(dmpi_win *w, const void *base);
/* Is [lo, hi) inside memory t has attached (one region, or adjacent ones)? */
bool dmpi_win_dyn_contains(dmpi_win *w, int t, uintptr_t lo, uintptr_t hi);
/* The same question of a table v of n regions (sorted, see win.c); the
 * index of the region holding lo goes to *first. */
bool dmpi_win_span_covered(const dmpi_win_span *v, uint32_t n, uint64_t lo, uint64_t hi,
                           uint32_t *first);

/* ----------------------------------------------------- segment (seg.c) */
/* Bytes of the control part for size ranks (page multiple). */
size_t dmpi_win_ctl_bytes(int size);
/* Fills w's pointers into a mapped segment; init: also writes the header
 * (the creating rank). */
void dmpi_win_ctl_attach(dmpi_win *w, bool init, size_t bytes);
/* Creates (O_EXCL, 0600) and maps a segment of `bytes` named `name`;
 * or maps an existing one. MPI_SUCCESS, MPI_ERR_NO_MEM or MPI_ERR_OTHER
 * (why says why). */
int dmpi_win_seg_create(const char *name, size_t bytes, void **out, char *why, size_t whylen);
int dmpi_win_seg_map(const char *name, size_t bytes, void **out, char *why, size_t whylen);
/* Barrier of the window's ranks in its control block (progresses p2p). */
void dmpi_win_barrier(dmpi_win *w);

/* ------------------------------------------- locks of the control block */
/* MPI_Win_lock's lock of t (through the mover where t is on another node). */
void dmpi_rma_rwlock_acquire(dmpi_win *w, int t, int type);
void dmpi_rma_rwlock_release(dmpi_win *w, int t, int type);
/* The lock word of t in this node's control block: one attempt; release. */
bool dmpi_rma_rwlock_try(dmpi_win *w, int t, int type);
void dmpi_rma_rwlock_release_word(dmpi_win *w, int t, int type);
/* Mutual exclusion for a read-modify-write of [lo, hi) (target-relative
 * offsets) at t: stripes by address for mapped memory, the target's
 * acc_lock word otherwise. Unlock with the same arguments. */
void dmpi_rma_acc_lock(dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi);
void dmpi_rma_acc_unlock(dmpi_win *w, int t, MPI_Aint lo, MPI_Aint hi);
/* Short backoff for spin loops that hold window state (never sleeps long). */
void dmpi_rma_backoff(unsigned *spins);

/* --------------------------------------------------- epochs (sync.c)
 * All return MPI error classes; *why (a constant) explains RMA_SYNC. */
int dmpi_rma_access_ok(dmpi_win *w, int t, const char **why);
int dmpi_rma_fence(dmpi_win *w, int assert_, const char **why);
int dmpi_rma_post(dmpi_win *w, const int *ranks, int n, int assert_, const char **why);
int dmpi_rma_start(dmpi_win *w, const int *ranks, int n, int assert_, const char **why);
int dmpi_rma_complete(dmpi_win *w, const char **why);
int dmpi_rma_wait(dmpi_win *w, bool test_only, int *flag, const char **why);
int dmpi_rma_lock(dmpi_win *w, int type, int t, int assert_, const char **why);
int dmpi_rma_unlock(dmpi_win *w, int t, const char **why);
int dmpi_rma_lock_all(dmpi_win *w, int assert_, const char **why);
int dmpi_rma_unlock_all(dmpi_win *w, const char **why);
/* t = -1: all targets; local: flush_local. */
int dmpi_rma_flush(dmpi_win *w, int t, const char **why);
/* Can w be freed (no lock held, no PSCW epoch open)? */
int dmpi_rma_free_ok(dmpi_win *w, const char **why);

/* ---------------------------------------------- operations (xfer.c)
 * The target's rank t is valid (not MPI_PROC_NULL) and the epoch allows
 * the access. Return MPI error classes; why (buffer) says what is wrong. */
typedef struct dmpi_rma_buf {
    void *buf;
    MPI_Count count;
    dmpi_datatype *dt;
} dmpi_rma_buf;

int dmpi_rma_put(dmpi_win *w, dmpi_rma_buf o, int t, MPI_Aint disp, dmpi_rma_buf tg,
                 char *why, size_t whylen);
int dmpi_rma_get(dmpi_win *w, dmpi_rma_buf o, int t, MPI_Aint disp, dmpi_rma_buf tg,
                 char *why, size_t whylen);
/* Accumulate (result NULL) and Get_accumulate; origin ignored for
 * MPI_NO_OP. */
int dmpi_rma_acc(dmpi_win *w, dmpi_rma_buf o, const dmpi_rma_buf *result, int t, MPI_Aint disp,
                 dmpi_rma_buf tg, dmpi_op *op, char *why, size_t whylen);
/* Fetch_and_op: one element of the predefined type dt (origin NULL for
 * MPI_NO_OP); the short path of dmpi_rma_acc. */
int dmpi_rma_fop(dmpi_win *w, const void *origin, void *result, dmpi_datatype *dt, int t,
                 MPI_Aint disp, dmpi_op *op, char *why, size_t whylen);
int dmpi_rma_cas(dmpi_win *w, const void *value, const void *compare, void *result,
                 dmpi_datatype *dt, int t, MPI_Aint disp, char *why, size_t whylen);
/* The predefined type an accumulate works element by element on, or NULL
 * when dt mixes basic types. */
dmpi_datatype *dmpi_rma_basic(const dmpi_datatype *dt);
/* An accumulate (n contiguous elements of bdt at addr) or compare-and-swap
 * applied by the target to its own memory, as a node-local origin would:
 * for requests from other nodes (rma/net.c). */
int dmpi_rma_acc_self(dmpi_win *w, uintptr_t addr, dmpi_datatype *bdt, MPI_Count n,
                      dmpi_op *op, const void *operand, void *result);
int dmpi_rma_cas_self(dmpi_win *w, uintptr_t addr, dmpi_datatype *dt, const void *value,
                      const void *compare, void *result);

/* ----------------------------------- windows across nodes (rma/net.c) */
/* Collective: registers my memory with the network and learns every
 * remote target's address and key (targets with the net mover). */
int dmpi_rma_net_open(dmpi_win *w, char *why, size_t whylen);
void dmpi_rma_net_close(dmpi_win *w);
/* Every operation to every target on another node done at the target. */
void dmpi_rma_net_flush_all(dmpi_win *w);
/* Operations to t done here (origin buffers free, gets arrived). */
void dmpi_rma_net_wait_local(dmpi_win *w, int t);
/* Dynamic windows: is [lo, hi) in t's regions, as far as this rank's copy
 * of its table tells (fetched when it may be stale)? */
bool dmpi_rma_net_dyn_contains(dmpi_win *w, int t, uint64_t lo, uint64_t hi);
/* MPI_Win_post to an origin, MPI_Win_complete to a target, on another node. */
void dmpi_rma_net_post(dmpi_win *w, int origin);
void dmpi_rma_net_complete(dmpi_win *w, int t);

/* --------------------------------------------- errors and info (win_err.c) */
/* Raises cls on window w: records "func: message" and applies the
 * window's error handler (default MPI_ERRORS_ARE_FATAL). Returns the code
 * for the user. */
int dmpi_win_err(dmpi_win *w, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI_Win_call_errhandler. */
void dmpi_win_call_errhandler(dmpi_win *w, int code);
/* Reads the window hints from an info object (NULL: defaults). */
void dmpi_win_hints_parse(dmpi_win_hints *h, const dmpi_info *info, bool at_create);
/* Fills a fresh info object with the hints in use. */
int dmpi_win_hints_fill(const dmpi_win *w, dmpi_info *info);

/* ------------------------------------------------------ for src/api */
#define DMPI_GET_WIN(var, h, fn)                                                    \
    do {                                                                            \
        (var) = dmpi_win_get(h);                                                    \
        if (__builtin_expect((var) == NULL, 0))                                     \
            return dmpi_error_noobj(MPI_ERR_WIN, (fn), "invalid window%s",          \
                                    (h) == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");  \
    } while (0)

/* Raise `cls` on window w unless cond holds. */
#define DMPI_WCHECK(w, cond, cls, fn, ...)                                          \
    do {                                                                            \
        if (__builtin_expect(!(cond), 0)) return dmpi_win_err((w), (cls), (fn), __VA_ARGS__); \
    } while (0)

#endif
