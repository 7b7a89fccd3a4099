/* Send side of the point-to-point protocol. Sends to one peer leave in
 * the order they were started (a per-peer queue; each message carries the
 * next per-pair sequence number). A message up to the eager limit is
 * written into the ring in pieces of at most frag_max bytes; a larger one
 * (or one above heap_eager_max from a buffer in the shared heap) sends an
 * RTS with its address and completes when the receiver, having pulled the
 * data with a single copy, answers DONE. Synchronous-mode eager
 * sends also wait for the receiver's ACK. Control replies (DONE, ACK) wait
 * in a small per-peer queue when the ring is full.
 *
 * A send to a rank of the node that is not synchronous and at most
 * local_max bytes is not held up by a late receiver (late.c): above the
 * eager limit it is pushed into the receiver's buffer when the receiver
 * offers it, else its RTS names a descriptor through which the sender may
 * move the data aside later; replies name every send by a cookie
 * (proto_u64[1]): the request's address, or that descriptor's. */
#include "p2p/p2p.h"
#include "transport/shm/heap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int world_peer(const dmpi_request *r)
{
    const dmpi_group *g = r->comm->remote_group ? r->comm->remote_group : r->comm->group;
    return g->world[r->peer];
}

static const void *send_data(const dmpi_request *r)
{
    return (const void *)(uintptr_t)r->proto_u64[3];
}

static void finish_data(dmpi_request *r)
{
    dmpi_send_reply(r, DMPI_TXW_DATA);
}

void dmpi_send_reply(dmpi_request *r, int what)
{
    r->proto_int[1] &= ~what;
    if ((what & DMPI_TXW_DONE) && r->proto) { /* the peer has read the exposed buffer */
        dmpi_tp_of(r->proto_int[0])->unexpose(r->proto);
        r->proto = NULL;
    }
    if ((what & DMPI_TXW_DONE) && r->proto_int[3]) dmpi_late_done(r);
    if (r->proto_int[1] == 0) {
        free(r->tmp);
        r->tmp = NULL;
        dmpi_request_complete(r);
    }
}

/* The RTS description of r's data (a network peer's transport exposes the
 * buffer until DONE; shm peers read it by address). */
static void rts_info(int peer, dmpi_request *r, dmpi_rts_info *info)
{
    const dmpi_tp_ops *t = dmpi_tp_of(peer);
    if (r->proto_int[3] == DMPI_SEND_MOVABLE) { /* the descriptor, not the data */
        *info = (dmpi_rts_info){r->proto_u64[1], (uint64_t)getpid() | DMPI_RTS_MOVABLE};
        return;
    }
    if (!t->expose) {
        *info = (dmpi_rts_info){r->proto_u64[3], (uint64_t)getpid()};
        return;
    }
    void *handle = NULL;
    if (t->expose(peer, send_data(r), (uint64_t)r->bytes, info, &handle) != 0)
        dmpi_protocol_error(peer, "cannot register a send buffer for remote reading");
    r->proto = handle;
}

/* A send being cancelled whose message is out asks the receiver (CANCEL)
 * when it still waits for it (DONE or ACK) and was not pushed into the
 * receiver's offer (proto_int[2] == 2: that one has matched). */
static inline bool cancel_asks_receiver(const dmpi_request *r)
{
    return (r->proto_int[1] & (DMPI_TXW_ACK | DMPI_TXW_DONE)) && r->proto_int[2] != 2;
}

