/* mpiexec internals: the job and rank records shared by the launcher's
 * parts. main.c runs the event loop; options.c parses the command line;
 * hosts.c reads host lists and hostfiles and places the ranks; launch.c
 * starts ranks on this node (the local bootstrap); front.c starts one agent
 * per host (the remote bootstrap) and agent.c is that agent (mpiexec
 * --agent), which runs the local bootstrap on its host; slurm.c takes the
 * hosts from a Slurm allocation (hostlist.c reads its host lists) and starts
 * the agents with srun there; net.c is the TCP
 * framing between them; pmi_server.c + kvs.c serve PMI-1; iofwd.c forwards
 * stdout/stderr line by line and stdin to rank 0; job.c decides failures,
 * kills, reaps and cleans /dev/shm; spawn.c serves dynamic processes
 * (MPI_Comm_spawn's new jobs, the universe's key space and name service).
 * One thread. */
#ifndef MPX_MPIEXEC_H
#define MPX_MPIEXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "pmi_wire.h"

#define MPX_MAX_PROCS 4096
#define MPX_TERM_GRACE 0.2     /* seconds between SIGTERM and SIGKILL */
#define MPX_EOF_GRACE 0.3      /* PMI hang-up before exit: wait this for the exit status */
#define MPX_DRAIN_GRACE 1.0    /* after the last exit, wait this long for output EOF */
#define MPX_REAP_GRACE 5.0     /* after SIGKILL, give up waiting for exits after this */
#define MPX_ABORT_GRACE 0.2    /* an abort waits this long for a peer's death to report instead */
#define MPX_AGENT_TIMEOUT 20.0 /* default: an agent must connect back within this */
#define MPX_AGENT_GRACE 3.0    /* after the job is killed, wait this long for agents to finish */
#define MPX_DEFAULT_LAUNCHER "ssh -x -o BatchMode=yes"

/* exit statuses of mpiexec itself */
enum {
    MPX_EXIT_USAGE = 2,     /* bad command line */
    MPX_EXIT_TIMEOUT = 124, /* --timeout expired */
    MPX_EXIT_NOEXEC = 126,  /* program not executable */
    MPX_EXIT_NOTFOUND = 127 /* program not found */
};

/* ----------------------------------------------------------- options */
typedef struct mpx_env {
    char *name;
    char *value; /* NULL: pass mpiexec's own value (-x NAME) */
} mpx_env;

typedef struct mpx_host {
    char *name;
    int slots;        /* 0: not given */
} mpx_host;

/* how agents start: --launcher / $DMPI_LAUNCHER (slurm.c) */
enum { MPX_LAUNCH_AUTO, MPX_LAUNCH_SSH, MPX_LAUNCH_SRUN, MPX_LAUNCH_FORK };

typedef struct mpx_opts {
    int np;
    bool np_given;
    mpx_host *hosts;  /* -hosts / --hostfile entries, duplicates merged */
    int nhosts;
    int ppn;          /* -ppn, 0 none */
    bool oversubscribe;
    char *launcher;   /* --launcher-exec (or srun's words), NULL: MPX_DEFAULT_LAUNCHER */
    int launch;       /* --launcher: MPX_LAUNCH_*, AUTO when not given */
    bool srun;        /* agents start with "srun ... --nodelist=HOST" (launcher: its words) */
    bool from_alloc;  /* the hosts are the Slurm allocation's */
    bool alloc_local; /* ... one host, this one: run here within its slots */
    char *iface;      /* -iface */
    double agent_timeout;
    bool label;       /* -l: prefix output lines with "[rank] " */
    double timeout;   /* seconds, 0 = none */
    mpx_env *env;
    int nenv;
    char **argv;      /* program and its arguments (NULL-terminated) */
    char *prog_path;  /* resolved path of argv[0] */
    int usize;        /* -usize / DMPI_UNIVERSE_SIZE: room for processes in all, 0 not given */
} mpx_opts;

/* 0: run; -1: done, exit 0 (help/version printed); otherwise the exit
 * status, after a message on stderr. */
int mpx_parse_options(int argc, char **argv, mpx_opts *o);
void mpx_free_options(mpx_opts *o);

