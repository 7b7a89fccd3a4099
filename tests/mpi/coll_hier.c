/* coll_hier.c: the blocking collectives that dmpi runs in phases (node,
 * then node leaders) when a communicator spans several nodes: Barrier,
 * Bcast, Reduce, Allreduce, Allgather, Gather, Scatter. Run it with a
 * simulated placement, e.g.
 *   DMPI_PROCESS_MAPPING="(vector,(0,2,2))" mpiexec -n 6 coll_hier
 * (and "(vector,(0,3,1))": round robin, so the ranks of a node are not
 * contiguous); with no mapping every collective is on one node and the
 * same checks hold.
 * On MPI_COMM_WORLD, on a split of it with the ranks shuffled and on one
 * of about two thirds of the ranks (shuffled too): every root, counts 0, 1,
 * 1000 and 100000, MPI_INT and a strided type (2 ints of every 4, holes
 * checked untouched), a strided send type against a contiguous receive
 * type, MPI_IN_PLACE, built-in and user ops (commutative, and one that is
 * not: the result is then rank 0's value). Allreduce of doubles must give
 * the same bits on every process. Every result is computed locally.
 * With the argument "form=i" (or "form=p") barrier, bcast, reduce and
 * allreduce run as nonblocking (or persistent, started twice where that
 * gives the same result) calls after a blocking barrier has set up the
 * phases, and a burst of them is left outstanding and completed in
 * reverse order. */
#include "common.h"

#include "coll_hier.h"

static MPI_Op op_uadd, op_left;

/* Data of rank r, data int k, salt s: small enough that sums fit. */
static int val(int r, long k, int s) { return (int)((r * 7919L + k * 13 + s * 101L) % 100003) + 1; }

/* Fill n elements of t at buf with rank r's data (data ints from k0). */
static void fill(int *buf, const ty *t, long n, int r, long k0, int s)
{
    for (long i = 0; i < n; i++)
        for (int j = 0; j < t->per; j++) buf[i * t->stride + off(t, j)] = val(r, k0 + i * t->per + j, s);
}

static void uadd(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) y[i] += x[i];
}

