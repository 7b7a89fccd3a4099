/* Handle <-> int table for MPI_*_toint / MPI_*_fromint (interface in
 * core/handle_ints.h). Predefined handles are their own ints. User handles
 * get a slot in a growing array of fixed chunks (int =
 * DMPI_HANDLE_INT_BASE + slot); a hash table from pointer to slot makes
 * toint O(1). Freed slots are reused. Conversions are frequent where a
 * Fortran program calls MPI (every nonblocking call converts a request
 * both ways), so the common cases take no lock: fromint reads a slot,
 * toint of a handle converted before probes the table; a mutex guards
 * every change (new slot, grown table, forgotten handle). */
#include "core/handle_ints.h"
#include "core/dmpi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Predefined handle values (MPI 5.0 section 21.5, the Huffman-coded
 * ranges): [lo, hi] reserved for each kind. */
static const struct {
    uint16_t lo, hi;
} kind_range[DMPI_HK_NKINDS] = {
    [DMPI_HK_OP] = {0x020, 0x03f},      [DMPI_HK_COMM] = {0x100, 0x107},
    [DMPI_HK_GROUP] = {0x108, 0x10f},   [DMPI_HK_WIN] = {0x110, 0x117},
    [DMPI_HK_FILE] = {0x118, 0x11f},    [DMPI_HK_SESSION] = {0x120, 0x127},
    [DMPI_HK_MESSAGE] = {0x128, 0x12f}, [DMPI_HK_INFO] = {0x130, 0x137},
    [DMPI_HK_ERRHANDLER] = {0x140, 0x147}, [DMPI_HK_REQUEST] = {0x180, 0x187},
    [DMPI_HK_DATATYPE] = {0x200, 0x3ff},
};

#define PREDEFINED_LIMIT 0x1000u /* handles below this are predefined */

static uintptr_t null_handle(dmpi_handle_kind kind)
{
    switch (kind) {
    case DMPI_HK_COMM: return (uintptr_t)(void *)MPI_COMM_NULL;
    case DMPI_HK_DATATYPE: return (uintptr_t)(void *)MPI_DATATYPE_NULL;
    case DMPI_HK_ERRHANDLER: return (uintptr_t)(void *)MPI_ERRHANDLER_NULL;
    case DMPI_HK_FILE: return (uintptr_t)(void *)MPI_FILE_NULL;
    case DMPI_HK_GROUP: return (uintptr_t)(void *)MPI_GROUP_NULL;
    case DMPI_HK_INFO: return (uintptr_t)(void *)MPI_INFO_NULL;
    case DMPI_HK_MESSAGE: return (uintptr_t)(void *)MPI_MESSAGE_NULL;
    case DMPI_HK_OP: return (uintptr_t)(void *)MPI_OP_NULL;
    case DMPI_HK_REQUEST: return (uintptr_t)(void *)MPI_REQUEST_NULL;
    case DMPI_HK_SESSION: return (uintptr_t)(void *)MPI_SESSION_NULL;
    case DMPI_HK_WIN: return (uintptr_t)(void *)MPI_WIN_NULL;
    default: return 0;
    }
}

/* Slots live in chunks that never move, so that a reader may look at a
 * slot without the lock: slot s is chunk[s / CHUNK][s % CHUNK]. */
typedef struct {
    _Atomic uintptr_t h; /* 0: slot free */
    _Atomic int kind;
} slot_t;
enum { CHUNK = 1024, MAX_CHUNKS = 4096 };   /* up to 4M user handles */

/* The hash table from pointer to slot + 1 (0: empty cell), open
 * addressing. A grown table replaces the old one, which is kept (tables
 * are small and grow by doubling) so that a reader without the lock never
 * touches freed memory. */
typedef struct table {
    size_t size;                /* a power of two */
    struct table *older;
    _Atomic int cell[];
} table_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot_t *_Atomic chunk[MAX_CHUNKS];
static int nslots;                            /* slots ever used (under mu) */
static int *free_slots, nfree, free_cap;      /* under mu */
static table_t *_Atomic table;
static size_t hash_used;                      /* under mu */

static slot_t *slot_at(int s)
{
    slot_t *c = atomic_load_explicit(&chunk[s / CHUNK], memory_order_acquire);
    return c ? &c[s % CHUNK] : NULL;
}

static size_t home(const table_t *t, uintptr_t h)
{
    uint64_t x = (uint64_t)h * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 17) & (t->size - 1);
}

/* Position of h in t, or of the empty cell where it would go. */
static size_t probe(const table_t *t, uintptr_t h)
{
    size_t i = home(t, h);
    for (;;) {
        int c = atomic_load_explicit(&t->cell[i], memory_order_acquire);
        if (!c || atomic_load_explicit(&slot_at(c - 1)->h, memory_order_relaxed) == h) return i;
        i = (i + 1) & (t->size - 1);
    }
}

static bool hash_grow(void)
{
    table_t *old = atomic_load_explicit(&table, memory_order_relaxed);
    size_t size = old ? 2 * old->size : 64;
    table_t *t = calloc(1, sizeof *t + size * sizeof(_Atomic int));
    if (!t) return false;
    t->size = size;
    t->older = old;
    for (size_t i = 0; old && i < old->size; i++) {
        int c = atomic_load_explicit(&old->cell[i], memory_order_relaxed);
        if (c) atomic_store_explicit(&t->cell[probe(t, atomic_load(&slot_at(c - 1)->h))], c,
                                     memory_order_relaxed);
    }
    atomic_store_explicit(&table, t, memory_order_release);
    return true;
}

