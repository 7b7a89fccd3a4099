/* The local bootstrap: forks and execs every rank on this node. Each rank
 * gets pipes for stdout/stderr, a socketpair for PMI (PMI_FD), stdin from
 * mpiexec (rank 0) or /dev/null, one process group for the whole job, and
 * PR_SET_PDEATHSIG so it dies with mpiexec. On many hosts each agent
 * (agent.c) runs this same code for its host's ranks. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void setenv_int(const char *name, int v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", v);
    setenv(name, buf, 1);
}

/* Preloads the library name, found next to this mpiexec (<bin>/../lib in
 * an install, <bin>/.. in a build tree), into the rank: libdmpi_malloc.so
 * with DMPI_SHM_MALLOC (default on), so that large malloc blocks of the
 * ranks come from the shared heap; libdmpi_profile.so with DMPI_PROFILE
 * set and not 0 (mpiexec --profile). */
static void preload(const char *name)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = 0;
    static const char *const where[] = {"/../lib/", "/../"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        char lib[4200];
        snprintf(lib, sizeof lib, "%s%s%s", exe, where[i], name);
        char *real = realpath(lib, NULL);
        if (!real) continue;
        const char *old = getenv("LD_PRELOAD");
        char *val = malloc(strlen(real) + (old ? strlen(old) : 0) + 2);
        if (val) {
            sprintf(val, old && *old ? "%s:%s" : "%s", real, old);
            setenv("LD_PRELOAD", val, 1);
            free(val);
        }
        free(real);
        return;
    }
    if (strstr(name, "profile")) dprintf(2, "mpiexec: --profile: %s not found next to mpiexec: no profile\n", name);
}

static void preload_libs(void)
{
    const char *v = getenv("DMPI_SHM_MALLOC");
    if (!v || strcmp(v, "0")) preload("libdmpi_malloc.so");
    v = getenv("DMPI_PROFILE");
    if (v && *v && strcmp(v, "0")) preload("libdmpi_profile.so");
}

/* An enclosing PMIx launcher's variables (mpiexec run in "srun
 * --mpi=pmix", or in a shell started so, as sites with MpiDefault=pmix
 * do): a rank would take them for its own launcher and not use PMI_FD. */
static void drop_pmix_env(void)
{
    extern char **environ;
    for (size_t i = 0; environ[i];) {
        size_t n = strcspn(environ[i], "=");
        char name[256];
        if (strncmp(environ[i], "PMIX_", 5) == 0 && n < sizeof name) {
            memcpy(name, environ[i], n);
            name[n] = '\0';
            unsetenv(name); /* environ[i] is now the next one */
            continue;
        }
        i++;
    }
}

/* Whether this host's ranks start in sessions of their own (as hydra
 * starts them): where the kernel shares the processors between sessions
 * (autogroup), a rank then gets its own share instead of splitting the
 * caller's with whatever else runs there (app_patterns with 2 busy shells
 * beside 2 ranks on 2 cores, medians of 5: alltosome 0.41 -> 0.27 s, MPICH
 * 0.32; docs/results/2026-11-27-busy). Only while the host has a
 * processor for each of its ranks (job->n, spawned ones included): with
 * more ranks than processors their waiting hands the processor to each
 * other by sched_yield, which does not cross sessions (alltosome at 4
 * ranks on 2 cores, nothing else running: 0.41 s in one session, 0.48 s
 * in sessions of their own). */
static bool own_sessions(const mpx_job *job)
{
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return job->n <= cpus;
}

/* In the child: never returns. Either way the rank leads a process group
 * of its own (its pid): signal_local reaches it and its descendants there. */
static void exec_rank(mpx_job *job, mpx_rank *r, pid_t parent, bool own_session, int in_fd, int out_fd, int err_fd,
                      int pmi_fd)
{
    mpx_child_restore();
    if (own_session) (void)setsid();
    else (void)setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* mpiexec died before prctl took effect */

    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
    if (fcntl(pmi_fd, F_SETFD, 0) != 0) _exit(127); /* keep it across exec */

    const mpx_opts *o = job->opts;
    unsetenv("PMI_PORT"); /* from an enclosing launcher: would confuse PMI clients */
    unsetenv("PMI_ID");
    drop_pmix_env();
    unsetenv("DMPI_PARENT_PORT"); /* from an enclosing job, or set below */
    unsetenv("DMPI_UNIVERSE_ID");
    unsetenv("DMPI_UNIVERSE_BASE");
    unsetenv("DMPI_PORT_ADDR");
    for (int i = 0; i < o->nenv; i++) /* an agent's include its job's place in the universe */
        if (o->env[i].value) setenv(o->env[i].name, o->env[i].value, 1);
    /* this job's place in the universe (spawn.c), on one host */
    const mpx_sub *sb = job->subs ? &job->subs[r->sub] : NULL;
    int first = sb ? sb->first : 0, n = sb ? sb->n : job->n;
    if (sb) {
        setenv("DMPI_UNIVERSE_ID", job->jobid, 1);
        setenv_int("DMPI_UNIVERSE_BASE", sb->base);
        setenv_int("DMPI_UNIVERSE_SIZE", job->cap);
        if (sb->parent_port) setenv("DMPI_PARENT_PORT", sb->parent_port, 1);
    }
    setenv_int("PMI_FD", pmi_fd);
    setenv_int("PMI_RANK", r->rank);
    setenv_int("PMI_SIZE", sb ? sb->n : job->size);
    setenv("DMPI_JOBID", sb ? sb->jobid : job->jobid, 1);
    setenv_int("DMPI_LOCAL_RANK", (int)(r - job->ranks) - first);
    setenv_int("DMPI_LOCAL_SIZE", n);
    setenv_int("MPI_LOCALRANKID", (int)(r - job->ranks) - first);
    setenv_int("MPI_LOCALNRANKS", n);
    preload_libs();

    const char *prog = r->prog ? r->prog : o->prog_path;
    if (r->wdir && chdir(r->wdir) != 0) {
        dprintf(2, "mpiexec: rank %d: cannot change to directory '%s': %s\n", r->rank, r->wdir, strerror(errno));
        _exit(127);
    }
    execv(prog, r->argv ? r->argv : o->argv);
    dprintf(2, "mpiexec: rank %d: cannot execute '%s': %s\n", r->rank, prog, strerror(errno));
    _exit(127);
}

