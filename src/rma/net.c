/* Windows whose ranks span nodes: the "net" mover and the one-sided
 * packets that carry what a remote read or write cannot.
 *
 * Each node keeps its own segment and control block (rma/win.c), so ranks
 * of one node still reach each other's memory directly. For a target on
 * another node:
 *  - put and get are remote writes and reads by the network transport
 *    (fi_write / fi_read: the target's processor is not involved), into
 *    the target's window memory, registered once at creation with its
 *    address and key allgathered; derived target types go as one transfer
 *    per contiguous piece;
 *  - accumulates, fetch-and-op and compare-and-swap go as DMPI_PKT_RMA
 *    requests that the target applies to its own memory with exactly the
 *    code a node-local origin uses (native atomics, or the stripe and
 *    mutex words of the control block), so element-wise atomicity holds
 *    between origins of every node and the default accumulate ordering
 *    holds because one origin's packets arrive in order;
 *  - dynamic windows: data goes by such requests too, which the target
 *    checks against the regions attached now (an origin's copy of the
 *    table, fetched when an access falls outside it, only catches errors
 *    early; no registration can go stale);
 *  - MPI_Win_lock takes the target's reader-writer lock word at the
 *    target (LOCK, answered by GRANT, queued there while the lock is
 *    taken); MPI_Win_post and MPI_Win_complete bump the counters in the
 *    peer's control block by POST and COMPLETE; fence is a flush of every
 *    target and a barrier of the window's communicator. UNLOCK is not
 *    answered: the next fence or MPI_Win_free confirms it with a FLUSH,
 *    so it is handled before the target can free the window.
 * Completion: transfers and accumulate acknowledgements are counted per
 * target; a flush waits for them, and after writes also sends FLUSH and
 * waits for FLUSHED (the transport guarantees that a packet sent after a
 * write is handled after the write landed), so that a flushed put is
 * visible at the target.
 *
 * The requests are served when the target's progress engine runs (any MPI
 * call there, including waiting ones): with tcp;ofi_rxm even remote reads
 * and writes need the target's libfabric progress, and rxm's own atomics
 * are emulated the same way, so nothing is lost by serving accumulates
 * ourselves. A provider with hardware atomics (verbs, cxi) would let
 * fetch-and-op and compare-and-swap skip the target: not done (no such
 * fabric here to test on). */
#include "rma/rma.h"
#include "coll/coll.h"
#include "core/op.h"
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* What a DMPI_PKT_RMA packet asks or answers (its flags byte). */
enum {
    AM_ACC = 1, AM_ACC_DONE, AM_CAS, AM_CAS_DONE, AM_LOCK, AM_GRANT, AM_UNLOCK,
    AM_FLUSH, AM_FLUSHED, AM_POST, AM_COMPLETE, AM_DYN_QUERY, AM_DYN_TABLE
};

/* A region of a dynamic window as a DYN_TABLE answer lists it. */
typedef struct am_span {
    uint64_t base, len;
} am_span;

/* An accumulate request: header, nseg pieces of the target, then the
 * operand bytes of every piece (none for MPI_NO_OP). */
typedef struct am_acc {
    uint64_t op, type; /* predefined handles */
    uint32_t nseg, want_result;
} am_acc;

typedef struct am_seg {
    uint64_t addr, len;
} am_seg;

typedef struct lock_wait {
    int origin, type;
} lock_wait;

/* An operation with a result (get-accumulate, fetch-and-op, compare-and-
 * swap) waiting for its answers; on the waiting thread's stack. */
typedef struct result_wait {
    struct result_wait *next;
    uint64_t cookie;
    int t;                     /* the target the answers come from */
    unsigned char *result;
    uint64_t bytes;
    long left;                 /* answers still to come */
    uint64_t got;              /* bytes of the last answer */
    int aux;                   /* and what its header said besides */
    uint32_t seq;
} result_wait;

typedef struct dmpi_win_net {
    struct dmpi_win_net *next;
    dmpi_win *w;
    uint32_t id;               /* the window communicator's context id */
    void *handle;              /* my memory's registration */
    long *pending;             /* [size] transfers and accumulates not yet done */
    bool *unconfirmed;         /* [size] writes or an UNLOCK since the last FLUSHED */
    bool *granted;             /* [size] my LOCK was granted */
    uint32_t *flush_sent;      /* [size] FLUSH requests sent */
    uint32_t *flushed;         /* [size] FLUSHED answers received */
    int *held;                 /* [size] the lock each origin holds here (0: none, -1: asked) */
    struct result_wait *results; /* operations waiting for their results */
    uint64_t cookie;
    /* lock requests waiting at this target */
    lock_wait *waits;
    int nwaits, capwaits;
} dmpi_win_net;

