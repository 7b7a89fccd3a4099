/* mpiexec job control: notices failing ranks (signal, nonzero exit,
 * MPI_Abort, exit or PMI hang-up after MPI_Init without MPI_Finalize),
 * reports the first one, kills the rest (SIGTERM, then SIGKILL after
 * MPX_TERM_GRACE), reaps every rank, and removes the job's /dev/shm files. */
#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void mpx_job_kill(mpx_job *job)
{
    if (job->phase != MPX_RUNNING) return;
    job->phase = MPX_KILLING;
    job->term_time = mpx_now();
    job->boot->signal_all(job, SIGTERM);
}

void mpx_job_fail(mpx_job *job, int status)
{
    if (!job->failed) {
        job->failed = true;
        job->exit_status = status;
        if (job->mode == MPX_MODE_AGENT) mpx_agent_fail(job, status); /* mpiexec ends the job */
    }
    mpx_job_kill(job);
}

/* An abort is often a consequence: a rank whose peer was killed fails to
 * reach it and aborts, sometimes before the peer's exit can be reaped
 * (its memory is torn down before it becomes a zombie). So an abort is
 * reported only after MPX_ABORT_GRACE, and a death of another rank in the
 * meantime is reported instead -- the cause, not the symptom. */
void mpx_job_abort(mpx_job *job, int status, const char *logline)
{
    if (job->phase != MPX_RUNNING || job->abort_pending) return; /* one is reported already */
    job->abort_pending = true;
    job->abort_status = status;
    job->abort_time = mpx_now();
    snprintf(job->abort_log, sizeof job->abort_log, "%s", logline);
}

void mpx_rank_hup(mpx_job *job, mpx_rank *r)
{
    if (r->reaped || r->finalized || !r->pmi_init || r->pmi_hup || r->aborted) return;
    /* usually the rank is dying and its exit status arrives in a moment */
    r->pmi_hup = true;
    r->hup_time = mpx_now();
    job->hup_pending++;
}

/* A rank has exited: serve its last PMI commands, flush its output, then
 * judge how it ended. */
static void rank_exited(mpx_job *job, mpx_rank *r, int st)
{
    r->reaped = true;
    r->wstatus = st;
    job->live--;
    if (r->pmi_hup) job->hup_pending--;
    if (r->pmi_fd >= 0) mpx_pmi_readable(job, r); /* e.g. an abort sent just before exit */
    if (r->pmi_fd >= 0) mpx_pmi_close(job, r);
    mpx_pmi_gone(job, r);
    mpx_stream_drain(job, r);
    if (r->rank == 0 && r->sub == 0) mpx_stdin_close(job);
    if (job->live == 0) job->drain_start = mpx_now();
    if (job->phase != MPX_RUNNING) return; /* killed by us, or a failure is already reported */
    if (r->aborted) return; /* its MPI_Abort is reported (mpx_job_abort) */

    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        mpx_log("%s (pid %d) killed by signal %d (%s)", mpx_rank_label(r), (int)r->pid, sig, mpx_signame(sig));
        mpx_job_fail(job, 128 + sig);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        mpx_log("%s (pid %d) exited with code %d", mpx_rank_label(r), (int)r->pid, WEXITSTATUS(st));
        mpx_job_fail(job, WEXITSTATUS(st));
    } else if (r->pmi_init && !r->finalized) {
        mpx_log("%s (pid %d) exited without calling MPI_Finalize", mpx_rank_label(r), (int)r->pid);
        mpx_job_fail(job, 1);
    }
}

void mpx_job_reap(mpx_job *job)
{
    if (job->mode == MPX_MODE_FRONT) {
        mpx_front_reap(job);
        return;
    }
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0 && errno == EINTR) continue;
        if (pid <= 0) return; /* none ready, or no children left */
        for (int i = 0; i < job->n; i++) {
            mpx_rank *r = &job->ranks[i];
            if (r->pid == pid && !r->reaped) {
                rank_exited(job, r, st);
                break;
            }
        }
    }
}

void mpx_job_reap_others(mpx_job *job, const mpx_rank *skip)
{
    for (int i = 0; i < job->n; i++) {
        mpx_rank *q = &job->ranks[i];
        if (q == skip || q->reaped || q->pid <= 0) continue;
        int st;
        pid_t p;
        do {
            p = waitpid(q->pid, &st, WNOHANG);
        } while (p < 0 && errno == EINTR);
        if (p == q->pid) rank_exited(job, q, st);
    }
}

