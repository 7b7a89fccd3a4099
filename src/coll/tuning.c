/* Algorithm choice for the collectives: one table of rules, read top to
 * bottom, first match wins. The thresholds come from bench/coll_tune.sh on
 * a 16-core node, 2 to 8 ranks with a core each (shared-memory transport
 * with single-copy rendezvous); rerun it to retune. A rule matches a collective when the
 * communicator has at least min_ranks processes and the call moves at most
 * max_bytes, where "bytes" is
 *   bcast, reduce, allreduce:             count * type size
 *   gather, scatter, allgather, alltoall: one process's block * nranks
 *                                          (all the data at the root / at
 *                                          each process)
 *   allgatherv, alltoallv/w:              the data one process receives
 *   reduce_scatter(_block):               the whole vector (count * size)
 * An algorithm that cannot run on a call (recursive doubling allgather on a
 * non-power-of-two size, Rabenseifner with fewer elements than processes,
 * ring allreduce or pairwise reduce-scatter with a non-commutative op)
 * falls back to a general one by itself.
 *
 * "shm" (coll/shm_coll.c) is only for blocking calls on one node; when it
 * cannot run a call, the first other rule that matches is taken.
 *
 * Environment override, per collective:
 *   DMPI_COLL_<NAME>_ALGO=<algorithm>    (or "auto", the default)
 *   NAME: BARRIER BCAST REDUCE ALLREDUCE GATHER SCATTER ALLGATHER ALLTOALL
 *         GATHERV SCATTERV ALLGATHERV ALLTOALLV ALLTOALLW REDUCE_SCATTER
 *         REDUCE_SCATTER_BLOCK SCAN EXSCAN
 *   algorithm: a name from algo_names below, e.g.
 *   DMPI_COLL_ALLREDUCE_ALGO=rabenseifner, DMPI_COLL_BCAST_ALGO=binomial.
 * An unknown name is reported once on stderr and ignored. */
#include "coll/coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY ((MPI_Count)1 << 62)
#define KiB ((MPI_Count)1024)

#define SHM DMPI_COLL_ALGO_SHM
#define DIRECT DMPI_COLL_ALGO_DIRECT

/* Which runs a rule is for: any, only when every rank has a processor of
 * its own, or only when the ranks outnumber the processors. */
enum { ALL_LOADS, DEDICATED, OVERSUBSCRIBED };

