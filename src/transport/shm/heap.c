/* The node-wide shared heap: one shared-memory file mapped at the SAME
 * virtual address in every local rank, so a pointer into it is valid in
 * every process of the node and a message from or to such a buffer is one
 * plain memcpy (no system call, no page pinning). MPI_Alloc_mem serves
 * memory from it. Each rank allocates only from its own slice (no locks
 * between processes); within a slice a first-fit free list with
 * coalescing keeps blocks 64-byte aligned.
 *
 * Set-up is part of the segment set-up (shm.c): local rank 0 creates the
 * file and tries candidate addresses until MAP_FIXED_NOREPLACE succeeds;
 * the others map the file at the same address; if any rank cannot, the
 * heap is switched off everywhere and MPI_Alloc_mem falls back to malloc.
 * DMPI_SHM_HEAP_MB sets the size (0 disables it).
 *
 * Allocation and release take a mutex: besides MPI (MPI_Alloc_mem, the
 * collective areas) the malloc library (malloc_hook.h) may call them from
 * any thread of the application. */
#include "transport/shm/heap.h"
#include "transport/shm/shm.h"

#include "core/dmpi.h"
#include "pmi/pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

dmpi_heap_state dmpi_heap;

typedef struct block {
    size_t size;        /* bytes including this header, multiple of 64 */
    struct block *next; /* free list, by address */
} block;
#define HDR 64

static block *free_list;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

static void heap_name(char *buf, size_t n)
{
    snprintf(buf, n, "/dmpi-%s-heap%d", dmpi_pmi_jobid(), dmpi_shm.node);
}

/* Candidate addresses far from where Linux puts the program, its heap and
 * its mmap area, shifted by the job id so concurrent jobs differ. */
static uintptr_t candidate(int i)
{
    uintptr_t salt = (uintptr_t)(dmpi_pmi_jobid()[0] & 15);
    return ((uintptr_t)0x200000000000ull + ((uintptr_t)i * 16 + salt) * ((uintptr_t)1 << 36));
}

/* In a forked child the heap is not mapped: it serves nothing. */
static void heap_off_in_child(void)
{
    dmpi_heap.enabled = false;
    free_list = NULL;
    pthread_mutex_init(&heap_lock, NULL);
}

static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, heap_off_in_child);
}

static void *map_at(int fd, uintptr_t addr, size_t size)
{
    void *p = mmap((void *)addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
                   fd, 0);
    if (p == MAP_FAILED) return NULL;
    if ((uintptr_t)p != addr) { /* old kernels ignore the flag: treat as a miss */
        munmap(p, size);
        return NULL;
    }
    /* A forked child gets none of it: shared pages would let it write into
     * this process's buffers (with the malloc library, into ordinary
     * malloc'ed ones), and its allocator could corrupt our free list.
     * Children that exec, as most do, never notice. */
    (void)madvise(p, size, MADV_DONTFORK);
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handler);
    return p;
}

/* The heap file is sparse: its pages are taken from /dev/shm only when
 * touched, and touching one that /dev/shm cannot supply kills the process
 * with SIGBUS. So the heap never exceeds half of what /dev/shm has free
 * (containers often give it only 64 MiB), and is left out below 32 MiB. */
static size_t fit_dev_shm(size_t size)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0) return size;
    size_t avail = (size_t)v.f_bavail * (size_t)v.f_frsize / 2;
    if (size > avail) size = avail & ~(((size_t)2 << 20) - 1);
    return size < ((size_t)32 << 20) ? 0 : size;
}

uintptr_t dmpi_heap_create(size_t size)
{
    size = fit_dev_shm(size);
    if (size == 0) return 0;
    char name[128];
    heap_name(name, sizeof name);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return 0;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        shm_unlink(name);
        return 0;
    }
    for (int i = 0; i < 64; i++) {
        void *p = map_at(fd, candidate(i), size);
        if (p) {
            close(fd);
            dmpi_heap.base = p;
            dmpi_heap.size = size;
            return (uintptr_t)p;
        }
    }
    close(fd);
    shm_unlink(name);
    return 0;
}

bool dmpi_heap_attach(uintptr_t addr, size_t size)
{
    if (!addr || !size) return false;
    if (dmpi_heap.base) return true; /* the creator */
    char name[128];
    heap_name(name, sizeof name);
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) return false;
    void *p = map_at(fd, addr, size);
    close(fd);
    if (!p) return false;
    dmpi_heap.base = p;
    dmpi_heap.size = size;
    return true;
}

