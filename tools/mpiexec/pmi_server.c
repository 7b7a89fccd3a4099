/* mpiexec's PMI-1 server: reads commands from every rank's socket (driven by
 * the event loop in main.c), answers them, keeps the KVS (kvs.c), runs the
 * barrier, and reports MPI_Abort / MPI_Finalize to job.c. Replies go
 * through a per-rank output queue so a slow reader never blocks mpiexec. */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define OUTQ_MAX (4u << 20) /* a rank that lets this much pile up is not reading */

static dmpi_pmi_line line; /* scratch for replies (one thread) */

int mpx_pmi_setup(mpx_job *job)
{
    job->kvs = mpx_kvs_new();
    snprintf(job->kvsname, sizeof job->kvsname, "kvs_%s", job->jobid);
    for (int i = 0; i < job->n; i++) {
        job->ranks[i].rd = mpx_xmalloc(sizeof *job->ranks[i].rd);
        dmpi_pmi_reader_init(job->ranks[i].rd);
    }
    return job->mode == MPX_MODE_AGENT ? 0 : mpx_universe_setup(job);
}

void mpx_pmi_close(mpx_job *job, mpx_rank *r)
{
    if (r->pmi_fd >= 0) {
        mpx_loop_del(r->pmi_fd);
        close(r->pmi_fd);
    }
    r->pmi_fd = -1;
    r->want_out = false;
    free(r->obuf);
    r->obuf = NULL;
    r->olen = r->ooff = r->ocap = 0;
    mpx_pmi_gone(job, r);
}

void mpx_pmi_gone(mpx_job *job, mpx_rank *r)
{
    if (!r->gone) {
        r->gone = true;
        job->gone++;
        if (job->mode == MPX_MODE_AGENT) mpx_agent_gone(job, r); /* mpiexec runs the barrier */
    }
    mpx_pmi_check_barrier(job);
}

void mpx_pmi_writable(mpx_job *job, mpx_rank *r)
{
    while (r->pmi_fd >= 0 && r->ooff < r->olen) {
        ssize_t w = send(r->pmi_fd, r->obuf + r->ooff, r->olen - r->ooff, MSG_NOSIGNAL);
        if (w > 0) {
            r->ooff += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!r->want_out) { /* wake us when the socket drains */
                r->want_out = true;
                mpx_loop_mod(r->pmi_fd, MPX_EV_PMI, (int)(r - job->ranks), true, true);
            }
            return;
        } else {
            r->ooff = r->olen = 0; /* peer gone: the read side will see the hang-up */
            break;
        }
    }
    r->ooff = r->olen = 0;
    if (r->want_out && r->pmi_fd >= 0) {
        r->want_out = false;
        mpx_loop_mod(r->pmi_fd, MPX_EV_PMI, (int)(r - job->ranks), true, false);
    }
}

static void reply(mpx_job *job, mpx_rank *r);

void mpx_pmi_reply(mpx_job *job, mpx_rank *r, dmpi_pmi_line *l)
{
    if (l != &line) line = *l;
    reply(job, r);
}

/* Queues the reply built in `line` and tries to send it. */
static void reply(mpx_job *job, mpx_rank *r)
{
    if (dmpi_pmi_line_end(&line) != 0) return;
    mpx_pmi_reply_text(job, r, line.buf, line.len);
}

void mpx_pmi_reply_text(mpx_job *job, mpx_rank *r, const char *text, size_t len)
{
    if (job->mode == MPX_MODE_FRONT) { /* the rank is on a host: its agent answers */
        mpx_front_reply(job, r, text, len);
        return;
    }
    if (r->pmi_fd < 0) return;
    if (r->olen - r->ooff + len > OUTQ_MAX) {
        mpx_log("rank %d does not read its PMI replies; closing its PMI link", r->rank);
        mpx_pmi_close(job, r);
        mpx_rank_hup(job, r);
        return;
    }
    if (r->olen + len > r->ocap) {
        if (r->ooff > 0) {
            memmove(r->obuf, r->obuf + r->ooff, r->olen - r->ooff);
            r->olen -= r->ooff;
            r->ooff = 0;
        }
        if (r->olen + len > r->ocap) {
            r->ocap = (r->olen + len) * 2;
            r->obuf = mpx_xrealloc(r->obuf, r->ocap);
        }
    }
    memcpy(r->obuf + r->olen, text, len);
    r->olen += len;
    mpx_pmi_writable(job, r);
}

