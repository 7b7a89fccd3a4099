/* coll_nbc.c: many nonblocking collectives in flight at once. Each round
 * starts, on MPI_COMM_WORLD, a dup of it and a split half, a mix of
 * Ibcast / Iallreduce / Iallgather / Ialltoall / Ireduce / Iscan /
 * Ibarrier (several on the same communicator), plus persistent collectives
 * and user point-to-point messages on the same communicators with tags
 * that could collide with internal ones, computes for a while, and then
 * completes everything in a different order each round: reverse Waitall,
 * Waitany, Testsome polling, one by one in a shuffled order. Every result
 * is checked. Collectives must be started in the same order everywhere;
 * completion order is free. */
#include "common.h"

#define N 4096 /* ints per operation */
#define MAXOPS 32

typedef struct op {
    int kind;
    MPI_Comm comm;
    int *sb, *rb;
    int n, root;
} op;

static int val(int r, int i, int round, int k) { return (r * 7919 + i * 31 + round * 1009 + k * 17) % 100003; }

static void start(op *o, int k, int round, MPI_Request *req)
{
    int p, r;
    MPI_Comm_size(o->comm, &p);
    MPI_Comm_rank(o->comm, &r);
    int n = o->n;
    switch (o->kind) {
    case 0: /* Ibcast */
        for (int i = 0; i < n; i++) o->rb[i] = r == o->root ? val(o->root, i, round, k) : -1;
        MPI_CHK(MPI_Ibcast(o->rb, n, MPI_INT, o->root, o->comm, req));
        break;
    case 1: /* Iallreduce */
        for (int i = 0; i < n; i++) o->sb[i] = val(r, i, round, k);
        MPI_CHK(MPI_Iallreduce(o->sb, o->rb, n, MPI_INT, MPI_SUM, o->comm, req));
        break;
    case 2: /* Iallgather */
        for (int i = 0; i < n; i++) o->sb[i] = val(r, i, round, k);
        MPI_CHK(MPI_Iallgather(o->sb, n, MPI_INT, o->rb, n, MPI_INT, o->comm, req));
        break;
    case 3: /* Ialltoall: block j for rank j */
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) o->sb[j * n + i] = val(r * 100 + j, i, round, k);
        MPI_CHK(MPI_Ialltoall(o->sb, n, MPI_INT, o->rb, n, MPI_INT, o->comm, req));
        break;
    case 4: /* Ireduce */
        for (int i = 0; i < n; i++) o->sb[i] = val(r, i, round, k);
        MPI_CHK(MPI_Ireduce(o->sb, o->rb, n, MPI_INT, MPI_SUM, o->root, o->comm, req));
        break;
    case 5: /* Iscan */
        for (int i = 0; i < n; i++) o->sb[i] = val(r, i, round, k);
        MPI_CHK(MPI_Iscan(o->sb, o->rb, n, MPI_INT, MPI_SUM, o->comm, req));
        break;
    default:
        MPI_CHK(MPI_Ibarrier(o->comm, req));
        break;
    }
}

static void check(const op *o, int k, int round)
{
    int p, r;
    MPI_Comm_size(o->comm, &p);
    MPI_Comm_rank(o->comm, &r);
    int n = o->n;
    for (int i = 0; i < n; i++) {
        long want;
        int got = o->rb[i];
        switch (o->kind) {
        case 0: want = val(o->root, i, round, k); break;
        case 1:
        case 4:
            if (o->kind == 4 && r != o->root) return;
            want = 0;
            for (int q = 0; q < p; q++) want += val(q, i, round, k);
            break;
        case 2:
            for (int q = 0; q < p; q++)
                if (o->rb[q * n + i] != val(q, i, round, k)) {
                    CHECK(0, "round %d op %d allgather block %d [%d]", round, k, q, i);
                    return;
                }
            continue;
        case 3:
            for (int q = 0; q < p; q++)
                if (o->rb[q * n + i] != val(q * 100 + r, i, round, k)) {
                    CHECK(0, "round %d op %d alltoall block %d [%d]", round, k, q, i);
                    return;
                }
            continue;
        case 5:
            want = 0;
            for (int q = 0; q <= r; q++) want += val(q, i, round, k);
            break;
        default: return;
        }
        if (got != want) {
            CHECK(0, "round %d op %d (kind %d) [%d] = %d, want %ld", round, k, o->kind, i, got, want);
            return;
        }
    }
}

