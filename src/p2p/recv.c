/* Receive side of the point-to-point protocol: posting receives, handling
 * the packets that arrive on a peer's ring (eager pieces, rendezvous
 * requests, replies), and completing receives from unexpected messages.
 * Rendezvous: the sender's RTS carries its buffer address; the receiver
 * pulls the data with one process_vm_readv (CMA) into the user buffer and
 * answers DONE. Every field of an arriving packet comes from another
 * process and is checked before use (cell count and payload length against
 * the ring and the message, sequence, type, reply cookies against our own
 * requests): a bad packet ends the job with a protocol error, never an
 * overflow. A receive using a wildcard that its communicator's info hints
 * rule out fails at once (refuse_wildcard). */
#include "p2p/p2p.h"
#include "accel/stage.h"
#include "core/comm_ops.h"

#include <stdlib.h>
#include <string.h>

uint64_t dmpi_recv_capacity(const dmpi_request *r)
{
    return (uint64_t)r->count * (uint64_t)r->dt->size;
}

uint64_t dmpi_recv_set_envelope(dmpi_request *r, const dmpi_env *env)
{
    uint64_t cap = dmpi_recv_capacity(r);
    r->status.MPI_SOURCE = env->src;
    r->status.MPI_TAG = env->tag;
    r->status.MPI_ERROR = env->len > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    uint64_t n = env->len > cap ? cap : env->len;
    dmpi_status_set_bytes(&r->status, (MPI_Count)n);
    r->proto_u64[1] = env->len; /* bytes the sender sends */
    r->proto_u64[2] = 0;        /* bytes arrived so far */
    return n;
}

void dmpi_recv_deliver(dmpi_request *r, uint64_t off, const void *data, uint64_t n)
{
    uint64_t cap = dmpi_recv_capacity(r);
    r->proto_u64[2] += n;
    if (off >= cap) return;
    if (n > cap - off) n = cap - off;
    dmpi_dt_unpack(r->buf, r->count, r->dt, (MPI_Count)off, data, (MPI_Count)n);
}

static void deliver_from_ring(dmpi_request *r, const dmpi_ring *ring, const dmpi_pkt *p,
                              uint64_t off)
{
    const void *ptr[3];
    uint64_t len[3];
    int k = dmpi_ring_payload_pieces(ring, p, ptr, len);
    for (int i = 0; i < k; i++) {
        dmpi_recv_deliver(r, off, ptr[i], len[i]);
        off += len[i];
    }
}

static void send_ack(int peer, uint64_t cookie, dmpi_request *self_sender)
{
    if (self_sender) dmpi_send_reply(self_sender, DMPI_TXW_ACK);
    else dmpi_tx_ctl(peer, DMPI_PKT_ACK, cookie);
}

/* Copies from another process (or ourselves) into the receive buffer. */
static void pull_bytes(int peer, uint64_t addr, dmpi_request *r, uint64_t n)
{
    if (peer == dmpi_p2p.me) {
        dmpi_recv_deliver(r, 0, (const void *)(uintptr_t)addr, n);
        return;
    }
    if (r->dt->contiguous) {
        dmpi_copy_with_peer(true, peer, (char *)r->buf + r->dt->true_lb, addr, n);
        r->proto_u64[2] += n;
        return;
    }
    enum { CHUNK = 256 * 1024 };
    char *bounce = malloc(CHUNK);
    if (!bounce) dmpi_protocol_error(peer, "out of memory for the receive bounce buffer");
    for (uint64_t off = 0; off < n; off += CHUNK) {
        uint64_t c = n - off < CHUNK ? n - off : CHUNK;
        dmpi_copy_with_peer(true, peer, bounce, addr + off, c);
        dmpi_recv_deliver(r, off, bounce, c);
    }
    free(bounce);
}

/* A network peer's read finished: unpack a bounce buffer, answer DONE. */
static void net_read_done(void *ctx, int peer, const char *err)
{
    dmpi_request *r = ctx;
    if (err) dmpi_protocol_error(peer, err);
    uint64_t n = (uint64_t)dmpi_status_bytes(&r->status);
    if (r->tmp) {
        dmpi_recv_deliver(r, 0, r->tmp, n);
        free(r->tmp);
        r->tmp = NULL;
    } else {
        r->proto_u64[2] += n;
    }
    dmpi_tx_ctl(peer, DMPI_PKT_DONE, r->proto_u64[3]);
    dmpi_request_complete(r);
}

/* Rendezvous with a network peer: its transport reads the data, straight
 * into a contiguous receive buffer, else into a bounce buffer. */