/* Writes as many packets of r as the channel takes; true when all are out. */
static bool write_packets(int peer, dmpi_request *r)
{
    uint64_t total = (uint64_t)r->bytes;
    int proto = r->proto_int[2];
    if (proto == 1 && dmpi_offer_take(r, r->proto_int[0])) {
        r->proto_int[2] = proto = 2; /* pushed into the receiver's offer */
        if (r->proto_int[3] == DMPI_SEND_MOVABLE) dmpi_late_done(r); /* no DONE will come */
        /* one node: copied already; a network write completes later */
        if (dmpi_p2p_on_node(peer)) r->proto_int[1] &= ~DMPI_TXW_DONE;
    }
    if (proto == 2) {
        dmpi_pkt *p = dmpi_tp_reserve(peer, 1);
        if (!p) return false;
        p->type = DMPI_PKT_PUSHED;
        p->flags = 0;
        p->seq = (uint32_t)r->proto_u64[2];
        p->ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
        p->tag = r->tag;
        p->src = r->comm->rank;
        p->len = total;
        p->plen = 0;
        p->cookie = 0;
        dmpi_tp_publish(peer, p, 1);
        r->proto_u64[0] = total;
        dmpi_p2p.tx[peer].written = (uint32_t)r->proto_u64[2] + 1;
        return true;
    }
    bool rts = proto == 1;
    uint64_t frag_max = dmpi_p2p_frag_max(peer);
    dmpi_p2p.tx[peer].written = (uint32_t)r->proto_u64[2] + 1;
    do {
        uint64_t done = r->proto_u64[0];
        uint64_t plen = rts ? sizeof(dmpi_rts_info)
                            : (total - done < frag_max ? total - done : frag_max);
        uint32_t cells = dmpi_pkt_cells(plen);
        dmpi_pkt *p = dmpi_tp_reserve(peer, cells);
        if (!p) return false;
        if (rts) {
            dmpi_rts_info info;
            rts_info(peer, r, &info);
            dmpi_tp_write_payload(peer, p, &info, sizeof info);
            r->proto_u64[0] = total;
        } else {
            dmpi_tp_write_payload(peer, p, (const char *)send_data(r) + done, plen);
            r->proto_u64[0] = done + plen;
        }
        /* the header after the payload (see dmpi_ring_write_payload) */
        p->type = rts ? DMPI_PKT_RTS : (done == 0 ? DMPI_PKT_EAGER : DMPI_PKT_FRAG);
        p->flags = r->mode == DMPI_MODE_SYNC ? DMPI_PKT_F_SYNC : 0;
        p->seq = (uint32_t)r->proto_u64[2];
        p->ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
        p->tag = r->tag;
        p->src = r->comm->rank;
        p->len = total;
        p->cookie = r->proto_u64[1];
        dmpi_tp_publish(peer, p, cells);
    } while (r->proto_u64[0] < total);
    return true;
}

static bool flush_ctl(int peer)
{
    dmpi_tx_peer *tx = &dmpi_p2p.tx[peer];
    while (tx->ctl_head) {
        dmpi_pkt *p = dmpi_tp_reserve(peer, 1);
        if (!p) return false;
        dmpi_ctl_pkt *c = tx->ctl_head;
        p->type = c->type;
        p->flags = 0;
        p->plen = 0;
        p->cookie = c->cookie;
        dmpi_tp_publish(peer, p, 1);
        tx->ctl_head = c->next;
        if (!tx->ctl_head) tx->ctl_tail = NULL;
        free(c);
    }
    return true;
}

void dmpi_tx_push(int peer)
{
    dmpi_tx_peer *tx = &dmpi_p2p.tx[peer];
    if (tx->ctl_head && !flush_ctl(peer)) return;
    while (tx->head) {
        dmpi_request *r = tx->head;
        if (!write_packets(peer, r)) return;
        tx->head = r->next;
        if (!tx->head) tx->tail = NULL;
        r->next = NULL;
        dmpi_p2p.pending_sends--;
        if (r->proto_int[2] == 1) { /* RTS out: wait for DONE on the pending list */
            r->prev = NULL;
            r->next = tx->rts;
            if (tx->rts) tx->rts->prev = r;
            tx->rts = r;
            dmpi_p2p.rts_waiting++;
        }
        /* a cancel asked for while queued goes out now that all is written
         * (read before finish_data, which may complete and release r) */
        bool ask = __builtin_expect(r->cancelled, 0) && cancel_asks_receiver(r);
        finish_data(r);
        if (ask) dmpi_tx_ctl(peer, DMPI_PKT_CANCEL, r->proto_u64[1]);
    }
}