static volatile double sink;
static void compute(int ms)
{
    double t = MPI_Wtime(), x = 1;
    while (MPI_Wtime() - t < ms * 1e-3) x = x * 1.000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm dup, half;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
    MPI_Comm comms[3] = { MPI_COMM_WORLD, dup, half };
    op ops[MAXOPS];
    int nops = 0;
    /* the same pattern every round: several per communicator */
    for (int c = 0; c < 3; c++)
        for (int kind = 0; kind < 7; kind++) {
            if (nops == MAXOPS) break;
            int p;
            MPI_Comm_size(comms[c], &p);
            op *o = &ops[nops++];
            o->kind = kind;
            o->comm = comms[c];
            o->n = kind == 3 ? N / 8 : N / (1 + kind % 3);
            o->root = (c + kind) % p;
            o->sb = t_malloc((size_t)o->n * p * sizeof(int));
            o->rb = t_malloc((size_t)o->n * p * sizeof(int));
        }
    /* a persistent allreduce on the dup, started every round among the rest */
    int pin = 0, pout = 0;
    MPI_Request preq;
    MPI_CHK(MPI_Allreduce_init(&pin, &pout, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &preq));

    for (int round = 0; round < 8; round++) {
        MPI_Request reqs[MAXOPS + 3];
        int nreq = 0;
        /* user messages with tags 0 and 1 in flight on the same comms */
        int to = (t_rank + 1) % t_size, from = (t_rank - 1 + t_size) % t_size;
        int umsg_out[2] = { round, -round }, umsg_in[2] = { -99, -99 };
        MPI_CHK(MPI_Irecv(&umsg_in[0], 1, MPI_INT, from, 0, MPI_COMM_WORLD, &reqs[nreq++]));
        MPI_CHK(MPI_Irecv(&umsg_in[1], 1, MPI_INT, from, 1, dup, &reqs[nreq++]));
        for (int k = 0; k < nops; k++) {
            start(&ops[k], k, round, &reqs[nreq++]);
            if (k == nops / 2) {
                pin = t_rank + round;
                MPI_CHK(MPI_Start(&preq));
            }
        }
        MPI_CHK(MPI_Send(&umsg_out[0], 1, MPI_INT, to, 0, MPI_COMM_WORLD));
        MPI_CHK(MPI_Send(&umsg_out[1], 1, MPI_INT, to, 1, dup));
        compute(2);
        int total = nreq;
        switch (round % 4) {
        case 0: { /* reverse order, one by one */
            for (int i = total - 1; i >= 0; i--) MPI_CHK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
            break;
        }
        case 1: { /* Waitany */
            for (int done = 0; done < total; done++) {
                int idx;
                MPI_CHK(MPI_Waitany(total, reqs, &idx, MPI_STATUS_IGNORE));
                CHECK(idx != MPI_UNDEFINED, "Waitany found nothing");
            }
            break;
        }
        case 2: { /* Testsome polling with computation in between */
            int left = total, idx[MAXOPS + 3];
            while (left > 0) {
                int outcount;
                MPI_CHK(MPI_Testsome(total, reqs, &outcount, idx, MPI_STATUSES_IGNORE));
                if (outcount != MPI_UNDEFINED) left -= outcount;
                compute(0);
            }
            break;
        }
        default: { /* a shuffled order */
            for (int i = 0; i < total; i++) {
                int j = (i * 7 + round) % total;
                MPI_CHK(MPI_Wait(&reqs[j], MPI_STATUS_IGNORE));
            }
            MPI_CHK(MPI_Waitall(total, reqs, MPI_STATUSES_IGNORE));
            break;
        }
        }
        MPI_CHK(MPI_Wait(&preq, MPI_STATUS_IGNORE));
        for (int k = 0; k < nops; k++) check(&ops[k], k, round);
        CHECK(umsg_in[0] == round && umsg_in[1] == -round, "user messages mixed up: %d %d",
              umsg_in[0], umsg_in[1]);
        CHECK(pout == t_size * (t_size - 1) / 2 + t_size * round, "persistent allreduce %d", pout);
    }
    MPI_CHK(MPI_Request_free(&preq));
    for (int k = 0; k < nops; k++) {
        free(ops[k].sb);
        free(ops[k].rb);
    }
    MPI_CHK(MPI_Comm_free(&dup));
    MPI_CHK(MPI_Comm_free(&half));
    return t_finish();
}
