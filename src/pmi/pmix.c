/* PMIx backend (see pmi_backend.h): reaches a PMIx server (Slurm's
 * `srun --mpi=pmix`, prterun, ...) through libpmix. The core library must
 * need nothing but libc and pthreads, so only the PMIx headers are used at
 * build time (types, constants, the inline helpers of pmix_common.h) and
 * libpmix.so.2 is loaded with dlopen when a job was started by a PMIx
 * server; no PMIx_* symbol is linked. Without the headers (DMPI_HAVE_PMIX
 * unset) only dmpi_pmix_in_env is real and connecting says support is not
 * built.
 *
 * The key/value space maps onto PMIx_Put (global scope, string values),
 * PMIx_Commit + PMIx_Fence over the whole namespace (collecting the data,
 * so that later gets are answered from the local store) and PMIx_Get from
 * the owner's rank. Node ids come from PMIX_NODEID of every rank or, where
 * the server lacks some (Slurm), from PMIX_HOSTNAME, checked against this
 * node's PMIX_LOCAL_PEERS. Waits on the server are bounded by
 * dmpi_pmi_timeout_ms(). pmi.c holds its lock around every call but abort. */
#include "pmi_backend.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

bool dmpi_pmix_in_env(void)
{
    if (!getenv("PMIX_NAMESPACE")) return false;
    if (getenv("PMIX_RANK")) return true;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) return true;
    return false;
}

#ifndef DMPI_HAVE_PMIX

const dmpi_pmi_backend *dmpi_pmix_connect(dmpi_pmi_job *job)
{
    (void)job;
    dmpi_pmi_fail("PMIx: the job was started by a PMIx server, but this dmpi was built "
                  "without PMIx support (pmix.h not found at build time: install "
                  "libpmix-dev and rebuild, or launch with srun --mpi=pmi2)");
    return NULL;
}

#else /* DMPI_HAVE_PMIX */

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <pmix.h>

enum {
    KEYLEN_MAX = 63,
    VALLEN_MAX = 4096,
};

/* The libpmix entry points, typed by the header's own declarations. */
static struct {
    __typeof__(PMIx_Init) *init;
    __typeof__(PMIx_Finalize) *finalize;
    __typeof__(PMIx_Put) *put;
    __typeof__(PMIx_Commit) *commit;
    __typeof__(PMIx_Fence_nb) *fence_nb;
    __typeof__(PMIx_Get) *get;
    __typeof__(PMIx_Abort) *abort;
    __typeof__(PMIx_Value_destruct) *value_destruct;
    __typeof__(PMIx_Error_string) *error_string;
} fn;

static struct {
    void *lib;         /* kept loaded once opened: libpmix leaves state behind */
    _Atomic bool up;   /* between a successful PMIx_Init and PMIx_Finalize */
    pmix_proc_t me;    /* our namespace and rank */
    pmix_proc_t wild;  /* our namespace, every rank */
    int size;
    bool dirty;        /* puts not committed yet */
} px;

static const char *errstr(pmix_status_t rc)
{
    const char *s = fn.error_string ? fn.error_string(rc) : NULL;
    return s ? s : "unknown PMIx error";
}

/* ------------------------------------------------------------ loading */

static int load_library(void)
{
    if (px.lib) return 0;
    static const char *const names[] = {"libpmix.so.2", "libpmix.so"};
    void *lib = NULL;
    char why[256] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib && i == 0) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : "");
        }
    }
    if (!lib) {
        dmpi_pmi_fail("PMIx: libpmix.so.2 not found (install libpmix2): %s", why);
        return -1;
    }
    /* POSIX: dlsym returns a function's address as a void *; the casts
     * take the type from the header's declaration */
    const char *missing = NULL;
    void *p;
#define LOAD(field, sym)                                              \
    do {                                                              \
        if (!missing && !(p = dlsym(lib, sym))) missing = sym;        \
        if (!missing) fn.field = (__typeof__(fn.field))p;             \
    } while (0)
    LOAD(init, "PMIx_Init");
    LOAD(finalize, "PMIx_Finalize");
    LOAD(put, "PMIx_Put");
    LOAD(commit, "PMIx_Commit");
    LOAD(fence_nb, "PMIx_Fence_nb");
    LOAD(get, "PMIx_Get");
    LOAD(abort, "PMIx_Abort");
    LOAD(value_destruct, "PMIx_Value_destruct");
    LOAD(error_string, "PMIx_Error_string");
