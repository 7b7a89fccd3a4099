/* PMI-1 backend (see pmi_backend.h): the "simple" line protocol over the
 * launcher's socket $PMI_FD, as dmpi's mpiexec, MPICH's hydra and Slurm's
 * mpi/pmi2 plugin serve it. Also the entry for both socket protocols:
 * dmpi_pmi_fd_connect sends the PMI-1 "init" line offering PMI-2 and hands
 * over to pmi2.c when the launcher accepts, else re-offers PMI-1. */
#include "pmi_backend.h"
#include "core/knob.h"
#include "pmi_sock.h"
#include "pmi_wire.h"

#include <stdlib.h>
#include <string.h>

static const char WHO[] = "PMI-1";

static struct {
    int fd;
    dmpi_pmi_reader rd;
    dmpi_pmi_line out;
    char kvsname[DMPI_PMI_KVSNAME_MAX + 1];
} p1 = {.fd = -1};

static int send_line(const char *who)
{
    if (dmpi_pmi_line_end(&p1.out) != 0) {
        dmpi_pmi_fail("%s: request '%.40s' too long for one line", who, p1.out.buf);
        return -1;
    }
    return dmpi_pmi_sock_send(who, p1.fd, p1.out.buf, p1.out.len);
}

/* Reads the reply to a request: its cmd must be `expect`. 0 and m (valid
 * until the next read), 1 when the launcher answered rc != 0, -1 on error. */
static int recv_reply(const char *who, const char *expect, dmpi_pmi_msg *m)
{
    char *line;
    size_t len;
    if (dmpi_pmi_sock_read_line(who, expect, p1.fd, &p1.rd, &line, &len) != 0) return -1;
    if (dmpi_pmi_parse(line, len, m) != 0) {
        dmpi_pmi_fail("%s: malformed reply from the launcher (expected %s): '%.60s'", who, expect, line);
        return -1;
    }
    if (strcmp(m->cmd, expect) != 0) {
        dmpi_pmi_fail("%s: the launcher answered %s where %s was expected", who, m->cmd, expect);
        return -1;
    }
    int rc = 0;
    const char *rcs = dmpi_pmi_msg_str(m, "rc");
    if (rcs != NULL && dmpi_pmi_parse_int(rcs, &rc) != 0) {
        dmpi_pmi_fail("%s: malformed rc '%.20s' in %s", who, rcs, expect);
        return -1;
    }
    return rc == 0 ? 0 : 1;
}

static int exchange(const char *expect, dmpi_pmi_msg *m)
{
    if (send_line(WHO) != 0) return -1;
    int r = recv_reply(WHO, expect, m);
    if (r == 1) {
        const char *why = dmpi_pmi_msg_str(m, "msg");
        dmpi_pmi_fail("%s: the launcher refused the request for %s%s%s", WHO, expect, why ? ": " : "",
                      why ? why : "");
    }
    return r == 0 ? 0 : -1;
}

static int p1_put(const char *key, const char *val)
{
    dmpi_pmi_msg m;
    dmpi_pmi_line_begin(&p1.out, "put");
    dmpi_pmi_line_str(&p1.out, "kvsname", p1.kvsname);
    dmpi_pmi_line_str(&p1.out, "key", key);
    dmpi_pmi_line_str(&p1.out, "value", val);
    return exchange("put_result", &m);
}

static int p1_get(int owner, const char *key, char *val, int maxlen)
{
    (void)owner; /* PMI-1 has one flat key space */
    dmpi_pmi_msg m;
    dmpi_pmi_line_begin(&p1.out, "get");
    dmpi_pmi_line_str(&p1.out, "kvsname", p1.kvsname);
    dmpi_pmi_line_str(&p1.out, "key", key);
    if (send_line(WHO) != 0) return -1;
    int r = recv_reply(WHO, "get_result", &m);
    if (r < 0) return -1;
    const char *found = dmpi_pmi_msg_str(&m, "found");
    bool yes = r == 0 && (!found || strcmp(found, "TRUE") == 0 || strcmp(found, "true") == 0);
    return dmpi_pmi_copy_found(WHO, key, yes, dmpi_pmi_msg_str(&m, "value"), val, maxlen);
}

static int p1_fence(void)
{
    dmpi_pmi_msg m;
    dmpi_pmi_line_begin(&p1.out, "barrier_in");
    return exchange("barrier_out", &m);
}

static int p1_job_attr(const char *key, char *val, int maxlen)
{
    /* PMI-1 launchers publish their job attributes as ordinary keys */
    return p1_get(-1, key, val, maxlen);
}

static int p1_abort(int code, const char *msg)
{
    static dmpi_pmi_line l; /* not on the stack: abort may run on a small one */
    dmpi_pmi_line_begin(&l, "abort");
    dmpi_pmi_line_int(&l, "exitcode", code);
    if (msg && *msg) dmpi_pmi_line_str(&l, "message", msg);
    if (dmpi_pmi_line_end(&l) != 0) return -1;
    return dmpi_pmi_sock_send(WHO, p1.fd, l.buf, l.len);
}

static int p1_finalize(void)
{
    dmpi_pmi_msg m;
    dmpi_pmi_line_begin(&p1.out, "finalize");
    return exchange("finalize_ack", &m);
}

