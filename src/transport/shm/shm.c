/* The node's shared-memory segment: created by local rank 0 with a name
 * derived from the job id (0600, O_EXCL), mapped by every local rank, and
 * unlinked as soon as all have mapped it (mpiexec also removes any
 * /dev/shm/dmpi-<jobid>* left by a crash in between). It holds a table of
 * rank records (pid, single-copy capability) and one SPSC ring per ordered
 * pair of ranks. At start-up each rank also checks that it may read its
 * neighbour's memory with process_vm_readv (CMA); if any rank cannot,
 * large messages fall back to the pipelined copy through the rings. Each
 * rank also publishes the processors it may run on, so that every rank
 * counts the same processors for the node (node_cpus). */
#include "transport/shm/shm.h"
#include "transport/shm/heap.h"
#include "transport/transport.h"

#include "core/dmpi.h"
#include "pmi/pmi.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SEG_MAGIC 0x646d70692d73686dull

typedef struct rank_rec {
    _Alignas(64) _Atomic int32_t pid;
    _Atomic int32_t cma_ok;
    uint64_t probe_addr;
    _Atomic int32_t heap_ok;
    cpu_set_t cpus; /* the processors this rank may run on, at start-up */
} rank_rec;

typedef struct seg_hdr {
    uint64_t magic;
    uint32_t nranks;
    uint32_t ring_cells;
    uint64_t rings_off, ring_bytes, offers_off;
    uint64_t heap_addr, heap_size;
    _Alignas(64) _Atomic uint32_t finalized; /* ranks that reached finalize */
} seg_hdr;

dmpi_shm_state dmpi_shm;
static volatile uint64_t probe_word = 0x5eedf00dcafe1234ull;

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

/* The rank records follow the header (whose last field has a cache line
 * of its own: the records once started inside it, and rank 0's pid and the
 * finalize count were the same word). */
_Static_assert(sizeof(seg_hdr) % 64 == 0, "the rank records start on a cache line");

static rank_rec *rec(int r)
{
    return (rank_rec *)(void *)((char *)dmpi_shm.base + sizeof(seg_hdr) +
                                (size_t)r * sizeof(rank_rec));
}

static void seg_name(char *buf, size_t n)
{
    snprintf(buf, n, "/dmpi-%s-node%d", dmpi_pmi_jobid(), dmpi_shm.node);
}

static int map_segment(int rank, int size, size_t *bytes_out)
{
    char name[128];
    seg_name(name, sizeof name);
    uint32_t cells = (uint32_t)dmpi_knob_or(DMPI_KNOB_SHM_RING_CELLS, size <= 16 ? 1024 : 256);
    if (cells < 64 || (cells & (cells - 1))) cells = 1024;
    size_t hdr = align_up(sizeof(seg_hdr) + (size_t)size * sizeof(rank_rec), 4096);
    size_t ring_bytes = sizeof(dmpi_ring_ctl) + (size_t)cells * DMPI_CELL;
    size_t offers = align_up((size_t)size * size * sizeof(dmpi_pair_ctl), 4096);
    size_t total = hdr + offers + (size_t)size * size * ring_bytes;
    int fd;
    if (rank == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t)total) != 0) {
            close(fd);
            shm_unlink(name);
            fd = -1;
        }
    } else {
        fd = shm_open(name, O_RDWR, 0600);
    }
    if (fd < 0) return -errno;
    void *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) return -errno;
    dmpi_shm.base = base;
    dmpi_shm.bytes = total;
    seg_hdr *h = base;
    if (rank == 0) {
        h->nranks = (uint32_t)size;
        h->ring_cells = cells;
        h->offers_off = hdr;
        h->rings_off = hdr + offers;
        h->ring_bytes = ring_bytes;
        h->heap_size = (uint64_t)dmpi_knob(DMPI_KNOB_SHM_HEAP_MB) << 20;
        h->heap_addr = size > 1 ? dmpi_heap_create(h->heap_size) : 0;
        h->heap_size = dmpi_heap.size; /* it may have been cut to fit /dev/shm */
        atomic_thread_fence(memory_order_release);
        h->magic = SEG_MAGIC;
    }
    *bytes_out = total;
    return 0;
}

