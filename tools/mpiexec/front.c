/* mpiexec's side of a job on hosts (the remote bootstrap): places the
 * ranks, listens on one TCP port, starts one agent per host through the
 * launcher ("CMD HOST /path/mpiexec --agent --connect ADDR:PORT --key KEY
 * --host-index I", or with srun "srun OPTIONS --nodelist=HOST /path/...",
 * see slurm.c; every word free of shell metacharacters so that ssh,
 * which joins them for a remote shell, and "ip netns exec", which does not,
 * both work), admits each agent's one connection when it presents the job's
 * random key, and then relays: output to our stdout/stderr, stdin to rank
 * 0's agent, puts and barriers (mpiexec holds every rank's barrier state;
 * the puts made before a barrier go to every agent with its end), failures
 * (the first one sets the exit status and kills the job everywhere). */
#include "mpiexec.h"
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PENDING 16     /* unauthenticated connections at a time */
#define ERRBUF_MAX 4096    /* launcher messages kept for an error report */

extern char **environ;

typedef struct agent {
    int idx;               /* in mpx_front.a, and its --host-index */
    const char *host;
    int sub;               /* its ranks' job: 0 the first, then one per spawn */
    int first, count;      /* its ranks: job->ranks[first .. first+count) */
    int rank0;             /* the rank of job->ranks[first] in its job */
    double start;          /* its launcher started at */
    pid_t pid;             /* the launcher, 0 none */
    bool reaped;
    int wstatus;
    int errfd;             /* launcher's stdout+stderr, -1 closed */
    mpx_buf errbuf;        /* held back until the agent connects */
    int fd;                /* the agent's connection, -1 none */
    mpx_buf in, out;       /* out holds the job frame until the agent connects */
    bool connected, done, want_out, ended;
} agent;

typedef struct pending {
    int fd;                /* -1: free slot */
    char buf[MPX_HELLO_MAX];
    size_t len;
    char peer[64];
} pending;

struct mpx_front {
    agent **a;             /* one per host of the first job, then per block of a spawned job */
    int na, acap;
    int *node_of_host;     /* per host of the options: its node id (-1 none yet) */
    int *load;             /* per host: ranks placed on it, of every job */
    int nnodes;            /* node ids given out */
    int lfd, port;
    char addr[64], key[33];
    pending pend[MAX_PENDING];
    bool in_sent;          /* a stdin chunk awaits its ack */
    char **lcmd;           /* the launcher command split in words */
    int nlcmd;
    char exe[4096];
};

/* ------------------------------------------------------------ helpers */

static void agent_flush(mpx_job *job, agent *a);

static void send_frame_end(mpx_job *job, agent *a)
{
    mpx_frame_end(&a->out);
    if (a->connected) agent_flush(job, a);
}

static void agent_close(mpx_job *job, agent *a)
{
    if (a->fd >= 0) {
        mpx_loop_del(a->fd);
        close(a->fd);
        a->fd = -1;
    }
    (void)job;
}

/* The agent is out of the job: its ranks can no longer enter a barrier. */
static void agent_end(mpx_job *job, agent *a)
{
    if (a->ended) return;
    a->ended = true;
    agent_close(job, a);
    job->live--;
    if (job->live == 0) job->drain_start = mpx_now();
    if (a->first == 0) mpx_stdin_close(job);
    for (int r = a->first; r < a->first + a->count; r++) mpx_pmi_gone(job, &job->ranks[r]);
}

static void kill_launcher(agent *a, int sig)
{
    if (a->pid > 0 && !a->reaped) {
        kill(-a->pid, sig);
        kill(a->pid, sig);
    }
}

/* Passes on what a launcher printed, less srun's notice that the cluster
 * cannot bind CPUs (our --cpu-bind=none asks for no binding anyway). */
static void launcher_output(mpx_job *job, const char *p, size_t n)
{
    static const char noise[] = "srun: cluster configuration lacks support for cpu binding\n";
    while (job->opts->srun && n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t l = nl ? (size_t)(nl - p) + 1 : n;
        if (l != sizeof noise - 1 || memcmp(p, noise, l) != 0) mpx_write_all(job, 2, p, l);
        p += l;
        n -= l;
    }
    if (n > 0) mpx_write_all(job, 2, p, n);
}

static void flush_errbuf(mpx_job *job, agent *a)
{
    if (a->errbuf.len > a->errbuf.off) launcher_output(job, a->errbuf.p + a->errbuf.off, a->errbuf.len - a->errbuf.off);
    mpx_buf_free(&a->errbuf);
}

