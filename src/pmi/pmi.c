/* The process-management client's front (see pmi.h): picks the backend that
 * matches how this process was started, serialises calls into it with one
 * lock, keeps the singleton's private key/value table, derives dmpi's job
 * id, and remembers why the last call failed (dmpi_pmi_error).
 *
 *   DMPI_PMI=pmix|pmi2|pmi1|singleton   forces a backend
 *   PMIX_NAMESPACE + PMIX_RANK          PMIx (when built with it)
 *   PMI_FD                              PMI-2 when the launcher takes it,
 *                                       else PMI-1 (pmi1.c negotiates)
 *   none of these                       singleton: rank 0 of 1 */
#include "pmi.h"
#include "core/knob.h"
#include "pmi_backend.h"
#include "pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum { ST_NONE, ST_SINGLETON, ST_CONNECTED, ST_FINALIZED, ST_FAILED };

/* singleton key/value table */
typedef struct local_kv {
    struct local_kv *next;
    char *key, *val;
} local_kv;

static struct {
    pthread_mutex_t lock;
    _Atomic int state; /* read without the lock by dmpi_pmi_fd and friends */
    _Atomic int fd;
    const dmpi_pmi_backend *ops;
    dmpi_pmi_job job;
    char jobid[33];
    local_kv *local;
    char error[512];
} pmi = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* ---------------------------------------------------- errors and limits */

void dmpi_pmi_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pmi.error, sizeof pmi.error, fmt, ap);
    va_end(ap);
}

int dmpi_pmi_copy_found(const char *who, const char *key, bool found, const char *v, char *val, int maxlen)
{
    if (!found || v == NULL) {
        dmpi_pmi_fail("%s: key %s not found", who, key);
        return -1;
    }
    size_t n = strlen(v);
    if (n >= (size_t)maxlen) {
        dmpi_pmi_fail("%s: value of %s is %zu bytes, longer than expected", who, key, n);
        return -1;
    }
    memcpy(val, v, n + 1);
    return 0;
}

const char *dmpi_pmi_error(void)
{
    return pmi.error[0] ? pmi.error : "no error";
}

int dmpi_pmi_timeout_ms(void)
{
    char kb[DMPI_KNOB_STR_MAX];
    const char *e = dmpi_knob_str(DMPI_KNOB_PMI_TIMEOUT, kb);
    int s = 300;
    if (e && *e && (dmpi_pmi_parse_int(e, &s) != 0 || s < 0)) s = 300;
    if (s == 0 || s > 2000000) return -1;
    return s * 1000;
}

const char *dmpi_pmi_launcher(void)
{
    int st = pmi.state;
    if (pmi.ops) return pmi.ops->name;
    return st == ST_SINGLETON ? "singleton" : "none";
}

/* -------------------------------------------------------------- job id */

static bool is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void hex_into(char *out, const unsigned char *b, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static void random_jobid(void)
{
    unsigned char b[8];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, GRND_NONBLOCK);
        if (r > 0) got += (size_t)r;
        else if (r < 0 && errno == EINTR) continue;
        else break;
    }
    if (got < sizeof b) { /* no entropy source: time and pid, still unique enough */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20) ^
                               ((unsigned long long)getpid() << 40);
        for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)(x >> (8 * i));
    }
    hex_into(pmi.jobid, b, sizeof b);
}

/* $DMPI_JOBID when valid; else the launcher's job name with every other
 * byte turned into 'x' ("123.0" -> "123x0", so steps 12.30 and 123.0
 * stay apart); a name too long keeps its head and a hash of the whole. */
static void choose_jobid(const char *launcher_name)
{
    const char *e = getenv("DMPI_JOBID");
    size_t n = e ? strlen(e) : 0;
    bool ok = n > 0 && n < sizeof pmi.jobid;
    for (size_t i = 0; ok && i < n; i++) ok = is_alnum(e[i]);
    if (ok) {
        memcpy(pmi.jobid, e, n + 1);
        return;
    }
    n = strlen(launcher_name);
    if (n == 0) {
        random_jobid();
        return;
    }
    size_t keep = n < sizeof pmi.jobid ? n : 16;
    for (size_t i = 0; i < keep; i++) pmi.jobid[i] = is_alnum(launcher_name[i]) ? launcher_name[i] : 'x';
    pmi.jobid[keep] = '\0';
    if (keep < n) {
        unsigned long long h = 14695981039346656037ull; /* FNV-1a */
        for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)launcher_name[i]) * 1099511628211ull;
        unsigned char b[8];
        for (size_t i = 0; i < 8; i++) b[i] = (unsigned char)(h >> (8 * i));
        hex_into(pmi.jobid + keep, b, 8);
    }
}

/* ---------------------------------------------------------------- init */

static void init_singleton(void)
{
    pmi.job = (dmpi_pmi_job){.rank = 0, .size = 1, .appnum = 0, .fd = -1};
    pmi.fd = -1;
    random_jobid();
    pmi.state = ST_SINGLETON;
}

