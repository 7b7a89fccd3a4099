/* Info objects: storage of (key, value) pairs in insertion order, the
 * predefined MPI_INFO_ENV (filled from /proc/self/cmdline, the runtime,
 * the host name and the working directory), and the key/value length
 * rules. Interface and locking rules in core/info.h.
 *
 * Freed objects keep their header on a free list (magic DMPI_MAGIC_FREED)
 * instead of going back to malloc, so that a stale handle is reported as
 * MPI_ERR_INFO instead of reading freed memory. */
#include "core/info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct {
    char *key, *val;
} info_pair;

struct dmpi_info {
    uint32_t magic;
    bool builtin;              /* MPI_INFO_ENV: read-only, never freed */
    int n, cap;                /* pairs in use, allocated */
    info_pair *pairs;          /* in insertion order */
    struct dmpi_info *next_free;
};

static pthread_mutex_t info_mu = PTHREAD_MUTEX_INITIALIZER;
static dmpi_info *free_headers;

/* MPI_INFO_ENV. Filled on first use; filled again once after MPI_Init if
 * it was first asked for before (maxprocs and thread_level appear then). */
static dmpi_info env_obj = {.magic = DMPI_MAGIC_INFO, .builtin = true};
static enum { ENV_EMPTY, ENV_BEFORE_INIT, ENV_AFTER_INIT } env_state;

/* ------------------------------------------------------------- checks */

int dmpi_info_check_key(const char *key)
{
    if (!key) return MPI_ERR_INFO_KEY;
    size_t n = strnlen(key, MPI_MAX_INFO_KEY);
    return n == 0 || n >= MPI_MAX_INFO_KEY ? MPI_ERR_INFO_KEY : MPI_SUCCESS;
}

/* noipa: with link-time optimisation GCC specialises this for callers'
 * short literals and then warns that the bound exceeds them. */
__attribute__((noipa)) int dmpi_info_check_value(const char *value)
{
    if (!value) return MPI_ERR_INFO_VALUE;
    return strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL ? MPI_ERR_INFO_VALUE
                                                                : MPI_SUCCESS;
}

/* ------------------------------------------- unlocked pair operations */

static int find(const dmpi_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->pairs[i].key, key) == 0) return i;
    return -1;
}

static void clear_pairs(dmpi_info *info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->pairs[i].key);
        free(info->pairs[i].val);
    }
    free(info->pairs);
    info->pairs = NULL;
    info->n = info->cap = 0;
}

/* Sets key (already checked) to the first `vlen` bytes of value. */
static int set_pair(dmpi_info *info, const char *key, const char *value, size_t vlen)
{
    char *v = strndup(value, vlen);
    if (!v) return MPI_ERR_NO_MEM;
    int i = find(info, key);
    if (i >= 0) {
        free(info->pairs[i].val);
        info->pairs[i].val = v;
        return MPI_SUCCESS;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        info_pair *p = realloc(info->pairs, (size_t)cap * sizeof *p);
        if (!p) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->pairs = p;
        info->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    info->pairs[info->n++] = (info_pair){k, v};
    return MPI_SUCCESS;
}

/* Sets a value that may be too long for an info value: cut to fit. */
static int set_cut(dmpi_info *info, const char *key, const char *value)
{
    size_t n = strlen(value);
    return set_pair(info, key, value, n < MPI_MAX_INFO_VAL - 1 ? n : MPI_MAX_INFO_VAL - 1);
}

/* -------------------------------------------------- the environment */

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return NULL;
    }
}

/* The command line of this process as NUL-separated words (the format of
 * /proc/self/cmdline), with a NUL after the last byte; *len is its size
 * without that NUL. NULL if unreadable. */
static char *read_cmdline(size_t *len)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break; /* end of file: room left for the NUL */
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    fclose(f);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

/* "command" is the first word, "argv" the others joined by spaces (the
 * key is left out when there are no arguments). */
