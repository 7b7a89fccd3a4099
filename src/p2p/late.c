/* Senders not held up by late receivers. A standard-mode send to a rank
 * of the node, up to local_max bytes, must complete even while its
 * receiver computes outside MPI or has not posted yet, yet an active
 * receiver should still get the single copy of the rendezvous.
 *
 * So nothing extra happens at first: a mid-size message goes as an RTS, but
 * one that names a descriptor in the shared heap (dmpi_movable) rather
 * than the data; the receiver, once matched, claims the descriptor with a
 * compare-and-swap and reads the sender's buffer as before. While the
 * sender progresses (in any MPI call), sends that have waited longer than
 * late_ns are moved: the sender copies the data into a block of its own,
 * publishes it in the descriptor with the same compare-and-swap, and an
 * internal request that owns the copy takes the user's place in the list
 * of sends awaiting DONE; the user's request completes. Exactly one side
 * wins the descriptor, so the receiver reads either the user's buffer
 * (claimed in time) or the copy (moved). An eager message that waits too
 * long for ring space is copied aside the same way, into an internal
 * request that takes its place in the send queue. */
#include "p2p/p2p.h"
#include "transport/shm/heap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool dmpi_late_movable(dmpi_request *r)
{
    dmpi_movable *m = dmpi_heap_alloc(sizeof *m);
    if (!m) return false;
    atomic_init(&m->state, DMPI_MV_AT_SENDER);
    m->src = r->proto_u64[3];
    m->moved = 0;
    r->proto_u64[1] = (uint64_t)(uintptr_t)m; /* the cookie */
    return true;
}

uint64_t dmpi_late_claim(uint64_t descriptor)
{
    /* the descriptor's address came in a packet: only a block of the
     * shared heap, aligned as the allocator hands them out, is trusted */
    if (descriptor % _Alignof(dmpi_movable) || !dmpi_heap_contains(descriptor, sizeof(dmpi_movable)))
        dmpi_protocol_error(dmpi_p2p.me, "rendezvous descriptor outside the shared heap");
    dmpi_movable *m = (dmpi_movable *)(uintptr_t)descriptor;
    uint32_t st = DMPI_MV_AT_SENDER;
    if (atomic_compare_exchange_strong_explicit(&m->state, &st, DMPI_MV_CLAIMED,
                                                memory_order_acq_rel, memory_order_acquire))
        return m->src;
    if (st != DMPI_MV_MOVED) dmpi_protocol_error(dmpi_p2p.me, "rendezvous descriptor claimed twice");
    return m->moved;
}

void dmpi_late_done(dmpi_request *r)
{
    if (r->proto_int[3] == DMPI_SEND_LOCAL) return;
    dmpi_heap_free((void *)(uintptr_t)r->proto_u64[1]);
    r->proto_int[3] = 0;
}

/* ---------------------------------------------------------- moving aside */
static void free_block(void *p)
{
    if (!dmpi_heap_free(p)) free(p);
}

static void free_copy(dmpi_request *q) { free_block((void *)(uintptr_t)q->proto_u64[3]); }

/* A copy of r's bytes, in the shared heap when there is room (the
 * receiver then reads it with memcpy). */
static void *copy_of(const dmpi_request *r)
{
    size_t n = r->bytes ? (size_t)r->bytes : 1;
    void *copy = dmpi_heap_alloc(n);
    if (!copy) copy = malloc(n);
    if (copy && r->bytes) memcpy(copy, (const void *)(uintptr_t)r->proto_u64[3], (size_t)r->bytes);
    return copy;
}

/* An internal request standing for send r, owning a copy of its bytes
 * (proto_u64[3]); reaped when complete. NULL when out of memory. */
