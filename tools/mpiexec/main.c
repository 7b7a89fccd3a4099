/* mpiexec: starts an MPI job on this node and serves it until every rank
 * is gone. This file holds main(), the signal set-up (a self-pipe wakes the
 * poll loop for SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGTSTP) and the single
 * poll() loop that drives PMI service, output forwarding and job control. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

enum { K_SIG, K_STDIN, K_STDIN_DST, K_PMI, K_OUT };

static void event_loop(mpx_job *job)
{
    size_t cap = 3 + 4 * (size_t)job->n;
    struct pollfd *pfd = mpx_xmalloc(cap * sizeof *pfd);
    struct { int kind, idx; } *map = mpx_xmalloc(cap * sizeof *map);
    for (;;) {
        handle_signals(job);
        double now = mpx_now();
        mpx_job_timers(job, now);
        if (mpx_job_done(job, now)) break;

        size_t np = 0;
#define ADD(fd_, ev_, kind_, idx_) do { pfd[np].fd = (fd_); pfd[np].events = (ev_); pfd[np].revents = 0; \
        map[np].kind = (kind_); map[np].idx = (idx_); np++; } while (0)
        ADD(sigpipe_fd[0], POLLIN, K_SIG, 0);
        if (job->stdin_src >= 0 && job->inlen == 0) ADD(job->stdin_src, POLLIN, K_STDIN, 0);
        if (job->stdin_dst >= 0 && job->inlen > job->inoff) ADD(job->stdin_dst, POLLOUT, K_STDIN_DST, 0);
        for (int i = 0; i < job->n; i++) {
            mpx_rank *r = &job->ranks[i];
            if (r->pmi_fd >= 0) ADD(r->pmi_fd, POLLIN | (r->olen > r->ooff ? POLLOUT : 0), K_PMI, i);
            if (r->out[0].fd >= 0) ADD(r->out[0].fd, POLLIN, K_OUT, 2 * i);
            if (r->out[1].fd >= 0) ADD(r->out[1].fd, POLLIN, K_OUT, 2 * i + 1);
        }
#undef ADD
        double t = mpx_job_next_timer(job, now);
        int timeout = t < 0 ? -1 : (int)(t * 1000.0) + 1;
        int rc = poll(pfd, (nfds_t)np, timeout);
        if (rc < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            mpx_log("poll: %s", strerror(errno));
            mpx_job_fail(job, 1);
            continue;
        }
        for (size_t k = 0; k < np && rc > 0; k++) {
            short re = pfd[k].revents;
            if (re == 0) continue;
            switch (map[k].kind) {
            case K_SIG: {
                char buf[256];
                while (read(sigpipe_fd[0], buf, sizeof buf) > 0) {}
                mpx_job_reap(job);
                break;
            }
            case K_STDIN:
                mpx_stdin_readable(job);
                break;
            case K_STDIN_DST:
                mpx_stdin_writable(job);
                break;
            case K_PMI: {
                mpx_rank *r = &job->ranks[map[k].idx];
                if (r->pmi_fd != pfd[k].fd) break; /* closed meanwhile */
                if (re & POLLOUT) mpx_pmi_writable(job, r);
                if (re & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) mpx_pmi_readable(job, r);
                break;
            }
            case K_OUT: {
                mpx_rank *r = &job->ranks[map[k].idx / 2];
                mpx_stream *s = &r->out[map[k].idx % 2];
                if (s->fd == pfd[k].fd) mpx_stream_readable(job, r, s);
                break;
            }
            }
        }
    }
    free(pfd);
    free(map);
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    mpx_opts opts;
    int rc = mpx_parse_options(argc, argv, &opts);
    if (rc < 0) return 0;
    if (rc > 0) return rc;

    mpx_job job;
    memset(&job, 0, sizeof job);
    job.opts = &opts;
    job.boot = &mpx_bootstrap_local;
    job.n = opts.np;
    job.stdin_src = job.stdin_dst = -1;
    job.ranks = calloc((size_t)job.n, sizeof *job.ranks);
    if (job.ranks == NULL) {
        mpx_log("out of memory");
        return 1;
    }
    for (int i = 0; i < job.n; i++) {
        job.ranks[i].rank = i;
        job.ranks[i].pmi_fd = job.ranks[i].out[0].fd = job.ranks[i].out[1].fd = -1;
    }
    mpx_random_hex(job.jobid, 16);

    if (raise_fd_limit(job.n) != 0) return 1;
    if (setup_signals() != 0) {
        mpx_log("cannot set up signal handling: %s", strerror(errno));
        return 1;
    }
    mpx_pmi_setup(&job);

    if (job.boot->launch(&job) != 0) {
        for (int i = 0; i < job.n; i++) {
            if (job.ranks[i].pid == 0) {
                job.ranks[i].reaped = true;
                mpx_pmi_gone(&job, &job.ranks[i]);
            }
        }
        mpx_job_fail(&job, 1);
    }
    if (job.live == 0) job.drain_start = mpx_now();
    if (opts.timeout > 0) job.deadline = mpx_now() + opts.timeout;

    event_loop(&job);

    for (int i = 0; i < job.n; i++) {
        mpx_rank *r = &job.ranks[i];
        for (int k = 0; k < 2; k++)
            if (r->out[k].fd >= 0 || r->out[k].len > 0) mpx_stream_finish(&job, r, &r->out[k]);
        if (r->pmi_fd >= 0) close(r->pmi_fd);
        free(r->rd);
        free(r->obuf);
    }
    mpx_stdin_close(&job);
    mpx_job_cleanup_shm(job.jobid);
    mpx_kvs_free(job.kvs);
    free(job.ranks);
    return job.failed ? job.exit_status : 0;
}
