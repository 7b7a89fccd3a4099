/* mpiexec: starts an MPI job on this node (or, with hosts, one agent per
 * host: front.c, agent.c) and serves it until every rank is gone. This file
 * holds main(), the signal set-up (a self-pipe wakes the
 * loop for SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGTSTP) and the single epoll
 * loop that drives PMI service, output forwarding and job control (epoll,
 * not poll: the cost of an event must not grow with the number of ranks). */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

volatile sig_atomic_t mpx_pending_signal;
static volatile sig_atomic_t stop_requested;
static int sigpipe_fd[2] = {-1, -1};

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGTTIN, SIGTSTP};
#define NHANDLED (sizeof handled / sizeof handled[0])
static struct sigaction saved_act[NHANDLED];
static sigset_t saved_mask;
static struct rlimit saved_nofile;
static bool nofile_changed;

static void on_signal(int sig)
{
    int e = errno;
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) mpx_pending_signal = sig;
    else if (sig == SIGTSTP) stop_requested = 1;
    char c = (char)sig;
    ssize_t w = write(sigpipe_fd[1], &c, 1); /* full pipe: a wake-up is pending anyway */
    (void)w;
    errno = e;
}

static int setup_signals(void)
{
    if (pipe2(sigpipe_fd, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    sigprocmask(SIG_SETMASK, NULL, &saved_mask);
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        int s = handled[i];
        if (s == SIGPIPE || s == SIGTTIN) {
            sa.sa_handler = SIG_IGN; /* EPIPE / EIO instead */
        } else {
            sa.sa_handler = on_signal;
            /* no SA_RESTART for the terminating ones: a write blocked on a
             * stuck stdout must give way to them */
            if (s == SIGCHLD) sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
            if (s == SIGTSTP) sa.sa_flags = SA_RESTART;
        }
        if (sigaction(s, &sa, &saved_act[i]) != 0) return -1;
    }
    sigset_t unblock;
    sigemptyset(&unblock);
    for (size_t i = 0; i < NHANDLED; i++) sigaddset(&unblock, handled[i]);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
    return 0;
}

void mpx_child_restore(void)
{
    for (size_t i = 0; i < NHANDLED; i++) {
        if (handled[i] == SIGCHLD) signal(SIGCHLD, SIG_DFL);
        else sigaction(handled[i], &saved_act[i], NULL);
    }
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    if (nofile_changed) setrlimit(RLIMIT_NOFILE, &saved_nofile);
}

/* Keeps fds 0-2 open so that no pipe or socket of ours lands on them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) close(n);
        }
    }
}

static int raise_fd_limit(int n)
{
    rlim_t need = (rlim_t)n * 3 + 64;
    if (getrlimit(RLIMIT_NOFILE, &saved_nofile) != 0) return 0;
    if (saved_nofile.rlim_cur == RLIM_INFINITY || saved_nofile.rlim_cur >= need) return 0;
    if (saved_nofile.rlim_max != RLIM_INFINITY && saved_nofile.rlim_max < need) {
        mpx_log("%d processes need %lu open files, but the limit is %lu (ulimit -n)", n,
                (unsigned long)need, (unsigned long)saved_nofile.rlim_max);
        return -1;
    }
    struct rlimit nl = saved_nofile;
    nl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &nl) != 0) {
        mpx_log("cannot raise the open-file limit to %lu: %s", (unsigned long)need, strerror(errno));
        return -1;
    }
    nofile_changed = true;
    return 0;
}

static void handle_signals(mpx_job *job)
{
    int sig = mpx_pending_signal;
    if (sig) {
        mpx_pending_signal = 0;
        if (job->phase == MPX_RUNNING) {
            mpx_log("received %s; killing the job", mpx_signame(sig));
            mpx_job_fail(job, 128 + sig);
        } else if (!job->sigkill_sent && job->live > 0) { /* asked twice: no more grace */
            job->boot->signal_all(job, SIGKILL);
            job->sigkill_sent = true;
            job->kill_time = mpx_now();
        }
    }
    if (stop_requested) { /* Ctrl-Z: stop the ranks with us, resume them with us */
        stop_requested = 0;
        job->boot->signal_all(job, SIGSTOP);
        raise(SIGSTOP);
        job->boot->signal_all(job, SIGCONT);
    }
}

/* ---------------------------------------------------------- watch list */

static int epfd = -1;

