/* Unit test of the shared heap's allocator (transport/shm/heap.c) on a
 * private mapping: 200 000 random allocations (plain and aligned to 128 B
 * .. 64 KiB) and frees from 4 threads at once, as the malloc library
 * (tools/malloc) makes them. Every block must be inside the slice, aligned
 * as asked, usable for its size, and never overlap another live block
 * (each is filled with its own pattern and checked before it is freed).
 * At the end everything is freed and one block of nearly the whole slice
 * must fit again (free blocks coalesce). */
#include "transport/shm/heap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SLICE ((size_t)64 << 20)
#define THREADS 4
#define LIVE 64
#define ROUNDS 50000

static int failures;
static pthread_mutex_t report = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            pthread_mutex_lock(&report);                \
            fprintf(stderr, "FAIL: " __VA_ARGS__);      \
            fprintf(stderr, "\n");                      \
            failures++;                                 \
            pthread_mutex_unlock(&report);              \
        }                                               \
    } while (0)

typedef struct live { unsigned char *p; size_t n; unsigned char tag; } live;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void check_and_free(live *l)
{
    if (!l->p) return;
    CHECK(l->p[0] == l->tag && l->p[l->n - 1] == l->tag && l->p[l->n / 2] == l->tag,
          "block %p (%zu bytes) was overwritten", (void *)l->p, l->n);
    CHECK(dmpi_heap_free(l->p), "free of a live block %p refused", (void *)l->p);
    l->p = NULL;
}

static void *worker(void *arg)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uintptr_t)arg + 1;
    live slots[LIVE] = {{0}};
    for (int i = 0; i < ROUNDS; i++) {
        live *l = &slots[next(&seed) % LIVE];
        check_and_free(l);
        size_t n = 1 + next(&seed) % (next(&seed) % 4 ? 4096 : 300000);
        size_t align = next(&seed) % 3 ? 64 : (size_t)128 << (next(&seed) % 10);
        unsigned char *p = dmpi_heap_alloc_aligned(n, align);
        if (!p) continue; /* full for now: fine */
        CHECK((uintptr_t)p % align == 0, "%p not aligned to %zu", (void *)p, align);
        CHECK(p >= (unsigned char *)dmpi_heap.slice_lo && p + n <= (unsigned char *)dmpi_heap.slice_hi,
              "%p+%zu outside the slice", (void *)p, n);
        CHECK(dmpi_heap_usable(p) >= n, "usable %zu < %zu", dmpi_heap_usable(p), n);
        l->p = p;
        l->n = n;
        l->tag = (unsigned char)(next(&seed) | 1);
        memset(p, l->tag, n);
    }
    for (int i = 0; i < LIVE; i++) check_and_free(&slots[i]);
    return NULL;
}

int main(void)
{
    void *base = mmap(NULL, SLICE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    dmpi_heap.base = base;
    dmpi_heap.size = SLICE;
    dmpi_heap_enable(true, 0, 1);
    CHECK(dmpi_heap.enabled, "heap not enabled");
    CHECK(dmpi_heap_alloc_aligned(100, 3) == NULL, "alignment 3 accepted");
    CHECK(!dmpi_heap_free((char *)base + SLICE + 4096), "free outside the slice accepted");

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);

    void *all = dmpi_heap_alloc(SLICE - 256);
    CHECK(all != NULL, "after freeing everything, a block of the whole slice does not fit");
    if (all) dmpi_heap_free(all);
    dmpi_heap_finalize();
    CHECK(dmpi_heap_alloc(64) == NULL, "allocation after finalize");
    if (failures) {
        fprintf(stderr, "test_heap: %d failures\n", failures);
        return 1;
    }
    printf("test_heap: %d threads x %d rounds: No Errors\n", THREADS, ROUNDS);
    return 0;
}
