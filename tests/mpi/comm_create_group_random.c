/* comm_create_group_random: MPI_Comm_create_group over randomly chosen
 * subsets of MPI_COMM_WORLD (seeded, the same on every rank), several
 * calls in a row with different tags (then all with one tag) over
 * overlapping groups, members in
 * shuffled order, and calls mixed with collectives on the parent. Checks
 * the new communicator's group (same as the group given, rank order
 * kept) and that collectives and point-to-point work on it. Issue 22 (6):
 * these failed with "message truncated" at 4 and 8 ranks. */
#include "common.h"

static unsigned long long rng_state;
static unsigned rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33);
}

/* A random subset of 0..n-1 (at least one member) in random order. */
static int pick(int n, int *ranks)
{
    int k = 0;
    while (k == 0)
        for (int i = 0; i < n; i++)
            if (rnd() % 2) ranks[k++] = i;
    for (int i = k - 1; i > 0; i--) {
        int j = (int)(rnd() % (unsigned)(i + 1)), t = ranks[i];
        ranks[i] = ranks[j];
        ranks[j] = t;
    }
    return k;
}

/* The new communicator matches the group and collectives work on it. */
static void check_comm(MPI_Comm c, MPI_Group g, const int *ranks, int k, int round)
{
    int size, rank, res;
    MPI_CHK(MPI_Comm_size(c, &size));
    MPI_CHK(MPI_Comm_rank(c, &rank));
    CHECK(size == k, "round %d: size %d, want %d", round, size, k);
    CHECK(rank >= 0 && rank < k && ranks[rank] == t_rank, "round %d: rank %d", round, rank);
    MPI_Group cg;
    MPI_CHK(MPI_Comm_group(c, &cg));
    MPI_CHK(MPI_Group_compare(cg, g, &res));
    CHECK(res == MPI_IDENT, "round %d: group compare %d", round, res);
    MPI_CHK(MPI_Group_free(&cg));
    /* allreduce of world ranks; bcast from the last rank; an allgather
     * of world ranks in new-rank order */
    int sum = 0, want = 0;
    for (int i = 0; i < k; i++) want += ranks[i];
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "round %d: allreduce %d, want %d", round, sum, want);
    int v = rank == k - 1 ? 1000 + round : -1;
    MPI_CHK(MPI_Bcast(&v, 1, MPI_INT, k - 1, c));
    CHECK(v == 1000 + round, "round %d: bcast %d", round, v);
    int *all = malloc(sizeof(int) * (size_t)k);
    MPI_CHK(MPI_Allgather(&t_rank, 1, MPI_INT, all, 1, MPI_INT, c));
    for (int i = 0; i < k; i++)
        CHECK(all[i] == ranks[i], "round %d: allgather[%d] %d, want %d", round, i, all[i],
              ranks[i]);
    free(all);
    /* ring exchange */
    int got = -1;
    MPI_CHK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % k, 7, &got, 1, MPI_INT,
                         (rank + k - 1) % k, 7, c, MPI_STATUS_IGNORE));
    CHECK(got == (rank + k - 1) % k, "round %d: ring got %d", round, got);
}

#define NCALLS 6

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n = t_size;
    MPI_Group world;
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int *ranks[NCALLS];
    int k[NCALLS];
    for (int i = 0; i < NCALLS; i++) ranks[i] = malloc(sizeof(int) * (size_t)n);

    /* rounds 0..29: a different tag for every call; rounds 30..59: the
     * same tag for all (calls of one process are ordered, members of a
     * later group run ahead while others still finish an earlier one) */
    for (int round = 0; round < 60; round++) {
        rng_state = 0x5eed0000ull + (unsigned long long)round * 7919u;
        MPI_Group g[NCALLS];
        MPI_Comm c[NCALLS];
        int calls = 1 + (int)(rnd() % NCALLS);
        for (int i = 0; i < calls; i++) {
            k[i] = pick(n, ranks[i]);
            MPI_CHK(MPI_Group_incl(world, k[i], ranks[i], &g[i]));
        }
        /* every rank makes the communicators of its groups in call order,
         * a different tag each (the calls overlap in time: members of one
         * run ahead into the next) */
        for (int i = 0; i < calls; i++) {
            c[i] = MPI_COMM_NULL;
            int in = 0;
            for (int j = 0; j < k[i]; j++) in |= ranks[i][j] == t_rank;
            if (!in) continue;
            int tag = round < 30 ? (round * NCALLS + i) * 3 + 1 : 0;
            MPI_CHK(MPI_Comm_create_group(MPI_COMM_WORLD, g[i], tag, &c[i]));
            CHECK(c[i] != MPI_COMM_NULL, "round %d call %d: no communicator", round, i);
        }
        for (int i = 0; i < calls; i++) {
            if (c[i] != MPI_COMM_NULL) {
                check_comm(c[i], g[i], ranks[i], k[i], round);
                MPI_CHK(MPI_Comm_free(&c[i]));
            }
            MPI_CHK(MPI_Group_free(&g[i]));
        }
        if (round % 5 == 4) MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* the same tag for calls over disjoint groups at once: evens and odds */
    {
        int *ev = malloc(sizeof(int) * (size_t)n), ne = 0;
        for (int i = t_rank % 2; i < n; i += 2) ev[ne++] = i;
        MPI_Group g;
        MPI_Comm c;
        MPI_CHK(MPI_Group_incl(world, ne, ev, &g));
        MPI_CHK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c));
        check_comm(c, g, ev, ne, 99);
        MPI_CHK(MPI_Comm_free(&c));
        MPI_CHK(MPI_Group_free(&g));
        free(ev);
    }
    for (int i = 0; i < NCALLS; i++) free(ranks[i]);
    MPI_CHK(MPI_Group_free(&world));
    return t_finish();
}