/* Removes the cell at i, moving later cells of the same run back so that
 * every entry stays reachable from its home. (A reader without the lock
 * may then miss an entry for a moment: it falls back to the lock.) */
static void hash_remove(table_t *t, size_t i)
{
    size_t mask = t->size - 1, j = i;
    atomic_store_explicit(&t->cell[i], 0, memory_order_release);
    for (;;) {
        j = (j + 1) & mask;
        int cj = atomic_load_explicit(&t->cell[j], memory_order_relaxed);
        if (!cj) break;
        size_t k = home(t, atomic_load(&slot_at(cj - 1)->h));
        /* move j to the hole at i unless its home lies cyclically in (i, j] */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            atomic_store_explicit(&t->cell[i], cj, memory_order_release);
            atomic_store_explicit(&t->cell[j], 0, memory_order_release);
            i = j;
        }
    }
    hash_used--;
}

static int new_slot(void)
{
    if (nfree > 0) return free_slots[--nfree];
    if (nslots == MAX_CHUNKS * CHUNK) return -1;
    if (!slot_at(nslots) && nslots % CHUNK == 0) {
        slot_t *c = calloc(CHUNK, sizeof *c);
        if (!c) return -1;
        atomic_store_explicit(&chunk[nslots / CHUNK], c, memory_order_release);
    }
    return nslots++;
}

/* The int of user handle h when it has one of this kind already: no lock
 * (the common case: handles are converted again and again, and freed
 * objects' addresses come back). -1 when the locked path must decide. */
static int toint_fast(dmpi_handle_kind kind, uintptr_t h)
{
    table_t *t = atomic_load_explicit(&table, memory_order_acquire);
    if (!t) return -1;
    int c = atomic_load_explicit(&t->cell[probe(t, h)], memory_order_acquire);
    if (!c) return -1;
    slot_t *sl = slot_at(c - 1);
    if (atomic_load_explicit(&sl->h, memory_order_acquire) != h ||
        atomic_load_explicit(&sl->kind, memory_order_relaxed) != (int)kind)
        return -1;
    return DMPI_HANDLE_INT_BASE + c - 1;
}

int dmpi_handle_toint(dmpi_handle_kind kind, uintptr_t h)
{
    if (h == 0) h = null_handle(kind); /* never a valid handle */
    if (h < PREDEFINED_LIMIT) return (int)h;
    int result = toint_fast(kind, h);
    if (result >= 0) return result;
    result = (int)null_handle(kind);
    pthread_mutex_lock(&mu);
    table_t *t = atomic_load_explicit(&table, memory_order_relaxed);
    if ((!t || (hash_used + 1) * 2 > t->size) && !hash_grow()) goto out;
    t = atomic_load_explicit(&table, memory_order_relaxed);
    size_t i = probe(t, h);
    int c = atomic_load_explicit(&t->cell[i], memory_order_relaxed);
    if (c) {
        /* A slot for this address: the object there now may be of another
         * kind (the old one was freed without dmpi_handle_forget). */
        atomic_store_explicit(&slot_at(c - 1)->kind, (int)kind, memory_order_relaxed);
        result = DMPI_HANDLE_INT_BASE + c - 1;
        goto out;
    }
    int s = new_slot();
    if (s < 0) goto out;
    slot_t *sl = slot_at(s);
    atomic_store_explicit(&sl->kind, (int)kind, memory_order_relaxed);
    atomic_store_explicit(&sl->h, h, memory_order_release);
    atomic_store_explicit(&t->cell[i], s + 1, memory_order_release);
    hash_used++;
    result = DMPI_HANDLE_INT_BASE + s;
out:
    pthread_mutex_unlock(&mu);
    return result;
}

/* No lock: a slot, once made, stays where it is. */
uintptr_t dmpi_handle_fromint(dmpi_handle_kind kind, int i)
{
    if (kind < 0 || kind >= DMPI_HK_NKINDS) return 0;
    if (i > 0 && i < (int)PREDEFINED_LIMIT)
        return i >= kind_range[kind].lo && i <= kind_range[kind].hi ? (uintptr_t)i
                                                                    : null_handle(kind);
    uintptr_t h = null_handle(kind);
    if (i < DMPI_HANDLE_INT_BASE || i - DMPI_HANDLE_INT_BASE >= MAX_CHUNKS * CHUNK) return h;
    slot_t *sl = slot_at(i - DMPI_HANDLE_INT_BASE);
    if (!sl) return h;
    uintptr_t v = atomic_load_explicit(&sl->h, memory_order_acquire);
    if (v && atomic_load_explicit(&sl->kind, memory_order_relaxed) == (int)kind) h = v;
    return h;
}

void dmpi_handle_forget(uintptr_t h)
{
    if (h < PREDEFINED_LIMIT) return;
    pthread_mutex_lock(&mu);
    table_t *t = atomic_load_explicit(&table, memory_order_relaxed);
    if (t) {
        size_t i = probe(t, h);
        int c = atomic_load_explicit(&t->cell[i], memory_order_relaxed);
        if (c) {
            int s = c - 1;
            hash_remove(t, i);
            atomic_store_explicit(&slot_at(s)->h, 0, memory_order_release);
            if (nfree == free_cap) {
                int cap = free_cap ? 2 * free_cap : 64;
                int *f = realloc(free_slots, (size_t)cap * sizeof *f);
                if (f) {
                    free_slots = f;
                    free_cap = cap;
                }
            }
            if (nfree < free_cap) free_slots[nfree++] = s; /* else: slot leaks */
        }
    }
    pthread_mutex_unlock(&mu);
}
