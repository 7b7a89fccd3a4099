/* Unit test of the PMIx backend (src/pmi/pmix.c) on its own, without the
 * front (pmi.c): this file provides dmpi_pmi_fail and dmpi_pmi_timeout_ms.
 *
 * Run plainly (the test suite) it checks the environment test and that
 * connecting to a PMIx server that is not there fails with a reason,
 * quickly. Run under a PMIx server it checks the whole backend and times
 * PMIx_Fence:
 *
 *     srun --mpi=pmix -n 4 build/tests/unit/test_pmix_backend [iterations]
 */
#include "pmi/pmi_backend.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char reason[1024];

void dmpi_pmi_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
}

int dmpi_pmi_timeout_ms(void)
{
    const char *s = getenv("DMPI_PMI_TIMEOUT");
    int sec = s ? atoi(s) : 300;
    return sec <= 0 ? -1 : sec * 1000;
}

static int failures;
static int me = -1;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "FAIL [rank %d] %s:%d: ", me, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, " (last reason: %s)\n", reason);              \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ------------------------------------------------ without a PMIx server */

static void clear_pmix_env(void)
{
    static const char *names[] = {"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI",
                                  "PMIX_SERVER_URI2", "PMIX_SERVER_URI21", "PMIX_SERVER_URI3",
                                  "PMIX_SERVER_URI4", "PMIX_SERVER_URI41"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}

/* Connects in a child with the given server URI; the child must come back
 * with NULL and a reason within 30 s. */
static void bogus_connect(const char *uri)
{
    fflush(NULL);
    double t0 = now_us();
    pid_t pid = fork();
    if (pid == 0) {
        clear_pmix_env();
        setenv("PMIX_NAMESPACE", "dmpi-test-nospace", 1);
        setenv("PMIX_RANK", "0", 1);
        const char *vers[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                              "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"};
        for (size_t i = 0; i < sizeof vers / sizeof vers[0]; i++) setenv(vers[i], uri, 1);
        alarm(30);
        dmpi_pmi_job job;
        const dmpi_pmi_backend *b = dmpi_pmix_connect(&job);
        if (b) {
            fprintf(stderr, "connect to \"%s\" succeeded (rank %d of %d, job %s)\n", uri,
                    job.rank, job.size, job.jobid);
            _exit(1);
        }
        printf("  connect to \"%s\": NULL, %s\n", uri, reason);
        _exit(reason[0] ? 0 : 2);
    }
    int st;
    waitpid(pid, &st, 0);
    double ms = (now_us() - t0) / 1e3;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bogus server \"%s\": child %s %d", uri,
          WIFSIGNALED(st) ? "killed by signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    printf("  (%.0f ms)\n", ms);
}

static int run_plain(void)
{
    char *saved_ns = getenv("PMIX_NAMESPACE");
    (void)saved_ns;
    clear_pmix_env();
    CHECK(!dmpi_pmix_in_env(), "in_env without PMIX_*");
    setenv("PMIX_NAMESPACE", "x", 1);
    CHECK(!dmpi_pmix_in_env(), "in_env with PMIX_NAMESPACE alone");
    setenv("PMIX_RANK", "0", 1);
    CHECK(dmpi_pmix_in_env(), "in_env with PMIX_NAMESPACE and PMIX_RANK");
    unsetenv("PMIX_RANK");
    setenv("PMIX_SERVER_URI41", "x", 1);
    CHECK(dmpi_pmix_in_env(), "in_env with PMIX_NAMESPACE and PMIX_SERVER_URI41");
    unsetenv("PMIX_NAMESPACE");
    CHECK(!dmpi_pmix_in_env(), "in_env with PMIX_SERVER_URI41 alone");
    clear_pmix_env();

    printf("connecting to servers that are not there:\n");
    bogus_connect("bogus");
    bogus_connect("pmix-server.1;tcp4://127.0.0.1:1");
    bogus_connect("pmix-server.1;/nonexistent/pmix.sock");
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}

/* ------------------------------------------------ under a PMIx server */

static const char *node_name(void)
{
    static char host[256];
    const char *s = getenv("SLURMD_NODENAME");
    if (s) return s;
    gethostname(host, sizeof host - 1);
    return host;
}

static void fill(char *buf, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + (i * 7 + (size_t)rank) % 26);
    buf[n] = '\0';
}

