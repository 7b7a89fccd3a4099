/* mpiexec inside a Slurm allocation (SLURM_JOB_ID set): the hosts and
 * their slots come from the allocation (SLURM_JOB_NODELIST, expanded by
 * hostlist.c; SLURM_TASKS_PER_NODE, else SLURM_JOB_CPUS_PER_NODE) when no
 * -hosts/--hostfile is given, and the agents start with srun, one step of
 * one task per host:
 *
 *   srun --nodes=1 --ntasks=1 --overlap --mpi=none --export=ALL --quiet
 *        --kill-on-bad-exit=1 --cpu-bind=none --nodelist=HOST AGENT...
 *
 * (--overlap: the step shares the node with the job's other steps, such as
 * the batch script running mpiexec; without --exact it gets all the job's
 * CPUs, memory and GRES on the node, which the ranks the agent forks then
 * use; --cpu-bind=none: the agent and its ranks are not pinned to one CPU.)
 * One srun per host keeps front.c's one launcher per agent: a failure is
 * reported for its host, and the agent protocol is unchanged.
 *
 * The launcher: --launcher (or $DMPI_LAUNCHER) srun, ssh or fork. srun is
 * the default inside an allocation, also for -hosts that all belong to it;
 * ssh starts the agents as outside Slurm (--launcher-exec implies it);
 * fork ignores the allocation and runs on this node as mpiexec does
 * without hosts. An allocation of one node that is this host runs here
 * too (no srun), within its slots. Outside an allocation nothing changes. */
#include "mpiexec.h"
#include "hostlist.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SRUN_WORDS "srun --nodes=1 --ntasks=1 --overlap --mpi=none --export=ALL --quiet " \
                   "--kill-on-bad-exit=1 --cpu-bind=none"

static const char *env_nonempty(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

static const char *job_id(void)
{
    const char *j = env_nonempty("SLURM_JOB_ID");
    return j ? j : env_nonempty("SLURM_JOBID");
}

int mpx_launcher_kind(const char *s)
{
    if (strcmp(s, "ssh") == 0) return MPX_LAUNCH_SSH;
    if (strcmp(s, "srun") == 0 || strcmp(s, "slurm") == 0) return MPX_LAUNCH_SRUN;
    if (strcmp(s, "fork") == 0) return MPX_LAUNCH_FORK;
    return -1;
}

int mpx_slurm_ntasks(void)
{
    const char *t = env_nonempty("SLURM_NTASKS");
    if (t == NULL) t = env_nonempty("SLURM_NPROCS");
    int n;
    return t && dmpi_pmi_parse_int(t, &n) == 0 && n > 0 ? n : 0;
}

/* The allocation's nodes (*names) and slots (slots[i], 0 unknown):
 * their number, or -1 after a message (none when quiet). */
static int read_allocation(const char *job, char ***names, int **slots, bool quiet)
{
    const char *var = "SLURM_JOB_NODELIST", *list = env_nonempty(var);
    if (list == NULL) list = env_nonempty(var = "SLURM_NODELIST");
    if (list == NULL) {
        if (quiet) return -1;
        mpx_log("inside Slurm job %s, but neither SLURM_JOB_NODELIST nor SLURM_NODELIST is set; "
                "use -hosts, or --launcher fork to run on this node", job);
        return -1;
    }
    char err[300];
    int n = mpx_hostlist_expand(list, names, err, sizeof err);
    if (n <= 0) {
        if (n == 0) free(*names);
        if (!quiet) mpx_log("cannot read %s='%s': %s", var, list, n == 0 ? "no host" : err);
        return -1;
    }
    *slots = calloc((size_t)n, sizeof **slots);
    if (*slots == NULL) {
        mpx_log("out of memory");
        mpx_hostlist_free(*names, n);
        return -1;
    }
    static const char *const sources[] = {"SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE"};
    for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
        const char *spec = env_nonempty(sources[k]);
        if (spec == NULL) continue;
        int c = mpx_hostlist_counts(spec, *slots, n);
        if (c == n) return n;
        if (!quiet) mpx_log("ignoring %s='%s': %s %d host(s)", sources[k], spec,
                c < 0 ? "malformed; the allocation has" : "does not match the allocation's", n);
        memset(*slots, 0, sizeof **slots * (size_t)n);
    }
    return n;
}

/* Whether NODE (a Slurm node name) is the host mpiexec runs on. */
static bool this_host(const char *node)
{
    const char *me = env_nonempty("SLURMD_NODENAME"); /* set inside a job step or batch script */
    if (me) return strcmp(me, node) == 0;
    if (strcmp(node, "localhost") == 0) return true;
    char hn[256];
    if (gethostname(hn, sizeof hn) != 0) return false;
    hn[sizeof hn - 1] = '\0';
    size_t hs = strcspn(hn, "."), ns = strcspn(node, ".");
    return strcasecmp(hn, node) == 0 || (hs == ns && strncasecmp(hn, node, hs) == 0 &&
                                         (hn[hs] == '\0' || node[ns] == '\0'));
}

