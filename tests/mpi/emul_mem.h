/* emul_mem.h: device buffers for the tests, on dmpi's emulated device or,
 * with DMPI_TEST_DEVICE=cuda, on a real GPU.
 *
 * A test asks for its device before MPI_Init (t_emul_request sets
 * DMPI_ACCEL=emul, or cuda, unless the environment already says) and
 * allocates device memory the way MPI 4.1 names memory kinds: MPI_Alloc_mem
 * with the info key "mpi_memory_alloc_kinds" set to "emul:device" (or
 * "cuda:device"); MPI_Free_mem frees it. The address it gets cannot be
 * read or written by the CPU. To fill and check such a buffer without
 * going through dmpi, a t_dbuf has a CPU view `rw`:
 *   - emulated device: the same bytes mapped read-write a second time (the
 *     block is a memfd whose descriptor dmpi keeps open, found here through
 *     /proc/self/maps and /proc/self/fd), so push and pull do nothing;
 *   - CUDA: a host copy, moved with the driver's own cuMemcpyHtoD/DtoH
 *     (libcuda.so.1 opened here; dmpi made its context current).
 *
 * Usage:
 *   t_emul_request();  t_init(&argc, &argv);
 *   t_dbuf b = t_dbuf_new(n, 1);   // 1: device, 0: host (malloc)
 *   memset(b.rw, 0, n); t_dbuf_push(&b);   // b.user: what MPI gets
 *   ... MPI calls on b.user ...; t_dbuf_pull(&b); check b.rw
 *   t_dbuf_free(&b);
 */
#ifndef DMPI_TEST_EMUL_MEM_H
#define DMPI_TEST_EMUL_MEM_H

#include "common.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* True when the tests run on a GPU (DMPI_TEST_DEVICE=cuda). */
static inline int t_dev_cuda(void)
{
    const char *e = getenv("DMPI_TEST_DEVICE");
    return e && strcmp(e, "cuda") == 0;
}

static inline void t_emul_request(void) { setenv("DMPI_ACCEL", t_dev_cuda() ? "cuda" : "emul", 0); }

/* The driver's copies, for the CUDA mode (CUdeviceptr is 64 bits). */
typedef int (*t_htod_fn)(unsigned long long dst, const void *src, size_t n);
typedef int (*t_dtoh_fn)(void *dst, unsigned long long src, size_t n);
static t_htod_fn t_htod;
static t_dtoh_fn t_dtoh;

static inline void t_cuda_load(void)
{
    if (t_htod) return;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        *(void **)&t_htod = dlsym(lib, "cuMemcpyHtoD_v2");
        *(void **)&t_dtoh = dlsym(lib, "cuMemcpyDtoH_v2");
    }
    if (!t_htod || !t_dtoh) {
        fprintf(stderr, "[rank %d] DMPI_TEST_DEVICE=cuda but libcuda.so.1 cannot be used\n", t_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* A read-write view of n bytes of emulated device memory at dev (NULL if
 * it cannot be found). Unmap with munmap(view - (dev % page), ...) via
 * t_emul_unmap. */
static inline char *t_emul_map(const void *dev, size_t n)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return NULL;
    unsigned long lo, hi, off, ino = 0, found_off = 0, found_lo = 0;
    unsigned maj = 0, min = 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &off, &maj, &min, &ino) != 7)
            continue;
        if ((unsigned long)dev >= lo && (unsigned long)dev < hi) {
            found = 1;
            found_off = off;
            found_lo = lo;
            break;
        }
    }
    fclose(f);
    if (!found) return NULL;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return NULL;
    char *view = NULL;
    struct dirent *e;
    while (!view && (e = readdir(d))) {
        int fd = atoi(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || fstat(fd, &st) != 0 || (unsigned long)st.st_ino != ino ||
            major(st.st_dev) != maj || minor(st.st_dev) != min)
            continue;
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        unsigned long at = found_off + ((unsigned long)dev - found_lo); /* offset in the file */
        unsigned long start = at / page * page;
        size_t len = (size_t)(at - start) + (n ? n : 1);
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
        if (m != MAP_FAILED) view = (char *)m + (at - start);
    }
    closedir(d);
    return view;
}

static inline void t_emul_unmap(char *view, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *start = (char *)((unsigned long)view / page * page);
    munmap(start, (size_t)(view - start) + (n ? n : 1));
}

/* Device memory from MPI_Alloc_mem (NULL on failure). */
static inline void *t_emul_alloc(size_t n)
{
    MPI_Info info;
    void *p = NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_memory_alloc_kinds", t_dev_cuda() ? "cuda:device" : "emul:device");
    if (MPI_Alloc_mem((MPI_Aint)n, info, &p) != MPI_SUCCESS) p = NULL;
    MPI_Info_free(&info);
    return p;
}

/* A test buffer: user is what MPI calls get, rw what the test reads and
 * writes (the same memory for host buffers). */
typedef struct t_dbuf {
    char *user, *rw;
    size_t n;
    int dev;
} t_dbuf;

static inline t_dbuf t_dbuf_new(size_t n, int dev)
{
    t_dbuf b = {NULL, NULL, n, dev};
    if (dev && t_dev_cuda()) {
        t_cuda_load();
        b.user = t_emul_alloc(n);
        b.rw = malloc(n ? n : 1);
    } else if (dev) {
        b.user = t_emul_alloc(n);
        b.rw = b.user ? t_emul_map(b.user, n) : NULL;
    } else {
        b.user = b.rw = malloc(n ? n : 1);
    }
    if (!b.user || !b.rw) {
        fprintf(stderr, "[rank %d] cannot make a %zu-byte %s buffer\n", t_rank, n,
                dev ? "emulated device" : "host");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return b;
}

/* The CPU view to the device (push) and back (pull); nothing to do on
 * the emulated device, whose view is the memory itself. */
static inline void t_dbuf_push(const t_dbuf *b)
{
    if (b->dev && t_dev_cuda() && b->n && t_htod((unsigned long long)(uintptr_t)b->user, b->rw, b->n))
        t_fail(__FILE__, __LINE__, "cuMemcpyHtoD", "failed");
}

static inline void t_dbuf_pull(const t_dbuf *b)
{
    if (b->dev && t_dev_cuda() && b->n && t_dtoh(b->rw, (unsigned long long)(uintptr_t)b->user, b->n))
        t_fail(__FILE__, __LINE__, "cuMemcpyDtoH", "failed");
}

static inline void t_dbuf_free(t_dbuf *b)
{
    if (b->dev && t_dev_cuda()) {
        free(b->rw);
        MPI_Free_mem(b->user);
    } else if (b->dev) {
        t_emul_unmap(b->rw, b->n);
        MPI_Free_mem(b->user);
    } else {
        free(b->user);
    }
    b->user = b->rw = NULL;
}

#endif