static dmpi_win_net *windows;  /* every window of this process that spans nodes */
static int nwaiting;           /* windows with lock requests queued */

static void wait_idle(unsigned *idle)
{
    if (dmpi_progress()) *idle = 0;
    else dmpi_progress_idle(idle);
}

static void out_of_memory(void)
{
    dmpi_abort_job(1, "dmpi: rank %d: out of memory for a one-sided operation",
                   dmpi_rt.world_rank);
}

/* ------------------------------------------------------------- packets */
/* seq: free for the sender's use (the region table's version) */
static void am_send_seq(dmpi_win *w, int t, int what, int aux, uint32_t seq, uint64_t len,
                        uint64_t cookie, const void *payload, uint64_t plen)
{
    int peer = w->tgt[t].world;
    uint32_t cells = dmpi_pkt_cells(plen);
    dmpi_pkt *p = dmpi_tp_reserve(peer, cells); /* network channels always take a packet */
    p->type = DMPI_PKT_RMA;
    p->flags = (uint8_t)what;
    p->seq = seq;
    p->ctx = w->net->id;
    p->tag = aux;
    p->src = w->rank;
    p->len = len;
    p->cookie = cookie;
    dmpi_tp_write_payload(peer, p, payload, plen);
    dmpi_tp_publish(peer, p, cells);
}

static void am_send(dmpi_win *w, int t, int what, int aux, uint64_t len, uint64_t cookie,
                    const void *payload, uint64_t plen)
{
    am_send_seq(w, t, what, aux, 0, len, cookie, payload, plen);
}

static void wait_until(const long *counter)
{
    unsigned idle = 0;
    while (*counter > 0) wait_idle(&idle);
}

/* ----------------------------------------------------------- transfers */
typedef struct xfer_job {
    dmpi_win_net *net;
    int t;
    long pieces;
    void *bounce;             /* packed data (put), or where a get lands */
    void *obuf;               /* get into a non-contiguous origin: unpack here */
    MPI_Count ocount;
    dmpi_datatype *odt;
} xfer_job;

static void xfer_done(void *ctx, int peer, const char *err)
{
    xfer_job *j = ctx;
    if (err)
        dmpi_abort_job(1, "dmpi: rank %d: one-sided transfer with rank %d failed: %s",
                       dmpi_rt.world_rank, peer, err);
    if (--j->pieces > 0) return;
    if (j->obuf) {
        dmpi_dt_unpack(j->obuf, j->ocount, j->odt, 0, j->bounce, j->ocount * j->odt->size);
        dmpi_dt_release(j->odt);
    }
    free(j->bounce);
    j->net->pending[j->t]--;
    free(j);
}

static bool whole_contiguous(MPI_Count count, const dmpi_datatype *dt)
{
    return dt->contiguous && (count <= 1 || dt->extent == dt->size);
}

/* One remote transfer per contiguous piece of the target layout; local
 * is the packed (or already contiguous) origin data. */
static void move(dmpi_win *w, int t, bool write, uintptr_t taddr, MPI_Count tcount,
                 dmpi_datatype *tdt, unsigned char *local, xfer_job *j)
{
    const dmpi_win_target *tg = &w->tgt[t];
    const dmpi_tp_ops *tp = dmpi_tp_of(tg->world);
    MPI_Count total = tcount * tdt->size, off = 0;
    struct iovec iov[64];
    j->pieces = 1; /* held until every piece is issued */
    while (off < total) {
        MPI_Count cov = 0;
        int n = dmpi_dt_iov((const void *)taddr, tcount, tdt, off, iov, 64, &cov);
        if (n <= 0 || cov <= 0) dmpi_abort_job(1, "dmpi: internal error walking a target datatype");
        for (int i = 0; i < n && off < total; i++) {
            uint64_t a = (uint64_t)(uintptr_t)iov[i].iov_base, len = iov[i].iov_len;
            if ((MPI_Count)len > total - off) len = (uint64_t)(total - off);
            dmpi_rts_info at = tg->remote;
            at.addr += a - (uint64_t)tg->base;
            j->pieces++;
            if (write) tp->write(tg->world, j, local + off, len, &at, xfer_done);
            else tp->read(tg->world, j, local + off, len, &at, xfer_done);
            off += (MPI_Count)len;
        }
    }
    xfer_done(j, tg->world, NULL); /* the hold */
}

static xfer_job *new_job(dmpi_win *w, int t)
{
    xfer_job *j = calloc(1, sizeof *j);
    if (!j) out_of_memory();
    j->net = w->net;
    j->t = t;
    w->net->pending[t]++;
    return j;
}