static void net_pull(dmpi_request *r, int peer, const dmpi_rts_info *info, uint64_t cookie)
{
    uint64_t n = (uint64_t)dmpi_status_bytes(&r->status);
    void *local = (char *)r->buf + r->dt->true_lb;
    r->proto_u64[3] = cookie;
    r->tmp = NULL;
    if (!r->dt->contiguous && n) {
        local = r->tmp = malloc((size_t)n);
        if (!local) dmpi_protocol_error(peer, "out of memory for the receive bounce buffer");
    }
    if (n == 0) {
        net_read_done(r, peer, NULL);
        return;
    }
    dmpi_tp_of(peer)->read(peer, r, local, n, info, net_read_done);
}

void dmpi_rndv_pull(dmpi_request *r, int peer, const dmpi_rts_info *info, uint64_t cookie,
                    uint32_t seq, dmpi_request *self_sender)
{
    if (peer != dmpi_p2p.me && !dmpi_p2p_on_node(peer)) {
        net_pull(r, peer, info, cookie);
        return;
    }
    uint64_t n = (uint64_t)dmpi_status_bytes(&r->status);
    uint64_t src = info->key & DMPI_RTS_MOVABLE ? dmpi_late_claim(info->addr) : info->addr;
    if (!dmpi_coop_pull(r, peer, src, cookie, seq, n)) pull_bytes(peer, src, r, n);
    if (self_sender) dmpi_send_reply(self_sender, DMPI_TXW_DONE);
    else dmpi_tx_ctl(peer, DMPI_PKT_DONE, cookie);
    dmpi_request_complete(r);
}

void dmpi_recv_from_unexp(dmpi_request *r, dmpi_unexp *u)
{
    /* MPI_Mrecv/Imrecv hand their buffer straight to here: device memory
     * is staged now (the API-level receives arrive with a host copy) */
    if (__builtin_expect(dmpi_accel_on, 0)) dmpi_stage_recv_request(r);
    dmpi_recv_set_envelope(r, &u->env);
    switch (u->kind) {
    case DMPI_UX_EAGER:
        dmpi_recv_deliver(r, 0, u->data, u->received);
        if (u->sync) send_ack(u->peer, u->cookie, u->self_sender);
        if (u->complete) {
            dmpi_request_complete(r);
        } else {
            dmpi_rx_peer *rx = &dmpi_p2p.rx[u->peer];
            rx->inprog_ux = NULL;
            rx->inprog_req = r;
        }
        free(u->data);
        break;
    case DMPI_UX_RTS:
    case DMPI_UX_SELF: {
        dmpi_rts_info info = {u->addr, u->key};
        dmpi_rndv_pull(r, u->peer, &info, u->cookie, u->seq, u->self_sender);
        break;
    }
    }
    u->magic = 0;
    free(u);
}

/* A wildcard that the communicator's info hints rule out (an erroneous
 * program): the receive completes at once with an error whose message
 * says why, never a match. Only user receives are checked: the library's
 * own traffic on the collective context may use wildcards. A handler that
 * ends the job does it here, with that message; otherwise the error code
 * (class and message recorded, nothing raised yet) goes in the status and
 * the call that completes the receive applies the handler. */
static bool refuse_wildcard(dmpi_request *r)
{
    int cls;
    const char *why = dmpi_comm_wildcard_refused(r->comm, r->peer, r->tag, &cls);
    if (!why) return false;
    const dmpi_errhandler *h = r->comm->errh;
    bool ends_job = !h || (h->kind != DMPI_ERRH_RETURN && h->kind != DMPI_ERRH_USER);
    dmpi_comm quiet = {.errh = &dmpi_errh_return}; /* records the message only */
    r->status.MPI_ERROR = dmpi_error(ends_job ? r->comm : &quiet, cls, "receive",
                                     "%s (erroneous)", why);
    dmpi_request_complete(r);
    return true;
}

void dmpi_recv_start(dmpi_request *r)
{
    /* relaxed: nobody else sees r yet (a plain store to an _Atomic is
     * sequentially consistent: a full fence on x86) */
    atomic_store_explicit(&r->complete, 0, memory_order_relaxed);
    r->cancelled = false;
    dmpi_status_empty(&r->status);
    r->status.MPI_ERROR = MPI_SUCCESS;
    if (r->peer == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        dmpi_request_complete(r);
        return;
    }
    if (__builtin_expect(r->peer == MPI_ANY_SOURCE || r->tag == MPI_ANY_TAG, 0) &&
        r->ctx_kind == DMPI_CTX_P2P && refuse_wildcard(r))
        return;
    uint32_t ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
    dmpi_unexp *u = dmpi_match_unexp(ctx, r->peer, r->tag, true);
    if (u) {
        dmpi_recv_from_unexp(r, u);
        return;
    }
    dmpi_posted_add(r);
    dmpi_offer_maybe(r);
}

