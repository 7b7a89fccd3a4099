/* The shared-memory area of a communicator for its blocking collectives
 * (shm_area.c) and the epoch protocol over it, used by the algorithms of
 * shm_coll.c.
 *
 * The area of a communicator of p processes holds LG generations of one
 * 64-byte line per process (a sequence word and up to 56 bytes of inline
 * data) and SG generations of one data slot per process. Every step of a
 * shared-memory collective is an epoch e = 1, 2, 3, ... of the
 * communicator, using line generation e % LG and slot generation e % SG;
 * every process takes part in every epoch. In epoch e a process writes
 * only its own line and slot of those generations and then publishes: it
 * stores e in its line's sequence word (release). Readers wait for that
 * word (acquire) and then read.
 *
 * Reuse rule: a process publishes epoch e+1 only after it has finished
 * everything it read in epoch e (epochs run one after the other). So
 * before writing its line in epoch e, a process makes sure that every
 * other process has published e-LG+1, and before writing its slot, e-SG+1
 * (dmpi_shm_begin); epochs in which it waited for everyone tell it that
 * for free. A process that writes nothing but its sequence word needs no
 * check. So a root (of bcast, say) with small data may run LG-1 epochs
 * ahead of its slowest reader, which matters most when processes
 * outnumber cores. */
#ifndef DMPI_SHM_AREA_H
#define DMPI_SHM_AREA_H

#include "coll/coll.h"

#include <stdatomic.h>

#define DMPI_SHM_LINE 64
#define DMPI_SHM_INLINE (DMPI_SHM_LINE - 8)
#define DMPI_SHM_LINE_GENERATIONS 64 /* LG, a power of two */
#define DMPI_SHM_SLOT_GENERATIONS 4  /* SG, a power of two */

typedef struct dmpi_shm_line {
    _Alignas(DMPI_SHM_LINE) _Atomic uint64_t seq; /* last epoch published */
    unsigned char data[DMPI_SHM_INLINE];
} dmpi_shm_line;

typedef struct dmpi_shm_area dmpi_shm_area;

typedef struct dmpi_shm_comm {
    dmpi_shm_area *area; /* NULL: no area, the point-to-point algorithms run */
    int p, r;
    size_t slot;
    uint64_t epoch;         /* last epoch begun here */
    uint64_t known;         /* every process is known to have published this epoch */
    dmpi_shm_line *lines;   /* lines[g * p + j] for line generation g */
    unsigned char *data;    /* slot (g, j) at data + (g * p + j) * slot */
} dmpi_shm_comm;

/* Configuration (environment, read once): slot bytes on a communicator
 * of p processes, largest size. */
size_t dmpi_shm_slot_bytes(int p);
int dmpi_shm_max_ranks(void);
/* Whether reductions that fit a slot on p processes combine in a
 * two-level tree: from DMPI_COLL_SHM_TREE_RANKS processes (8), each with a
 * core (or whatever the load, when the variable is set). */
bool dmpi_shm_use_tree(int p);
/* c's state, set up on first use (collective over c: every process must
 * call it at the same point); its area is NULL if none could be had. */
dmpi_shm_comm *dmpi_shm_comm_of(dmpi_comm *c);

static inline dmpi_shm_line *dmpi_shm_line_of(dmpi_shm_comm *st, uint64_t e, int j)
{
    return &st->lines[(size_t)(e & (DMPI_SHM_LINE_GENERATIONS - 1)) * st->p + j];
}

/* Where process j puts `need` bytes in epoch e: inline in its line when
 * they fit, else in its slot (need <= st->slot). */
static inline unsigned char *dmpi_shm_slot(dmpi_shm_comm *st, uint64_t e, int j, size_t need)
{
    if (need <= DMPI_SHM_INLINE) return dmpi_shm_line_of(st, e, j)->data;
    return st->data + ((size_t)(e & (DMPI_SHM_SLOT_GENERATIONS - 1)) * st->p + j) * st->slot;
}

/* The start of process j's share of n bytes split p ways in whole
 * elements of `unit` bytes (share j is [lo(j), lo(j+1))). */
static inline size_t dmpi_shm_share_lo(size_t n, size_t unit, int j, int p)
{
    return (size_t)((n / unit) * (uint64_t)j / (uint64_t)p) * unit;
}

/* Waits until process j has published epoch e (progressing meanwhile). */
void dmpi_shm_wait(dmpi_shm_comm *st, uint64_t e, int j);
/* Waits until everyone has published epoch e. */
void dmpi_shm_wait_all(dmpi_shm_comm *st, uint64_t e);

/* Starts the next epoch, in which this process will write `writes` bytes
 * (0: only its sequence word), and returns it. */
static inline uint64_t dmpi_shm_begin(dmpi_shm_comm *st, size_t writes)
{
    uint64_t e = ++st->epoch;
    uint64_t gens = writes > DMPI_SHM_INLINE ? DMPI_SHM_SLOT_GENERATIONS
                    : writes ? DMPI_SHM_LINE_GENERATIONS : 0;
    if (gens && st->known + gens - 1 < e) dmpi_shm_wait_all(st, e - (gens - 1));
    return e;
}

static inline void dmpi_shm_publish(dmpi_shm_comm *st, uint64_t e)
{
    atomic_store_explicit(&dmpi_shm_line_of(st, e, st->r)->seq, e, memory_order_release);
}

#endif