void dmpi_heap_unlink(void)
{
    char name[128];
    heap_name(name, sizeof name);
    shm_unlink(name);
}

void dmpi_heap_enable(bool everyone_mapped, int rank, int nranks)
{
    if (!everyone_mapped) {
        if (dmpi_heap.base) munmap(dmpi_heap.base, dmpi_heap.size);
        memset(&dmpi_heap, 0, sizeof dmpi_heap);
        return;
    }
    size_t slice = (dmpi_heap.size / (size_t)nranks) & ~(size_t)(HDR - 1);
    dmpi_heap.slice_lo = (char *)dmpi_heap.base + (size_t)rank * slice;
    dmpi_heap.slice_hi = (char *)dmpi_heap.slice_lo + slice;
    block *b = dmpi_heap.slice_lo;
    b->size = slice;
    b->next = NULL;
    free_list = b;
    dmpi_heap.enabled = slice >= 2 * HDR;
}

void dmpi_heap_finalize(void)
{
    /* The mapping stays until exit: memory from MPI_Alloc_mem (or malloc,
     * with the malloc library) that the program still touches after
     * MPI_Finalize remains valid. */
    pthread_mutex_lock(&heap_lock);
    dmpi_heap.enabled = false;
    free_list = NULL;
    pthread_mutex_unlock(&heap_lock);
}

/* Bytes to skip at the front of free block b so that its user area is
 * aligned to align (a power of two); the skipped part must be able to
 * stay a free block of its own. */
static size_t front_pad(const block *b, size_t align)
{
    uintptr_t user = (uintptr_t)b + HDR;
    size_t pad = (size_t)(-user & (align - 1));
    if (pad && pad < 2 * HDR) pad += (2 * HDR + align - 1) & ~(align - 1);
    return pad;
}

static void *alloc_locked(size_t n, size_t align)
{
    if (!dmpi_heap.enabled || n > dmpi_heap.size) return NULL;
    size_t need = ((n + HDR - 1) & ~(size_t)(HDR - 1)) + HDR;
    for (block **pp = &free_list; *pp; pp = &(*pp)->next) {
        block *b = *pp;
        size_t pad = align > HDR ? front_pad(b, align) : 0;
        if (b->size < need + pad) continue;
        if (pad) { /* the front stays free, in b's place in the list */
            block *a = (block *)(void *)((char *)b + pad);
            a->size = b->size - pad;
            a->next = b->next;
            b->size = pad;
            pp = &b->next;
            *pp = a;
            b = a;
        }
        if (b->size - need >= 2 * HDR) { /* split: keep the tail free */
            block *rest = (block *)(void *)((char *)b + need);
            rest->size = b->size - need;
            rest->next = b->next;
            *pp = rest;
            b->size = need;
        } else {
            *pp = b->next;
        }
        b->next = NULL;
        return (char *)b + HDR;
    }
    return NULL;
}

void *dmpi_heap_alloc(size_t n)
{
    return dmpi_heap_alloc_aligned(n, HDR);
}

void *dmpi_heap_alloc_aligned(size_t n, size_t align)
{
    if (align & (align - 1) || align > ((size_t)1 << 30)) return NULL;
    pthread_mutex_lock(&heap_lock);
    void *p = alloc_locked(n, align);
    pthread_mutex_unlock(&heap_lock);
    return p;
}

size_t dmpi_heap_usable(const void *p)
{
    const block *b = (const block *)(const void *)((const char *)p - HDR);
    return b->size - HDR;
}

static bool free_locked(void *p)
{
    if (!dmpi_heap.enabled || (char *)p < (char *)dmpi_heap.slice_lo + HDR ||
        (char *)p >= (char *)dmpi_heap.slice_hi)
        return false;
    block *b = (block *)(void *)((char *)p - HDR);
    block **pp = &free_list;
    while (*pp && *pp < b) pp = &(*pp)->next;
    b->next = *pp;
    *pp = b;
    if (b->next && (char *)b + b->size == (char *)b->next) { /* merge with the next */
        b->size += b->next->size;
        b->next = b->next->next;
    }
    /* merge with the previous one */
    for (block *q = free_list; q && q->next; q = q->next) {
        if (q->next == b && (char *)q + q->size == (char *)b) {
            q->size += b->size;
            q->next = b->next;
            break;
        }
    }
    return true;
}

bool dmpi_heap_free(void *p)
{
    pthread_mutex_lock(&heap_lock);
    bool ok = free_locked(p);
    pthread_mutex_unlock(&heap_lock);
    return ok;
}
