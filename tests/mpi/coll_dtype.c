/* coll_dtype.c: derived datatypes in collectives, blocking and
 * nonblocking: strided and resized vectors (holes that must stay
 * untouched), a type whose data starts after a gap (nonzero true lower
 * bound), a struct of int + double, and sender and receiver types that
 * differ but have the same type signature. Reductions with user ops over
 * derived types (commutative and not); a datatype and a user op freed while the
 * nonblocking collective using them is still in flight. Sizes reach past
 * the large-message algorithm thresholds. */
#include "common.h"

#include <stddef.h>

#define GAP (-7)
static int g_nb; /* 1: the nonblocking forms */

static void wait_req(MPI_Request *r) { MPI_CHK(MPI_Wait(r, MPI_STATUS_IGNORE)); }
#define RUN(NAME, INAME, ...)                                                      \
    do {                                                                           \
        if (!g_nb) MPI_CHK(MPI_##NAME(__VA_ARGS__));                               \
        else {                                                                     \
            MPI_Request r_;                                                        \
            MPI_CHK(MPI_##INAME(__VA_ARGS__, &r_));                                \
            wait_req(&r_);                                                         \
        }                                                                          \
    } while (0)

static int val(int r, long i) { return (int)((r * 7919L + i * 31) % 100003); }

/* strided: every third int, 2 per element: {x . . x . .} resized to 6 ints */
static MPI_Datatype strided(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 6 * sizeof(int), &t);
    MPI_Type_free(&v);
    MPI_Type_commit(&t);
    return t;
}
/* data positions of element e of strided(): 6e and 6e+3 */
static long spos(long k) { return (k / 2) * 6 + (k % 2) * 3; }

/* offset: one int at displacement 2 ints, extent 3 ints (true_lb = 8) */
static MPI_Datatype offset_type(void)
{
    int bl = 1, disp = 2;
    MPI_Datatype x, t;
    MPI_Type_indexed(1, &bl, &disp, MPI_INT, &x);
    MPI_Type_create_resized(x, 0, 3 * sizeof(int), &t);
    MPI_Type_free(&x);
    MPI_Type_commit(&t);
    return t;
}

/* User ops that know the layouts (predefined ops are defined on
 * predefined types only): sum over strided(), max over offset_type(). */
static void strided_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (long e = 0; e < *len; e++) b[6 * e] += a[6 * e], b[6 * e + 3] += a[6 * e + 3];
}
static void offset_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (long e = 0; e < *len; e++)
        if (a[3 * e + 2] > b[3 * e + 2]) b[3 * e + 2] = a[3 * e + 2];
}
static void offset_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (long e = 0; e < *len; e++) b[3 * e + 2] += a[3 * e + 2];
}

static void t_reductions(int n)
{
    MPI_Datatype st = strided(), ot = offset_type();
    MPI_Op ssum, omax, osum;
    MPI_Op_create(strided_sum, 1, &ssum);
    MPI_Op_create(offset_max, 1, &omax);
    MPI_Op_create(offset_sum, 0, &osum); /* commutative, but say it is not */
    long span = 6L * n;
    int *sb = t_malloc((size_t)(span + 1) * sizeof(int)), *rb = t_malloc((size_t)(span + 1) * sizeof(int));
    for (long i = 0; i <= span; i++) sb[i] = rb[i] = GAP;
    for (long k = 0; k < 2L * n; k++) sb[spos(k)] = val(t_rank, k);
    RUN(Allreduce, Iallreduce, sb, rb, n, st, ssum, MPI_COMM_WORLD);
    for (long i = 0, k = 0; i <= span; i++) {
        long want = GAP;
        if (k < 2L * n && i == spos(k)) {
            want = 0;
            for (int q = 0; q < t_size; q++) want += val(q, k);
            k++;
        }
        if (rb[i] != want) {
            CHECK(0, "allreduce strided n=%d: [%ld]=%d want %ld", n, i, rb[i], want);
            break;
        }
    }
    /* scan and reduce on the offset type (data at 2, 5, 8, ...) */
    long span2 = 3L * n;
    int *s2 = t_malloc((size_t)(span2 + 1) * sizeof(int)), *r2 = t_malloc((size_t)(span2 + 1) * sizeof(int));
    for (long i = 0; i <= span2; i++) s2[i] = r2[i] = GAP;
    for (long e = 0; e < n; e++) s2[3 * e + 2] = val(t_rank, e);
    RUN(Scan, Iscan, s2, r2, n, ot, omax, MPI_COMM_WORLD);
    for (long i = 0; i <= span2; i++) {
        long want = GAP;
        if (i < span2 && i % 3 == 2) {
            want = val(0, i / 3);
            for (int q = 1; q <= t_rank; q++)
                if (val(q, i / 3) > want) want = val(q, i / 3);
        }
        if (r2[i] != want) {
            CHECK(0, "scan offset type n=%d: [%ld]=%d want %ld", n, i, r2[i], want);
            break;
        }
    }
    for (long i = 0; i <= span2; i++) r2[i] = GAP;
    int root = t_size - 1;
    RUN(Reduce, Ireduce, s2, r2, n, ot, osum, root, MPI_COMM_WORLD);
    if (t_rank == root)
        for (long e = 0; e < n; e++) {
            long want = 0;
            for (int q = 0; q < t_size; q++) want += val(q, e);
            if (r2[3 * e + 2] != want || r2[3 * e] != GAP) {
                CHECK(0, "reduce offset type n=%d: element %ld", n, e);
                break;
            }
        }
    free(s2);
    free(r2);
    free(sb);
    free(rb);
    MPI_Type_free(&st);
    MPI_Type_free(&ot);
    MPI_Op_free(&ssum);
    MPI_Op_free(&omax);
    MPI_Op_free(&osum);
}

