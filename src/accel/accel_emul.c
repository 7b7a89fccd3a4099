/* The emulated device (DMPI_ACCEL=emul): device memory for machines
 * without a GPU, so that CI runs the device paths. An allocation is a
 * memfd mapped twice: PROT_NONE at the address the program holds (any
 * CPU access by dmpi or the program faults, as it would on a GPU) and
 * read-write at a private shadow address that only this backend's copy
 * functions use. A memfd has no name in /dev/shm, so nothing is left
 * behind at any exit. The file descriptor stays open while the block
 * lives (close-on-exec): a test finds it through /proc/self/maps and maps
 * the same bytes itself (tests/mpi/emul_mem.h) to fill and check buffers
 * without going through dmpi. Asynchronous copies happen at their first
 * test, so a caller that forgets to wait sees stale bytes. */
#include "accel/accel.h"

#include <mpi.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct region {
    uintptr_t base;
    size_t len;
    char *shadow;
    int fd;
    uint64_t id;
} region;

static region *regions; /* sorted by base */
static size_t nregions, cap;
static uint64_t next_id = 1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static bool emul_init(void) { return true; }

static void drop(region *r)
{
    munmap((void *)r->base, r->len);
    munmap(r->shadow, r->len);
    close(r->fd);
}

static void emul_fini(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nregions; i++) drop(&regions[i]);
    free(regions);
    regions = NULL;
    nregions = cap = 0;
    pthread_mutex_unlock(&mu);
}

/* Index of the region holding address a, or -1 (lock held). */
static long find(uintptr_t a)
{
    size_t lo = 0, hi = nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a < regions[mid].base) hi = mid;
        else if (a >= regions[mid].base + regions[mid].len) lo = mid + 1;
        else return (long)mid;
    }
    return -1;
}

static bool emul_classify(const void *p, dmpi_mem_info *info)
{
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)p);
    if (i >= 0 && info) *info = (dmpi_mem_info){DMPI_MEM_EMUL_DEVICE, 0, regions[i].id};
    pthread_mutex_unlock(&mu);
    return i >= 0;
}

/* The shadow address of [p, p+n) of device memory, or NULL with an error. */
static void *shadow_of(const void *p, size_t n)
{
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)p);
    void *s = NULL;
    if (i >= 0 && (uintptr_t)p + n <= regions[i].base + regions[i].len)
        s = regions[i].shadow + ((uintptr_t)p - regions[i].base);
    pthread_mutex_unlock(&mu);
    if (!s)
        dmpi_accel_set_error("%zu bytes at %p are not inside one emulated device block", n, p);
    return s;
}

static int emul_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n)
{
    void *d = dk == DMPI_MEM_EMUL_DEVICE ? shadow_of(dst, n) : dst;
    const void *s = sk == DMPI_MEM_EMUL_DEVICE ? shadow_of(src, n) : src;
    if (!d || !s) return MPI_ERR_BUFFER;
    memmove(d, s, n);
    return MPI_SUCCESS;
}

static int emul_copy_start(dmpi_accel_xfer *c)
{
    /* check the ranges now, copy at the first test */
    if (c->dk == DMPI_MEM_EMUL_DEVICE && !shadow_of(c->dst, c->n)) return MPI_ERR_BUFFER;
    if (c->sk == DMPI_MEM_EMUL_DEVICE && !shadow_of(c->src, c->n)) return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

static int emul_copy_test(dmpi_accel_xfer *c, bool *done)
{
    *done = true;
    return emul_copy(c->dst, c->dk, c->src, c->sk, c->n);
}

static int emul_dev_alloc(size_t n, dmpi_mem_kind kind, void **p)
{
    if (kind != DMPI_MEM_EMUL_DEVICE) {
        dmpi_accel_set_error("the emulated device has no %s", dmpi_mem_kind_name(kind));
        return MPI_ERR_NO_MEM;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (n + page - 1) / page * page;
    if (len == 0) len = page;
    region r = {.fd = memfd_create("dmpi-emul", MFD_CLOEXEC), .len = len};
    void *user = MAP_FAILED, *shadow = MAP_FAILED;
    if (r.fd >= 0 && ftruncate(r.fd, (off_t)len) == 0) {
        user = mmap(NULL, len, PROT_NONE, MAP_SHARED, r.fd, 0);
        shadow = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
    }
    pthread_mutex_lock(&mu);
    if (user != MAP_FAILED && shadow != MAP_FAILED && nregions == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        region *t = realloc(regions, ncap * sizeof *t);
        if (t) regions = t, cap = ncap;
    }
    bool ok = user != MAP_FAILED && shadow != MAP_FAILED && nregions < cap;
    if (ok) {
        r.base = (uintptr_t)user;
        r.shadow = shadow;
        r.id = next_id++;
        size_t at = 0;
        while (at < nregions && regions[at].base < r.base) at++;
        memmove(&regions[at + 1], &regions[at], (nregions - at) * sizeof r);
        regions[at] = r;
        nregions++;
    }
    pthread_mutex_unlock(&mu);
    if (ok) {
        *p = user;
        return MPI_SUCCESS;
    }
    if (user != MAP_FAILED) munmap(user, len);
    if (shadow != MAP_FAILED) munmap(shadow, len);
    if (r.fd >= 0) close(r.fd);
    dmpi_accel_set_error("cannot make %zu bytes of emulated device memory", n);
    return MPI_ERR_NO_MEM;
}

static int emul_dev_free(void *p)
{
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)p);
    bool ok = i >= 0 && regions[i].base == (uintptr_t)p;
    if (ok) {
        drop(&regions[i]);
        memmove(&regions[i], &regions[i + 1], (nregions - (size_t)i - 1) * sizeof *regions);
        nregions--;
    }
    pthread_mutex_unlock(&mu);
    if (!ok) dmpi_accel_set_error("%p is inside an emulated device block, not its start", p);
    return ok ? MPI_SUCCESS : MPI_ERR_BASE;
}

static int emul_pinned_alloc(size_t n, void **p)
{
    return posix_memalign(p, 64, n ? n : 1) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void emul_pinned_free(void *p, size_t n) { free(p); }

const dmpi_accel_ops dmpi_accel_emul_ops = {
    .name = "emul",
    .init = emul_init,
    .fini = emul_fini,
    .classify = emul_classify,
    .copy = emul_copy,
    .copy_start = emul_copy_start,
    .copy_test = emul_copy_test,
    .dev_alloc = emul_dev_alloc,
    .dev_free = emul_dev_free,
    .pinned_alloc = emul_pinned_alloc,
    .pinned_free = emul_pinned_free,
};