static const dmpi_pmi_backend *connect_pmix(void)
{
#ifdef DMPI_HAVE_PMIX
    return dmpi_pmix_connect(&pmi.job);
#else
    dmpi_pmi_fail("PMIx: this process was started by a PMIx server (PMIX_NAMESPACE is set) but dmpi was "
                  "built without PMIx support (install libpmix-dev and rebuild, or start it with "
                  "srun --mpi=pmi2)");
    return NULL;
#endif
}

static bool pmix_env(void)
{
#ifdef DMPI_HAVE_PMIX
    return dmpi_pmix_in_env();
#else
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
#endif
}

static const dmpi_pmi_backend *connect_fd(void)
{
    const char *fds = getenv("PMI_FD");
    int fd;
    if (dmpi_pmi_parse_int(fds, &fd) != 0 || fd < 0 || fcntl(fd, F_GETFD) < 0) {
        dmpi_pmi_fail("PMI: PMI_FD='%.20s' is not an open file descriptor", fds ? fds : "");
        return NULL;
    }
    /* children this rank may start must not hold our launcher link */
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    const dmpi_pmi_backend *ops = dmpi_pmi_fd_connect(fd, &pmi.job);
    if (!ops) return NULL;
    /* PMI-1 launchers tell rank and size through the environment */
    if (strcmp(ops->name, "PMI-1") == 0) {
        int r, s;
        if (dmpi_pmi_parse_int(getenv("PMI_RANK"), &r) != 0 || dmpi_pmi_parse_int(getenv("PMI_SIZE"), &s) != 0 ||
            s < 1 || r < 0 || r >= s) {
            dmpi_pmi_fail("PMI-1: PMI_RANK and PMI_SIZE are missing or not a valid rank and size");
            return NULL;
        }
        pmi.job.rank = r;
        pmi.job.size = s;
    }
    return ops;
}

static int connect_launcher(void)
{
    char kb[DMPI_KNOB_STR_MAX];
    const char *force = dmpi_knob_str(DMPI_KNOB_PMI, kb);
    if (force && strcmp(force, "auto") == 0) force = NULL;
    if (force && *force && strcmp(force, "pmix") != 0 && strcmp(force, "pmi1") != 0 &&
        strcmp(force, "pmi2") != 0 && strcmp(force, "singleton") != 0) {
        dmpi_pmi_fail("DMPI_PMI='%.20s': expected pmix, pmi2, pmi1 or singleton", force);
        return -1;
    }
    const dmpi_pmi_backend *ops = NULL;
    if (force && strcmp(force, "singleton") == 0) {
        init_singleton();
        return 0;
    } else if ((force && strcmp(force, "pmix") == 0) || (!(force && *force) && pmix_env())) {
        ops = connect_pmix();
    } else if (getenv("PMI_FD") != NULL) {
        ops = connect_fd();
    } else if (force && *force) {
        dmpi_pmi_fail("DMPI_PMI=%s but PMI_FD is not set: no launcher to talk to", force);
        return -1;
    } else {
        init_singleton();
        return 0;
    }
    if (!ops) return -1;
    pmi.ops = ops;
    pmi.fd = pmi.job.fd;
    choose_jobid(pmi.job.jobid);
    pmi.state = ST_CONNECTED;
    return 0;
}

