/* PMI-1 client (see pmi.h): connects to the launcher over the inherited
 * socket $PMI_FD and speaks the simple wire protocol (pmi_wire.h). Runs in
 * the MPI library: no printing, no signals (send uses MSG_NOSIGNAL), every
 * system call retried on EINTR and waited on (poll) on EAGAIN. One lock
 * serialises the request/reply exchanges; abort, fd and is_singleton never
 * wait for it. */
#include "pmi.h"
#include "pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { ST_NONE, ST_SINGLETON, ST_CONNECTED, ST_FINALIZED };

/* singleton key/value table */
typedef struct local_kv {
    struct local_kv *next;
    char *key, *val;
} local_kv;

static struct {
    pthread_mutex_t lock;
    _Atomic int state; /* read without the lock by dmpi_pmi_fd and friends */
    _Atomic int fd;
    int rank, size, appnum;
    int keylen_max, vallen_max;
    char kvsname[DMPI_PMI_KVSNAME_MAX + 1];
    char jobid[33];
    local_kv *local;
    dmpi_pmi_reader rd;
    dmpi_pmi_line out;
} pmi = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* ---------------------------------------------------------------- I/O */

static int wait_fd(int fd, short ev)
{
    struct pollfd p = {.fd = fd, .events = ev};
    for (;;) {
        int r = poll(&p, 1, -1);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

static int send_all(const char *buf, size_t n)
{
    bool use_write = false;
    while (n > 0) {
        ssize_t w = use_write ? write(pmi.fd, buf, n) : send(pmi.fd, buf, n, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(pmi.fd, POLLOUT) != 0) return -1;
        } else if (w < 0 && errno == ENOTSOCK && !use_write) {
            use_write = true; /* a pipe from some other launcher */
        } else {
            return -1;
        }
    }
    return 0;
}

/* Sends the line built in pmi.out. */
static int send_line(void)
{
    if (dmpi_pmi_line_end(&pmi.out) != 0) return -1;
    return send_all(pmi.out.buf, pmi.out.len);
}

/* Reads the next line and parses it into m; its cmd must be `expect` and
 * its rc (when present) 0. The strings in m stay valid until the next
 * read. Returns 0, -1 on error, 1 when the reply carries rc != 0. */
static int recv_reply(const char *expect, dmpi_pmi_msg *m)
{
    for (;;) {
        char *line;
        size_t len;
        int r = dmpi_pmi_reader_next(&pmi.rd, &line, &len);
        if (r < 0) return -1;
        if (r == 1) {
            if (dmpi_pmi_parse(line, len, m) != 0) return -1;
            if (strcmp(m->cmd, expect) != 0) return -1;
            int rc = 0;
            const char *rcs = dmpi_pmi_msg_str(m, "rc");
            if (rcs != NULL && dmpi_pmi_parse_int(rcs, &rc) != 0) return -1;
            return rc == 0 ? 0 : 1;
        }
        size_t room;
        char *space = dmpi_pmi_reader_space(&pmi.rd, &room);
        if (room == 0) return -1;
        ssize_t n = read(pmi.fd, space, room);
        if (n > 0) {
            dmpi_pmi_reader_commit(&pmi.rd, (size_t)n);
        } else if (n == 0) {
            return -1; /* launcher went away */
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(pmi.fd, POLLIN) != 0) return -1;
        } else if (errno != EINTR) {
            return -1;
        }
    }
}

/* One request/reply exchange for a request with no attributes. */
static int simple_exchange(const char *cmd, const char *expect, dmpi_pmi_msg *m)
{
    dmpi_pmi_line_begin(&pmi.out, cmd);
    if (send_line() != 0) return -1;
    return recv_reply(expect, m) == 0 ? 0 : -1;
}

/* -------------------------------------------------------------- job id */

static bool is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
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
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof b; i++) {
        pmi.jobid[2 * i] = hex[b[i] >> 4];
        pmi.jobid[2 * i + 1] = hex[b[i] & 15];
    }
    pmi.jobid[16] = '\0';
}

