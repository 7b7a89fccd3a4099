/* PMI-2 backend (see pmi_backend.h): the wire protocol that Slurm's
 * mpi/pmi2 plugin (`srun --mpi=pmi2`) and MPICH's hydra serve over $PMI_FD,
 * after the PMI-1-style "init" line in which both sides agreed on version
 * 2 (pmi1.c). Every message, either way, is a 6-byte decimal length
 * (left-aligned, space-padded) followed by that many bytes of
 * "cmd=NAME;key=value;...;". Requests are answered by "NAME-response"
 * messages carrying rc; abort is not answered. Slurm does not unescape
 * ';', so a value holding ';' is refused rather than sent. */
#include "pmi_backend.h"
#include "pmi_sock.h"
#include "pmi_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char WHO[] = "PMI-2";

enum {
    HDR = 6,              /* the length field */
    REPLY_MAX = 65536,    /* longest reply accepted */
    REQ_MAX = 8192,       /* longest request built */
    VAL_MAX = 1024,       /* Slurm's PMI2_MAX_VALLEN */
    KEY_MAX = 63,
};

static struct {
    int fd;
    char jobid[257];
    size_t req_len;
    bool req_bad;
    char req[HDR + REQ_MAX + 1];
    char reply[REPLY_MAX + 1];
} p2 = {.fd = -1};

/* ------------------------------------------------------------ messages */

static void req_add(const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val);
    if (strchr(val, ';') || p2.req_len + kl + vl + 2 > REQ_MAX) {
        p2.req_bad = true;
        return;
    }
    char *o = p2.req + HDR + p2.req_len;
    memcpy(o, key, kl);
    o[kl] = '=';
    memcpy(o + kl + 1, val, vl);
    o[kl + 1 + vl] = ';';
    p2.req_len += kl + vl + 2;
}

static void req_begin(const char *cmd)
{
    p2.req_len = 0;
    p2.req_bad = false;
    req_add("cmd", cmd);
}

static int req_send(void)
{
    if (p2.req_bad) {
        dmpi_pmi_fail("%s: request '%.40s' too long or holding ';'", WHO, p2.req + HDR);
        return -1;
    }
    char hdr[HDR + 1];
    snprintf(hdr, sizeof hdr, "%-6zu", p2.req_len);
    memcpy(p2.req, hdr, HDR);
    return dmpi_pmi_sock_send(WHO, p2.fd, p2.req, HDR + p2.req_len);
}

/* Reads one message; it must be `expect` with rc 0 (rc absent counts as
 * 0). 0 and m, or -1 with the reason set. */
static int recv_reply(const char *expect, dmpi_pmi_msg *m)
{
    char hdr[HDR + 1];
    if (dmpi_pmi_sock_read_exact(WHO, expect, p2.fd, hdr, HDR) != 0) return -1;
    hdr[HDR] = '\0';
    size_t end = HDR;
    while (end > 0 && hdr[end - 1] == ' ') hdr[--end] = '\0';
    int n;
    if (dmpi_pmi_parse_int(hdr, &n) != 0 || n <= 0 || n > REPLY_MAX) {
        dmpi_pmi_fail("%s: malformed length field '%.6s' in the %s from the launcher", WHO, hdr, expect);
        return -1;
    }
    if (dmpi_pmi_sock_read_exact(WHO, expect, p2.fd, p2.reply, (size_t)n) != 0) return -1;
    if (dmpi_pmi2_parse(p2.reply, (size_t)n, m) != 0) {
        dmpi_pmi_fail("%s: malformed %s from the launcher: '%.60s'", WHO, expect, p2.reply);
        return -1;
    }
    if (strcmp(m->cmd, expect) != 0) {
        dmpi_pmi_fail("%s: the launcher answered %s where %s was expected", WHO, m->cmd, expect);
        return -1;
    }
    const char *rcs = dmpi_pmi_msg_str(m, "rc");
    int rc = 0;
    if (rcs && dmpi_pmi_parse_int(rcs, &rc) != 0) {
        dmpi_pmi_fail("%s: malformed rc '%.20s' in %s", WHO, rcs, expect);
        return -1;
    }
    if (rc != 0) {
        const char *why = dmpi_pmi_msg_str(m, "errmsg");
        dmpi_pmi_fail("%s: the launcher answered %s with rc=%d%s%s", WHO, expect, rc, why ? ": " : "",
                      why ? why : "");
        return -1;
    }
    return 0;
}

static int exchange(const char *expect, dmpi_pmi_msg *m)
{
    return req_send() == 0 ? recv_reply(expect, m) : -1;
}

