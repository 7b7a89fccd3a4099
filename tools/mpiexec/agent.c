/* The launch agent: "mpiexec --agent --connect ADDR:PORT --key KEY
 * --host-index I", started by mpiexec on each host through the launcher.
 * It makes one TCP connection back, presents the job's key, receives the
 * job description (front.c's job frame) and then runs the ordinary local
 * machinery (launch.c, pmi_server.c, iofwd.c, job.c) for its host's ranks,
 * with these differences: output, log lines, puts, barrier entries, ranks
 * gone and failures are sent to mpiexec; barriers end when mpiexec says so
 * (with the other hosts' puts); stdin for rank 0 comes from mpiexec. When
 * the connection is lost it kills its ranks and exits. */
#include "mpiexec.h"
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct mpx_agent {
    int fd;             /* -1 once lost */
    mpx_buf in, out;
    bool ack_owed;      /* a stdin chunk to acknowledge once delivered */
    char *host;
};

struct mpx_agent *mpx_log_agent;

/* Sends the queued frames, waiting while the socket is full (mpiexec
 * always reads, so this cannot deadlock). A broken link drops them: the
 * read side reports the loss. */
static void send_now(struct mpx_agent *ag)
{
    while (ag->fd >= 0 && ag->out.len > ag->out.off) {
        if (mpx_sock_flush(ag->fd, &ag->out) != 0) break;
        if (ag->out.len == ag->out.off) return;
        struct pollfd p = {.fd = ag->fd, .events = POLLOUT};
        if (poll(&p, 1, -1) < 0 && errno != EINTR) break;
    }
    ag->out.off = ag->out.len = ag->out.fstart = 0;
}

static void send_u32(struct mpx_agent *ag, int type, uint32_t v)
{
    if (ag->fd < 0) return;
    mpx_frame_begin(&ag->out, type);
    mpx_frame_u32(&ag->out, v);
    mpx_frame_end(&ag->out);
    send_now(ag);
}

void mpx_agent_log(const char *line, size_t len)
{
    struct mpx_agent *ag = mpx_log_agent;
    char buf[1200];
    snprintf(buf, sizeof buf, "host %s: %.*s", ag->host, (int)len, line);
    mpx_frame_begin(&ag->out, MPX_M_LOG);
    mpx_frame_str(&ag->out, buf);
    mpx_frame_end(&ag->out);
    send_now(ag);
}

void mpx_agent_put(mpx_job *job, const char *key, const char *val)
{
    struct mpx_agent *ag = job->agent;
    if (ag->fd < 0) return;
    mpx_frame_begin(&ag->out, MPX_M_PUT);
    mpx_frame_str(&ag->out, key);
    mpx_frame_str(&ag->out, val);
    mpx_frame_end(&ag->out);
    send_now(ag);
}

void mpx_agent_ucmd(mpx_job *job, const mpx_rank *r, const dmpi_pmi_msg *m)
{
    struct mpx_agent *ag = job->agent;
    dmpi_pmi_line l;
    dmpi_pmi_line_begin(&l, m->cmd);
    for (int i = 0; i < m->nattr; i++)
        if (m->attr[i].val) dmpi_pmi_line_str(&l, m->attr[i].name, m->attr[i].val);
    if (ag->fd < 0 || dmpi_pmi_line_end(&l) != 0) return; /* (a line that came in fits) */
    mpx_frame_begin(&ag->out, MPX_M_UCMD);
    mpx_frame_u32(&ag->out, (uint32_t)r->rank);
    mpx_frame_bytes(&ag->out, l.buf, l.len);
    mpx_frame_end(&ag->out);
    send_now(ag);
}

void mpx_agent_barrier_in(mpx_job *job, const mpx_rank *r) { send_u32(job->agent, MPX_M_BIN, (uint32_t)r->rank); }
void mpx_agent_gone(mpx_job *job, const mpx_rank *r) { send_u32(job->agent, MPX_M_GONE, (uint32_t)r->rank); }
void mpx_agent_fail(mpx_job *job, int status) { send_u32(job->agent, MPX_M_FAIL, (uint32_t)status); }

int mpx_agent_output(mpx_job *job, int dest, const char *buf, size_t n)
{
    struct mpx_agent *ag = job->agent;
    if (ag->fd < 0) return -1;
    mpx_frame_begin(&ag->out, MPX_M_OUT);
    mpx_frame_u32(&ag->out, (uint32_t)dest);
    mpx_frame_bytes(&ag->out, buf, n);
    mpx_frame_end(&ag->out);
    send_now(ag);
    return 0;
}