static void read_launcher(mpx_job *job, agent *a)
{
    char buf[4096];
    while (a->errfd >= 0) {
        ssize_t n = read(a->errfd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            mpx_loop_del(a->errfd);
            close(a->errfd);
            a->errfd = -1;
            return;
        }
        if (a->connected) {
            launcher_output(job, buf, (size_t)n);
        } else {
            mpx_buf_put(&a->errbuf, buf, (size_t)n);
            if (a->errbuf.len - a->errbuf.off > ERRBUF_MAX) /* keep the last part */
                mpx_buf_consume(&a->errbuf, a->errbuf.len - a->errbuf.off - ERRBUF_MAX);
            a->errbuf.fstart = a->errbuf.len;
        }
    }
}

/* "cannot start the agent on HOST: WHY", then what the launcher said */
static void report_start_failure(mpx_job *job, agent *a, const char *why)
{
    read_launcher(job, a);
    mpx_log("cannot start the agent on host %s: %s", a->host, why);
    const char *p = a->errbuf.p ? a->errbuf.p + a->errbuf.off : "";
    size_t n = a->errbuf.p ? a->errbuf.len - a->errbuf.off : 0;
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t l = nl ? (size_t)(nl - p) : n;
        if (l > 0) mpx_log("  %s: %.*s", a->host, (int)l, p);
        p += l + (nl ? 1 : 0);
        n -= l + (nl ? 1 : 0);
    }
    mpx_buf_free(&a->errbuf);
}

/* ----------------------------------------------------------- set-up */

static bool shell_safe(const char *s)
{
    if (*s == '\0') return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-:,@%=", *s)) return false;
    return true;
}

static bool env_match(const char *e, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(e, names[i], strlen(names[i])) == 0) return true;
    return false;
}

/* Variables of mpiexec's host, not the job's: not sent to the agents.
 * Slurm's per-node and per-task ones come from the agent's own step on its
 * node; so do the device lists Slurm sets per step (with srun). */
static bool env_skipped(const char *e, bool srun)
{
    static const char *const names[] = {"HOSTNAME=", "HOST=", "PWD=", "OLDPWD=", "SHLVL=", "_=",
                                        "DISPLAY=", "XAUTHORITY=", "SSH_", "PMI_", "PMIX_", "DMPI_JOBID=",
                                        "DMPI_UNIVERSE_ID=", "DMPI_UNIVERSE_BASE=", "DMPI_UNIVERSE_SIZE=",
                                        "DMPI_PARENT_PORT=", "DMPI_PORT_ADDR=",
                                        "DMPI_LOCAL_RANK=", "DMPI_LOCAL_SIZE=", "MPI_LOCAL", "MPIEXEC_",
                                        "SLURMD_NODENAME=", "SLURM_NODEID=", "SLURM_PROCID=", "SLURM_LOCALID=",
                                        "SLURM_TASK_PID=", "SLURM_GTIDS=", "SLURM_STEP_", "SLURM_STEPID=",
                                        "SLURM_CPU_BIND", "SLURM_TOPOLOGY_ADDR", "SLURM_SRUN_COMM_",
                                        "SLURM_LAUNCH_NODE_IPADDR=", "SLURM_CPUS_ON_NODE=", "SLURM_JOB_GPUS=",
                                        "SLURM_GPUS_ON_NODE="};
    static const char *const devices[] = {"CUDA_VISIBLE_DEVICES=", "GPU_DEVICE_ORDINAL=",
                                          "ROCR_VISIBLE_DEVICES=", "ZE_AFFINITY_MASK="};
    if (env_match(e, names, sizeof names / sizeof names[0])) return true;
    if (srun && env_match(e, devices, sizeof devices / sizeof devices[0])) return true;
    return strchr(e, '=') == NULL;
}

/* The job frame: jobid, host, size, first rank, count, label, mapping,
 * cwd, program path, argc, argv..., nenv, "NAME=VALUE"... (mpiexec's
 * environment, then -env/-genv/-x on top), then the job's place in the
 * universe: job index, appnum, MPI_UNIVERSE_SIZE, universe id, universe
 * index of the job's rank 0, universe size, parent port ("" none). The
 * first job's agents get theirs before the universe is set up (spawn.c):
 * job 0, base 0. */