static const struct rule {
    int coll, min_ranks;
    MPI_Count max_bytes;
    int algo;
    int load;
} rules[] = {
    /* Shared memory (shm_coll.c), for blocking calls; it falls back by
     * itself when the data does not fit a slot (DMPI_COLL_SHM_SLOT). The
     * limits come from bench/coll_bench.c on 2 cores, shm against the
     * best point-to-point algorithm (src/coll/README.md). With
     * the shared malloc heap, large point-to-point messages are one
     * memcpy, which beats the two copies through the slots. When ranks
     * outnumber cores, rooted point-to-point collectives win at small
     * sizes, except for data that fits the 56 inline bytes of the lines
     * (64 generations of lines, 4 of slots): the root runs ahead without
     * waiting to be scheduled. */
    {DMPI_COLL_BARRIER, 2, ANY, SHM, ALL_LOADS},
    {DMPI_COLL_ALLREDUCE, 2, 4 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_BCAST, 2, 4 * KiB, SHM, DEDICATED},
    {DMPI_COLL_BCAST, 2, 56, SHM, OVERSUBSCRIBED}, /* inline in the lines: 63 epochs ahead */
    {DMPI_COLL_REDUCE, 2, 8 * KiB, SHM, DEDICATED},
    {DMPI_COLL_REDUCE, 2, 56, SHM, OVERSUBSCRIBED},
    {DMPI_COLL_REDUCE, 2, 4 * KiB, DMPI_REDUCE_BINOMIAL, OVERSUBSCRIBED},
    {DMPI_COLL_REDUCE, 2, 16 * KiB, SHM, OVERSUBSCRIBED},
    {DMPI_COLL_GATHER, 2, 8 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_SCATTER, 2, 8 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_ALLGATHER, 2, 8 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_ALLTOALL, 2, 8 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_ALLGATHERV, 2, 8 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_REDUCE_SCATTER, 2, 4 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_REDUCE_SCATTER_BLOCK, 2, 4 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_SCAN, 2, 4 * KiB, SHM, ALL_LOADS},
    {DMPI_COLL_EXSCAN, 2, 4 * KiB, SHM, ALL_LOADS},
    /* Beyond those sizes the one-copy algorithms (shm_direct.c) copy
     * straight between the buffers. Against the point-to-point algorithms,
     * 2 ranks on 2 cores, 16 KiB / 64 KiB / 1 MiB: allgather 0.27 / 0.07 /
     * 0.23 of the time, allreduce 0.25 / 0.33 / 0.15, alltoall 0.28 / 0.34 /
     * 0.65, bcast 0.11 / 0.28 / 0.76, reduce 0.23 / 0.53 / 0.49; 4 ranks on
     * 2 cores, 0.16-0.71 at 64 KiB and 1 MiB, but bcast 16 KiB is no faster
     * than the binomial tree. Against the slots, the one-copy way wins from
     * 8 KiB (16 KiB for reductions) with buffers outside the heap, where
     * each copy is a system call (2 ranks, shm / direct, us: allgather 4K
     * blocks 3.18 / 3.28, 8K 5.85 / 3.81; allreduce 8K 6.40 / 6.52, 16K 12.4
     * / 7.7; bcast 4K 1.42 / 2.21, 8K 4.47 / 2.55; reduce 8K 3.52 / 4.76,
     * 16K 7.62 / 5.73); with heap buffers (large mallocs) it wins earlier.
     * 4 ranks on 2 cores, allreduce 8K: shm 11.0, direct 7.4. */
    {DMPI_COLL_BCAST, 2, 32 * KiB, DMPI_BCAST_BINOMIAL, OVERSUBSCRIBED},
    {DMPI_COLL_BCAST, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_REDUCE, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_ALLREDUCE, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_GATHER, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_SCATTER, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_ALLGATHER, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_ALLTOALL, 2, ANY, DIRECT, ALL_LOADS},
    {DMPI_COLL_ALLGATHERV, 2, ANY, DIRECT, ALL_LOADS},
    /* For the schedules (nonblocking, persistent, or no shared memory):
     * with more ranks than cores the binomial tree beat Rabenseifner at
     * 64 KiB (8 ranks on 2 cores: 33 against 85-126 us). */
    {DMPI_COLL_REDUCE, 2, 256 * KiB, DMPI_REDUCE_BINOMIAL, OVERSUBSCRIBED},
    {DMPI_COLL_BARRIER, 0, ANY, DMPI_BARRIER_DISSEMINATION},
    /* With single-copy rendezvous the binomial tree beat scatter + ring
     * allgather at every size up to 8 ranks (bench/coll_tune.sh). */
    {DMPI_COLL_BCAST, 16, 256 * KiB, DMPI_BCAST_BINOMIAL},
    {DMPI_COLL_BCAST, 16, ANY, DMPI_BCAST_SCATTER_RING},
    {DMPI_COLL_BCAST, 0, ANY, DMPI_BCAST_BINOMIAL},
    {DMPI_COLL_REDUCE, 4, 8 * KiB, DMPI_REDUCE_BINOMIAL},
    {DMPI_COLL_REDUCE, 4, ANY, DMPI_REDUCE_RABENSEIFNER},
    {DMPI_COLL_REDUCE, 0, ANY, DMPI_REDUCE_BINOMIAL},
    {DMPI_COLL_ALLREDUCE, 0, 16 * KiB, DMPI_ALLREDUCE_RECURSIVE_DOUBLING},
    {DMPI_COLL_ALLREDUCE, 0, 256 * KiB, DMPI_ALLREDUCE_RABENSEIFNER},
    {DMPI_COLL_ALLREDUCE, 8, ANY, DMPI_ALLREDUCE_RABENSEIFNER},
    {DMPI_COLL_ALLREDUCE, 0, ANY, DMPI_ALLREDUCE_RING},
    {DMPI_COLL_GATHER, 0, 64 * KiB, DMPI_GATHER_BINOMIAL},
    {DMPI_COLL_GATHER, 0, ANY, DMPI_GATHER_LINEAR},
    {DMPI_COLL_SCATTER, 0, 64 * KiB, DMPI_SCATTER_BINOMIAL},
    {DMPI_COLL_SCATTER, 0, ANY, DMPI_SCATTER_LINEAR},
    {DMPI_COLL_ALLGATHER, 0, 64 * KiB, DMPI_ALLGATHER_RECURSIVE_DOUBLING},
    {DMPI_COLL_ALLGATHER, 0, ANY, DMPI_ALLGATHER_RING},
    {DMPI_COLL_ALLTOALL, 8, 512, DMPI_ALLTOALL_BRUCK},
    {DMPI_COLL_ALLTOALL, 0, 256 * KiB, DMPI_ALLTOALL_LINEAR},
    {DMPI_COLL_ALLTOALL, 0, ANY, DMPI_ALLTOALL_PAIRWISE},
    {DMPI_COLL_ALLGATHERV, 0, 16 * KiB, DMPI_ALLGATHERV_LINEAR},
    {DMPI_COLL_ALLGATHERV, 0, ANY, DMPI_ALLGATHERV_RING},
    {DMPI_COLL_ALLTOALLV, 0, 256 * KiB, DMPI_ALLTOALLV_LINEAR},
    {DMPI_COLL_ALLTOALLV, 0, ANY, DMPI_ALLTOALLV_PAIRWISE},
    {DMPI_COLL_ALLTOALLW, 0, 256 * KiB, DMPI_ALLTOALLV_LINEAR},
    {DMPI_COLL_ALLTOALLW, 0, ANY, DMPI_ALLTOALLV_PAIRWISE},
    {DMPI_COLL_REDUCE_SCATTER, 0, 64 * KiB, DMPI_REDUCE_SCATTER_REDUCE_SCATTERV},
    {DMPI_COLL_REDUCE_SCATTER, 0, ANY, DMPI_REDUCE_SCATTER_PAIRWISE},
    {DMPI_COLL_REDUCE_SCATTER_BLOCK, 0, 64 * KiB, DMPI_REDUCE_SCATTER_REDUCE_SCATTERV},
    {DMPI_COLL_REDUCE_SCATTER_BLOCK, 0, ANY, DMPI_REDUCE_SCATTER_PAIRWISE},
};

