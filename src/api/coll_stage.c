/* Device buffers in collectives: staging through host memory at the API
 * boundary (see docs/accel.md). dmpi_coll_go calls in here only while a
 * device backend is active (dmpi_accel_on); host-only jobs never do.
 *
 * One table-like function, coll_buffers(), says for every collective which
 * of its two buffers this rank uses, which bytes of them (from the counts,
 * displacements and datatypes, as true extents) and whether it reads them,
 * writes them, or both (MPI_IN_PLACE, the root's own block, ...). Each used
 * buffer that lies in device memory gets one host block covering those
 * bytes, the call's description points at the block instead, and the host
 * algorithm runs unchanged:
 *   - before it runs (at every MPI_Start for persistent forms), the device
 *     bytes are copied into the block, except for an output the collective
 *     overwrites entirely (a dense datatype, every block written);
 *   - when it completes (blocking: before the call returns; nonblocking
 *     and persistent: the request's on_complete hook, once per start),
 *     the bytes of every output are copied back to the device.
 * MPI_Reduce_local stages its two buffers the same way. */
#include "accel/accel.h"
#include "api/coll_api.h"
#include "core/topo.h"

#include <stdlib.h>

/* How a rank uses one buffer of a call. */
enum { USE_IN = 1, USE_OUT = 2, USE_WHOLE = 4 /* every byte of the span is written */ };

/* Bytes [lo, hi) from the buffer's address that a call touches. */
typedef struct span {
    MPI_Aint lo, hi;
    bool any;
} span;

typedef struct cbuf {
    const void *buf;
    span sp;
    int use;
} cbuf;

/* Adds count elements of dt at byte offset at. */
static void span_add(span *s, MPI_Aint at, MPI_Count count, const dmpi_datatype *dt)
{
    if (count <= 0 || !dt || dt->size == 0) return;
    MPI_Aint reach = (MPI_Aint)(count - 1) * dt->extent;
    MPI_Aint lo = at + dt->true_lb + (reach < 0 ? reach : 0);
    MPI_Aint hi = at + dt->true_lb + dt->true_extent + (reach > 0 ? reach : 0);
    if (!s->any || lo < s->lo) s->lo = lo;
    if (!s->any || hi > s->hi) s->hi = hi;
    s->any = true;
}

/* A dense datatype: count elements of it are count * size bytes, no holes. */
static bool dense(const dmpi_datatype *dt)
{
    return dt && dt->contiguous && dt->true_lb == 0 && dt->true_extent == dt->extent;
}

static void use_n(cbuf *b, const void *buf, MPI_Count count, const dmpi_datatype *dt, int use)
{
    b->buf = buf;
    span_add(&b->sp, 0, count, dt);
    if ((use & USE_WHOLE) && !dense(dt)) use &= ~USE_WHOLE;
    b->use = use;
}

/* n blocks of counts[i] elements at displs[i] (elements of dt, or bytes
 * with their own types dts when dts is not NULL). */
static void use_v(cbuf *b, const void *buf, int n, const MPI_Count *counts,
                  const MPI_Aint *displs, const dmpi_datatype *dt, dmpi_datatype *const *dts,
                  int use)
{
    b->buf = buf;
    for (int i = 0; counts && displs && i < n; i++) {
        const dmpi_datatype *t = dts ? dts[i] : dt;
        if (!t) continue;
        span_add(&b->sp, dts ? displs[i] : displs[i] * t->extent, counts[i], t);
    }
    b->use = use & ~USE_WHOLE;
}

/* The buffers this rank uses in the collective a on c: b[0] the send
 * side, b[1] the receive side. The one place that knows the collectives'
 * buffer rules (MPI 4.1 chapters 6 and 8.6, intercommunicators included). */
