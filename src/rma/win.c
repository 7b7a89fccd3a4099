/* Window objects: creation of the four flavors, free, handle lookup, the
 * attach table of dynamic windows, and the hooks core/attr.h asks of the
 * RMA layer (attribute slot, predefined window attributes).
 *
 * Dynamic windows: each rank keeps the regions it attached in a sorted
 * array in its own memory, which grows as needed (no fixed limit), and
 * publishes its address, length and a sequence number (a seqlock) in its
 * record of the control block. An origin keeps a copy of each target's
 * array, fetched with process_vm_readv when the sequence number changed,
 * and looks an access up by binary search.
 *
 * Creation (collective): the communicator is duplicated (fence and free
 * synchronise among exactly these ranks, apart from the user's traffic),
 * every rank's size, displacement unit, base address and world rank are
 * allgathered, and rank 0 creates the window's segment
 * /dmpi-<jobid>-w<world rank>-<n> (0600): the control block, followed for
 * MPI_Win_allocate(_shared) by every rank's memory. Rank 0 broadcasts the
 * name, the others map it, all agree on success (allreduce), and rank 0
 * unlinks it at once: nothing is left in /dev/shm whatever happens later
 * (and mpiexec removes /dev/shm/dmpi-<jobid>* if a rank dies in between).
 *
 * Memory layout of the allocate flavors: MPI_Win_allocate_shared places
 * the ranks' memory contiguously (rank i+1 starts where rank i ends)
 * unless alloc_shared_noncontig is given, which, like MPI_Win_allocate,
 * starts each rank's memory on a page (64 bytes for small MPI_Win_allocate
 * pieces; mpi_minimum_memory_alignment up to a page is honoured).
 * MPI_Win_create memory that lies in the node's shared heap (memory of
 * MPI_Alloc_mem) is mapped at the same address everywhere, so it is
 * reached like allocated memory; other memory by CMA. */
#include "rma/rma.h"
#include "rma/fast.h"
#include "coll/coll.h"
#include "core/attr.h"
#include "core/comm_ops.h"
#include "core/handle_ints.h"
#include "pmi/pmi.h"
#include "transport/shm/heap.h"
#include "transport/shm/shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/uio.h>

#define PAGE 4096

typedef struct rank_rec {
    int64_t size, disp_unit, align;
    uint64_t base;
    int32_t world, status;
} rank_rec;

typedef struct seg_msg {
    int32_t status, pad;
    uint64_t bytes;
    char name[96];
} seg_msg;

static unsigned seg_seq;

static size_t up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Alignment of my piece of an allocate-flavor window. */
static int64_t my_align(int flavor, MPI_Aint size, const dmpi_info *info, bool noncontig)
{
    int64_t a = flavor == MPI_WIN_FLAVOR_SHARED ? (noncontig ? PAGE : 1)
                                                : (size >= 65536 ? PAGE : 64);
    const char *v = info ? dmpi_info_lookup(info, "mpi_minimum_memory_alignment") : NULL;
    if (v && !(flavor == MPI_WIN_FLAVOR_SHARED && !noncontig)) {
        long want = strtol(v, NULL, 0);
        if (want > a && want <= PAGE && (want & (want - 1)) == 0) a = want;
    }
    return a;
}

/* Offsets of every rank's memory in the segment after `ctl` bytes of
 * control block; returns the segment size. */
static size_t place(const rank_rec *r, int n, int flavor, bool noncontig, size_t ctl,
                    size_t *off)
{
    size_t cur = ctl;
    for (int i = 0; i < n; i++) {
        if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
            if (flavor == MPI_WIN_FLAVOR_ALLOCATE || noncontig) cur = up(cur, (size_t)r[i].align);
            off[i] = cur;
            cur += (size_t)r[i].size;
        } else {
            off[i] = 0;
        }
    }
    return up(cur > ctl ? cur : ctl, PAGE);
}

/* Is rank i's Win_create memory in the shared heap (the same answer on
 * every rank: the heap is at one address everywhere)? */
static bool in_heap(const rank_rec *r)
{
    return r->size > 0 && dmpi_heap_contains(r->base, (uint64_t)r->size);
}

static bool same_node(const rank_rec *a, const rank_rec *b)
{
    return dmpi_rt.node_of[a->world] == dmpi_rt.node_of[b->world];
}

