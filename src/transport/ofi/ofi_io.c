/* The libfabric transport: moving packets and rendezvous data. A packet
 * (header cell + payload, linear) is one tagged send whose tag is the
 * sender's universe index as the receiver knows it (low 32 bits: src_id,
 * our own index but for aliases of another mpiexec run, docs/dynproc.md)
 * and the packet's sequence number
 * towards that peer (high 32 bits); small ones are injected (no completion
 * to wait for). Packets are delivered in sequence order per peer. Receives: a ring of buffers of one packet's size each, kept
 * posted; each arriving packet goes to the protocol layer (dmpi_tp.deliver)
 * and its buffer is posted again. Rendezvous: the receiver reads the
 * sender's registered buffer with fi_read, in pieces of at most the
 * provider's message size. Finalize: every rank sends FIN to every peer
 * after its last packet and waits for every peer's FIN (packets between
 * two ranks arrive in order, so nothing of a peer's is still coming).
 *
 * First contact (ofi_contact.c): until a peer has acknowledged our
 * packets, none is injected, each is kept to go again, and only a few are
 * out at a time. An operation
 * the provider fails because it dropped the connection it was queued on
 * (two peers connecting at once) is posted again, with a growing pause,
 * for up to DMPI_OFI_RETRY_S seconds; past that the peer is taken for
 * dead. Sequence numbers put a packet that went again in its place at the
 * receiver, and drop a copy it had already. */
#include "transport/ofi/ofi.h"

#include "core/dmpi.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Transport-level packets (never handed to the protocol layer). */
#define OFI_PKT_FIN 0x7f   /* the peer is finalizing */
#define OFI_PKT_HELLO 0x7e /* a lower rank's first packet, which connects (ofi_contact.c) */

/* One piece of a rendezvous read or write. */
typedef struct ofi_read_op {
    ofi_op op;
    struct ofi_read_job *job;
    bool write;
    void *at, *desc;         /* the local piece and its registration */
    uint64_t len, raddr, key;
    ofi_retry retry;
} ofi_read_op;

/* A whole rendezvous read (or write): its pieces and what to call when
 * they are done. */
typedef struct ofi_read_job {
    void *ctx;
    int peer;
    long pending;            /* pieces not yet completed */
    bool failed;             /* done was called with the error */
    ofi_mr *mr;              /* local registration (FI_MR_LOCAL) */
    dmpi_tp_read_done_fn done;
} ofi_read_job;

static ofi_buf *new_buf(int kind, uint64_t access)
{
    ofi_buf *b = calloc(1, sizeof *b);
    if (!b || !(b->mem = malloc(dmpi_ofi.buf_bytes)))
        dmpi_abort_job(1, "dmpi: rank %d: out of memory for network buffers", dmpi_ofi.me);
    b->op.kind = kind;
    if (dmpi_ofi.mr_mode & FI_MR_LOCAL) {
        int rc = fi_mr_reg(dmpi_ofi.domain, b->mem, dmpi_ofi.buf_bytes, access, 0,
                           dmpi_ofi.next_key++, 0, &b->mr, NULL);
        if (rc) dmpi_ofi_fail("registering a packet buffer", rc);
        b->desc = fi_mr_desc(b->mr);
    }
    return b;
}

static void free_buf(ofi_buf *b)
{
    if (b->mr) fi_close(&b->mr->fid);
    free(b->mem);
    free(b);
}

/* Waits for room in the provider's queues: progress, then try again.
 * Packets that arrive meanwhile are held back (nested), so that the
 * protocol layer is never entered from inside one of its own sends. */
bool dmpi_ofi_again(ssize_t rc, const char *what)
{
    if (rc == 0) return false;
    if (rc != -FI_EAGAIN) dmpi_ofi_fail(what, (int)rc);
    dmpi_ofi.nested++;
    if (dmpi_ofi_progress() == 0) {
        /* A peer that is gone keeps the provider retrying its connection:
         * give the processor away, and leave if the job has ended. */
        sched_yield();
        dmpi_check_launcher();
    }
    dmpi_ofi.nested--;
    return true;
}

