/* Shared-memory collectives: the blocking collectives of a communicator
 * whose processes share a node, done through the communicator's area
 * (shm_area.h: per-process lines and slots, epochs) instead of
 * point-to-point messages. Every process reads the others' lines and slots
 * directly; nobody relays.
 *
 *   barrier     publish, wait for everyone;
 *   allreduce   up to a slot: publish my data, wait for everyone, and every
 *               process reduces all p contributions itself, in one fixed
 *               order (the same bits everywhere); larger: chunks of a slot,
 *               each in two epochs: everyone publishes its chunk, then each
 *               process reduces one p-th of the chunk from all slots and
 *               publishes that slice, and everyone copies all slices out;
 *   reduce      the same, only the root reads the result;
 *   bcast       chunks of a slot: the root publishes, the others copy and
 *               publish (the root runs up to 63 epochs ahead, 3 when the
 *               data does not fit a line);
 *   allgather, alltoall, gather, scatter, allgatherv: when all of a
 *               process's blocks fit its slot, the same pattern with blocks;
 *   scan, exscan, reduce_scatter(_block): up to a slot, everyone publishes
 *               its vector and each process combines what it needs.
 * Data goes through the slots in packed form (dmpi_dt_pack), so any
 * datatype works; reductions need a predefined op and a type made of one
 * basic type without padding, which depends only on the type signature,
 * so every process makes the same choice.
 *
 * Larger data goes the one-copy way of shm_direct.c instead, where the
 * tuning table says "direct".
 *
 * Used when the tuning table (tuning.c) picks "shm" for the call, the
 * communicator is an intracommunicator of 2 to DMPI_COLL_SHM_MAX_RANKS
 * processes and the shared heap is on; nonblocking and persistent
 * collectives keep their schedules. */
#include "coll/shm_coll.h"
#include "core/comm_ops.h"

#include "coll/shm_area.h"
#include "coll/shm_direct.h"

#include <stdlib.h>
#include <string.h>

static int barrier(dmpi_shm_comm *st)
{
    uint64_t e = dmpi_shm_begin(st, 0);
    dmpi_shm_publish(st, e);
    dmpi_shm_wait_all(st, e);
    return MPI_SUCCESS;
}

