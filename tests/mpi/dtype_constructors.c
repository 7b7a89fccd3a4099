/* dtype_constructors.c: every datatype constructor carries data between
 * partner ranks (0<->1, 2<->3, ...; a lone rank talks to itself) where the
 * sender and the receiver use DIFFERENT types with the same type signature
 * (a vector sent, a contiguous or reversed indexed type received, ...).
 * For each case the test knows by hand which int of the send buffer is the
 * k-th element of the message and where the k-th element lands in the
 * receive buffer; holes of the receive type must stay untouched. Sizes run
 * from a few elements to megabytes (eager and rendezvous paths), through
 * MPI_Sendrecv (receive posted first) and through a send that arrives
 * before its receive is posted. Status counts are checked with both types. */
#include "common.h"

#include <stddef.h>

#define MAXN 600000 /* elements in the largest message */

static long sidx[MAXN], ridx[MAXN]; /* hand-computed positions, in ints */

typedef struct {
    MPI_Datatype st, rt;
    int scount, rcount;
    long n;             /* basic elements in the message */
    long sspan, rspan;  /* buffer lengths in ints */
    long soff;          /* the send buffer argument is &sbuf[soff] */
} xfer;

static void free_type(MPI_Datatype *t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED) MPI_Type_free(t);
}

/* Each case builds the types for scale n and fills sidx/ridx. */
static void c_contiguous(int n, xfer *x)
{
    MPI_Type_contiguous(3 * n, MPI_INT, &x->st);
    x->rt = MPI_INT;
    x->scount = 1, x->rcount = 3 * n, x->n = 3L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = k, ridx[k] = k;
    x->sspan = x->rspan = x->n;
}

static void c_vector(int n, xfer *x)
{
    MPI_Type_vector(n, 2, 3, MPI_INT, &x->st);
    MPI_Type_contiguous(2, MPI_INT, &x->rt);
    x->scount = 1, x->rcount = n, x->n = 2L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = (k / 2) * 3 + k % 2, ridx[k] = k;
    x->sspan = 3L * n, x->rspan = x->n;
}

static void c_hvector(int n, xfer *x)
{
    x->st = MPI_INT;
    MPI_Type_create_hvector(n, 2, 5 * sizeof(int), MPI_INT, &x->rt);
    x->scount = 2 * n, x->rcount = 1, x->n = 2L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = k, ridx[k] = (k / 2) * 5 + k % 2;
    x->sspan = x->n, x->rspan = 5L * n;
}

static void c_indexed(int n, xfer *x)
{
    int *bl = t_malloc(n * sizeof *bl), *d = t_malloc(n * sizeof *d);
    long k = 0;
    for (int i = 0; i < n; i++) {
        bl[i] = 1 + i % 3;
        d[i] = 4 * i;
        for (int j = 0; j < bl[i]; j++, k++) sidx[k] = 4L * i + j;
    }
    MPI_Type_indexed(n, bl, d, MPI_INT, &x->st);
    x->n = k;
    MPI_Type_vector((int)k, 1, 2, MPI_INT, &x->rt);
    for (k = 0; k < x->n; k++) ridx[k] = 2 * k;
    x->scount = x->rcount = 1;
    x->sspan = 4L * n, x->rspan = 2 * x->n;
    free(bl);
    free(d);
}

static void c_hindexed(int n, xfer *x)
{
    int *bl = t_malloc(n * sizeof *bl);
    MPI_Aint *d = t_malloc(n * sizeof *d);
    for (int i = 0; i < n; i++) bl[i] = 2, d[i] = (MPI_Aint)(n - 1 - i) * 3 * sizeof(int);
    x->st = MPI_INT;
    MPI_Type_create_hindexed(n, bl, d, MPI_INT, &x->rt); /* blocks in descending order */
    x->scount = 2 * n, x->rcount = 1, x->n = 2L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = k, ridx[k] = (n - 1 - k / 2) * 3 + k % 2;
    x->sspan = x->n, x->rspan = 3L * n;
    free(bl);
    free(d);
}