static int net_atomic(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                      dmpi_datatype *bdt, dmpi_op *op, const void *operand, void *result);
static bool small_pieces(uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt);

/* Put or get of a target layout in small pieces: as a request that the
 * target applies (MPI_REPLACE, or MPI_NO_OP with a result, on bytes). */
static int by_request(dmpi_win *w, int t, bool put, uintptr_t taddr, MPI_Count tcount,
                      dmpi_datatype *tdt, void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    MPI_Count bytes = ocount * odt->size;
    void *packed = malloc((size_t)bytes);
    if (!packed) out_of_memory();
    if (put) dmpi_dt_pack(obuf, ocount, odt, 0, packed, bytes);
    int rc = net_atomic(w, t, taddr, tcount, tdt, dmpi_dt_builtin(MPI_BYTE),
                        dmpi_op_builtin(put ? MPI_REPLACE : MPI_NO_OP), put ? packed : NULL,
                        put ? NULL : packed);
    if (!put && rc == MPI_SUCCESS) dmpi_dt_unpack(obuf, ocount, odt, 0, packed, bytes);
    free(packed);
    return rc;
}

/* Small puts and gets go as requests too: a request and its answer cost
 * one round trip of our own packets, a remote write and the FLUSH that
 * confirms it more, and rxm's remote read more than ours. */
static long inline_max(void)
{
    static long max = -1;
    if (max < 0) max = dmpi_knob(DMPI_KNOB_RMA_NET_INLINE);
    return max;
}

static int net_put(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                   const void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || ocount * odt->size <= inline_max() ||
        small_pieces(taddr, tcount, tdt))
        return by_request(w, t, true, taddr, tcount, tdt, (void *)(uintptr_t)obuf, ocount, odt);
    xfer_job *j = new_job(w, t);
    unsigned char *src;
    if (whole_contiguous(ocount, odt)) {
        src = (unsigned char *)obuf + odt->true_lb; /* the user keeps it until the flush */
    } else {
        MPI_Count bytes = ocount * odt->size;
        src = j->bounce = malloc((size_t)bytes);
        if (!src) out_of_memory();
        dmpi_dt_pack(obuf, ocount, odt, 0, src, bytes);
    }
    w->net->unconfirmed[t] = true;
    move(w, t, true, taddr, tcount, tdt, src, j);
    return MPI_SUCCESS;
}

static int net_get(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                   void *obuf, MPI_Count ocount, dmpi_datatype *odt)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || ocount * odt->size <= inline_max() ||
        small_pieces(taddr, tcount, tdt))
        return by_request(w, t, false, taddr, tcount, tdt, obuf, ocount, odt);
    xfer_job *j = new_job(w, t);
    unsigned char *dst;
    if (whole_contiguous(ocount, odt)) {
        dst = (unsigned char *)obuf + odt->true_lb;
    } else {
        dst = j->bounce = malloc((size_t)(ocount * odt->size));
        if (!dst) out_of_memory();
        j->obuf = obuf;
        j->ocount = ocount;
        j->odt = odt;
        dmpi_dt_retain(odt); /* the user may free it before the data is here */
    }
    move(w, t, false, taddr, tcount, tdt, dst, j);
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- accumulates */
static void begin_result(dmpi_win_net *net, result_wait *rw, int t, void *result, uint64_t bytes)
{
    *rw = (result_wait){net->results, ++net->cookie, t, result, bytes, 1, 0, 0, 0}; /* 1: hold */
    net->results = rw;
}

/* Drops the hold and waits for every answer. */
static void end_result(dmpi_win_net *net, result_wait *rw)
{
    rw->left--;
    wait_until(&rw->left);
    for (result_wait **pp = &net->results; *pp; pp = &(*pp)->next)
        if (*pp == rw) {
            *pp = rw->next;
            break;
        }
}

/* Accumulate to a target on another node: requests of at most one
 * packet each (pieces of the target layout and their operand bytes), and
 * for a result, answers of at most one packet each. */