void dmpi_tx_ctl(int peer, uint8_t type, uint64_t cookie)
{
    dmpi_tx_peer *tx = &dmpi_p2p.tx[peer];
    if (!tx->ctl_head) {
        dmpi_pkt *p = dmpi_tp_reserve(peer, 1);
        if (p) {
            p->type = type;
            p->flags = 0;
            p->plen = 0;
            p->cookie = cookie;
            dmpi_tp_publish(peer, p, 1);
            return;
        }
    }
    dmpi_ctl_pkt *c = malloc(sizeof *c);
    if (!c) dmpi_protocol_error(peer, "out of memory for a control packet");
    c->next = NULL;
    c->type = type;
    c->cookie = cookie;
    if (tx->ctl_tail) tx->ctl_tail->next = c;
    else tx->ctl_head = c;
    tx->ctl_tail = c;
}

void dmpi_self_send(dmpi_request *r, const void *data)
{
    dmpi_env env = {r->comm->context_id + (uint32_t)r->ctx_kind, r->comm->rank, r->tag,
                    (uint64_t)r->bytes};
    dmpi_request *rr = dmpi_match_posted(&env);
    if (rr) {
        uint64_t n = dmpi_recv_set_envelope(rr, &env);
        dmpi_recv_deliver(rr, 0, data, n);
        dmpi_request_complete(rr);
        dmpi_send_reply(r, DMPI_TXW_DATA);
        return;
    }
    dmpi_unexp *u = calloc(1, sizeof *u);
    if (!u) dmpi_protocol_error(dmpi_p2p.me, "out of memory for an unexpected message");
    u->env = env;
    u->peer = dmpi_p2p.me;
    if (r->mode != DMPI_MODE_SYNC && env.len <= dmpi_p2p.self_eager_max) {
        u->kind = DMPI_UX_EAGER;
        u->data = malloc(env.len ? env.len : 1);
        if (!u->data) dmpi_protocol_error(dmpi_p2p.me, "out of memory for an unexpected message");
        if (env.len) memcpy(u->data, data, env.len); /* data may be NULL when empty */
        u->received = env.len;
        u->complete = true;
        dmpi_unexp_add(u);
        dmpi_send_reply(r, DMPI_TXW_DATA);
        return;
    }
    u->kind = DMPI_UX_SELF;
    u->addr = (uint64_t)(uintptr_t)data;
    u->self_sender = r;
    r->proto_int[1] = DMPI_TXW_DONE;
    dmpi_unexp_add(u);
}

static void enqueue(int w, dmpi_request *r)
{
    dmpi_tx_peer *tx = &dmpi_p2p.tx[w];
    r->next = NULL;
    if (tx->tail) tx->tail->next = r;
    else tx->head = r;
    tx->tail = r;
    dmpi_p2p.pending_sends++;
    if (tx->head == r) dmpi_tx_push(w);
}

