/* The runtime: start-up and shut-down of the core (process management,
 * shared memory, point-to-point), the built-in communicators, groups and
 * error handlers, handle lookup for communicators and error handlers, the
 * coarse lock of MPI_THREAD_MULTIPLE, and environment knobs. */
#include "core/dmpi.h"
#include "core/dynproc.h"
#include "p2p/p2p.h"
#include "pmi/pmi.h"
#include "transport/transport.h"

#include <poll.h>
#include <sched.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

dmpi_runtime dmpi_rt;
dmpi_comm dmpi_comm_world_obj, dmpi_comm_self_obj;
static dmpi_group world_group, self_group;
static int self_world_rank[1];
dmpi_errhandler dmpi_errh_fatal = {DMPI_MAGIC_ERRH, 1, DMPI_ERRH_FATAL, NULL, true};
dmpi_errhandler dmpi_errh_return = {DMPI_MAGIC_ERRH, 1, DMPI_ERRH_RETURN, NULL, true};
dmpi_errhandler dmpi_errh_abort = {DMPI_MAGIC_ERRH, 1, DMPI_ERRH_ABORT, NULL, true};

static pthread_mutex_t big_lock;

void dmpi_lock(void)
{
    if (dmpi_rt.locking) pthread_mutex_lock(&big_lock);
}

void dmpi_unlock(void)
{
    if (dmpi_rt.locking) pthread_mutex_unlock(&big_lock);
}

bool dmpi_trylock(void)
{
    return pthread_mutex_trylock(&big_lock) == 0;
}

void dmpi_set_thread_level(int level)
{
    dmpi_rt.thread_level = level;
    dmpi_rt.locking = level == MPI_THREAD_MULTIPLE || dmpi_async_progress_wanted();
}

long dmpi_env_long(const char *name, long dflt)
{
    for (int id = 0; id < DMPI_NKNOBS; id++)
        if (!strcmp(dmpi_knob_descs[id].name, name)) return dmpi_knob_or(id, dflt);
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    long x = strtol(v, &end, 0);
    if (*end == 'k' || *end == 'K') x <<= 10;
    else if (*end == 'm' || *end == 'M') x <<= 20;
    return x;
}

/* Under launchers that do not end a job when one of its processes dies
 * (Slurm without KillOnBadExit, other PMI-2 and PMIx launchers), the ranks
 * watch their node peers (pids) and the next node's first rank (a TCP
 * connection, ofi_watch.c) themselves, and abort the job through the
 * launcher when one is gone: otherwise the others wait for it forever.
 * dmpi's mpiexec and hydra (PMI-1) end the job themselves
 * (dmpi_pmi_peer_watch; DMPI_PEER_WATCH overrides). */
static void check_peers(double now)
{
    static int watch = -1;
    static double next_check;
    if (watch < 0) watch = dmpi_pmi_peer_watch();
    if (!watch || now < next_check || !dmpi_rt.initialized) return;
    next_check = now + 0.5;
    int dead = dmpi_tp_dead_peer();
    if (dead < 0) return;
    char msg[160];
    snprintf(msg, sizeof msg, "rank %d: rank %d died before MPI_Finalize; aborting the job",
             dmpi_rt.world_rank, dead);
    fprintf(stderr, "dmpi: %s\n", msg);
    dmpi_pmi_abort(1, msg);
    _exit(1);
}

/* A rank whose launcher (mpiexec, or its agent on this host) is gone
 * exits instead of waiting forever: checked at most every 0.1 s by
 * whatever loop waits (progress, a network call waiting for room). */
void dmpi_check_launcher(void)
{
    static double next_check;
    double now = dmpi_now();
    if (now < next_check) return;
    next_check = now + 0.1;
    check_peers(now);
    dmpi_dyn_watch();
    int fd = dmpi_pmi_fd();
    if (fd < 0) return;
    struct pollfd pfd = {fd, 0, 0};
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR))) {
        fprintf(stderr, "dmpi: rank %d: the launcher is gone; exiting\n", dmpi_rt.world_rank);
        _exit(1);
    }
}

double dmpi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void init_comm(dmpi_comm *c, MPI_Comm h, dmpi_group *g, uint32_t ctx, const char *name)
{
    memset(c, 0, sizeof *c);
    c->magic = DMPI_MAGIC_COMM;
    c->refcount = 1;
    c->context_id = ctx;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    c->errh = &dmpi_errh_fatal;
    c->builtin = true;
    c->handle = h;
    snprintf(c->name, sizeof c->name, "%s", name);
}

