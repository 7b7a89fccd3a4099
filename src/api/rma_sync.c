/* One-sided synchronisation entry points (MPI 4.1 section 12.5): fence,
 * post/start/complete/wait/test, lock/unlock, lock_all/unlock_all,
 * flush, flush_all, flush_local, flush_local_all and sync. Checks of the
 * arguments (assertions, lock types, ranks, groups) are here; the epochs
 * themselves are in rma/sync.c. */
#include "api/api.h"
#include "rma/fast.h"
#include "rma/rma.h"

#include <stdlib.h>

#define RMA_ASSERTS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
                     MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int finish(dmpi_win *w, int rc, const char *why, const char *fn)
{
    return rc == MPI_SUCCESS ? rc : dmpi_win_err(w, rc, fn, "%s", why ? why : "failed");
}

static int check_assert(dmpi_win *w, int a, int allowed, const char *fn)
{
    DMPI_WCHECK(w, (a & ~allowed) == 0 && (a & ~RMA_ASSERTS) == 0, MPI_ERR_ASSERT, fn,
                "invalid assertion 0x%x for this call", a);
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert_, MPI_Win win)
{
    static const char *const FN = "MPI_Win_fence";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    int rc = check_assert(w, assert_, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                          MPI_MODE_NOSUCCEED, FN);
    if (rc != MPI_SUCCESS) return rc;
    const char *why = NULL;
    dmpi_lock();
    rc = dmpi_rma_fence(w, assert_, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_fence)

/* ------------------------------------------------------------------ PSCW */
/* Window ranks of the members of group h (malloc'ed into *ranks). */
static int group_ranks(dmpi_win *w, MPI_Group h, int **ranks, int *n, const char *fn)
{
    dmpi_group *g = dmpi_group_get(h);
    DMPI_WCHECK(w, g, MPI_ERR_GROUP, fn, "invalid group%s",
                h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    *n = g->size;
    *ranks = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
    DMPI_WCHECK(w, *ranks, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < g->size; i++) {
        int r = dmpi_group_rank_of_world(w->comm->group, g->world[i]);
        if (r == MPI_UNDEFINED) {
            free(*ranks);
            return dmpi_win_err(w, MPI_ERR_GROUP, fn,
                                "group member %d is not a member of the window's group", i);
        }
        (*ranks)[i] = r;
    }
    return MPI_SUCCESS;
}

static int post_start(MPI_Group group, int assert_, MPI_Win win, bool post, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, fn);
    int rc = check_assert(w, assert_,
                          post ? MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT
                               : MPI_MODE_NOCHECK, fn);
    int *ranks = NULL, n = 0;
    if (rc == MPI_SUCCESS) rc = group_ranks(w, group, &ranks, &n, fn);
    if (rc != MPI_SUCCESS) return rc;
    const char *why = NULL;
    dmpi_lock();
    rc = post ? dmpi_rma_post(w, ranks, n, assert_, &why)
              : dmpi_rma_start(w, ranks, n, assert_, &why);
    dmpi_unlock();
    free(ranks);
    return finish(w, rc, why, fn);
}

int PMPI_Win_post(MPI_Group group, int assert_, MPI_Win win)
{
    return post_start(group, assert_, win, true, "MPI_Win_post");
}
DMPI_ALIAS(Win_post)

int PMPI_Win_start(MPI_Group group, int assert_, MPI_Win win)
{
    return post_start(group, assert_, win, false, "MPI_Win_start");
}
DMPI_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    static const char *const FN = "MPI_Win_complete";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_complete(w, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_complete)

int PMPI_Win_wait(MPI_Win win)
{
    static const char *const FN = "MPI_Win_wait";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_wait(w, false, NULL, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char *const FN = "MPI_Win_test";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, flag, MPI_ERR_ARG, FN, "flag is NULL");
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_wait(w, true, flag, &why);
    dmpi_unlock();
    if (rc == MPI_SUCCESS) dmpi_poll_result(*flag);
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_test)

/* --------------------------------------------------------- passive target */
static int target_rank(dmpi_win *w, int rank, const char *fn)
{
    DMPI_WCHECK(w, rank >= 0 && rank < w->size, MPI_ERR_RANK, fn,
                "invalid rank %d (window of %d processes)", rank, w->size);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win)
{
    static const char *const FN = "MPI_Win_lock";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, lock_type == MPI_LOCK_SHARED || lock_type == MPI_LOCK_EXCLUSIVE,
                MPI_ERR_LOCKTYPE, FN, "invalid lock type %d", lock_type);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int rc = target_rank(w, rank, FN);
    if (rc == MPI_SUCCESS) rc = check_assert(w, assert_, MPI_MODE_NOCHECK, FN);
    if (rc != MPI_SUCCESS) return rc;
    const char *why = NULL;
    dmpi_lock();
    rc = dmpi_rma_lock(w, lock_type, rank, assert_, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char *const FN = "MPI_Win_unlock";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int rc = target_rank(w, rank, FN);
    if (rc != MPI_SUCCESS) return rc;
    const char *why = NULL;
    dmpi_lock();
    rc = dmpi_rma_unlock(w, rank, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assert_, MPI_Win win)
{
    static const char *const FN = "MPI_Win_lock_all";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    int rc = check_assert(w, assert_, MPI_MODE_NOCHECK, FN);
    if (rc != MPI_SUCCESS) return rc;
    const char *why = NULL;
    dmpi_lock();
    rc = dmpi_rma_lock_all(w, assert_, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char *const FN = "MPI_Win_unlock_all";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_unlock_all(w, &why);
    dmpi_unlock();
    return finish(w, rc, why, FN);
}
DMPI_ALIAS(Win_unlock_all)

/* Fast paths of the flushes (rma/fast.h): targets whose memory is mapped
 * here, inside a passive-target epoch: a fence if a store is pending. */
static inline bool fast_flush(int rank, MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || (unsigned)rank >= (unsigned)w->size) return false;
    const dmpi_win_target *tg = &w->tgt[rank];
    if (!tg->fast || !(w->lock_all || tg->lock)) return false;
    dmpi_rma_fast_flush(w);
    return true;
}

static inline bool fast_flush_all(MPI_Win win)
{
    dmpi_win *w = dmpi_win_get(win);
    if (!dmpi_rma_fast_ready() || !w || !w->all_mapped || !(w->lock_all || w->nlocked))
        return false;
    dmpi_rma_fast_flush(w);
    return true;
}

/* all: every target. Local and remote completion are the same here. */
__attribute__((noinline)) static int flush_common(int rank, bool all, MPI_Win win, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, fn);
    if (!all && rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!all) {
        int rc = target_rank(w, rank, fn);
        if (rc != MPI_SUCCESS) return rc;
    }
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_flush(w, all ? -1 : rank, &why);
    dmpi_unlock();
    return finish(w, rc, why, fn);
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    DMPI_RMA_FAST_CALL(fast_flush(rank, win));
    return flush_common(rank, false, win, "MPI_Win_flush");
}
DMPI_ALIAS(Win_flush)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    DMPI_RMA_FAST_CALL(fast_flush(rank, win));
    return flush_common(rank, false, win, "MPI_Win_flush_local");
}
DMPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win)
{
    DMPI_RMA_FAST_CALL(fast_flush_all(win));
    return flush_common(0, true, win, "MPI_Win_flush_all");
}
DMPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    DMPI_RMA_FAST_CALL(fast_flush_all(win));
    return flush_common(0, true, win, "MPI_Win_flush_local_all");
}
DMPI_ALIAS(Win_flush_local_all)

/* The memory model is unified: a full memory barrier is all it takes,
 * but a window across nodes serves the other nodes' requests too (a rank
 * that polls its memory with MPI_Win_sync must let their puts in). */
int PMPI_Win_sync(MPI_Win win)
{
    static const char *const FN = "MPI_Win_sync";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    if (__builtin_expect(w->net != NULL, 0)) {
        dmpi_lock();
        dmpi_progress();
        dmpi_unlock();
    }
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_sync)