static void setup_targets(dmpi_win *w, const rank_rec *r, const size_t *off)
{
    w->all_mapped = true;
    for (int t = 0; t < w->size; t++) {
        dmpi_win_target *tg = &w->tgt[t];
        tg->size = r[t].size;
        tg->disp_unit = r[t].disp_unit;
        tg->world = r[t].world;
        bool me = t == w->rank;
        if (!same_node(&r[t], &r[w->rank])) { /* address and key: dmpi_rma_net_open */
            tg->ops = &dmpi_rma_net_ops;
            w->all_mapped = false;
            continue;
        }
        if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED) {
            tg->base = (uintptr_t)((char *)w->seg + off[t]);
            tg->mapped = true;
        } else if (w->flavor == MPI_WIN_FLAVOR_CREATE && in_heap(&r[t])) {
            tg->base = (uintptr_t)r[t].base;
            tg->mapped = true;
        } else {
            tg->base = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (uintptr_t)r[t].base;
            tg->ops = me ? &dmpi_rma_direct_ops : &dmpi_rma_cma_ops;
            tg->qbase = me && w->flavor == MPI_WIN_FLAVOR_CREATE ? (void *)tg->base : NULL;
            tg->qsize = me && w->flavor == MPI_WIN_FLAVOR_CREATE ? tg->size : 0;
        }
        if (tg->mapped) {
            tg->ops = &dmpi_rma_direct_ops;
            tg->qbase = (void *)tg->base;
            tg->qsize = tg->size;
        } else {
            w->all_mapped = false;
        }
    }
}

/* Rank 0 of c (the window's ranks, or those of my node) creates the
 * segment and tells the others, who map it; all agree whether everyone
 * succeeded. Rank 0 then unlinks it. */
static int make_segment(dmpi_win *w, dmpi_comm *c, size_t bytes, char *why, size_t whylen)
{
    seg_msg m;
    memset(&m, 0, sizeof m);
    dmpi_datatype *byte = dmpi_coll_byte();
    if (c->rank == 0) {
        snprintf(m.name, sizeof m.name, "/dmpi-%s-w%d-%u", dmpi_pmi_jobid(), dmpi_rt.world_rank,
                 ++seg_seq);
        m.bytes = bytes;
        m.status = dmpi_win_seg_create(m.name, bytes, &w->seg, why, whylen);
        if (m.status == MPI_SUCCESS) {
            w->seg_bytes = bytes;
            dmpi_win_ctl_attach(w, true, bytes);
        }
    }
    int rc = c->size > 1 ? dmpi_coll_bcast(&m, sizeof m, byte, 0, c) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return rc; /* every rank sees the same failure */
    int st = m.status;
    if (c->rank != 0) {
        if (st == MPI_SUCCESS) {
            st = dmpi_win_seg_map(m.name, m.bytes, &w->seg, why, whylen);
            if (st == MPI_SUCCESS) {
                w->seg_bytes = m.bytes;
                dmpi_win_ctl_attach(w, false, m.bytes);
            }
        } else {
            snprintf(why, whylen, "rank 0 of the window could not make its shared memory");
        }
    }
    int all = st;
    if (w->size > 1) /* every rank of the window: the nodes agree too */
        rc = dmpi_coll_allreduce(&st, &all, 1, dmpi_dt_builtin(MPI_INT),
                                 dmpi_op_builtin(MPI_MAX), w->comm);
    if (c->rank == 0 && m.status == MPI_SUCCESS) shm_unlink(m.name);
    if (rc == MPI_SUCCESS && all != MPI_SUCCESS && st == MPI_SUCCESS)
        snprintf(why, whylen, "another rank could not map the window's shared memory");
    if ((rc != MPI_SUCCESS || all != MPI_SUCCESS) && w->seg) {
        munmap(w->seg, w->seg_bytes);
        w->seg = NULL;
    }
    return rc != MPI_SUCCESS ? rc : all;
}

static void destroy(dmpi_win *w)
{
    if (!w) return;
    dmpi_rma_net_close(w);
    if (w->seg) munmap(w->seg, w->seg_bytes);
    if (w->node_comm) dmpi_comm_release(w->node_comm);
    if (w->comm) dmpi_comm_release(w->comm);
    free(w->tgt);
    if (w->dyn)
        for (int t = 0; t < w->size; t++) free(w->dyn[t].v);
    free(w->dyn);
    free(w->attach);
    w->magic = DMPI_MAGIC_FREED;
    free(w);
}

/* The allgathered records: anyone out of memory, a window across nodes
 * that cannot be, or CMA needed where the system forbids it? The same
 * verdict on every rank (CMA is asked only of ranks that share a node with
 * another: an answer that differs between nodes fails at the agreement
 * of make_segment). *spans: the ranks are on several nodes. */
