/* libdmpi_malloc.so: malloc, free and the rest of the family, preloaded
 * into the ranks by mpiexec when DMPI_SHM_MALLOC is on (docs/environment.md).
 * Until MPI is initialised, and for small requests always, every call goes
 * to the C library. Once libmpi_abi attaches (malloc_hook.h), requests of
 * at least min_bytes are served from this process's slice of the node's
 * shared heap, which is mapped at the same address in every local rank:
 * a message between two such buffers is then a single memcpy by either
 * side, with no system call. Blocks of the heap are recognised by address;
 * they are never handed to the C library's free. After MPI_Finalize the
 * heap serves nothing new, its blocks stay readable and freeing them does
 * nothing. */
#define _GNU_SOURCE
#include "transport/shm/malloc_hook.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

void *__libc_malloc(size_t n);
void __libc_free(void *p);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

static _Atomic(const dmpi_malloc_ops *) heap_ops;

EXPORT void dmpi_malloc_attach(const dmpi_malloc_ops *ops)
{
    if (ops && ops->version == DMPI_MALLOC_HOOK_VERSION)
        atomic_store_explicit(&heap_ops, ops, memory_order_release);
}

static const dmpi_malloc_ops *ops_now(void)
{
    return atomic_load_explicit(&heap_ops, memory_order_acquire);
}

static bool in_heap(const dmpi_malloc_ops *o, const void *p)
{
    return o && (uintptr_t)p >= o->lo && (uintptr_t)p < o->hi;
}

/* A heap block for a request of n bytes aligned to align, or NULL. */
static void *heap_alloc(size_t n, size_t align)
{
    const dmpi_malloc_ops *o = ops_now();
    if (!o || n < o->min_bytes) return NULL;
    return o->alloc(n, align);
}

static size_t usable_size(const void *p)
{
    const dmpi_malloc_ops *o = ops_now();
    if (in_heap(o, p)) return o->usable(p);
    static size_t (*libc_usable)(void *);
    if (!libc_usable) *(void **)&libc_usable = dlsym(RTLD_NEXT, "malloc_usable_size");
    return libc_usable ? libc_usable((void *)p) : 0;
}

EXPORT void *malloc(size_t n)
{
    void *p = heap_alloc(n, 16);
    return p ? p : __libc_malloc(n);
}

EXPORT void free(void *p)
{
    const dmpi_malloc_ops *o = ops_now();
    if (in_heap(o, p)) o->release(p);
    else __libc_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = heap_alloc(bytes, 16);
    if (!p) return __libc_calloc(n, size);
    memset(p, 0, bytes);
    return p;
}

EXPORT void *realloc(void *p, size_t n)
{
    const dmpi_malloc_ops *o = ops_now();
    if (!p) return malloc(n);
    if (!in_heap(o, p)) {
        void *q = heap_alloc(n, 16);
        if (!q) return __libc_realloc(p, n);
        size_t old = usable_size(p);
        memcpy(q, p, old < n ? old : n);
        __libc_free(p);
        return q;
    }
    if (n == 0) {
        o->release(p);
        return NULL;
    }
    size_t old = o->usable(p);
    if (n <= old && n >= o->min_bytes) return p;
    void *q = malloc(n);
    if (!q) return NULL;
    memcpy(q, p, old < n ? old : n);
    o->release(p);
    return q;
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, bytes);
}

EXPORT void *memalign(size_t align, size_t n)
{
    void *p = heap_alloc(n, align);
    return p ? p : __libc_memalign(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
    void *p = memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *valloc(size_t n)
{
    return memalign(4096, n);
}

EXPORT void *pvalloc(size_t n)
{
    return memalign(4096, (n + 4095) & ~(size_t)4095);
}

EXPORT size_t malloc_usable_size(void *p)
{
    return p ? usable_size(p) : 0;
}
