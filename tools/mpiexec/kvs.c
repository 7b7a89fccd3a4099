/* mpiexec's key/value space: one hash table of strings (chained, grows at
 * load 1). A put of an existing key replaces its value. Total size is
 * capped so a runaway rank cannot exhaust mpiexec's memory. */
#include "mpiexec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KVS_MAX_BYTES (512u << 20)

typedef struct kv {
    struct kv *next;
    char *val;
    char key[];
} kv;

struct mpx_kvs {
    kv **bucket;
    size_t nbucket, count, bytes;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

struct mpx_kvs *mpx_kvs_new(void)
{
    struct mpx_kvs *k = mpx_xmalloc(sizeof *k);
    k->nbucket = 256;
    k->bucket = calloc(k->nbucket, sizeof *k->bucket);
    if (k->bucket == NULL) {
        mpx_log("out of memory");
        exit(1);
    }
    k->count = k->bytes = 0;
    return k;
}

void mpx_kvs_free(struct mpx_kvs *k)
{
    if (k == NULL) return;
    for (size_t i = 0; i < k->nbucket; i++) {
        for (kv *e = k->bucket[i], *next; e; e = next) {
            next = e->next;
            free(e->val);
            free(e);
        }
    }
    free(k->bucket);
    free(k);
}

static void grow(struct mpx_kvs *k)
{
    size_t nb = k->nbucket * 2;
    kv **b = calloc(nb, sizeof *b);
    if (b == NULL) return; /* keep the old table: slower, still correct */
    for (size_t i = 0; i < k->nbucket; i++) {
        for (kv *e = k->bucket[i], *next; e; e = next) {
            next = e->next;
            size_t h = hash(e->key) & (nb - 1);
            e->next = b[h];
            b[h] = e;
        }
    }
    free(k->bucket);
    k->bucket = b;
    k->nbucket = nb;
}

/* 0, or -1 when the table is full */
int mpx_kvs_put(struct mpx_kvs *k, const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val);
    size_t h = hash(key) & (k->nbucket - 1);
    for (kv *e = k->bucket[h]; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            size_t old = strlen(e->val);
            if (k->bytes - old + vl > KVS_MAX_BYTES) return -1;
            char *v = mpx_xmalloc(vl + 1);
            memcpy(v, val, vl + 1);
            free(e->val);
            e->val = v;
            k->bytes = k->bytes - old + vl;
            return 0;
        }
    }
    if (k->bytes + kl + vl + sizeof(kv) > KVS_MAX_BYTES) return -1;
    kv *e = mpx_xmalloc(sizeof *e + kl + 1);
    memcpy(e->key, key, kl + 1);
    e->val = mpx_xmalloc(vl + 1);
    memcpy(e->val, val, vl + 1);
    e->next = k->bucket[h];
    k->bucket[h] = e;
    k->count++;
    k->bytes += kl + vl + sizeof(kv);
    if (k->count > k->nbucket) grow(k);
    return 0;
}

const char *mpx_kvs_get(const struct mpx_kvs *k, const char *key)
{
    for (kv *e = k->bucket[hash(key) & (k->nbucket - 1)]; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e->val;
    return NULL;
}
