/* One-copy ("direct") shared-memory collectives, for data too large for
 * the slots of shm_coll.c: the processes publish the addresses of their
 * buffers in their lines of the communicator's area (shm_area.h) and copy
 * straight between each other's buffers: a plain memcpy where a buffer
 * lies in the node's shared heap (the preloaded malloc serves large blocks
 * from it), one process_vm_readv/writev (CMA) otherwise. Nothing passes
 * through the slots, and every byte is copied once.
 *
 * Every call takes two epochs:
 *   e1  each process publishes where its input is (src) and, where others
 *       write its results (gather, reduce, allreduce), where they go (dst);
 *   e2  each process says it is done with the other processes' buffers; a
 *       process whose buffers others use waits for all of them before it
 *       returns (and its buffers may change again).
 * The algorithms:
 *   bcast, scatter     the others read their part from the root's buffer;
 *   gather             the others write their block into the root's buffer;
 *   allgather(v), alltoall   everyone reads its blocks from everyone;
 *   reduce, allreduce  process j reduces the j-th p-th of the vector from
 *                      every process's input, in one fixed order (so the
 *                      bits are the same whoever computes them), chunk by
 *                      chunk, and writes each chunk of the result to the
 *                      root, or to everyone.
 * Published buffers must be contiguous and reachable by the others (in the
 * heap, or anywhere when CMA works); a process stages one that is not
 * through a block of the heap (packing before, unpacking after). A
 * published address of 0 means that a process could not expose its
 * buffer: whoever needed it skips those copies and returns MPI_ERR_NO_MEM,
 * and every process still takes part in both epochs, so nobody hangs.
 * Buffers that only their owner touches (the receive side of a read) may
 * have any layout: they are unpacked into from a local temporary. */
#include "coll/shm_direct.h"

#include "transport/shm/heap.h"
#include "transport/shm/shm.h"

#include <stdlib.h>
#include <string.h>

/* What a process publishes in epoch e1. */
typedef struct exposed {
    uint64_t src, dst;
} exposed;
_Static_assert(sizeof(exposed) <= DMPI_SHM_INLINE, "fits a line");

/* A buffer of this process as the others will see it. */
typedef struct staged {
    void *user;           /* the user's buffer (count elements of dt) */
    MPI_Count count;
    dmpi_datatype *dt;
    size_t n;             /* packed bytes */
    void *tmp;            /* staging block, or NULL: peers use the user's buffer */
    uint64_t addr;        /* what is published; 0: not exposed */
} staged;

/* Memory the other processes can copy from or into. */
static bool reachable(const void *p, size_t n)
{
    return dmpi_heap_contains((uint64_t)(uintptr_t)p, n) || dmpi_shm.cma_ok;
}

static void *stage_alloc(size_t n)
{
    void *t = dmpi_heap_alloc(n ? n : 1);
    if (t || !dmpi_shm.cma_ok) return t;
    return malloc(n ? n : 1);
}

static void stage_free(void *t)
{
    if (t && !dmpi_heap_free(t)) free(t);
}

/* Exposes count elements of dt at buf (an input when `pack`: its bytes are
 * packed into the staging block if one is needed). */
static void expose(staged *s, const void *buf, MPI_Count count, dmpi_datatype *dt, bool pack)
{
    s->user = (void *)(uintptr_t)buf;
    s->count = count;
    s->dt = dt;
    s->n = (size_t)(count * dt->size);
    s->tmp = NULL;
    if (s->n == 0) { /* nothing to copy: any non-zero address will do */
        s->addr = 1;
        return;
    }
    const void *first = (const char *)buf + dt->true_lb;
    if (dt->contiguous && reachable(first, s->n)) {
        s->addr = (uint64_t)(uintptr_t)first;
        return;
    }
    s->tmp = stage_alloc(s->n);
    s->addr = (uint64_t)(uintptr_t)s->tmp;
    if (s->tmp && pack) dmpi_dt_pack(buf, count, dt, 0, s->tmp, (MPI_Count)s->n);
}