/* Pins each rank to its own processor when the node has one for every
 * rank (as the peers do by default), so two busy ranks never share a core
 * while another sits idle. DMPI_BIND=0 turns it off. Also notes whether
 * the ranks outnumber the processors (waiting and collectives adapt). That
 * must be the same answer on every rank, since collectives choose their
 * algorithm by it: it counts the processors of all the ranks' affinity
 * masks together (node_cpus), not this rank's alone, which a launcher may
 * have narrowed to one core per rank or (by mistake) for some ranks only. */
static void bind_to_core(int local_rank, int local_size)
{
    dmpi_rt.oversubscribed = local_size > 1 && dmpi_shm.node_cpus < local_size;
    /* Whether waiting should spin is this rank's own question: two ranks
     * bound to one core should yield even when the node has cores to spare. */
    dmpi_rt.crowded = local_size > 1 && dmpi_shm.sharing > dmpi_shm.own_cpus;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    int ncpus = CPU_COUNT(&allowed);
    long mode = dmpi_knob(DMPI_KNOB_BIND);
    if (!mode || local_size < 2) return;
    if (ncpus < local_size && mode < 2) return;
    int seen = 0, want = local_rank % ncpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (seen++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

/* Across nodes the collectives' choice must still be the same on every
 * rank: the job counts as oversubscribed when any node is. The first rank
 * of each node publishes its node's answer. */
static int agree_oversubscribed(void)
{
    char key[32], val[8];
    int n = dmpi_rt.world_size, me = dmpi_rt.world_rank;
    const int *node_of = dmpi_rt.node_of + dmpi_rt.uni_base; /* this job's ranks */
    snprintf(key, sizeof key, "dmpi-osub-%d", me);
    if (dmpi_rt.local_rank == 0 && dmpi_pmi_put(key, dmpi_rt.oversubscribed ? "1" : "0") != 0)
        return -1;
    if (dmpi_pmi_barrier() != 0) return -1;
    for (int w = 0; w < n && !dmpi_rt.oversubscribed; w++) {
        bool first = true;
        for (int v = 0; v < w && first; v++) first = node_of[v] != node_of[w];
        if (!first || node_of[w] == dmpi_rt.node_id) continue;
        snprintf(key, sizeof key, "dmpi-osub-%d", w);
        if (dmpi_pmi_get(w, key, val, sizeof val) != 0) return -1;
        dmpi_rt.oversubscribed = val[0] == '1';
    }
    return 0;
}

static int init_world_objects(void)
{
    int n = dmpi_rt.world_size;
    int *ranks = malloc((size_t)n * sizeof(int));
    if (!ranks) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) ranks[i] = dmpi_rt.uni_base + i;
    world_group = (dmpi_group){DMPI_MAGIC_GROUP, 1, n, dmpi_rt.world_rank, ranks, true};
    self_world_rank[0] = dmpi_rt.uni_rank;
    self_group = (dmpi_group){DMPI_MAGIC_GROUP, 1, 1, 0, self_world_rank, true};
    init_comm(&dmpi_comm_world_obj, MPI_COMM_WORLD, &world_group, 0, "MPI_COMM_WORLD");
    init_comm(&dmpi_comm_self_obj, MPI_COMM_SELF, &self_group, 2, "MPI_COMM_SELF");
    return MPI_SUCCESS;
}

dmpi_group *dmpi_group_world(void) { return &world_group; }

/* The universe this job belongs to: $DMPI_UNIVERSE_BASE and
 * $DMPI_UNIVERSE_SIZE, set by dmpi's mpiexec (spawn.c, and its agents); a job
 * started otherwise is a universe of its own. */
static void init_universe(void)
{
    long base = 0, size = dmpi_rt.world_size;
    const char *b = getenv("DMPI_UNIVERSE_BASE");
    if (getenv("DMPI_UNIVERSE_ID") && b && *b) {
        base = strtol(b, NULL, 10);
        size = dmpi_knob_or(DMPI_KNOB_UNIVERSE_SIZE, size);
        if (base < 0 || base > 1 << 20) base = 0;
    }
    if (size < base + dmpi_rt.world_size) size = base + dmpi_rt.world_size;
    int told = dmpi_pmi_universe_size();
    dmpi_rt.uni_attr = told > 0 ? told : dmpi_rt.world_size;
    dmpi_rt.uni_base = (int)base;
    dmpi_rt.uni_size = (int)size;
    dmpi_rt.uni_rank = (int)base + dmpi_rt.world_rank;
}

/* Which ranks share this node (the launcher's process mapping). A job
 * other than the first numbers its nodes apart from every other job's
 * (node + base * 4096), so that all processes of a universe agree. */
static int init_nodes(void)
{
    int n = dmpi_rt.world_size, me = dmpi_rt.world_rank, base = dmpi_rt.uni_base;
    dmpi_rt.node_of = malloc((size_t)dmpi_rt.uni_size * sizeof(int));
    if (!dmpi_rt.node_of) return MPI_ERR_NO_MEM;
    for (int u = 0; u < dmpi_rt.uni_size; u++) dmpi_rt.node_of[u] = -1;
    int *job_nodes = dmpi_rt.node_of + base;
    if (dmpi_pmi_node_ids(n, job_nodes) != 0) {
        fprintf(stderr, "dmpi: MPI_Init: %s\n", dmpi_pmi_error());
        return MPI_ERR_OTHER;
    }
    if (base > 0)
        for (int w = 0; w < n; w++) job_nodes[w] = job_nodes[w] % 4096 + base * 4096;
    dmpi_rt.node_id = job_nodes[me];
    dmpi_rt.local_rank = dmpi_rt.local_size = dmpi_rt.nnodes = 0;
    for (int w = 0; w < n; w++) {
        bool first = true; /* first rank of its node: count the node */
        for (int v = 0; v < w && first; v++) first = job_nodes[v] != job_nodes[w];
        dmpi_rt.nnodes += first;
        if (job_nodes[w] != dmpi_rt.node_id) continue;
        if (w < me) dmpi_rt.local_rank++;
        dmpi_rt.local_size++;
    }
    return MPI_SUCCESS;
}

int dmpi_runtime_init(int required, int *provided)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&big_lock, &a);
    pthread_mutexattr_destroy(&a);
    dmpi_rt.wtime_base = dmpi_now();
    dmpi_rt.main_thread = pthread_self();
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_SINGLE;
    dmpi_set_thread_level(required);
    if (provided) *provided = required;

    int rank, size, appnum;
    if (dmpi_pmi_init(&rank, &size, &appnum) != 0) {
        fprintf(stderr, "dmpi: MPI_Init: cannot start under the launcher: %s\n", dmpi_pmi_error());
        return MPI_ERR_OTHER;
    }
    dmpi_rt.world_rank = rank;
    dmpi_rt.world_size = size;
    dmpi_rt.appnum = appnum;
    init_universe();
    dmpi_datatype_init();
    int rc = init_world_objects();
    if (rc != MPI_SUCCESS) return rc;
    rc = init_nodes();
    if (rc != MPI_SUCCESS) return rc;
    if (dmpi_tp_init(dmpi_rt.uni_rank, dmpi_rt.uni_size, dmpi_rt.uni_base, size, dmpi_rt.node_of) != 0)
        return MPI_ERR_OTHER;
    bind_to_core(dmpi_rt.local_rank, dmpi_rt.local_size); /* before p2p init */
    if (dmpi_rt.nnodes > 1 && agree_oversubscribed() != 0) return MPI_ERR_OTHER;
    rc = dmpi_p2p_init();
    if (rc != MPI_SUCCESS) return rc;
    dmpi_rt.initialized = true;
    return MPI_SUCCESS;
}