#define NALGOS 5

/* Algorithm names, indexed by the per-collective enums of coll.h. */
static const char *const algo_names[DMPI_COLL_NCOLLS][NALGOS] = {
    [DMPI_COLL_BARRIER] = {"dissemination", "tree", NULL, "shm"},
    [DMPI_COLL_BCAST] = {"binomial", "scatter_ring", NULL, "shm", "direct"},
    [DMPI_COLL_REDUCE] = {"binomial", "rabenseifner", NULL, "shm", "direct"},
    [DMPI_COLL_ALLREDUCE] = {"recursive_doubling", "rabenseifner", "ring", "shm", "direct"},
    [DMPI_COLL_GATHER] = {"binomial", "linear", NULL, "shm", "direct"},
    [DMPI_COLL_SCATTER] = {"binomial", "linear", NULL, "shm", "direct"},
    [DMPI_COLL_ALLGATHER] = {"recursive_doubling", "bruck", "ring", "shm", "direct"},
    [DMPI_COLL_ALLTOALL] = {"linear", "pairwise", "bruck", "shm", "direct"},
    [DMPI_COLL_GATHERV] = {"linear"},
    [DMPI_COLL_SCATTERV] = {"linear"},
    [DMPI_COLL_ALLGATHERV] = {"ring", "linear", NULL, "shm", "direct"},
    [DMPI_COLL_ALLTOALLV] = {"linear", "pairwise"},
    [DMPI_COLL_ALLTOALLW] = {"linear", "pairwise"},
    [DMPI_COLL_REDUCE_SCATTER] = {"reduce_scatterv", "pairwise", NULL, "shm"},
    [DMPI_COLL_REDUCE_SCATTER_BLOCK] = {"reduce_scatterv", "pairwise", NULL, "shm"},
    [DMPI_COLL_SCAN] = {"recursive_doubling", NULL, NULL, "shm"},
    [DMPI_COLL_EXSCAN] = {"recursive_doubling", NULL, NULL, "shm"},
};