/* hosts.c. Host lists: "h1,h2:4". 0, or an exit status after a message. */
int mpx_hosts_add_list(mpx_opts *o, const char *list);
int mpx_hosts_read_file(mpx_opts *o, const char *path);
/* One host with slots (0: not given); what names the source in messages. */
int mpx_hosts_add(mpx_opts *o, const char *name, int slots, const char *what);
void mpx_hosts_free(mpx_opts *o);
/* Block placement of o->np ranks: count[i] ranks on host i (host order,
 * consecutive ranks). 0, or an exit status after a message. */
int mpx_hosts_place(const mpx_opts *o, int *count);
/* PMI_process_mapping for nodes 0..nnodes-1 holding count[k] consecutive
 * ranks each (malloc'ed). */
char *mpx_hosts_mapping(const int *count, int nnodes);

/* slurm.c. mpx_slurm_setup runs after the options: inside an allocation
 * it adds the allocation's hosts when none were given and picks srun (or
 * ssh, or fork); 0, or an exit status after a message. */
int mpx_launcher_kind(const char *name);   /* MPX_LAUNCH_*, -1 unknown */
int mpx_slurm_setup(mpx_opts *o);
int mpx_slurm_ntasks(void);                /* SLURM_NTASKS, 0 if not set */
int mpx_slurm_local(mpx_opts *o);          /* alloc_local: the slot check, then no hosts */
void mpx_slurm_child_env(void);            /* in a forked srun: drop the job's step-shaping variables */

/* ------------------------------------------------------- ranks, job */
typedef struct mpx_stream {  /* one forwarded output stream of a rank */
    int fd;                  /* our read end, -1 once closed */
    int dest;                /* 1 (stdout) or 2 (stderr) */
    bool at_line_start;
    char *buf;
    size_t len, cap;
} mpx_stream;

typedef struct mpx_rank {
    int rank;                /* within its job (sub-job) */
    int sub;                 /* its job: 0 the first, then one per MPI_Comm_spawn */
    int appnum;              /* MPI_APPNUM: the spawn_multiple command it came from */
    char *prog;              /* spawned ranks: program path and argv (NULL: opts') */
    char **argv;
    char *wdir;              /* spawned ranks: working directory (NULL: mpiexec's) */
    pid_t pid;               /* 0 when not started */
    bool reaped;
    int wstatus;
    /* PMI link */
    int pmi_fd;              /* our end, -1 once closed */
    dmpi_pmi_reader *rd;
    char *obuf;              /* replies not yet written */
    size_t olen, ooff, ocap;
    bool pmi_init, finalized, in_barrier, aborted, pmi_hup, warned;
    bool gone;               /* can no longer enter a PMI barrier */
    bool want_out;           /* the loop watches pmi_fd for writability */
    int abort_code;
    double hup_time;         /* when PMI hung up without finalize */
    mpx_stream out[2];       /* stdout, stderr */
} mpx_rank;

enum { MPX_RUNNING, MPX_KILLING, MPX_DRAINING };

/* One job of the universe (local mode): the first, started from the
 * command line, and one per MPI_Comm_spawn. Its ranks are ranks[first ..
 * first+n); their universe indices base .. base+n. */
typedef struct mpx_sub {
    int first, n, base;
    char jobid[40];
    char kvsname[64];
    struct mpx_kvs *kvs;
    int barrier_count;
    char *parent_port;       /* spawned: the port its parents accept on */
    char **dkey, **dval;     /* across hosts: its puts since its last barrier */
    int nd, dcap;
} mpx_sub;

enum { MPX_MODE_LOCAL, MPX_MODE_FRONT, MPX_MODE_AGENT };

