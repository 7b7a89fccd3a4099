/* Memory kinds: what kind of memory a buffer is (host, CUDA device, CUDA
 * host-pinned, CUDA managed, emulated device) and how to move bytes
 * between kinds. Each device family is a backend behind one small ops
 * table (accel_cuda.c, accel_emul.c; accel_host.c for plain memory);
 * accel.c picks the backends at MPI_Init and dispatches to them.
 *
 * Host memory is the fast path: while no device backend is active
 * (dmpi_accel_on false, the common case) dmpi_accel_kind() is one
 * predictable branch on that flag and never calls anything. */
#ifndef DMPI_ACCEL_H
#define DMPI_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dmpi_mem_kind {
    DMPI_MEM_HOST = 0,        /* ordinary memory the CPU reads and writes */
    DMPI_MEM_CUDA_DEVICE,     /* cuMemAlloc: the CPU cannot touch it */
    DMPI_MEM_CUDA_HOST,       /* cuMemHostAlloc / registered: host-readable */
    DMPI_MEM_CUDA_MANAGED,    /* cuMemAllocManaged: migrates on touch */
    DMPI_MEM_EMUL_DEVICE,     /* DMPI_ACCEL=emul: PROT_NONE to the CPU */
    DMPI_MEM_NKINDS
} dmpi_mem_kind;

/* What a classification found out about a buffer. */
typedef struct dmpi_mem_info {
    dmpi_mem_kind kind;
    int device;               /* device ordinal (-1 for host memory) */
    uint64_t buffer_id;       /* a freed and reallocated range gets a new id */
} dmpi_mem_info;

/* An asynchronous copy: started by dmpi_accel_copy_async, finished by
 * dmpi_accel_copy_test / _wait. The caller owns the struct. */
typedef struct dmpi_accel_xfer {
    const struct dmpi_accel_ops *ops; /* NULL: nothing pending */
    void *dst;
    const void *src;
    size_t n;
    dmpi_mem_kind dk, sk;
    void *event;              /* backend's completion object */
} dmpi_accel_xfer;

/* One backend. Return values are MPI error classes (MPI_SUCCESS); a
 * failure leaves a message for dmpi_accel_error(). */
typedef struct dmpi_accel_ops {
    const char *name;
    /* true when the backend can run here (driver found, DMPI_ACCEL asks) */
    bool (*init)(void);
    void (*fini)(void);
    /* true when p lies in memory this backend knows; fills *info */
    bool (*classify)(const void *p, dmpi_mem_info *info);
    /* blocking copy; dk/sk are the kinds of dst and src */
    int (*copy)(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n);
    /* asynchronous copy: start fills c; test sets *done once the bytes
     * are in place (and then releases what start took) */
    int (*copy_start)(dmpi_accel_xfer *c);
    int (*copy_test)(dmpi_accel_xfer *c, bool *done);
    /* device memory of a kind (MPI_Alloc_mem with a memory-kind info) */
    int (*dev_alloc)(size_t n, dmpi_mem_kind kind, void **p);
    int (*dev_free)(void *p);
    /* host blocks the device copies at full speed (staging) */
    int (*pinned_alloc)(size_t n, void **p);
    void (*pinned_free)(void *p, size_t n);
} dmpi_accel_ops;

extern const dmpi_accel_ops dmpi_accel_host_ops, dmpi_accel_emul_ops, dmpi_accel_cuda_ops;

/* True while any device backend is active. Read on every buffer-taking
 * call: keep it the only thing host buffers pay for. */
extern bool dmpi_accel_on;

/* Picks the backends (DMPI_ACCEL: "auto" (default: CUDA when the driver
 * is there), "none", "emul", "cuda"). Called from MPI_Init; idempotent. */
void dmpi_accel_init(void);
void dmpi_accel_fini(void);

dmpi_mem_kind dmpi_accel_classify(const void *p, dmpi_mem_info *info);

/* The kind of p: DMPI_MEM_HOST without a call unless a backend is on. */
static inline dmpi_mem_kind dmpi_accel_kind(const void *p)
{
    if (__builtin_expect(!dmpi_accel_on, 1)) return DMPI_MEM_HOST;
    return dmpi_accel_classify(p, NULL);
}

/* Kinds whose bytes the CPU cannot read or write in place. */
static inline bool dmpi_mem_kind_is_device(dmpi_mem_kind k)
{
    return k == DMPI_MEM_CUDA_DEVICE || k == DMPI_MEM_EMUL_DEVICE;
}

/* True when p must go through staging (device memory). */
static inline bool dmpi_accel_needs_staging(const void *p)
{
    if (__builtin_expect(!dmpi_accel_on, 1)) return false;
    return dmpi_mem_kind_is_device(dmpi_accel_classify(p, NULL));
}

const char *dmpi_mem_kind_name(dmpi_mem_kind k);

/* Copies n bytes between any two kinds. */
int dmpi_accel_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n);
int dmpi_accel_copy_async(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk,
                          size_t n, dmpi_accel_xfer *c);
int dmpi_accel_copy_test(dmpi_accel_xfer *c, bool *done);
int dmpi_accel_copy_wait(dmpi_accel_xfer *c);

/* Device memory of `kind` (MPI_Alloc_mem); free takes any pointer and
 * returns false when no backend owns it. */
int dmpi_accel_dev_alloc(size_t n, dmpi_mem_kind kind, void **p);
bool dmpi_accel_dev_free(void *p, int *rc);
/* The kind named by a memory-kind string ("cuda:device", "emul:device");
 * DMPI_MEM_HOST for "system" and "mpi"; -1 when unknown. */
int dmpi_mem_kind_from_name(const char *s);

/* Staging blocks (pool.c): pinned where the active backend can pin, kept
 * in a small cache by size class, since pinning costs far more than a
 * copy. n must be the same in both calls. */
void *dmpi_accel_pinned_alloc(size_t n);
void dmpi_accel_pinned_free(void *p, size_t n);
void dmpi_accel_pool_drain(void);       /* frees every cached block */
extern const dmpi_accel_ops *dmpi_accel_pinned_ops;

/* The value of the mpi_memory_alloc_kinds info key. */
const char *dmpi_accel_alloc_kinds(void);
/* 1 when the CUDA backend is built and the driver was found. */
int dmpi_accel_cuda_found(void);
/* The message of the last failure (a static buffer). */
const char *dmpi_accel_error(void);
void dmpi_accel_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