/* bcast of a struct {int; double} with a hole between them */
typedef struct {
    int i;
    double d;
} rec;
static void t_bcast_struct(int n, int root)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(rec, i), offsetof(rec, d) };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    rec *b = t_malloc((size_t)n * sizeof(rec));
    memset(b, 0x5a, (size_t)n * sizeof(rec));
    if (t_rank == root)
        for (int e = 0; e < n; e++) b[e].i = val(root, e), b[e].d = e * 0.5;
    RUN(Bcast, Ibcast, b, n, t, root, MPI_COMM_WORLD);
    for (int e = 0; e < n; e++)
        if (b[e].i != val(root, e) || b[e].d != e * 0.5) {
            CHECK(0, "bcast struct n=%d root=%d: element %d", n, root, e);
            break;
        }
    free(b);
    MPI_Type_free(&t);
}

/* gather/allgather/alltoall: strided on one side, contiguous on the other */
static void t_moves(int n)
{
    MPI_Datatype st = strided();
    int p = t_size;
    long span = 6L * n; /* n strided elements = 2n ints */
    int *sb = t_malloc((size_t)(span * p + 1) * sizeof(int));
    int *rb = t_malloc((size_t)(2L * n * p + 1) * sizeof(int));
    for (long i = 0; i < span; i++) sb[i] = GAP;
    for (long k = 0; k < 2L * n; k++) sb[spos(k)] = val(t_rank, k);
    RUN(Allgather, Iallgather, sb, n, st, rb, 2 * n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < p; q++)
        for (long k = 0; k < 2L * n; k++)
            if (rb[q * 2L * n + k] != val(q, k)) {
                CHECK(0, "allgather strided->contiguous n=%d: block %d [%ld]", n, q, k);
                q = p;
                break;
            }
    /* the other way: contiguous ints in, strided out, at the root */
    int root = p / 2;
    int *cb = t_malloc((size_t)(2L * n + 1) * sizeof(int));
    for (long k = 0; k < 2L * n; k++) cb[k] = val(t_rank, k);
    for (long i = 0; i < span * p; i++) sb[i] = GAP;
    RUN(Gather, Igather, cb, 2 * n, MPI_INT, sb, n, st, root, MPI_COMM_WORLD);
    if (t_rank == root)
        for (int q = 0; q < p; q++)
            for (long k = 0; k < 2L * n; k++)
                if (sb[q * span + spos(k)] != val(q, k) || sb[q * span + 1] != GAP) {
                    CHECK(0, "gather contiguous->strided n=%d: block %d [%ld]", n, q, k);
                    q = p;
                    break;
                }
    /* alltoall: strided blocks out, contiguous in */
    for (long i = 0; i < span * p; i++) sb[i] = GAP;
    for (int q = 0; q < p; q++)
        for (long k = 0; k < 2L * n; k++) sb[q * span + spos(k)] = val(t_rank * 64 + q, k);
    RUN(Alltoall, Ialltoall, sb, n, st, rb, 2 * n, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < p; q++)
        for (long k = 0; k < 2L * n; k++)
            if (rb[q * 2L * n + k] != val(q * 64 + t_rank, k)) {
                CHECK(0, "alltoall strided->contiguous n=%d: block %d [%ld]", n, q, k);
                q = p;
                break;
            }
    free(cb);
    free(sb);
    free(rb);
    MPI_Type_free(&st);
}

/* A user op over a derived type (pairs of ints, added), freed with its
 * type while the nonblocking reduction is in flight. */
static void pair_add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < 2 * *len; i++) b[i] += a[i];
}

static void t_freed_early(int n)
{
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(pair_add, 1, &op);
    int *sb = t_malloc((size_t)(2L * n + 1) * sizeof(int)), *rb = t_malloc((size_t)(2L * n + 1) * sizeof(int));
    for (long i = 0; i < 2L * n; i++) sb[i] = val(t_rank, i);
    MPI_Request r;
    MPI_CHK(MPI_Iallreduce(sb, rb, n, pair, op, MPI_COMM_WORLD, &r));
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (long i = 0; i < 2L * n; i++) {
        long want = 0;
        for (int q = 0; q < t_size; q++) want += val(q, i);
        if (rb[i] != want) {
            CHECK(0, "iallreduce with freed type and op n=%d: [%ld]=%d", n, i, rb[i]);
            break;
        }
    }
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const int ns[] = { 0, 1, 33, 5000, 40000 };
    for (g_nb = 0; g_nb < 2; g_nb++)
        for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            int n = ns[k];
            t_reductions(n);
            t_bcast_struct(n, 0);
            t_bcast_struct(n, t_size - 1);
            t_moves(n / 4);
        }
    t_freed_early(1);
    t_freed_early(30000);
    return t_finish();
}
