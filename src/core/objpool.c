/* Freed-object quarantine (interface in objpool.h). Objects start with a
 * 32-bit magic; a freed one is queued with its magic set to
 * DMPI_MAGIC_FREED and a link stored after the magic, so a stale handle
 * still points at readable memory whose magic says "freed". Allocation
 * reuses the oldest queued object once more than REUSE_AFTER wait (a
 * handle must be freed that many times over before its memory is reused);
 * past KEEP_MAX the oldest goes back to the C library, bounding the memory
 * of kinds whose allocations do not come from the pool. */
#include "core/objpool.h"
#include "core/dmpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { REUSE_AFTER = 64, KEEP_MAX = 256 };

/* The queue link lives at offset 8, after the magic. */
static void **link_of(void *obj) { return (void **)((char *)obj + 8); }

void *dmpi_obj_alloc(dmpi_objpool *p)
{
    void *obj = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->n > REUSE_AFTER) {
        obj = p->head;
        p->head = *link_of(obj);
        if (!p->head) p->tail = NULL;
        p->n--;
    }
    pthread_mutex_unlock(&p->mu);
    if (obj) {
        memset(obj, 0, p->size);
        return obj;
    }
    return calloc(1, p->size);
}

void dmpi_obj_free(dmpi_objpool *p, void *obj)
{
    if (!obj) return;
    *(uint32_t *)obj = DMPI_MAGIC_FREED;
    *link_of(obj) = NULL;
    void *old = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->tail) *link_of(p->tail) = obj;
    else p->head = obj;
    p->tail = obj;
    if (++p->n > KEEP_MAX) {
        old = p->head;
        p->head = *link_of(old);
        p->n--;
    }
    pthread_mutex_unlock(&p->mu);
    free(old);
}