static int check_records(const rank_rec *recs, const int *world, int n, int me, int flavor, bool *spans,
                         char *why, size_t whylen)
{
    bool cma_needed = false;
    *spans = false;
    for (int i = 0; i < n; i++)
        if (recs[i].world != world[i]) { /* its own index is not ours for it: another mpiexec run's */
            snprintf(why, whylen, "the communicator holds processes of two mpiexec runs: windows over it "
                     "are not supported (docs/dynproc.md)");
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
    for (int i = 0; i < n; i++) {
        if (recs[i].status != MPI_SUCCESS) {
            snprintf(why, whylen, "rank %d of the window ran out of memory", i);
            return recs[i].status;
        }
        if (!same_node(&recs[i], &recs[0])) *spans = true;
        if (i != me && same_node(&recs[i], &recs[me]) &&
            (flavor == MPI_WIN_FLAVOR_DYNAMIC ||
             (flavor == MPI_WIN_FLAVOR_CREATE && recs[i].size > 0 && !in_heap(&recs[i]))))
            cma_needed = true;
    }
    if (*spans) {
        const char *no = NULL;
        int cls = MPI_ERR_UNSUPPORTED_OPERATION;
        if (flavor == MPI_WIN_FLAVOR_SHARED) {
            no = "MPI_Win_allocate_shared needs every rank of the communicator on one node";
            cls = MPI_ERR_RMA_SHARED;
        } else if (!dmpi_tp.net || !dmpi_tp.net->write_then_send || !dmpi_tp.net->expose) {
            no = "this network transport cannot serve windows across nodes (it needs remote "
                 "reads and writes and a packet ordered after a write)";
        }
        if (no) {
            snprintf(why, whylen, "%s", no);
            return cls;
        }
    }
    if (cma_needed && !dmpi_shm.cma_ok) {
        snprintf(why, whylen, "windows on memory the user allocated need single-copy access "
                              "between processes (process_vm_readv), which this system does "
                              "not allow; use MPI_Win_allocate or memory from MPI_Alloc_mem");
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    return MPI_SUCCESS;
}

int dmpi_win_create(dmpi_comm *comm, int flavor, void *base, MPI_Aint size,
                    MPI_Aint disp_unit, dmpi_info *info, void **baseptr, dmpi_win **out,
                    char *why, size_t whylen)
{
    *out = NULL;
    dmpi_rma_fast_init();
    dmpi_comm *wc = NULL;
    int rc = dmpi_comm_dup(comm, &wc);
    if (rc != MPI_SUCCESS) {
        snprintf(why, whylen, "cannot duplicate the communicator");
        return rc;
    }
    int n = wc->size;
    rank_rec *recs = calloc((size_t)n, sizeof *recs);
    size_t *off = calloc((size_t)n, sizeof *off);
    if (!recs || !off)
        dmpi_abort_job(1, "dmpi: rank %d: out of memory creating a window", dmpi_rt.world_rank);
    dmpi_win *w = calloc(1, sizeof *w);
    dmpi_win_target *tgt = w ? calloc((size_t)n, sizeof *tgt) : NULL;
    dmpi_win_dyn_cache *dyn = w && flavor == MPI_WIN_FLAVOR_DYNAMIC
                                  ? calloc((size_t)n, sizeof *dyn) : NULL;
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC && !dyn) {
        free(tgt);
        tgt = NULL;
    }
    dmpi_win_hints hints;
    dmpi_win_hints_parse(&hints, info, true);
    rank_rec mine = {size, disp_unit, 0, (uint64_t)(uintptr_t)base, dmpi_rt.uni_rank,
                     tgt ? MPI_SUCCESS : MPI_ERR_NO_MEM};
    mine.align = my_align(flavor, size, info, hints.alloc_shared_noncontig);
    dmpi_datatype *byte = dmpi_coll_byte();
    rc = dmpi_coll_allgather(&mine, sizeof mine, byte, recs, sizeof mine, byte, wc);
    bool spans = false;
    if (rc == MPI_SUCCESS) rc = check_records(recs, wc->group->world, n, wc->rank, flavor, &spans, why, whylen);
    if (rc == MPI_SUCCESS && spans) rc = dmpi_comm_split_node(wc, false, wc->rank, &w->node_comm);
    if (rc != MPI_SUCCESS) {
        free(tgt);
        free(w);
        dmpi_comm_release(wc);
        free(recs);
        free(off);
        return rc;
    }
    w->magic = DMPI_MAGIC_WIN;
    w->flavor = flavor;
    w->comm = wc;
    w->rank = wc->rank;
    w->size = n;
    w->tgt = tgt;
    w->dyn = dyn;
    for (int t = 0; dyn && t < n; t++) dyn[t].seq = 1; /* odd: never valid */
    w->hints = hints;
    w->errh = &dmpi_errh_fatal;
    size_t ctl = dmpi_win_ctl_bytes(n);
    /* across nodes, my node's segment holds its ranks' memory only (the
     * others' sizes come with their keys: dmpi_rma_net_open) */
    for (int i = 0; spans && i < n; i++)
        if (!same_node(&recs[i], &recs[w->rank])) recs[i].size = 0;
    size_t total = place(recs, n, flavor, hints.alloc_shared_noncontig, ctl, off);
    rc = make_segment(w, spans ? w->node_comm : wc, total, why, whylen);
    if (rc == MPI_SUCCESS) setup_targets(w, recs, off);
    if (rc == MPI_SUCCESS && spans) rc = dmpi_rma_net_open(w, why, whylen);
    for (int t = 0; rc == MPI_SUCCESS && t < n; t++) w->tgt[t].fast = w->tgt[t].mapped && !spans;
    free(recs);
    free(off);
    if (rc != MPI_SUCCESS) {
        destroy(w);
        return rc;
    }
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
        w->base = (void *)w->tgt[w->rank].base;
        *baseptr = w->base;
    } else {
        w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : base;
    }
    w->bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
    w->attr_size = w->bytes;
    w->attr_disp_unit = (int)w->disp_unit;
    w->attr_flavor = flavor;
    w->attr_model = MPI_WIN_UNIFIED;
    *out = w;
    return MPI_SUCCESS;
}