static int net_atomic(dmpi_win *w, int t, uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt,
                      dmpi_datatype *bdt, dmpi_op *op, const void *operand, void *result)
{
    dmpi_win_net *net = w->net;
    int peer = w->tgt[t].world;
    /* Target pieces are stream bytes (whole elements of es bytes);
     * operands and results travel as arrays of elements ext apart, the
     * layout of the operand and result arrays (pair types have holes). */
    uint64_t es = (uint64_t)bdt->size, ext = (uint64_t)bdt->extent;
    uint64_t total = (uint64_t)(tcount * tdt->size);
    uint64_t room = dmpi_tp_frag_max(peer) - sizeof(am_acc), kroom = room / ext;
    enum { MAXSEG = 1024 }; /* pieces per request: 8-byte ones fill 64 KiB */
    am_seg *seg = malloc(MAXSEG * sizeof *seg);
    struct iovec *iov = malloc(MAXSEG * sizeof *iov);
    unsigned char *pkt = malloc(dmpi_tp_frag_max(peer));
    if (!pkt || !seg || !iov) out_of_memory();
    result_wait rw;
    if (result) begin_result(net, &rw, t, result, total / es * ext);
    uint64_t off = 0;
    while (off < total) {
        MPI_Count cov = 0;
        int n = dmpi_dt_iov((const void *)taddr, tcount, tdt, (MPI_Count)off, iov, MAXSEG, &cov);
        if (n <= 0) dmpi_abort_job(1, "dmpi: internal error walking a target datatype");
        uint32_t nseg = 0;
        uint64_t k = 0, left = room; /* elements in this request; request bytes left */
        for (int i = 0; i < n && off + k * es < total && left >= sizeof(am_seg) + ext; i++) {
            uint64_t len = iov[i].iov_len;
            if (len > total - off - k * es) len = total - off - k * es;
            uint64_t want = len / es, fit = kroom - k; /* the answer must fit too */
            if (operand && (left - sizeof(am_seg)) / ext < fit) fit = (left - sizeof(am_seg)) / ext;
            uint64_t take = want < fit ? want : fit;
            if (take == 0) break;
            seg[nseg++] = (am_seg){(uint64_t)(uintptr_t)iov[i].iov_base, take * es};
            k += take;
            left -= sizeof(am_seg) + (operand ? take * ext : 0);
            if (take < want) break;
        }
        if (nseg == 0) dmpi_abort_job(1, "dmpi: network packets too small for one element");
        am_acc h = {(uint64_t)(uintptr_t)op->handle, (uint64_t)(uintptr_t)bdt->handle, nseg,
                    result != NULL};
        uint64_t plen = sizeof h + nseg * sizeof(am_seg), at = off / es * ext;
        memcpy(pkt, &h, sizeof h);
        memcpy(pkt + sizeof h, seg, nseg * sizeof(am_seg));
        if (operand) {
            memcpy(pkt + plen, (const unsigned char *)operand + at, k * ext);
            plen += k * ext;
        }
        if (result) rw.left++;
        else net->pending[t]++;
        am_send(w, t, AM_ACC, 0, at, result ? rw.cookie : 0, pkt, plen);
        off += k * es;
    }
    free(pkt);
    free(seg);
    free(iov);
    if (result) end_result(net, &rw);
    return MPI_SUCCESS;
}

/* Does the target layout come in small pieces (the first few cover
 * little)? Then one remote transfer per piece costs more than sending
 * the data to the target in a request that lists them. */
static bool small_pieces(uintptr_t taddr, MPI_Count tcount, dmpi_datatype *tdt)
{
    if (whole_contiguous(tcount, tdt)) return false;
    struct iovec iov[16];
    MPI_Count cov = 0;
    int n = dmpi_dt_iov((const void *)taddr, tcount, tdt, 0, iov, 16, &cov);
    return n == 16 && cov < 16 * 4096;
}

static int net_cas(dmpi_win *w, int t, uintptr_t taddr, dmpi_datatype *bdt, const void *value,
                   const void *compare, void *result)
{
    size_t es = (size_t)bdt->size;
    unsigned char pl[16 + 2 * 32];
    if (es > 32) return MPI_ERR_TYPE;
    uint64_t hdr[2] = {(uint64_t)(uintptr_t)bdt->handle, (uint64_t)taddr};
    memcpy(pl, hdr, sizeof hdr);
    memcpy(pl + 16, value, es);
    memcpy(pl + 16 + es, compare, es);
    result_wait rw;
    begin_result(w->net, &rw, t, result, es);
    rw.left++;
    am_send(w, t, AM_CAS, 0, 0, rw.cookie, pl, 16 + 2 * es);
    end_result(w->net, &rw);
    return MPI_SUCCESS;
}

/* A synchronisation: regions attached at t since may be used now. */
static void regions_stale(dmpi_win *w, int t)
{
    if (w->dyn) w->dyn[t].seq = 1;
}

/* ---------------------------------------------------- completion, locks */
static void net_flush(dmpi_win *w, int t)
{
    dmpi_win_net *net = w->net;
    unsigned idle = 0;
    if (net->unconfirmed[t]) { /* FLUSH goes at once: it is handled after the writes landed */
        uint32_t want = ++net->flush_sent[t]; /* mine, whatever other threads sent */
        net->unconfirmed[t] = false;
        am_send(w, t, AM_FLUSH, 0, 0, 0, NULL, 0);
        while ((int32_t)(net->flushed[t] - want) < 0 || net->pending[t] > 0) wait_idle(&idle);
    } else {
        wait_until(&net->pending[t]);
    }
    atomic_thread_fence(memory_order_seq_cst);
}

