/* Cooperative ("synergistic") single copy of large rendezvous messages.
 * The receiver that matched an RTS publishes its buffer in the pair's coop
 * slot and starts copying chunks (process_vm_readv from the sender); a
 * sender that is waiting for that message's DONE sees the slot during
 * progress and copies chunks too (process_vm_writev into the receiver), so
 * two cores move one message. Chunks are claimed with a CAS on a counter
 * whose high half is the slot's generation: a sender can never claim a
 * chunk of a later message with a stale view of the slot. The receiver
 * sends DONE once every claimed chunk is copied. */
#include "p2p/p2p.h"
#include "transport/shm/heap.h"


#define ST(w) ((w)&1u)
#define GEN(w) ((w) >> 1)

static void copy_chunk(bool is_receiver, int peer, uint64_t local, uint64_t remote, uint64_t n)
{
    dmpi_copy_with_peer(is_receiver, peer, (void *)(uintptr_t)local, remote, n);
}

/* Claims the next chunk of generation gen; -1 when none is left. */
static int64_t claim(dmpi_coop *c, uint32_t gen, uint64_t nchunks)
{
    uint64_t v = atomic_load_explicit(&c->next, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (v & 0xffffffffu) >= nchunks) return -1;
        if (atomic_compare_exchange_weak(&c->next, &v, v + 1)) return (int64_t)(v & 0xffffffffu);
    }
}

/* Copies chunks until none is left; returns how many this side copied. */
static uint64_t work(dmpi_coop *c, uint32_t gen, bool is_receiver, int peer, uint64_t local_base,
                     uint64_t remote_base)
{
    uint64_t len = c->len, chunk = c->chunk, nchunks = (len + chunk - 1) / chunk, mine = 0;
    int64_t i;
    while ((i = claim(c, gen, nchunks)) >= 0) {
        uint64_t off = (uint64_t)i * chunk, n = len - off < chunk ? len - off : chunk;
        copy_chunk(is_receiver, peer, local_base + off, remote_base + off, n);
        atomic_fetch_add_explicit(&c->done, 1, memory_order_release);
        mine++;
    }
    return mine;
}

bool dmpi_coop_pull(dmpi_request *r, int peer, uint64_t src, uint64_t cookie, uint32_t seq,
                    uint64_t n)
{
    if (!dmpi_p2p.coop_min || !r->dt->contiguous || peer == dmpi_p2p.me) return false;
    uint64_t dst = (uint64_t)(uintptr_t)((char *)r->buf + r->dt->true_lb);
    /* Both buffers in the heap: plain memcpy on both sides, worth sharing
     * from a few KiB, in about 8 chunks; else system calls, from coop_min. */
    bool heap = dmpi_heap_contains(src, n) && dmpi_heap_contains(dst, n);
    if (n < (heap ? dmpi_p2p.heap_eager_max : dmpi_p2p.coop_min)) return false;
    uint64_t chunk = dmpi_p2p.coop_chunk;
    if (heap && n / 8 < chunk) chunk = n / 8 < 4096 ? 4096 : n / 8;
    dmpi_coop *c = dmpi_shm_coop(dmpi_p2p.me, peer);
    uint32_t st = atomic_load_explicit(&c->state, memory_order_relaxed);
    uint32_t gen = GEN(st) + 1;
    c->seq = seq;
    c->cookie = cookie;
    c->dst = dst;
    c->src = src;
    c->len = n;
    c->chunk = chunk;
    atomic_store_explicit(&c->done, 0, memory_order_relaxed);
    atomic_store_explicit(&c->next, (uint64_t)gen << 32, memory_order_relaxed);
    atomic_store_explicit(&c->state, (gen << 1) | DMPI_COOP_ACTIVE, memory_order_release);
    work(c, gen, true, peer, dst, src);
    uint64_t nchunks = (n + c->chunk - 1) / c->chunk;
    while (atomic_load_explicit(&c->done, memory_order_acquire) < nchunks) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    atomic_store_explicit(&c->state, gen << 1, memory_order_release);
    r->proto_u64[2] += n;
    dmpi_pv_add(DMPI_PV_COOP_COPIES, 1);
    return true;
}

/* Sender: helps with any copy a receiver is doing for one of our RTS. */
int dmpi_coop_help(void)
{
    int helped = 0;
    for (int i = 0; i < dmpi_tp.nshm; i++) {
        int w = dmpi_tp.shm_peers[i];
        dmpi_coop *c = dmpi_shm_coop(w, dmpi_p2p.me);
        uint32_t st = atomic_load_explicit(&c->state, memory_order_acquire);
        if (ST(st) != DMPI_COOP_ACTIVE) continue;
        /* Only our own requests still waiting for this message's DONE. */
        dmpi_request *r = dmpi_p2p_pending_rts(w, c->cookie, c->seq);
        if (!r) continue;
        helped += (int)work(c, GEN(st), false, w, r->proto_u64[3], c->dst);
    }
    if (helped) dmpi_pv_add(DMPI_PV_COOP_HELPED, (uint64_t)helped);
    return helped;
}
