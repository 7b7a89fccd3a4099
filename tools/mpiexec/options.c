/* mpiexec command line: options, their checks and messages, and the search
 * for the program (it must exist and be executable before we launch). */
#include "mpiexec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef DMPI_VERSION_STRING
#define DMPI_VERSION_STRING "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec [options] program [args...]\n"
            "Starts an MPI job of N processes of program on this node, or on hosts.\n"
            "\n"
            "Options:\n"
            "  -n N, -np N          number of processes (1 to %d; default 1)\n"
            "  -usize N             universe size: room for N processes in all, spawned\n"
            "                       ones included (default np + 1024; $DMPI_UNIVERSE_SIZE)\n"
            "  -env NAME VALUE      set NAME=VALUE in every process\n"
            "  -genv NAME VALUE     same as -env (one program per job)\n"
            "  -x NAME[=VALUE]      export NAME (with VALUE, or mpiexec's own value)\n"
            "  -l, --label          prefix each output line with \"[rank] \"\n"
            "  --profile            profile the MPI calls: a report at the end of the job\n"
            "                       and a traffic matrix CSV (docs/profile.md; sets\n"
            "                       DMPI_PROFILE=1, preloads libdmpi_profile.so)\n"
            "  --timeout SECONDS    kill the job after SECONDS (exit status %d);\n"
            "                       default from $MPIEXEC_TIMEOUT\n"
            "Many hosts (one agent per host, started through the launcher):\n"
            "  -hosts H1,H2:N       hosts, optionally with slot counts (also -host, --host)\n"
            "  -f, --hostfile FILE  hosts from FILE: HOST, HOST:N or HOST slots=N per line\n"
            "  -ppn N               N processes per host\n"
            "  --oversubscribe      allow more processes than slots\n"
            "  --launcher-exec CMD  start agents with 'CMD HOST command...'\n"
            "                       (default: " MPX_DEFAULT_LAUNCHER ")\n"
            "  --launcher ssh|srun|fork  how agents start (default: $DMPI_LAUNCHER, else\n"
            "                       srun inside a Slurm allocation, ssh outside); fork\n"
            "                       runs on this node only, ignoring the allocation\n"
            "  -iface NAME          agents call back to the address of interface NAME;\n"
            "                       also sets DMPI_OFI_IFACE=NAME in the processes\n"
            "  --agent-timeout S    an agent must connect back within S seconds (default\n"
            "                       %g, or $MPIEXEC_AGENT_TIMEOUT)\n"
            "  -h, --help           show this help\n"
            "  --version            show the version\n"
            "  --                   end of options\n"
            "\n"
            "Inside a Slurm allocation (SLURM_JOB_ID set), without -hosts/--hostfile:\n"
            "  the hosts are SLURM_JOB_NODELIST, their slots SLURM_TASKS_PER_NODE (else\n"
            "  SLURM_JOB_CPUS_PER_NODE), -n defaults to SLURM_NTASKS (else every slot),\n"
            "  and each host's agent starts with 'srun --nodes=1 --ntasks=1 --overlap\n"
            "  --nodelist=HOST ...'; an allocation of this host alone runs here.\n"
            "\n"

            "Each process gets PMI_FD, PMI_RANK, PMI_SIZE, DMPI_JOBID, DMPI_LOCAL_RANK\n"
            "and DMPI_LOCAL_SIZE. Output is forwarded whole line by whole line; stdin\n"
            "goes to rank 0. If a process fails (nonzero exit, signal, MPI_Abort, or\n"
            "exit after MPI_Init without MPI_Finalize) the whole job is killed and\n"
            "mpiexec exits with that process's status (128+N for signal N).\n"
            "Exit statuses of mpiexec itself: %d bad usage, %d program not executable,\n"
            "%d program not found, %d timeout, 128+N when killed by signal N.\n",
            MPX_MAX_PROCS, MPX_EXIT_TIMEOUT, MPX_AGENT_TIMEOUT, MPX_EXIT_USAGE, MPX_EXIT_NOEXEC, MPX_EXIT_NOTFOUND,
            MPX_EXIT_TIMEOUT);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec: %s\nTry 'mpiexec --help' for more information.\n", msg);
    return MPX_EXIT_USAGE;
}