typedef struct mpx_job {
    mpx_opts *opts;
    const struct mpx_bootstrap *boot;
    int mode;                /* MPX_MODE_*: one node, mpiexec with agents, an agent */
    int n;                   /* rank records here: every rank, or an agent's own */
    int size;                /* ranks in the job (PMI_SIZE) */
    mpx_rank *ranks;
    char *mapping;           /* PMI_process_mapping, NULL: all on one node */
    const char *host;        /* agent: its host's name */
    struct mpx_front *front; /* front: agents */
    struct mpx_agent *agent; /* agent: the link to mpiexec */
    char jobid[40];          /* a spawned job's agent: that job's (mpx_sub.jobid) */
    char kvsname[64];
    struct mpx_kvs *kvs;
    int barrier_count;
    /* the universe (mpiexec itself, on one host or with agents; NULL in an agent) */
    mpx_sub *subs;
    int nsub;
    int cap;                 /* rank records allocated: the universe size */
    int next_base;           /* universe index of the next spawned rank */
    struct mpx_kvs *ukvs;    /* universe-wide keys and published names */
    int gone;                /* ranks with gone set */
    int live;                /* ranks started and not reaped */
    /* failure and shutdown */
    bool failed;
    int exit_status;
    int phase;
    double term_time;        /* SIGTERM sent at (0: not yet) */
    bool sigkill_sent;
    double kill_time;        /* SIGKILL sent at */
    double drain_start;
    bool abort_pending;      /* an MPI_Abort waits MPX_ABORT_GRACE (see job.c) */
    int abort_status;
    double abort_time;
    char abort_log[1024];
    double deadline;         /* --timeout, 0 none */
    int hup_pending;         /* ranks with pmi_hup set, not yet reaped */
    /* stdin forwarding to rank 0 */
    int stdin_src;           /* our fd 0 while forwarding, else -1 */
    int stdin_dst;           /* write end of rank 0's stdin pipe, or -1 */
    char *inbuf;
    size_t inlen, inoff;
    bool stdin_eof;
    bool out_dead[3];        /* our stdout/stderr gone (EPIPE): drop output */
} mpx_job;

/* ------------------------------------------------------- bootstrap */
typedef struct mpx_bootstrap {
    const char *name;
    /* start every rank: fill pid, pmi_fd, out[].fd, job->stdin_dst */
    int (*launch)(mpx_job *job);
    /* deliver sig to every started, unreaped rank (and its descendants) */
    void (*signal_all)(mpx_job *job, int sig);
} mpx_bootstrap;

extern const mpx_bootstrap mpx_bootstrap_local;
extern const mpx_bootstrap mpx_bootstrap_remote; /* front.c */

/* front.c: mpiexec's side of a job on hosts */
int mpx_front_init(mpx_job *job);   /* placement, listening socket; exit status or 0 */
void mpx_front_event(mpx_job *job, int kind, int idx, unsigned events);
void mpx_front_reap(mpx_job *job);
void mpx_front_timers(mpx_job *job, double now);
double mpx_front_next_timer(mpx_job *job, double now);
bool mpx_front_done(mpx_job *job, double now);
void mpx_front_barrier_out(mpx_job *job, int sub, int rc); /* the barrier of job `sub` */
int mpx_front_spawn(mpx_job *job, int sub); /* start a spawned job's ranks on the hosts */
/* a PMI reply for a rank on a host (a universe command's answer) */
void mpx_front_reply(mpx_job *job, const mpx_rank *r, const char *text, size_t len);
void mpx_front_stdin(mpx_job *job);  /* inbuf holds data (or stdin_eof): send it */
void mpx_front_finish(mpx_job *job); /* after the loop: stop launchers, free */

/* agent.c: mpiexec --agent */
int mpx_agent_main(int argc, char **argv);
void mpx_agent_event(mpx_job *job, unsigned events);
void mpx_agent_tick(mpx_job *job);  /* once per loop turn: stdin acks */
void mpx_agent_put(mpx_job *job, const char *key, const char *val);
void mpx_agent_barrier_in(mpx_job *job, const mpx_rank *r);
void mpx_agent_gone(mpx_job *job, const mpx_rank *r);
void mpx_agent_fail(mpx_job *job, int status);
/* a universe command (dmpi_*): mpiexec answers it (spawn.c) */
void mpx_agent_ucmd(mpx_job *job, const mpx_rank *r, const dmpi_pmi_msg *m);
int mpx_agent_output(mpx_job *job, int dest, const char *buf, size_t n);
/* the log line of an agent goes to mpiexec (set while connected) */
extern struct mpx_agent *mpx_log_agent;
void mpx_agent_log(const char *line, size_t len);

/* --------------------------------------------------------- modules */
/* pmi_server.c */
int mpx_pmi_setup(mpx_job *job);
void mpx_pmi_readable(mpx_job *job, mpx_rank *r);   /* read and serve */
void mpx_pmi_writable(mpx_job *job, mpx_rank *r);   /* flush replies */
void mpx_pmi_check_barrier(mpx_job *job);
void mpx_pmi_close(mpx_job *job, mpx_rank *r);
void mpx_pmi_gone(mpx_job *job, mpx_rank *r);      /* finalized, exited or hung up */
void mpx_pmi_barrier_done(mpx_job *job, int rc);    /* agent: answer the ranks in the barrier */