static void post_recv(ofi_buf *b)
{
    dmpi_ofi.posted++;
    while (dmpi_ofi_again(fi_trecv(dmpi_ofi.ep, b->mem, dmpi_ofi.buf_bytes, b->desc, FI_ADDR_UNSPEC, 0,
                          ~(uint64_t)0, &b->op.ctx),
                 "posting a receive"))
        ;
}

/* Send buffers: all of them (to free at the end), and the idle ones. */
static ofi_buf **all_send;
static int nsend, capsend;
static ofi_buf **idle_send;
static int nidle;

ofi_buf *dmpi_ofi_get_send_buf(void)
{
    if (nidle) return idle_send[--nidle];
    if (nsend == capsend) {
        capsend = capsend ? 2 * capsend : 64;
        all_send = realloc(all_send, (size_t)capsend * sizeof *all_send);
        idle_send = realloc(idle_send, (size_t)capsend * sizeof *idle_send);
        if (!all_send || !idle_send)
            dmpi_abort_job(1, "dmpi: rank %d: out of memory for network buffers", dmpi_ofi.me);
    }
    ofi_buf *b = new_buf(OFI_OP_SEND, FI_SEND);
    all_send[nsend++] = b;
    return b;
}

void dmpi_ofi_put_send_buf(ofi_buf *b) { idle_send[nidle++] = b; }

/* Receive buffers: every one made is in dmpi_ofi.recv (freed at the end);
 * nrecv of them stay posted. One that held an early packet is replaced at
 * once, and goes to the spare list when it is done if nrecv are posted. */
static ofi_buf *new_recv_buf(void)
{
    ofi_state *o = &dmpi_ofi;
    if (o->spare) {
        ofi_buf *b = o->spare;
        o->spare = b->next;
        return b;
    }
    if (o->nrecv_made == o->recv_cap) {
        o->recv_cap = o->recv_cap ? 2 * o->recv_cap : 64;
        o->recv = realloc(o->recv, (size_t)o->recv_cap * sizeof *o->recv);
        if (!o->recv) dmpi_abort_job(1, "dmpi: rank %d: out of memory for network buffers", o->me);
    }
    ofi_buf *b = new_buf(OFI_OP_RECV, FI_RECV);
    o->recv[o->nrecv_made++] = b;
    return b;
}

/* A receive buffer whose packet was handled: posted again, or spare. */
static void recycle_recv_buf(ofi_buf *b)
{
    ofi_state *o = &dmpi_ofi;
    if (o->posted < o->nrecv) {
        post_recv(b);
        return;
    }
    b->next = o->spare;
    o->spare = b;
}

int dmpi_ofi_io_init(void)
{
    ofi_state *o = &dmpi_ofi;
    o->cur = calloc((size_t)o->nprocs, sizeof *o->cur);
    o->tx_seq = calloc((size_t)o->nprocs, sizeof *o->tx_seq);
    o->src_id = malloc((size_t)o->nprocs * sizeof *o->src_id);
    if (!o->src_id) return -FI_ENOMEM;
    for (int w = 0; w < o->nprocs; w++) o->src_id[w] = (uint32_t)o->me;
    o->rx_seq = calloc((size_t)o->nprocs, sizeof *o->rx_seq);
    o->early = calloc((size_t)o->nprocs, sizeof *o->early);
    if (!o->tx_seq || !o->rx_seq || !o->early || dmpi_ofi_contact_init() != 0) return -FI_ENOMEM;
    o->retry_head = NULL;
    o->retry_tail = &o->retry_head;
    o->nrecv = (int)dmpi_knob(DMPI_KNOB_OFI_RECV_BUFS);
    if (o->nrecv < 4) o->nrecv = 4;
    size_t rx_max = o->info->rx_attr ? o->info->rx_attr->size : 0; /* the provider's queue */
    if (rx_max && (size_t)o->nrecv > rx_max) o->nrecv = (int)rx_max;
    if (!o->cur) return -FI_ENOMEM;
    for (int i = 0; i < o->nrecv; i++) post_recv(new_recv_buf());
    return 0;
}