static void coll_buffers(dmpi_comm *c, const dmpi_coll_args *a, cbuf b[2])
{
    bool inter = c->remote_group != NULL, sin = a->sbuf == MPI_IN_PLACE;
    int np = dmpi_coll_peers(c), me = c->rank, p = c->size;
    bool am_root = inter ? a->root == MPI_ROOT : me == a->root;
    bool gone = inter && a->root == MPI_PROC_NULL; /* rooted: takes no part */
    int rin = sin ? USE_IN : USE_WHOLE; /* the receive side, in place or not */
    switch (a->coll) {
    case DMPI_COLL_BARRIER: break;
    case DMPI_COLL_BCAST:
        if (gone) break;
        use_n(&b[1], a->rbuf, a->rcount, a->rdt, am_root ? USE_IN : USE_OUT | USE_WHOLE);
        break;
    case DMPI_COLL_REDUCE:
        if (gone) break;
        if (!am_root || (!inter && !sin)) use_n(&b[0], a->sbuf, a->rcount, a->rdt, USE_IN);
        if (am_root) use_n(&b[1], a->rbuf, a->rcount, a->rdt, USE_OUT | (inter ? USE_WHOLE : rin));
        break;
    case DMPI_COLL_ALLREDUCE:
    case DMPI_COLL_SCAN:
    case DMPI_COLL_EXSCAN: /* rank 0's exscan result is undefined: left as it was */
        if (!sin) use_n(&b[0], a->sbuf, a->rcount, a->rdt, USE_IN);
        use_n(&b[1], a->rbuf, a->rcount, a->rdt,
              USE_OUT | (a->coll == DMPI_COLL_EXSCAN ? rin & USE_IN : rin));
        break;
    case DMPI_COLL_REDUCE_SCATTER:
    case DMPI_COLL_REDUCE_SCATTER_BLOCK: {
        bool block = a->coll == DMPI_COLL_REDUCE_SCATTER_BLOCK;
        MPI_Count total = 0, mine = block ? a->rcount : a->rcounts ? a->rcounts[me] : 0;
        for (int i = 0; i < p; i++) total += block ? a->rcount : a->rcounts ? a->rcounts[i] : 0;
        if (sin) {
            use_n(&b[1], a->rbuf, total, a->rdt, USE_IN | USE_OUT);
        } else {
            use_n(&b[0], a->sbuf, total, a->rdt, USE_IN);
            use_n(&b[1], a->rbuf, mine, a->rdt, USE_OUT | USE_WHOLE);
        }
        break;
    }
    case DMPI_COLL_GATHER:
    case DMPI_COLL_GATHERV:
        if (gone) break;
        if (!am_root || (!inter && !sin)) use_n(&b[0], a->sbuf, a->scount, a->sdt, USE_IN);
        if (!am_root) break;
        if (a->coll == DMPI_COLL_GATHER)
            use_n(&b[1], a->rbuf, (MPI_Count)np * a->rcount, a->rdt,
                  USE_OUT | (inter ? USE_WHOLE : rin));
        else
            use_v(&b[1], a->rbuf, np, a->rcounts, a->rdispls, a->rdt, NULL,
                  USE_OUT | (!inter && sin ? USE_IN : 0));
        break;
    case DMPI_COLL_SCATTER:
    case DMPI_COLL_SCATTERV:
        if (gone) break;
        if (am_root) {
            if (a->coll == DMPI_COLL_SCATTER)
                use_n(&b[0], a->sbuf, (MPI_Count)np * a->scount, a->sdt, USE_IN);
            else
                use_v(&b[0], a->sbuf, np, a->scounts, a->sdispls, a->sdt, NULL, USE_IN);
        }
        if (!am_root || (!inter && a->rbuf != MPI_IN_PLACE))
            use_n(&b[1], a->rbuf, a->rcount, a->rdt, USE_OUT | USE_WHOLE);
        break;
    case DMPI_COLL_ALLGATHER:
    case DMPI_COLL_ALLGATHERV:
        if (!sin) use_n(&b[0], a->sbuf, a->scount, a->sdt, USE_IN);
        if (a->coll == DMPI_COLL_ALLGATHER)
            use_n(&b[1], a->rbuf, (MPI_Count)np * a->rcount, a->rdt, USE_OUT | rin);
        else
            use_v(&b[1], a->rbuf, np, a->rcounts, a->rdispls, a->rdt, NULL,
                  USE_OUT | (rin & USE_IN));
        break;
    case DMPI_COLL_ALLTOALL:
        if (!sin) use_n(&b[0], a->sbuf, (MPI_Count)np * a->scount, a->sdt, USE_IN);
        use_n(&b[1], a->rbuf, (MPI_Count)np * a->rcount, a->rdt, USE_OUT | rin);
        break;
    case DMPI_COLL_ALLTOALLV:
    case DMPI_COLL_ALLTOALLW: {
        bool w = a->coll == DMPI_COLL_ALLTOALLW;
        if (!sin)
            use_v(&b[0], a->sbuf, np, a->scounts, a->sdispls, a->sdt, w ? a->sdts : NULL, USE_IN);
        use_v(&b[1], a->rbuf, np, a->rcounts, a->rdispls, a->rdt, w ? a->rdts : NULL,
              USE_OUT | (rin & USE_IN));
        break;
    }
    default: { /* neighbourhood collectives: MPI_PROC_NULL neighbours leave blocks alone */
        int nin = 0, nout = 0, *in, *out;
        if (dmpi_topo_neighbors(c, &nin, &in, &nout, &out) != MPI_SUCCESS) break;
        switch (a->coll) {
        case DMPI_COLL_NEIGHBOR_ALLGATHER:
            use_n(&b[0], a->sbuf, a->scount, a->sdt, USE_IN);
            use_n(&b[1], a->rbuf, (MPI_Count)nin * a->rcount, a->rdt, USE_OUT);
            break;
        case DMPI_COLL_NEIGHBOR_ALLGATHERV:
            use_n(&b[0], a->sbuf, a->scount, a->sdt, USE_IN);
            use_v(&b[1], a->rbuf, nin, a->rcounts, a->rdispls, a->rdt, NULL, USE_OUT);
            break;
        case DMPI_COLL_NEIGHBOR_ALLTOALL:
            use_n(&b[0], a->sbuf, (MPI_Count)nout * a->scount, a->sdt, USE_IN);
            use_n(&b[1], a->rbuf, (MPI_Count)nin * a->rcount, a->rdt, USE_OUT);
            break;
        case DMPI_COLL_NEIGHBOR_ALLTOALLV:
        case DMPI_COLL_NEIGHBOR_ALLTOALLW: {
            bool w = a->coll == DMPI_COLL_NEIGHBOR_ALLTOALLW;
            use_v(&b[0], a->sbuf, nout, a->scounts, a->sdispls, a->sdt, w ? a->sdts : NULL,
                  USE_IN);
            use_v(&b[1], a->rbuf, nin, a->rcounts, a->rdispls, a->rdt, w ? a->rdts : NULL,
                  USE_OUT);
            break;
        }
        default: break;
        }
    }
    }
}