void mpx_agent_tick(mpx_job *job)
{
    struct mpx_agent *ag = job->agent;
    if (ag->ack_owed && job->inlen == 0) {
        ag->ack_owed = false;
        send_u32(ag, MPX_M_INACK, job->stdin_dst < 0);
    }
}

static void link_lost(mpx_job *job, const char *why)
{
    struct mpx_agent *ag = job->agent;
    if (ag->fd < 0) return;
    mpx_loop_del(ag->fd);
    close(ag->fd);
    ag->fd = -1;
    mpx_log_agent = NULL; /* from now on to our stderr */
    if (job->phase == MPX_RUNNING || !job->failed) {
        mpx_log("agent on host %s: %s; killing the ranks", ag->host, why);
        mpx_job_fail(job, 1);
    }
}

static int handle_frame(mpx_job *job, mpx_frame *f)
{
    switch (f->type) {
    case MPX_M_KV: {
        const char *k = mpx_frame_get_str(f), *v = mpx_frame_get_str(f);
        if (!k || !v) return -1;
        mpx_kvs_put(job->kvs, k, v);
        return 0;
    }
    case MPX_M_BOUT: {
        uint32_t rc = mpx_frame_get_u32(f);
        if (f->bad) return -1;
        mpx_pmi_barrier_done(job, rc ? -1 : 0);
        return 0;
    }
    case MPX_M_IN:
        job->agent->ack_owed = true;
        if (job->stdin_dst < 0 || f->len == 0) return 0; /* rank 0 took no more: dropped */
        job->inbuf = mpx_xrealloc(job->inbuf, f->len);
        memcpy(job->inbuf, f->p, f->len);
        job->inlen = f->len;
        job->inoff = 0;
        mpx_stdin_writable(job);
        return 0;
    case MPX_M_UREPLY: {
        uint32_t rank = mpx_frame_get_u32(f);
        uint32_t i = rank - (uint32_t)job->ranks[0].rank;
        if (f->bad || i >= (uint32_t)job->n) return -1;
        mpx_pmi_reply_text(job, &job->ranks[i], f->p, f->len);
        return 0;
    }
    case MPX_M_INEOF:
        job->stdin_eof = true;
        if (job->inlen == 0) mpx_stdin_close(job);
        return 0;
    case MPX_M_SIG: {
        uint32_t sig = mpx_frame_get_u32(f);
        if (f->bad) return -1;
        if (sig == SIGTERM || sig == SIGKILL) {
            mpx_job_kill(job); /* no failure report: mpiexec knows */
            if (sig == SIGKILL && !job->sigkill_sent && job->live > 0) {
                job->boot->signal_all(job, SIGKILL);
                job->sigkill_sent = true;
                job->kill_time = mpx_now();
            }
        } else if (sig == SIGSTOP || sig == SIGCONT) {
            job->boot->signal_all(job, (int)sig);
        }
        return 0;
    }
    default:
        return -1;
    }
}

/* Handles every whole frame received so far. */
static void handle_frames(mpx_job *job)
{
    struct mpx_agent *ag = job->agent;
    mpx_frame f;
    size_t size;
    int got = 0;
    while (ag->fd >= 0 && (got = mpx_frame_next(&ag->in, &f, &size)) == 1) {
        if (handle_frame(job, &f) != 0) {
            link_lost(job, "malformed message from mpiexec");
            return;
        }
        mpx_buf_consume(&ag->in, size);
    }
    if (ag->fd >= 0 && got < 0) link_lost(job, "over-long message from mpiexec");
}

void mpx_agent_event(mpx_job *job, unsigned events)
{
    struct mpx_agent *ag = job->agent;
    (void)events;
    while (ag->fd >= 0) {
        int n = mpx_sock_read(ag->fd, &ag->in);
        if (n == -2) return;
        if (n <= 0) {
            link_lost(job, "lost the connection to mpiexec");
            return;
        }
        handle_frames(job);
    }
}

static int agent_launch(mpx_job *job)
{
    if (mpx_loop_add(job->agent->fd, MPX_EV_UPLINK, 0, true, false) != 0) {
        mpx_log("cannot watch the connection to mpiexec: %s", strerror(errno));
        return -1;
    }
    int rc = mpx_bootstrap_local.launch(job);
    handle_frames(job); /* what came with the job frame */
    return rc;
}

static void agent_signal(mpx_job *job, int sig)
{
    mpx_bootstrap_local.signal_all(job, sig);
}

