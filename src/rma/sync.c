/* Epochs of one-sided communication (MPI 4.1 section 12.5), all in the
 * window's shared control block, so a target never has to call MPI:
 *
 *  - fence: a memory barrier and the window's barrier (rma/seg.c);
 *    targets on other nodes are reached by packets instead (rma/net.c):
 *    their lock, post and complete go there, and flushes wait for them;
 *  - post/start/complete/wait: counters per (target, origin) pair; post
 *    adds one to post[target][origin] for every origin of its group, start
 *    waits until each target's counter passed the posts it has consumed,
 *    complete adds one to complete[target][origin], wait (or test) waits
 *    for one more complete from every origin of the post group;
 *  - lock/unlock, lock_all/unlock_all: a reader-writer lock word per
 *    target (seg.c), taken when MPI_Win_lock is called (MPI_MODE_NOCHECK:
 *    not at all);
 *  - flush*: every operation completed when its call returned, so they
 *    only order memory (api/rma_sync.c skips the fence when no store is
 *    pending: rma/fast.h).
 * Checks of epoch misuse give MPI_ERR_RMA_SYNC with a reason. A fence
 * epoch with no operation yet may be left for a lock or PSCW epoch (as
 * codes that open every phase with MPI_Win_fence expect). */
#include "rma/rma.h"

static void wait_idle(unsigned *idle)
{
    if (dmpi_progress()) *idle = 0;
    else dmpi_progress_idle(idle);
}

/* Has counter c reached `want` (modulo 2^32)? */
static bool reached(_Atomic uint32_t *c, uint32_t want)
{
    return (int32_t)(atomic_load_explicit(c, memory_order_acquire) - want) >= 0;
}

int dmpi_rma_access_ok(dmpi_win *w, int t, const char **why)
{
    const dmpi_win_target *tg = &w->tgt[t];
    if (tg->lock || w->lock_all || tg->in_start || w->fence_open) return MPI_SUCCESS;
    *why = w->started ? "the target is not in the group of MPI_Win_start"
           : w->nlocked ? "the target is not locked (MPI_Win_lock)"
                        : "no access epoch is open (call MPI_Win_fence, MPI_Win_start, "
                          "MPI_Win_lock or MPI_Win_lock_all first)";
    return MPI_ERR_RMA_SYNC;
}