/* ------------------------------------------------------- arriving packets */

static dmpi_unexp *new_unexp(int peer, const dmpi_env *env, int kind)
{
    dmpi_unexp *u = calloc(1, sizeof *u);
    if (!u) dmpi_protocol_error(peer, "out of memory for an unexpected message");
    u->env = *env;
    u->kind = kind;
    u->peer = peer;
    return u;
}

static void on_eager(int peer, dmpi_ring *ring, dmpi_pkt *p, const dmpi_env *env)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    bool sync = p->flags & DMPI_PKT_F_SYNC;
    dmpi_request *r = dmpi_match_posted(env);
    if (r) {
        dmpi_recv_set_envelope(r, env);
        deliver_from_ring(r, ring, p, 0);
        if (sync) send_ack(peer, p->cookie, NULL);
        if (r->proto_u64[2] >= env->len) dmpi_request_complete(r);
        else rx->inprog_req = r;
        return;
    }
    dmpi_unexp *u = new_unexp(peer, env, DMPI_UX_EAGER);
    u->sync = sync;
    u->cookie = p->cookie;
    u->data = malloc(env->len ? env->len : 1);
    if (!u->data) dmpi_protocol_error(peer, "out of memory buffering an unexpected message");
    dmpi_ring_read_payload(ring, p, 0, u->data, p->plen);
    u->received = p->plen;
    u->complete = u->received >= env->len;
    if (!u->complete) rx->inprog_ux = u;
    dmpi_unexp_add(u);
}

static void on_frag(int peer, dmpi_ring *ring, dmpi_pkt *p)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    if (rx->inprog_req) {
        dmpi_request *r = rx->inprog_req;
        if (p->plen > r->proto_u64[1] - r->proto_u64[2])
            dmpi_protocol_error(peer, "fragment overflows its message");
        deliver_from_ring(r, ring, p, r->proto_u64[2]);
        if (r->proto_u64[2] >= r->proto_u64[1]) {
            rx->inprog_req = NULL;
            dmpi_request_complete(r);
        }
    } else if (rx->inprog_ux) {
        dmpi_unexp *u = rx->inprog_ux;
        if (p->plen > u->env.len - u->received) dmpi_protocol_error(peer, "fragment overflows its message");
        dmpi_ring_read_payload(ring, p, 0, u->data + u->received, p->plen);
        u->received += p->plen;
        if (u->received >= u->env.len) {
            u->complete = true;
            rx->inprog_ux = NULL;
        }
    } else {
        dmpi_protocol_error(peer, "fragment without a message in progress");
    }
}

static void on_rts(int peer, dmpi_pkt *p, const dmpi_env *env)
{
    dmpi_rts_info info;
    memcpy(&info, p->payload, sizeof info);
    dmpi_request *r = dmpi_match_posted(env);
    if (r) {
        dmpi_recv_set_envelope(r, env);
        dmpi_rndv_pull(r, peer, &info, p->cookie, p->seq, NULL);
        return;
    }
    dmpi_unexp *u = new_unexp(peer, env, DMPI_UX_RTS);
    u->addr = info.addr;
    u->key = info.key;
    u->seq = p->seq;
    u->cookie = p->cookie;
    dmpi_unexp_add(u);
}

/* The synchronous send an ACK is for: the cookie must be the address of
 * one of our live requests (checked against the request slabs, never
 * dereferenced blindly), sent to this peer and waiting for an ACK. */
static dmpi_request *ack_request(int peer, uint64_t cookie)
{
    dmpi_request *r = dmpi_request_from_cookie(cookie);
    if (!r || r->proto_int[0] != peer || !(r->proto_int[1] & DMPI_TXW_ACK))
        dmpi_protocol_error(peer, "ACK for no synchronous send waiting for one");
    return r;
}