void dmpi_ofi_io_finalize(void)
{
    ofi_state *o = &dmpi_ofi;
    for (int i = 0; i < nsend; i++) free_buf(all_send[i]);
    free(all_send);
    free(idle_send);
    all_send = idle_send = NULL;
    nsend = capsend = nidle = 0;
    /* (the endpoint is closed already: the provider owns none of them) */
    for (int i = 0; i < o->nrecv_made; i++) free_buf(o->recv[i]); /* early ones included */
    free(o->recv);
    free(o->early);
    free(o->tx_seq);
    free(o->src_id);
    free(o->rx_seq);
    dmpi_ofi_contact_finalize();
    free(o->cur);
}

const char *dmpi_ofi_provider(void)
{
    return dmpi_ofi.info && dmpi_ofi.info->fabric_attr->prov_name ? dmpi_ofi.info->fabric_attr->prov_name : "";
}

void dmpi_ofi_src_id(int peer, int id)
{
    if (dmpi_ofi.src_id) dmpi_ofi.src_id[peer] = (uint32_t)id;
}

dmpi_pkt *dmpi_ofi_reserve(int peer, uint32_t cells)
{
    if ((uint64_t)cells * DMPI_CELL > dmpi_ofi.buf_bytes + DMPI_CELL)
        dmpi_abort_job(1, "dmpi: rank %d: a packet of %u cells exceeds the network packet size",
                       dmpi_ofi.me, cells);
    ofi_buf *b = dmpi_ofi_get_send_buf();
    dmpi_ofi.cur[peer] = b;
    dmpi_ring *view = &dmpi_tp.out[peer];
    view->cells = b->mem;
    view->ncells = (uint64_t)1 << 16;
    view->pos = 0;
    return (dmpi_pkt *)(void *)b->mem;
}

ssize_t dmpi_ofi_post_send(ofi_buf *b)
{
    return fi_tsend(dmpi_ofi.ep, b->mem, b->len, b->desc, dmpi_ofi.addr[b->peer], b->tag, &b->op.ctx);
}

/* inject: allowed to return before the packet left (no completion), once
 * the peer is confirmed. */
static void send_buf(int peer, ofi_buf *b, size_t len, bool inject)
{
    ofi_state *o = &dmpi_ofi;
    uint64_t tag = (uint64_t)o->tx_seq[peer]++ << 32 | o->src_id[peer];
    if (inject && len <= o->inject_max && o->confirmed[peer]) {
        while (dmpi_ofi_again(fi_tinject(o->ep, b->mem, len, o->addr[peer], tag), "inject"))
            ;
        dmpi_ofi_put_send_buf(b);
        return;
    }
    b->peer = peer;
    b->tag = tag;
    b->len = len;
    b->retain = !o->confirmed[peer];
    b->control = false;
    if (b->retain) {
        b->tag |= OFI_WANT_ACK;
        if (dmpi_ofi_contact_queue(b)) return;
    }
    b->retry.first_failure = 0;
    while (dmpi_ofi_again(dmpi_ofi_post_send(b), "send"))
        ;
    o->in_flight++;
}

void dmpi_ofi_publish(int peer, dmpi_pkt *p, uint32_t cells)
{
    ofi_buf *b = dmpi_ofi.cur[peer];
    dmpi_ofi.cur[peer] = NULL;
    p->ncells = (uint16_t)cells;
    uint64_t len = DMPI_CELL + (p->plen > DMPI_INLINE_BYTES ? p->plen - DMPI_INLINE_BYTES : 0);
    send_buf(peer, b, (size_t)len, true);
}