void dmpi_send_start(dmpi_request *r)
{
    /* relaxed: nobody else sees r yet (a plain store to an _Atomic is
     * sequentially consistent: a full fence on x86) */
    atomic_store_explicit(&r->complete, 0, memory_order_relaxed);
    r->cancelled = false;
    dmpi_status_empty(&r->status);
    if (r->peer == MPI_PROC_NULL) {
        dmpi_request_complete(r);
        return;
    }
    r->bytes = r->count * r->dt->size;
    const void *data;
    if (r->dt->contiguous) {
        data = (const char *)r->buf + r->dt->true_lb;
    } else {
        r->tmp = malloc(r->bytes ? (size_t)r->bytes : 1);
        if (!r->tmp) dmpi_protocol_error(dmpi_p2p.me, "out of memory packing a send buffer");
        dmpi_dt_pack(r->buf, r->count, r->dt, 0, r->tmp, r->bytes);
        data = r->tmp;
    }
    r->proto_u64[0] = 0;
    r->proto_u64[3] = (uint64_t)(uintptr_t)data;
    r->proto_int[1] = DMPI_TXW_DATA;
    int w = world_peer(r);
    r->proto_int[0] = w;
    if (w == dmpi_p2p.me) {
        dmpi_pv_msg(DMPI_PV_SELF, (uint64_t)r->bytes);
        dmpi_self_send(r, data);
        return;
    }
    dmpi_tx_peer *tx = &dmpi_p2p.tx[w];
    uint64_t bytes = (uint64_t)r->bytes;
    bool rts = dmpi_p2p_on_node(w)
                   ? (bytes > dmpi_p2p.eager_max && dmpi_shm.cma_ok) ||
                         (bytes > dmpi_p2p.heap_eager_max &&
                          dmpi_heap_contains(r->proto_u64[3], bytes))
                   : bytes > dmpi_tp_of(w)->eager_max;
    /* A network peer's offer for this message may be waiting in the
     * completion queue: look before choosing between push and RTS (and
     * before this message takes its sequence number). */
    if (rts && !dmpi_p2p_on_node(w) && !tx->head && dmpi_tp_of(w)->push_by_write)
        dmpi_tp_of(w)->progress();
    r->proto_u64[1] = (uint64_t)(uintptr_t)r; /* the cookie replies name it by */
    r->proto_u64[2] = tx->next_seq++;
    r->proto_u64[4] = 0;
    r->proto_int[2] = rts ? 1 : 0;
    r->proto_int[3] = 0;
    /* not to be held up by a late receiver (late.c) */
    if (r->mode != DMPI_MODE_SYNC && bytes <= dmpi_p2p.local_max && dmpi_p2p_on_node(w)) {
        if (rts && !tx->head && dmpi_offer_take(r, w)) {
            r->proto_int[2] = 2;
        } else if (rts && dmpi_late_movable(r)) {
            r->proto_int[3] = DMPI_SEND_MOVABLE;
        } else { /* eager (also mid-size when the shared heap is off) */
            r->proto_int[2] = 0;
            r->proto_int[3] = DMPI_SEND_LOCAL;
        }
    }
    if (r->proto_int[2] == 1) r->proto_int[1] |= DMPI_TXW_DONE;
    else if (r->mode == DMPI_MODE_SYNC) r->proto_int[1] |= DMPI_TXW_ACK;
    static const int8_t pv_of[2][3] = {
        {DMPI_PV_EAGER_NET, DMPI_PV_RNDV_NET, DMPI_PV_RNDV_NET},
        {DMPI_PV_EAGER_SHM, DMPI_PV_RNDV_SHM, DMPI_PV_OFFER_SHM}};
    dmpi_pv_msg(pv_of[dmpi_p2p_on_node(w)][r->proto_int[2]], bytes);
    enqueue(w, r);
}

/* Our send whose RTS to peer carried this cookie and awaits DONE. */
static dmpi_request *find_rts(int peer, uint64_t cookie)
{
    dmpi_request *q = dmpi_p2p.tx[peer].rts;
    while (q && q->proto_u64[1] != cookie) q = q->next;
    return q;
}

dmpi_request *dmpi_p2p_pending_rts(int peer, uint64_t cookie, uint32_t seq)
{
    dmpi_request *q = find_rts(peer, cookie);
    return q && (uint32_t)q->proto_u64[2] == seq ? q : NULL;
}

dmpi_request *dmpi_p2p_take_rts(int peer, uint64_t cookie)
{
    dmpi_tx_peer *tx = &dmpi_p2p.tx[peer];
    dmpi_request *q = find_rts(peer, cookie);
    if (!q) return NULL;
    if (q->prev) q->prev->next = q->next;
    else tx->rts = q->next;
    if (q->next) q->next->prev = q->prev;
    q->next = q->prev = NULL;
    dmpi_p2p.rts_waiting--;
    return q;
}

/* The immediate path of a blocking standard-mode send: a small contiguous
 * message to a peer with nothing queued goes straight into the ring as one
 * packet, with no request at all. Returns false when the general path must
 * be taken (then nothing was sent). */