static int loop_ctl(int op, int fd, int kind, int idx, bool in, bool out)
{
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = (in ? EPOLLIN : 0) | (out ? EPOLLOUT : 0);
    ev.data.u64 = (uint64_t)(uint32_t)kind << 32 | (uint32_t)idx;
    return epoll_ctl(epfd, op, fd, &ev);
}

int mpx_loop_add(int fd, int kind, int idx, bool in, bool out)
{
    return loop_ctl(EPOLL_CTL_ADD, fd, kind, idx, in, out);
}

int mpx_loop_mod(int fd, int kind, int idx, bool in, bool out)
{
    return loop_ctl(EPOLL_CTL_MOD, fd, kind, idx, in, out);
}

void mpx_loop_del(int fd)
{
    struct epoll_event ev;
    (void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &ev);
}

/* stdin forwarding state in the watch list: fd 0 is watched only while the
 * buffer is empty, rank 0's pipe only while it is not. A regular file (or
 * /dev/null) cannot be watched: it is always readable, so it is read
 * directly ("unwatchable"). */
static struct {
    int src, dst;       /* fds currently registered, -1 none */
    bool src_on, dst_on;
    bool src_unwatchable;
} st_in = {-1, -1, false, false, false};

static void sync_stdin(mpx_job *job)
{
    bool want_src = job->stdin_src >= 0 && job->inlen == 0;
    if (job->stdin_src < 0 && st_in.src >= 0) {
        mpx_loop_del(st_in.src);
        st_in.src = -1;
        st_in.src_on = false;
    } else if (job->stdin_src >= 0 && st_in.src < 0 && !st_in.src_unwatchable) {
        if (mpx_loop_add(job->stdin_src, MPX_EV_STDIN, 0, want_src, false) == 0) {
            st_in.src = job->stdin_src;
            st_in.src_on = want_src;
        } else {
            st_in.src_unwatchable = true;
        }
    } else if (st_in.src >= 0 && st_in.src_on != want_src) {
        mpx_loop_mod(st_in.src, MPX_EV_STDIN, 0, want_src, false);
        st_in.src_on = want_src;
    }
    bool want_dst = job->stdin_dst >= 0 && job->inlen > job->inoff;
    if (job->stdin_dst != st_in.dst) { /* closed (and so unwatched) or new */
        st_in.dst = job->stdin_dst;
        st_in.dst_on = false;
        if (st_in.dst >= 0) mpx_loop_add(st_in.dst, MPX_EV_STDIN_DST, 0, false, false);
    }
    if (st_in.dst >= 0 && st_in.dst_on != want_dst) {
        mpx_loop_mod(st_in.dst, MPX_EV_STDIN_DST, 0, false, want_dst);
        st_in.dst_on = want_dst;
    }
}

/* ---------------------------------------------------------- event loop */

static void dispatch(mpx_job *job, uint32_t events, uint64_t data)
{
    int kind = (int)(data >> 32), idx = (int)(uint32_t)data;
    switch (kind) {
    case MPX_EV_SIG: {
        char buf[256];
        while (read(sigpipe_fd[0], buf, sizeof buf) > 0) {}
        mpx_job_reap(job);
        break;
    }
    case MPX_EV_STDIN:
        mpx_stdin_readable(job);
        break;
    case MPX_EV_STDIN_DST:
        mpx_stdin_writable(job);
        break;
    case MPX_EV_PMI: {
        mpx_rank *r = &job->ranks[idx];
        if (r->pmi_fd < 0) break; /* closed meanwhile */
        if (events & EPOLLOUT) mpx_pmi_writable(job, r);
        if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) mpx_pmi_readable(job, r);
        break;
    }
    case MPX_EV_OUT: {
        mpx_rank *r = &job->ranks[idx / 2];
        mpx_stream *s = &r->out[idx % 2];
        if (s->fd >= 0) mpx_stream_readable(job, r, s);
        break;
    }
    case MPX_EV_LISTEN:
    case MPX_EV_AGENT:
    case MPX_EV_PENDING:
    case MPX_EV_LAUNCHER:
        mpx_front_event(job, kind, idx, events);
        break;
    case MPX_EV_UPLINK:
        mpx_agent_event(job, events);
        break;
    }
}