static const mpx_bootstrap agent_boot = {
    .name = "agent",
    .launch = agent_launch,
    .signal_all = agent_signal,
};

static char *xstrdup(const char *s)
{
    char *d = mpx_xmalloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

static void add_env(mpx_opts *o, const char *name, const char *value)
{
    o->env = mpx_xrealloc(o->env, sizeof *o->env * (size_t)(o->nenv + 1));
    o->env[o->nenv].name = xstrdup(name);
    o->env[o->nenv++].value = xstrdup(value);
}

/* This host's address as mpiexec reached it: where this host's ranks
 * listen for MPI_Comm_connect (DMPI_PORT_ADDR, docs/dynproc.md). */
static int uplink_addr(int fd, char *out, size_t outlen)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0 || a.sin_family != AF_INET) return -1;
    return inet_ntop(AF_INET, &a.sin_addr, out, (socklen_t)outlen) ? 0 : -1;
}

/* Waits for the job frame: 0 and f set, or -1 after a message. */
static int read_job_frame(struct mpx_agent *ag, mpx_frame *f, size_t *size)
{
    for (;;) {
        int got = mpx_frame_next(&ag->in, f, size);
        if (got == 1 && f->type == MPX_M_JOB) return 0;
        if (got != 0) {
            fprintf(stderr, "mpiexec agent: bad first message from mpiexec\n");
            return -1;
        }
        struct pollfd p = {.fd = ag->fd, .events = POLLIN};
        int pr = poll(&p, 1, 60000);
        if (pr < 0 && errno == EINTR) continue;
        int n = pr > 0 ? mpx_sock_read(ag->fd, &ag->in) : 0;
        if (n == -2) continue;
        if (n <= 0) {
            fprintf(stderr, "mpiexec agent: mpiexec %s\n",
                    pr == 0 ? "sent no job within 60 s" : "closed the connection (wrong key, or the job is over)");
            return -1;
        }
    }
}