#undef LOAD
    if (missing) {
        dmpi_pmi_fail("PMIx: %s not found in libpmix (version too old?)", missing);
        memset(&fn, 0, sizeof fn);
        dlclose(lib);
        return -1;
    }
    px.lib = lib;
    return 0;
}

/* ------------------------------------------------------------ helpers */

static void set_bool(pmix_info_t *in, const char *key, bool v)
{
    memset(in, 0, sizeof *in);
    PMIX_LOAD_KEY(in->key, key); /* inline in pmix_common.h: no library call */
    in->value.type = PMIX_BOOL;
    in->value.data.flag = v;
}

static int timeout_s(void);

/* PMIX_TIMEOUT from $DMPI_PMI_TIMEOUT (for the server's side); 0 items
 * when there is no bound. */
static size_t set_timeout(pmix_info_t *in)
{
    int sec = timeout_s();
    if (sec <= 0) return 0;
    memset(in, 0, sizeof *in);
    PMIX_LOAD_KEY(in->key, PMIX_TIMEOUT);
    in->value.type = PMIX_INT;
    in->value.data.integer = sec;
    return 1;
}

static void release(pmix_value_t *v)
{
    if (!v) return;
    fn.value_destruct(v);
    free(v); /* PMIx allocates with malloc (pmix_malloc in pmix_common.h) */
}

/* An integer value of any width. */
static bool value_long(const pmix_value_t *v, long long *out)
{
    switch (v->type) {
    case PMIX_INT: *out = v->data.integer; return true;
    case PMIX_INT8: *out = v->data.int8; return true;
    case PMIX_INT16: *out = v->data.int16; return true;
    case PMIX_INT32: *out = v->data.int32; return true;
    case PMIX_INT64: *out = v->data.int64; return true;
    case PMIX_UINT: *out = v->data.uint; return true;
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT32: *out = v->data.uint32; return true;
    case PMIX_UINT64: *out = v->data.uint64 > LLONG_MAX ? -1 : (long long)v->data.uint64; return true;
    case PMIX_SIZE: *out = v->data.size > LLONG_MAX ? -1 : (long long)v->data.size; return true;
    case PMIX_PROC_RANK: *out = v->data.rank; return true;
    default: return false;
    }
}

/* One lookup in the local store: 0 found (*v set, release it), 1 not
 * there, -1 error (reason set). Job data (pmix.* keys) is local from
 * PMIx_Init on, and the collecting fence brings every rank's puts: a key
 * the store lacks was never put, and asking the server would wait for it
 * (PMIx holds a get until the key appears). */
static int lookup(const pmix_proc_t *proc, const char *key, pmix_value_t **v)
{
    pmix_info_t info[1];
    set_bool(&info[0], PMIX_OPTIONAL, true);
    *v = NULL;
    pmix_status_t rc = fn.get(proc, key, info, 1, v);
    if (rc == PMIX_SUCCESS && *v) return 0;
    release(*v);
    *v = NULL;
    if (rc == PMIX_ERR_NOT_FOUND) return 1;
    if (proc->rank == PMIX_RANK_UNDEF)
        dmpi_pmi_fail("PMIx: PMIx_Get(%s) from any rank: %s", key, errstr(rc));
    else if (proc->rank == PMIX_RANK_WILDCARD)
        dmpi_pmi_fail("PMIx: PMIx_Get(%s) of the job: %s", key, errstr(rc));
    else
        dmpi_pmi_fail("PMIx: PMIx_Get(%s) from rank %u: %s", key, (unsigned)proc->rank, errstr(rc));
    return -1;
}