static void queue_job_frame(mpx_job *job, agent *a, const char *mapping)
{
    const mpx_opts *o = job->opts;
    const mpx_rank *r0 = &job->ranks[a->first];
    const mpx_sub *sb = a->sub > 0 ? &job->subs[a->sub] : NULL;
    mpx_buf *b = &a->out;
    char cwd[4096];
    if (sb && r0->wdir) snprintf(cwd, sizeof cwd, "%s", r0->wdir);
    else if (getcwd(cwd, sizeof cwd) == NULL) snprintf(cwd, sizeof cwd, "/");
    char *const *argv = sb ? r0->argv : o->argv;
    mpx_frame_begin(b, MPX_M_JOB);
    mpx_frame_str(b, sb ? sb->jobid : job->jobid);
    mpx_frame_str(b, a->host);
    mpx_frame_u32(b, (uint32_t)(sb ? sb->n : job->size));
    mpx_frame_u32(b, (uint32_t)a->rank0);
    mpx_frame_u32(b, (uint32_t)a->count);
    mpx_frame_u32(b, o->label);
    mpx_frame_str(b, mapping);
    mpx_frame_str(b, cwd);
    mpx_frame_str(b, sb ? r0->prog : o->prog_path);
    uint32_t argc = 0;
    while (argv[argc]) argc++;
    mpx_frame_u32(b, argc);
    for (uint32_t i = 0; i < argc; i++) mpx_frame_str(b, argv[i]);
    uint32_t nenv = 0;
    for (char **e = environ; *e; e++) nenv += !env_skipped(*e, o->srun);
    for (int i = 0; i < o->nenv; i++) nenv += o->env[i].value || getenv(o->env[i].name);
    mpx_frame_u32(b, nenv);
    for (char **e = environ; *e; e++)
        if (!env_skipped(*e, o->srun)) mpx_frame_str(b, *e);
    for (int i = 0; i < o->nenv; i++) {
        const char *v = o->env[i].value ? o->env[i].value : getenv(o->env[i].name);
        if (!v) continue;
        size_t l = strlen(o->env[i].name) + strlen(v) + 2;
        char *s = mpx_xmalloc(l);
        snprintf(s, l, "%s=%s", o->env[i].name, v);
        mpx_frame_str(b, s);
        free(s);
    }
    mpx_frame_u32(b, (uint32_t)a->sub);
    mpx_frame_u32(b, (uint32_t)r0->appnum);
    mpx_frame_u32(b, (uint32_t)(o->usize ? o->usize : job->size));
    mpx_frame_str(b, job->jobid);
    mpx_frame_u32(b, (uint32_t)(sb ? sb->base : 0));
    mpx_frame_u32(b, (uint32_t)job->cap);
    mpx_frame_str(b, sb && sb->parent_port ? sb->parent_port : "");
    mpx_frame_end(b);
}

static void free_front(struct mpx_front *f)
{
    if (f == NULL) return;
    for (int i = 0; i < f->na; i++) {
        mpx_buf_free(&f->a[i]->in);
        mpx_buf_free(&f->a[i]->out);
        mpx_buf_free(&f->a[i]->errbuf);
        free(f->a[i]);
    }
    free(f->node_of_host);
    free(f->load);
    for (int i = 0; i < f->nlcmd; i++) free(f->lcmd[i]);
    free(f->lcmd);
    free(f->a);
    if (f->lfd >= 0) close(f->lfd);
    free(f);
}

static agent *new_agent(struct mpx_front *f, const char *host)
{
    if (f->na == f->acap) {
        f->acap = f->acap ? 2 * f->acap : 8;
        f->a = mpx_xrealloc(f->a, sizeof *f->a * (size_t)f->acap);
    }
    agent *a = mpx_xmalloc(sizeof *a);
    memset(a, 0, sizeof *a);
    a->idx = f->na;
    a->host = host;
    a->fd = a->errfd = -1;
    f->a[f->na++] = a;
    return a;
}

int mpx_front_init(mpx_job *job)
{
    const mpx_opts *o = job->opts;
    int *count = mpx_xmalloc(sizeof *count * (size_t)o->nhosts);
    int rc = mpx_hosts_place(o, count);
    if (rc) {
        free(count);
        return rc;
    }
    struct mpx_front *f = calloc(1, sizeof *f);
    if (f == NULL) {
        free(count);
        mpx_log("out of memory");
        return 1;
    }
    f->lfd = -1;
    job->front = f;
    for (int i = 0; i < MAX_PENDING; i++) f->pend[i].fd = -1;
    f->node_of_host = mpx_xmalloc(sizeof *f->node_of_host * (size_t)o->nhosts);
    f->load = mpx_xmalloc(sizeof *f->load * (size_t)o->nhosts);
    int *used = mpx_xmalloc(sizeof *used * (size_t)o->nhosts);
    int first = 0;
    bool all_local = true;
    for (int h = 0; h < o->nhosts; h++) {
        f->node_of_host[h] = -1;
        f->load[h] = count[h];
        if (count[h] == 0) continue; /* more hosts than ranks */
        f->node_of_host[h] = f->nnodes++; /* node k of the mapping is the k-th agent's */
        agent *a = new_agent(f, o->hosts[h].name);
        a->first = a->rank0 = first;
        a->count = count[h];
        used[a->idx] = count[h];
        first += count[h];
    }
    for (int h = 0; h < o->nhosts; h++) all_local &= mpx_host_is_local(o->hosts[h].name);
    free(count);
    job->mapping = mpx_hosts_mapping(used, f->na);
    free(used);

    /* the launcher's words, and our own path for the remote side */
    const char *l = o->launcher ? o->launcher : MPX_DEFAULT_LAUNCHER;
    for (const char *p = l; *p;) {
        p += strspn(p, " \t");
        size_t w = strcspn(p, " \t");
        if (w == 0) break;
        f->lcmd = mpx_xrealloc(f->lcmd, sizeof *f->lcmd * (size_t)(f->nlcmd + 1));
        f->lcmd[f->nlcmd] = mpx_xmalloc(w + 1);
        memcpy(f->lcmd[f->nlcmd], p, w);
        f->lcmd[f->nlcmd++][w] = '\0';
        p += w;
    }
    ssize_t n = readlink("/proc/self/exe", f->exe, sizeof f->exe - 1);
    if (n <= 0) {
        mpx_log("cannot find mpiexec's own path: %s", strerror(errno));
        goto fail;
    }
    f->exe[n] = '\0';
    if (!shell_safe(f->exe)) {
        mpx_log("mpiexec's path '%s' holds characters a remote shell would interpret; "
                "install it under a plain path to launch on hosts", f->exe);
        goto fail;
    }
    if (mpx_pick_addr(o->iface, all_local, f->addr, sizeof f->addr) != 0) {
        free_front(f);
        job->front = NULL;
        return MPX_EXIT_USAGE;
    }
    f->lfd = mpx_tcp_listen(&f->port);
    if (f->lfd < 0) {
        mpx_log("cannot open a TCP port for the agents: %s", strerror(errno));
        goto fail;
    }
    mpx_random_hex(f->key, 32);
    for (int i = 0; i < f->na; i++) queue_job_frame(job, f->a[i], job->mapping);
    return 0;
fail:
    free_front(f);
    job->front = NULL;
    return 1;
}