/* ---------------------------------------------------------------- staging */
typedef struct staged {
    char *dev, *host;   /* the span's first byte on the device, its host block */
    size_t n;
    dmpi_mem_kind kind;
    int use;
} staged;

struct dmpi_coll_stage {
    staged b[2];
    dmpi_req_free_fn chain_free; /* the request's own free hook (the schedule's) */
};

void dmpi_coll_stage_free(dmpi_coll_stage *st)
{
    if (!st) return;
    for (int i = 0; i < 2; i++) dmpi_accel_pinned_free(st->b[i].host, st->b[i].n);
    free(st);
}

/* Device -> host for everything read, and for outputs not entirely
 * overwritten (their untouched bytes must come back unchanged). */
static int copy_in(dmpi_coll_stage *st)
{
    for (int i = 0; i < 2; i++) {
        staged *s = &st->b[i];
        if (!s->host || s->use == (USE_OUT | USE_WHOLE)) continue;
        int rc = dmpi_accel_copy(s->host, DMPI_MEM_HOST, s->dev, s->kind, s->n);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Host -> device for every output. */
static int copy_out(dmpi_coll_stage *st)
{
    for (int i = 0; i < 2; i++) {
        staged *s = &st->b[i];
        if (!s->host || !(s->use & USE_OUT)) continue;
        int rc = dmpi_accel_copy(s->dev, s->kind, s->host, DMPI_MEM_HOST, s->n);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Stages the buffers of b that lie in device memory; hb[i] is what the
 * call is to use instead of b[i].buf (the host block, addressed like the
 * buffer), NULL where b[i] is not staged. *out stays NULL when none is. */
static int stage_bufs(const cbuf b[2], void *hb[2], bool fill, dmpi_coll_stage **out)
{
    hb[0] = hb[1] = NULL;
    dmpi_coll_stage *st = NULL;
    for (int i = 0; i < 2; i++) {
        if (!b[i].use || !b[i].sp.any || b[i].sp.hi <= b[i].sp.lo || b[i].buf == MPI_IN_PLACE)
            continue;
        char *dev = (char *)b[i].buf + b[i].sp.lo;
        dmpi_mem_kind kind = dmpi_accel_classify(dev, NULL);
        if (!dmpi_mem_kind_is_device(kind)) continue;
        if (!st && !(st = calloc(1, sizeof *st))) {
            dmpi_accel_set_error("no memory for the staging state");
            hb[0] = NULL;
            return MPI_ERR_NO_MEM;
        }
        staged *s = &st->b[i];
        s->n = (size_t)(b[i].sp.hi - b[i].sp.lo);
        s->dev = dev;
        s->kind = kind;
        s->use = b[i].use;
        if (!(s->host = dmpi_accel_pinned_alloc(s->n))) {
            dmpi_accel_set_error("no memory for a %zu-byte host staging block", s->n);
            dmpi_coll_stage_free(st);
            hb[0] = hb[1] = NULL;
            return MPI_ERR_NO_MEM;
        }
        hb[i] = s->host - b[i].sp.lo;
    }
    int rc = st && fill ? copy_in(st) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        dmpi_coll_stage_free(st);
        hb[0] = hb[1] = NULL;
        return rc;
    }
    *out = st;
    return MPI_SUCCESS;
}

int dmpi_coll_stage_begin(dmpi_coll_call *k, dmpi_coll_stage **out)
{
    *out = NULL;
    cbuf b[2] = {{0}};
    coll_buffers(k->c, &k->a, b);
    void *hb[2];
    /* a persistent call fills its blocks at each MPI_Start instead */
    int rc = stage_bufs(b, hb, k->how.mode != DMPI_HOW_PERSISTENT, out);
    if (hb[0]) k->a.sbuf = hb[0];
    if (hb[1]) k->a.rbuf = hb[1];
    return rc;
}

int dmpi_coll_stage_end(dmpi_coll_stage *st)
{
    int rc = copy_out(st);
    dmpi_coll_stage_free(st);
    return rc;
}

/* on_complete: the outputs go to the device (each time a persistent
 * request completes). */
static void stage_done(dmpi_request *r)
{
    int rc = copy_out(r->stage);
    if (rc != MPI_SUCCESS && r->status.MPI_ERROR == MPI_SUCCESS) r->status.MPI_ERROR = rc;
}

/* on_free: the schedule's hook, then the blocks. */
static void stage_on_free(dmpi_request *r)
{
    dmpi_coll_stage *st = r->stage;
    r->stage = NULL;
    r->on_complete = NULL;
    r->on_free = st->chain_free;
    if (r->on_free) r->on_free(r);
    dmpi_coll_stage_free(st);
}

void dmpi_coll_stage_attach(dmpi_request *r, dmpi_coll_stage *st)
{
    st->chain_free = r->on_free;
    r->stage = st;
    r->on_free = stage_on_free;
    r->on_complete = stage_done;
    if (!r->persistent && atomic_load_explicit(&r->complete, memory_order_acquire))
        stage_done(r); /* it completed while being started */
}

int dmpi_coll_stage_restart(dmpi_request *r) { return copy_in(r->stage); }

int dmpi_coll_stage_error(dmpi_comm *c, int rc, const char *fn)
{
    return dmpi_error(c, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_BUFFER, fn,
                      "a buffer is device memory and cannot be staged: %s", dmpi_accel_error());
}

int dmpi_reduce_local_staged(const void **inbuf, void **inoutbuf, MPI_Count count,
                             const dmpi_datatype *dt, dmpi_coll_stage **out)
{
    *out = NULL;
    cbuf b[2] = {{0}};
    use_n(&b[0], *inbuf, count, dt, USE_IN);
    use_n(&b[1], *inoutbuf, count, dt, USE_IN | USE_OUT);
    void *hb[2];
    int rc = stage_bufs(b, hb, true, out);
    if (hb[0]) *inbuf = hb[0];
    if (hb[1]) *inoutbuf = hb[1];
    return rc;
}