static bool srun_in_path(void)
{
    const char *path = getenv("PATH");
    if (path == NULL) path = "/bin:/usr/bin";
    for (const char *d = path;;) {
        size_t dl = strcspn(d, ":");
        char cand[4200];
        snprintf(cand, sizeof cand, "%.*s%ssrun", (int)dl, d, dl ? "/" : "");
        if (dl < 4096 && access(cand, X_OK) == 0) return true;
        if (d[dl] == '\0') return false;
        d += dl + 1;
    }
}

int mpx_slurm_setup(mpx_opts *o)
{
    int kind = o->launch;
    const char *how = "--launcher";
    if (kind == MPX_LAUNCH_AUTO && env_nonempty("DMPI_LAUNCHER")) {
        how = "DMPI_LAUNCHER";
        kind = mpx_launcher_kind(getenv("DMPI_LAUNCHER"));
        if (kind < 0) {
            mpx_log("bad DMPI_LAUNCHER '%s' (want ssh, srun or fork)", getenv("DMPI_LAUNCHER"));
            return MPX_EXIT_USAGE;
        }
    }
    const char *job = job_id();
    if (kind == MPX_LAUNCH_FORK) {
        if (o->nhosts == 0 && o->launcher == NULL) return 0; /* this node, as without Slurm */
        mpx_log("%s fork runs the job on this node only: it takes no -hosts, --hostfile or --launcher-exec", how);
        return MPX_EXIT_USAGE;
    }
    if (kind == MPX_LAUNCH_SRUN && job == NULL) {
        mpx_log("%s srun needs a Slurm allocation (SLURM_JOB_ID is not set): run mpiexec inside salloc or sbatch",
                how);
        return MPX_EXIT_USAGE;
    }
    if (kind == MPX_LAUNCH_SRUN && o->launcher) {
        mpx_log("%s srun and --launcher-exec exclude each other", how);
        return MPX_EXIT_USAGE;
    }
    if (job == NULL) return 0; /* outside Slurm: hosts and ssh as given */

    char **names = NULL;
    int *slots = NULL;
    bool explicit = o->nhosts > 0;
    int n = -1;
    if (!explicit || (kind == MPX_LAUNCH_AUTO && o->launcher == NULL)) {
        n = read_allocation(job, &names, &slots, explicit);
        if (n < 0 && !explicit) return MPX_EXIT_USAGE;
    }
    bool use_srun = kind == MPX_LAUNCH_SRUN || (kind == MPX_LAUNCH_AUTO && o->launcher == NULL);
    if (explicit && kind == MPX_LAUNCH_AUTO && use_srun) { /* srun only if every host is in the allocation */
        for (int h = 0; h < o->nhosts && use_srun; h++) {
            bool in = false;
            for (int i = 0; i < n && !in; i++) in = strcmp(names[i], o->hosts[h].name) == 0;
            use_srun = in;
        }
    }
    int rc = 0;
    for (int i = 0; i < n && !explicit && rc == 0; i++) rc = mpx_hosts_add(o, names[i], slots[i], "SLURM_JOB_NODELIST");
    if (n > 0) mpx_hostlist_free(names, n);
    free(slots);
    if (rc) return rc;
    o->from_alloc = !explicit;
    if (o->from_alloc && kind == MPX_LAUNCH_AUTO && o->launcher == NULL && o->nhosts == 1 &&
        this_host(o->hosts[0].name)) {
        o->alloc_local = true; /* mpx_slurm_local once -n is known */
        return 0;
    }
    if (!use_srun) return 0;
    if (!srun_in_path()) {
        mpx_log("inside Slurm job %s, but srun is not in PATH: use --launcher ssh to start the agents "
                "through ssh, or --launcher fork to run on this node only", job);
        return MPX_EXIT_USAGE;
    }
    o->launcher = strdup(SRUN_WORDS);
    o->srun = true;
    return o->launcher ? 0 : 1;
}

int mpx_slurm_local(mpx_opts *o)
{
    int count;
    int rc = mpx_hosts_place(o, &count); /* the slot check */
    if (rc == 0) mpx_hosts_free(o);
    return rc;
}

void mpx_slurm_child_env(void)
{
    /* srun reads these as options; they describe the user's job, and would
     * reshape (or make srun reject) an agent's one-task step */
    static const char *const names[] = {
        "SLURM_NTASKS_PER_NODE", "SLURM_NTASKS_PER_SOCKET", "SLURM_NTASKS_PER_CORE", "SLURM_NTASKS_PER_GPU",
        "SLURM_NTASKS_PER_TRES", "SLURM_GPUS_PER_TASK", "SLURM_TRES_PER_TASK", "SLURM_EXACT",
        "SLURM_DISTRIBUTION", "SLURM_ARBITRARY_NODELIST", "SLURM_HINT"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}