/* After e2: results written into a staging block go to the user's buffer. */
static void unstage(staged *s, bool unpack)
{
    if (!s->tmp) return;
    if (unpack) dmpi_dt_unpack(s->user, s->count, s->dt, 0, s->tmp, (MPI_Count)s->n);
    stage_free(s->tmp);
}

static int world_of(const dmpi_comm *c, int j) { return dmpi_comm_world_rank(c, j); }

/* Reads n bytes at process j's address `remote` into count elements of dt
 * at buf (any layout). */
static int fetch(const dmpi_comm *c, int j, uint64_t remote, void *buf, MPI_Count count,
                 dmpi_datatype *dt, size_t n)
{
    if (dt->contiguous) {
        dmpi_copy_with_peer(true, world_of(c, j), (char *)buf + dt->true_lb, remote, n);
        return MPI_SUCCESS;
    }
    void *t = malloc(n ? n : 1);
    if (!t) return MPI_ERR_NO_MEM;
    dmpi_copy_with_peer(true, world_of(c, j), t, remote, n);
    dmpi_dt_unpack(buf, count, dt, 0, t, (MPI_Count)n);
    free(t);
    return MPI_SUCCESS;
}

/* Epoch e1: publishes what this process exposes. */
static uint64_t publish_addrs(dmpi_shm_comm *st, uint64_t src, uint64_t dst)
{
    uint64_t e = dmpi_shm_begin(st, sizeof(exposed));
    exposed x = {src, dst};
    memcpy(dmpi_shm_line_of(st, e, st->r)->data, &x, sizeof x);
    dmpi_shm_publish(st, e);
    return e;
}

static exposed addrs_of(dmpi_shm_comm *st, uint64_t e, int j)
{
    exposed x;
    memcpy(&x, dmpi_shm_line_of(st, e, j)->data, sizeof x);
    return x;
}

/* Epoch e2: done with the others' buffers; waits for everyone if they use
 * this process's buffers. */
static void finish(dmpi_shm_comm *st, bool wait_all)
{
    uint64_t e = dmpi_shm_begin(st, 0);
    dmpi_shm_publish(st, e);
    if (wait_all) dmpi_shm_wait_all(st, e);
}

/* ------------------------------------------------------------ rooted */
/* Bcast and scatter: the root exposes its buffer and the others read their
 * part of it (all of it for bcast, block r for scatter). */
static int rooted_read(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a)
{
    bool bcast = a->coll == DMPI_COLL_BCAST;
    int p = st->p, r = st->r;
    bool root = r == a->root;
    staged s = {0};
    if (root && bcast) expose(&s, a->rbuf, a->rcount, a->rdt, true);
    else if (root) expose(&s, a->sbuf, a->scount * p, a->sdt, true);
    uint64_t e = publish_addrs(st, s.addr, 0);
    int rc = root && !s.addr ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (!root) { /* (the root's rdt may be NULL: scatter in place) */
        size_t n = (size_t)(a->rcount * a->rdt->size);
        dmpi_shm_wait(st, e, a->root);
        uint64_t src = addrs_of(st, e, a->root).src, off = bcast ? 0 : (uint64_t)r * n;
        rc = src ? fetch(c, a->root, src + off, a->rbuf, a->rcount, a->rdt, n) : MPI_ERR_NO_MEM;
    } else if (!bcast && a->rbuf != MPI_IN_PLACE) {
        int copied = dmpi_coll_copy(dmpi_coll_at(a->sbuf, r * a->scount, a->sdt), a->scount,
                                    a->sdt, a->rbuf, a->rcount, a->rdt);
        if (rc == MPI_SUCCESS) rc = copied;
    }
    finish(st, root);
    unstage(&s, false);
    return rc;
}