static void net_lock(dmpi_win *w, int t, int type)
{
    dmpi_win_net *net = w->net;
    regions_stale(w, t);
    net->granted[t] = false;
    am_send(w, t, AM_LOCK, type, 0, 0, NULL, 0);
    unsigned idle = 0;
    while (!net->granted[t]) wait_idle(&idle);
    atomic_thread_fence(memory_order_seq_cst);
}

static void net_unlock(dmpi_win *w, int t, int type)
{
    am_send(w, t, AM_UNLOCK, type, 0, 0, NULL, 0); /* after net_flush: nothing in flight */
    /* not answered: the next fence or MPI_Win_free confirms it (FLUSH), so
     * that it is never handled after the target freed the window */
    w->net->unconfirmed[t] = true;
}

const dmpi_rma_ops dmpi_rma_net_ops = {
    .name = "net",
    .remote = true,
    .put = net_put,
    .get = net_get,
    .atomic = net_atomic,
    .cas = net_cas,
    .flush = net_flush,
    .lock = net_lock,
    .unlock = net_unlock,
};

void dmpi_rma_net_wait_local(dmpi_win *w, int t)
{
    if (w->net && w->tgt[t].ops == &dmpi_rma_net_ops) wait_until(&w->net->pending[t]);
}

void dmpi_rma_net_flush_all(dmpi_win *w)
{
    for (int t = 0; t < w->size; t++)
        if (w->tgt[t].ops == &dmpi_rma_net_ops) {
            net_flush(w, t);
            regions_stale(w, t); /* a fence: the next epoch may use new regions */
        }
}

void dmpi_rma_net_post(dmpi_win *w, int origin) { am_send(w, origin, AM_POST, 0, 0, 0, NULL, 0); }

void dmpi_rma_net_complete(dmpi_win *w, int t) { am_send(w, t, AM_COMPLETE, 0, 0, 0, NULL, 0); }

/* --------------------------------------------------------- the target */
static void bad(int peer, const char *what) { dmpi_protocol_error(peer, what); }

/* Are [addr, addr+len) all in my window memory? */
static bool mine(dmpi_win *w, uint64_t addr, uint64_t len)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return addr + len >= addr && dmpi_win_dyn_contains(w, w->rank, addr, addr + len);
    const dmpi_win_target *me = &w->tgt[w->rank];
    uint64_t base = (uint64_t)me->base;
    return addr >= base && len <= (uint64_t)me->size && addr - base <= (uint64_t)me->size - len;
}

static void serve_acc(dmpi_win *w, int peer, const dmpi_pkt *p, const unsigned char *pl)
{
    am_acc h;
    if (p->plen < sizeof h) bad(peer, "short accumulate request");
    memcpy(&h, pl, sizeof h);
    dmpi_op *op = dmpi_op_builtin((MPI_Op)(uintptr_t)h.op);
    dmpi_datatype *bdt = dmpi_dt_builtin((MPI_Datatype)(uintptr_t)h.type);
    uint64_t segbytes = (uint64_t)h.nseg * sizeof(am_seg);
    if (!op || !bdt || bdt->size <= 0 || h.nseg == 0 || segbytes > p->plen - sizeof h)
        bad(peer, "malformed accumulate request");
    bool noop = op->handle == MPI_NO_OP;
    const am_seg *seg = (const am_seg *)(const void *)(pl + sizeof h);
    uint64_t es = (uint64_t)bdt->size, ext = (uint64_t)bdt->extent, k = 0;
    for (uint32_t i = 0; i < h.nseg; i++) {
        if (seg[i].len % es || !mine(w, seg[i].addr, seg[i].len))
            bad(peer, "accumulate outside the window");
        k += seg[i].len / es;
    }
    uint64_t data = k * ext; /* operand and result arrays: elements ext apart */
    if ((noop ? 0 : data) != p->plen - sizeof h - segbytes)
        bad(peer, "accumulate request of the wrong length");
    if (h.want_result && data > dmpi_tp_frag_max(peer))
        bad(peer, "accumulate request whose answer exceeds a packet");
    if (!op->builtin || dmpi_op_check(op, bdt, true) != MPI_SUCCESS)
        bad(peer, "accumulate with an operation undefined on its type");
    const unsigned char *operand = pl + sizeof h + segbytes;
    unsigned char *res = h.want_result ? malloc(data ? data : 1) : NULL;
    if (h.want_result && !res) out_of_memory();
    uint64_t done = 0;
    for (uint32_t i = 0; i < h.nseg; i++) {
        MPI_Count n = (MPI_Count)(seg[i].len / es);
        int rc = dmpi_rma_acc_self(w, (uintptr_t)seg[i].addr, bdt, n, op,
                                   noop ? NULL : operand + done, res ? res + done : NULL);
        if (rc != MPI_SUCCESS) bad(peer, "accumulate with an operation undefined on its type");
        done += (uint64_t)n * ext;
    }
    am_send(w, p->src, AM_ACC_DONE, 0, p->len, p->cookie, res, res ? data : 0);
    free(res);
}