/* ----------------------------------------------------------- launching */

static int start_launcher(mpx_job *job, agent *a, int idx)
{
    struct mpx_front *f = job->front;
    char conn[96], index[16];
    snprintf(conn, sizeof conn, "%s:%d", f->addr, f->port);
    snprintf(index, sizeof index, "%d", idx);
    char *nodelist = NULL; /* srun's host word */
    if (job->opts->srun) {
        nodelist = mpx_xmalloc(strlen(a->host) + 16);
        sprintf(nodelist, "--nodelist=%s", a->host);
    }
    const char *where = nodelist ? nodelist : a->host;
    const char *tail[] = {where, f->exe, "--agent", "--connect", conn, "--key", f->key, "--host-index", index};
    size_t nt = sizeof tail / sizeof tail[0];
    char **argv = mpx_xmalloc(sizeof *argv * ((size_t)f->nlcmd + nt + 1));
    int k = 0;
    for (int i = 0; i < f->nlcmd; i++) argv[k++] = f->lcmd[i];
    for (size_t i = 0; i < nt; i++) argv[k++] = (char *)tail[i];
    argv[k] = NULL;

    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        mpx_log("cannot start the agent on host %s: pipe: %s", a->host, strerror(errno));
        free(argv);
        free(nodelist);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        mpx_log("cannot start the agent on host %s: fork: %s", a->host, strerror(errno));
        close(ep[0]);
        close(ep[1]);
        free(argv);
        free(nodelist);
        return -1;
    }
    if (pid == 0) {
        mpx_child_restore();
        (void)setpgid(0, 0); /* Ctrl-C reaches mpiexec only; it kills the job */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(ep[1], 1) < 0 || dup2(ep[1], 2) < 0) _exit(127);
        if (job->opts->srun) mpx_slurm_child_env();
        execvp(argv[0], argv);
        dprintf(2, "cannot execute the launcher '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(argv);
    free(nodelist);
    (void)setpgid(pid, pid);
    close(ep[1]);
    a->pid = pid;
    a->start = mpx_now();
    a->errfd = ep[0];
    mpx_set_nonblock(ep[0]);
    mpx_loop_add(ep[0], MPX_EV_LAUNCHER, idx, true, false);
    job->live++;
    return 0;
}

/* Marks agents from..na-1 out of the job before they started: their ranks are gone. */
static void never_started(mpx_job *job, int from)
{
    struct mpx_front *f = job->front;
    for (int j = from; j < f->na; j++) {
        f->a[j]->ended = true;
        for (int r = f->a[j]->first; r < f->a[j]->first + f->a[j]->count; r++) mpx_pmi_gone(job, &job->ranks[r]);
    }
}