static void c_indexed_block(int n, xfer *x)
{
    int *d = t_malloc(n * sizeof *d);
    for (int i = 0; i < n; i++) d[i] = 5 * i + (i & 1);
    MPI_Type_create_indexed_block(n, 3, d, MPI_INT, &x->st);
    x->rt = MPI_INT;
    x->scount = 1, x->rcount = 3 * n, x->n = 3L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = 5 * (k / 3) + ((k / 3) & 1) + k % 3, ridx[k] = k;
    x->sspan = 5L * n + 1, x->rspan = x->n;
    free(d);
}

static void c_hindexed_block(int n, xfer *x)
{
    MPI_Aint *d = t_malloc(n * sizeof *d);
    for (int i = 0; i < n; i++) d[i] = (MPI_Aint)(7 * i + 2) * sizeof(int);
    MPI_Type_vector(3 * n, 1, 2, MPI_INT, &x->st);
    MPI_Type_create_hindexed_block(n, 3, d, MPI_INT, &x->rt);
    x->scount = x->rcount = 1, x->n = 3L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = 2 * k, ridx[k] = 7 * (k / 3) + 2 + k % 3;
    x->sspan = 6L * n, x->rspan = 7L * n;
    free(d);
}

/* A 3-D array of ints 8 x m x 10, the box [2,5) x [1,m-1) x [3,7). */
static void subarray(int m, xfer *x, int order)
{
    int sizes[3] = {8, m, 10}, subs[3] = {3, m - 2, 4}, starts[3] = {2, 1, 3};
    if (order == MPI_ORDER_FORTRAN) { /* same box, dimensions listed fastest first */
        sizes[0] = 10, sizes[2] = 8, subs[0] = 4, subs[2] = 3, starts[0] = 3, starts[2] = 2;
    }
    MPI_Type_create_subarray(3, sizes, subs, starts, order, MPI_INT, &x->st);
    x->rt = MPI_INT;
    long k = 0;
    for (long i = 2; i < 5; i++)
        for (long j = 1; j < m - 1; j++)
            for (long l = 3; l < 7; l++) sidx[k] = (i * m + j) * 10 + l, ridx[k] = k, k++;
    x->n = k;
    x->scount = 1, x->rcount = (int)k;
    x->sspan = 80L * m, x->rspan = k;
}
static void c_subarray_c(int n, xfer *x) { subarray(n / 10 + 3, x, MPI_ORDER_C); }
static void c_subarray_f(int n, xfer *x) { subarray(n / 10 + 3, x, MPI_ORDER_FORTRAN); }

static void c_resized(int n, xfer *x)
{
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &x->st);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, -(MPI_Aint)sizeof(int), 5 * sizeof(int), &x->rt);
    free_type(&pair);
    x->scount = 2 * n, x->rcount = n, x->n = 2L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = 3 * k, ridx[k] = (k / 2) * 5 + k % 2;
    x->sspan = 6L * n, x->rspan = 5L * n;
}

static void c_dup(int n, xfer *x)
{
    MPI_Datatype v;
    MPI_Type_vector(n, 2, 3, MPI_INT, &v);
    MPI_Type_dup(v, &x->st);
    free_type(&v);
    MPI_Type_dup(MPI_INT, &x->rt);
    x->scount = 1, x->rcount = 2 * n, x->n = 2L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = (k / 2) * 3 + k % 2, ridx[k] = k;
    x->sspan = 3L * n, x->rspan = x->n;
}

/* A vector of vectors sent, received reversed through an indexed type. */
static void c_nested(int n, xfer *x)
{
    MPI_Datatype v3;
    MPI_Type_vector(3, 1, 2, MPI_INT, &v3); /* extent 5 ints */
    MPI_Type_vector(n, 1, 2, v3, &x->st);   /* copies 10 ints apart */
    free_type(&v3);
    x->n = 3L * n;
    int *d = t_malloc(x->n * sizeof *d);
    for (long k = 0; k < x->n; k++) d[k] = (int)(x->n - 1 - k);
    MPI_Type_create_indexed_block((int)x->n, 1, d, MPI_INT, &x->rt);
    free(d);
    x->scount = x->rcount = 1;
    for (long k = 0; k < x->n; k++) sidx[k] = (k / 3) * 10 + (k % 3) * 2, ridx[k] = x->n - 1 - k;
    x->sspan = 10L * n, x->rspan = x->n;
}

