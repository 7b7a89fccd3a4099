/* Receiver-first rendezvous with a peer on another node (see offer.c for
 * the protocol between ranks of one node). The receiver exposes its
 * buffer and sends an RTR packet naming it, with the sequence number and
 * envelope it expects next. The sender keeps the peer's latest RTR; when
 * the message with that sequence number is a rendezvous send whose
 * envelope fits, it writes the data into the offered buffer and sends
 * PUSHED (the transport lands a packet sent after a write after the data);
 * its request completes when the write has left its buffer. Otherwise it
 * sends as usual, and that message, arriving where PUSHED would have,
 * tells the receiver that the offer was not taken. A receive with an
 * offer out is cancelled by asking for it back (REVOKE): the sender drops
 * the offer unless it took it already and answers REVOKED after anything
 * it sent for it; the receive ends, cancelled, at the first of REVOKED
 * or the sender's next message that does not complete it. */
#include "p2p/p2p.h"

#include <string.h>

/* A one-cell control packet about the offer for message seq. */
static void offer_ctl(int w, uint8_t type, uint32_t seq)
{
    dmpi_pkt *p = dmpi_tp_reserve(w, 1);
    if (!p) dmpi_protocol_error(w, "no room for an offer control packet");
    p->type = type;
    p->flags = 0;
    p->seq = seq;
    p->plen = 0;
    p->len = 0;
    p->cookie = 0;
    dmpi_tp_publish(w, p, 1);
}

void dmpi_offer_net(dmpi_request *r, int w, uint64_t cap)
{
    const dmpi_tp_ops *t = dmpi_tp_of(w);
    dmpi_rx_peer *rx = &dmpi_p2p.rx[w];
    dmpi_rts_info info;
    void *handle = NULL;
    if (t->expose(w, (char *)r->buf + r->dt->true_lb, cap, &info, &handle) != 0) return;
    dmpi_pkt *p = dmpi_tp_reserve(w, 1);
    if (!p) { /* a network channel always has room; be safe anyway */
        t->unexpose(handle);
        return;
    }
    uint32_t seq = rx->expect_seq;
    dmpi_tp_write_payload(w, p, &info, sizeof info);
    p->type = DMPI_PKT_RTR;
    p->flags = 0;
    p->seq = seq;
    p->ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
    p->tag = r->tag;
    p->src = r->peer;
    p->len = cap;
    p->cookie = 0;
    dmpi_tp_publish(w, p, 1);
    rx->offer_req = r;
    rx->offer_exposed = handle;
    rx->offer_seq = seq; /* (p may be reused once published) */
    rx->offer_cancel = false;
}

/* The offer is over (its message came, PUSHED or not, or REVOKED): a
 * cancelled receive that the message did not complete ends now. */
void dmpi_offer_net_release(int peer)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    dmpi_request *r = rx->offer_req;
    if (rx->offer_exposed) dmpi_tp_of(peer)->unexpose(rx->offer_exposed);
    rx->offer_exposed = NULL;
    rx->offer_req = NULL;
    if (rx->offer_cancel && r && dmpi_posted_remove(r)) {
        dmpi_status_set_cancelled(&r->status, 1);
        r->status.MPI_ERROR = MPI_SUCCESS;
        dmpi_request_complete(r);
    }
    rx->offer_cancel = false;
}

bool dmpi_offer_net_cancel(int w)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[w];
    if (!rx->offer_cancel) offer_ctl(w, DMPI_PKT_REVOKE, rx->offer_seq);
    rx->offer_cancel = true;
    return false; /* not yet: the answer ends it (dmpi_offer_net_release) */
}

/* Sender: the receiver wants offer seq back. Taken already, its PUSHED
 * went before this answer. */
void dmpi_offer_net_revoke(int w, uint32_t seq)
{
    dmpi_rtr *o = &dmpi_p2p.tx[w].rtr;
    if (o->valid && o->seq == seq) o->valid = false;
    offer_ctl(w, DMPI_PKT_REVOKED, seq);
}

void dmpi_offer_net_revoked(int w, uint32_t seq)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[w];
    if (rx->offer_req && rx->offer_seq == seq) dmpi_offer_net_release(w);
}

void dmpi_offer_rtr_arrived(int peer, const dmpi_pkt *p)
{
    if (p->plen != sizeof(dmpi_rts_info)) dmpi_protocol_error(peer, "malformed RTR");
    /* Pushing needs our transport to land PUSHED after the data: without
     * that, never take offers (the receiver lets them go when our
     * message comes). */
    if (!dmpi_tp_of(peer)->push_by_write) return;
    dmpi_tx_peer *tx = &dmpi_p2p.tx[peer];
    /* That message has gone already (eager or RTS): the receiver will see
     * it where PUSHED would have been, and let the offer go. */
    if ((int32_t)(p->seq - tx->written) < 0) return;
    dmpi_rtr *o = &tx->rtr;
    o->valid = true;
    o->seq = p->seq;
    o->ctx = p->ctx;
    o->tag = p->tag;
    o->src = p->src;
    o->cap = p->len;
    memcpy(&o->info, p->payload, sizeof o->info);
}

/* The write has left the send buffer: the send is complete. */
static void pushed(void *r, int peer, const char *err)
{
    if (err) dmpi_protocol_error(peer, err);
    dmpi_send_reply(r, DMPI_TXW_DONE);
}

bool dmpi_offer_net_take(dmpi_request *r, int w)
{
    dmpi_rtr *o = &dmpi_p2p.tx[w].rtr;
    uint32_t seq = (uint32_t)r->proto_u64[2];
    if (!o->valid || o->seq != seq) return false;
    o->valid = false; /* this message answers the offer, taken or not */
    uint64_t bytes = (uint64_t)r->bytes;
    if (o->ctx != r->comm->context_id + (uint32_t)r->ctx_kind || o->src != r->comm->rank ||
        !(o->tag == MPI_ANY_TAG || o->tag == r->tag) || o->cap < bytes)
        return false;
    dmpi_tp_of(w)->write(w, r, (const void *)(uintptr_t)r->proto_u64[3], bytes, &o->info, pushed);
    return true;
}