static int passive_open(const dmpi_win *w, const char **why)
{
    if (w->nlocked || w->lock_all) {
        *why = "a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is still open";
        return MPI_ERR_RMA_SYNC;
    }
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------------- fence */
int dmpi_rma_fence(dmpi_win *w, int assert_, const char **why)
{
    int rc = passive_open(w, why);
    if (rc != MPI_SUCCESS) return rc;
    if (w->started || w->posted) {
        *why = "a PSCW epoch (MPI_Win_start or MPI_Win_post) is still open";
        return MPI_ERR_RMA_SYNC;
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (!((assert_ & MPI_MODE_NOPRECEDE) && (assert_ & MPI_MODE_NOSUCCEED))) dmpi_win_barrier(w);
    w->fence_open = !(assert_ & MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ PSCW */
int dmpi_rma_post(dmpi_win *w, const int *ranks, int n, int assert_, const char **why)
{
    if (w->posted) {
        *why = "an exposure epoch (MPI_Win_post) is already open";
        return MPI_ERR_RMA_SYNC;
    }
    w->fence_open = false;
    atomic_thread_fence(memory_order_seq_cst); /* my stores before their accesses */
    for (int i = 0; i < n; i++) {
        w->tgt[ranks[i]].in_post = true;
        if (assert_ & MPI_MODE_NOCHECK) continue;
        if (w->tgt[ranks[i]].ops->remote) dmpi_rma_net_post(w, ranks[i]);
        else atomic_fetch_add_explicit(&w->post[(size_t)w->rank * w->size + ranks[i]], 1,
                                       memory_order_release);
    }
    w->posted = true;
    return MPI_SUCCESS;
}

int dmpi_rma_start(dmpi_win *w, const int *ranks, int n, int assert_, const char **why)
{
    if (w->started) {
        *why = "an access epoch (MPI_Win_start) is already open";
        return MPI_ERR_RMA_SYNC;
    }
    int rc = passive_open(w, why);
    if (rc != MPI_SUCCESS) return rc;
    w->fence_open = false;
    for (int i = 0; i < n; i++) {
        dmpi_win_target *tg = &w->tgt[ranks[i]];
        tg->in_start = true;
        if (assert_ & MPI_MODE_NOCHECK) continue;
        uint32_t want = ++tg->post_seen;
        _Atomic uint32_t *c = &w->post[(size_t)ranks[i] * w->size + w->rank];
        unsigned idle = 0;
        while (!reached(c, want)) wait_idle(&idle);
    }
    w->started = true;
    return MPI_SUCCESS;
}

int dmpi_rma_complete(dmpi_win *w, const char **why)
{
    if (!w->started) {
        *why = "no access epoch of MPI_Win_start is open";
        return MPI_ERR_RMA_SYNC;
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (int t = 0; t < w->size; t++) {
        dmpi_win_target *tg = &w->tgt[t];
        if (!tg->in_start) continue;
        tg->ops->flush(w, t);
        if (tg->ops->remote) dmpi_rma_net_complete(w, t);
        else atomic_fetch_add_explicit(&w->complete[(size_t)t * w->size + w->rank], 1,
                                       memory_order_release);
        tg->in_start = false;
    }
    w->started = false;
    return MPI_SUCCESS;
}

static bool all_completed(dmpi_win *w)
{
    for (int o = 0; o < w->size; o++)
        if (w->tgt[o].in_post &&
            !reached(&w->complete[(size_t)w->rank * w->size + o], w->tgt[o].complete_seen + 1))
            return false;
    return true;
}

int dmpi_rma_wait(dmpi_win *w, bool test_only, int *flag, const char **why)
{
    if (!w->posted) {
        *why = "no exposure epoch of MPI_Win_post is open";
        return MPI_ERR_RMA_SYNC;
    }
    if (test_only) {
        if (!all_completed(w)) {
            dmpi_progress();
            *flag = 0;
            return MPI_SUCCESS;
        }
    } else {
        unsigned idle = 0;
        while (!all_completed(w)) wait_idle(&idle);
    }
    for (int o = 0; o < w->size; o++) {
        if (!w->tgt[o].in_post) continue;
        w->tgt[o].complete_seen++;
        w->tgt[o].in_post = false;
    }
    atomic_thread_fence(memory_order_seq_cst);
    w->posted = false;
    if (flag) *flag = 1;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- passive target */
int dmpi_rma_lock(dmpi_win *w, int type, int t, int assert_, const char **why)
{
    dmpi_win_target *tg = &w->tgt[t];
    if (tg->lock || w->lock_all) {
        *why = w->lock_all ? "the window is locked by MPI_Win_lock_all"
                           : "this target is already locked by this process";
        return MPI_ERR_RMA_SYNC;
    }
    if (w->started) {
        *why = "an access epoch of MPI_Win_start is open";
        return MPI_ERR_RMA_SYNC;
    }
    w->fence_open = false;
    tg->lock_nocheck = (assert_ & MPI_MODE_NOCHECK) != 0;
    if (!tg->lock_nocheck) dmpi_rma_rwlock_acquire(w, t, type);
    tg->lock = type;
    w->nlocked++;
    return MPI_SUCCESS;
}

int dmpi_rma_unlock(dmpi_win *w, int t, const char **why)
{
    dmpi_win_target *tg = &w->tgt[t];
    if (!tg->lock) {
        *why = w->lock_all ? "the window was locked by MPI_Win_lock_all: use MPI_Win_unlock_all"
                           : "this target is not locked by this process";
        return MPI_ERR_RMA_SYNC;
    }
    tg->ops->flush(w, t);
    if (!tg->lock_nocheck) dmpi_rma_rwlock_release(w, t, tg->lock);
    tg->lock = 0;
    w->nlocked--;
    return MPI_SUCCESS;
}

int dmpi_rma_lock_all(dmpi_win *w, int assert_, const char **why)
{
    int rc = passive_open(w, why);
    if (rc != MPI_SUCCESS) return rc;
    if (w->started) {
        *why = "an access epoch of MPI_Win_start is open";
        return MPI_ERR_RMA_SYNC;
    }
    w->fence_open = false;
    w->lock_all_nocheck = (assert_ & MPI_MODE_NOCHECK) != 0;
    if (!w->lock_all_nocheck)
        for (int t = 0; t < w->size; t++) dmpi_rma_rwlock_acquire(w, t, MPI_LOCK_SHARED);
    w->lock_all = true;
    return MPI_SUCCESS;
}

int dmpi_rma_unlock_all(dmpi_win *w, const char **why)
{
    if (!w->lock_all) {
        *why = "the window is not locked by MPI_Win_lock_all";
        return MPI_ERR_RMA_SYNC;
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (int t = 0; t < w->size; t++) {
        if (w->tgt[t].ops != &dmpi_rma_direct_ops) w->tgt[t].ops->flush(w, t);
        if (!w->lock_all_nocheck) dmpi_rma_rwlock_release(w, t, MPI_LOCK_SHARED);
    }
    w->lock_all = false;
    return MPI_SUCCESS;
}

int dmpi_rma_flush(dmpi_win *w, int t, const char **why)
{
    if (w->net) dmpi_progress(); /* serve the other nodes (see rma/xfer.c) */
    if (t < 0) {
        if (!w->nlocked && !w->lock_all) {
            *why = "no passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is open";
            return MPI_ERR_RMA_SYNC;
        }
        atomic_thread_fence(memory_order_seq_cst);
        for (int r = 0; r < w->size; r++)
            if ((w->lock_all || w->tgt[r].lock) && w->tgt[r].ops != &dmpi_rma_direct_ops)
                w->tgt[r].ops->flush(w, r);
        w->dirty = false;
        return MPI_SUCCESS;
    }
    if (!w->lock_all && !w->tgt[t].lock) {
        *why = "the target is not locked by this process";
        return MPI_ERR_RMA_SYNC;
    }
    w->tgt[t].ops->flush(w, t); /* a full fence, whatever the mover */
    w->dirty = false;
    return MPI_SUCCESS;
}

int dmpi_rma_free_ok(dmpi_win *w, const char **why)
{
    int rc = passive_open(w, why);
    if (rc != MPI_SUCCESS) return rc;
    if (w->started || w->posted) {
        *why = "a PSCW epoch (MPI_Win_start or MPI_Win_post) is still open";
        return MPI_ERR_RMA_SYNC;
    }
    return MPI_SUCCESS;
}