/* Forced algorithm per collective: -1 auto; read on first use. */
static int forced[DMPI_COLL_NCOLLS];
static bool forced_read;

_Static_assert(DMPI_KNOB_COLL_EXSCAN_ALGO - DMPI_KNOB_COLL_BARRIER_ALGO + 1 == DMPI_COLL_NCOLLS,
               "one DMPI_COLL_<NAME>_ALGO knob per collective, in DMPI_COLL_* order (knob_list.h)");

/* An MPI_T write of DMPI_COLL_<NAME>_ALGO: read them again before the next
 * collective. */
static void knob_written(int id)
{
    (void)id;
    forced_read = false;
}

static void read_env(void)
{
    for (int c = 0; c < DMPI_COLL_NCOLLS; c++) {
        int id = DMPI_KNOB_COLL_BARRIER_ALGO + c;
        const char *var = dmpi_knob_descs[id].name;
        char kb[DMPI_KNOB_STR_MAX];
        const char *v = dmpi_knob_str(id, kb);
        dmpi_knob_watch(id, knob_written);
        forced[c] = -1;
        if (!v || !*v || !strcmp(v, "auto")) continue;
        for (int a = 0; a < NALGOS; a++)
            if (algo_names[c][a] && !strcmp(v, algo_names[c][a])) forced[c] = a;
        if (forced[c] < 0 && dmpi_rt.world_rank == 0)
            fprintf(stderr, "dmpi: warning: %s=%s is not a known algorithm; using auto\n", var,
                    v);
    }
    forced_read = true;
}

static bool node_algo(int algo) { return algo == SHM || algo == DIRECT; }

/* The first rule for the call, with or without the shared-memory ones. */
static int first_rule(int coll, MPI_Count bytes, int nranks, bool node_too)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const struct rule *r = &rules[i];
        bool load_ok = r->load == ALL_LOADS ||
                       (r->load == OVERSUBSCRIBED) == dmpi_rt.oversubscribed;
        if (r->coll == coll && nranks >= r->min_ranks && bytes <= r->max_bytes && load_ok &&
            (node_too || !node_algo(r->algo)))
            return r->algo;
    }
    return 0;
}

int dmpi_coll_choose(int coll, MPI_Count bytes, int nranks)
{
    if (coll < 0 || coll >= DMPI_COLL_NCOLLS) return 0;
    if (!forced_read) read_env();
    if (forced[coll] >= 0 && !node_algo(forced[coll])) return forced[coll];
    return first_rule(coll, bytes, nranks, false);
}

int dmpi_coll_choose_node(int coll, MPI_Count bytes, int nranks)
{
    if (coll < 0 || coll >= DMPI_COLL_NCOLLS) return -1;
    if (!forced_read) read_env();
    int algo = forced[coll] >= 0 ? forced[coll] : first_rule(coll, bytes, nranks, true);
    return node_algo(algo) ? algo : -1;
}