static int bcast(dmpi_shm_comm *st, const dmpi_coll_args *a)
{
    MPI_Count n = a->rcount * a->rdt->size, chunk = (MPI_Count)st->slot;
    bool root = st->r == a->root;
    for (MPI_Count off = 0; off < n; off += chunk) {
        MPI_Count len = n - off < chunk ? n - off : chunk;
        uint64_t e = dmpi_shm_begin(st, root ? (size_t)len : 0);
        unsigned char *slot = dmpi_shm_slot(st, e, a->root, (size_t)len);
        if (root) {
            dmpi_dt_pack(a->rbuf, a->rcount, a->rdt, off, slot, len);
        } else {
            dmpi_shm_wait(st, e, a->root);
            dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, off, slot, len);
        }
        dmpi_shm_publish(st, e);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ reductions */
/* The basic type a reduction may run on in packed form, or NULL. */
static dmpi_datatype *packed_reduction_type(const dmpi_coll_args *a)
{
    if (!a->op->builtin || !a->rdt->basic) return NULL;
    dmpi_datatype *b = dmpi_dt_builtin((MPI_Datatype)(uintptr_t)a->rdt->basic);
    return b && b->contiguous && b->size > 0 ? b : NULL;
}

/* Which processes' slots a combination reads: first, first + step, ...
 * up to last. */
typedef struct span {
    int first, step, last;
} span;

static span upto(int last) { return (span){0, 1, last}; }

/* res = x[k] op (... op (x[first + step] op x[first])) over bytes [lo,
 * lo+len) of the slots of the processes of sp in epoch e (each holding
 * `need` bytes). */
static int combine(dmpi_shm_comm *st, const dmpi_coll_args *a, dmpi_datatype *bdt, uint64_t e,
                   size_t need, span sp, size_t lo, size_t len, void *res)
{
    memcpy(res, dmpi_shm_slot(st, e, sp.first, need) + lo, len);
    int rc = MPI_SUCCESS;
    for (int j = sp.first + sp.step; j <= sp.last && rc == MPI_SUCCESS; j += sp.step)
        rc = dmpi_op_apply(a->op, dmpi_shm_slot(st, e, j, need) + lo, res,
                           (MPI_Count)len / bdt->size, bdt);
    return rc;
}

/* combine() into count elements of dt at buf (straight there if dt is
 * contiguous, else through a temporary). */
static int combine_into(dmpi_shm_comm *st, const dmpi_coll_args *a, dmpi_datatype *bdt,
                        uint64_t e, size_t need, span sp, size_t lo, void *buf,
                        MPI_Count count, dmpi_datatype *dt)
{
    size_t len = (size_t)(count * dt->size);
    if (dt->contiguous)
        return combine(st, a, bdt, e, need, sp, lo, len,
                       (void *)((uintptr_t)buf + (uintptr_t)dt->true_lb));
    void *tmp = malloc(len ? len : 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    int rc = combine(st, a, bdt, e, need, sp, lo, len, tmp);
    dmpi_dt_unpack(buf, count, dt, 0, tmp, (MPI_Count)len);
    free(tmp);
    return rc;
}

/* A new epoch in which this process publishes its input vector (count
 * elements of rdt, n bytes packed; in rbuf with MPI_IN_PLACE). */
static uint64_t publish_vector(dmpi_shm_comm *st, const dmpi_coll_args *a, MPI_Count count,
                               size_t n)
{
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    uint64_t e = dmpi_shm_begin(st, n);
    dmpi_dt_pack(src, count, a->rdt, 0, dmpi_shm_slot(st, e, st->r, n), (MPI_Count)n);
    dmpi_shm_publish(st, e);
    return e;
}

/* Reduce (root >= 0) or allreduce (root < 0) of data that fits a slot. */
static int reduce_whole(dmpi_shm_comm *st, const dmpi_coll_args *a, int root,
                        dmpi_datatype *bdt, size_t n)
{
    uint64_t e = publish_vector(st, a, a->rcount, n);
    if (root >= 0 && st->r != root) return MPI_SUCCESS;
    dmpi_shm_wait_all(st, e);
    return combine_into(st, a, bdt, e, n, upto(st->p - 1), 0, a->rbuf, a->rcount, a->rdt);
}

/* Scan and Exscan: process r combines the slots of 0..r (0..r-1). */
static int scan(dmpi_shm_comm *st, const dmpi_coll_args *a, dmpi_datatype *bdt)
{
    size_t n = (size_t)(a->rcount * a->rdt->size);
    int last = a->coll == DMPI_COLL_SCAN ? st->r : st->r - 1;
    uint64_t e = publish_vector(st, a, a->rcount, n);
    if (last < 0) return MPI_SUCCESS; /* Exscan at rank 0: nothing arrives */
    for (int j = 0; j <= last; j++)
        if (j != st->r) dmpi_shm_wait(st, e, j);
    return combine_into(st, a, bdt, e, n, upto(last), 0, a->rbuf, a->rcount, a->rdt);
}

/* Reduce_scatter(_block): everyone publishes the whole vector; process r
 * combines its own block of all of them. */
static int reduce_scatter(dmpi_shm_comm *st, const dmpi_coll_args *a, dmpi_datatype *bdt)
{
    bool block = a->coll == DMPI_COLL_REDUCE_SCATTER_BLOCK;
    MPI_Count total = 0, before = 0;
    for (int j = 0; j < st->p; j++) {
        MPI_Count cj = block ? a->rcount : a->rcounts[j];
        if (j < st->r) before += cj;
        total += cj;
    }
    size_t n = (size_t)(total * a->rdt->size);
    uint64_t e = publish_vector(st, a, total, n);
    dmpi_shm_wait_all(st, e);
    MPI_Count mine = block ? a->rcount : a->rcounts[st->r];
    return combine_into(st, a, bdt, e, n, upto(st->p - 1), (size_t)(before * a->rdt->size),
                        a->rbuf, mine, a->rdt);
}

/* Larger data: chunk by chunk, everyone reduces a slice (see the top). */
static int reduce_sliced(dmpi_shm_comm *st, const dmpi_coll_args *a, int root,
                         dmpi_datatype *bdt, size_t n)
{
    dmpi_datatype *dt = a->rdt;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    size_t unit = (size_t)bdt->size, chunk = st->slot / unit * unit;
    int p = st->p, r = st->r, rc = MPI_SUCCESS;
    bool gets = root < 0 || r == root;
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        uint64_t e1 = dmpi_shm_begin(st, len);
        dmpi_dt_pack(src, a->rcount, dt, (MPI_Count)off, dmpi_shm_slot(st, e1, r, len),
                     (MPI_Count)len);
        dmpi_shm_publish(st, e1);
        dmpi_shm_wait_all(st, e1);
        uint64_t e2 = dmpi_shm_begin(st, len); /* writes at most len */
        size_t lo = dmpi_shm_share_lo(len, unit, r, p);
        size_t mine = dmpi_shm_share_lo(len, unit, r + 1, p) - lo;
        if (mine && rc == MPI_SUCCESS)
            rc = combine(st, a, bdt, e1, len, upto(p - 1), lo, mine,
                         dmpi_shm_slot(st, e2, r, mine));
        dmpi_shm_publish(st, e2);
        if (!gets) continue;
        dmpi_shm_wait_all(st, e2);
        for (int j = 0; j < p; j++) {
            size_t jlo = dmpi_shm_share_lo(len, unit, j, p);
            size_t jn = dmpi_shm_share_lo(len, unit, j + 1, p) - jlo;
            dmpi_dt_unpack(a->rbuf, a->rcount, dt, (MPI_Count)(off + jlo),
                           dmpi_shm_slot(st, e2, j, jn), (MPI_Count)jn);
        }
    }
    return rc;
}

/* Data that fits a slot on many processes with a core each: a two-level
 * tree. The processes form groups of g (about the square root of p) in
 * rank order; in a second epoch the first of each group publishes the
 * combination of its group's vectors, and the root (reduce) or every
 * process (allreduce) combines those. Each combining step reads g slots
 * instead of p (16 ranks of a 16-core node, reduce 1 KiB: 4.2 us reading
 * all 16, where Open MPI takes 2.4). */
static int reduce_tree(dmpi_shm_comm *st, const dmpi_coll_args *a, int root,
                       dmpi_datatype *bdt, size_t n)
{
    int p = st->p, r = st->r, g = 2;
    while (g * g < p) g++;
    uint64_t e1 = publish_vector(st, a, a->rcount, n);
    bool leader = r % g == 0;
    uint64_t e2 = dmpi_shm_begin(st, leader ? n : 0);
    int rc = MPI_SUCCESS;
    if (leader) {
        span group = {r, 1, r + g - 1 < p - 1 ? r + g - 1 : p - 1};
        for (int j = r + 1; j <= group.last; j++) dmpi_shm_wait(st, e1, j);
        rc = combine(st, a, bdt, e1, n, group, 0, n, dmpi_shm_slot(st, e2, r, n));
    }
    dmpi_shm_publish(st, e2);
    if (root >= 0 && r != root) return rc;
    span leaders = {0, g, (p - 1) / g * g};
    for (int j = 0; j < p; j += g)
        if (j != r) dmpi_shm_wait(st, e2, j);
    int rc2 = combine_into(st, a, bdt, e2, n, leaders, 0, a->rbuf, a->rcount, a->rdt);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Whole (one process combines all p vectors) up to a slot, the tree on
 * many dedicated processes, sliced beyond a slot. */
static int reduction(dmpi_shm_comm *st, const dmpi_coll_args *a, int root, dmpi_datatype *bdt)
{
    size_t n = (size_t)(a->rcount * a->rdt->size);
    if (n > st->slot) return reduce_sliced(st, a, root, bdt, n);
    if (dmpi_shm_use_tree(st->p))
        return reduce_tree(st, a, root, bdt, n);
    return reduce_whole(st, a, root, bdt, n);
}

/* ------------------------------------------------------- block movements */
/* Allgather, alltoall, gather and scatter: each process's slot holds one
 * block (allgather, gather) or p blocks (alltoall, scatter: block j for
 * process j) of b bytes. The root of gather and scatter may be MPI_IN_PLACE,
 * and its own block then stays where it is. */
static int blocks(dmpi_shm_comm *st, const dmpi_coll_args *a, size_t b)
{
    int p = st->p, r = st->r, coll = a->coll;
    bool all = coll == DMPI_COLL_ALLGATHER || coll == DMPI_COLL_ALLTOALL;
    bool root = !all && r == a->root;
    bool many = coll == DMPI_COLL_ALLTOALL || coll == DMPI_COLL_SCATTER; /* p blocks out */
    size_t need = many ? (size_t)p * b : b;
    const void *sbuf = a->sbuf;
    MPI_Count scount = a->scount;
    const dmpi_datatype *sdt = a->sdt;
    if (sbuf == MPI_IN_PLACE) { /* allgather, alltoall: the data is in rbuf */
        sbuf = coll == DMPI_COLL_ALLGATHER ? dmpi_coll_at(a->rbuf, r * a->rcount, a->rdt) : a->rbuf;
        scount = a->rcount;
        sdt = a->rdt;
    }
    bool gives = coll == DMPI_COLL_SCATTER ? root : !(root && a->sbuf == MPI_IN_PLACE);
    uint64_t e = dmpi_shm_begin(st, gives ? need : 0);
    unsigned char *mine = dmpi_shm_slot(st, e, r, need);
    if (gives && many) {
        for (int j = 0; j < p; j++)
            dmpi_dt_pack(dmpi_coll_at(sbuf, j * scount, sdt), scount, sdt, 0, mine + j * b,
                         (MPI_Count)b);
    } else if (gives) {
        dmpi_dt_pack(sbuf, scount, sdt, 0, mine, (MPI_Count)b);
    }
    dmpi_shm_publish(st, e);
    if (coll == DMPI_COLL_SCATTER) {
        if (!root) {
            dmpi_shm_wait(st, e, a->root);
            dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0,
                           dmpi_shm_slot(st, e, a->root, need) + (size_t)r * b, (MPI_Count)b);
        } else if (a->rbuf != MPI_IN_PLACE) {
            dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0, mine + (size_t)r * b, (MPI_Count)b);
        }
        return MPI_SUCCESS;
    }
    if (coll == DMPI_COLL_GATHER && !root) return MPI_SUCCESS;
    dmpi_shm_wait_all(st, e);
    for (int j = 0; j < p; j++) {
        if (root && j == r && a->sbuf == MPI_IN_PLACE) continue;
        size_t off = coll == DMPI_COLL_ALLTOALL ? (size_t)r * b : 0;
        dmpi_dt_unpack(dmpi_coll_at(a->rbuf, j * a->rcount, a->rdt), a->rcount, a->rdt, 0,
                       dmpi_shm_slot(st, e, j, need) + off, (MPI_Count)b);
    }
    return MPI_SUCCESS;
}

