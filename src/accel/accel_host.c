/* The host memory-kind backend: plain memory on both sides of a copy
 * (memcpy), staging blocks from the C library. It is never "active": the
 * front uses it for host-to-host copies and for staging blocks when no
 * device backend is on. */
#include "accel/accel.h"

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

static bool host_init(void) { return true; }
static void host_fini(void) {}

static bool host_classify(const void *p, dmpi_mem_info *info)
{
    (void)p;
    (void)info;
    return false; /* host memory is what nobody else claims */
}

static int host_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n)
{
    memcpy(dst, src, n);
    return MPI_SUCCESS;
}

static int host_copy_start(dmpi_accel_xfer *c)
{
    memcpy(c->dst, c->src, c->n);
    return MPI_SUCCESS;
}

static int host_copy_test(dmpi_accel_xfer *c, bool *done)
{
    *done = true;
    return MPI_SUCCESS;
}

static int host_dev_alloc(size_t n, dmpi_mem_kind kind, void **p)
{
    dmpi_accel_set_error("the host backend has no device memory");
    return MPI_ERR_NO_MEM;
}

static int host_dev_free(void *p) { return MPI_ERR_BUFFER; }

static int host_pinned_alloc(size_t n, void **p)
{
    return posix_memalign(p, 64, n ? n : 1) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void host_pinned_free(void *p, size_t n) { free(p); }

const dmpi_accel_ops dmpi_accel_host_ops = {
    .name = "host",
    .init = host_init,
    .fini = host_fini,
    .classify = host_classify,
    .copy = host_copy,
    .copy_start = host_copy_start,
    .copy_test = host_copy_test,
    .dev_alloc = host_dev_alloc,
    .dev_free = host_dev_free,
    .pinned_alloc = host_pinned_alloc,
    .pinned_free = host_pinned_free,
};
