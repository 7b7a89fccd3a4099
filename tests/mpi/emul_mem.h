/* emul_mem.h: device buffers for the tests, on dmpi's emulated device.
 *
 * A test asks for the emulated device before MPI_Init (t_emul_request sets
 * DMPI_ACCEL=emul unless the environment already says otherwise) and
 * allocates device memory the way MPI 4.1 names memory kinds: MPI_Alloc_mem
 * with the info key "mpi_memory_alloc_kinds" set to "emul:device"
 * (MPI_Free_mem frees it). The address it gets is PROT_NONE: neither the
 * test nor dmpi can read or write it directly, as on a GPU. To fill and
 * check such a buffer without going through dmpi, t_emul_map maps the same
 * bytes read-write a second time: the block is a memfd whose descriptor
 * dmpi keeps open, found here through /proc/self/maps (device and inode of
 * the mapping) and /proc/self/fd.
 *
 * Usage:
 *   t_emul_request();  t_init(&argc, &argv);
 *   t_dbuf b = t_dbuf_new(n, 1);   // 1: device, 0: host (malloc)
 *   memset(b.rw, 0, n);            // b.rw: CPU view; b.user: what MPI gets
 *   t_dbuf_free(&b);
 */
#ifndef DMPI_TEST_EMUL_MEM_H
#define DMPI_TEST_EMUL_MEM_H

#include "common.h"

#include <dirent.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static inline void t_emul_request(void) { setenv("DMPI_ACCEL", "emul", 0); }

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

/* Emulated device memory from MPI_Alloc_mem (NULL on failure). */
static inline void *t_emul_alloc(size_t n)
{
    MPI_Info info;
    void *p = NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_memory_alloc_kinds", "emul:device");
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
    if (dev) {
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

static inline void t_dbuf_free(t_dbuf *b)
{
    if (b->dev) {
        t_emul_unmap(b->rw, b->n);
        MPI_Free_mem(b->user);
    } else {
        free(b->user);
    }
    b->user = b->rw = NULL;
}

#endif