/* spawn.c: the universe. A command it serves: true (answered). */
int mpx_universe_setup(mpx_job *job);
bool mpx_universe_handle(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m);
void mpx_universe_free(mpx_job *job);
/* launch.c: starts ranks[first .. first+count) (spawned ranks, local mode) */
int mpx_launch_more(mpx_job *job, int first, int count);
/* pmi_server.c: queue a reply line built by the caller */
void mpx_pmi_reply(mpx_job *job, mpx_rank *r, dmpi_pmi_line *l);
/* pmi_server.c: queue a reply that is already a whole line */
void mpx_pmi_reply_text(mpx_job *job, mpx_rank *r, const char *text, size_t len);

/* kvs.c */
struct mpx_kvs *mpx_kvs_new(void);
void mpx_kvs_free(struct mpx_kvs *kvs);
int mpx_kvs_put(struct mpx_kvs *kvs, const char *key, const char *val);
const char *mpx_kvs_get(const struct mpx_kvs *kvs, const char *key);

/* iofwd.c */
int mpx_stream_init(mpx_stream *s, int fd, int dest);
void mpx_stream_readable(mpx_job *job, mpx_rank *r, mpx_stream *s);
void mpx_stream_drain(mpx_job *job, mpx_rank *r);    /* read all now available */
void mpx_stream_finish(mpx_job *job, mpx_rank *r, mpx_stream *s); /* flush, close */
void mpx_stdin_readable(mpx_job *job);
void mpx_stdin_writable(mpx_job *job);
void mpx_stdin_close(mpx_job *job);
int mpx_write_all(mpx_job *job, int fd, const char *buf, size_t n);

/* job.c */
void mpx_job_fail(mpx_job *job, int status);        /* first failure wins; starts the kill */
void mpx_job_kill(mpx_job *job);                    /* SIGTERM now, SIGKILL after grace */
void mpx_job_reap(mpx_job *job);                    /* waitpid every exited rank */
/* Reaps the ranks other than skip that have exited already: a rank often
 * aborts because a peer died, and the peer's death is what to report. */
void mpx_job_reap_others(mpx_job *job, const mpx_rank *skip);
/* A rank called MPI_Abort: fails the job with status after MPX_ABORT_GRACE
 * (logging logline) unless another rank's death is reported first. */
void mpx_job_abort(mpx_job *job, int status, const char *logline);
void mpx_job_timers(mpx_job *job, double now);      /* kill escalation, timeouts */
double mpx_job_next_timer(mpx_job *job, double now);/* seconds to the next timer, <0 none */
bool mpx_job_done(mpx_job *job, double now);
void mpx_job_cleanup_shm(const char *jobid);
void mpx_rank_hup(mpx_job *job, mpx_rank *r);       /* PMI link closed */

/* util.c */
double mpx_now(void);
int mpx_set_nonblock(int fd);
void mpx_random_hex(char *out, size_t nhex);
const char *mpx_signame(int sig);
void *mpx_xmalloc(size_t n);
void *mpx_xrealloc(void *p, size_t n);
void mpx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *mpx_rank_label(const mpx_rank *r); /* "rank N" or "rank N of spawned job K" */

/* main.c: the event loop's watch list (epoll). A watched fd is unwatched
 * with mpx_loop_del before it is closed. */
enum { MPX_EV_SIG, MPX_EV_STDIN, MPX_EV_STDIN_DST, MPX_EV_PMI, MPX_EV_OUT,
       MPX_EV_LISTEN, MPX_EV_AGENT, MPX_EV_PENDING, MPX_EV_LAUNCHER, MPX_EV_UPLINK };
int mpx_loop_add(int fd, int kind, int idx, bool in, bool out);
int mpx_loop_mod(int fd, int kind, int idx, bool in, bool out);
void mpx_loop_del(int fd);

extern volatile sig_atomic_t mpx_pending_signal; /* SIGINT/TERM/HUP received, 0 none */
void mpx_child_restore(void); /* in a forked rank: signals and limits as mpiexec found them */
int mpx_main_loop(mpx_job *job); /* sets up signals and epoll, launches, runs the loop */

#endif