void mpx_job_timers(mpx_job *job, double now)
{
    if (job->mode == MPX_MODE_FRONT) mpx_front_timers(job, now);
    if (job->abort_pending &&
        (job->phase != MPX_RUNNING || job->live == 0 || now - job->abort_time >= MPX_ABORT_GRACE)) {
        job->abort_pending = false;
        if (job->phase == MPX_RUNNING) {
            mpx_log("%s", job->abort_log);
            mpx_job_fail(job, job->abort_status);
        }
    }
    if (job->phase == MPX_RUNNING && job->deadline > 0 && now >= job->deadline) {
        job->deadline = 0;
        mpx_log("job timed out after %g seconds; killing it", job->opts->timeout);
        mpx_job_fail(job, MPX_EXIT_TIMEOUT);
    }
    if (job->hup_pending > 0) {
        for (int i = 0; i < job->n; i++) {
            mpx_rank *r = &job->ranks[i];
            if (!r->pmi_hup || r->reaped || now - r->hup_time < MPX_EOF_GRACE) continue;
            r->pmi_hup = false;
            job->hup_pending--;
            if (job->phase == MPX_RUNNING) {
                mpx_log("%s (pid %d) closed its PMI connection without calling MPI_Finalize",
                        mpx_rank_label(r), (int)r->pid);
                mpx_job_fail(job, 1);
            }
        }
    }
    if (job->phase == MPX_KILLING && !job->sigkill_sent && job->live > 0 &&
        now - job->term_time >= MPX_TERM_GRACE) {
        job->boot->signal_all(job, SIGKILL);
        job->sigkill_sent = true;
        job->kill_time = now;
    }
}

double mpx_job_next_timer(mpx_job *job, double now)
{
    double t = job->mode == MPX_MODE_FRONT ? mpx_front_next_timer(job, now) : -1;
#define CONSIDER(when) do { double d_ = (when) - now; if (d_ < 0) d_ = 0; if (t < 0 || d_ < t) t = d_; } while (0)
    if (job->phase == MPX_RUNNING && job->deadline > 0) CONSIDER(job->deadline);
    if (job->abort_pending) CONSIDER(job->abort_time + MPX_ABORT_GRACE);
    if (job->hup_pending > 0)
        for (int i = 0; i < job->n; i++)
            if (job->ranks[i].pmi_hup && !job->ranks[i].reaped) CONSIDER(job->ranks[i].hup_time + MPX_EOF_GRACE);
    if (job->phase == MPX_KILLING && !job->sigkill_sent && job->live > 0) CONSIDER(job->term_time + MPX_TERM_GRACE);
    if (job->sigkill_sent && job->live > 0) CONSIDER(job->kill_time + MPX_REAP_GRACE);
    if (job->live == 0) CONSIDER(job->drain_start + MPX_DRAIN_GRACE);
#undef CONSIDER
    return t;
}

bool mpx_job_done(mpx_job *job, double now)
{
    if (job->mode == MPX_MODE_FRONT) return mpx_front_done(job, now);
    if (job->live > 0) {
        if (!job->sigkill_sent || now - job->kill_time < MPX_REAP_GRACE) return false;
        mpx_log("%d rank(s) did not exit %g s after SIGKILL; giving up on them", job->live, MPX_REAP_GRACE);
        return true;
    }
    if (now - job->drain_start >= MPX_DRAIN_GRACE) return true; /* a descendant holds a pipe */
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].out[0].fd >= 0 || job->ranks[i].out[1].fd >= 0) return false;
    return true;
}

/* Removes /dev/shm/dmpi-<jobid>* (the core's segments) and the matching
 * named semaphores (sem.dmpi-<jobid>*). */
void mpx_job_cleanup_shm(const char *jobid)
{
    char pre[64], sem[72];
    if (jobid == NULL || jobid[0] == '\0') return;
    int n1 = snprintf(pre, sizeof pre, "dmpi-%s", jobid);
    int n2 = snprintf(sem, sizeof sem, "sem.dmpi-%s", jobid);
    int dfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    DIR *d = fdopendir(dfd);
    if (d == NULL) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, pre, (size_t)n1) == 0 || strncmp(e->d_name, sem, (size_t)n2) == 0) {
            if (unlinkat(dfd, e->d_name, 0) != 0 && errno != ENOENT)
                mpx_log("cannot remove /dev/shm/%s: %s", e->d_name, strerror(errno));
        }
    }
    closedir(d);
}