static int launch_remote(mpx_job *job)
{
    struct mpx_front *f = job->front;
    if (mpx_loop_add(f->lfd, MPX_EV_LISTEN, 0, true, false) != 0) {
        mpx_log("cannot watch the agents' port: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    for (int i = 0; i < f->na; i++) {
        if (start_launcher(job, f->a[i], i) != 0) {
            never_started(job, i);
            return -1;
        }
    }
    job->stdin_src = 0;
    return 0;
}

/* Starts the ranks of spawned job `sub` (spawn.c made their records).
 * Each command's ranks go, one by one, to the host with the fewest ranks
 * of every job for its slots (-ppn, the host's slots, else 1), the first
 * such host on a tie; then one agent per host and command starts them, as
 * a block of consecutive ranks. A host keeps its node id in every job. */
int mpx_front_spawn(mpx_job *job, int sub)
{
    struct mpx_front *f = job->front;
    const mpx_opts *o = job->opts;
    const mpx_sub *sb = &job->subs[sub];
    int *count = mpx_xmalloc(sizeof *count * (size_t)o->nhosts);
    size_t mcap = 64, mlen = (size_t)snprintf(NULL, 0, "(vector");
    char *mapping = mpx_xmalloc(mcap);
    snprintf(mapping, mcap, "(vector");
    int from = f->na, end = sb->first + sb->n;
    for (int k = sb->first; k < end;) {
        int app = job->ranks[k].appnum, np = 0;
        while (k + np < end && job->ranks[k + np].appnum == app) np++;
        memset(count, 0, sizeof *count * (size_t)o->nhosts);
        for (int i = 0; i < np; i++) {
            int best = 0;
            double best_load = 0;
            for (int h = 0; h < o->nhosts; h++) {
                int slots = o->ppn ? o->ppn : o->hosts[h].slots ? o->hosts[h].slots : 1;
                double l = (double)f->load[h] / slots;
                if (h == 0 || l < best_load) best = h, best_load = l;
            }
            count[best]++;
            f->load[best]++;
        }
        for (int h = 0; h < o->nhosts; h++) {
            if (count[h] == 0) continue;
            if (f->node_of_host[h] < 0) f->node_of_host[h] = f->nnodes++;
            agent *a = new_agent(f, o->hosts[h].name);
            a->sub = sub;
            a->first = k;
            a->rank0 = k - sb->first;
            a->count = count[h];
            k += count[h];
            char blk[48];
            int bl = snprintf(blk, sizeof blk, ",(%d,1,%d)", f->node_of_host[h], count[h]);
            if (mlen + (size_t)bl + 2 > mcap) {
                mcap = 2 * (mlen + (size_t)bl + 2);
                mapping = mpx_xrealloc(mapping, mcap);
            }
            memcpy(mapping + mlen, blk, (size_t)bl + 1);
            mlen += (size_t)bl;
        }
    }
    memcpy(mapping + mlen, ")", 2);
    free(count);
    int rc = 0;
    fflush(NULL);
    for (int i = from; i < f->na && rc == 0; i++) {
        queue_job_frame(job, f->a[i], mapping);
        if (start_launcher(job, f->a[i], i) != 0) {
            never_started(job, i);
            rc = -1;
        }
    }
    free(mapping);
    return rc;
}

/* SIGTERM/SIGKILL end the ranks (the agents escalate by themselves);
 * SIGSTOP/SIGCONT pass on. Launchers whose agent has not connected get
 * the signal themselves. */
static void signal_remote(mpx_job *job, int sig)
{
    struct mpx_front *f = job->front;
    for (int i = 0; i < f->na; i++) {
        agent *a = f->a[i];
        if (a->ended) continue;
        if (a->connected) {
            mpx_frame_begin(&a->out, MPX_M_SIG);
            mpx_frame_u32(&a->out, (uint32_t)sig);
            send_frame_end(job, a);
        } else if (sig == SIGTERM || sig == SIGKILL) {
            kill_launcher(a, sig);
        }
    }
}

const mpx_bootstrap mpx_bootstrap_remote = {
    .name = "remote",
    .launch = launch_remote,
    .signal_all = signal_remote,
};

/* ------------------------------------------------------ agent traffic */

static void agent_flush(mpx_job *job, agent *a)
{
    if (a->fd < 0) return;
    if (mpx_sock_flush(a->fd, &a->out) != 0) {
        a->out.off = a->out.len = a->out.fstart = 0; /* the read side sees the loss */
        return;
    }
    bool want = a->out.len > a->out.off;
    if (want != a->want_out) {
        a->want_out = want;
        mpx_loop_mod(a->fd, MPX_EV_AGENT, a->idx, true, want);
    }
}

static void lost(mpx_job *job, agent *a, const char *why)
{
    if (!a->done && job->phase == MPX_RUNNING) {
        mpx_log("lost the connection to the agent on host %s%s; killing the job", a->host, why);
        mpx_job_fail(job, 1);
    }
    agent_end(job, a);
}

/* The record of rank r of the agent's job, or NULL when the agent does not hold it. */
static mpx_rank *own_rank(mpx_job *job, agent *a, uint32_t r)
{
    if (r < (uint32_t)a->rank0 || r >= (uint32_t)(a->rank0 + a->count)) return NULL;
    return &job->ranks[a->first + (int)(r - (uint32_t)a->rank0)];
}

/* A universe command of one of the agent's ranks (spawn.c answers it,
 * through mpx_front_reply). 0, or -1 when malformed. */
static int universe_command(mpx_job *job, mpx_rank *rk, const char *p, size_t len)
{
    char *text = mpx_xmalloc(len + 1);
    memcpy(text, p, len);
    dmpi_pmi_msg m;
    int rc = len > 0 && len <= DMPI_PMI_MAXLINE && dmpi_pmi_parse(text, len, &m) == 0 ? 0 : -1;
    if (rc == 0 && !mpx_universe_handle(job, rk, &m)) {
        dmpi_pmi_line l;
        dmpi_pmi_line_begin(&l, m.cmd);
        dmpi_pmi_line_int(&l, "rc", -1);
        dmpi_pmi_line_str(&l, "msg", "unsupported_command");
        mpx_pmi_reply(job, rk, &l);
    }
    free(text);
    return rc;
}

void mpx_front_reply(mpx_job *job, const mpx_rank *r, const char *text, size_t len)
{
    struct mpx_front *f = job->front;
    int g = (int)(r - job->ranks);
    for (int i = 0; i < f->na; i++) {
        agent *a = f->a[i];
        if (a->ended || g < a->first || g >= a->first + a->count) continue;
        mpx_frame_begin(&a->out, MPX_M_UREPLY);
        mpx_frame_u32(&a->out, (uint32_t)r->rank);
        mpx_frame_bytes(&a->out, text, len);
        send_frame_end(job, a);
        return;
    }
}

/* 0, or -1 when the frame is malformed */
static int handle_frame(mpx_job *job, agent *a, mpx_frame *fr)
{
    struct mpx_front *f = job->front;
    switch (fr->type) {
    case MPX_M_OUT: {
        uint32_t dest = mpx_frame_get_u32(fr);
        if (fr->bad || (dest != 1 && dest != 2)) return -1;
        mpx_write_all(job, (int)dest, fr->p, fr->len);
        return 0;
    }
    case MPX_M_LOG: {
        const char *s = mpx_frame_get_str(fr);
        if (!s) return -1;
        if (job->phase == MPX_RUNNING) mpx_log("%s", s); /* after a failure: its echoes */
        return 0;
    }
    case MPX_M_PUT: { /* kept for the agents of the job, sent at its barrier's end */
        const char *k = mpx_frame_get_str(fr), *v = mpx_frame_get_str(fr);
        if (!k || !v) return -1;
        mpx_sub *sb = &job->subs[a->sub];
        mpx_kvs_put(sb->kvs, k, v);
        if (sb->nd == sb->dcap) {
            sb->dcap = sb->dcap ? 2 * sb->dcap : 64;
            sb->dkey = mpx_xrealloc(sb->dkey, sizeof *sb->dkey * (size_t)sb->dcap);
            sb->dval = mpx_xrealloc(sb->dval, sizeof *sb->dval * (size_t)sb->dcap);
        }
        sb->dkey[sb->nd] = mpx_xmalloc(strlen(k) + 1);
        strcpy(sb->dkey[sb->nd], k);
        sb->dval[sb->nd] = mpx_xmalloc(strlen(v) + 1);
        strcpy(sb->dval[sb->nd++], v);
        return 0;
    }
    case MPX_M_BIN:
    case MPX_M_GONE: {
        mpx_rank *rk = own_rank(job, a, mpx_frame_get_u32(fr));
        if (fr->bad || !rk) return -1;
        if (fr->type == MPX_M_GONE) {
            mpx_pmi_gone(job, rk);
        } else if (!rk->in_barrier) {
            rk->in_barrier = true;
            job->subs[a->sub].barrier_count++;
            mpx_pmi_check_barrier(job);
        }
        return 0;
    }
    case MPX_M_UCMD: {
        mpx_rank *rk = own_rank(job, a, mpx_frame_get_u32(fr));
        if (fr->bad || !rk) return -1;
        return universe_command(job, rk, fr->p, fr->len);
    }
    case MPX_M_FAIL: {
        uint32_t st = mpx_frame_get_u32(fr);
        if (fr->bad) return -1;
        if (job->phase == MPX_RUNNING) mpx_job_fail(job, (int)(st & 255));
        return 0;
    }
    case MPX_M_INACK: {
        uint32_t closed = mpx_frame_get_u32(fr);
        if (fr->bad) return -1;
        f->in_sent = false;
        job->inlen = job->inoff = 0;
        if (closed) mpx_stdin_close(job);
        return 0;
    }
    case MPX_M_DONE:
        a->done = true;
        return 0;
    default:
        return -1;
    }
}

static void agent_readable(mpx_job *job, agent *a)
{
    while (a->fd >= 0) {
        int n = mpx_sock_read(a->fd, &a->in);
        if (n == -2) return;
        if (n <= 0) {
            lost(job, a, n == 0 ? "" : " (read error)");
            return;
        }
        mpx_frame fr;
        size_t size;
        int got = 0;
        while (a->fd >= 0 && (got = mpx_frame_next(&a->in, &fr, &size)) == 1) {
            if (handle_frame(job, a, &fr) != 0) {
                lost(job, a, ": it sent a malformed message");
                return;
            }
            mpx_buf_consume(&a->in, size);
        }
        if (a->fd >= 0 && got < 0) {
            lost(job, a, ": it sent an over-long message");
            return;
        }
    }
}

/* ------------------------------------------------ admitting the agents */

static void pending_close(pending *p)
{
    mpx_loop_del(p->fd);
    close(p->fd);
    p->fd = -1;
}

static void accept_agents(mpx_job *job)
{
    struct mpx_front *f = job->front;
    for (;;) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept4(f->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return; /* EAGAIN, or an error: the next event retries */
        int slot = -1;
        for (int i = 0; i < MAX_PENDING && slot < 0; i++)
            if (f->pend[i].fd < 0) slot = i;
        if (slot < 0 || mpx_loop_add(fd, MPX_EV_PENDING, slot, true, false) != 0) {
            close(fd);
            continue;
        }
        pending *p = &f->pend[slot];
        p->fd = fd;
        p->len = 0;
        if (!inet_ntop(AF_INET, &sa.sin_addr, p->peer, sizeof p->peer)) snprintf(p->peer, sizeof p->peer, "?");
        size_t pl = strlen(p->peer);
        snprintf(p->peer + pl, sizeof p->peer - pl, ":%d", ntohs(sa.sin_port));
    }
}

static bool key_matches(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned diff = la != lb;
    for (size_t i = 0; i < la && i < lb; i++) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static void pending_readable(mpx_job *job, pending *p)
{
    struct mpx_front *f = job->front;
    ssize_t n = read(p->fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n > 0) p->len += (size_t)n;
    char *nl = memchr(p->buf, '\n', p->len);
    if (nl == NULL && n > 0 && p->len < sizeof p->buf - 1) return; /* more to come */
    char key[MPX_HELLO_MAX] = "";
    int idx = -1;
    if (nl) {
        *nl = '\0';
        char word[16];
        if (sscanf(p->buf, "%15s %255s %d", word, key, &idx) != 3 || strcmp(word, "dmpi-agent") != 0) key[0] = '\0';
    }
    if (!key_matches(key, f->key)) {
        mpx_log("agent connection with a wrong key from %s refused", p->peer);
        pending_close(p);
        return;
    }
    if (idx < 0 || idx >= f->na || f->a[idx]->connected || f->a[idx]->ended || job->phase != MPX_RUNNING) {
        if (idx < 0 || idx >= f->na || f->a[idx]->connected)
            mpx_log("agent connection from %s for host index %d refused (unknown or already connected)", p->peer, idx);
        pending_close(p);
        return;
    }
    agent *a = f->a[idx];
    mpx_loop_del(p->fd);
    a->fd = p->fd;
    p->fd = -1;
    a->connected = true;
    size_t rest = p->len - (size_t)(nl + 1 - p->buf);
    mpx_buf_put(&a->in, nl + 1, rest);
    a->in.fstart = a->in.len;
    flush_errbuf(job, a);
    mpx_loop_add(a->fd, MPX_EV_AGENT, idx, true, false);
    agent_flush(job, a);
    if (rest) agent_readable(job, a);
}

void mpx_front_event(mpx_job *job, int kind, int idx, unsigned events)
{
    struct mpx_front *f = job->front;
    if (kind == MPX_EV_LISTEN) {
        accept_agents(job);
    } else if (kind == MPX_EV_PENDING) {
        if (f->pend[idx].fd >= 0) pending_readable(job, &f->pend[idx]);
    } else if (kind == MPX_EV_LAUNCHER) {
        read_launcher(job, f->a[idx]);
    } else if (kind == MPX_EV_AGENT) {
        agent *a = f->a[idx];
        if (a->fd >= 0 && (events & EPOLLOUT)) agent_flush(job, a);
        if (a->fd >= 0 && (events & ~EPOLLOUT)) agent_readable(job, a);
    }
}

/* ------------------------------------------------- barriers and stdin */

void mpx_front_barrier_out(mpx_job *job, int sub, int rc)
{
    struct mpx_front *f = job->front;
    mpx_sub *sb = &job->subs[sub];
    for (int i = 0; i < f->na; i++) {
        agent *a = f->a[i];
        if (a->ended || a->sub != sub) continue;
        for (int k = 0; k < sb->nd && rc == 0; k++) {
            mpx_frame_begin(&a->out, MPX_M_KV);
            mpx_frame_str(&a->out, sb->dkey[k]);
            mpx_frame_str(&a->out, sb->dval[k]);
            mpx_frame_end(&a->out);
        }
        mpx_frame_begin(&a->out, MPX_M_BOUT);
        mpx_frame_u32(&a->out, rc == 0 ? 0 : 1);
        send_frame_end(job, a);
    }
    for (int k = 0; k < sb->nd; k++) {
        free(sb->dkey[k]);
        free(sb->dval[k]);
    }
    sb->nd = 0;
}

void mpx_front_stdin(mpx_job *job)
{
    struct mpx_front *f = job->front;
    agent *a = f->a[0]; /* rank 0's */
    if (a->ended) {
        mpx_stdin_close(job);
        return;
    }
    if (job->inlen > job->inoff && !f->in_sent) {
        mpx_frame_begin(&a->out, MPX_M_IN);
        mpx_frame_bytes(&a->out, job->inbuf + job->inoff, job->inlen - job->inoff);
        send_frame_end(job, a);
        f->in_sent = true; /* inlen stays set until the ack: no more reads */
    } else if (job->stdin_eof && job->inlen == 0) {
        mpx_frame_begin(&a->out, MPX_M_INEOF);
        send_frame_end(job, a);
        job->stdin_eof = false;
    }
}

/* ---------------------------------------------- reaping and timers */

void mpx_front_reap(mpx_job *job)
{
    struct mpx_front *f = job->front;
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0 && errno == EINTR) continue;
        if (pid <= 0) return;
        for (int i = 0; i < f->na; i++) {
            agent *a = f->a[i];
            if (a->pid != pid || a->reaped) continue;
            a->reaped = true;
            a->wstatus = st;
            if (a->connected || a->ended) break;
            if (job->phase == MPX_RUNNING) {
                char why[160];
                if (WIFSIGNALED(st))
                    snprintf(why, sizeof why, "the launcher '%s' was killed by signal %d (%s)", f->lcmd[0],
                             WTERMSIG(st), mpx_signame(WTERMSIG(st)));
                else
                    snprintf(why, sizeof why, "the launcher '%s' exited with code %d before the agent connected",
                             f->lcmd[0], WEXITSTATUS(st));
                report_start_failure(job, a, why);
                mpx_job_fail(job, 1);
            }
            agent_end(job, a);
            break;
        }
    }
}