int dmpi_win_free(dmpi_win *w)
{
    dmpi_win_barrier(w); /* nobody touches anyone's memory any more */
    dmpi_handle_forget((uintptr_t)(void *)w);
    destroy(w);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- dynamic windows
 * My table: sorted by (base, len), regions never overlap (zero-length
 * ones may share a base with another region and sort first). Changed
 * under the seqlock of my ctl_rank record: odd while changing. */
static void seq_bump(dmpi_win_ctl_rank *cr)
{
    atomic_fetch_add_explicit(&cr->attach_seq, 1, memory_order_acq_rel);
    atomic_thread_fence(memory_order_seq_cst);
}

static void publish(dmpi_win *w, dmpi_win_ctl_rank *cr)
{
    atomic_store_explicit(&cr->attach_tab, (uint64_t)(uintptr_t)w->attach, memory_order_relaxed);
    atomic_store_explicit(&cr->nattach, w->nattach, memory_order_relaxed);
}

/* First index whose (base, len) is above (base, len). */
static uint32_t upper(const dmpi_win_span *v, uint32_t n, uint64_t base, uint64_t len)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (v[m].base < base || (v[m].base == base && v[m].len <= len)) a = m + 1;
        else b = m;
    }
    return a;
}

int dmpi_win_attach(dmpi_win *w, void *base, MPI_Aint size, const char **why)
{
    dmpi_win_ctl_rank *cr = &w->ctl_rank[w->rank];
    uint64_t lo = (uint64_t)(uintptr_t)base, len = (uint64_t)size;
    dmpi_win_span *v = w->attach;
    uint32_t n = w->nattach, p = upper(v, n, lo, len);
    if (len > 0) { /* the nearest non-empty regions on either side */
        for (uint32_t i = p; i-- > 0;)
            if (v[i].len > 0) {
                if (v[i].base + v[i].len > lo) goto overlap;
                break;
            }
        for (uint32_t i = p; i < n; i++)
            if (v[i].len > 0) {
                if (v[i].base < lo + len) goto overlap;
                break;
            }
    }
    if (n == UINT32_MAX) {
        *why = "too many regions attached to the window";
        return MPI_ERR_RMA_ATTACH;
    }
    if (n == w->attach_cap) { /* grow: a new array, published before the old one goes */
        uint32_t cap = n < 64 ? 64 : n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
        dmpi_win_span *nv = malloc(sizeof *nv * (size_t)cap);
        if (!nv) {
            *why = "out of memory for the table of attached regions";
            return MPI_ERR_RMA_ATTACH;
        }
        if (n) memcpy(nv, v, sizeof *v * n);
        seq_bump(cr);
        w->attach = nv;
        w->attach_cap = cap;
        publish(w, cr);
        seq_bump(cr);
        free(v);
        v = nv;
    }
    seq_bump(cr);
    memmove(&v[p + 1], &v[p], sizeof *v * (n - p));
    v[p] = (dmpi_win_span){lo, len};
    w->nattach = n + 1;
    publish(w, cr);
    seq_bump(cr);
    return MPI_SUCCESS;
overlap:
    *why = "the memory overlaps memory already attached to the window";
    return MPI_ERR_RMA_ATTACH;
}

