/* coll_shm.c: the shared-memory collectives (src/coll/shm_coll.c) under
 * stress: long random-looking sequences of different blocking collectives
 * (barrier, bcast, reduce, allreduce, gather, scatter, allgather,
 * alltoall, scan, exscan, reduce_scatter_block, allgatherv) with changing
 * roots, on several communicators at once (world, a duplicate, the two
 * halves of a split), with sizes around the inline limit (56 bytes) and
 * around the slot size (16 KiB, so the same sequence
 * also switches between shared memory and point-to-point), a strided
 * datatype now and then, MPI_IN_PLACE, and a nonblocking collective kept
 * in flight across them. Communicators are duplicated and freed in a loop
 * so that areas are given back while other ranks may still finish their
 * last collective. Every result is checked against its formula. With the
 * argument smallslot the slots shrink to 256 bytes; with "direct" every
 * collective that has a one-copy form (src/coll/shm_direct.c) takes it,
 * at every size. */
#include "common.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const int sizes[] = {1, 2, 13, 14, 15, 100, 2047, 2048, 2049, 4096, 5000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int val(int rank, int i, int step) { return rank * 1000003 + i * 7 + step; }

static MPI_Datatype stride2; /* every other int */

/* One collective, chosen by step, on comm; checks its result. */
static void one(MPI_Comm comm, int step)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int n = sizes[(step * 7) % NSIZES];
    int root = (step / 3) % p;
    bool strided = step % 5 == 0;
    bool inplace = step % 4 == 1;
    size_t cap = (size_t)n * p * 2 + 16;
    int *sb = malloc(cap * sizeof(int)), *rb = malloc(cap * sizeof(int));
    for (size_t i = 0; i < cap; i++) sb[i] = rb[i] = -1;
    switch (step % 11) {
    case 0:
        MPI_CHK(MPI_Barrier(comm));
        break;
    case 1: /* bcast, strided or not */
        for (int i = 0; i < n; i++) sb[strided ? 2 * i : i] = me == root ? val(root, i, step) : -5;
        if (strided) MPI_CHK(MPI_Bcast(sb, n, stride2, root, comm));
        else MPI_CHK(MPI_Bcast(sb, n, MPI_INT, root, comm));
        for (int i = 0; i < n; i++)
            CHECK(sb[strided ? 2 * i : i] == val(root, i, step), "bcast n=%d i=%d", n, i);
        break;
    case 2:
    case 3: { /* reduce / allreduce of sums */
        bool all = step % 11 == 3;
        for (int i = 0; i < n; i++) sb[i] = val(me, i, step);
        const void *src = sb;
        if (inplace && (all || me == root)) {
            memcpy(rb, sb, (size_t)n * sizeof(int));
            src = MPI_IN_PLACE;
        }
        if (all) MPI_CHK(MPI_Allreduce(src, rb, n, MPI_INT, MPI_SUM, comm));
        else MPI_CHK(MPI_Reduce(src, rb, n, MPI_INT, MPI_SUM, root, comm));
        if (all || me == root)
            for (int i = 0; i < n; i++) {
                long want = 0;
                for (int r = 0; r < p; r++) want += val(r, i, step);
                CHECK(rb[i] == (int)want, "%s n=%d i=%d: %d, want %d", all ? "allreduce" : "reduce",
                      n, i, rb[i], (int)want);
            }
        break;
    }
    case 4: /* allgather */
    case 5: { /* gather */
        bool all = step % 11 == 4;
        int m = n / p + 1;
        for (int i = 0; i < m; i++) sb[i] = val(me, i, step);
        const void *src = sb;
        if (inplace && (all || me == root)) {
            memcpy(rb + (size_t)me * m, sb, (size_t)m * sizeof(int));
            src = MPI_IN_PLACE;
        }
        if (all) MPI_CHK(MPI_Allgather(src, m, MPI_INT, rb, m, MPI_INT, comm));
        else MPI_CHK(MPI_Gather(src, m, MPI_INT, rb, m, MPI_INT, root, comm));
        if (all || me == root)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < m; i++)
                    CHECK(rb[r * m + i] == val(r, i, step), "%s m=%d from %d i=%d",
                          all ? "allgather" : "gather", m, r, i);
        break;
    }
    case 6: { /* alltoall */
        int m = n / p + 1;
        for (int r = 0; r < p; r++)
            for (int i = 0; i < m; i++) sb[r * m + i] = val(me, i, step) + r;
        if (inplace) memcpy(rb, sb, (size_t)m * p * sizeof(int));
        MPI_CHK(MPI_Alltoall(inplace ? MPI_IN_PLACE : sb, m, MPI_INT, rb, m, MPI_INT, comm));
        for (int r = 0; r < p; r++)
            for (int i = 0; i < m; i++)
                CHECK(rb[r * m + i] == val(r, i, step) + me, "alltoall m=%d from %d i=%d", m, r, i);
        break;
    }
    case 7: { /* scatter */
        int m = n / p + 1;
        if (me == root)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < m; i++) sb[r * m + i] = val(r, i, step);
        bool ip = inplace && me == root;
        MPI_CHK(MPI_Scatter(sb, m, MPI_INT, ip ? MPI_IN_PLACE : rb, m, MPI_INT, root, comm));
        const int *got = ip ? sb + (size_t)me * m : rb;
        for (int i = 0; i < m; i++) CHECK(got[i] == val(me, i, step), "scatter m=%d i=%d", m, i);
        break;
    }
    case 8: /* scan / exscan */
        for (int i = 0; i < n; i++) sb[i] = val(me, i, step);
        if (step % 2) MPI_CHK(MPI_Scan(sb, rb, n, MPI_INT, MPI_SUM, comm));
        else MPI_CHK(MPI_Exscan(sb, rb, n, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < n && (me > 0 || step % 2); i++) {
            long want = 0;
            for (int r = 0; r < me + step % 2; r++) want += val(r, i, step);
            CHECK(rb[i] == (int)want, "%s n=%d i=%d", step % 2 ? "scan" : "exscan", n, i);
        }
        break;
    case 9: { /* reduce_scatter_block */
        int m = n / p + 1;
        for (int i = 0; i < m * p; i++) sb[i] = val(me, i, step);
        if (inplace) memcpy(rb, sb, (size_t)m * p * sizeof(int));
        MPI_CHK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : sb, rb, m, MPI_INT, MPI_SUM,
                                         comm));
        for (int i = 0; i < m; i++) {
            long want = 0;
            for (int r = 0; r < p; r++) want += val(r, me * m + i, step);
            CHECK(rb[i] == (int)want, "reduce_scatter_block m=%d i=%d", m, i);
        }
        break;
    }
    case 10: { /* allgatherv: rank r gives r % 3 + n / p elements, gaps between */
        int *counts = malloc((size_t)p * sizeof(int)), *displs = malloc((size_t)p * sizeof(int));
        int off = 0;
        for (int r = 0; r < p; r++) {
            counts[r] = r % 3 + n / p;
            displs[r] = off;
            off += counts[r] + 1;
        }
        int *big = malloc((size_t)(off + 1) * sizeof(int));
        for (int i = 0; i <= off; i++) big[i] = -7;
        for (int i = 0; i < counts[me]; i++) sb[i] = val(me, i, step);
        if (inplace) memcpy(big + displs[me], sb, (size_t)counts[me] * sizeof(int));
        MPI_CHK(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sb, counts[me], MPI_INT, big, counts,
                               displs, MPI_INT, comm));
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < counts[r]; i++)
                CHECK(big[displs[r] + i] == val(r, i, step), "allgatherv from %d i=%d", r, i);
            CHECK(big[displs[r] + counts[r]] == -7, "allgatherv wrote into the gap after %d", r);
        }
        free(big);
        free(counts);
        free(displs);
        break;
    }
    }
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    /* "smallslot": dmpi's slots of 256 bytes, so that most calls run in
     * many chunks (other MPIs ignore the variable). */
    if (argc > 1 && !strcmp(argv[1], "smallslot")) setenv("DMPI_COLL_SHM_SLOT", "256", 1);
    static const char *const direct[] = {"BCAST",   "REDUCE",    "ALLREDUCE", "GATHER",
                                         "SCATTER", "ALLGATHER", "ALLTOALL",  "ALLGATHERV"};
    for (int k = 0; argc > 1 && !strcmp(argv[1], "direct") && k < 8; k++) {
        char var[64];
        snprintf(var, sizeof var, "DMPI_COLL_%s_ALGO", direct[k]);
        setenv(var, "direct", 1);
    }
    t_init(&argc, &argv);
    MPI_Datatype one_int;
    MPI_CHK(MPI_Type_vector(1, 1, 2, MPI_INT, &one_int));
    MPI_CHK(MPI_Type_create_resized(one_int, 0, 2 * sizeof(int), &stride2));
    MPI_CHK(MPI_Type_free(&one_int));
    MPI_CHK(MPI_Type_commit(&stride2));

    MPI_Comm dup, half;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_size - t_rank, &half));

    /* A nonblocking allreduce in flight across the blocking ones. */
    int nb_in = t_rank + 1, nb_out = 0;
    MPI_Request nb;
    MPI_CHK(MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_INT, MPI_SUM, dup, &nb));

    for (int step = 0; step < 400; step++) {
        one(MPI_COMM_WORLD, step);
        one(step % 3 ? dup : half, step + 1);
        if (step % 50 == 49) { /* churn: a communicator used once, then freed */
            MPI_Comm tmp;
            MPI_CHK(MPI_Comm_dup(half, &tmp));
            one(tmp, step);
            one(tmp, step + 3);
            MPI_CHK(MPI_Comm_free(&tmp));
        }
    }
    MPI_CHK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    CHECK(nb_out == t_size * (t_size + 1) / 2, "iallreduce %d", nb_out);

    MPI_CHK(MPI_Comm_free(&half));
    MPI_CHK(MPI_Comm_free(&dup));
    MPI_CHK(MPI_Type_free(&stride2));
    return t_finish();
}
