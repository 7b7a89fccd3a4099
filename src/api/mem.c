/* MPI_Alloc_mem / MPI_Free_mem: memory from the node's shared heap when it
 * is on (any local rank can then copy to or from it directly), else from
 * malloc. Every block handed out is remembered (an open-addressing set of
 * pointers), so MPI_Free_mem of anything else is an error, not a crash. */
#include "accel/accel.h"
#include "api/api.h"
#include "core/info.h"
#include "transport/shm/heap.h"
#include "transport/transport.h"

#include <malloc.h>

#include <stdlib.h>

#define TOMB ((void *)1)
static void **live;
static size_t live_cap, live_used; /* used counts live entries and tombstones */

static size_t slot_of(const void *p, size_t cap)
{
    uintptr_t h = (uintptr_t)p >> 4;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

static bool live_add(void *p)
{
    if ((live_used + 1) * 2 > live_cap) { /* grow (and drop tombstones) */
        size_t cap = live_cap ? live_cap * 2 : 64;
        void **t = calloc(cap, sizeof *t);
        if (!t) return false;
        size_t used = 0;
        for (size_t i = 0; i < live_cap; i++) {
            if (!live[i] || live[i] == TOMB) continue;
            size_t j = slot_of(live[i], cap);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = live[i];
            used++;
        }
        free(live);
        live = t;
        live_cap = cap;
        live_used = used;
    }
    size_t j = slot_of(p, live_cap);
    while (live[j] && live[j] != TOMB) j = (j + 1) & (live_cap - 1);
    if (!live[j]) live_used++;
    live[j] = p;
    return true;
}

static bool live_remove(void *p)
{
    if (!live_cap) return false;
    for (size_t j = slot_of(p, live_cap), n = 0; live[j] && n < live_cap;
         j = (j + 1) & (live_cap - 1), n++) {
        if (live[j] == p) {
            live[j] = TOMB;
            return true;
        }
    }
    return false;
}

/* The memory kind an MPI_Alloc_mem info asks for: the MPI 4.1 key
 * mpi_memory_alloc_kinds naming one kind ("system" and "mpi": ordinary
 * memory; "cuda:device", "cuda:host", "cuda:managed", "emul:device":
 * device memory of an active backend, docs/accel.md). */
static int kind_asked(MPI_Info info, int *kind)
{
    if (info == MPI_INFO_NULL) return MPI_SUCCESS;
    char v[MPI_MAX_INFO_VAL + 1];
    int len = 0;
    if (!dmpi_info_copy_value(dmpi_info_get(info), "mpi_memory_alloc_kinds", v, sizeof v, &len))
        return MPI_SUCCESS;
    *kind = dmpi_mem_kind_from_name(v);
    if (*kind >= 0) return MPI_SUCCESS;
    return dmpi_error_noobj(MPI_ERR_INFO, "MPI_Alloc_mem",
                            "mpi_memory_alloc_kinds \"%s\" is not one kind dmpi allocates "
                            "(system, mpi, cuda:device, cuda:host, cuda:managed, emul:device)",
                            v);
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char *const FN = "MPI_Alloc_mem";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    if (size < 0) return dmpi_error_noobj(MPI_ERR_SIZE, FN, "negative size %ld", (long)size);
    if (!baseptr) return dmpi_error_noobj(MPI_ERR_ARG, FN, "baseptr is NULL");
    int kind = DMPI_MEM_HOST;
    int rc = kind_asked(info, &kind);
    if (rc != MPI_SUCCESS) return rc;
    void *p = NULL;
    if (kind != DMPI_MEM_HOST) {
        dmpi_lock();
        rc = dmpi_accel_dev_alloc((size_t)size, (dmpi_mem_kind)kind, &p);
        dmpi_unlock();
        if (rc != MPI_SUCCESS)
            return dmpi_error_noobj(rc, FN, "cannot allocate %ld bytes of %s: %s", (long)size,
                                    dmpi_mem_kind_name((dmpi_mem_kind)kind), dmpi_accel_error());
    } else {
        dmpi_lock();
        p = dmpi_heap_alloc((size_t)size);
        dmpi_unlock();
        if (!p && posix_memalign(&p, 64, size ? (size_t)size : 1) != 0) p = NULL;
    }
    if (!p) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "cannot allocate %ld bytes", (long)size);
    dmpi_lock();
    bool noted = live_add(p);
    if (!noted && !dmpi_accel_dev_free(p, &rc) && !dmpi_heap_free(p)) free(p);
    dmpi_unlock();
    if (!noted) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    DMPI_CHECK_INIT("MPI_Free_mem");
    if (!base) return MPI_SUCCESS;
    dmpi_lock();
    bool known = live_remove(base);
    int rc = MPI_SUCCESS;
    if (known && dmpi_accel_dev_free(base, &rc)) { /* device memory */
        dmpi_unlock();
        if (rc != MPI_SUCCESS) return dmpi_error_noobj(rc, "MPI_Free_mem", "%s", dmpi_accel_error());
        return MPI_SUCCESS;
    }
    if (known) /* registrations of the block must not outlive it */
        dmpi_tp_memory_released(base, dmpi_heap_contains((uint64_t)(uintptr_t)base, 1)
                                          ? dmpi_heap_usable(base)
                                          : malloc_usable_size(base));
    bool in_heap = known && dmpi_heap_free(base);
    dmpi_unlock();
    if (!known)
        return dmpi_error_noobj(MPI_ERR_BASE, "MPI_Free_mem",
                                "%p was not returned by MPI_Alloc_mem (or is already freed)", base);
    if (!in_heap) free(base);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Free_mem)