/* Maps the pages of [p, p+n) into this process now rather than on first
 * use: a ring's first lap would otherwise take a page fault every 64
 * cells, in the middle of timed traffic. MADV_POPULATE_WRITE (Linux 5.14)
 * leaves the contents alone, so it is safe while a peer already writes;
 * without it, reading one byte of each page maps it. */
static void prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + n;
    if (madvise((void *)a, end - a, MADV_POPULATE_WRITE) == 0) return;
#endif
    for (size_t off = 0; off < n; off += 4096) (void)*(volatile const char *)((char *)p + off);
}

static void setup_rings(int rank, int size)
{
    seg_hdr *h = dmpi_shm.base;
    dmpi_shm.pairs = (dmpi_pair_ctl *)(void *)((char *)dmpi_shm.base + h->offers_off);
    for (int p = 0; p < size; p++) {
        int w = dmpi_shm.world_of[p];
        for (int dir = 0; dir < 2; dir++) {
            int from = dir ? p : rank, to = dir ? rank : p;
            char *r = (char *)dmpi_shm.base + h->rings_off +
                      ((size_t)from * size + to) * h->ring_bytes;
            dmpi_ring *ring = dir ? &dmpi_tp.in[w] : &dmpi_tp.out[w];
            ring->ctl = (dmpi_ring_ctl *)(void *)r;
            ring->cells = (unsigned char *)r + sizeof(dmpi_ring_ctl);
            ring->ncells = h->ring_cells;
            prefault(ring->ctl, h->ring_bytes);
        }
    }
}

/* A mask the fixed-size cpu_set_t cannot hold (more than CPU_SETSIZE
 * processors): take the online processors that fit. */
static void own_cpus_unknown(cpu_set_t *set)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(set);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, set);
}

/* node_cpus: the processors of all ranks' masks together; sharing: the
 * ranks whose masks meet this rank's, itself included. */
static void count_cpus(int rank, int size)
{
    cpu_set_t all, both;
    CPU_ZERO(&all);
    dmpi_shm.sharing = 0;
    for (int p = 0; p < size; p++) {
        CPU_OR(&all, &all, &rec(p)->cpus);
        CPU_AND(&both, &rec(p)->cpus, &rec(rank)->cpus);
        if (p == rank || CPU_COUNT(&both) > 0) dmpi_shm.sharing++;
    }
    dmpi_shm.node_cpus = CPU_COUNT(&all);
    dmpi_shm.own_cpus = CPU_COUNT(&rec(rank)->cpus);
}

/* Can this process read peer's memory with a single-copy system call? */
static int probe_cma(int peer)
{
    uint64_t v = 0;
    struct iovec l = {&v, sizeof v}, r = {(void *)(uintptr_t)rec(peer)->probe_addr, sizeof v};
    ssize_t n = process_vm_readv(atomic_load(&rec(peer)->pid), &l, 1, &r, 1, 0);
    return n == (ssize_t)sizeof v && v == 0x5eedf00dcafe1234ull;
}

