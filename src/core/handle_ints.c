/* Handle <-> int table for MPI_*_toint / MPI_*_fromint (interface in
 * core/handle_ints.h). Predefined handles are their own ints. User handles
 * get a slot in a growing array (int = DMPI_HANDLE_INT_BASE + slot); a
 * hash table from pointer to slot makes toint O(1). Freed slots are
 * reused. One mutex guards everything: conversions are rare and short. */
#include "core/handle_ints.h"
#include "core/dmpi.h"

#include <pthread.h>
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

typedef struct {
    uintptr_t h; /* 0: slot free */
    int kind;
} slot_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot_t *slots;          /* int = DMPI_HANDLE_INT_BASE + index */
static int nslots, slots_cap;
static int *free_slots, nfree, free_cap;
static int *hash;              /* open addressing: slot index + 1, 0 empty */
static size_t hash_size, hash_used; /* hash_size is a power of two */

static size_t home(uintptr_t h)
{
    uint64_t x = (uint64_t)h * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 17) & (hash_size - 1);
}

/* Position of h in the hash table, or of the empty cell where it would go. */
static size_t probe(uintptr_t h)
{
    size_t i = home(h);
    while (hash[i] && slots[hash[i] - 1].h != h) i = (i + 1) & (hash_size - 1);
    return i;
}

static bool hash_grow(void)
{
    size_t old_size = hash_size;
    int *old = hash;
    size_t size = old_size ? 2 * old_size : 64;
    int *t = calloc(size, sizeof *t);
    if (!t) return false;
    hash = t;
    hash_size = size;
    for (size_t i = 0; i < old_size; i++)
        if (old[i]) hash[probe(slots[old[i] - 1].h)] = old[i];
    free(old);
    return true;
}

/* Removes the cell at i, moving later cells of the same run back so that
 * every entry stays reachable from its home. */
static void hash_remove(size_t i)
{
    size_t mask = hash_size - 1, j = i;
    hash[i] = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!hash[j]) break;
        size_t k = home(slots[hash[j] - 1].h);
        /* move j to the hole at i unless its home lies cyclically in (i, j] */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            hash[i] = hash[j];
            hash[j] = 0;
            i = j;
        }
    }
    hash_used--;
}

static int new_slot(void)
{
    if (nfree > 0) return free_slots[--nfree];
    if (nslots == slots_cap) {
        if (slots_cap > 0x7fffffff / 2 - DMPI_HANDLE_INT_BASE) return -1;
        int cap = slots_cap ? 2 * slots_cap : 64;
        slot_t *s = realloc(slots, (size_t)cap * sizeof *s);
        if (!s) return -1;
        slots = s;
        slots_cap = cap;
    }
    return nslots++;
}

int dmpi_handle_toint(dmpi_handle_kind kind, uintptr_t h)
{
    if (h == 0) h = null_handle(kind); /* never a valid handle */
    if (h < PREDEFINED_LIMIT) return (int)h;
    int result = (int)null_handle(kind);
    pthread_mutex_lock(&mu);
    if ((hash_used + 1) * 2 > hash_size && !hash_grow()) goto out;
    size_t i = probe(h);
    if (hash[i]) {
        /* A slot for this address: the object there now may be of another
         * kind (the old one was freed without dmpi_handle_forget). */
        slots[hash[i] - 1].kind = (int)kind;
        result = DMPI_HANDLE_INT_BASE + hash[i] - 1;
        goto out;
    }
    int s = new_slot();
    if (s < 0) goto out;
    slots[s] = (slot_t){h, (int)kind};
    hash[i] = s + 1;
    hash_used++;
    result = DMPI_HANDLE_INT_BASE + s;
out:
    pthread_mutex_unlock(&mu);
    return result;
}

uintptr_t dmpi_handle_fromint(dmpi_handle_kind kind, int i)
{
    if (kind < 0 || kind >= DMPI_HK_NKINDS) return 0;
    if (i > 0 && i < (int)PREDEFINED_LIMIT)
        return i >= kind_range[kind].lo && i <= kind_range[kind].hi ? (uintptr_t)i
                                                                    : null_handle(kind);
    uintptr_t h = null_handle(kind);
    if (i < DMPI_HANDLE_INT_BASE) return h;
    pthread_mutex_lock(&mu);
    int s = i - DMPI_HANDLE_INT_BASE;
    if (s < nslots && slots[s].h && slots[s].kind == (int)kind) h = slots[s].h;
    pthread_mutex_unlock(&mu);
    return h;
}

void dmpi_handle_forget(uintptr_t h)
{
    if (h < PREDEFINED_LIMIT) return;
    pthread_mutex_lock(&mu);
    if (hash_size) {
        size_t i = probe(h);
        if (hash[i]) {
            int s = hash[i] - 1;
            hash_remove(i);
            slots[s].h = 0;
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