int dmpi_pmi1_call(const char *cmd, const char *const *kv, const char *expect, char *buf, size_t cap,
                   dmpi_pmi_msg *m)
{
    if (p1.fd < 0) {
        dmpi_pmi_fail("%s: not connected", WHO);
        return -1;
    }
    dmpi_pmi_line_begin(&p1.out, cmd);
    for (; kv && kv[0]; kv += 2) dmpi_pmi_line_str(&p1.out, kv[0], kv[1]);
    if (send_line(WHO) != 0) return -1;
    char *line;
    size_t len;
    if (dmpi_pmi_sock_read_line(WHO, expect, p1.fd, &p1.rd, &line, &len) != 0) return -1;
    if (len + 1 > cap) {
        dmpi_pmi_fail("%s: reply to %s too long", WHO, cmd);
        return -1;
    }
    memcpy(buf, line, len);
    buf[len] = '\0';
    if (dmpi_pmi_parse(buf, len, m) != 0 || strcmp(m->cmd, expect) != 0) {
        dmpi_pmi_fail("%s: the launcher does not serve %s (is this dmpi's mpiexec?)", WHO, cmd);
        return -1;
    }
    int rc = 0;
    if (dmpi_pmi_msg_int(m, "rc", &rc) != 0) rc = 0;
    if (rc != 0) {
        const char *why = dmpi_pmi_msg_str(m, "msg");
        dmpi_pmi_fail("%s", why ? why : "refused by the launcher");
    }
    return rc == 0 ? 0 : 1;
}

static dmpi_pmi_backend pmi1_ops = {
    .name = WHO,
    .put = p1_put,
    .get = p1_get,
    .fence = p1_fence,
    .job_attr = p1_job_attr,
    .abort = p1_abort,
    .finalize = p1_finalize,
};

/* The PMI-1 queries after an accepted init. */
static const dmpi_pmi_backend *pmi1_start(dmpi_pmi_job *job)
{
    dmpi_pmi_msg m;
    int v;
    dmpi_pmi_line_begin(&p1.out, "get_maxes");
    if (exchange("maxes", &m) != 0) return NULL;
    pmi1_ops.keylen_max = DMPI_PMI_KEYLEN_MAX;
    pmi1_ops.vallen_max = DMPI_PMI_VALLEN_MAX;
    if (dmpi_pmi_msg_int(&m, "keylen_max", &v) == 0 && v > 0 && v < pmi1_ops.keylen_max) pmi1_ops.keylen_max = v;
    if (dmpi_pmi_msg_int(&m, "vallen_max", &v) == 0 && v > 0 && v < pmi1_ops.vallen_max) pmi1_ops.vallen_max = v;

    dmpi_pmi_line_begin(&p1.out, "get_appnum");
    if (exchange("appnum", &m) != 0) return NULL;
    if (dmpi_pmi_msg_int(&m, "appnum", &job->appnum) != 0) job->appnum = 0;

    dmpi_pmi_line_begin(&p1.out, "get_universe_size");
    job->universe = -1;
    if (exchange("universe_size", &m) == 0 && dmpi_pmi_msg_int(&m, "size", &v) == 0 && v > 0) job->universe = v;

    dmpi_pmi_line_begin(&p1.out, "get_my_kvsname");
    if (exchange("my_kvsname", &m) != 0) return NULL;
    const char *k = dmpi_pmi_msg_str(&m, "kvsname");
    if (k == NULL || k[0] == '\0' || strlen(k) > DMPI_PMI_KVSNAME_MAX) {
        dmpi_pmi_fail("%s: the launcher sent no usable KVS name", WHO);
        return NULL;
    }
    strcpy(p1.kvsname, k);
    strcpy(job->jobid, k);
    job->fd = p1.fd;
    return &pmi1_ops;
}

/* Sends "init" offering version major.0/.1 and reads the answer: 0 when
 * accepted at that version, 1 when declined, -1 on error. */
static int offer(int major, const char *who)
{
    dmpi_pmi_msg m;
    dmpi_pmi_line_begin(&p1.out, "init");
    dmpi_pmi_line_int(&p1.out, "pmi_version", major);
    dmpi_pmi_line_int(&p1.out, "pmi_subversion", major == 1 ? 1 : 0);
    if (send_line(who) != 0) return -1;
    int r = recv_reply(who, "response_to_init", &m);
    if (r < 0) return -1;
    int v = 0;
    if (r == 1 || dmpi_pmi_msg_int(&m, "pmi_version", &v) != 0 || v != major) {
        dmpi_pmi_fail("%s: the launcher declined PMI version %d", who, major);
        return 1;
    }
    return 0;
}

const dmpi_pmi_backend *dmpi_pmi_fd_connect(int fd, dmpi_pmi_job *job)
{
    p1.fd = fd;
    dmpi_pmi_reader_init(&p1.rd);
    char kb[DMPI_KNOB_STR_MAX];
    const char *force = dmpi_knob_str(DMPI_KNOB_PMI, kb);
    bool want1 = force && strcmp(force, "pmi1") == 0, want2 = force && strcmp(force, "pmi2") == 0;
    if (!want1) {
        int r = offer(2, "PMI-2");
        if (r == 0) {
            if (dmpi_pmi_reader_partial(&p1.rd)) {
                dmpi_pmi_fail("PMI-2: the launcher sent more than the init reply");
                return NULL;
            }
            return dmpi_pmi2_start(fd, job);
        }
        if (r < 0 || want2) return NULL;
    }
    if (offer(1, WHO) != 0) return NULL;
    return pmi1_start(job);
}