bool dmpi_send_immediate(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                         dmpi_comm *comm, int ctx_kind)
{
    if (dest < 0 || !dt->contiguous) return false;
    uint64_t bytes = (uint64_t)(count * dt->size);
    if (bytes > dmpi_p2p.frag_max || bytes > dmpi_p2p.eager_max) return false;
    const dmpi_group *g = comm->remote_group ? comm->remote_group : comm->group;
    int w = g->world[dest];
    if (w == dmpi_p2p.me) return false;
    if (!dmpi_p2p_on_node(w) &&
        (bytes > dmpi_tp_of(w)->frag_max || bytes > dmpi_tp_of(w)->eager_max))
        return false;
    dmpi_tx_peer *tx = &dmpi_p2p.tx[w];
    if (tx->head || tx->ctl_head) return false;
    uint32_t cells = dmpi_pkt_cells(bytes);
    dmpi_pkt *p = dmpi_tp_reserve(w, cells);
    if (!p) return false;
    dmpi_tp_write_payload(w, p, (const char *)buf + dt->true_lb, bytes);
    p->type = DMPI_PKT_EAGER; /* the header after the payload */
    p->flags = 0;
    p->seq = tx->next_seq++;
    tx->written = tx->next_seq;
    p->ctx = comm->context_id + (uint32_t)ctx_kind;
    p->tag = tag;
    p->src = comm->rank;
    p->len = bytes;
    p->cookie = 0;
    dmpi_tp_publish(w, p, cells);
    dmpi_pv_msg(dmpi_p2p_on_node(w) ? DMPI_PV_EAGER_SHM : DMPI_PV_EAGER_NET, bytes);
    return true;
}

/* ------------------------------------------------------------ MPI_Cancel
 * A send that is complete stays complete, not cancelled (its message is
 * delivered). One whose message is out but that still waits for the
 * receiver (an RTS waiting for DONE, a synchronous eager message waiting
 * for its ACK) asks the receiver with CANCEL: if the message is still
 * unmatched there, the receiver drops it and answers CANCELLED, and the
 * send completes cancelled; if it matched, the DONE or ACK was sent or is
 * coming, and the send completes normally. Exactly one answer ends the
 * send, so a wait on it returns as soon as the receiver makes progress.
 * A send still queued asks once its last packet is written (dmpi_tx_push);
 * one pushed into the receiver's offer has matched. A send to self that
 * waits for its receive is taken off our own queue at once. */

static void cancel_done(dmpi_request *r)
{
    dmpi_status_set_cancelled(&r->status, 1);
    dmpi_send_reply(r, r->proto_int[1]);
}

void dmpi_send_cancel(dmpi_request *r)
{
    if (r->cancelled || atomic_load(&r->complete)) return;
    r->cancelled = true;
    int w = r->proto_int[0];
    if (w == dmpi_p2p.me) {
        dmpi_unexp *u = dmpi_unexp_find_sender(w, 0, r);
        if (u) {
            dmpi_unexp_remove(u);
            free(u);
            cancel_done(r);
        }
        return;
    }
    if (r->proto_int[1] & DMPI_TXW_DATA) return; /* dmpi_tx_push asks once it is written */
    if (cancel_asks_receiver(r)) dmpi_tx_ctl(w, DMPI_PKT_CANCEL, r->proto_u64[1]);
}

void dmpi_send_cancel_arrived(int peer, uint64_t cookie)
{
    dmpi_unexp *u = dmpi_unexp_find_sender(peer, cookie, NULL);
    if (!u || (!u->complete && u->kind == DMPI_UX_EAGER)) return; /* matched (or arriving) */
    dmpi_unexp_remove(u);
    free(u->data);
    free(u);
    dmpi_tx_ctl(peer, DMPI_PKT_CANCELLED, cookie);
}

void dmpi_send_cancelled(int peer, uint64_t cookie)
{
    /* an RTS's cookie may name its descriptor (late.c), not the request */
    dmpi_request *r = find_rts(peer, cookie);
    if (!r) r = dmpi_request_from_cookie(cookie);
    if (!r || (r->kind != DMPI_REQ_SEND && r->kind != DMPI_REQ_PSEND) ||
        r->proto_int[0] != peer || !r->cancelled ||
        !(r->proto_int[1] & (DMPI_TXW_DONE | DMPI_TXW_ACK)))
        dmpi_protocol_error(peer, "CANCELLED for no send being cancelled");
    if (r->proto_int[1] & DMPI_TXW_DONE) dmpi_p2p_take_rts(peer, cookie);
    cancel_done(r);
}