static void reply_error(mpx_job *job, mpx_rank *r, const char *cmd, const char *msg)
{
    dmpi_pmi_line_begin(&line, cmd);
    dmpi_pmi_line_int(&line, "rc", -1);
    dmpi_pmi_line_str(&line, "msg", msg);
    reply(job, r);
}

static void reply_ok(mpx_job *job, mpx_rank *r, const char *cmd)
{
    dmpi_pmi_line_begin(&line, cmd);
    dmpi_pmi_line_int(&line, "rc", 0);
    reply(job, r);
}

/* Across hosts mpiexec (the front) keeps every rank's barrier state from
 * its agents' reports and sends the outcome to every agent, which answers
 * its own ranks (mpx_pmi_barrier_done). */
static void barrier_done_range(mpx_job *job, int lo, int hi, int rc)
{
    for (int i = lo; i < hi; i++) {
        mpx_rank *r = &job->ranks[i];
        if (!r->in_barrier) continue;
        r->in_barrier = false;
        if (rc == 0) reply_ok(job, r, "barrier_out");
        else reply_error(job, r, "barrier_out", "a_rank_left_before_the_barrier");
    }
}

/* Each job of the universe has its own barrier; across hosts mpiexec
 * sends its outcome to the job's agents, which answer their ranks. */
static void check_sub_barriers(mpx_job *job)
{
    for (int s = 0; s < job->nsub; s++) {
        mpx_sub *sb = &job->subs[s];
        if (sb->barrier_count == 0) continue;
        int rc = 0;
        if (sb->barrier_count < sb->n) {
            for (int i = sb->first; i < sb->first + sb->n; i++) {
                mpx_rank *r = &job->ranks[i];
                if (!r->in_barrier && r->gone) { rc = -1; break; }
            }
            if (rc == 0) continue;
        }
        sb->barrier_count = 0;
        if (job->mode == MPX_MODE_FRONT) {
            for (int i = sb->first; i < sb->first + sb->n; i++) job->ranks[i].in_barrier = false;
            mpx_front_barrier_out(job, s, rc);
        } else {
            barrier_done_range(job, sb->first, sb->first + sb->n, rc);
        }
    }
}

void mpx_pmi_barrier_done(mpx_job *job, int rc)
{
    for (int i = 0; i < job->n; i++) {
        mpx_rank *r = &job->ranks[i];
        if (!r->in_barrier) continue;
        r->in_barrier = false;
        if (rc == 0) reply_ok(job, r, "barrier_out");
        else reply_error(job, r, "barrier_out", "a_rank_left_before_the_barrier");
    }
    job->barrier_count = 0;
}

void mpx_pmi_check_barrier(mpx_job *job)
{
    if (job->subs) {
        check_sub_barriers(job);
        return;
    }
    /* an agent: mpiexec runs the barrier */
}

static const char *kvsname_of(mpx_job *job, const mpx_rank *r)
{
    return job->subs ? job->subs[r->sub].kvsname : job->kvsname;
}

static struct mpx_kvs *kvs_of(mpx_job *job, const mpx_rank *r)
{
    return job->subs ? job->subs[r->sub].kvs : job->kvs;
}

static bool kvsname_ok(mpx_job *job, const mpx_rank *r, const dmpi_pmi_msg *m)
{
    const char *k = dmpi_pmi_msg_str(m, "kvsname");
    return k == NULL || strcmp(k, kvsname_of(job, r)) == 0;
}

static bool key_ok(const char *key)
{
    return key && key[0] && strlen(key) <= DMPI_PMI_KEYLEN_MAX;
}