void mpx_front_timers(mpx_job *job, double now)
{
    struct mpx_front *f = job->front;
    double limit = job->opts->agent_timeout;
    for (int i = 0; i < f->na; i++) {
        agent *a = f->a[i];
        if (a->connected || a->ended || a->pid == 0 || now - a->start < limit) continue;
        if (job->phase == MPX_RUNNING) {
            char why[96];
            snprintf(why, sizeof why, "the agent did not connect within %g s", limit);
            report_start_failure(job, a, why);
            mpx_job_fail(job, 1);
        }
        kill_launcher(a, SIGKILL);
        agent_end(job, a);
    }
    if (job->phase != MPX_RUNNING && now - job->term_time >= MPX_AGENT_GRACE) {
        for (int i = 0; i < f->na; i++) {
            agent *a = f->a[i];
            if (a->ended) continue;
            mpx_log("the agent on host %s did not finish %g s after the job was killed; giving up on it",
                    a->host, MPX_AGENT_GRACE);
            kill_launcher(a, SIGKILL);
            agent_end(job, a);
        }
    }
}

double mpx_front_next_timer(mpx_job *job, double now)
{
    struct mpx_front *f = job->front;
    double t = -1;
    for (int i = 0; i < f->na; i++) {
        if (f->a[i]->connected || f->a[i]->ended || f->a[i]->pid == 0) continue;
        double d = f->a[i]->start + job->opts->agent_timeout - now;
        if (d < 0) d = 0;
        if (t < 0 || d < t) t = d;
    }
    if (job->phase != MPX_RUNNING && job->live > 0) {
        double d = job->term_time + MPX_AGENT_GRACE - now;
        if (d < 0) d = 0;
        if (t < 0 || d < t) t = d;
    }
    return t;
}

