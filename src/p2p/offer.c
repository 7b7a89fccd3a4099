/* Receiver-first rendezvous. When a large receive is posted before its
 * message and it is certain to be the receive that the next message from
 * that peer matches (if the envelope fits), the receiver offers its buffer
 * in the pair's offer slot in shared memory, tagged with the sequence
 * number it expects next. A sender about to send that sequence number with
 * a matching envelope takes the offer (CAS), writes the data straight into
 * the receiver's buffer with one process_vm_writev, and sends a PUSHED
 * packet; its request completes without waiting for any reply. If the
 * sender had already sent an RTS or eager message for that sequence number
 * (both sides acted at once), the receiver withdraws the offer when that
 * message arrives and the sender-first path wins. The slot's state word
 * carries a generation count, so a sender never takes an offer that was
 * withdrawn and made again with other fields meanwhile. Peers on other
 * nodes get the same protocol by packets (offer_net.c). */
#include "p2p/p2p.h"


#define ST(word) ((word)&3u)
#define GEN_NEXT(word) (((word) & ~3u) + 4u)


void dmpi_offer_maybe(dmpi_request *r)
{
    if (r->peer < 0 || !r->dt->contiguous) return;
    uint64_t cap = dmpi_recv_capacity(r);
    if (cap < dmpi_p2p.offer_min) return;
    const dmpi_group *g = r->comm->remote_group ? r->comm->remote_group : r->comm->group;
    int w = g->world[r->peer];
    if (w == dmpi_p2p.me) return;
    const dmpi_tp_ops *t = dmpi_tp_of(w);
    if (t->shared_slots ? !dmpi_shm.cma_ok : !t->push_by_write || cap <= t->eager_max) return;
    dmpi_rx_peer *rx = &dmpi_p2p.rx[w];
    if (rx->offer_req || rx->inprog_req || rx->inprog_ux) return;
    if (dmpi_posted_earlier_competitor(r)) return;
    if (!t->shared_slots) {
        dmpi_pv_add(DMPI_PV_RECV_OFFERS, 1);
        dmpi_offer_net(r, w, cap);
        return;
    }
    dmpi_offer *o = dmpi_shm_offer(dmpi_p2p.me, w);
    uint32_t st = atomic_load_explicit(&o->state, memory_order_relaxed);
    if (ST(st) != DMPI_OFFER_IDLE) return;
    o->seq = rx->expect_seq;
    o->ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
    o->tag = r->tag;
    o->src = r->peer;
    o->addr = (uint64_t)(uintptr_t)((char *)r->buf + r->dt->true_lb);
    o->cap = cap;
    atomic_store_explicit(&o->state, GEN_NEXT(st) | DMPI_OFFER_OFFERED, memory_order_release);
    rx->offer_req = r;
    dmpi_pv_add(DMPI_PV_RECV_OFFERS, 1);
}

bool dmpi_offer_withdraw_req(dmpi_request *r)
{
    for (int w = 0; w < dmpi_p2p.nprocs; w++) {
        if (dmpi_p2p.rx[w].offer_req != r) continue;
        /* a network offer is the sender's to take until it says it won't */
        return dmpi_p2p_on_node(w) ? dmpi_offer_withdraw(w) : dmpi_offer_net_cancel(w);
    }
    return true;
}

bool dmpi_offer_withdraw(int peer)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    if (!rx->offer_req) return true;
    if (!dmpi_p2p_on_node(peer)) { /* the sender's next message came: not taken */
        dmpi_offer_net_release(peer);
        return true;
    }
    dmpi_offer *o = dmpi_shm_offer(dmpi_p2p.me, peer);
    uint32_t st = atomic_load_explicit(&o->state, memory_order_acquire);
    if (ST(st) != DMPI_OFFER_OFFERED) return false; /* taken: data is coming */
    if (!atomic_compare_exchange_strong(&o->state, &st, GEN_NEXT(st) | DMPI_OFFER_IDLE))
        return false;
    rx->offer_req = NULL;
    return true;
}

/* Receiver: the PUSHED packet for the offer's message arrived. */
void dmpi_offer_complete(int peer, const dmpi_env *env)
{
    dmpi_rx_peer *rx = &dmpi_p2p.rx[peer];
    dmpi_request *r = rx->offer_req;
    if (!r) dmpi_protocol_error(peer, "data pushed without an offer");
    if (!dmpi_p2p_on_node(peer)) {
        if (env->len > dmpi_recv_capacity(r)) dmpi_protocol_error(peer, "pushed past the offer");
        rx->offer_cancel = false; /* the data came: the receive completes, not cancelled */
        dmpi_offer_net_release(peer);
        dmpi_posted_remove(r);
        dmpi_recv_set_envelope(r, env);
        r->proto_u64[2] = env->len;
        dmpi_request_complete(r);
        return;
    }
    dmpi_offer *o = dmpi_shm_offer(dmpi_p2p.me, peer);
    uint32_t st = atomic_load_explicit(&o->state, memory_order_acquire);
    if (ST(st) != DMPI_OFFER_TAKEN) dmpi_protocol_error(peer, "pushed data for an offer not taken");
    atomic_store_explicit(&o->state, GEN_NEXT(st) | DMPI_OFFER_IDLE, memory_order_release);
    rx->offer_req = NULL;
    dmpi_posted_remove(r);
    dmpi_recv_set_envelope(r, env);
    dmpi_request_complete(r);
}

/* Sender: takes the receiver's offer for message r if it fits; on success
 * the data has been written into the receiver's buffer. */
bool dmpi_offer_take(dmpi_request *r, int w)
{
    if (!dmpi_p2p_on_node(w)) return dmpi_offer_net_take(r, w);
    dmpi_offer *o = dmpi_shm_offer(w, dmpi_p2p.me);
    uint32_t st = atomic_load_explicit(&o->state, memory_order_acquire);
    if (ST(st) != DMPI_OFFER_OFFERED) return false;
    uint64_t bytes = (uint64_t)r->bytes;
    if (o->seq != (uint32_t)r->proto_u64[2] ||
        o->ctx != r->comm->context_id + (uint32_t)r->ctx_kind || o->src != r->comm->rank ||
        !(o->tag == MPI_ANY_TAG || o->tag == r->tag) || o->cap < bytes)
        return false;
    uint64_t addr = o->addr;
    if (!atomic_compare_exchange_strong(&o->state, &st, (st & ~3u) | DMPI_OFFER_TAKEN))
        return false;
    dmpi_copy_with_peer(false, w, (void *)(uintptr_t)r->proto_u64[3], addr, bytes);
    return true;
}