static int start_rank(mpx_job *job, mpx_rank *r, int devnull)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, sv[2] = {-1, -1}, in[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        (r->rank == 0 && r->sub == 0 && pipe2(in, O_CLOEXEC) != 0)) {
        mpx_log("cannot create pipes for rank %d: %s", r->rank, strerror(errno));
        goto fail;
    }
    bool own_session = own_sessions(job); /* decided once, for both sides of the fork */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        mpx_log("cannot start rank %d: fork: %s", r->rank, strerror(errno));
        goto fail;
    }
    bool gets_stdin = r->rank == 0 && r->sub == 0;
    if (pid == 0) exec_rank(job, r, parent, own_session, gets_stdin ? in[0] : devnull, out[1], err[1], sv[1]);

    if (!own_session) (void)setpgid(pid, pid); /* also here, so the group exists before we signal it */
    r->pid = pid;
    job->live++;
    close(out[1]);
    close(err[1]);
    close(sv[1]);
    mpx_stream_init(&r->out[0], out[0], 1);
    mpx_stream_init(&r->out[1], err[0], 2);
    r->pmi_fd = sv[0];
    mpx_set_nonblock(out[0]);
    mpx_set_nonblock(err[0]);
    mpx_set_nonblock(sv[0]);
    int idx = (int)(r - job->ranks);
    if (mpx_loop_add(sv[0], MPX_EV_PMI, idx, true, false) != 0 ||
        mpx_loop_add(out[0], MPX_EV_OUT, 2 * idx, true, false) != 0 ||
        mpx_loop_add(err[0], MPX_EV_OUT, 2 * idx + 1, true, false) != 0) {
        mpx_log("cannot watch the pipes of rank %d: %s", r->rank, strerror(errno));
        return -1; /* the rank runs; the job is failed and killed by the caller */
    }
    if (gets_stdin) {
        close(in[0]);
        job->stdin_dst = in[1];
        mpx_set_nonblock(in[1]);
        job->stdin_src = job->mode == MPX_MODE_LOCAL ? 0 : -1; /* an agent's comes from mpiexec */
    }
    return 0;

fail:
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0) close(out[i]);
        if (err[i] >= 0) close(err[i]);
        if (sv[i] >= 0) close(sv[i]);
        if (in[i] >= 0) close(in[i]);
    }
    return -1;
}

int mpx_launch_more(mpx_job *job, int first, int count)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        mpx_log("cannot open /dev/null: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    int rc = 0;
    for (int i = first; i < first + count && rc == 0; i++) rc = start_rank(job, &job->ranks[i], devnull);
    close(devnull);
    return rc;
}

static int launch_local(mpx_job *job)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        mpx_log("cannot open /dev/null: %s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered may be written twice */
    int rc = 0;
    for (int i = 0; i < job->n; i++) {
        if (start_rank(job, &job->ranks[i], devnull) != 0) {
            rc = -1;
            break;
        }
    }
    close(devnull);
    return rc;
}

static void signal_local(mpx_job *job, int sig)
{
    bool any = false;
    for (int i = 0; i < job->n; i++) {
        mpx_rank *r = &job->ranks[i];
        if (r->pid > 0 && !r->reaped) {
            kill(r->pid, sig); /* also before its setsid, and if it left its group */
            any = true;
        }
    }
    /* and the descendants, in each rank's group (that of a rank that has
     * exited too, while another still runs) */
    for (int i = 0; any && i < job->n; i++)
        if (job->ranks[i].pid > 0) kill(-job->ranks[i].pid, sig);
}

const mpx_bootstrap mpx_bootstrap_local = {
    .name = "local",
    .launch = launch_local,
    .signal_all = signal_local,
};