static dmpi_request *stand_in(const dmpi_request *r)
{
    void *copy = copy_of(r);
    if (!copy) return NULL;
    dmpi_request *q = dmpi_request_alloc(DMPI_REQ_SEND);
    if (!q) {
        free_block(copy);
        return NULL;
    }
    q->comm = r->comm;
    dmpi_comm_retain(q->comm);
    q->comm_ref = true;
    q->peer = r->peer;
    q->tag = r->tag;
    q->mode = r->mode;
    q->ctx_kind = r->ctx_kind;
    q->bytes = r->bytes;
    memcpy(q->proto_u64, r->proto_u64, sizeof q->proto_u64);
    memcpy(q->proto_int, r->proto_int, sizeof q->proto_int);
    q->proto_u64[3] = (uint64_t)(uintptr_t)copy;
    q->on_free = free_copy;
    q->freed_by_user = true; /* nobody waits on it */
    return q;
}

static void release_user(dmpi_request *r)
{
    r->next = r->prev = NULL;
    r->proto_int[1] = 0;
    r->proto_int[3] = 0;
    free(r->tmp);
    r->tmp = NULL;
    dmpi_request_complete(r);
}

/* r awaits DONE in the peer's list: move its data aside, unless the
 * receiver has claimed it (then it is being read right now). */
static bool move_rts(dmpi_tx_peer *tx, dmpi_request *r)
{
    dmpi_movable *m = (dmpi_movable *)(uintptr_t)r->proto_u64[1];
    if (atomic_load_explicit(&m->state, memory_order_relaxed) != DMPI_MV_AT_SENDER) return false;
    dmpi_request *q = stand_in(r);
    if (!q) return false;
    m->moved = q->proto_u64[3];
    uint32_t st = DMPI_MV_AT_SENDER;
    if (!atomic_compare_exchange_strong_explicit(&m->state, &st, DMPI_MV_MOVED,
                                                 memory_order_acq_rel, memory_order_relaxed)) {
        q->freed_by_user = false;
        dmpi_request_free(q); /* frees the copy */
        return false;
    }
    q->proto_int[3] = DMPI_SEND_MOVED;
    q->prev = r->prev;
    q->next = r->next;
    if (r->prev) r->prev->next = q;
    else tx->rts = q;
    if (r->next) r->next->prev = q;
    release_user(r);
    return true;
}

/* r waits in the send queue for ring space: a stand-in takes its place.
 * A movable one's RTS is not out yet, so its descriptor can simply name
 * the copy (the stand-in stays movable only to free the descriptor). */
static bool move_queued(dmpi_tx_peer *tx, dmpi_request *r, dmpi_request **link)
{
    dmpi_request *q = stand_in(r);
    if (!q) return false;
    if (q->proto_int[3] == DMPI_SEND_MOVABLE)
        ((dmpi_movable *)(uintptr_t)q->proto_u64[1])->src = q->proto_u64[3];
    else
        q->proto_int[3] = 0;
    q->next = r->next;
    *link = q;
    if (tx->tail == r) tx->tail = q;
    release_user(r);
    return true;
}

/* A send someone may wait for: the scan's first sighting of it is noted
 * (proto_u64[4]); true once it has waited late_ns since. */
static bool waited_long(dmpi_request *r, int64_t now)
{
    if (r->freed_by_user || r->cancelled) return false;
    if (!r->proto_u64[4]) r->proto_u64[4] = (uint64_t)now;
    return now - (int64_t)r->proto_u64[4] >= dmpi_p2p.late_ns;
}

int dmpi_late_scan(void)
{
    int64_t now = now_ns();
    int moved = 0;
    for (int i = 0; i < dmpi_tp.nshm; i++) {
        dmpi_tx_peer *tx = &dmpi_p2p.tx[dmpi_tp.shm_peers[i]];
        for (dmpi_request *r = tx->rts, *next; r; r = next) {
            next = r->next;
            if (r->proto_int[3] == DMPI_SEND_MOVABLE && waited_long(r, now))
                moved += move_rts(tx, r);
        }
        for (dmpi_request **link = &tx->head; *link;) {
            dmpi_request *r = *link;
            if ((r->proto_int[3] == DMPI_SEND_LOCAL || r->proto_int[3] == DMPI_SEND_MOVABLE) &&
                waited_long(r, now) && move_queued(tx, r, link))
                moved++;
            link = &(*link)->next;
        }
    }
    if (moved) dmpi_pv_add(DMPI_PV_LATE_MOVED, (uint64_t)moved);
    return moved;
}
