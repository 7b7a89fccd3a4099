/* libdmpi_profile.so core: per-thread counters (merged at MPI_Finalize),
 * the tick clock and its calibration, the wrappers of MPI_Init and
 * MPI_Init_thread, and the translation of communicator and window ranks to
 * MPI_COMM_WORLD ranks, cached on the object as an attribute. */
#define _GNU_SOURCE
#include "prof.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct prof_glob prof_g = {.sample_ticks = 3000}; /* 1 us at 3 GHz until MPI_Init measures */
PROF_TLS struct prof_thr *prof_self;
int64_t prof_predef_size[PROF_NPREDEF];
uint64_t prof_t_init, prof_t_fin;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct prof_thr *threads; /* every thread's counters, kept past thread exit */
static uint64_t cal_tick0, cal_ns0;  /* at load: the tick clock's calibration start */
static MPI_Group world_group = MPI_GROUP_NULL;
static int comm_key = MPI_KEYVAL_INVALID, win_key = MPI_KEYVAL_INVALID;
#define gen prof_g.gen

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t prof_now_slow(void) { return mono_ns(); }

__attribute__((constructor)) static void prof_load(void)
{
    cal_tick0 = prof_now();
    cal_ns0 = mono_ns();
}

double prof_ns_per_tick(void)
{
    uint64_t t = prof_now(), ns = mono_ns();
    return t > cal_tick0 && ns > cal_ns0 ? (double)(ns - cal_ns0) / (double)(t - cal_tick0) : 1.0;
}

struct prof_thr *prof_thr_new(void)
{
    struct prof_thr *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64); /* the counters' cache lines */
    if (!t) abort();
    memset(t, 0, sizeof *t); /* no window or datatype cached (wn, dtsize 0) */
    pthread_mutex_lock(&lock);
    t->rng = (0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)t ^ prof_now()) | 1;
    t->next = threads;
    threads = t;
    pthread_mutex_unlock(&lock);
    prof_self = t;
    return t;
}

uint64_t *prof_mat_new(struct prof_thr *t)
{
    return t->mat = calloc((size_t)PROF_NKIND * (size_t)prof_g.nranks * 2, sizeof *t->mat);
}

/* ---- MPI_Pcontrol: 0 pauses, any other level resumes */

int prof_pcontrol_used;
uint64_t prof_paused_ticks;
static uint64_t pause_tick;

PROF_EXPORT int MPI_Pcontrol(const int level, ...)
{
    pthread_mutex_lock(&lock);
    uint64_t now = prof_now();
    prof_pcontrol_used = 1;
    if (level == 0 && !prof_g.paused) {
        pause_tick = now;
        prof_g.paused = 1;
    } else if (level != 0 && prof_g.paused) {
        prof_paused_ticks += now - pause_tick;
        prof_g.paused = 0;
    }
    pthread_mutex_unlock(&lock);
    return PMPI_Pcontrol(level);
}

void prof_pause_end(uint64_t now) /* at MPI_Finalize: a pause lasts until then */
{
    if (prof_g.paused) prof_paused_ticks += now - pause_tick, prof_g.paused = 0;
}

void prof_merge(struct prof_thr *m)
{
    memset(m, 0, sizeof *m);
    size_t nm = (size_t)PROF_NKIND * (size_t)prof_g.nranks * 2;
    m->mat = calloc(nm ? nm : 1, sizeof *m->mat);
    pthread_mutex_lock(&lock);
    for (struct prof_thr *t = threads; t; t = t->next) {
        for (int i = 0; i < PROF_NFUNC; i++) { /* ticks: the estimate of all calls */
            const struct prof_fn *f = &t->fn[i];
            const struct prof_time *tm = &t->tm[i];
            m->fn[i].calls += f->calls;
            m->tm[i].ticks += tm->timed ? (uint64_t)((double)tm->ticks * (double)f->calls / (double)tm->timed) : 0;
            m->fn[i].bytes += f->bytes;
            m->tm[i].timed += tm->timed;
            m->tm[i].sampled |= tm->sampled || tm->timed < f->calls;
        }
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < PROF_NBUCKET; b++) m->hist[k][b] += t->hist[k][b];
        if (t->mat && m->mat)
            for (size_t i = 0; i < nm; i++) m->mat[i] += t->mat[i];
    }
    pthread_mutex_unlock(&lock);
}

int64_t prof_type_size_slow(MPI_Datatype dt)
{
    MPI_Count sz = 0;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size_c(dt, &sz) != MPI_SUCCESS || sz < 0) return -1;
    uintptr_t h = (uintptr_t)dt;
    if (h < PROF_NPREDEF && sz > 0) prof_predef_size[h] = sz; /* predefined: never freed */
    return sz;
}

/* a freed datatype's handle may come back as another type: the sizes the
 * one-sided functions cached (struct prof_fn) are valid while prof_g.gen is */
PROF_EXPORT int MPI_Type_free(MPI_Datatype *datatype)
{
    uint64_t t0 = prof_start(P_MPI_Type_free);
    int rc = PMPI_Type_free(datatype);
    prof_add(P_MPI_Type_free, t0, prof_stop(t0), 0);
    if (rc == MPI_SUCCESS) gen++;
    return rc;
}

/* ---- rank translation: int map[size] cached as an attribute */

#define map prof_map
static struct map *world_map;

static int drop_map(void *obj, int key, void *val, void *extra)
{
    gen++;
    free(val);
    return MPI_SUCCESS;
}
static int drop_comm_map(MPI_Comm c, int k, void *v, void *x) { return drop_map(0, k, v, x); }
static int drop_win_map(MPI_Win w, int k, void *v, void *x) { return drop_map(0, k, v, x); }