static void c_struct(int n, xfer *x)
{
    int bl[2] = {2, 1};
    MPI_Aint d[2] = {0, 4 * sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, d, ty, &x->st); /* extent 5 ints */
    x->rt = MPI_INT;
    x->scount = n, x->rcount = 3 * n, x->n = 3L * n;
    for (long k = 0; k < x->n; k++) sidx[k] = (k / 3) * 5 + (k % 3 < 2 ? k % 3 : 4), ridx[k] = k;
    x->sspan = 5L * n, x->rspan = x->n;
}

/* Negative stride: the buffer argument points at the last block. */
static void c_negative(int n, xfer *x)
{
    MPI_Type_vector(n, 2, -3, MPI_INT, &x->st);
    x->rt = MPI_INT;
    x->scount = 1, x->rcount = 2 * n, x->n = 2L * n;
    x->soff = 3L * (n - 1);
    for (long k = 0; k < x->n; k++) sidx[k] = x->soff - 3 * (k / 2) + k % 2, ridx[k] = k;
    x->sspan = 3L * n, x->rspan = x->n;
}

static const struct {
    const char *name;
    void (*make)(int n, xfer *x);
} cases[] = {
    {"contiguous", c_contiguous}, {"vector", c_vector}, {"hvector", c_hvector},
    {"indexed", c_indexed}, {"hindexed", c_hindexed}, {"indexed_block", c_indexed_block},
    {"hindexed_block", c_hindexed_block}, {"subarray_c", c_subarray_c},
    {"subarray_fortran", c_subarray_f}, {"resized", c_resized}, {"dup", c_dup},
    {"nested_vector", c_nested}, {"struct", c_struct}, {"negative_stride", c_negative},
};

static const int scales[] = {1, 5, 1500, 150000};

