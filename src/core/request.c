/* Request objects: allocation from a free list (memory is never returned
 * to the C library while MPI runs, so a stale handle reads a cleared magic
 * instead of faulting), completion, and reaping of requests the user freed
 * before they completed. */
#include "core/dmpi.h"

#include <stdlib.h>
#include <string.h>

static dmpi_request *free_list;

dmpi_request *dmpi_request_alloc(dmpi_req_kind kind)
{
    dmpi_request *r = free_list;
    if (r) free_list = r->next;
    else r = malloc(sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->magic = DMPI_MAGIC_REQ;
    r->kind = kind;
    dmpi_status_empty(&r->status);
    return r;
}

void dmpi_request_free(dmpi_request *r)
{
    if (!r) return;
    if (r->on_free) r->on_free(r);
    if (r->comm_ref) dmpi_comm_release(r->comm);
    r->comm_ref = false;
    free(r->tmp);
    r->tmp = NULL;
    r->magic = DMPI_MAGIC_FREED;
    r->next = free_list;
    free_list = r;
}

void dmpi_request_complete(dmpi_request *r)
{
    atomic_store_explicit(&r->complete, 1, memory_order_release);
    if (r->freed_by_user) dmpi_request_free(r);
}

dmpi_request *dmpi_request_get(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL || (uintptr_t)(void *)h < 0x1000) return NULL;
    dmpi_request *r = (dmpi_request *)(void *)h;
    return r->magic == DMPI_MAGIC_REQ ? r : NULL;
}

void dmpi_request_release_all(void)
{
    while (free_list) {
        dmpi_request *r = free_list;
        free_list = r->next;
        free(r);
    }
}