static bool valid_env_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static int parse_timeout(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0 || v > 1e8) return -1;
    *out = v;
    return 0;
}

static void add_env(mpx_opts *o, const char *name, const char *value)
{
    o->env = mpx_xrealloc(o->env, sizeof *o->env * (size_t)(o->nenv + 1));
    o->env[o->nenv].name = strdup(name);
    o->env[o->nenv].value = value ? strdup(value) : NULL;
    if (o->env[o->nenv].name == NULL || (value && o->env[o->nenv].value == NULL)) {
        mpx_log("out of memory");
        exit(1);
    }
    o->nenv++;
}

/* The PATH the ranks will see: a -env/-genv/-x PATH=... wins. */
static const char *rank_path(const mpx_opts *o)
{
    const char *p = getenv("PATH");
    for (int i = 0; i < o->nenv; i++)
        if (strcmp(o->env[i].name, "PATH") == 0 && o->env[i].value) p = o->env[i].value;
    return p ? p : "/bin:/usr/bin";
}

/* 0 executable file, 1 exists but not executable (or a directory), -1 absent */
static int check_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) return 1;
    return access(path, X_OK) == 0 ? 0 : 1;
}

static int find_program(mpx_opts *o)
{
    const char *prog = o->argv[0];
    if (prog[0] == '\0') return bad("empty program name");
    if (strchr(prog, '/')) {
        int c = check_file(prog);
        if (c < 0) {
            mpx_log("program '%s' not found: %s", prog, strerror(errno));
            return MPX_EXIT_NOTFOUND;
        }
        if (c > 0) {
            mpx_log("program '%s' is not an executable file", prog);
            return MPX_EXIT_NOEXEC;
        }
        o->prog_path = mpx_xmalloc(strlen(prog) + 1);
        strcpy(o->prog_path, prog);
        return 0;
    }
    const char *path = rank_path(o);
    bool seen_nonexec = false;
    size_t plen = strlen(prog);
    for (const char *d = path;; ) {
        const char *colon = strchr(d, ':');
        size_t dl = colon ? (size_t)(colon - d) : strlen(d);
        char *cand = mpx_xmalloc(dl + plen + 3);
        if (dl == 0) snprintf(cand, dl + plen + 3, "./%s", prog); /* empty entry: current dir */
        else snprintf(cand, dl + plen + 3, "%.*s/%s", (int)dl, d, prog);
        int c = check_file(cand);
        if (c == 0) {
            o->prog_path = cand;
            return 0;
        }
        if (c > 0) seen_nonexec = true;
        free(cand);
        if (!colon) break;
        d = colon + 1;
    }
    if (seen_nonexec) {
        mpx_log("program '%s' found in PATH but not executable", prog);
        return MPX_EXIT_NOEXEC;
    }
    mpx_log("program '%s' not found in PATH", prog);
    return MPX_EXIT_NOTFOUND;
}