static void serve_cas(dmpi_win *w, int peer, const dmpi_pkt *p, const unsigned char *pl)
{
    uint64_t hdr[2];
    if (p->plen < sizeof hdr) bad(peer, "short compare-and-swap request");
    memcpy(hdr, pl, sizeof hdr);
    dmpi_datatype *dt = dmpi_dt_builtin((MPI_Datatype)(uintptr_t)hdr[0]);
    if (!dt || dt->size <= 0 || dt->size > 32 || p->plen != 16 + 2 * (uint64_t)dt->size ||
        !mine(w, hdr[1], (uint64_t)dt->size))
        bad(peer, "malformed compare-and-swap request");
    _Alignas(16) unsigned char old[32];
    size_t es = (size_t)dt->size;
    if (dmpi_rma_cas_self(w, (uintptr_t)hdr[1], dt, pl + 16, pl + 16 + es, old) != MPI_SUCCESS)
        bad(peer, "compare-and-swap failed at the target");
    am_send(w, p->src, AM_CAS_DONE, 0, 0, p->cookie, old, es);
}

/* An answer with (part of) a result: where it goes must be inside the
 * operation this process waits for. */
static void take_result(dmpi_win_net *net, int peer, const dmpi_pkt *p, const unsigned char *pl)
{
    result_wait *rw = net->results;
    while (rw && rw->cookie != p->cookie) rw = rw->next;
    if (!rw || rw->t != p->src || rw->left <= 0 || p->len > rw->bytes || p->plen > rw->bytes - p->len)
        bad(peer, "one-sided answer for no operation waiting");
    memcpy(rw->result + p->len, pl, p->plen);
    rw->got = p->plen;
    rw->aux = p->tag;
    rw->seq = p->seq;
    rw->left--;
}

/* My regions from index p->len on, as many as one answer holds; the
 * header tells how many there are in all and the table's version. */
static void serve_dyn_query(dmpi_win *w, int peer, const dmpi_pkt *p)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) bad(peer, "region query on a window not dynamic");
    uint64_t from = p->len < w->nattach ? p->len : w->nattach;
    uint64_t k = w->nattach - from, fit = dmpi_tp_frag_max(peer) / sizeof(am_span);
    if (k > fit) k = fit;
    am_span *v = malloc((size_t)(k ? k : 1) * sizeof *v);
    if (!v) out_of_memory();
    for (uint64_t i = 0; i < k; i++) {
        const dmpi_win_span *sp = &w->attach[from + i];
        v[i] = (am_span){sp->base, sp->len};
    }
    uint32_t seq = atomic_load_explicit(&w->ctl_rank[w->rank].attach_seq, memory_order_relaxed);
    am_send_seq(w, p->src, AM_DYN_TABLE, (int)w->nattach, seq, 0, p->cookie, v, k * sizeof *v);
    free(v);
}

static int serve_waiting(void);

static void grant(dmpi_win_net *net, int origin, int type)
{
    net->held[origin] = type;
    am_send(net->w, origin, AM_GRANT, 0, 0, 0, NULL, 0);
}

static void queue_lock(dmpi_win_net *net, int origin, int type)
{
    if (net->nwaits == net->capwaits) {
        net->capwaits = net->capwaits ? 2 * net->capwaits : 8;
        net->waits = realloc(net->waits, (size_t)net->capwaits * sizeof *net->waits);
        if (!net->waits) out_of_memory();
    }
    if (net->nwaits++ == 0 && nwaiting++ == 0) dmpi_rma_progress_hook = serve_waiting;
    net->waits[net->nwaits - 1] = (lock_wait){origin, type};
}

/* Lock requests queued at this target, in arrival order; a request that
 * cannot be granted yet keeps those behind it waiting (no overtaking). */