static void rx_packet(int peer, dmpi_ring *ring, dmpi_pkt *p)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    switch (p->type) {
    case DMPI_PKT_EAGER:
    case DMPI_PKT_RTS: {
        if (p->seq != rx->expect_seq) dmpi_protocol_error(peer, "message out of sequence");
        if (rx->inprog_req || rx->inprog_ux) dmpi_protocol_error(peer, "new message before the last one ended");
        rx->expect_seq++;
        if (!dmpi_offer_withdraw(peer)) dmpi_protocol_error(peer, "message sent past a taken offer");
        dmpi_env env = {p->ctx, p->src, p->tag, p->len};
        if (p->type == DMPI_PKT_EAGER ? p->plen > p->len : p->plen != sizeof(dmpi_rts_info))
            dmpi_protocol_error(peer, "payload length does not fit the message");
        if (p->type == DMPI_PKT_EAGER) on_eager(peer, ring, p, &env);
        else on_rts(peer, p, &env);
        break;
    }
    case DMPI_PKT_PUSHED: {
        if (p->seq != rx->expect_seq) dmpi_protocol_error(peer, "message out of sequence");
        rx->expect_seq++;
        dmpi_env env = {p->ctx, p->src, p->tag, p->len};
        dmpi_offer_complete(peer, &env);
        break;
    }
    case DMPI_PKT_FRAG:
        on_frag(peer, ring, p);
        break;
    case DMPI_PKT_DONE: {
        dmpi_request *r = dmpi_p2p_take_rts(peer, p->cookie);
        if (!r) dmpi_protocol_error(peer, "DONE for no pending rendezvous");
        dmpi_send_reply(r, DMPI_TXW_DONE);
        break;
    }
        break;
    case DMPI_PKT_ACK:
        dmpi_send_reply(ack_request(peer, p->cookie), DMPI_TXW_ACK);
        break;
    case DMPI_PKT_RTR:
        if (dmpi_p2p_on_node(peer)) dmpi_protocol_error(peer, "RTR packet on a node's ring");
        dmpi_offer_rtr_arrived(peer, p);
        break;
    case DMPI_PKT_REVOKE:
    case DMPI_PKT_REVOKED:
        if (dmpi_p2p_on_node(peer)) dmpi_protocol_error(peer, "offer packet on a node's ring");
        if (p->type == DMPI_PKT_REVOKE) dmpi_offer_net_revoke(peer, p->seq);
        else dmpi_offer_net_revoked(peer, p->seq);
        break;
    case DMPI_PKT_CANCEL:
        dmpi_send_cancel_arrived(peer, p->cookie);
        break;
    case DMPI_PKT_CANCELLED:
        dmpi_send_cancelled(peer, p->cookie);
        break;
    case DMPI_PKT_RMA:
        if (dmpi_p2p_on_node(peer) || !dmpi_rma_packet_hook)
            dmpi_protocol_error(peer, "one-sided packet where no window spans nodes");
        dmpi_rma_packet_hook(peer, ring, p);
        break;
    default:
        dmpi_protocol_error(peer, "unknown packet type");
    }
}

/* The peer wrote this header: its cell count and payload length must
 * describe a packet that lies inside the ring before anything reads it. */
static void check_shape(int peer, const dmpi_ring *ring, const dmpi_pkt *p)
{
    if (p->ncells == 0 || p->ncells > ring->ncells || dmpi_pkt_cells(p->plen) > p->ncells)
        dmpi_protocol_error(peer, "malformed packet (cell count or payload length)");
}

/* A network transport's packet: the same checks and handling, on a linear
 * view of its buffer (a "ring" too large to wrap). */
void dmpi_rx_packet_linear(int peer, void *buf, uint64_t len)
{
    dmpi_ring view = {.cells = buf, .ncells = (uint64_t)1 << 16};
    dmpi_pkt *p = buf;
    if (len < DMPI_CELL) dmpi_protocol_error(peer, "short packet");
    p->ncells = (uint16_t)dmpi_pkt_cells(p->plen);
    if (p->plen > DMPI_INLINE_BYTES && len < DMPI_CELL + (p->plen - DMPI_INLINE_BYTES))
        dmpi_protocol_error(peer, "packet shorter than its payload length");
    check_shape(peer, &view, p);
    rx_packet(peer, &view, p);
}

int dmpi_rx_poll_peer(int peer)
{
    dmpi_ring *ring = &dmpi_tp.in[peer];
    int n = 0;
    uint64_t released = ring->pos;
    dmpi_pkt *p;
    while (n < 32 && (p = dmpi_ring_peek(ring)) != NULL) {
        check_shape(peer, ring, p);
        /* Start fetching the payload lines now, so that they come from the
         * sender's cache while the message is matched. */
        for (uint32_t i = 1; i < p->ncells && i <= 16; i++)
            __builtin_prefetch(dmpi_ring_cell(ring, ring->pos + i), 0, 3);
        rx_packet(peer, ring, p);
        dmpi_ring_consume(ring, p);
        n++;
        /* Cells go back in batches (see dmpi_ring_consume), but a
         * kilobyte at a time at most, so that a sender streaming large
         * packets into a full ring never waits for a whole batch. */
        if (ring->pos - released >= 16) {
            dmpi_ring_release(ring);
            released = ring->pos;
        }
    }
    if (ring->pos != released) dmpi_ring_release(ring);
    return n;
}