static ssize_t post_rma(ofi_read_op *op)
{
    ofi_state *o = &dmpi_ofi;
    int peer = op->job->peer;
    return op->write ? fi_write(o->ep, op->at, (size_t)op->len, op->desc, o->addr[peer], op->raddr, op->key,
                                &op->op.ctx)
                     : fi_read(o->ep, op->at, (size_t)op->len, op->desc, o->addr[peer], op->raddr, op->key,
                               &op->op.ctx);
}

/* Starts a rendezvous read (or write) of n bytes in pieces of at most the
 * provider's message size. */
static void rma(bool write, int peer, void *ctx, void *local, uint64_t n,
                const dmpi_rts_info *info, dmpi_tp_read_done_fn done)
{
    ofi_state *o = &dmpi_ofi;
    ofi_read_job *job = calloc(1, sizeof *job);
    if (!job) dmpi_abort_job(1, "dmpi: rank %d: out of memory for a network transfer", o->me);
    if (write) o->writes++;
    else o->reads++;
    job->ctx = ctx;
    job->peer = peer;
    job->done = done;
    void *desc = NULL;
    if (o->mr_mode & FI_MR_LOCAL) {
        job->mr = dmpi_ofi_mr_get(local, n, write ? FI_WRITE : FI_READ);
        desc = fi_mr_desc(job->mr->mr);
    }
    uint64_t piece = o->msg_max < ((uint64_t)1 << 30) ? o->msg_max : ((uint64_t)1 << 30);
    job->pending = (long)((n + piece - 1) / piece);
    for (uint64_t off = 0; off < n; off += piece) {
        uint64_t len = n - off < piece ? n - off : piece;
        ofi_read_op *op = calloc(1, sizeof *op);
        if (!op) dmpi_abort_job(1, "dmpi: rank %d: out of memory for a network transfer", o->me);
        op->op.kind = OFI_OP_RMA;
        op->job = job;
        op->write = write;
        op->at = (char *)local + off;
        op->desc = desc;
        op->len = len;
        op->raddr = info->addr + off;
        op->key = info->key;
        while (dmpi_ofi_again(post_rma(op), write ? "write" : "read"))
            ;
        o->in_flight++;
    }
}

void dmpi_ofi_read(int peer, void *ctx, void *local, uint64_t n,
                   const dmpi_rts_info *info, dmpi_tp_read_done_fn done)
{
    rma(false, peer, ctx, local, n, info, done);
}

void dmpi_ofi_write(int peer, void *ctx, const void *local, uint64_t n,
                    const dmpi_rts_info *info, dmpi_tp_read_done_fn done)
{
    rma(true, peer, ctx, (void *)(uintptr_t)local, n, info, done);
}

static void read_piece_done(ofi_read_op *op, const char *err)
{
    ofi_read_job *job = op->job;
    free(op);
    dmpi_ofi.in_flight--;
    if (err && !job->failed) {
        job->failed = true;
        job->done(job->ctx, job->peer, err);
    }
    if (--job->pending > 0) return;
    if (job->mr) dmpi_ofi_mr_put(job->mr);
    if (!job->failed) job->done(job->ctx, job->peer, NULL);
    free(job);
}

/* Hands one packet to the protocol (or counts a FIN). */
static void deliver(int peer, ofi_buf *b)
{
    dmpi_pkt *p = (dmpi_pkt *)(void *)b->mem;
    dmpi_ofi.rx_seq[peer]++;
    if (b->len >= DMPI_CELL && p->type == OFI_PKT_FIN) {
        if (peer >= dmpi_tp.job_lo && peer < dmpi_tp.job_hi) dmpi_ofi.fins++; /* this job's */
    } else if (b->len >= DMPI_CELL && p->type == OFI_PKT_HELLO) {
        dmpi_ofi.hellos++;
    } else {
        dmpi_tp.deliver(peer, b->mem, b->len);
    }
}

/* Delivers the packets of peer that wait (early or held back) and whose
 * turn has come. */