int dmpi_win_detach(dmpi_win *w, const void *base)
{
    dmpi_win_ctl_rank *cr = &w->ctl_rank[w->rank];
    uint64_t b = (uint64_t)(uintptr_t)base;
    dmpi_win_span *v = w->attach;
    uint32_t n = w->nattach, p = upper(v, n, b, UINT64_MAX); /* past every region at b */
    if (p == 0 || v[p - 1].base != b) return MPI_ERR_RMA_ATTACH;
    p--; /* the largest region at b */
    seq_bump(cr);
    memmove(&v[p], &v[p + 1], sizeof *v * (n - p - 1));
    w->nattach = n - 1;
    publish(w, cr);
    seq_bump(cr);
    return MPI_SUCCESS;
}

/* Is [lo, hi) in v: in the region that starts at or below lo, or in it
 * and regions that follow it without a gap? */
bool dmpi_win_span_covered(const dmpi_win_span *v, uint32_t n, uint64_t lo, uint64_t hi,
                           uint32_t *first)
{
    uint32_t i = upper(v, n, lo, UINT64_MAX);
    if (i == 0) return false;
    i--;
    if (first) *first = i;
    uint64_t end = v[i].base + v[i].len;
    if (end <= lo) return false;
    while (end < hi && i + 1 < n && v[i + 1].base == end) end += v[++i].len;
    return hi <= end;
}

/* Copies t's table into the cache; false when it cannot be read. */
static bool refresh(dmpi_win *w, int t, dmpi_win_dyn_cache *c)
{
    dmpi_win_ctl_rank *cr = &w->ctl_rank[t];
    pid_t pid = dmpi_shm.pids[w->tgt[t].world];
    unsigned spins = 0;
    for (int tries = 0;; tries++) {
        uint32_t s1 = atomic_load_explicit(&cr->attach_seq, memory_order_acquire);
        if (s1 & 1) {
            dmpi_rma_backoff(&spins);
            continue;
        }
        uint32_t n = atomic_load_explicit(&cr->nattach, memory_order_relaxed);
        uint64_t tab = atomic_load_explicit(&cr->attach_tab, memory_order_relaxed);
        if (n > c->cap) {
            dmpi_win_span *nv = malloc(sizeof *nv * (size_t)n);
            if (!nv) return false;
            free(c->v);
            c->v = nv;
            c->cap = n;
        }
        size_t bytes = sizeof *c->v * (size_t)n, got = 0;
        while (got < bytes) {
            struct iovec l = {(char *)c->v + got, bytes - got};
            struct iovec r = {(void *)(uintptr_t)(tab + got), bytes - got};
            ssize_t k = process_vm_readv(pid, &l, 1, &r, 1, 0);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break; /* the table moved meanwhile (seq tells) or is gone */
            got += (size_t)k;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&cr->attach_seq, memory_order_relaxed) != s1) {
            dmpi_rma_backoff(&spins);
            continue;
        }
        if (got < bytes) return false;
        c->seq = s1;
        c->n = n;
        return true;
    }
}

bool dmpi_win_dyn_contains(dmpi_win *w, int t, uintptr_t lo, uintptr_t hi)
{
    if (t == w->rank) return dmpi_win_span_covered(w->attach, w->nattach, lo, hi, NULL);
    if (w->tgt[t].ops->remote) return dmpi_rma_net_dyn_contains(w, t, lo, hi);
    dmpi_win_dyn_cache *c = &w->dyn[t];
    uint32_t s = atomic_load_explicit(&w->ctl_rank[t].attach_seq, memory_order_acquire);
    if (s != c->seq && !refresh(w, t, c)) return false;
    return dmpi_win_span_covered(c->v, c->n, lo, hi, NULL);
}

/* ----------------------------------------------- hooks of core/attr.h */
void **dmpi_win_attr_slot(MPI_Win h)
{
    dmpi_win *w = dmpi_win_get(h);
    return w ? &w->attrs : NULL;
}

bool dmpi_win_attr_predefined(MPI_Win h, int keyval, void **value)
{
    dmpi_win *w = dmpi_win_get(h);
    if (!w) return false;
    switch (keyval) {
    case MPI_WIN_BASE: *value = w->base; return true;
    case MPI_WIN_SIZE: *value = &w->attr_size; return true;
    case MPI_WIN_DISP_UNIT: *value = &w->attr_disp_unit; return true;
    case MPI_WIN_CREATE_FLAVOR: *value = &w->attr_flavor; return true;
    case MPI_WIN_MODEL: *value = &w->attr_model; return true;
    default: return false;
    }
}