int mpx_agent_main(int argc, char **argv)
{
    const char *conn = NULL, *key = NULL;
    int index = -1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--connect") == 0) conn = argv[i + 1];
        else if (strcmp(argv[i], "--key") == 0) key = argv[i + 1];
        else if (strcmp(argv[i], "--host-index") == 0) dmpi_pmi_parse_int(argv[i + 1], &index);
    }
    if (conn == NULL || key == NULL || index < 0) {
        fprintf(stderr, "mpiexec: --agent is mpiexec's own: it needs --connect ADDR:PORT --key KEY --host-index I\n");
        return MPX_EXIT_USAGE;
    }
    struct mpx_agent ag;
    memset(&ag, 0, sizeof ag);
    ag.fd = mpx_tcp_connect(conn, 10.0);
    if (ag.fd < 0) {
        fprintf(stderr, "mpiexec agent: cannot connect to mpiexec at %s: %s\n", conn, strerror(errno));
        return 1;
    }
    char hello[MPX_HELLO_MAX];
    int hl = snprintf(hello, sizeof hello, "dmpi-agent %s %d\n", key, index);
    mpx_buf_put(&ag.out, hello, (size_t)hl);
    ag.out.fstart = ag.out.len;
    send_now(&ag);

    mpx_frame f;
    size_t fsize;
    if (ag.fd < 0 || read_job_frame(&ag, &f, &fsize) != 0) {
        if (ag.fd >= 0) close(ag.fd);
        mpx_buf_free(&ag.in);
        mpx_buf_free(&ag.out);
        return 1;
    }
    /* the job frame (see front.c queue_job_frame) */
    mpx_opts opts;
    memset(&opts, 0, sizeof opts);
    mpx_job job;
    memset(&job, 0, sizeof job);
    const char *jobid = mpx_frame_get_str(&f), *host = mpx_frame_get_str(&f);
    job.size = (int)mpx_frame_get_u32(&f);
    int first = (int)mpx_frame_get_u32(&f);
    job.n = (int)mpx_frame_get_u32(&f);
    opts.label = mpx_frame_get_u32(&f) != 0;
    const char *mapping = mpx_frame_get_str(&f), *cwd = mpx_frame_get_str(&f);
    const char *prog = mpx_frame_get_str(&f);
    uint32_t nargs = mpx_frame_get_u32(&f);
    if (f.bad || nargs == 0 || nargs > f.len || job.n < 1 || job.n > MPX_MAX_PROCS || first < 0 ||
        job.size < first + job.n || strlen(jobid) < 16 || strlen(jobid) >= sizeof job.jobid) {
        fprintf(stderr, "mpiexec agent: malformed job description\n");
        close(ag.fd);
        mpx_buf_free(&ag.in);
        return 1;
    }
    char **args = calloc(nargs + 1, sizeof *args);
    for (uint32_t i = 0; i < nargs && args; i++) {
        const char *s = mpx_frame_get_str(&f);
        args[i] = xstrdup(s ? s : "");
    }
    uint32_t nenv = mpx_frame_get_u32(&f);
    for (uint32_t i = 0; i < nenv && !f.bad; i++) {
        const char *s = mpx_frame_get_str(&f);
        const char *eq = s ? strchr(s, '=') : NULL;
        if (!eq) continue;
        char *name = mpx_xmalloc((size_t)(eq - s) + 1);
        memcpy(name, s, (size_t)(eq - s));
        name[eq - s] = '\0';
        add_env(&opts, name, eq + 1);
        free(name);
    }
    /* this job's place in the universe (spawn.c) */
    int sub = (int)mpx_frame_get_u32(&f), appnum = (int)mpx_frame_get_u32(&f);
    opts.usize = (int)mpx_frame_get_u32(&f);
    const char *uni_id = mpx_frame_get_str(&f);
    uint32_t uni_base = mpx_frame_get_u32(&f), uni_cap = mpx_frame_get_u32(&f);
    const char *parent_port = mpx_frame_get_str(&f);
    if (f.bad) {
        fprintf(stderr, "mpiexec agent: malformed job description\n");
        close(ag.fd);
        mpx_buf_free(&ag.in);
        return 1;
    }
    char num[32], addr[64] = "";
    add_env(&opts, "DMPI_UNIVERSE_ID", uni_id);
    snprintf(num, sizeof num, "%u", uni_base);
    add_env(&opts, "DMPI_UNIVERSE_BASE", num);
    snprintf(num, sizeof num, "%u", uni_cap);
    add_env(&opts, "DMPI_UNIVERSE_SIZE", num);
    if (parent_port[0]) add_env(&opts, "DMPI_PARENT_PORT", parent_port);
    if (uplink_addr(ag.fd, addr, sizeof addr) == 0) add_env(&opts, "DMPI_PORT_ADDR", addr);
    opts.np = job.n;
    opts.argv = args;
    opts.prog_path = xstrdup(prog);
    ag.host = xstrdup(host);
    snprintf(job.jobid, sizeof job.jobid, "%s", jobid);
    snprintf(job.kvsname, sizeof job.kvsname, "kvs_%s", job.jobid);
    job.mapping = xstrdup(mapping);
    char *cwd_copy = xstrdup(cwd);
    mpx_buf_consume(&ag.in, fsize);

    job.opts = &opts;
    job.mode = MPX_MODE_AGENT;
    job.boot = &agent_boot;
    job.host = ag.host;
    job.agent = &ag;
    job.stdin_src = job.stdin_dst = -1;
    job.ranks = calloc((size_t)job.n, sizeof *job.ranks);
    int rc = 1;
    if (job.ranks && args) {
        for (int i = 0; i < job.n; i++) {
            job.ranks[i].rank = first + i;
            job.ranks[i].sub = sub;
            job.ranks[i].appnum = appnum;
            job.ranks[i].pmi_fd = job.ranks[i].out[0].fd = job.ranks[i].out[1].fd = -1;
        }
        mpx_log_agent = &ag;
        if (chdir(cwd_copy) != 0)
            mpx_log("cannot change to directory %s (%s); the processes start in %s", cwd_copy, strerror(errno),
                    getenv("HOME") ? getenv("HOME") : "the agent's directory");
        rc = mpx_main_loop(&job);
        send_u32(&ag, MPX_M_DONE, (uint32_t)rc);
        /* mpiexec has the outcome and reports it; a launcher would add its
         * own line for a nonzero exit (srun: "task 0: Exited with exit code N") */
        if (ag.fd >= 0) rc = 0;
    }
    mpx_log_agent = NULL;
    if (ag.fd >= 0) close(ag.fd);
    for (uint32_t i = 0; i < nargs && args; i++) free(args[i]);
    free(args);
    free(cwd_copy);
    free(job.ranks);
    free(job.mapping);
    free(ag.host);
    mpx_buf_free(&ag.in);
    mpx_buf_free(&ag.out);
    mpx_free_options(&opts);
    return rc;
}