static void event_loop(mpx_job *job)
{
    struct epoll_event evs[256];
    for (;;) {
        handle_signals(job);
        if (job->mode == MPX_MODE_AGENT) mpx_agent_tick(job);
        double now = mpx_now();
        mpx_job_timers(job, now);
        if (mpx_job_done(job, now)) break;
        sync_stdin(job);
        bool read_stdin_now = st_in.src_unwatchable && job->stdin_src >= 0 && job->inlen == 0;

        double t = mpx_job_next_timer(job, now);
        int timeout = read_stdin_now ? 0 : t < 0 ? -1 : (int)(t * 1000.0) + 1;
        int n = epoll_wait(epfd, evs, (int)(sizeof evs / sizeof evs[0]), timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            mpx_log("epoll_wait: %s", strerror(errno));
            mpx_job_fail(job, 1);
            continue;
        }
        for (int k = 0; k < n; k++) dispatch(job, evs[k].events, evs[k].data.u64);
        if (read_stdin_now) mpx_stdin_readable(job);
    }
}

int mpx_main_loop(mpx_job *job)
{
    if (raise_fd_limit(job->n) != 0) return 1;
    if (setup_signals() != 0) {
        mpx_log("cannot set up signal handling: %s", strerror(errno));
        return 1;
    }
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0 || mpx_loop_add(sigpipe_fd[0], MPX_EV_SIG, 0, true, false) != 0) {
        mpx_log("cannot set up the event loop: %s", strerror(errno));
        return 1;
    }
    mpx_pmi_setup(job);

    if (job->boot->launch(job) != 0) {
        for (int i = 0; i < job->n && job->mode != MPX_MODE_FRONT; i++) {
            if (job->ranks[i].pid == 0) {
                job->ranks[i].reaped = true;
                mpx_pmi_gone(job, &job->ranks[i]);
            }
        }
        mpx_job_fail(job, 1);
    }
    if (job->live == 0) job->drain_start = mpx_now();
    if (job->opts->timeout > 0) job->deadline = mpx_now() + job->opts->timeout;

    event_loop(job);

    for (int i = 0; i < job->n; i++) {
        mpx_rank *r = &job->ranks[i];
        for (int k = 0; k < 2; k++)
            if (r->out[k].fd >= 0 || r->out[k].len > 0) mpx_stream_finish(job, r, &r->out[k]);
        if (r->pmi_fd >= 0) close(r->pmi_fd);
        free(r->rd);
        free(r->obuf);
        r->rd = NULL;
        r->obuf = NULL;
    }
    mpx_stdin_close(job);
    if (job->mode == MPX_MODE_FRONT) mpx_front_finish(job);
    mpx_job_cleanup_shm(job->jobid);
    mpx_kvs_free(job->kvs);
    job->kvs = NULL;
    free(job->inbuf);
    job->inbuf = NULL;
    close(epfd);
    epfd = -1;
    return job->failed ? job->exit_status : 0;
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    if (argc > 1 && strcmp(argv[1], "--agent") == 0) return mpx_agent_main(argc, argv);
    mpx_opts opts;
    int rc = mpx_parse_options(argc, argv, &opts);
    if (rc != 0) {
        mpx_free_options(&opts);
        return rc < 0 ? 0 : rc;
    }

    mpx_job job;
    memset(&job, 0, sizeof job);
    job.opts = &opts;
    job.mode = opts.nhosts > 0 ? MPX_MODE_FRONT : MPX_MODE_LOCAL;
    job.boot = job.mode == MPX_MODE_FRONT ? &mpx_bootstrap_remote : &mpx_bootstrap_local;
    job.n = job.size = opts.np;
    job.stdin_src = job.stdin_dst = -1;
    /* The universe has room for spawned processes (spawn.c): -usize, else
     * DMPI_UNIVERSE_SIZE, else np + 1024 (the MPI_UNIVERSE_SIZE attribute
     * is np then: pmi_server.c). */
    job.cap = opts.usize ? opts.usize : job.n + 1024;
    if (job.cap < job.n) job.cap = job.n;
    if (job.cap > MPX_MAX_PROCS) job.cap = job.n > MPX_MAX_PROCS ? job.n : MPX_MAX_PROCS;
    job.ranks = calloc((size_t)job.cap, sizeof *job.ranks);
    if (job.ranks == NULL) {
        mpx_log("out of memory");
        return 1;
    }
    for (int i = 0; i < job.n; i++) {
        job.ranks[i].rank = i;
        job.ranks[i].pmi_fd = job.ranks[i].out[0].fd = job.ranks[i].out[1].fd = -1;
    }
    mpx_random_hex(job.jobid, 16);

    rc = job.mode == MPX_MODE_FRONT ? mpx_front_init(&job) : 0;
    if (rc == 0) rc = mpx_main_loop(&job);
    mpx_universe_free(&job);
    free(job.ranks);
    free(job.mapping);
    mpx_free_options(&opts);
    return rc;
}