static int serve_waiting(void)
{
    int granted = 0;
    for (dmpi_win_net *net = windows; net; net = net->next) {
        int k = 0;
        while (k < net->nwaits &&
               dmpi_rma_rwlock_try(net->w, net->w->rank, net->waits[k].type)) {
            grant(net, net->waits[k].origin, net->waits[k].type);
            k++;
        }
        if (k == 0) continue;
        granted += k;
        memmove(net->waits, net->waits + k, (size_t)(net->nwaits - k) * sizeof *net->waits);
        net->nwaits -= k;
        if (net->nwaits == 0 && --nwaiting == 0) dmpi_rma_progress_hook = NULL;
    }
    return granted;
}

static void serve(dmpi_win *w, int peer, const dmpi_pkt *p, const unsigned char *pl)
{
    dmpi_win_net *net = w->net;
    int o = p->src;
    switch (p->flags) {
    case AM_ACC: serve_acc(w, peer, p, pl); break;
    case AM_CAS: serve_cas(w, peer, p, pl); break;
    case AM_ACC_DONE:
    case AM_CAS_DONE:
        if (p->cookie == 0 && p->flags == AM_ACC_DONE) {
            if (net->pending[o] <= 0) bad(peer, "accumulate answer for none sent");
            net->pending[o]--;
        } else {
            take_result(net, peer, p, pl);
        }
        break;
    case AM_LOCK:
        if (p->tag != MPI_LOCK_SHARED && p->tag != MPI_LOCK_EXCLUSIVE) bad(peer, "bad lock type");
        if (net->held[o]) bad(peer, "lock request from a rank that holds the lock");
        net->held[o] = -1; /* asked */
        if (net->nwaits == 0 && dmpi_rma_rwlock_try(w, w->rank, p->tag)) grant(net, o, p->tag);
        else queue_lock(net, o, p->tag);
        break;
    case AM_GRANT: net->granted[o] = true; break;
    case AM_UNLOCK:
        if (net->held[o] != p->tag) bad(peer, "unlock from a rank that does not hold the lock");
        net->held[o] = 0;
        dmpi_rma_rwlock_release_word(w, w->rank, p->tag);
        break;
    case AM_DYN_QUERY: serve_dyn_query(w, peer, p); break;
    case AM_DYN_TABLE: take_result(net, peer, p, pl); break;
    case AM_FLUSH: am_send(w, o, AM_FLUSHED, 0, 0, 0, NULL, 0); break;
    case AM_FLUSHED: net->flushed[o]++; break;
    case AM_POST:
        atomic_fetch_add_explicit(&w->post[(size_t)o * w->size + w->rank], 1, memory_order_release);
        break;
    case AM_COMPLETE:
        atomic_fetch_add_explicit(&w->complete[(size_t)w->rank * w->size + o], 1,
                                  memory_order_release);
        break;
    default: bad(peer, "unknown one-sided packet");
    }
}

static void on_packet(int peer, const dmpi_ring *ring, const dmpi_pkt *p)
{
    dmpi_win_net *net = windows;
    while (net && net->id != p->ctx) net = net->next;
    if (!net) dmpi_protocol_error(peer, "one-sided packet for no window");
    dmpi_win *w = net->w;
    if (p->src < 0 || p->src >= w->size || w->tgt[p->src].world != peer)
        dmpi_protocol_error(peer, "one-sided packet from a rank not in the window");
    _Alignas(16) unsigned char small[64];
    unsigned char *pl = p->plen <= sizeof small ? small : malloc(p->plen);
    if (!pl) out_of_memory();
    dmpi_ring_read_payload(ring, p, 0, pl, p->plen); /* aligned for the element types */
    serve(w, peer, p, pl);
    if (pl != small) free(pl);
}

/* ------------------------------------------------------ dynamic windows */
/* Fetches t's table of regions into w->dyn[t] (several answers if it is
 * long; again from the start if it changed meanwhile). Built apart and
 * swapped in at the end: another thread may refetch meanwhile. */
static void fetch_regions(dmpi_win *w, int t)
{
    dmpi_win_net *net = w->net;
    uint64_t cap = dmpi_tp_frag_max(w->tgt[t].world);
    am_span *buf = malloc(cap);
    dmpi_win_span *v = NULL;
    if (!buf) out_of_memory();
    uint32_t n = 0, seq = 0;
    for (;;) {
        result_wait rw;
        begin_result(net, &rw, t, buf, cap);
        rw.left++;
        am_send(w, t, AM_DYN_QUERY, 0, n, rw.cookie, NULL, 0);
        end_result(net, &rw);
        uint32_t total = (uint32_t)rw.aux, got = (uint32_t)(rw.got / sizeof(am_span));
        if (n > 0 && rw.seq != seq) { /* it changed between the answers */
            n = 0;
            continue;
        }
        seq = rw.seq;
        dmpi_win_span *nv = realloc(v, (size_t)(n + got + 1) * sizeof *nv);
        if (!nv) out_of_memory();
        v = nv;
        for (uint32_t i = 0; i < got; i++) v[n + i] = (dmpi_win_span){buf[i].base, buf[i].len};
        n += got;
        if (n >= total || got == 0) break;
    }
    free(buf);
    dmpi_win_dyn_cache *c = &w->dyn[t];
    free(c->v);
    c->v = v;
    c->cap = c->n = n;
    c->seq = 0; /* fresh (1: stale) */
}