/* Copies a found=TRUE value out of m. */
static int found_value(const dmpi_pmi_msg *m, const char *key, char *val, int maxlen)
{
    const char *found = dmpi_pmi_msg_str(m, "found");
    return dmpi_pmi_copy_found(WHO, key, found && strcmp(found, "TRUE") == 0, dmpi_pmi_msg_str(m, "value"), val,
                               maxlen);
}

/* ---------------------------------------------------------- operations */

static int p2_put(const char *key, const char *val)
{
    dmpi_pmi_msg m;
    req_begin("kvs-put");
    req_add("key", key);
    req_add("value", val);
    return exchange("kvs-put-response", &m);
}

static int p2_get(int owner, const char *key, char *val, int maxlen)
{
    dmpi_pmi_msg m;
    char src[16];
    snprintf(src, sizeof src, "%d", owner < 0 ? -1 : owner);
    req_begin("kvs-get");
    req_add("jobid", p2.jobid);
    req_add("srcid", src);
    req_add("key", key);
    if (exchange("kvs-get-response", &m) != 0) return -1;
    return found_value(&m, key, val, maxlen);
}

static int p2_fence(void)
{
    dmpi_pmi_msg m;
    req_begin("kvs-fence");
    return exchange("kvs-fence-response", &m);
}

static int p2_job_attr(const char *key, char *val, int maxlen)
{
    dmpi_pmi_msg m;
    req_begin("info-getjobattr");
    req_add("key", key);
    if (exchange("info-getjobattr-response", &m) != 0) return -1;
    return found_value(&m, key, val, maxlen);
}

static int p2_abort(int code, const char *msg)
{
    /* PMI-2 carries no exit code: say it in the message */
    static char text[512]; /* not on the stack: abort may run on a small one */
    int n = snprintf(text, sizeof text, "MPI_Abort with error code %d%s%.400s", code, msg && *msg ? ": " : "",
                     msg ? msg : "");
    for (int i = 0; i < n && i < (int)sizeof text; i++)
        if (text[i] == ';') text[i] = ',';
    req_begin("abort");
    req_add("isworld", "TRUE");
    req_add("msg", text);
    return req_send();
}

static int p2_finalize(void)
{
    dmpi_pmi_msg m;
    req_begin("finalize");
    return exchange("finalize-response", &m);
}

static const dmpi_pmi_backend pmi2_ops = {
    .name = WHO,
    .keylen_max = KEY_MAX,
    .vallen_max = VAL_MAX - 1,
    .put = p2_put,
    .get = p2_get,
    .fence = p2_fence,
    .job_attr = p2_job_attr,
    .abort = p2_abort,
    .finalize = p2_finalize,
};

/* Reads a required integer attribute. */
static int need_int(const dmpi_pmi_msg *m, const char *name, int *out)
{
    if (dmpi_pmi_msg_int(m, name, out) == 0) return 0;
    dmpi_pmi_fail("%s: the launcher's fullinit-response has no valid %s", WHO, name);
    return -1;
}

const dmpi_pmi_backend *dmpi_pmi2_start(int fd, dmpi_pmi_job *job)
{
    dmpi_pmi_msg m;
    p2.fd = fd;
    const char *env_rank = getenv("PMI_RANK");
    int want = -1;
    if (env_rank && dmpi_pmi_parse_int(env_rank, &want) != 0) want = -1;
    req_begin("fullinit");
    /* Slurm wants both, from the environment it gave us */
    const char *env_job = getenv("PMI_JOBID");
    if (env_job && *env_job) req_add("pmijobid", env_job);
    if (want >= 0) req_add("pmirank", env_rank);
    req_add("threaded", "FALSE");
    if (exchange("fullinit-response", &m) != 0) return NULL;
    if (need_int(&m, "rank", &job->rank) != 0 || need_int(&m, "size", &job->size) != 0) return NULL;
    if (job->size < 1 || job->rank < 0 || job->rank >= job->size) {
        dmpi_pmi_fail("%s: the launcher says rank %d of %d", WHO, job->rank, job->size);
        return NULL;
    }
    if (want >= 0 && want != job->rank) {
        dmpi_pmi_fail("%s: PMI_RANK is %d but the launcher says rank %d", WHO, want, job->rank);
        return NULL;
    }
    if (dmpi_pmi_msg_int(&m, "appnum", &job->appnum) != 0) job->appnum = 0;

    req_begin("job-getid");
    if (exchange("job-getid-response", &m) != 0) return NULL;
    const char *id = dmpi_pmi_msg_str(&m, "jobid");
    if (!id || !*id || strlen(id) >= sizeof p2.jobid) {
        dmpi_pmi_fail("%s: the launcher sent no usable job id", WHO);
        return NULL;
    }
    strcpy(p2.jobid, id);
    strcpy(job->jobid, id);
    job->fd = fd;
    return &pmi2_ops;
}