int dmpi_runtime_finalize(void)
{
    dmpi_dyn_finalize();
    dmpi_p2p_finalize();
    dmpi_coll_finalize();
    dmpi_tp_finalize();
    free(dmpi_rt.node_of);
    dmpi_rt.node_of = NULL;
    dmpi_pmi_finalize();
    dmpi_rt.finalized = true;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ handles */

dmpi_comm *dmpi_comm_get(MPI_Comm h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v == (uintptr_t)(void *)MPI_COMM_WORLD) return &dmpi_comm_world_obj;
    if (v == (uintptr_t)(void *)MPI_COMM_SELF) return &dmpi_comm_self_obj;
    if (v < 0x1000) return NULL;
    dmpi_comm *c = (dmpi_comm *)(void *)h;
    return c->magic == DMPI_MAGIC_COMM ? c : NULL;
}

dmpi_errhandler *dmpi_errhandler_get(MPI_Errhandler h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v == (uintptr_t)(void *)MPI_ERRORS_ARE_FATAL) return &dmpi_errh_fatal;
    if (v == (uintptr_t)(void *)MPI_ERRORS_RETURN) return &dmpi_errh_return;
    if (v == (uintptr_t)(void *)MPI_ERRORS_ABORT) return &dmpi_errh_abort;
    if (v < 0x1000) return NULL;
    dmpi_errhandler *e = (dmpi_errhandler *)(void *)h;
    return e->magic == DMPI_MAGIC_ERRH ? e : NULL;
}

MPI_Errhandler dmpi_errhandler_handle(dmpi_errhandler *e)
{
    if (e == &dmpi_errh_fatal) return MPI_ERRORS_ARE_FATAL;
    if (e == &dmpi_errh_return) return MPI_ERRORS_RETURN;
    if (e == &dmpi_errh_abort) return MPI_ERRORS_ABORT;
    return (MPI_Errhandler)(void *)e;
}
