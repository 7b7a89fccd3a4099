/* dmpi's performance counters (MPI_T pvars, listed in core/pvar_list.h):
 * one per-process array of relaxed atomics. Adding is a load and a store
 * (no read-modify-write instruction, no fence), so the counters cost a
 * few cycles on the paths they count; calls into the library are
 * serialised (one thread, or the big lock), so no count is lost. */
#ifndef DMPI_PVAR_H
#define DMPI_PVAR_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/knob.h"
#include "core/pvar_list.h"

#define DMPI_PVAR(ID, NAME, CLASS, CAT, VERB, DESC) DMPI_PV_##ID,
enum { DMPI_PVAR_LIST DMPI_NPVARS };
#undef DMPI_PVAR

typedef struct dmpi_pvar_desc {
    const char *name, *desc;
    int var_class, category, verbosity; /* MPI_T_* values */
} dmpi_pvar_desc;

extern const dmpi_pvar_desc dmpi_pvar_descs[DMPI_NPVARS];
extern _Atomic uint64_t dmpi_pv[DMPI_NPVARS];

static inline uint64_t dmpi_pv_get(int id)
{
    return atomic_load_explicit(&dmpi_pv[id], memory_order_relaxed);
}

static inline void dmpi_pv_set(int id, uint64_t v)
{
    atomic_store_explicit(&dmpi_pv[id], v, memory_order_relaxed);
}

static inline void dmpi_pv_add(int id, uint64_t n) { dmpi_pv_set(id, dmpi_pv_get(id) + n); }

/* A message and its bytes (id and the _BYTES counter after it). */
static inline void dmpi_pv_msg(int id, uint64_t bytes)
{
    dmpi_pv_add(id, 1);
    dmpi_pv_add(id + 1, bytes);
}

/* The unexpected queue grew or shrank by one. */
static inline void dmpi_pv_unexp(int delta)
{
    uint64_t n = dmpi_pv_get(DMPI_PV_UNEXP_LEN) + (uint64_t)(int64_t)delta;
    dmpi_pv_set(DMPI_PV_UNEXP_LEN, n);
    if (n > dmpi_pv_get(DMPI_PV_UNEXP_MAX)) dmpi_pv_set(DMPI_PV_UNEXP_MAX, n);
}

#endif