int dmpi_pmi_init(int *rank, int *size, int *appnum)
{
    int rc = 0;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_NONE) {
        rc = connect_launcher();
        if (rc != 0) pmi.state = ST_FAILED;
    } else if (pmi.state == ST_FINALIZED || pmi.state == ST_FAILED) {
        rc = -1;
    }
    if (rc == 0) {
        if (rank) *rank = pmi.job.rank;
        if (size) *size = pmi.job.size;
        if (appnum) *appnum = pmi.job.appnum;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* ----------------------------------------------------------------- KVS */

static bool key_ok(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    int max = pmi.ops ? pmi.ops->keylen_max : DMPI_PMI_KEYLEN_MAX;
    if (n > 0 && n <= (size_t)max && strchr(key, '\n') == NULL) return true;
    dmpi_pmi_fail("PMI: key '%.40s' is empty, longer than %d bytes or holds a newline", key ? key : "", max);
    return false;
}

static bool val_ok(const char *val)
{
    int max = pmi.ops ? pmi.ops->vallen_max : DMPI_PMI_VALLEN_MAX;
    if (val && strlen(val) <= (size_t)max && strchr(val, '\n') == NULL) return true;
    dmpi_pmi_fail("PMI: value longer than %d bytes or holding a newline", max);
    return false;
}

static local_kv *local_find(const char *key)
{
    for (local_kv *e = pmi.local; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

static int local_put(const char *key, const char *val)
{
    char *v = strdup(val);
    local_kv *e = local_find(key);
    if (e && v) {
        free(e->val);
        e->val = v;
        return 0;
    }
    e = v ? malloc(sizeof *e) : NULL;
    char *k = e ? strdup(key) : NULL;
    if (!k) {
        free(v);
        free(e);
        dmpi_pmi_fail("PMI: out of memory");
        return -1;
    }
    *e = (local_kv){pmi.local, k, v};
    pmi.local = e;
    return 0;
}

int dmpi_pmi_put(const char *key, const char *val)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (!key_ok(key) || !val_ok(val)) rc = -1;
    else if (pmi.state == ST_SINGLETON) rc = local_put(key, val);
    else if (pmi.state == ST_CONNECTED) rc = pmi.ops->put(key, val);
    else dmpi_pmi_fail("PMI: put while not connected");
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_get(int owner, const char *key, char *val, int maxlen)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (!key_ok(key) || val == NULL || maxlen <= 0) {
        rc = -1;
    } else if (pmi.state == ST_SINGLETON) {
        local_kv *e = local_find(key);
        if (e && strlen(e->val) < (size_t)maxlen) {
            strcpy(val, e->val);
            rc = 0;
        } else {
            dmpi_pmi_fail("PMI: key %s not found", key);
        }
    } else if (pmi.state == ST_CONNECTED) {
        rc = pmi.ops->get(owner, key, val, maxlen);
    } else {
        dmpi_pmi_fail("PMI: get while not connected");
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_job_attr(const char *key, char *val, int maxlen)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_CONNECTED) rc = pmi.ops->job_attr(key, val, maxlen);
    else dmpi_pmi_fail("PMI: no launcher, no job attribute %s", key);
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_backend_node_ids(int size, int *node_of)
{
    int rc = 1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_CONNECTED && pmi.ops->node_ids) rc = pmi.ops->node_ids(size, node_of);
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* --------------------------------------------------- barrier and exits */

int dmpi_pmi_barrier(void)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_SINGLETON) rc = 0;
    else if (pmi.state == ST_CONNECTED) rc = pmi.ops->fence();
    else dmpi_pmi_fail("PMI: fence while not connected");
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_abort(int code, const char *msg)
{
    int st = pmi.state;
    if ((st != ST_CONNECTED && st != ST_FINALIZED) || pmi.ops == NULL) return 0;
    /* the message must fit one line and hold no newline: cut and clean it */
    static char clean[1024]; /* not on the stack: abort may run on a small one */
    static pthread_mutex_t abort_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&abort_lock);
    size_t n = 0;
    for (const char *c = msg ? msg : ""; *c && n < sizeof clean - 1; c++)
        clean[n++] = (*c == '\n' || *c == '\r' || *c == '\t') ? ' ' : *c;
    clean[n] = '\0';
    /* Never wait for the main lock: another thread may hold it while it
     * waits in a fence that will never end. Without the lock the message
     * still goes out in one send, after any message in progress or before. */
    bool locked = pthread_mutex_trylock(&pmi.lock) == 0;
    int rc = pmi.ops->abort(code, clean);
    if (locked) pthread_mutex_unlock(&pmi.lock);
    pthread_mutex_unlock(&abort_lock);
    return rc;
}

int dmpi_pmi_finalize(void)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_SINGLETON) {
        while (pmi.local) {
            local_kv *e = pmi.local;
            pmi.local = e->next;
            free(e->key);
            free(e->val);
            free(e);
        }
        pmi.state = ST_FINALIZED;
        rc = 0;
    } else if (pmi.state == ST_CONNECTED) {
        rc = pmi.ops->finalize();
        pmi.state = ST_FINALIZED; /* even on error: the link is not usable again */
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* ------------------------------------------------------------- queries */

const char *dmpi_pmi_jobid(void)
{
    return pmi.jobid;
}

int dmpi_pmi_fd(void)
{
    int st = pmi.state;
    return st == ST_CONNECTED || st == ST_FINALIZED ? pmi.fd : -1;
}

bool dmpi_pmi_peer_watch(void)
{
    long w = dmpi_knob_or(DMPI_KNOB_PEER_WATCH, -1);
    if (w < 0) {
        const char *l = dmpi_pmi_launcher();
        w = strcmp(l, "PMI-2") == 0 || strcmp(l, "PMIx") == 0;
        dmpi_knob_set_effective(DMPI_KNOB_PEER_WATCH, w);
    }
    return w != 0;
}

bool dmpi_pmi_is_singleton(void)
{
    int st = pmi.state;
    return st == ST_SINGLETON || (st == ST_FINALIZED && pmi.ops == NULL);
}

int dmpi_pmi_call(const char *cmd, const char *const *kv, const char *expect, char *buf, unsigned cap,
                  struct dmpi_pmi_msg *m)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state != ST_CONNECTED || strcmp(pmi.ops->name, "PMI-1") != 0 || !getenv("DMPI_UNIVERSE_ID"))
        dmpi_pmi_fail("dynamic processes need dmpi's mpiexec with the job on one host (launcher: %s)",
                      dmpi_pmi_launcher());
    else
        rc = dmpi_pmi1_call(cmd, kv, expect, buf, cap, m);
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_universe_size(void)
{
    return pmi.state == ST_CONNECTED && pmi.ops && strcmp(pmi.ops->name, "PMI-1") == 0 ? pmi.job.universe : -1;
}