static void do_get(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m)
{
    const char *key = dmpi_pmi_msg_str(m, "key");
    const char *err = !kvsname_ok(job, r, m) ? "unknown_kvsname" : !key_ok(key) ? "bad_key" : NULL;
    if (err) {
        reply_error(job, r, "get_result", err);
        return;
    }
    char mapping[64];
    const char *val = NULL;
    if (strcmp(key, "PMI_process_mapping") == 0 && job->subs && r->sub > 0) {
        snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->subs[r->sub].n);
        val = mapping;
    } else if (strcmp(key, "PMI_process_mapping") == 0 && job->mapping) {
        val = job->mapping;
    } else if (strcmp(key, "PMI_process_mapping") == 0) {
        /* one node holding all ranks, in MPICH's vector notation */
        snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->n);
        val = mapping;
    } else {
        val = mpx_kvs_get(kvs_of(job, r), key);
    }
    dmpi_pmi_line_begin(&line, "get_result");
    if (val) {
        dmpi_pmi_line_int(&line, "rc", 0);
        dmpi_pmi_line_str(&line, "found", "TRUE");
        dmpi_pmi_line_str(&line, "value", val);
    } else {
        dmpi_pmi_line_int(&line, "rc", 1);
        dmpi_pmi_line_str(&line, "found", "FALSE");
        dmpi_pmi_line_str(&line, "msg", "key_not_found");
    }
    reply(job, r);
}

static void do_put(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m)
{
    const char *key = dmpi_pmi_msg_str(m, "key"), *val = dmpi_pmi_msg_str(m, "value");
    const char *err = !kvsname_ok(job, r, m) ? "unknown_kvsname"
                      : !key_ok(key)      ? "bad_key"
                      : val == NULL || strlen(val) > DMPI_PMI_VALLEN_MAX ? "bad_value"
                      : mpx_kvs_put(kvs_of(job, r), key, val) != 0 ? "kvs_full"
                                                             : NULL;
    if (err) {
        reply_error(job, r, "put_result", err);
        return;
    }
    if (job->mode == MPX_MODE_AGENT) mpx_agent_put(job, key, val); /* for the other hosts */
    reply_ok(job, r, "put_result");
}

static void do_abort(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m)
{
    int code;
    if (dmpi_pmi_msg_int(m, "exitcode", &code) != 0) code = 1;
    const char *msg = dmpi_pmi_msg_str(m, "message");
    r->aborted = true;
    r->abort_code = code;
    mpx_job_reap_others(job, r); /* a peer's death, if that is the cause, comes first */
    mpx_stream_drain(job, r); /* what it printed before aborting comes first */
    char line[1024];
    if (msg && msg[0])
        snprintf(line, sizeof line, "%s (pid %d) called MPI_Abort with code %d: %s", mpx_rank_label(r),
                 (int)r->pid, code, msg);
    else
        snprintf(line, sizeof line, "%s (pid %d) called MPI_Abort with code %d", mpx_rank_label(r),
                 (int)r->pid, code);
    int status = code & 255;
    if (status == 0 && code != 0) status = 1;
    mpx_job_abort(job, status, line);
}

