/* Offers this process's slice of the shared heap to the malloc library
 * (malloc_hook.h) when the launcher preloaded it: found with dlsym, so
 * nothing changes for a program that runs without it. */
#include "transport/shm/malloc_hook.h"

#include "core/dmpi.h"
#include "transport/shm/heap.h"

#include <dlfcn.h>
#include <string.h>

static dmpi_malloc_ops ops;

static void release(void *p)
{
    (void)dmpi_heap_free(p);
}

void dmpi_heap_offer_malloc(void)
{
    if (!dmpi_heap.enabled || !dmpi_knob(DMPI_KNOB_SHM_MALLOC)) return;
    void *sym = dlsym(RTLD_DEFAULT, DMPI_MALLOC_ATTACH_SYMBOL);
    if (!sym) return;
    dmpi_malloc_attach_fn *attach;
    memcpy(&attach, &sym, sizeof attach); /* object pointer to function pointer */
    long min = dmpi_knob(DMPI_KNOB_SHM_MALLOC_MIN);
    ops = (dmpi_malloc_ops){
        .version = DMPI_MALLOC_HOOK_VERSION,
        .min_bytes = min < 1 ? 1 : (size_t)min,
        .lo = (uintptr_t)dmpi_heap.slice_lo,
        .hi = (uintptr_t)dmpi_heap.slice_hi,
        .alloc = dmpi_heap_alloc_aligned,
        .release = release,
        .usable = dmpi_heap_usable,
    };
    attach(&ops);
}
