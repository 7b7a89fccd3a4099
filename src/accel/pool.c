/* Host staging blocks for device copies. Making a block pinned
 * (cuMemHostAlloc) costs far more than copying it, and freeing one
 * (cuMemFreeHost) waits for the device, so blocks are kept for reuse:
 * sizes are rounded up to a power of two from 4 KiB, and each class keeps
 * up to KEEP free blocks; blocks above 64 MiB are not kept. The
 * blocks come from the backend dmpi_accel_pinned_ops (the first active
 * device backend; plain memory without one). */
#include "accel/accel.h"

#include <mpi.h>

#include <pthread.h>

enum { MIN_SHIFT = 12, NCLASSES = 15, KEEP = 4 }; /* 4 KiB .. 64 MiB */

static void *cache[NCLASSES][KEEP];
static int ncached[NCLASSES];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The class of an n-byte request and the size of its blocks. */
static int class_of(size_t n, size_t *block)
{
    int c = 0;
    size_t b = (size_t)1 << MIN_SHIFT;
    while (b < n && c < NCLASSES - 1) {
        b <<= 1;
        c++;
    }
    *block = b < n ? n : b;
    return b < n ? -1 : c; /* -1: larger than the largest class */
}

void *dmpi_accel_pinned_alloc(size_t n)
{
    size_t block;
    int c = class_of(n, &block);
    void *p = NULL;
    pthread_mutex_lock(&mu);
    if (c >= 0 && ncached[c] > 0) p = cache[c][--ncached[c]];
    pthread_mutex_unlock(&mu);
    if (!p && dmpi_accel_pinned_ops->pinned_alloc(block, &p) != MPI_SUCCESS) p = NULL;
    return p;
}

void dmpi_accel_pinned_free(void *p, size_t n)
{
    if (!p) return;
    size_t block;
    int c = class_of(n, &block);
    pthread_mutex_lock(&mu);
    bool kept = c >= 0 && ncached[c] < KEEP;
    if (kept) cache[c][ncached[c]++] = p;
    pthread_mutex_unlock(&mu);
    if (!kept) dmpi_accel_pinned_ops->pinned_free(p, block);
}

void dmpi_accel_pool_drain(void)
{
    pthread_mutex_lock(&mu);
    for (int c = 0; c < NCLASSES; c++) {
        while (ncached[c] > 0)
            dmpi_accel_pinned_ops->pinned_free(cache[c][--ncached[c]], (size_t)1 << (MIN_SHIFT + c));
    }
    pthread_mutex_unlock(&mu);
}