/* Allgatherv: block j (rcounts[j] elements) in process j's slot. */
static int allgatherv(dmpi_shm_comm *st, const dmpi_coll_args *a, size_t need)
{
    int r = st->r;
    const dmpi_datatype *rdt = a->rdt;
    uint64_t e = dmpi_shm_begin(st, need);
    size_t mine = (size_t)(a->rcounts[r] * rdt->size);
    unsigned char *slot = dmpi_shm_slot(st, e, r, need);
    if (a->sbuf == MPI_IN_PLACE)
        dmpi_dt_pack(dmpi_coll_at(a->rbuf, a->rdispls[r], rdt), a->rcounts[r], rdt, 0, slot,
                     (MPI_Count)mine);
    else
        dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, slot, (MPI_Count)mine);
    dmpi_shm_publish(st, e);
    dmpi_shm_wait_all(st, e);
    for (int j = 0; j < st->p; j++) {
        if (j == r && a->sbuf == MPI_IN_PLACE) continue;
        dmpi_dt_unpack(dmpi_coll_at(a->rbuf, a->rdispls[j], rdt), a->rcounts[j], rdt, 0,
                       dmpi_shm_slot(st, e, j, need), a->rcounts[j] * rdt->size);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ dispatch */
/* Bytes of one block, from arguments significant at every process. */
static size_t block_bytes(const dmpi_coll_args *a, int r)
{
    switch (a->coll) {
    case DMPI_COLL_GATHER:
        return (size_t)(r == a->root && a->sbuf == MPI_IN_PLACE ? a->rcount * a->rdt->size
                                                                : a->scount * a->sdt->size);
    case DMPI_COLL_SCATTER:
        return (size_t)(r == a->root && a->rbuf == MPI_IN_PLACE ? a->scount * a->sdt->size
                                                                : a->rcount * a->rdt->size);
    default:
        return (size_t)(a->rcount * a->rdt->size);
    }
}

bool dmpi_coll_shm_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc)
{
    int p = c->size, coll = a->coll;
    if (p < 2 || p > dmpi_shm_max_ranks() || c->remote_group || c->coll_state ||
        !dmpi_comm_on_one_node(c))
        return false;
    size_t b = 0, slot = dmpi_shm_slot_bytes(p);
    bool fits = true,   /* the slot path can run it */
        direct = false; /* the one-copy path can run it */
    MPI_Count tuned;    /* the bytes the tuning rules look at */
    dmpi_datatype *bdt = NULL;
    switch (coll) {
    case DMPI_COLL_BARRIER:
        tuned = 0;
        break;
    case DMPI_COLL_REDUCE:
    case DMPI_COLL_ALLREDUCE:
        if (!(bdt = packed_reduction_type(a))) return false;
        /* fall through */
    case DMPI_COLL_BCAST:
        tuned = (MPI_Count)block_bytes(a, c->rank);
        direct = true;
        break;
    case DMPI_COLL_ALLGATHER:
    case DMPI_COLL_GATHER:
    case DMPI_COLL_ALLTOALL:
    case DMPI_COLL_SCATTER:
        b = block_bytes(a, c->rank);
        fits = (coll == DMPI_COLL_ALLTOALL || coll == DMPI_COLL_SCATTER ? (size_t)p * b : b) <=
               slot;
        direct = dmpi_coll_direct_fits(a);
        tuned = (MPI_Count)b * p;
        break;
    case DMPI_COLL_SCAN:
    case DMPI_COLL_EXSCAN:
    case DMPI_COLL_REDUCE_SCATTER:
    case DMPI_COLL_REDUCE_SCATTER_BLOCK:
        if (!(bdt = packed_reduction_type(a))) return false;
        tuned = coll == DMPI_COLL_REDUCE_SCATTER_BLOCK ? a->rcount * p : a->rcount;
        if (coll == DMPI_COLL_REDUCE_SCATTER) {
            tuned = 0;
            for (int j = 0; j < p; j++) tuned += a->rcounts[j];
        }
        tuned *= a->rdt->size;
        fits = (size_t)tuned <= slot;
        break;
    case DMPI_COLL_ALLGATHERV:
        tuned = 0;
        for (int j = 0; j < p; j++) {
            size_t bj = (size_t)(a->rcounts[j] * a->rdt->size);
            if (bj > b) b = bj;
            tuned += (MPI_Count)bj;
        }
        fits = b <= slot;
        direct = true;
        break;
    default:
        return false;
    }
    int algo = dmpi_coll_choose_node(coll, tuned, p);
    if (algo == DMPI_COLL_ALGO_SHM ? !fits : algo != DMPI_COLL_ALGO_DIRECT || !direct)
        return false;
    dmpi_shm_comm *st = dmpi_shm_comm_of(c);
    if (!st->area) return false;
    if (algo == DMPI_COLL_ALGO_DIRECT) {
        *rc = dmpi_coll_direct(c, st, a, bdt);
        return true;
    }
    switch (coll) {
    case DMPI_COLL_BARRIER: *rc = barrier(st); break;
    case DMPI_COLL_REDUCE: *rc = reduction(st, a, a->root, bdt); break;
    case DMPI_COLL_ALLREDUCE: *rc = reduction(st, a, -1, bdt); break;
    case DMPI_COLL_BCAST: *rc = bcast(st, a); break;
    case DMPI_COLL_SCAN:
    case DMPI_COLL_EXSCAN: *rc = scan(st, a, bdt); break;
    case DMPI_COLL_REDUCE_SCATTER:
    case DMPI_COLL_REDUCE_SCATTER_BLOCK: *rc = reduce_scatter(st, a, bdt); break;
    case DMPI_COLL_ALLGATHERV: *rc = allgatherv(st, a, b); break;
    default: *rc = blocks(st, a, b); break;
    }
    return true;
}