/* A key of proc as a non-negative int: 0 found, 1 absent, -1 error. */
static int get_int(const pmix_proc_t *proc, const char *key, int *out)
{
    pmix_value_t *v;
    int g = lookup(proc, key, &v);
    if (g != 0) return g;
    long long x;
    bool ok = value_long(v, &x);
    release(v);
    if (!ok || x < 0 || x > INT_MAX) {
        dmpi_pmi_fail("PMIx: %s of rank %u: %s", key, (unsigned)proc->rank,
                      ok ? "out of range" : "not an integer");
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* A string-valued key of proc: 0 found (*out malloc'ed), 1 absent, -1 error. */
static int get_string(const pmix_proc_t *proc, const char *key, char **out)
{
    pmix_value_t *v;
    int g = lookup(proc, key, &v);
    if (g != 0) return g;
    if (v->type != PMIX_STRING || !v->data.string) {
        dmpi_pmi_fail("PMIx: %s of rank %u is not a string (type %d)", key, (unsigned)proc->rank,
                      (int)v->type);
        release(v);
        return -1;
    }
    *out = strdup(v->data.string);
    release(v);
    if (!*out) {
        dmpi_pmi_fail("PMIx: out of memory");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------- bounded waiting */

/* PMIX_TIMEOUT only bounds what the server does: a server that stops
 * answering (a stopped slurmstepd) keeps a blocking PMIx call waiting
 * forever. So calls that need the server's answer run as an operation
 * whose completion (PMIx's callback, or a helper thread around a call that
 * has no non-blocking form) is waited for at most dmpi_pmi_timeout_ms().
 * An operation given up on is freed by its late completion. Everything
 * PMIx may still read (procs, info, message) lives in the operation. */
typedef struct op {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done, abandoned;
    pmix_status_t status;
    pmix_proc_t proc;
    pmix_info_t info[2];
    size_t ninfo;
    int code;              /* abort */
    char msg[1024];        /* abort */
    pmix_status_t (*call)(struct op *); /* run by the helper thread */
} op;

static op *op_new(void)
{
    op *o = calloc(1, sizeof *o);
    if (!o) {
        dmpi_pmi_fail("PMIx: out of memory");
        return NULL;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&o->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&o->lock, NULL);
    return o;
}

static void op_free(op *o)
{
    pthread_cond_destroy(&o->cond);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

/* The completion: PMIx's callback (its progress thread) or the helper. */
static void op_done(pmix_status_t status, void *cbdata)
{
    op *o = cbdata;
    pthread_mutex_lock(&o->lock);
    if (o->abandoned) {
        pthread_mutex_unlock(&o->lock);
        op_free(o);
        return;
    }
    o->status = status;
    o->done = true;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

/* Waits for o; 0 with *status set (o freed), or -1 when the time ran out
 * (o then belongs to its completion). */
static int op_wait(op *o, pmix_status_t *status)
{
    int ms = dmpi_pmi_timeout_ms();
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (ms >= 0) {
        dl.tv_sec += ms / 1000;
        dl.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&o->lock);
    while (!o->done) {
        int r = ms < 0 ? pthread_cond_wait(&o->cond, &o->lock)
                       : pthread_cond_timedwait(&o->cond, &o->lock, &dl);
        if (r == ETIMEDOUT && !o->done) {
            o->abandoned = true;
            pthread_mutex_unlock(&o->lock);
            return -1;
        }
    }
    pthread_mutex_unlock(&o->lock);
    *status = o->status;
    op_free(o);
    return 0;
}

static void *op_thread(void *arg)
{
    op *o = arg;
    op_done(o->call(o), o);
    return NULL;
}

/* Runs o->call on a helper thread and waits for it (bounded). */
static int op_run(op *o, pmix_status_t *status)
{
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(&t, &a, op_thread, o);
    pthread_attr_destroy(&a);
    if (r != 0) { /* no thread: call it here, unbounded */
        *status = o->call(o);
        op_free(o);
        return 0;
    }
    return op_wait(o, status);
}

static int timeout_s(void)
{
    int ms = dmpi_pmi_timeout_ms();
    return ms < 0 ? 0 : ms / 1000 + (ms % 1000 != 0);
}

/* op_run for a call named what: 0, or -1 with the reason set (no answer
 * in time, or the call's error). */
static int op_call(op *o, const char *what)
{
    pmix_status_t rc;
    if (op_run(o, &rc) != 0) {
        dmpi_pmi_fail("PMIx: %s: no answer from the PMIx server in %d s", what, timeout_s());
        return -1;
    }
    if (rc != PMIX_SUCCESS) {
        dmpi_pmi_fail("PMIx: %s: %s", what, errstr(rc));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the ops */

static int pmix_put(const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val);
    if (kl == 0 || kl > KEYLEN_MAX || vl > VALLEN_MAX) {
        dmpi_pmi_fail("PMIx: put: key of %zu bytes or value of %zu bytes too long", kl, vl);
        return -1;
    }
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)val; /* PMIx_Put copies it */
    pmix_status_t rc = fn.put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        dmpi_pmi_fail("PMIx: PMIx_Put(%s): %s", key, errstr(rc));
        return -1;
    }
    px.dirty = true;
    return 0;
}

static pmix_status_t call_commit(op *o)
{
    (void)o;
    return fn.commit();
}

static int pmix_fence(void)
{
    pmix_status_t rc;
    op *o;
    if (px.dirty) {
        /* PMIx_Commit waits for the server too (a stopped slurmstepd
         * holds it): bounded on a helper thread */
        if (!(o = op_new())) return -1;
        o->call = call_commit;
        if (op_call(o, "PMIx_Commit") != 0) return -1;
        px.dirty = false;
    }
    o = op_new();
    if (!o) return -1;
    o->proc = px.wild;
    /* collect: every rank's data comes to every node with the fence, so
     * gets are answered locally (and a missing key is known missing) */
    set_bool(&o->info[0], PMIX_COLLECT_DATA, true);
    o->ninfo = 1 + set_timeout(&o->info[1]);
    rc = fn.fence_nb(&o->proc, 1, o->info, o->ninfo, op_done, o);
    if (rc == PMIX_SUCCESS) {
        if (op_wait(o, &rc) != 0) {
            dmpi_pmi_fail("PMIx: PMIx_Fence: no answer from the PMIx server in %d s", timeout_s());
            return -1;
        }
    } else {
        op_free(o); /* no callback comes */
        if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
        dmpi_pmi_fail("PMIx: PMIx_Fence: %s", errstr(rc));
        return -1;
    }
    return 0;
}

static int pmix_get(int owner, const char *key, char *val, int maxlen)
{
    if (owner >= px.size) {
        dmpi_pmi_fail("PMIx: get(%s): rank %d outside the job of %d", key, owner, px.size);
        return -1;
    }
    pmix_proc_t proc = px.me;
    pmix_value_t *v = NULL;
    int g;
    if (owner >= 0) {
        proc.rank = (pmix_rank_t)owner;
        g = lookup(&proc, key, &v);
        if (g == 1) dmpi_pmi_fail("PMIx: get(%s) from rank %d: not found", key, owner);
    } else {
        /* PMIX_RANK_UNDEF (any rank) is answered by libpmix's hash store
         * but not by the shared-memory store (ds21) Slurm's clients use:
         * then every rank in turn (all local after the fence) */
        proc.rank = PMIX_RANK_UNDEF;
        g = lookup(&proc, key, &v);
        for (int r = 0; g == 1 && r < px.size; r++) {
            proc.rank = (pmix_rank_t)r;
            g = lookup(&proc, key, &v);
        }
        if (g == 1) dmpi_pmi_fail("PMIx: get(%s): no rank put it", key);
    }
    if (g != 0) return -1;
    int r = 0;
    size_t len = v->type == PMIX_STRING && v->data.string ? strlen(v->data.string) : 0;
    if (v->type != PMIX_STRING || !v->data.string) {
        dmpi_pmi_fail("PMIx: get(%s): the value is not a string (type %d)", key, (int)v->type);
        r = -1;
    } else if (len >= (size_t)maxlen) {
        dmpi_pmi_fail("PMIx: get(%s): value of %zu bytes does not fit %d", key, len, maxlen);
        r = -1;
    } else {
        memcpy(val, v->data.string, len + 1);
    }
    release(v);
    return r;
}

static int pmix_job_attr(const char *key, char *val, int maxlen)
{
    (void)val;
    (void)maxlen;
    if (strcmp(key, "PMI_process_mapping") == 0)
        dmpi_pmi_fail("PMIx: no PMI_process_mapping (the nodes come from PMIX_NODEID)");
    else
        dmpi_pmi_fail("PMIx: no job attribute %s", key);
    return -1;
}

/* node_of from PMIX_HOSTNAME: the node of a rank is the lowest rank on the
 * same host. */
static int nodes_from_hostnames(int size, int *node_of)
{
    char **host = calloc((size_t)size, sizeof *host);
    if (!host) {
        dmpi_pmi_fail("PMIx: out of memory");
        return -1;
    }
    int r = 0;
    for (int i = 0; i < size && r == 0; i++) {
        pmix_proc_t p = px.me;
        p.rank = (pmix_rank_t)i;
        int g = get_string(&p, PMIX_HOSTNAME, &host[i]);
        if (g == 1)
            dmpi_pmi_fail("PMIx: the server gives neither PMIX_NODEID nor PMIX_HOSTNAME of rank %d", i);
        if (g != 0) r = -1;
    }
    for (int i = 0; i < size && r == 0; i++) {
        node_of[i] = i;
        for (int j = 0; j < i; j++)
            if (node_of[j] == j && strcmp(host[i], host[j]) == 0) {
                node_of[i] = j;
                break;
            }
    }
    for (int i = 0; i < size; i++) free(host[i]);
    free(host);
    return r;
}

/* The ranks of PMIX_LOCAL_PEERS ("0,1,5" or ranges "0-3,8") must be
 * exactly those sharing our node id. */
static int check_local_peers(int size, const int *node_of)
{
    char *peers = NULL;
    int g = get_string(&px.wild, PMIX_LOCAL_PEERS, &peers);
    if (g == 1) return 0; /* nothing to compare with */
    if (g != 0) return -1;
    int mine = node_of[px.me.rank], listed = 0, expected = 0;
    bool self = false;
    int r = 0;
    for (int i = 0; i < size; i++) expected += node_of[i] == mine;
    for (const char *s = peers; *s && r == 0;) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        if (*end == '-') {
            const char *t = end + 1;
            b = strtol(t, &end, 10);
            if (end == t) b = -1;
        }
        if (a < 0 || b < a || b >= size) {
            dmpi_pmi_fail("PMIx: PMIX_LOCAL_PEERS \"%s\" names ranks outside the job of %d", peers, size);
            r = -1;
            break;
        }
        for (long k = a; k <= b; k++) {
            listed++;
            self |= k == (long)px.me.rank;
            if (node_of[k] != mine) {
                dmpi_pmi_fail("PMIx: rank %ld is a local peer (PMIX_LOCAL_PEERS) but on node %d, "
                              "rank %u on node %d", k, node_of[k], (unsigned)px.me.rank, mine);
                r = -1;
                break;
            }
        }
        s = *end == ',' ? end + 1 : end;
    }
    if (r == 0 && (!self || listed != expected)) {
        dmpi_pmi_fail("PMIx: PMIX_LOCAL_PEERS \"%s\" lists %d ranks%s, node %d holds %d",
                      peers, listed, self ? "" : " without this one", mine, expected);
        r = -1;
    }
    free(peers);
    return r;
}

typedef struct {
    int a, b;
} pair;

static int pair_cmp(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* n pairs (a, b): does some a go with two different b? */
static bool one_a_two_b(pair *v, size_t n)
{
    qsort(v, n, sizeof *v, pair_cmp);
    for (size_t i = 1; i < n; i++)
        if (v[i].a == v[i - 1].a && v[i].b != v[i - 1].b) return true;
    return false;
}

/* Where the server gave both, PMIX_NODEID and PMIX_HOSTNAME must group
 * the ranks alike. */
static int check_nodeids_hosts(int size, const int *nid, const int *node_of)
{
    pair *v = malloc(sizeof *v * (size_t)size);
    if (!v) {
        dmpi_pmi_fail("PMIx: out of memory");
        return -1;
    }
    size_t n = 0;
    for (int i = 0; i < size; i++)
        if (nid[i] >= 0) v[n++] = (pair){nid[i], node_of[i]};
    bool bad = one_a_two_b(v, n);
    if (!bad) {
        for (size_t i = 0; i < n; i++) v[i] = (pair){v[i].b, v[i].a};
        bad = one_a_two_b(v, n);
    }
    free(v);
    if (bad) {
        dmpi_pmi_fail("PMIx: PMIX_NODEID and PMIX_HOSTNAME disagree on which ranks share a node");
        return -1;
    }
    return 0;
}

/* PMIX_NODEID of every rank when the server has them all (prterun);
 * Slurm gives it only for the ranks of this node, but PMIX_HOSTNAME of
 * every rank: then the node of a rank is the lowest rank on its host,
 * checked against the node ids that are there. Either way this node's
 * ranks must be exactly PMIX_LOCAL_PEERS. */
static int pmix_node_ids(int size, int *node_of)
{
    if (size != px.size) {
        dmpi_pmi_fail("PMIx: asked for the nodes of %d ranks, the job has %d (PMIX_JOB_SIZE)",
                      size, px.size);
        return -1;
    }
    int *nid = malloc(sizeof(int) * (size_t)size);
    if (!nid) {
        dmpi_pmi_fail("PMIx: out of memory");
        return -1;
    }
    int missing = 0, r = 0;
    for (int i = 0; i < size && r == 0; i++) {
        pmix_proc_t p = px.me;
        p.rank = (pmix_rank_t)i;
        int g = get_int(&p, PMIX_NODEID, &nid[i]);
        if (g < 0) r = -1;
        if (g == 1) {
            nid[i] = -1;
            missing++;
        }
    }
    if (r == 0 && missing == 0) {
        memcpy(node_of, nid, sizeof(int) * (size_t)size);
    } else if (r == 0) {
        r = nodes_from_hostnames(size, node_of);
        if (r == 0) r = check_nodeids_hosts(size, nid, node_of);
    }
    free(nid);
    if (r == 0) r = check_local_peers(size, node_of);
    return r;
}

static pmix_status_t call_abort(op *o)
{
    return fn.abort(o->code, o->msg, NULL, 0);
}

static int pmix_abort(int code, const char *msg)
{
    if (!px.up) {
        dmpi_pmi_fail("PMIx: abort: not connected");
        return -1;
    }
    op *o = op_new();
    if (!o) return -1;
    o->code = code;
    snprintf(o->msg, sizeof o->msg, "%s", msg ? msg : "");
    o->call = call_abort;
    return op_call(o, "PMIx_Abort");
}

static pmix_status_t call_finalize(op *o)
{
    (void)o;
    return fn.finalize(NULL, 0);
}

static int pmix_finalize(void)
{
    if (!px.up) return 0;
    px.up = false;
    op *o = op_new();
    if (!o) return -1;
    o->call = call_finalize;
    return op_call(o, "PMIx_Finalize");
}

static const dmpi_pmi_backend pmix_ops = {
    .name = "PMIx",
    .keylen_max = KEYLEN_MAX,
    .vallen_max = VALLEN_MAX,
    .put = pmix_put,
    .get = pmix_get,
    .fence = pmix_fence,
    .job_attr = pmix_job_attr,
    .node_ids = pmix_node_ids,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
};

/* ------------------------------------------------------------ connect */

const dmpi_pmi_backend *dmpi_pmix_connect(dmpi_pmi_job *job)
{
    if (px.up) {
        dmpi_pmi_fail("PMIx: already connected");
        return NULL;
    }
    if (load_library() != 0) return NULL;

    /* A server that accepts the connection but never answers would keep
     * PMIx_Init waiting for its handshake forever: bound the wait (libpmix's
     * own setting, unless the user set it) */
    static const char hs[] = "PMIX_MCA_ptl_base_handshake_wait_time";
    if (timeout_s() > 0 && !getenv(hs)) {
        char sec[16];
        snprintf(sec, sizeof sec, "%d", timeout_s());
        setenv(hs, sec, 0);
    }
    pmix_proc_t me;
    memset(&me, 0, sizeof me);
    pmix_status_t rc = fn.init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *uri = NULL;
        for (char **e = environ; e && *e && !uri; e++)
            if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) uri = *e;
        const char *hw = getenv(hs);
        dmpi_pmi_fail("PMIx: PMIx_Init: %s (server %s, handshake limit %s s)", errstr(rc),
                      uri ? uri : "not named", hw && atoi(hw) > 0 ? hw : "no");
        return NULL;
    }
    px.me = me;
    px.wild = me;
    px.wild.rank = PMIX_RANK_WILDCARD;
    px.up = true;

    /* PMIx_Init may fall back to a singleton of its own when it cannot
     * reach the server; that is not the job the environment names */
    const char *ns = getenv("PMIX_NAMESPACE");
    if (ns && strcmp(ns, me.nspace) != 0) {
        dmpi_pmi_fail("PMIx: PMIx_Init gave namespace \"%s\", the environment names \"%s\" "
                      "(server not reached?)", me.nspace, ns);
        goto fail;
    }
    int size, appnum = 0;
    int g = get_int(&px.wild, PMIX_JOB_SIZE, &size);
    if (g == 1) dmpi_pmi_fail("PMIx: the server gives no PMIX_JOB_SIZE");
    if (g != 0) goto fail;
    if (size < 1 || me.rank >= (pmix_rank_t)size) {
        dmpi_pmi_fail("PMIx: rank %u outside the job of %d (PMIX_JOB_SIZE)", (unsigned)me.rank, size);
        goto fail;
    }
    g = get_int(&me, PMIX_APPNUM, &appnum);
    if (g == 1) g = get_int(&px.wild, PMIX_APPNUM, &appnum);
    if (g < 0) goto fail;
    if (g == 1) appnum = 0;

    px.size = size;
    job->rank = (int)me.rank;
    job->size = size;
    job->appnum = appnum;
    snprintf(job->jobid, sizeof job->jobid, "%s", me.nspace);
    job->fd = -1;
    return &pmix_ops;

fail:
    px.up = false;
    {
        op *o = op_new(); /* bounded, and its result does not replace the reason */
        pmix_status_t ignored;
        if (o) {
            o->call = call_finalize;
            (void)op_run(o, &ignored);
        }
    }
    return NULL;
}

#endif /* DMPI_HAVE_PMIX */
