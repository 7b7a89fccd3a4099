/* Quarantine for freed objects (see objpool.c): a freed communicator,
 * group, op or error handler keeps its memory for a while, with its magic
 * reading DMPI_MAGIC_FREED, so that a stale handle is reported as invalid
 * instead of reading freed memory. */
#ifndef DMPI_OBJPOOL_H
#define DMPI_OBJPOOL_H

#include <pthread.h>
#include <stddef.h>

typedef struct dmpi_objpool {
    size_t size;         /* bytes of one object (at least 16) */
    pthread_mutex_t mu;
    void *head, *tail;   /* freed objects, oldest first */
    size_t n;
} dmpi_objpool;

#define DMPI_OBJPOOL_INIT(bytes) {(bytes), PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0}

/* A zeroed object of the pool's size: the oldest quarantined one when
 * enough are waiting, else fresh memory. NULL when out of memory. */
void *dmpi_obj_alloc(dmpi_objpool *p);
/* Marks obj freed (its first 32-bit word becomes DMPI_MAGIC_FREED) and
 * quarantines it; memory of objects from malloc/calloc of the pool's size
 * may be given too. Past a bound the oldest is returned to the C library. */
void dmpi_obj_free(dmpi_objpool *p, void *obj);

/* The error handlers' pool (released in core/comm_ops.c, made by the api). */
extern dmpi_objpool dmpi_errh_pool;

#endif