/* "-opt value" or "-opt=value": the value, advancing *i; NULL if missing */
static const char *opt_value(int argc, char **argv, int *i, const char *eq)
{
    if (eq) return eq + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

static bool is(const char *name, const char *a, size_t alen)
{
    return strlen(name) == alen && strncmp(name, a, alen) == 0;
}

int mpx_parse_options(int argc, char **argv, mpx_opts *o)
{
    memset(o, 0, sizeof *o);
    o->np = 1;
    bool timeout_given = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) { i++; break; }
        if (a[0] != '-' || a[1] == '\0') break; /* the program */
        const char *eq = strchr(a, '=');
        size_t alen = eq ? (size_t)(eq - a) : strlen(a);
        if (is("-h", a, alen) || is("--help", a, alen) || is("-help", a, alen)) {
            usage(stdout);
            return -1;
        } else if (is("--version", a, alen) || is("-version", a, alen)) {
            printf("mpiexec (dmpi) %s\n", DMPI_VERSION_STRING);
            return -1;
        } else if (is("-n", a, alen) || is("-np", a, alen) || is("--n", a, alen) || is("--np", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            int n;
            if (v == NULL) return bad("option %s needs a process count", a);
            if (dmpi_pmi_parse_int(v, &n) != 0) return bad("bad process count '%s'", v);
            if (n < 1) return bad("process count must be at least 1 (got '%s')", v);
            if (n > MPX_MAX_PROCS) {
                fprintf(stderr, "mpiexec: process count %d is more than the maximum, %d\n", n, MPX_MAX_PROCS);
                return MPX_EXIT_USAGE;
            }
            o->np = n;
            o->np_given = true;
        } else if (is("-usize", a, alen) || is("--usize", a, alen) || is("-universe_size", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            int n;
            if (v == NULL || dmpi_pmi_parse_int(v, &n) != 0 || n < 1 || n > MPX_MAX_PROCS)
                return bad("option %s needs a universe size (1 to %d)", a, MPX_MAX_PROCS);
            o->usize = n;
        } else if (is("-env", a, alen) || is("-genv", a, alen) || is("--env", a, alen) || is("--genv", a, alen)) {
            if (eq || i + 2 >= argc) return bad("option %s needs NAME VALUE", a);
            const char *name = argv[i + 1], *value = argv[i + 2];
            if (!valid_env_name(name)) return bad("bad environment variable name '%s'", name);
            add_env(o, name, value);
            i += 2;
        } else if (is("-x", a, alen)) {
            if (eq || i + 1 >= argc) return bad("option -x needs NAME or NAME=VALUE");
            char *spec = strdup(argv[++i]);
            if (spec == NULL) { mpx_log("out of memory"); return 1; }
            char *e2 = strchr(spec, '=');
            if (e2) *e2 = '\0';
            if (!valid_env_name(spec)) {
                int rc = bad("bad environment variable name in -x '%s'", argv[i]);
                free(spec);
                return rc;
            }
            add_env(o, spec, e2 ? e2 + 1 : NULL);
            free(spec);
        } else if (is("-l", a, alen) || is("--label", a, alen) || is("-prepend-rank", a, alen)) {
            if (eq) return bad("option %s takes no value", a);
            o->label = true;
        } else if (is("--profile", a, alen) || is("-profile", a, alen)) {
            if (eq) return bad("option %s takes no value", a);
            add_env(o, "DMPI_PROFILE", "1");
        } else if (is("--timeout", a, alen) || is("-timeout", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL) return bad("option %s needs a number of seconds", a);
            if (parse_timeout(v, &o->timeout) != 0) return bad("bad timeout '%s' (want seconds > 0)", v);
            timeout_given = true;
        } else if (is("-host", a, alen) || is("-hosts", a, alen) || is("--host", a, alen) ||
                   is("--hosts", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL) return bad("option %s needs a host list", a);
            int rc = mpx_hosts_add_list(o, v);
            if (rc) return rc;
        } else if (is("-f", a, alen) || is("--hostfile", a, alen) || is("-hostfile", a, alen) ||
                   is("-machinefile", a, alen) || is("--machinefile", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL) return bad("option %s needs a file name", a);
            int rc = mpx_hosts_read_file(o, v);
            if (rc) return rc;
        } else if (is("-ppn", a, alen) || is("--ppn", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            int n;
            if (v == NULL) return bad("option %s needs a number of processes", a);
            if (dmpi_pmi_parse_int(v, &n) != 0 || n < 1 || n > MPX_MAX_PROCS)
                return bad("bad processes per host '%s'", v);
            o->ppn = n;
        } else if (is("--oversubscribe", a, alen) || is("-oversubscribe", a, alen)) {
            if (eq) return bad("option %s takes no value", a);
            o->oversubscribe = true;
        } else if (is("--launcher", a, alen) || is("-launcher", a, alen) || is("-bootstrap", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL) return bad("option %s needs ssh, srun or fork", a);
            if ((o->launch = mpx_launcher_kind(v)) < 0) return bad("bad launcher '%s' (want ssh, srun or fork)", v);
        } else if (is("--launcher-exec", a, alen) || is("-launcher-exec", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL || strspn(v, " \t") == strlen(v)) return bad("option %s needs a command", a);
            free(o->launcher);
            o->launcher = strdup(v);
        } else if (is("-iface", a, alen) || is("--iface", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL || v[0] == '\0') return bad("option %s needs an interface name", a);
            free(o->iface);
            o->iface = strdup(v);
        } else if (is("--agent-timeout", a, alen) || is("-agent-timeout", a, alen)) {
            const char *v = opt_value(argc, argv, &i, eq);
            if (v == NULL) return bad("option %s needs a number of seconds", a);
            if (parse_timeout(v, &o->agent_timeout) != 0) return bad("bad agent timeout '%s' (want seconds > 0)", v);
        } else {
            return bad("unknown option '%s'", a);
        }
    }
    if (i >= argc) return bad("no program given");
    if (o->usize == 0 && getenv("DMPI_UNIVERSE_SIZE") && getenv("DMPI_UNIVERSE_ID") == NULL) {
        int n; /* (a spawned rank's own value is its universe's, not a request) */
        if (dmpi_pmi_parse_int(getenv("DMPI_UNIVERSE_SIZE"), &n) != 0 || n < 1 || n > MPX_MAX_PROCS)
            return bad("bad DMPI_UNIVERSE_SIZE '%s' (1 to %d)", getenv("DMPI_UNIVERSE_SIZE"), MPX_MAX_PROCS);
        o->usize = n;
    }
    o->argv = argv + i;
    int rc = mpx_slurm_setup(o); /* inside a Slurm allocation: its hosts, srun */
    if (rc) return rc;
    if (o->nhosts == 0 && (o->ppn || o->oversubscribe || o->launcher || o->iface))
        return bad("-ppn, --oversubscribe, --launcher-exec and -iface need hosts (-hosts, --hostfile or a Slurm allocation)");
    if (o->nhosts > 0 && !o->np_given) { /* the allocation's tasks, else every slot, else one per host */
        long n = 0;
        for (int h = 0; h < o->nhosts; h++) n += o->ppn ? o->ppn : o->hosts[h].slots ? o->hosts[h].slots : 1;
        if (o->from_alloc && !o->ppn && mpx_slurm_ntasks() > 0) n = mpx_slurm_ntasks();
        o->np = n > MPX_MAX_PROCS ? MPX_MAX_PROCS : (int)n;
    }
    if (o->alloc_local && (rc = mpx_slurm_local(o)) != 0) return rc;
    if (o->iface) add_env(o, "DMPI_OFI_IFACE", o->iface);
    if (o->agent_timeout == 0) {
        const char *t = getenv("MPIEXEC_AGENT_TIMEOUT");
        o->agent_timeout = MPX_AGENT_TIMEOUT;
        if (t && t[0] && parse_timeout(t, &o->agent_timeout) != 0) {
            fprintf(stderr, "mpiexec: bad MPIEXEC_AGENT_TIMEOUT '%s' (want seconds > 0)\n", t);
            return MPX_EXIT_USAGE;
        }
    }

    if (!timeout_given) {
        const char *t = getenv("MPIEXEC_TIMEOUT");
        if (t && t[0] && parse_timeout(t, &o->timeout) != 0) {
            fprintf(stderr, "mpiexec: bad MPIEXEC_TIMEOUT '%s' (want seconds > 0)\n", t);
            return MPX_EXIT_USAGE;
        }
    }
    return find_program(o);
}

void mpx_free_options(mpx_opts *o)
{
    for (int i = 0; i < o->nenv; i++) {
        free(o->env[i].name);
        free(o->env[i].value);
    }
    free(o->env);
    free(o->prog_path);
    free(o->launcher);
    free(o->iface);
    mpx_hosts_free(o);
    memset(o, 0, sizeof *o);
}