static int set_command_keys(dmpi_info *info, int nwords, const char *const *words)
{
    if (nwords < 1 || !words[0]) return MPI_SUCCESS;
    int rc = set_cut(info, "command", words[0]);
    if (rc != MPI_SUCCESS || nwords < 2) return rc;
    char args[MPI_MAX_INFO_VAL];
    size_t used = 0;
    for (int i = 1; i < nwords && words[i]; i++) {
        int w = snprintf(args + used, sizeof args - used, "%s%s", i > 1 ? " " : "", words[i]);
        if (w < 0 || (size_t)w >= sizeof args - used) {
            used = sizeof args - 1;
            break;
        }
        used += (size_t)w;
    }
    args[used] = 0;
    return set_cut(info, "argv", args);
}

static int fill_command_from_proc(dmpi_info *info)
{
    size_t len = 0;
    char *buf = read_cmdline(&len);
    if (!buf) return MPI_SUCCESS; /* no /proc: leave the keys out */
    int nwords = 0;
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1) nwords++;
    const char **words = calloc((size_t)nwords + 1, sizeof *words);
    int rc = MPI_ERR_NO_MEM;
    if (words) {
        int w = 0;
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1) words[w++] = buf + i;
        rc = set_command_keys(info, nwords, words);
        free(words);
    }
    free(buf);
    return rc;
}

/* with_runtime adds the keys that exist only once MPI is initialized
 * (maxprocs, thread_level): MPI_INFO_ENV has them after MPI_Init, while
 * MPI_Info_create_env leaves them out, so that it gives the same keys and
 * values before and after MPI_Init (the standard: the same construction as
 * MPI_INFO_ENV made by MPI_Init with these arguments, whenever called). */
static int fill_env_locked(dmpi_info *info, int argc, char *argv[], bool with_runtime)
{
    int rc = argv && argc > 0 ? set_command_keys(info, argc, (const char *const *)argv)
                              : fill_command_from_proc(info);
    char buf[MPI_MAX_INFO_VAL];
    if (rc == MPI_SUCCESS && with_runtime && dmpi_rt.initialized && dmpi_rt.world_size > 0) {
        snprintf(buf, sizeof buf, "%d", dmpi_rt.world_size);
        rc = set_cut(info, "maxprocs", buf);
    }
    if (rc == MPI_SUCCESS && gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = 0;
        rc = set_cut(info, "host", buf);
    }
    struct utsname u;
    if (rc == MPI_SUCCESS && uname(&u) == 0) rc = set_cut(info, "arch", u.machine);
    if (rc == MPI_SUCCESS && getcwd(buf, sizeof buf)) rc = set_cut(info, "wdir", buf);
    const char *tl =
        with_runtime && dmpi_rt.initialized ? thread_level_name(dmpi_rt.thread_level) : NULL;
    if (rc == MPI_SUCCESS && tl) rc = set_cut(info, "thread_level", tl);
    return rc;
}

int dmpi_info_fill_env(dmpi_info *info, int argc, char *argv[])
{
    pthread_mutex_lock(&info_mu);
    int rc = fill_env_locked(info, argc, argv, false);
    pthread_mutex_unlock(&info_mu);
    return rc;
}

/* Called with the lock held. */
static void ensure_env(void)
{
    if (env_state == ENV_AFTER_INIT) return;
    if (env_state == ENV_BEFORE_INIT && !dmpi_rt.initialized) return;
    clear_pairs(&env_obj);
    fill_env_locked(&env_obj, 0, NULL, true); /* out of memory: fewer keys */
    env_state = dmpi_rt.initialized ? ENV_AFTER_INIT : ENV_BEFORE_INIT;
}

/* ------------------------------------------------ objects and handles */

dmpi_info *dmpi_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        pthread_mutex_lock(&info_mu);
        ensure_env();
        pthread_mutex_unlock(&info_mu);
        return &env_obj;
    }
    if ((uintptr_t)(void *)h < 0x1000) return NULL;
    dmpi_info *info = (dmpi_info *)(void *)h;
    return info->magic == DMPI_MAGIC_INFO ? info : NULL;
}

MPI_Info dmpi_info_handle(dmpi_info *info)
{
    if (!info) return MPI_INFO_NULL;
    return info == &env_obj ? MPI_INFO_ENV : (MPI_Info)(void *)info;
}