static int gather(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a)
{
    int p = st->p, r = st->r;
    bool root = r == a->root;
    staged d = {0};
    if (root) expose(&d, a->rbuf, a->rcount * p, a->rdt, false);
    uint64_t e = publish_addrs(st, 0, d.addr);
    int rc = MPI_SUCCESS;
    size_t b = (size_t)(a->scount * (a->sdt ? a->sdt->size : 0));
    if (!root) {
        dmpi_shm_wait(st, e, a->root);
        uint64_t dst = addrs_of(st, e, a->root).dst;
        void *tmp = NULL;
        const void *mine = (const char *)a->sbuf + a->sdt->true_lb;
        if (!a->sdt->contiguous && (tmp = malloc(b ? b : 1)) != NULL)
            dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, tmp, (MPI_Count)b);
        if (dst && (a->sdt->contiguous || tmp))
            dmpi_copy_with_peer(false, world_of(c, a->root), (void *)(uintptr_t)(tmp ? tmp : mine),
                                dst + (uint64_t)r * b, b);
        else
            rc = MPI_ERR_NO_MEM;
        free(tmp);
    } else if (d.addr && a->sbuf != MPI_IN_PLACE) {
        size_t rb = (size_t)(a->rcount * a->rdt->size);
        dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, (char *)(uintptr_t)d.addr + (size_t)r * rb,
                     (MPI_Count)rb);
    } else if (d.addr && d.tmp) { /* in place: the root's own block into the staging block */
        size_t rb = (size_t)(a->rcount * a->rdt->size);
        dmpi_dt_pack(dmpi_coll_at(a->rbuf, r * a->rcount, a->rdt), a->rcount, a->rdt, 0,
                     (char *)d.tmp + (size_t)r * rb, (MPI_Count)rb);
    }
    if (root && !d.addr) rc = MPI_ERR_NO_MEM;
    finish(st, root);
    unstage(&d, root);
    return rc;
}

/* ------------------------------------------------------ all to all */
/* Allgather, allgatherv and alltoall: process j's blocks are read from its
 * published input. */
static int exchange(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a)
{
    int p = st->p, r = st->r, coll = a->coll;
    const dmpi_datatype *rdt = a->rdt;
    staged s;
    if (a->sbuf != MPI_IN_PLACE) /* alltoall is never in place here */
        expose(&s, a->sbuf, coll == DMPI_COLL_ALLTOALL ? a->scount * p : a->scount, a->sdt,
               true);
    else if (coll == DMPI_COLL_ALLGATHER)
        expose(&s, dmpi_coll_at(a->rbuf, r * a->rcount, rdt), a->rcount, a->rdt, true);
    else
        expose(&s, dmpi_coll_at(a->rbuf, a->rdispls[r], rdt), a->rcounts[r], a->rdt, true);
    uint64_t e = publish_addrs(st, s.addr, 0);
    int rc = s.addr ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int k = 1; k <= p; k++) {
        int j = (r + k) % p; /* everyone starts with a different source */
        if (j == r && a->sbuf == MPI_IN_PLACE) continue;
        MPI_Count cnt = coll == DMPI_COLL_ALLGATHERV ? a->rcounts[j] : a->rcount;
        MPI_Count first = coll == DMPI_COLL_ALLGATHERV ? a->rdispls[j] : j * a->rcount;
        void *dst = dmpi_coll_at(a->rbuf, first, rdt);
        size_t n = (size_t)(cnt * rdt->size);
        uint64_t off = coll == DMPI_COLL_ALLTOALL ? (uint64_t)r * n : 0;
        if (j == r) {
            if (s.addr && n) /* my own block: from what I expose (staged or not) */
                dmpi_dt_unpack(dst, cnt, a->rdt, 0, (const char *)(uintptr_t)s.addr + off,
                               (MPI_Count)n);
            continue;
        }
        dmpi_shm_wait(st, e, j);
        uint64_t src = addrs_of(st, e, j).src;
        int rj = src ? fetch(c, j, src + off, dst, cnt, a->rdt, n) : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) rc = rj;
    }
    finish(st, true);
    unstage(&s, false);
    return rc;
}

