/* Request objects: allocation, completion, and reaping of requests the
 * user freed before they completed.
 *
 * Requests are carved out of slabs that are never returned to the C library
 * while MPI runs (each slab twice the size of the last, so there are few).
 * That gives two guarantees:
 *   - a stale handle reads a request whose magic says "freed": freed
 *     requests wait in a FIFO and are reused only once more than
 *     REUSE_AFTER others have been freed since;
 *   - a reply cookie from a peer (the address of one of our send requests,
 *     echoed back in ACK packets) can be checked: dmpi_request_from_cookie
 *     accepts only the address of a live request in one of the slabs, never
 *     dereferencing anything else. */
#include "core/dmpi.h"

#include <stdlib.h>
#include <string.h>

enum { REUSE_AFTER = 64, FIRST_SLAB = 64, MAX_SLABS = 40 };

static struct {
    dmpi_request *base;
    size_t n, used;
} slabs[MAX_SLABS];
static int nslabs;
static dmpi_request *fifo_head, *fifo_tail; /* freed, oldest first */
static size_t nfree;

static dmpi_request *carve(void)
{
    if (nslabs == 0 || slabs[nslabs - 1].used == slabs[nslabs - 1].n) {
        if (nslabs == MAX_SLABS) return NULL;
        size_t n = nslabs ? 2 * slabs[nslabs - 1].n : FIRST_SLAB;
        dmpi_request *b = calloc(n, sizeof *b);
        if (!b) return NULL;
        slabs[nslabs].base = b;
        slabs[nslabs].n = n;
        slabs[nslabs].used = 0;
        nslabs++;
    }
    return &slabs[nslabs - 1].base[slabs[nslabs - 1].used++];
}

dmpi_request *dmpi_request_alloc(dmpi_req_kind kind)
{
    dmpi_request *r;
    if (nfree > REUSE_AFTER) {
        r = fifo_head;
        fifo_head = r->next;
        if (!fifo_head) fifo_tail = NULL;
        nfree--;
    } else if ((r = carve()) == NULL && (r = fifo_head) != NULL) {
        fifo_head = r->next; /* out of slabs: reuse sooner */
        if (!fifo_head) fifo_tail = NULL;
        nfree--;
    }
    if (!r) return NULL;
    dmpi_request_init(r, kind);
    return r;
}

void dmpi_request_init(dmpi_request *r, dmpi_req_kind kind)
{
    /* A copy of a zero object, not memset: GCC turns a memset of this
     * size into `rep stos`, whose start-up cost made this function a
     * sixth of the receiver's time in a stream of small MPI_Irecv. */
    static const dmpi_request blank;
    *r = blank;
    r->magic = DMPI_MAGIC_REQ;
    r->kind = kind;
    dmpi_status_empty(&r->status);
}

/* The request every immediate nonblocking send returns (send_common in
 * api/p2p.c): the message was in the peer's ring before the call returned,
 * so there is nothing left to track. It is complete, never changes and is
 * never freed; waiting on it or freeing it only clears the handle. That
 * saves a request's allocation, reference counts and release on every
 * small MPI_Isend. */
static dmpi_request done_send = {
    .magic = DMPI_MAGIC_REQ,
    .kind = DMPI_REQ_SEND,
    .complete = 1,
    .status = {.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS},
};

dmpi_request *dmpi_request_completed_send(void) { return &done_send; }

void dmpi_request_teardown(dmpi_request *r)
{
    if (r->on_free) r->on_free(r);
    if (r->comm_ref) dmpi_comm_release(r->comm);
    if (r->dt) dmpi_dt_release(r->dt);
    r->dt = NULL;
    r->comm_ref = false;
    free(r->tmp);
    r->tmp = NULL;
    r->magic = DMPI_MAGIC_FREED;
}

void dmpi_request_free(dmpi_request *r)
{
    if (!r || r == &done_send) return;
    dmpi_request_teardown(r);
    r->next = NULL;
    if (fifo_tail) fifo_tail->next = r;
    else fifo_head = r;
    fifo_tail = r;
    nfree++;
}

void dmpi_request_complete(dmpi_request *r)
{
    if (__builtin_expect(r->on_complete != NULL, 0)) r->on_complete(r);
    atomic_store_explicit(&r->complete, 1, memory_order_release);
    if (r->freed_by_user) dmpi_request_free(r);
}

dmpi_request *dmpi_request_get(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL || (uintptr_t)(void *)h < 0x1000) return NULL;
    dmpi_request *r = (dmpi_request *)(void *)h;
    return r->magic == DMPI_MAGIC_REQ ? r : NULL;
}

dmpi_request *dmpi_request_from_cookie(uint64_t cookie)
{
    for (int i = 0; i < nslabs; i++) {
        uint64_t b = (uint64_t)(uintptr_t)slabs[i].base;
        if (cookie < b || cookie >= b + slabs[i].used * sizeof(dmpi_request)) continue;
        if ((cookie - b) % sizeof(dmpi_request) != 0) return NULL;
        dmpi_request *r = (dmpi_request *)(uintptr_t)cookie;
        return r->magic == DMPI_MAGIC_REQ ? r : NULL;
    }
    return NULL;
}
