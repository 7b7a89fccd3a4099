/* The node-wide shared heap (see heap.c): memory mapped at the same address
 * in every local rank, so either side of a transfer can copy it directly. */
#ifndef DMPI_SHM_HEAP_H
#define DMPI_SHM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dmpi_heap_state {
    void *base;
    size_t size;
    bool enabled;
    void *slice_lo, *slice_hi; /* this rank's allocation slice */
} dmpi_heap_state;

extern dmpi_heap_state dmpi_heap;

/* Set-up steps, driven by dmpi_shm_init: the creator makes the file (of
 * at most the size asked for: dmpi_heap.size says how big) and returns
 * the address (0 on failure); the others attach there. */
uintptr_t dmpi_heap_create(size_t size);
bool dmpi_heap_attach(uintptr_t addr, size_t size);
void dmpi_heap_unlink(void);
void dmpi_heap_enable(bool everyone_mapped, int rank, int nranks);
void dmpi_heap_finalize(void);

void *dmpi_heap_alloc(size_t n);   /* NULL when off or full; 64-byte aligned */
void *dmpi_heap_alloc_aligned(size_t n, size_t align); /* align: a power of two */
bool dmpi_heap_free(void *p);      /* false if p is not from this heap */
size_t dmpi_heap_usable(const void *p); /* usable bytes of a live block */
/* Hands the heap to the malloc library if the launcher preloaded it
 * (malloc_hook.c). */
void dmpi_heap_offer_malloc(void);

/* Is [p, p+n) inside the shared heap (so valid in every local rank)? */
static inline bool dmpi_heap_contains(uint64_t p, uint64_t n)
{
    uint64_t b = (uint64_t)(uintptr_t)dmpi_heap.base;
    return dmpi_heap.enabled && p >= b && p + n <= b + dmpi_heap.size && p + n >= p;
}

#endif
