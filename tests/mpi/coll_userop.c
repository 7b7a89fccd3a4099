/* coll_userop.c: user-defined reduction ops in Reduce, Allreduce,
 * Reduce_scatter(_block), Scan and Exscan, in the form given by the first
 * argument (b, i, p as in coll_forms.c; alt1..alt3 or NAME=VALUE pick
 * dmpi's algorithms, see coll_algos.h).
 *  - a non-commutative op, composition of affine maps x -> a x + b mod M:
 *    the result must combine the processes' values in rank order;
 *  - a commutative op (addition written by the user), which lets the
 *    implementation reorder.
 * Every root, MPI_IN_PLACE and not, counts 0 to 30000 pairs. */
#include "common.h"
#include "coll_algos.h"

#include <stdbool.h>

static char g_mode = 'b';
#define ITERS 2
#define M 10007

#define COLL(NAME, INAME, ...)                                                       \
    do {                                                                             \
        if (g_mode == 'b') {                                                         \
            MPI_CHK(MPI_##NAME(__VA_ARGS__));                                        \
        } else if (g_mode == 'i') {                                                  \
            MPI_Request rq_ = MPI_REQUEST_NULL;                                      \
            MPI_CHK(MPI_##INAME(__VA_ARGS__, &rq_));                                 \
            MPI_CHK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                              \
        } else {                                                                     \
            if (it == 0) MPI_CHK(MPI_##NAME##_init(__VA_ARGS__, MPI_INFO_NULL, &preq)); \
            MPI_CHK(MPI_Start(&preq));                                               \
            MPI_CHK(MPI_Wait(&preq, MPI_STATUS_IGNORE));                             \
        }                                                                            \
    } while (0)
#define ITER_BEGIN                                                                   \
    MPI_Request preq = MPI_REQUEST_NULL;                                             \
    for (int it = 0; it < ITERS; it++) {
#define ITER_END                                                                     \
    }                                                                                \
    if (preq != MPI_REQUEST_NULL) MPI_CHK(MPI_Request_free(&preq));

typedef struct { int a, b; } affine;

/* inout = in then inout (in comes from lower ranks) */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        int a = (int)((long)x[i].a * y[i].a % M), b = (int)(((long)x[i].b * y[i].a + y[i].b) % M);
        y[i].a = a;
        y[i].b = b;
    }
}

static void add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine *x = in, *y = inout;
    for (int i = 0; i < *len; i++) y[i].a += x[i].a, y[i].b += x[i].b;
}

static bool g_comm_op; /* the op in use is add() */

static affine val(int r, long i, int it)
{
    return (affine){ 1 + (int)((r * 7 + i * 3 + it) % 97), (int)((r * 13 + i * 5 + it * 11) % M) };
}

/* reduction of ranks [lo, hi) at index i */
static affine ref(int lo, int hi, long i, int it)
{
    affine acc = val(lo, i, it);
    for (int r = lo + 1; r < hi; r++) {
        affine x = acc, y = val(r, i, it);
        int len = 1;
        if (g_comm_op) add(&x, &y, &len, NULL);
        else compose(&x, &y, &len, NULL);
        acc = y;
    }
    return acc;
}

static MPI_Datatype T;
static MPI_Op OP;
static int P, R;

static bool same(affine x, affine y) { return x.a == y.a && x.b == y.b; }

static void t_reduce(int n, int root, int in_place, int all)
{
    affine *sb = t_malloc((size_t)(n + 1) * sizeof(affine)), *rb = t_malloc((size_t)(n + 1) * sizeof(affine));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = rb[i] = val(R, i, it);
    bool ip = in_place && (all || R == root);
    if (all) COLL(Allreduce, Iallreduce, ip ? MPI_IN_PLACE : sb, rb, n, T, OP, MPI_COMM_WORLD);
    else COLL(Reduce, Ireduce, ip ? MPI_IN_PLACE : sb, rb, n, T, OP, root, MPI_COMM_WORLD);
    if (all || R == root)
        for (int i = 0; i < n; i++)
            if (!same(rb[i], ref(0, P, i, it))) {
                CHECK(0, "%s %s n=%d root=%d ip=%d: [%d]", g_comm_op ? "add" : "compose",
                      all ? "allreduce" : "reduce", n, root, in_place, i);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_scan(int n, int in_place, int ex)
{
    affine *sb = t_malloc((size_t)(n + 1) * sizeof(affine)), *rb = t_malloc((size_t)(n + 1) * sizeof(affine));
    ITER_BEGIN
    for (int i = 0; i < n; i++) sb[i] = rb[i] = val(R, i, it);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (ex) COLL(Exscan, Iexscan, s, rb, n, T, OP, MPI_COMM_WORLD);
    else COLL(Scan, Iscan, s, rb, n, T, OP, MPI_COMM_WORLD);
    if (!ex || R > 0)
        for (int i = 0; i < n; i++)
            if (!same(rb[i], ref(0, ex ? R : R + 1, i, it))) {
                CHECK(0, "%s %sscan n=%d ip=%d: [%d]", g_comm_op ? "add" : "compose",
                      ex ? "ex" : "", n, in_place, i);
                break;
            }
    ITER_END
    free(sb);
    free(rb);
}

static void t_reduce_scatter(int n, int in_place, int block)
{
    int cnt[64];
    long total = 0, off = 0;
    for (int j = 0; j < P; j++) {
        cnt[j] = block ? n : (j % 2 ? n : n / 2 + j);
        if (j < R) off += cnt[j];
        total += cnt[j];
    }
    affine *sb = t_malloc((size_t)(total + 1) * sizeof(affine)), *rb = t_malloc((size_t)(total + 1) * sizeof(affine));
    ITER_BEGIN
    for (long i = 0; i < total; i++) sb[i] = rb[i] = val(R, i, it);
    const void *s = in_place ? MPI_IN_PLACE : sb;
    if (block) COLL(Reduce_scatter_block, Ireduce_scatter_block, s, rb, n, T, OP, MPI_COMM_WORLD);
    else COLL(Reduce_scatter, Ireduce_scatter, s, rb, cnt, T, OP, MPI_COMM_WORLD);
    for (int i = 0; i < cnt[R]; i++)
        if (!same(rb[i], ref(0, P, off + i, it))) {
            CHECK(0, "%s reduce_scatter%s n=%d ip=%d: [%d]", g_comm_op ? "add" : "compose",
                  block ? "_block" : "", n, in_place, i);
            break;
        }
    ITER_END
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    t_coll_args(argc, argv, &g_mode);
    t_init(&argc, &argv);
    P = t_size;
    R = t_rank;
    if (P > 64) return t_finish();
    MPI_Type_contiguous(2, MPI_INT, &T);
    MPI_Type_commit(&T);
    static const int ns[] = { 0, 1, 9, 700, 30000 };
    for (int k = 0; k < 2; k++) {
        g_comm_op = k == 1;
        MPI_Op_create(g_comm_op ? add : compose, g_comm_op, &OP);
        for (unsigned c = 0; c < sizeof ns / sizeof ns[0]; c++) {
            int n = ns[c];
            for (int ip = 0; ip < 2; ip++) {
                for (int root = 0; root < P; root += (P > 4 ? 3 : 1)) t_reduce(n, root, ip, 0);
                t_reduce(n, 0, ip, 1);
                t_scan(n, ip, 0);
                t_scan(n, ip, 1);
                t_reduce_scatter(n / P, ip, 1);
                t_reduce_scatter(n / P, ip, 0);
            }
        }
        MPI_Op_free(&OP);
    }
    MPI_Type_free(&T);
    return t_finish();
}