static void deliver_waiting(int peer)
{
    ofi_state *o = &dmpi_ofi;
    while (o->early[peer] && o->early[peer]->seq == o->rx_seq[peer]) {
        ofi_buf *q = o->early[peer];
        o->early[peer] = q->next;
        deliver(peer, q);
        recycle_recv_buf(q);
    }
}

/* An early packet waits in its peer's list (ordered by sequence) and a new
 * buffer takes its place among the posted ones; when the packet whose
 * turn it is arrives, the waiting ones that follow it go too. */
static void on_recv(ofi_buf *b, const struct fi_cq_tagged_entry *e)
{
    ofi_state *o = &dmpi_ofi;
    uint32_t low = (uint32_t)e->tag;
    int peer = (int)(low & ~(OFI_CTRL | OFI_WANT_ACK));
    if (peer < 0 || peer >= o->nprocs || peer == o->me)
        dmpi_abort_job(1, "dmpi: rank %d: network packet from no rank of the job", o->me);
    if (o->addr[peer] == FI_ADDR_NOTAVAIL) { /* a process of another job that connects */
        char err[200];
        if (dmpi_tp_connect(peer, 0, err, sizeof err) != 0)
            dmpi_abort_job(1, "dmpi: rank %d: network packet from process %d: %s", o->me, peer, err);
    }
    o->posted--;
    b->seq = (uint32_t)(e->tag >> 32);
    b->len = e->len;
    if (low & OFI_CTRL) { /* an ACK: the peer has our packets below seq */
        dmpi_ofi_contact_ack(peer, b->seq);
        recycle_recv_buf(b);
        return;
    }
    if (low & OFI_WANT_ACK) dmpi_ofi_contact_received(peer);
    if ((int32_t)(b->seq - o->rx_seq[peer]) < 0) { /* delivered already: a packet that went again */
        recycle_recv_buf(b);
        return;
    }
    if (b->seq != o->rx_seq[peer] || o->nested) {
        ofi_buf **pp = &o->early[peer];
        while (*pp && (int32_t)((*pp)->seq - b->seq) < 0) pp = &(*pp)->next;
        if (*pp && (*pp)->seq == b->seq) { /* waiting already: a copy */
            recycle_recv_buf(b);
            return;
        }
        if (o->nested) o->held++;
        b->next = *pp;
        *pp = b;
        post_recv(new_recv_buf());
        return;
    }
    deliver(peer, b);
    recycle_recv_buf(b);
    deliver_waiting(peer);
}

/* Delivers the packets held back while nested whose turn has come. */
static void release_held(void)
{
    ofi_state *o = &dmpi_ofi;
    o->held = 0;
    for (int w = 0; w < o->nprocs; w++) deliver_waiting(w);
}

static bool connection_gone(int e)
{
    return e == FI_ENOTCONN || e == FI_ECONNRESET || e == FI_ECONNABORTED || e == FI_ESHUTDOWN ||
           e == EPIPE;
}

/* The error entry says the connection to the peer broke: directly, or as
 * an operation the provider cancelled because of it (libfabric 1.17's TCP
 * provider fails the reads and writes in flight with FI_ECANCELED and the
 * socket's ENOTCONN as its own error number). */
static bool entry_connection_gone(const struct fi_cq_err_entry *e)
{
    return connection_gone(e->err) || (e->err == FI_ECANCELED && connection_gone(e->prov_errno));
}

/* A connection broke outside finalize: the peer has most likely died. Its
 * launcher says so better (which rank, which signal, the right exit
 * status) and ends the job; give it two seconds before failing here. */