static struct map *make_map(MPI_Group g)
{
    int n = 0, me = MPI_UNDEFINED;
    PMPI_Group_size(g, &n);
    PMPI_Group_rank(g, &me);
    struct map *m = malloc(sizeof *m + sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *in = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!m || !in) {
        free(m);
        free(in);
        return NULL;
    }
    m->n = n;
    m->me = me == MPI_UNDEFINED ? -1 : me;
    m->inter = 0;
    for (int i = 0; i < n; i++) in[i] = i;
    if (n > 0 && PMPI_Group_translate_ranks(g, n, in, world_group, m->r) != MPI_SUCCESS)
        for (int i = 0; i < n; i++) m->r[i] = -1;
    for (int i = 0; i < n; i++)
        if (m->r[i] == MPI_UNDEFINED) m->r[i] = -1;
    free(in);
    return m;
}

static struct map *comm_map(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (comm_key != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(comm, comm_key, &v, &flag) == MPI_SUCCESS && flag)
        return v;
    pthread_mutex_lock(&lock);
    if (comm_key == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_comm_map, &comm_key, NULL);
    struct map *m = NULL;
    if (PMPI_Comm_get_attr(comm, comm_key, &v, &flag) == MPI_SUCCESS && flag) {
        m = v;
    } else {
        int inter = 0;
        MPI_Group g = MPI_GROUP_NULL;
        PMPI_Comm_test_inter(comm, &inter);
        if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) == MPI_SUCCESS) {
            m = make_map(g);
            PMPI_Group_free(&g);
            if (m && inter) {
                m->inter = 1;
                PMPI_Comm_rank(comm, &m->me);
            }
            if (m && PMPI_Comm_set_attr(comm, comm_key, m) != MPI_SUCCESS) {
                free(m);
                m = NULL;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return m;
}

static PROF_TLS MPI_Comm last_comm = MPI_COMM_NULL;
static PROF_TLS struct map *last_map;
static PROF_TLS unsigned last_gen;

const struct map *prof_comm(MPI_Comm comm)
{
    if (prof_g.nranks == 0) return NULL;
    if (comm == MPI_COMM_WORLD) return world_map;
    if (comm == last_comm && last_gen == gen) return last_map;
    unsigned g = gen;
    struct map *m = comm_map(comm);
    if (m) {
        last_comm = comm;
        last_map = m;
        last_gen = g;
    }
    return m;
}

int prof_peer(MPI_Comm comm, int rank)
{
    if (rank < 0) return -1; /* MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT */
    const struct map *m = prof_comm(comm);
    return m && rank < m->n ? m->r[rank] : -1;
}

static struct map *win_map(MPI_Win win)
{
    void *v = NULL;
    int flag = 0;
    if (win_key != MPI_KEYVAL_INVALID && PMPI_Win_get_attr(win, win_key, &v, &flag) == MPI_SUCCESS && flag)
        return v;
    struct map *m = NULL;
    pthread_mutex_lock(&lock);
    if (win_key == MPI_KEYVAL_INVALID)
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, drop_win_map, &win_key, NULL);
    if (PMPI_Win_get_attr(win, win_key, &v, &flag) == MPI_SUCCESS && flag) {
        m = v;
    } else {
        MPI_Group g = MPI_GROUP_NULL;
        if (PMPI_Win_get_group(win, &g) == MPI_SUCCESS) {
            m = make_map(g);
            PMPI_Group_free(&g);
            if (m && PMPI_Win_set_attr(win, win_key, m) != MPI_SUCCESS) {
                free(m);
                m = NULL;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return m;
}

void prof_rma_slow(struct prof_fn *f, MPI_Win win, int target, uint64_t n)
{
    if (target < 0 || prof_g.nranks == 0 || prof_g.paused) return; /* MPI_PROC_NULL: no traffic */
    struct prof_thr *t = prof_thr();
    unsigned g = gen;
    const struct map *m = win_map(win);
    if (!m || !(t->mat || prof_mat_new(t))) return;
    int ident = 1; /* a window of MPI_COMM_WORLD: no lookup per call */
    for (int i = 0; i < m->n && ident; i++) ident = m->r[i] == i;
    f->win = win;
    f->wr = ident ? NULL : m->r;
    f->wn = m->n;
    f->wgen = g;
    f->rma = t->mat + (size_t)PROF_RMA * (size_t)prof_g.nranks * 2;
    prof_msg(PROF_RMA, target >= 0 && target < m->n ? m->r[target] : -1, n);
}

/* ---- MPI_Init, MPI_Init_thread */

void prof_after_init(void)
{
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    world_map = make_map(world_group);
    if (world_map) PMPI_Comm_size(MPI_COMM_WORLD, &prof_g.nranks);
    prof_t_init = prof_now();
    prof_g.sample_ticks = (uint64_t)(1000.0 / prof_ns_per_tick()) + 1;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        uint64_t a = prof_now(), b = prof_now();
        if (b - a < least) least = b - a;
    }
    prof_g.clock_ticks = least;
}

PROF_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t0 = prof_start(P_MPI_Init);
    int rc = PMPI_Init(argc, argv);
    prof_add(P_MPI_Init, t0, prof_stop(t0), 0);
    if (rc == MPI_SUCCESS) prof_after_init();
    return rc;
}

PROF_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t0 = prof_start(P_MPI_Init_thread);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    prof_add(P_MPI_Init_thread, t0, prof_stop(t0), 0);
    if (rc == MPI_SUCCESS) prof_after_init();
    return rc;
}