static void run(int c, int scale, int unexpected)
{
    xfer x = {0};
    cases[c].make(scale, &x);
    MPI_CHK(MPI_Type_commit(&x.st));
    MPI_CHK(MPI_Type_commit(&x.rt));
    int peer = t_partner();
    int *sbuf = t_malloc(x.sspan * sizeof(int)), *rbuf = t_malloc(x.rspan * sizeof(int));
    unsigned seed = (unsigned)(c * 7 + scale + t_rank);
    for (long i = 0; i < x.sspan; i++) sbuf[i] = (int)(i * 3 + seed);
    for (long i = 0; i < x.rspan; i++) rbuf[i] = -1;
    MPI_Status st;
    if (!unexpected) {
        MPI_CHK(MPI_Sendrecv(sbuf + x.soff, x.scount, x.st, peer, c, rbuf, x.rcount, x.rt, peer, c,
                             MPI_COMM_WORLD, &st));
    } else {
        MPI_Request r;
        MPI_CHK(MPI_Isend(sbuf + x.soff, x.scount, x.st, peer, c, MPI_COMM_WORLD, &r));
        MPI_Barrier(MPI_COMM_WORLD); /* the message is there before the receive */
        MPI_CHK(MPI_Recv(rbuf, x.rcount, x.rt, peer, c, MPI_COMM_WORLD, &st));
        MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    unsigned pseed = (unsigned)(c * 7 + scale + peer);
    char *hit = calloc((size_t)x.rspan, 1);
    long bad = 0;
    for (long k = 0; k < x.n; k++) {
        int want = (int)(sidx[k] * 3 + pseed);
        hit[ridx[k]] = 1;
        if (rbuf[ridx[k]] != want && bad++ < 3)
            CHECK(0, "%s n=%d%s: element %ld at int %ld is %d, want %d", cases[c].name, scale,
                  unexpected ? " (unexpected)" : "", k, ridx[k], rbuf[ridx[k]], want);
    }
    for (long i = 0; i < x.rspan; i++)
        if (!hit[i] && rbuf[i] != -1 && bad++ < 3)
            CHECK(0, "%s n=%d: hole at int %ld overwritten (%d)", cases[c].name, scale, i, rbuf[i]);
    int cnt = -5, el = -5;
    MPI_Get_count(&st, x.rt, &cnt);
    MPI_Get_elements(&st, x.rt, &el);
    CHECK(cnt == x.rcount, "%s n=%d: Get_count %d, want %d", cases[c].name, scale, cnt, x.rcount);
    CHECK(el == x.n, "%s n=%d: Get_elements %d, want %ld", cases[c].name, scale, el, x.n);
    MPI_Get_count(&st, x.st, &cnt);
    CHECK(cnt == x.scount, "%s n=%d: Get_count(sendtype) %d, want %d", cases[c].name, scale, cnt,
          x.scount);
    free(hit);
    free(sbuf);
    free(rbuf);
    free_type(&x.st);
    free_type(&x.rt);
}

/* Mixed basic types: a struct of int, double, 2 ints (with padding) is
 * received as a struct laid out differently with the same signature. */
typedef struct { int a; double b; int c[2]; } s_send;
typedef struct { double b; int c1; int a; int c0; } s_recv;

static void run_mixed(int n)
{
    MPI_Datatype st, rt;
    int bl[3] = {1, 1, 2};
    MPI_Aint ds[3] = {offsetof(s_send, a), offsetof(s_send, b), offsetof(s_send, c)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    MPI_CHK(MPI_Type_create_struct(3, bl, ds, ty, &st));
    int bl2[4] = {1, 1, 1, 1};
    MPI_Aint dr[4] = {offsetof(s_recv, a), offsetof(s_recv, b), offsetof(s_recv, c0),
                      offsetof(s_recv, c1)};
    MPI_Datatype ty2[4] = {MPI_INT, MPI_DOUBLE, MPI_INT, MPI_INT};
    MPI_CHK(MPI_Type_create_struct(4, bl2, dr, ty2, &rt));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(st, &lb, &ext);
    CHECK(lb == 0 && ext == sizeof(s_send), "struct extent %ld, want %zu (C struct)", (long)ext,
          sizeof(s_send));
    MPI_Type_get_extent(rt, &lb, &ext);
    CHECK(lb == 0 && ext == sizeof(s_recv), "struct extent %ld, want %zu", (long)ext, sizeof(s_recv));
    MPI_Type_commit(&st);
    MPI_Type_commit(&rt);
    s_send *s = t_malloc(n * sizeof *s);
    s_recv *r = t_malloc(n * sizeof *r);
    for (int i = 0; i < n; i++) {
        s[i].a = i * 10 + t_rank;
        s[i].b = i * 0.5 + t_rank;
        s[i].c[0] = -i;
        s[i].c[1] = i * 3 + 1;
    }
    memset(r, 0x55, n * sizeof *r);
    int peer = t_partner();
    MPI_Status stt;
    MPI_CHK(MPI_Sendrecv(s, n, st, peer, 99, r, n, rt, peer, 99, MPI_COMM_WORLD, &stt));
    int bad = 0;
    for (int i = 0; i < n && bad < 3; i++) {
        if (r[i].a != i * 10 + peer || r[i].b != i * 0.5 + peer || r[i].c0 != -i ||
            r[i].c1 != i * 3 + 1) {
            bad++;
            CHECK(0, "mixed struct n=%d: element %d is {%d, %g, %d, %d}", n, i, r[i].a, r[i].b,
                  r[i].c0, r[i].c1);
        }
    }
    int el = -5;
    MPI_Get_elements(&stt, rt, &el);
    CHECK(el == 4 * n, "mixed struct: Get_elements %d, want %d", el, 4 * n);
    free(s);
    free(r);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
            for (int unexpected = 0; unexpected < 2; unexpected++) run((int)c, scales[s], unexpected);
    run_mixed(1);
    run_mixed(1000);
    run_mixed(100000);
    return t_finish();
}