static void let_launcher_report(void)
{
    double until = dmpi_now() + 2.0;
    while (dmpi_now() < until) {
        dmpi_check_launcher();
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static ofi_retry *retry_of(void *op, int kind)
{
    return kind == OFI_OP_SEND ? &((ofi_buf *)op)->retry : &((ofi_read_op *)op)->retry;
}

/* An operation the provider failed for a dropped connection: queued to go
 * again, unless it has failed for DMPI_OFI_RETRY_S already (false). */
static bool queue_retry(void *op, int kind)
{
    ofi_retry *r = retry_of(op, kind);
    double now = dmpi_now();
    if (r->first_failure == 0) {
        r->first_failure = now;
        r->backoff = 50e-6;
    } else if (now - r->first_failure > (double)dmpi_knob(DMPI_KNOB_OFI_RETRY_S)) {
        return false;
    } else if (r->backoff < 0.01) {
        r->backoff *= 2;
    }
    r->next_try = now + r->backoff;
    r->op = op;
    r->kind = kind;
    r->next = NULL;
    *dmpi_ofi.retry_tail = r;
    dmpi_ofi.retry_tail = &r->next;
    return true;
}

/* Posts the queued operations whose pause is over (not from inside a
 * libfabric call that waits for room: they go at the next pass). */
static void post_retries(void)
{
    ofi_state *o = &dmpi_ofi;
    static bool busy;
    if (busy || !o->retry_head) return;
    busy = true;
    double now = dmpi_now();
    ofi_retry **pp = &o->retry_head;
    while (*pp) {
        ofi_retry *r = *pp;
        bool is_send = r->kind == OFI_OP_SEND;
        ssize_t rc = now < r->next_try ? -FI_EAGAIN : is_send ? dmpi_ofi_post_send(r->op) : post_rma(r->op);
        if (rc == -FI_EAGAIN) {
            pp = &r->next;
            continue;
        }
        if (rc != 0) dmpi_ofi_fail(is_send ? "sending again" : "reading or writing again", (int)rc);
        o->retries++;
        *pp = r->next;
    }
    o->retry_tail = pp;
    busy = false;
}

static void on_error(void)
{
    struct fi_cq_err_entry err = {0};
    if (fi_cq_readerr(dmpi_ofi.cq, &err, 0) != 1) return;
    const char *why = fi_cq_strerror(dmpi_ofi.cq, err.prov_errno, err.err_data, NULL, 0);
    int kind = err.op_context ? ((ofi_op *)err.op_context)->kind : 0;
    if (kind == OFI_OP_RECV && err.err == FI_ECANCELED) return;
    if (kind == OFI_OP_SEND && ((ofi_buf *)err.op_context)->control) { /* an ACK: the next resend asks again */
        dmpi_ofi.in_flight--;
        dmpi_ofi_put_send_buf(err.op_context);
        return;
    }
    /* a dropped connection: posted again (while finalizing only a packet
     * to a peer not confirmed yet, which is not known to have arrived) */
    bool unconfirmed = kind == OFI_OP_SEND && ((ofi_buf *)err.op_context)->retain;
    bool gone = entry_connection_gone(&err);
    bool retry = (gone || err.err == FI_ECONNREFUSED) && (!dmpi_ofi.finalizing || unconfirmed);
    if ((kind == OFI_OP_SEND || kind == OFI_OP_RMA) && retry && queue_retry(err.op_context, kind)) return;
    if (!dmpi_ofi.finalizing && gone) let_launcher_report();
    if (kind == OFI_OP_RMA) {
        read_piece_done(err.op_context, why ? why : fi_strerror(err.err));
        return;
    }
    /* Finalizing: a peer closes its endpoint only once it has our FIN, so
     * it had every packet we sent it; a connection it closed meanwhile may
     * still fail an operation here (seen between test hosts with the net
     * provider: a send that had reached the peer). Nothing is lost. */
    if (dmpi_ofi.finalizing && gone) {
        ofi_buf *b = err.op_context;
        if (kind == OFI_OP_SEND) {
            dmpi_ofi.in_flight--;
            dmpi_ofi_put_send_buf(b);
            return;
        }
        if (kind == OFI_OP_RECV) {
            dmpi_ofi.posted--;
            recycle_recv_buf(b);
            return;
        }
        if (!b) return; /* the provider's own traffic */
    }
    dmpi_abort_job(1, "dmpi: rank %d: network %s failed: %s (%s)", dmpi_ofi.me,
                   kind == OFI_OP_SEND ? "send" : kind == OFI_OP_RECV ? "receive" : "operation",
                   fi_strerror(err.err), why ? why : "");
}

static void handle(const struct fi_cq_tagged_entry *ev, ssize_t n)
{
    for (ssize_t i = 0; i < n; i++) {
        int kind = ((ofi_op *)ev[i].op_context)->kind;
        if (kind == OFI_OP_RECV) {
            on_recv(ev[i].op_context, &ev[i]);
        } else if (kind == OFI_OP_SEND) {
            ofi_buf *b = ev[i].op_context;
            dmpi_ofi.in_flight--;
            if (!dmpi_ofi_contact_keep(b)) dmpi_ofi_put_send_buf(b);
        } else if (kind == OFI_OP_RMA) {
            read_piece_done(ev[i].op_context, NULL);
        }
    }
}

static bool o_held_ready(void) { return dmpi_ofi.held && !dmpi_ofi.nested; }

int dmpi_ofi_progress(void)
{
    struct fi_cq_tagged_entry ev[16];
    int handled = 0;
    for (;;) {
        ssize_t n = fi_cq_read(dmpi_ofi.cq, ev, 16);
        if (n == -FI_EAGAIN) {
            if (o_held_ready()) release_held();
            post_retries();
            dmpi_ofi_contact_tick();
            return handled;
        }
        if (n == -FI_EAVAIL) {
            on_error();
            continue;
        }
        if (n < 0) dmpi_ofi_fail("reading the completion queue", (int)n);
        handle(ev, n);
        handled += (int)n;
    }
}

/* Sleeps on the completion queue's wait object until something completes
 * or ms milliseconds pass (a rank that must wait on a crowded node gives
 * its core away instead of polling sockets). */
int dmpi_ofi_wait(int ms)
{
    if (!dmpi_ofi.cq_waits) return dmpi_ofi_progress();
    struct fi_cq_tagged_entry ev[16];
    ssize_t n = fi_cq_sread(dmpi_ofi.cq, ev, 16, NULL, ms);
    if (n == -FI_EAVAIL) {
        on_error();
        return 1;
    }
    if (n == -FI_EAGAIN || n == -FI_ETIMEDOUT || n == -FI_EINTR) return dmpi_ofi_progress();
    if (n < 0) dmpi_ofi_fail("waiting on the completion queue", (int)n);
    handle(ev, n);
    return (int)n + dmpi_ofi_progress();
}

/* A transport-level packet (FIN, HELLO), sent with a completion, never
 * injected: the endpoint closes only once every FIN has really left (a
 * packet still queued in the provider, e.g. on a connection being set up,
 * would be lost and the peer would wait for it for ever). */
static void send_transport_pkt(int peer, uint8_t type)
{
    ofi_buf *b = dmpi_ofi_get_send_buf();
    dmpi_pkt *p = (dmpi_pkt *)(void *)b->mem;
    memset(p, 0, sizeof *p);
    p->type = type;
    p->ncells = 1;
    send_buf(peer, b, DMPI_CELL, false);
}

void dmpi_ofi_send_hello(int peer) { send_transport_pkt(peer, OFI_PKT_HELLO); }

void dmpi_ofi_arrive_finalize(void)
{
    dmpi_ofi.finalizing = true;
    /* This job's peers only: another job's processes finalize on their own
     * (a program disconnects from them first, MPI 4.1 sec. 11.10.4). */
    for (int w = dmpi_tp.job_lo; w < dmpi_tp.job_hi; w++)
        if (w != dmpi_ofi.me && dmpi_ofi.addr[w] != FI_ADDR_NOTAVAIL) send_transport_pkt(w, OFI_PKT_FIN);
}

bool dmpi_ofi_all_finalized(void)
{
    return dmpi_ofi.fins >= dmpi_ofi.nremote && dmpi_ofi.in_flight == 0 && dmpi_ofi.nretained == 0 &&
           dmpi_ofi.nqueued == 0 && dmpi_ofi.ndue == 0;
}