bool dmpi_rma_net_dyn_contains(dmpi_win *w, int t, uint64_t lo, uint64_t hi)
{
    dmpi_win_dyn_cache *c = &w->dyn[t];
    if (c->seq == 0 && dmpi_win_span_covered(c->v, c->n, lo, hi, NULL)) return true;
    fetch_regions(w, t); /* stale, or attached since */
    return dmpi_win_span_covered(c->v, c->n, lo, hi, NULL);
}

/* ------------------------------------------------------------ creation */
typedef struct key_rec {
    uint64_t base, size, addr, key;
    int32_t status, pad;
} key_rec;

int dmpi_rma_net_open(dmpi_win *w, char *why, size_t whylen)
{
    dmpi_win_net *net = calloc(1, sizeof *net);
    int n = w->size;
    if (net) {
        net->pending = calloc((size_t)n, sizeof *net->pending);
        net->unconfirmed = calloc((size_t)n, sizeof *net->unconfirmed);
        net->flush_sent = calloc((size_t)n, sizeof *net->flush_sent);
        net->held = calloc((size_t)n, sizeof *net->held);
        net->granted = calloc((size_t)n, sizeof *net->granted);
        net->flushed = calloc((size_t)n, sizeof *net->flushed);
    }
    key_rec mine_rec = {0};
    mine_rec.status = net && net->pending && net->unconfirmed && net->granted && net->flushed &&
                              net->flush_sent && net->held
                          ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    const dmpi_win_target *me = &w->tgt[w->rank];
    mine_rec.base = (uint64_t)me->base;
    mine_rec.size = (uint64_t)me->size;
    if (mine_rec.status == MPI_SUCCESS && me->size > 0) {
        dmpi_rts_info info = {0, 0};
        if (dmpi_tp.net->expose(-1, (const void *)me->base, (uint64_t)me->size, &info,
                                &net->handle) != 0)
            mine_rec.status = MPI_ERR_OTHER;
        mine_rec.addr = info.addr;
        mine_rec.key = info.key;
    }
    if (net) {
        net->w = w;
        net->id = w->comm->context_id;
        w->net = net;
        net->next = windows; /* requests may come as soon as the keys are out */
        windows = net;
        dmpi_rma_packet_hook = on_packet;
    }
    key_rec *all = malloc((size_t)n * sizeof *all);
    if (!all) out_of_memory(); /* the others wait in the allgather: no way back */
    dmpi_datatype *byte = dmpi_coll_byte();
    int st = dmpi_coll_allgather(&mine_rec, sizeof mine_rec, byte, all, sizeof mine_rec, byte,
                                 w->comm);
    for (int t = 0; st == MPI_SUCCESS && t < n; t++) {
        if (all[t].status != MPI_SUCCESS) {
            snprintf(why, whylen, "rank %d of the window could not register its memory "
                                  "with the network", t);
            st = all[t].status;
        }
    }
    for (int t = 0; st == MPI_SUCCESS && t < n; t++) {
        dmpi_win_target *tg = &w->tgt[t];
        if (tg->ops != &dmpi_rma_net_ops) continue;
        tg->base = (uintptr_t)all[t].base;
        tg->size = (MPI_Aint)all[t].size;
        tg->remote = (dmpi_rts_info){all[t].addr, all[t].key};
    }
    free(all);
    return st; /* on failure the caller frees the window (dmpi_rma_net_close) */
}

void dmpi_rma_net_close(dmpi_win *w)
{
    dmpi_win_net *net = w->net;
    if (!net) return;
    for (dmpi_win_net **pp = &windows; *pp; pp = &(*pp)->next)
        if (*pp == net) {
            *pp = net->next;
            break;
        }
    if (!windows) dmpi_rma_packet_hook = NULL;
    if (net->nwaits && --nwaiting == 0) dmpi_rma_progress_hook = NULL;
    if (net->handle) dmpi_tp.net->unexpose(net->handle);
    free(net->pending);
    free(net->unconfirmed);
    free(net->flush_sent);
    free(net->held);
    free(net->granted);
    free(net->flushed);
    free(net->waits);
    free(net);
    w->net = NULL;
}