/* inout = in op inout, in from the lower ranks: keeps the lowest rank's */
static void left(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static const char *op_name(MPI_Op op)
{
    return op == MPI_SUM ? "sum" : op == MPI_MAX ? "max" : op == op_uadd ? "uadd" : "left";
}

static int expect_op(MPI_Op op, int p, long k, int s)
{
    if (op == op_left) return val(0, k, s);
    int acc = val(0, k, s);
    for (int r = 1; r < p; r++) {
        int v = val(r, k, s);
        if (op == MPI_MAX) acc = v > acc ? v : acc;
        else acc += v;
    }
    return acc;
}

/* Check n elements of t at buf: data int k (from k0) must be want(k),
 * holes untouched. Returns the number of bad ints (reports the first). */
#define CHECK_BUF(buf, t, n, k0, want_expr, ...)                                          \
    do {                                                                                  \
        long bad_ = 0;                                                                    \
        for (long i_ = 0; i_ < (n); i_++)                                                 \
            for (int x_ = 0; x_ < (t)->stride; x_++) {                                    \
                int got_ = (buf)[i_ * (t)->stride + x_], want_ = HOLE;                    \
                bool data_ = false;                                                       \
                long k = -1;                                                              \
                for (int j_ = 0; j_ < (t)->per; j_++)                                     \
                    if (off((t), j_) == x_) {                                             \
                        data_ = true;                                                     \
                        k = (k0) + i_ * (t)->per + j_;                                    \
                    }                                                                     \
                if (data_) want_ = (want_expr);                                           \
                (void)k;                                                                  \
                if (got_ != want_ && bad_++ == 0)                                         \
                    CHECK(got_ == want_, "%s: element %ld int %d: got %d want %d (%s)",  \
                          ctx, i_, x_, got_, want_, data_ ? "data" : "hole");             \
            }                                                                             \
        (void)bad_;                                                                       \
    } while (0)

static char ctx[256];

/* 'b' blocking, 'i' nonblocking, 'p' persistent: how barrier, bcast,
 * reduce and allreduce are called */
static char form = 'b';

/* Completes r as the form wants: waits (i), or starts it `starts` times,
 * waiting each time, and frees it (p). */
static void complete(MPI_Request *r, int starts)
{
    if (form == 'i') {
        MPI_CHK(MPI_Wait(r, MPI_STATUS_IGNORE));
        return;
    }
    for (int i = 0; i < starts; i++) {
        MPI_CHK(MPI_Start(r));
        MPI_CHK(MPI_Wait(r, MPI_STATUS_IGNORE));
    }
    MPI_CHK(MPI_Request_free(r));
}

static void do_bcast(void *b, int n, MPI_Datatype dt, int root, MPI_Comm c)
{
    MPI_Request r;
    if (form == 'b') MPI_CHK(MPI_Bcast(b, n, dt, root, c));
    else if (form == 'i') MPI_CHK(MPI_Ibcast(b, n, dt, root, c, &r));
    else MPI_CHK(MPI_Bcast_init(b, n, dt, root, c, MPI_INFO_NULL, &r));
    if (form != 'b') complete(&r, 2);
}

/* root < 0: allreduce. A persistent one is started twice unless some
 * process reduces in place (a second start would reduce again there):
 * every process must start it as often. */
static void do_reduce(const void *sb, void *rb, int n, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm c, bool any_in_place)
{
    MPI_Request r;
    int starts = any_in_place ? 1 : 2;
    if (root < 0) {
        if (form == 'b') MPI_CHK(MPI_Allreduce(sb, rb, n, dt, op, c));
        else if (form == 'i') MPI_CHK(MPI_Iallreduce(sb, rb, n, dt, op, c, &r));
        else MPI_CHK(MPI_Allreduce_init(sb, rb, n, dt, op, c, MPI_INFO_NULL, &r));
    } else {
        if (form == 'b') MPI_CHK(MPI_Reduce(sb, rb, n, dt, op, root, c));
        else if (form == 'i') MPI_CHK(MPI_Ireduce(sb, rb, n, dt, op, root, c, &r));
        else MPI_CHK(MPI_Reduce_init(sb, rb, n, dt, op, root, c, MPI_INFO_NULL, &r));
    }
    if (form != 'b') complete(&r, starts);
}

static void do_barrier(MPI_Comm c)
{
    MPI_Request r;
    if (form == 'b') MPI_CHK(MPI_Barrier(c));
    else if (form == 'i') MPI_CHK(MPI_Ibarrier(c, &r));
    else MPI_CHK(MPI_Barrier_init(c, MPI_INFO_NULL, &r));
    if (form != 'b') complete(&r, 2);
}

static const long counts[] = {0, 1, 1000, 100000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static void test_bcast(MPI_Comm c, int me, int p, const char *cname)
{
    const ty *tys[] = {&t_int, &t_vec};
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int root = 0; root < p; root++) {
                const ty *t = tys[ti];
                long n = counts[ci];
                int s = root + 3 * ci;
                int *b = alloc_ints(n * t->stride);
                if (me == root) fill(b, t, n, root, 0, s);
                snprintf(ctx, sizeof ctx, "%s bcast %s n=%ld root=%d", cname, t->name, n, root);
                do_bcast(b, (int)n, t->dt, root, c);
                CHECK_BUF(b, t, n, 0, val(root, k, s));
                free(b);
            }
}

static void test_reduce(MPI_Comm c, int me, int p, const char *cname, bool all)
{
    const ty *tys[] = {&t_int, &t_vec};
    MPI_Op ops[] = {MPI_SUM, MPI_MAX, op_uadd, op_left};
    for (int ti = 0; ti < 2; ti++)
        for (int oi = 0; oi < 4; oi++)
            for (int ci = 0; ci < NCOUNTS; ci++)
                for (int root = 0; root < (all ? 1 : p); root++)
                    for (int inplace = 0; inplace < 2; inplace++) {
                        const ty *t = tys[ti];
                        MPI_Op op = ops[oi];
                        long n = counts[ci];
                        if (t->per != 1 && oi >= 2) continue; /* user ops on ints */
                        if (n == 100000 && (oi == 1 || oi == 3) && root > 1) continue;
                        int s = 5 + oi + 7 * ci + root;
                        bool ip = inplace && (all || me == root);
                        int *sb = alloc_ints(n * t->stride), *rb = alloc_ints(n * t->stride);
                        fill(ip ? rb : sb, t, n, me, 0, s);
                        snprintf(ctx, sizeof ctx, "%s %s %s %s n=%ld root=%d%s", cname,
                                 all ? "allreduce" : "reduce", t->name, op_name(op), n, root,
                                 inplace ? " in place" : "");
                        do_reduce(ip ? MPI_IN_PLACE : sb, rb, (int)n, t->dt, op, all ? -1 : root,
                                  c, inplace);
                        if (all || me == root) CHECK_BUF(rb, t, n, 0, expect_op(op, p, k, s));
                        else CHECK_BUF(rb, t, n, 0, HOLE); /* untouched */
                        free(sb);
                        free(rb);
                    }
}

/* Allreduce of doubles whose sum depends on the order: every process must
 * hold the same bits. */
static void test_allreduce_bits(MPI_Comm c, int me, int p, const char *cname)
{
    int n = 4096;
    double *x = t_malloc((size_t)n * sizeof *x), *y = t_malloc((size_t)n * sizeof *y),
           *z = t_malloc((size_t)n * sizeof *z);
    for (int i = 0; i < n; i++) x[i] = (i % 2 ? 1e16 : 1.0) * (1.0 + me * 0.3333333) / (i + 1);
    do_reduce(x, y, n, MPI_DOUBLE, MPI_SUM, -1, c, false);
    memcpy(z, y, (size_t)n * sizeof *z);
    do_bcast(z, n, MPI_DOUBLE, p - 1, c);
    snprintf(ctx, sizeof ctx, "%s allreduce double bits", cname);
    CHECK(memcmp(y, z, (size_t)n * sizeof *y) == 0, "%s: differs from rank %d's", ctx, p - 1);
    free(x);
    free(y);
    free(z);
}

/* Allgather, Gather, Scatter: send type st, receive type rt; with the
 * strided send type and a contiguous receive of 2 ints per element. */

static void test_moves(MPI_Comm c, int me, int p, const char *cname)
{
    ty t_int2 = t_int; /* receive side of the mixed pair: 2 ints per send element */
    pair pairs[] = {{&t_int, &t_int, 1}, {&t_vec, &t_vec, 1}, {&t_vec, &t_int2, 2}};
    for (int pi = 0; pi < 3; pi++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const ty *st = pairs[pi].st, *rt = pairs[pi].rt;
                long n = counts[ci], rn = n * pairs[pi].rmul; /* elements per block */
                long rper = rn * rt->per;                       /* data ints per block */
                if (inplace && pi == 2) continue;
                if (n == 100000 && pi == 1 && inplace) continue;
                /* allgather */
                {
                    int s = 11 + ci;
                    int *sb = alloc_ints(n * st->stride), *rb = alloc_ints(rn * p * rt->stride);
                    if (inplace) fill(rb + (long)me * rn * rt->stride, rt, rn, me, 0, s);
                    else fill(sb, st, n, me, 0, s);
                    snprintf(ctx, sizeof ctx, "%s allgather %s/%s n=%ld%s", cname, st->name,
                             rt->name, n, inplace ? " in place" : "");
                    MPI_CHK(MPI_Allgather(inplace ? MPI_IN_PLACE : sb, (int)n, st->dt, rb,
                                          (int)rn, rt->dt, c));
                    CHECK_BUF(rb, rt, rn * p, 0, val((int)(k / (rper ? rper : 1)), k % (rper ? rper : 1), s));
                    free(sb);
                    free(rb);
                }
                for (int root = 0; root < p; root++) {
                    if (n == 100000 && root > 1 && root != p - 1) continue;
                    bool ip = inplace && me == root;
                    /* gather */
                    int s = 17 + ci + root;
                    int *sb = alloc_ints(n * st->stride);
                    int *rb = alloc_ints(me == root ? rn * p * rt->stride : 1);
                    if (ip) fill(rb + (long)me * rn * rt->stride, rt, rn, me, 0, s);
                    else fill(sb, st, n, me, 0, s);
                    snprintf(ctx, sizeof ctx, "%s gather %s/%s n=%ld root=%d%s", cname,
                             st->name, rt->name, n, root, inplace ? " in place" : "");
                    MPI_CHK(MPI_Gather(ip ? MPI_IN_PLACE : sb, (int)n, st->dt, rb, (int)rn,
                                       rt->dt, root, c));
                    if (me == root)
                        CHECK_BUF(rb, rt, rn * p, 0,
                                  val((int)(k / (rper ? rper : 1)), k % (rper ? rper : 1), s));
                    free(sb);
                    free(rb);
                    /* scatter: the root sends p blocks of rt (the "receive"
                     * type of the pair is the root's), processes receive st */
                    s = 23 + ci + root;
                    sb = alloc_ints(me == root ? rn * p * rt->stride : 1);
                    rb = alloc_ints(n * st->stride);
                    if (me == root)
                        for (int j = 0; j < p; j++)
                            fill(sb + (long)j * rn * rt->stride, rt, rn, j, 0, s);
                    snprintf(ctx, sizeof ctx, "%s scatter %s/%s n=%ld root=%d%s", cname,
                             rt->name, st->name, n, root, inplace ? " in place" : "");
                    MPI_CHK(MPI_Scatter(sb, (int)rn, rt->dt, ip ? MPI_IN_PLACE : rb, (int)n,
                                        st->dt, root, c));
                    if (ip) {
                        CHECK_BUF(rb, st, n, 0, HOLE); /* not written */
                        CHECK_BUF(sb + (long)me * rn * rt->stride, rt, rn, 0, val(me, k, s));
                    } else {
                        CHECK_BUF(rb, st, n, 0, val(me, k, s));
                    }
                    free(sb);
                    free(rb);
                }
            }
}

/* Repeated barriers complete, and point-to-point traffic still flows. */
static void test_barrier(MPI_Comm c, int me, int p, const char *cname)
{
    MPI_CHK(MPI_Barrier(c)); /* blocking: sets up the phases */
    for (int i = 0; i < 5; i++) do_barrier(c);
    int right = (me + 1) % p, leftr = (me - 1 + p) % p, got = -1;
    MPI_CHK(MPI_Sendrecv(&me, 1, MPI_INT, right, 9, &got, 1, MPI_INT, leftr, 9, c,
                         MPI_STATUS_IGNORE));
    snprintf(ctx, sizeof ctx, "%s barrier", cname);
    CHECK(got == leftr, "%s: ring got %d want %d", ctx, got, leftr);
    MPI_CHK(MPI_Barrier(c));
}

/* Nonblocking only: a burst of collectives left outstanding together (a
 * bcast from every root, an allreduce, a reduce to the last rank, a
 * barrier), completed in reverse order. */
static void test_burst(MPI_Comm c, int me, int p, const char *cname)
{
    enum { N = 1000 };
    int nreq = p + 3;
    MPI_Request *r = t_malloc((size_t)nreq * sizeof *r);
    int *b = alloc_ints((long)p * N), *sum = alloc_ints(N), *red = alloc_ints(N),
        *mine = alloc_ints(N);
    for (int root = 0; root < p; root++) {
        if (me == root) fill(b + (long)root * N, &t_int, N, root, 0, 31);
        MPI_CHK(MPI_Ibcast(b + (long)root * N, N, MPI_INT, root, c, &r[root]));
    }
    fill(mine, &t_int, N, me, 0, 37);
    MPI_CHK(MPI_Iallreduce(mine, sum, N, MPI_INT, MPI_SUM, c, &r[p]));
    MPI_CHK(MPI_Ireduce(mine, red, N, MPI_INT, MPI_MAX, p - 1, c, &r[p + 1]));
    MPI_CHK(MPI_Ibarrier(c, &r[p + 2]));
    for (int i = nreq - 1; i >= 0; i--) MPI_CHK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    for (int root = 0; root < p; root++) {
        snprintf(ctx, sizeof ctx, "%s burst ibcast root=%d", cname, root);
        CHECK_BUF(b + (long)root * N, &t_int, N, 0, val(root, k, 31));
    }
    snprintf(ctx, sizeof ctx, "%s burst iallreduce", cname);
    CHECK_BUF(sum, &t_int, N, 0, expect_op(MPI_SUM, p, k, 37));
    snprintf(ctx, sizeof ctx, "%s burst ireduce", cname);
    if (me == p - 1) CHECK_BUF(red, &t_int, N, 0, expect_op(MPI_MAX, p, k, 37));
    else CHECK_BUF(red, &t_int, N, 0, HOLE);
    free(b);
    free(sum);
    free(red);
    free(mine);
    free(r);
}

static void test_comm(MPI_Comm c, const char *cname)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    test_barrier(c, me, p, cname);
    test_bcast(c, me, p, cname);
    test_reduce(c, me, p, cname, false);
    test_reduce(c, me, p, cname, true);
    test_allreduce_bits(c, me, p, cname);
    test_moves(c, me, p, cname);
    if (form == 'i') test_burst(c, me, p, cname);
    test_barrier(c, me, p, cname);
}

int main(int argc, char **argv)
{
    hier_settings(argc, argv);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "form=", 5)) form = argv[i][5];
    t_init(&argc, &argv);
    hier_types();
    MPI_Op_create(uadd, 1, &op_uadd);
    MPI_Op_create(left, 0, &op_left);

    hier_comms(test_comm);

    MPI_Op_free(&op_uadd);
    MPI_Op_free(&op_left);
    MPI_Type_free(&t_vec.dt);
    return t_finish();
}