bool dmpi_info_is_builtin(const dmpi_info *info)
{
    return info->builtin;
}

dmpi_info *dmpi_info_new(void)
{
    pthread_mutex_lock(&info_mu);
    dmpi_info *info = free_headers;
    if (info) free_headers = info->next_free;
    pthread_mutex_unlock(&info_mu);
    if (!info) info = malloc(sizeof *info);
    if (!info) return NULL;
    *info = (dmpi_info){.magic = DMPI_MAGIC_INFO};
    return info;
}

void dmpi_info_free(dmpi_info *info)
{
    if (!info || info->builtin) return;
    pthread_mutex_lock(&info_mu);
    clear_pairs(info);
    info->magic = DMPI_MAGIC_FREED;
    info->next_free = free_headers;
    free_headers = info;
    pthread_mutex_unlock(&info_mu);
}

int dmpi_info_dup(dmpi_info *info, dmpi_info **out)
{
    dmpi_info *copy = dmpi_info_new();
    if (!copy) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&info_mu);
    if (info == &env_obj) ensure_env();
    for (int i = 0; i < info->n && rc == MPI_SUCCESS; i++)
        rc = set_pair(copy, info->pairs[i].key, info->pairs[i].val, strlen(info->pairs[i].val));
    pthread_mutex_unlock(&info_mu);
    if (rc != MPI_SUCCESS) {
        dmpi_info_free(copy);
        return rc;
    }
    *out = copy;
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- pair access */

const char *dmpi_info_lookup(const dmpi_info *info, const char *key)
{
    if (!info || !key) return NULL;
    pthread_mutex_lock(&info_mu);
    int i = find(info, key);
    const char *v = i >= 0 ? info->pairs[i].val : NULL;
    pthread_mutex_unlock(&info_mu);
    return v;
}

bool dmpi_info_copy_value(const dmpi_info *info, const char *key, char *value, int cap,
                          int *len)
{
    pthread_mutex_lock(&info_mu);
    int i = find(info, key);
    if (i >= 0) {
        const char *v = info->pairs[i].val;
        size_t n = strlen(v);
        if (cap > 0) {
            size_t c = n < (size_t)cap - 1 ? n : (size_t)cap - 1;
            memcpy(value, v, c);
            value[c] = 0;
        }
        if (len) *len = (int)n;
    }
    pthread_mutex_unlock(&info_mu);
    return i >= 0;
}

int dmpi_info_set_kv(dmpi_info *info, const char *key, const char *value)
{
    int rc = dmpi_info_check_key(key);
    if (rc == MPI_SUCCESS) rc = dmpi_info_check_value(value);
    if (rc != MPI_SUCCESS) return rc;
    if (info->builtin) return MPI_ERR_INFO;
    pthread_mutex_lock(&info_mu);
    rc = set_pair(info, key, value, strlen(value));
    pthread_mutex_unlock(&info_mu);
    return rc;
}

int dmpi_info_delete_key(dmpi_info *info, const char *key)
{
    if (info->builtin) return MPI_ERR_INFO;
    pthread_mutex_lock(&info_mu);
    int i = find(info, key);
    if (i >= 0) {
        free(info->pairs[i].key);
        free(info->pairs[i].val);
        memmove(&info->pairs[i], &info->pairs[i + 1],
                (size_t)(info->n - i - 1) * sizeof info->pairs[0]);
        info->n--;
    }
    pthread_mutex_unlock(&info_mu);
    return i >= 0 ? MPI_SUCCESS : MPI_ERR_INFO_NOKEY;
}

int dmpi_info_nkeys(const dmpi_info *info)
{
    pthread_mutex_lock(&info_mu);
    int n = info->n;
    pthread_mutex_unlock(&info_mu);
    return n;
}

bool dmpi_info_nthkey(const dmpi_info *info, int n, char *key)
{
    pthread_mutex_lock(&info_mu);
    bool ok = n >= 0 && n < info->n;
    if (ok) snprintf(key, MPI_MAX_INFO_KEY, "%s", info->pairs[n].key);
    pthread_mutex_unlock(&info_mu);
    return ok;
}