/* $DMPI_JOBID when valid, else the letters and digits of the KVS name. */
static void choose_jobid(void)
{
    const char *e = getenv("DMPI_JOBID");
    size_t n = e ? strlen(e) : 0;
    bool ok = n > 0 && n < sizeof pmi.jobid;
    for (size_t i = 0; ok && i < n; i++) ok = is_alnum(e[i]);
    if (ok) {
        memcpy(pmi.jobid, e, n + 1);
        return;
    }
    size_t o = 0;
    for (const char *c = pmi.kvsname; *c && o < sizeof pmi.jobid - 1; c++)
        if (is_alnum(*c)) pmi.jobid[o++] = *c;
    pmi.jobid[o] = '\0';
    if (o == 0) random_jobid();
}

/* ---------------------------------------------------------------- init */

static int connect_launcher(int fd)
{
    dmpi_pmi_msg m;
    int v;
    pmi.fd = fd;
    dmpi_pmi_reader_init(&pmi.rd);

    dmpi_pmi_line_begin(&pmi.out, "init");
    dmpi_pmi_line_int(&pmi.out, "pmi_version", 1);
    dmpi_pmi_line_int(&pmi.out, "pmi_subversion", 1);
    if (send_line() != 0 || recv_reply("response_to_init", &m) != 0) return -1;

    if (simple_exchange("get_maxes", "maxes", &m) != 0) return -1;
    pmi.keylen_max = DMPI_PMI_KEYLEN_MAX;
    pmi.vallen_max = DMPI_PMI_VALLEN_MAX;
    if (dmpi_pmi_msg_int(&m, "keylen_max", &v) == 0 && v > 0 && v < pmi.keylen_max) pmi.keylen_max = v;
    if (dmpi_pmi_msg_int(&m, "vallen_max", &v) == 0 && v > 0 && v < pmi.vallen_max) pmi.vallen_max = v;

    if (simple_exchange("get_appnum", "appnum", &m) != 0) return -1;
    if (dmpi_pmi_msg_int(&m, "appnum", &pmi.appnum) != 0) pmi.appnum = 0;

    if (simple_exchange("get_my_kvsname", "my_kvsname", &m) != 0) return -1;
    const char *k = dmpi_pmi_msg_str(&m, "kvsname");
    if (k == NULL || k[0] == '\0' || strlen(k) > DMPI_PMI_KVSNAME_MAX) return -1;
    strcpy(pmi.kvsname, k);
    return 0;
}

