/* Context ids: every communicator owns an even id for point-to-point
 * traffic and id+1 for its collectives. Ids 0/1 belong to MPI_COMM_WORLD
 * and 2/3 to MPI_COMM_SELF. Each process keeps a bitmap of the id pairs it
 * uses; a new communicator's members agree on the lowest pair free at all
 * of them with an allreduce (bitwise AND of the free maps) over the parent
 * communicator's collective context, so no new context is needed for it.
 *
 * The agreement takes two rounds: pick, then confirm. With
 * MPI_THREAD_MULTIPLE two agreements on different parents can overlap in
 * one process (the coarse lock is dropped while waiting); each claims its
 * pick locally before the confirm round, so if both picked the same pair
 * at least one of them finds it taken somewhere; an agreement whose confirm
 * fails drops its claims and runs again.
 *
 * Intercommunicators (and a merge of one) need an id free at the members
 * of two groups that share no intracommunicator: each group reduces its
 * free map over its own local communicator, the two leaders swap and AND
 * their maps (dmpi_context_alloc_pair's xchg hook), and each leader
 * broadcasts the result to its group; the confirm round goes the same way,
 * so both groups always take the same branch.
 *
 * The steps of one round (the free map, the pick and local claim, giving a
 * claim back) are exported for the nonblocking agreement of MPI_Comm_idup
 * (core/comm_idup.c), which runs the ANDs as schedules. */
#include "core/context.h"
#include "coll/coll.h"

#define NPAIRS 32768 /* ids 0 .. 65534 */
#define NWORDS (NPAIRS / 64)

/* pairs 0 (world) and 1 (self); the last, 65534/65535, is never handed
 * out (a spare: it was the universe communicator's, which dynamic processes
 * no longer use) */
static uint64_t used[NWORDS] = {3, [NWORDS - 1] = 1ull << 63};

static bool pair_used(int i) { return used[i / 64] >> (i % 64) & 1; }
static void pair_set(int i, bool on)
{
    if (on) used[i / 64] |= (uint64_t)1 << (i % 64);
    else used[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/* The AND over comm's members, for dmpi_context_alloc. */
static int and_comm(void *arg, uint64_t *buf, int n)
{
    return dmpi_coll_allreduce(MPI_IN_PLACE, buf, n, dmpi_dt_builtin(MPI_UINT64_T),
                               dmpi_op_builtin(MPI_BAND), (dmpi_comm *)arg);
}

int dmpi_context_alloc(dmpi_comm *comm, uint32_t *ctx_out)
{
    return dmpi_context_alloc_with(and_comm, comm, ctx_out);
}

int dmpi_context_map_words(void) { return NWORDS; }

void dmpi_context_free_map(uint64_t *map)
{
    for (int w = 0; w < NWORDS; w++) map[w] = ~used[w];
}

int dmpi_context_claim(const uint64_t *map, bool *claimed)
{
    int pick = -1;
    for (int w = 0; w < NWORDS && pick < 0; w++)
        if (map[w]) pick = w * 64 + __builtin_ctzll(map[w]);
    *claimed = pick >= 0 && !pair_used(pick);
    if (*claimed) pair_set(pick, true);
    return pick;
}

void dmpi_context_unclaim(int pick)
{
    if (pick >= 2 && pick < NPAIRS) pair_set(pick, false);
}

int dmpi_context_alloc_with(dmpi_ctx_and_fn and_all, void *arg, uint32_t *ctx_out)
{
    for (;;) {
        uint64_t map[NWORDS]; /* 4 KiB */
        dmpi_context_free_map(map);
        int rc = and_all(arg, map, NWORDS);
        if (rc != MPI_SUCCESS) return rc;
        bool claimed;
        int pick = dmpi_context_claim(map, &claimed);
        if (pick < 0) return MPI_ERR_INTERN; /* all 32768 ids in use somewhere */
        uint64_t ok = claimed;
        rc = and_all(arg, &ok, 1);
        if (rc == MPI_SUCCESS && ok) {
            *ctx_out = (uint32_t)pick * 2;
            return MPI_SUCCESS;
        }
        if (claimed) dmpi_context_unclaim(pick); /* taken meanwhile somewhere: retry */
        if (rc != MPI_SUCCESS) return rc;
    }
}

void dmpi_context_free(uint32_t ctx)
{
    int pair = (int)(ctx / 2);
    if (pair >= 2 && pair < NPAIRS) pair_set(pair, false);
}

/* One agreement step over two groups: buf[0..n-1] becomes the AND of every
 * member's buf on both sides. buf[n] carries the leader's status to its
 * group, so a failed exchange ends the agreement everywhere on this side. */
static int and_both_sides(dmpi_comm *local, int leader, dmpi_ctx_xchg_fn xchg, void *arg,
                          uint64_t *buf, int n)
{
    dmpi_datatype *u64 = dmpi_dt_builtin(MPI_UINT64_T);
    int rc = dmpi_coll_allreduce(MPI_IN_PLACE, buf, n, u64, dmpi_op_builtin(MPI_BAND), local);
    if (rc != MPI_SUCCESS) return rc;
    buf[n] = MPI_SUCCESS;
    if (local->rank == leader) buf[n] = (uint64_t)xchg(arg, buf, n);
    rc = dmpi_coll_bcast(buf, n + 1, u64, leader, local);
    return rc != MPI_SUCCESS ? rc : (int)buf[n];
}

int dmpi_context_alloc_pair(dmpi_comm *local, int leader, dmpi_ctx_xchg_fn xchg, void *arg,
                            uint32_t *ctx_out)
{
    for (;;) {
        uint64_t map[NWORDS + 1];
        dmpi_context_free_map(map);
        int rc = and_both_sides(local, leader, xchg, arg, map, NWORDS);
        if (rc != MPI_SUCCESS) return rc;
        bool claimed;
        int pick = dmpi_context_claim(map, &claimed);
        if (pick < 0) return MPI_ERR_INTERN;
        uint64_t ok[2] = {claimed ? 1u : 0u, 0};
        rc = and_both_sides(local, leader, xchg, arg, ok, 1);
        if (rc == MPI_SUCCESS && ok[0]) {
            *ctx_out = (uint32_t)pick * 2;
            return MPI_SUCCESS;
        }
        if (claimed) dmpi_context_unclaim(pick);
        if (rc != MPI_SUCCESS) return rc;
    }
}