static void handle(mpx_job *job, mpx_rank *r, char *text, size_t len)
{
    dmpi_pmi_msg m;
    if (dmpi_pmi_parse(text, len, &m) != 0) {
        if (!r->warned) mpx_log("rank %d sent a malformed PMI command (ignored)", r->rank);
        r->warned = true;
        reply_error(job, r, "error", "malformed_command");
        return;
    }
    const char *c = m.cmd;
    if (strcmp(c, "init") == 0) {
        int v;
        if (dmpi_pmi_msg_int(&m, "pmi_version", &v) != 0 || v != 1) {
            reply_error(job, r, "response_to_init", "unsupported_pmi_version");
            return;
        }
        r->pmi_init = true;
        dmpi_pmi_line_begin(&line, "response_to_init");
        dmpi_pmi_line_int(&line, "rc", 0);
        dmpi_pmi_line_int(&line, "pmi_version", 1);
        dmpi_pmi_line_int(&line, "pmi_subversion", 1);
        reply(job, r);
    } else if (strcmp(c, "get_maxes") == 0) {
        dmpi_pmi_line_begin(&line, "maxes");
        dmpi_pmi_line_int(&line, "rc", 0);
        dmpi_pmi_line_int(&line, "kvsname_max", DMPI_PMI_KVSNAME_MAX);
        dmpi_pmi_line_int(&line, "keylen_max", DMPI_PMI_KEYLEN_MAX);
        dmpi_pmi_line_int(&line, "vallen_max", DMPI_PMI_VALLEN_MAX);
        reply(job, r);
    } else if (strcmp(c, "get_appnum") == 0) {
        dmpi_pmi_line_begin(&line, "appnum");
        dmpi_pmi_line_int(&line, "rc", 0);
        dmpi_pmi_line_int(&line, "appnum", r->appnum);
        reply(job, r);
    } else if (strcmp(c, "get_universe_size") == 0) {
        dmpi_pmi_line_begin(&line, "universe_size");
        dmpi_pmi_line_int(&line, "rc", 0);
        /* MPI_UNIVERSE_SIZE: what -usize asked for, else the first job's size */
        /* (an agent is told it: opts.usize) */
        dmpi_pmi_line_int(&line, "size", job->opts->usize ? job->opts->usize : job->subs ? job->subs[0].n : job->size);
        reply(job, r);
    } else if (strcmp(c, "get_my_kvsname") == 0) {
        dmpi_pmi_line_begin(&line, "my_kvsname");
        dmpi_pmi_line_int(&line, "rc", 0);
        dmpi_pmi_line_str(&line, "kvsname", kvsname_of(job, r));
        reply(job, r);
    } else if (strcmp(c, "put") == 0) {
        do_put(job, r, &m);
    } else if (strcmp(c, "get") == 0) {
        do_get(job, r, &m);
    } else if (strcmp(c, "barrier_in") == 0) {
        if (r->in_barrier) {
            reply_error(job, r, "barrier_out", "already_in_barrier");
            return;
        }
        r->in_barrier = true;
        if (job->subs) job->subs[r->sub].barrier_count++;
        else job->barrier_count++;
        if (job->mode == MPX_MODE_AGENT) mpx_agent_barrier_in(job, r);
        mpx_pmi_check_barrier(job);
    } else if (strcmp(c, "finalize") == 0) {
        r->finalized = true;
        reply_ok(job, r, "finalize_ack");
        mpx_pmi_gone(job, r);
    } else if (strcmp(c, "abort") == 0) {
        do_abort(job, r, &m);
    } else if (mpx_universe_handle(job, r, &m)) {
        /* answered */
    } else {
        reply_error(job, r, c, "unsupported_command");
    }
}

void mpx_pmi_readable(mpx_job *job, mpx_rank *r)
{
    while (r->pmi_fd >= 0) {
        size_t room;
        char *space = dmpi_pmi_reader_space(r->rd, &room);
        ssize_t n = room ? read(r->pmi_fd, space, room) : 0;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) { /* EOF, or an error such as ECONNRESET */
            mpx_pmi_close(job, r);
            mpx_rank_hup(job, r);
            return;
        }
        dmpi_pmi_reader_commit(r->rd, (size_t)n);
        for (;;) {
            char *text;
            size_t len;
            int got = dmpi_pmi_reader_next(r->rd, &text, &len);
            if (got == 0) break;
            if (got < 0) {
                if (!r->warned) mpx_log("rank %d sent an over-long PMI command (ignored)", r->rank);
                r->warned = true;
                reply_error(job, r, "error", "line_too_long");
                continue;
            }
            handle(job, r, text, len);
            if (r->pmi_fd < 0) return; /* closed while handling */
        }
        if ((size_t)n < room) return; /* drained: the loop reports new data or EOF */
    }
}