/* ------------------------------------------------------------ reductions */
#define REDUCE_CHUNK ((size_t)32768)

/* Bytes [off, off+len) of process j's input: a pointer into the heap, or a
 * copy in `scratch`. */
static const void *input_piece(const dmpi_comm *c, int j, uint64_t src, size_t off, size_t len,
                               void *scratch)
{
    if (dmpi_heap_contains(src + off, len) || j == c->rank)
        return (const void *)(uintptr_t)(src + off);
    dmpi_copy_with_peer(true, world_of(c, j), scratch, src + off, len);
    return scratch;
}

/* Reduce (root >= 0) or allreduce (root < 0). */
static int reduction(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a, int root,
                     dmpi_datatype *bdt)
{
    int p = st->p, r = st->r;
    bool gets = root < 0 || r == root;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    staged s, d = {0};
    expose(&s, in, a->rcount, a->rdt, true);
    if (gets) expose(&d, a->rbuf, a->rcount, a->rdt, false);
    if (gets && a->sbuf == MPI_IN_PLACE && d.tmp && s.tmp) { /* one staging block serves both */
        stage_free(d.tmp);
        d.tmp = s.tmp;
        d.addr = s.addr;
    }
    void *res = malloc(2 * REDUCE_CHUNK);
    bool ok = res && s.addr && (!gets || d.addr);
    uint64_t e = publish_addrs(st, ok ? s.addr : 0, ok ? d.addr : 0);
    dmpi_shm_wait_all(st, e);
    int rc = ok ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int j = 0; j < p; j++) {
        exposed x = addrs_of(st, e, j);
        if (!x.src || ((root < 0 || j == root) && !x.dst)) rc = MPI_ERR_NO_MEM;
    }
    size_t n = s.n, unit = (size_t)bdt->size;
    size_t lo = dmpi_shm_share_lo(n, unit, r, p), hi = dmpi_shm_share_lo(n, unit, r + 1, p);
    size_t chunk = REDUCE_CHUNK / unit * unit;
    void *scratch = (char *)res + REDUCE_CHUNK;
    for (size_t off = lo; rc == MPI_SUCCESS && off < hi; off += chunk) {
        size_t len = hi - off < chunk ? hi - off : chunk;
        memcpy(res, input_piece(c, 0, addrs_of(st, e, 0).src, off, len, scratch), len);
        for (int j = 1; j < p && rc == MPI_SUCCESS; j++)
            rc = dmpi_op_apply(a->op, input_piece(c, j, addrs_of(st, e, j).src, off, len, scratch),
                               res, (MPI_Count)(len / unit), bdt);
        for (int t = 0; t < p; t++)
            if (root < 0 || t == root)
                dmpi_copy_with_peer(false, world_of(c, t), res, addrs_of(st, e, t).dst + off, len);
    }
    free(res);
    finish(st, true);
    unstage(&d, gets);
    if (s.tmp != d.tmp) unstage(&s, false);
    return rc;
}

int dmpi_coll_direct(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a,
                     dmpi_datatype *bdt)
{
    switch (a->coll) {
    case DMPI_COLL_BCAST:
    case DMPI_COLL_SCATTER: return rooted_read(c, st, a);
    case DMPI_COLL_GATHER: return gather(c, st, a);
    case DMPI_COLL_REDUCE: return reduction(c, st, a, a->root, bdt);
    case DMPI_COLL_ALLREDUCE: return reduction(c, st, a, -1, bdt);
    default: return exchange(c, st, a);
    }
}

bool dmpi_coll_direct_fits(const dmpi_coll_args *a)
{
    /* Alltoall in place would overwrite blocks that others still read. */
    return !(a->coll == DMPI_COLL_ALLTOALL && a->sbuf == MPI_IN_PLACE);
}