bool mpx_front_done(mpx_job *job, double now)
{
    (void)now;
    return job->live == 0;
}

/* After the loop: the launchers' last messages, then wait briefly for
 * them to exit (ssh ends when its agent does) and kill any that stay. */
void mpx_front_finish(mpx_job *job)
{
    struct mpx_front *f = job->front;
    if (f == NULL) return;
    for (int i = 0; i < MAX_PENDING; i++)
        if (f->pend[i].fd >= 0) pending_close(&f->pend[i]);
    double t0 = mpx_now();
    for (int i = 0; i < f->na; i++) {
        agent *a = f->a[i];
        agent_close(job, a);
        while (a->pid > 0 && !a->reaped) {
            int st;
            pid_t p = waitpid(a->pid, &st, WNOHANG);
            if (p == a->pid || (p < 0 && errno != EINTR)) {
                a->reaped = true;
                break;
            }
            if (mpx_now() - t0 > 1.0) {
                kill_launcher(a, SIGKILL);
                while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR) {}
                a->reaped = true;
                break;
            }
            usleep(10000);
        }
        if (a->errfd >= 0) {
            if (a->connected) read_launcher(job, a);
            if (a->errfd >= 0) {
                mpx_loop_del(a->errfd);
                close(a->errfd);
            }
            a->errfd = -1;
        }
    }
    free_front(f);
    job->front = NULL;
}
