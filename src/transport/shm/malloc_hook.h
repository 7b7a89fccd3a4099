/* The interface between libmpi_abi and the optional malloc library
 * libdmpi_malloc.so (tools/malloc/dmpi_malloc.c), which the launcher
 * preloads when DMPI_SHM_MALLOC is on. That library replaces malloc and
 * friends; it forwards to the C library until MPI is initialised, when
 * libmpi_abi finds its attach function (dlsym) and hands it these
 * operations on the process's slice of the node's shared heap. From then
 * on large blocks come from the shared heap, so messages between ordinary
 * malloc'ed buffers are one memcpy (see heap.c). Plain C: the two
 * libraries share nothing but this header. */
#ifndef DMPI_MALLOC_HOOK_H
#define DMPI_MALLOC_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMPI_MALLOC_HOOK_VERSION 1
#define DMPI_MALLOC_ATTACH_SYMBOL "dmpi_malloc_attach"

typedef struct dmpi_malloc_ops {
    uint32_t version;                 /* DMPI_MALLOC_HOOK_VERSION */
    size_t min_bytes;                 /* requests this big or bigger go to the heap */
    uintptr_t lo, hi;                 /* where heap blocks of this process lie */
    void *(*alloc)(size_t n, size_t align); /* align: power of two; NULL when full or closed */
    void (*release)(void *p);         /* p in [lo, hi); a no-op once the heap is closed */
    size_t (*usable)(const void *p);  /* usable bytes of the block at p */
} dmpi_malloc_ops;

/* Exported by libdmpi_malloc.so; ops stays valid until the process exits. */
typedef void dmpi_malloc_attach_fn(const dmpi_malloc_ops *ops);

#endif