static int run_server(int iters)
{
    dmpi_pmi_job job;
    memset(&job, 0, sizeof job);
    double t0 = now_us();
    const dmpi_pmi_backend *b = dmpi_pmix_connect(&job);
    double t_connect = now_us() - t0;
    if (!b) {
        fprintf(stderr, "FAIL connect: %s\n", reason);
        return 1;
    }
    me = job.rank;
    int size = job.size;
    CHECK(strcmp(b->name, "PMIx") == 0, "name %s", b->name);
    CHECK(job.fd == -1, "fd %d", job.fd);
    CHECK(job.jobid[0] != '\0', "empty jobid");
    const char *e = getenv("PMIX_RANK");
    if (e) CHECK(atoi(e) == me, "rank %d, PMIX_RANK %s", me, e);
    if ((e = getenv("SLURM_PROCID"))) CHECK(atoi(e) == me, "rank %d, SLURM_PROCID %s", me, e);
    if ((e = getenv("SLURM_NTASKS"))) CHECK(atoi(e) == size, "size %d, SLURM_NTASKS %s", size, e);
    if (me == 0)
        printf("connected: rank %d of %d, appnum %d, job \"%s\", limits key %d value %d, %.0f us\n",
               me, size, job.appnum, job.jobid, b->keylen_max, b->vallen_max, t_connect);

    /* puts: a long value, a short one, and this rank's node name */
    char key[64], *val = malloc((size_t)b->vallen_max + 1), *got = malloc((size_t)b->vallen_max + 1);
    int vlen = b->vallen_max;
    fill(val, (size_t)vlen, me);
    snprintf(key, sizeof key, "dmpi-test-long-%d", me);
    CHECK(b->put(key, val) == 0, "put %s", key);
    snprintf(key, sizeof key, "dmpi-test-%d", me);
    char shortv[64];
    snprintf(shortv, sizeof shortv, "short-%d", me);
    CHECK(b->put(key, shortv) == 0, "put %s", key);
    snprintf(key, sizeof key, "dmpi-node-%d", me);
    CHECK(b->put(key, node_name()) == 0, "put %s", key);
    char longkey[80];
    memset(longkey, 'k', 64);
    longkey[64] = '\0';
    CHECK(b->put(longkey, "x") == -1, "a 64-byte key was accepted");
    /* our own value is there before the fence */
    snprintf(key, sizeof key, "dmpi-test-%d", me);
    CHECK(b->get(me, key, got, 64) == 0 && strcmp(got, shortv) == 0, "own get before fence");

    t0 = now_us();
    CHECK(b->fence() == 0, "fence");
    double t_first = now_us() - t0;

    /* every rank's values, by owner */
    t0 = now_us();
    char (*nodes)[256] = calloc((size_t)size, sizeof *nodes);
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "dmpi-test-%d", r);
        snprintf(shortv, sizeof shortv, "short-%d", r);
        CHECK(b->get(r, key, got, 64) == 0 && strcmp(got, shortv) == 0, "get %s", key);
        snprintf(key, sizeof key, "dmpi-test-long-%d", r);
        fill(val, (size_t)vlen, r);
        CHECK(b->get(r, key, got, vlen + 1) == 0 && strcmp(got, val) == 0, "get %s", key);
        CHECK(b->get(r, key, got, vlen) == -1, "get %s into a buffer one byte short", key);
        snprintf(key, sizeof key, "dmpi-node-%d", r);
        CHECK(b->get(r, key, nodes[r], 256) == 0, "get %s", key);
    }
    double t_gets = now_us() - t0;
    /* a key nobody put: -1, at once */
    t0 = now_us();
    CHECK(b->get((me + 1) % size, "dmpi-never-put", got, 64) == -1, "get of a missing key");
    double t_missing = now_us() - t0;
    if (me == 0) printf("missing key: -1 in %.0f us: %s\n", t_missing, reason);
    CHECK(b->get(size, "dmpi-test-0", got, 64) == -1, "get from rank %d", size);
    /* owner unknown: PMIX_RANK_UNDEF */
    snprintf(key, sizeof key, "dmpi-test-%d", (me + 1) % size);
    snprintf(shortv, sizeof shortv, "short-%d", (me + 1) % size);
    int undef = b->get(-1, key, got, 64);
    if (me == 0)
        printf("get with owner -1 (PMIX_RANK_UNDEF): %s\n",
               undef == 0 ? (strcmp(got, shortv) == 0 ? "works" : "WRONG VALUE") : reason);
    CHECK(undef != 0 || strcmp(got, shortv) == 0, "owner -1 gave %s", got);

    /* node ids: ranks share a node id exactly when they share a node name */
    int *node_of = malloc(sizeof(int) * (size_t)size);
    t0 = now_us();
    CHECK(b->node_ids(size, node_of) == 0, "node_ids");
    double t_nodes = now_us() - t0;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++)
            CHECK((node_of[i] == node_of[j]) == (strcmp(nodes[i], nodes[j]) == 0),
                  "ranks %d (%s, node id %d) and %d (%s, node id %d)", i, nodes[i], node_of[i], j,
                  nodes[j], node_of[j]);
    if (me == 0) {
        printf("node ids:");
        for (int i = 0; i < size; i++) printf(" %d", node_of[i]);
        printf(" (%.0f us)\n", t_nodes);
    }
    CHECK(b->node_ids(size + 1, node_of) == -1, "node_ids with the wrong size");
    if (me == 0) printf("node_ids(size+1): %s\n", reason);
    CHECK(b->job_attr("PMI_process_mapping", got, 64) == -1, "PMI_process_mapping");

    /* timings: an empty fence, and a put of a 100-byte value + fence +
     * get of a peer's (one address exchange) */
    double t_empty = 0, t_xchg = 0, t_xchg_first = 0, t_xchg_last = 0;
    for (int it = 0; it < iters; it++) {
        t0 = now_us();
        CHECK(b->fence() == 0, "fence %d", it);
        t_empty += now_us() - t0;
    }
    for (int it = 0; it < iters; it++) {
        char v[101];
        fill(v, 100, me + it);
        snprintf(key, sizeof key, "dmpi-x-%d-%d", it, me);
        t0 = now_us();
        CHECK(b->put(key, v) == 0, "put %s", key);
        CHECK(b->fence() == 0, "fence");
        int peer = (me + 1) % size;
        snprintf(key, sizeof key, "dmpi-x-%d-%d", it, peer);
        CHECK(b->get(peer, key, got, 128) == 0, "get %s", key);
        double dt = now_us() - t0;
        t_xchg += dt;
        if (it == 0) t_xchg_first = dt;
        if (it == iters - 1) t_xchg_last = dt;
        fill(v, 100, peer + it);
        CHECK(strcmp(got, v) == 0, "value of %s", key);
    }
    /* everyone's 100-byte value after one fence (the all-to-all start) */
    t0 = now_us();
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "dmpi-x-0-%d", r);
        CHECK(b->get(r, key, got, 128) == 0, "get %s", key);
    }
    double t_all = now_us() - t0;
    printf("rank %d: %d ranks: first fence %.0f us, gets after it %.0f us; mean of %d: "
           "empty fence %.1f us, put+fence+get %.1f us (first %.0f, last %.0f); "
           "%d gets %.1f us\n",
           me, size, t_first, t_gets, iters, t_empty / (iters ? iters : 1),
           t_xchg / (iters ? iters : 1), t_xchg_first, t_xchg_last, size, t_all);

    CHECK(b->finalize() == 0, "finalize");
    free(node_of);
    free(nodes);
    free(val);
    free(got);
    if (failures)
        fprintf(stderr, "FAIL rank %d: %d failure(s)\n", me, failures);
    else if (me == 0)
        printf("PASS\n");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!dmpi_pmix_in_env()) return run_plain();
    return run_server(argc > 1 ? atoi(argv[1]) : 100);
}