int dmpi_pmi_init(int *rank, int *size, int *appnum)
{
    int rc = 0;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_NONE) {
        const char *fds = getenv("PMI_FD");
        if (fds == NULL) {
            pmi.rank = 0;
            pmi.size = 1;
            pmi.appnum = 0;
            pmi.fd = -1;
            pmi.keylen_max = DMPI_PMI_KEYLEN_MAX;
            pmi.vallen_max = DMPI_PMI_VALLEN_MAX;
            random_jobid();
            pmi.state = ST_SINGLETON;
        } else {
            int fd, r, s;
            if (dmpi_pmi_parse_int(fds, &fd) != 0 || fd < 0 || fcntl(fd, F_GETFD) < 0 ||
                dmpi_pmi_parse_int(getenv("PMI_RANK"), &r) != 0 ||
                dmpi_pmi_parse_int(getenv("PMI_SIZE"), &s) != 0 || s < 1 || r < 0 || r >= s) {
                rc = -1;
            } else {
                /* children this rank may start must not hold our launcher link */
                (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
                pmi.rank = r;
                pmi.size = s;
                if (connect_launcher(fd) != 0) {
                    pmi.fd = -1;
                    rc = -1;
                } else {
                    choose_jobid();
                    pmi.state = ST_CONNECTED;
                }
            }
        }
    } else if (pmi.state == ST_FINALIZED) {
        rc = -1;
    }
    if (rc == 0) {
        if (rank) *rank = pmi.rank;
        if (size) *size = pmi.size;
        if (appnum) *appnum = pmi.appnum;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* ----------------------------------------------------------------- KVS */

static bool key_ok(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    return n > 0 && n <= (size_t)pmi.keylen_max && strchr(key, '\n') == NULL;
}

static int local_put(const char *key, const char *val)
{
    for (local_kv *e = pmi.local; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            char *v = strdup(val);
            if (v == NULL) return -1;
            free(e->val);
            e->val = v;
            return 0;
        }
    }
    local_kv *e = malloc(sizeof *e);
    if (e == NULL) return -1;
    e->key = strdup(key);
    e->val = strdup(val);
    if (e->key == NULL || e->val == NULL) {
        free(e->key);
        free(e->val);
        free(e);
        return -1;
    }
    e->next = pmi.local;
    pmi.local = e;
    return 0;
}

int dmpi_pmi_put(const char *key, const char *val)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_SINGLETON) {
        if (key_ok(key) && val != NULL && strlen(val) <= (size_t)pmi.vallen_max) rc = local_put(key, val);
    } else if (pmi.state == ST_CONNECTED && key_ok(key) && val != NULL &&
               strlen(val) <= (size_t)pmi.vallen_max) {
        dmpi_pmi_msg m;
        dmpi_pmi_line_begin(&pmi.out, "put");
        dmpi_pmi_line_str(&pmi.out, "kvsname", pmi.kvsname);
        dmpi_pmi_line_str(&pmi.out, "key", key);
        dmpi_pmi_line_str(&pmi.out, "value", val);
        if (send_line() == 0 && recv_reply("put_result", &m) == 0) rc = 0;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int copy_out(const char *v, char *val, int maxlen)
{
    if (v == NULL || maxlen <= 0) return -1;
    size_t n = strlen(v);
    if (n >= (size_t)maxlen) return -1;
    memcpy(val, v, n + 1);
    return 0;
}

int dmpi_pmi_get(const char *key, char *val, int maxlen)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_SINGLETON) {
        for (local_kv *e = pmi.local; e; e = e->next)
            if (key && strcmp(e->key, key) == 0) { rc = copy_out(e->val, val, maxlen); break; }
    } else if (pmi.state == ST_CONNECTED && key_ok(key) && val != NULL) {
        dmpi_pmi_msg m;
        dmpi_pmi_line_begin(&pmi.out, "get");
        dmpi_pmi_line_str(&pmi.out, "kvsname", pmi.kvsname);
        dmpi_pmi_line_str(&pmi.out, "key", key);
        if (send_line() == 0 && recv_reply("get_result", &m) == 0) {
            const char *found = dmpi_pmi_msg_str(&m, "found");
            if (found == NULL || strcmp(found, "TRUE") == 0 || strcmp(found, "true") == 0)
                rc = copy_out(dmpi_pmi_msg_str(&m, "value"), val, maxlen);
        }
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* --------------------------------------------------- barrier and exits */

int dmpi_pmi_barrier(void)
{
    int rc = -1;
    pthread_mutex_lock(&pmi.lock);
    if (pmi.state == ST_SINGLETON) {
        rc = 0;
    } else if (pmi.state == ST_CONNECTED) {
        dmpi_pmi_msg m;
        rc = simple_exchange("barrier_in", "barrier_out", &m);
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int dmpi_pmi_abort(int code, const char *msg)
{
    int st = pmi.state;
    if (st != ST_CONNECTED && st != ST_FINALIZED) return 0;
    /* the message must fit one line and hold no newline: cut and clean it */
    char clean[1024];
    size_t n = 0;
    for (const char *c = msg ? msg : ""; *c && n < sizeof clean - 1; c++)
        clean[n++] = (*c == '\n' || *c == '\r' || *c == '\t') ? ' ' : *c;
    clean[n] = '\0';
    static dmpi_pmi_line l; /* not on the stack: abort may run on a small one */
    static pthread_mutex_t abort_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&abort_lock);
    dmpi_pmi_line_begin(&l, "abort");
    dmpi_pmi_line_int(&l, "exitcode", code);
    if (n > 0) dmpi_pmi_line_str(&l, "message", clean);
    int rc = dmpi_pmi_line_end(&l);
    if (rc == 0) {
        /* Never wait for the main lock: another thread may hold it while it
         * waits in a fence that will never end. Without the lock the line
         * still goes out in one send, after any line in progress or before. */
        bool locked = pthread_mutex_trylock(&pmi.lock) == 0;
        rc = send_all(l.buf, l.len);
        if (locked) pthread_mutex_unlock(&pmi.lock);
    }
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
        dmpi_pmi_msg m;
        rc = simple_exchange("finalize", "finalize_ack", &m);
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

bool dmpi_pmi_is_singleton(void)
{
    int st = pmi.state;
    return st == ST_SINGLETON || (st == ST_FINALIZED && pmi.fd < 0);
}