int dmpi_shm_init(int rank, int size, const int *world_of, int node)
{
    dmpi_shm.rank = rank;
    dmpi_shm.size = size;
    dmpi_shm.node = node;
    dmpi_shm.world_of = malloc((size_t)size * sizeof(int));
    dmpi_shm.local_of = malloc((size_t)dmpi_tp.nprocs * sizeof(int));
    dmpi_shm.pids = calloc((size_t)dmpi_tp.nprocs, sizeof(pid_t));
    if (!dmpi_shm.world_of || !dmpi_shm.local_of || !dmpi_shm.pids) return -ENOMEM;
    for (int w = 0; w < dmpi_tp.nprocs; w++) dmpi_shm.local_of[w] = -1;
    for (int p = 0; p < size; p++) {
        dmpi_shm.world_of[p] = world_of[p];
        dmpi_shm.local_of[world_of[p]] = p;
    }
    size_t bytes = 0;
    int rc = 0;
    if (rank == 0 && (rc = map_segment(rank, size, &bytes)) != 0) goto fail;
    if (dmpi_pmi_barrier() != 0) return -EPIPE;
    if (rank != 0 && (rc = map_segment(rank, size, &bytes)) != 0) goto fail;
    if (((seg_hdr *)dmpi_shm.base)->magic != SEG_MAGIC) return -EPROTO;
    rec(rank)->probe_addr = (uint64_t)(uintptr_t)&probe_word;
    seg_hdr *sh = dmpi_shm.base;
    atomic_store(&rec(rank)->heap_ok, dmpi_heap_attach(sh->heap_addr, sh->heap_size));
    if (sched_getaffinity(0, sizeof rec(rank)->cpus, &rec(rank)->cpus) != 0)
        own_cpus_unknown(&rec(rank)->cpus);
    atomic_store(&rec(rank)->pid, (int32_t)getpid());
    if (dmpi_pmi_barrier() != 0) return -EPIPE;
    if (rank == 0) {
        char name[128];
        seg_name(name, sizeof name);
        shm_unlink(name);
        if (sh->heap_addr) dmpi_heap_unlink();
    }
    int cma = size == 1 || probe_cma((rank + 1) % size);
    if (dmpi_knob(DMPI_KNOB_NO_CMA)) cma = 0;
    atomic_store(&rec(rank)->cma_ok, cma);
    if (dmpi_pmi_barrier() != 0) return -EPIPE;
    dmpi_shm.cma_ok = true;
    count_cpus(rank, size);
    for (int p = 0; p < size; p++) {
        dmpi_shm.pids[world_of[p]] = atomic_load(&rec(p)->pid);
        /* a peer in another pid namespace cannot be watched (0: unknown) */
        if (kill(dmpi_shm.pids[world_of[p]], 0) != 0 && errno == ESRCH) dmpi_shm.pids[world_of[p]] = 0;
        if (!atomic_load(&rec(p)->cma_ok)) dmpi_shm.cma_ok = false;
    }
    bool heap_everywhere = true;
    for (int p = 0; p < size; p++)
        if (!atomic_load(&rec(p)->heap_ok)) heap_everywhere = false;
    dmpi_heap_enable(heap_everywhere, rank, size);
    dmpi_heap_offer_malloc();
    setup_rings(rank, size);
    return 0;
fail:
    if (rc == -ENOENT && rank != 0)
        fprintf(stderr, "dmpi: rank %d: the launcher's process mapping puts this rank on one node with rank %d, "
                        "but that rank's shared-memory segment is not here: are they on different hosts? (%s "
                        "launcher, mapping from PMI_process_mapping or DMPI_PROCESS_MAPPING)\n",
                world_of[rank], world_of[0], dmpi_pmi_launcher());
    else
        fprintf(stderr, "dmpi: rank %d: cannot set up the shared-memory segment: %s\n", rank, strerror(-rc));
    return rc;
}

void dmpi_shm_arrive_finalize(void)
{
    if (dmpi_shm.base) atomic_fetch_add(&((seg_hdr *)dmpi_shm.base)->finalized, 1);
}

bool dmpi_shm_all_finalized(void)
{
    return !dmpi_shm.base ||
           atomic_load(&((seg_hdr *)dmpi_shm.base)->finalized) >= (uint32_t)dmpi_shm.size;
}

int dmpi_shm_dead_peer(void)
{
    if (!dmpi_shm.base || dmpi_shm_all_finalized()) return -1;
    /* Until every rank of the node reached finalize none may exit (the
     * finalize wait), so a peer whose process is gone died. */
    for (int p = 0; p < dmpi_shm.size; p++) {
        pid_t pid = dmpi_shm.pids[dmpi_shm.world_of[p]];
        if (p != dmpi_shm.rank && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) return dmpi_shm.world_of[p];
    }
    return -1;
}

void dmpi_shm_finalize(void)
{
    dmpi_heap_finalize();
    if (dmpi_shm.base) munmap(dmpi_shm.base, dmpi_shm.bytes);
    free(dmpi_shm.pids);
    free(dmpi_shm.local_of);
    free(dmpi_shm.world_of);
    memset(&dmpi_shm, 0, sizeof dmpi_shm);
}
