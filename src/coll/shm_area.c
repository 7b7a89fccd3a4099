/* The shared-memory collective area of a communicator (see shm_area.h for
 * its layout and the epoch protocol): set-up, waiting, and giving it back.
 *
 * The area is set up on the first shared-memory collective of a
 * communicator: its rank 0 allocates it from its slice of the node's
 * shared heap (transport/shm/heap.c) and broadcasts the address with a
 * point-to-point broadcast; 0 means "no area", and the communicator then
 * keeps using the point-to-point algorithms. When a process frees the
 * communicator it counts itself out in the area; rank 0 gives the memory
 * back once everyone is out (until then the area waits on a list that is
 * swept at each new set-up and whenever a communicator goes). */
#include "coll/shm_area.h"
#include "coll/hier.h"

#include "transport/shm/heap.h"

#include <stdlib.h>
#include <string.h>

struct dmpi_shm_area {
    _Alignas(DMPI_SHM_LINE) _Atomic int detached; /* processes that freed the communicator */
    int nprocs;
};

static size_t slot_bytes;
static int max_ranks, tree_ranks;
static bool tree_set; /* DMPI_COLL_SHM_TREE_RANKS given: whatever the load */
static bool config_read;

/* Areas of freed communicators that other processes may still read. */
static dmpi_shm_area **retired;
static int nretired, cap_retired;

static void read_config(void)
{
    long s = dmpi_knob(DMPI_KNOB_COLL_SHM_SLOT);
    if (s < DMPI_SHM_LINE) s = DMPI_SHM_LINE;
    if (s > (1L << 26)) s = 1L << 26;
    slot_bytes = ((size_t)s + DMPI_SHM_LINE - 1) / DMPI_SHM_LINE * DMPI_SHM_LINE;
    long m = dmpi_knob(DMPI_KNOB_COLL_SHM_MAX_RANKS);
    max_ranks = m < 0 ? 0 : m > (1L << 20) ? 1 << 20 : (int)m;
    char kb[DMPI_KNOB_STR_MAX];
    tree_set = dmpi_knob_str(DMPI_KNOB_COLL_SHM_TREE_RANKS, kb) != NULL;
    long sr = dmpi_knob(DMPI_KNOB_COLL_SHM_TREE_RANKS);
    tree_ranks = sr < 2 ? 2 : sr > (1L << 20) ? 1 << 20 : (int)sr;
    config_read = true;
}

/* Slots shrink on large communicators so that an area stays within 4 MiB
 * (rank 0's slice of the heap serves it), but not below 1 KiB. */
size_t dmpi_shm_slot_bytes(int p)
{
    if (!config_read) read_config();
    size_t cap = ((size_t)4 << 20) / ((size_t)DMPI_SHM_SLOT_GENERATIONS * (size_t)p);
    cap = cap / DMPI_SHM_LINE * DMPI_SHM_LINE;
    if (cap < 1024) cap = 1024;
    return slot_bytes < cap ? slot_bytes : cap;
}

bool dmpi_shm_use_tree(int p)
{
    if (!config_read) read_config();
    return p >= tree_ranks && (tree_set || !dmpi_rt.oversubscribed);
}

int dmpi_shm_max_ranks(void)
{
    if (!config_read) read_config();
    return dmpi_heap.enabled ? max_ranks : 0;
}

static void sweep_retired(void)
{
    for (int i = 0; i < nretired;) {
        dmpi_shm_area *a = retired[i];
        if (atomic_load_explicit(&a->detached, memory_order_acquire) == a->nprocs) {
            dmpi_heap_free(a);
            retired[i] = retired[--nretired];
        } else {
            i++;
        }
    }
}

dmpi_shm_comm *dmpi_shm_comm_of(dmpi_comm *c)
{
    if (c->shm_coll) return c->shm_coll;
    dmpi_shm_comm *st = calloc(1, sizeof *st);
    /* Falling back alone would leave the others waiting in the area. */
    if (!st) dmpi_abort_job(1, "dmpi: out of memory setting up shared-memory collectives");
    st->p = c->size;
    st->r = c->rank;
    st->slot = dmpi_shm_slot_bytes(st->p);
    uint64_t addr = 0;
    if (c->rank == 0) {
        sweep_retired();
        size_t n = DMPI_SHM_LINE + (size_t)st->p * (DMPI_SHM_LINE_GENERATIONS * DMPI_SHM_LINE +
                                                     DMPI_SHM_SLOT_GENERATIONS * st->slot);
        void *m = dmpi_heap_alloc(n);
        if (m) {
            memset(m, 0, n);
            ((dmpi_shm_area *)m)->nprocs = st->p;
            addr = (uint64_t)(uintptr_t)m;
        }
    }
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = &addr, .rcount = sizeof addr,
                        .rdt = dmpi_coll_byte(), .root = 0};
    if (dmpi_coll_run_sched(c, &b) != MPI_SUCCESS) addr = 0;
    if (addr) {
        st->area = (dmpi_shm_area *)(uintptr_t)addr;
        st->lines = (dmpi_shm_line *)((char *)st->area + DMPI_SHM_LINE);
        st->data = (unsigned char *)(st->lines + DMPI_SHM_LINE_GENERATIONS * st->p);
    }
    c->shm_coll = st;
    return st;
}

void dmpi_coll_comm_gone(dmpi_comm *c)
{
    dmpi_coll_hier_gone(c); /* its node and leaders communicators */
    dmpi_shm_comm *st = c->shm_coll;
    if (!st) return;
    c->shm_coll = NULL;
    dmpi_shm_area *a = st->area;
    free(st);
    if (!a) return;
    atomic_fetch_add_explicit(&a->detached, 1, memory_order_acq_rel);
    if (c->rank != 0) return; /* rank 0 allocated it and gives it back */
    if (nretired == cap_retired) {
        int cap = cap_retired ? 2 * cap_retired : 8;
        dmpi_shm_area **n = realloc(retired, (size_t)cap * sizeof *n);
        if (!n) return; /* the heap keeps the area until finalize */
        retired = n;
        cap_retired = cap;
    }
    retired[nretired++] = a;
    sweep_retired();
}

void dmpi_coll_finalize(void)
{
    /* The heap is unmapped with the segment; only our own records go. */
    dmpi_coll_comm_gone(&dmpi_comm_world_obj);
    dmpi_coll_comm_gone(&dmpi_comm_self_obj);
    free(retired);
    retired = NULL;
    nretired = cap_retired = 0;
}

void dmpi_shm_wait(dmpi_shm_comm *st, uint64_t e, int j)
{
    dmpi_shm_line *l = dmpi_shm_line_of(st, e, j);
    unsigned idle = 0;
    while (atomic_load_explicit(&l->seq, memory_order_acquire) < e) {
        if (dmpi_progress()) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

void dmpi_shm_wait_all(dmpi_shm_comm *st, uint64_t e)
{
    for (int j = 0; j < st->p; j++)
        if (j != st->r) dmpi_shm_wait(st, e, j);
    st->known = e;
}
