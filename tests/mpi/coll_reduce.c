/* coll_reduce.c: MPI_Reduce and MPI_Allreduce with every predefined
 * operation on every predefined type it applies to (integers: all ten ops;
 * floating point: SUM PROD MIN MAX; C_BOOL: logical ops; BYTE: bitwise ops;
 * complex: SUM PROD), compared with the same reduction computed serially.
 * Inputs are chosen so that the results are exact and order-independent
 * (small integers, powers of two).  Then counts from 0 to 1 MiB, several
 * roots, and MPI_IN_PLACE for both calls.  (MINLOC / MAXLOC: coll_minmaxloc.c) */
#include "common.h"

enum kind { K_SINT, K_UINT, K_FLT, K_BOOL, K_BYTE, K_CPLX };
struct type {
    MPI_Datatype t;
    const char *name;
    int size;
    enum kind kind;
};
#define T(t, ctype, k) { t, #t, (int)sizeof(ctype), k }
static const struct type types[] = {
    T(MPI_INT, int, K_SINT),
    T(MPI_UNSIGNED, unsigned, K_UINT),
    T(MPI_LONG, long, K_SINT),
    T(MPI_UNSIGNED_LONG, unsigned long, K_UINT),
    T(MPI_LONG_LONG, long long, K_SINT),
    T(MPI_UNSIGNED_LONG_LONG, unsigned long long, K_UINT),
    T(MPI_SHORT, short, K_SINT),
    T(MPI_UNSIGNED_SHORT, unsigned short, K_UINT),
    T(MPI_SIGNED_CHAR, signed char, K_SINT),
    T(MPI_UNSIGNED_CHAR, unsigned char, K_UINT),
    T(MPI_INT8_T, int8_t, K_SINT),
    T(MPI_UINT8_T, uint8_t, K_UINT),
    T(MPI_INT16_T, int16_t, K_SINT),
    T(MPI_UINT16_T, uint16_t, K_UINT),
    T(MPI_INT32_T, int32_t, K_SINT),
    T(MPI_UINT32_T, uint32_t, K_UINT),
    T(MPI_INT64_T, int64_t, K_SINT),
    T(MPI_UINT64_T, uint64_t, K_UINT),
    T(MPI_FLOAT, float, K_FLT),
    T(MPI_DOUBLE, double, K_FLT),
    T(MPI_LONG_DOUBLE, long double, K_FLT),
    T(MPI_C_BOOL, _Bool, K_BOOL),
    T(MPI_BYTE, unsigned char, K_BYTE),
    T(MPI_C_FLOAT_COMPLEX, float _Complex, K_CPLX),
    T(MPI_C_DOUBLE_COMPLEX, double _Complex, K_CPLX),
};
#define NTYPES (int)(sizeof types / sizeof types[0])

enum { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NOPS };
static const MPI_Op ops[NOPS] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND,
                                  MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR };
static const char *op_name[NOPS] = { "SUM", "PROD", "MIN", "MAX", "LAND",
                                     "LOR", "LXOR", "BAND", "BOR", "BXOR" };

static int applies(enum kind k, int op)
{
    switch (k) {
    case K_SINT:
    case K_UINT: return 1;
    case K_FLT: return op <= O_MAX;
    case K_BOOL: return op >= O_LAND && op <= O_LXOR;
    case K_BYTE: return op >= O_BAND;
    default: return op <= O_PROD;
    }
}

/* Values are carried as long long (integers, bools, bytes) or as a pair of
 * long doubles (real and imaginary part: floating and complex types). */
typedef struct {
    long long i;
    long double re, im;
} val;

/* Input of rank r at index i for an operation. */
static val input(const struct type *ty, int op, int r, int i, int nranks)
{
    val v = { 0, 0, 0 };
    enum kind k = ty->kind;
    int flt = k == K_FLT || k == K_CPLX, signd = k == K_SINT;
    switch (op) {
    case O_SUM:
        if (flt) {
            v.re = (r + i) % 7 - 3;
            v.im = k == K_CPLX ? (r * 2 + i) % 3 - 1 : 0;
        } else {
            v.i = (r + i) % 7 - (signd ? 3 : 0);
        }
        break;
    case O_PROD:
        if (flt) {
            v.re = (r + i) % 5 == 0 ? 2.0L : (r + i) % 3 == 0 ? -0.5L : 1.0L;
            if (k == K_CPLX && (r + i) % 4 == 1)
                v.re = 0, v.im = 1; /* i */
        } else {
            v.i = (r + i) % 5 == 0 ? 2 : (signd && (r + i) % 3 == 0) ? -1 : 1;
        }
        break;
    case O_MIN:
    case O_MAX:
        if (flt)
            v.re = (r * 37 + i * 11) % 101 - 50.25L;
        else
            v.i = (r * 37 + i * 11) % 101 - (signd ? 50 : 0);
        break;
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        v.i = (r * 3 + i) % (nranks + 2) == 0 ? 0 : (k == K_BOOL ? 1 : 3);
        break;
    default:
        v.i = (long long)((unsigned long long)r * 0x9E3779B97F4A7C15ull +
                          (unsigned long long)i * 0xBF58476D1CE4E5B9ull);
        break;
    }
    return v;
}

static void store(const struct type *ty, void *buf, int i, val v)
{
    char *p = (char *)buf + (size_t)i * ty->size;
    if (ty->kind == K_FLT) {
        if (ty->size == sizeof(float)) { float x = (float)v.re; memcpy(p, &x, sizeof x); }
        else if (ty->size == sizeof(double)) { double x = (double)v.re; memcpy(p, &x, sizeof x); }
        else { long double x = v.re; memcpy(p, &x, sizeof x); }
    } else if (ty->kind == K_CPLX) {
        if (ty->size == sizeof(float _Complex)) { float x[2] = { (float)v.re, (float)v.im }; memcpy(p, x, sizeof x); }
        else { double x[2] = { (double)v.re, (double)v.im }; memcpy(p, x, sizeof x); }
    } else if (ty->kind == K_BOOL) {
        _Bool x = v.i != 0;
        memcpy(p, &x, sizeof x);
    } else {
        unsigned long long u = (unsigned long long)v.i; /* keeps the low bytes */
        switch (ty->size) {
        case 1: { uint8_t x = (uint8_t)u; memcpy(p, &x, 1); break; }
        case 2: { uint16_t x = (uint16_t)u; memcpy(p, &x, 2); break; }
        case 4: { uint32_t x = (uint32_t)u; memcpy(p, &x, 4); break; }
        default: { uint64_t x = (uint64_t)u; memcpy(p, &x, 8); break; }
        }
    }
}

static val load(const struct type *ty, const void *buf, int i)
{
    const char *p = (const char *)buf + (size_t)i * ty->size;
    val v = { 0, 0, 0 };
    if (ty->kind == K_FLT) {
        if (ty->size == sizeof(float)) { float x; memcpy(&x, p, sizeof x); v.re = x; }
        else if (ty->size == sizeof(double)) { double x; memcpy(&x, p, sizeof x); v.re = x; }
        else { long double x; memcpy(&x, p, sizeof x); v.re = x; }
    } else if (ty->kind == K_CPLX) {
        if (ty->size == sizeof(float _Complex)) { float x[2]; memcpy(x, p, sizeof x); v.re = x[0]; v.im = x[1]; }
        else { double x[2]; memcpy(x, p, sizeof x); v.re = x[0]; v.im = x[1]; }
    } else if (ty->kind == K_BOOL) {
        _Bool x;
        memcpy(&x, p, sizeof x);
        v.i = x;
    } else {
        int s = ty->kind == K_SINT;
        switch (ty->size) {
        case 1: { uint8_t x; memcpy(&x, p, 1); v.i = s ? (int8_t)x : x; break; }
        case 2: { uint16_t x; memcpy(&x, p, 2); v.i = s ? (int16_t)x : x; break; }
        case 4: { uint32_t x; memcpy(&x, p, 4); v.i = s ? (int32_t)x : (long long)x; break; }
        default: { uint64_t x; memcpy(&x, p, 8); v.i = (long long)x; break; }
        }
    }
    return v;
}

static val combine(enum kind k, int op, val a, val b)
{
    val r = a;
    if (k == K_FLT || k == K_CPLX) {
        switch (op) {
        case O_SUM: r.re = a.re + b.re; r.im = a.im + b.im; break;
        case O_PROD:
            r.re = a.re * b.re - a.im * b.im;
            r.im = a.re * b.im + a.im * b.re;
            break;
        case O_MIN: r = b.re < a.re ? b : a; break;
        default: r = b.re > a.re ? b : a; break;
        }
        return r;
    }
    switch (op) {
    case O_SUM: r.i = a.i + b.i; break;
    case O_PROD: r.i = a.i * b.i; break;
    case O_MIN: r.i = b.i < a.i ? b.i : a.i; break;
    case O_MAX: r.i = b.i > a.i ? b.i : a.i; break;
    case O_LAND: r.i = a.i && b.i; break;
    case O_LOR: r.i = a.i || b.i; break;
    case O_LXOR: r.i = !a.i != !b.i; break;
    case O_BAND: r.i = a.i & b.i; break;
    case O_BOR: r.i = a.i | b.i; break;
    default: r.i = a.i ^ b.i; break;
    }
    return r;
}

/* The serial answer at index i, as stored in the type (so wrap-around and
 * rounding to the type are the same as MPI's). */
static val expected(const struct type *ty, int op, int i, int nranks, void *scratch)
{
    val acc = input(ty, op, 0, i, nranks);
    for (int r = 1; r < nranks; r++)
        acc = combine(ty->kind, op, acc, input(ty, op, r, i, nranks));
    store(ty, scratch, 0, acc);
    return load(ty, scratch, 0);
}

static int same(const struct type *ty, val a, val b)
{
    if (ty->kind == K_FLT || ty->kind == K_CPLX)
        return a.re == b.re && a.im == b.im;
    return a.i == b.i;
}

/* One reduction of count elements; root < 0 means Allreduce.  in_place
 * uses MPI_IN_PLACE (at the root for Reduce, everywhere for Allreduce). */
static void run(const struct type *ty, int op, int count, int root, int in_place,
                MPI_Comm comm, void *sbuf, void *rbuf)
{
    char scratch[32];
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int i = 0; i < count; i++)
        store(ty, sbuf, i, input(ty, op, rank, i, n));
    memset(rbuf, 0x5c, (size_t)count * ty->size);
    int rc;
    int iamroot = root < 0 || rank == root;
    if (in_place && iamroot) {
        memcpy(rbuf, sbuf, (size_t)count * ty->size);
        rc = root < 0 ? MPI_Allreduce(MPI_IN_PLACE, rbuf, count, ty->t, ops[op], comm)
                      : MPI_Reduce(MPI_IN_PLACE, rbuf, count, ty->t, ops[op], root, comm);
    } else {
        rc = root < 0 ? MPI_Allreduce(sbuf, rbuf, count, ty->t, ops[op], comm)
                      : MPI_Reduce(sbuf, rbuf, count, ty->t, ops[op], root, comm);
    }
    CHECK(rc == MPI_SUCCESS, "%s %s on %s returned %d", root < 0 ? "Allreduce" : "Reduce",
          op_name[op], ty->name, rc);
    if (!iamroot)
        return;
    for (int i = 0; i < count; i++) {
        val want = expected(ty, op, i, n, scratch), got = load(ty, rbuf, i);
        if (!same(ty, got, want)) {
            CHECK(0, "%s%s %s on %s, count %d, root %d: element %d is %lld / %Lg%+Lgi, want "
                  "%lld / %Lg%+Lgi", root < 0 ? "Allreduce" : "Reduce",
                  in_place ? " (in place)" : "", op_name[op], ty->name, count, root, i, got.i,
                  got.re, got.im, want.i, want.re, want.im);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    size_t max = 1 << 20;
    void *sbuf = t_malloc(max), *rbuf = t_malloc(max);

    /* Every (type, op) pair, count 37: Allreduce, and Reduce with a
     * rotating root. */
    int combo = 0;
    for (int t = 0; t < NTYPES; t++)
        for (int op = 0; op < NOPS; op++) {
            if (!applies(types[t].kind, op))
                continue;
            run(&types[t], op, 37, -1, 0, MPI_COMM_WORLD, sbuf, rbuf);
            run(&types[t], op, 37, combo % t_size, 0, MPI_COMM_WORLD, sbuf, rbuf);
            combo++;
        }

    /* Counts up to 1 MiB of data, roots first / middle / last, in place. */
    static const int counts[] = { 0, 1, 2, 100, 1000, 16384, 131072 };
    const struct type *tint = &types[0], *tdbl = &types[19];
    int roots[3] = { 0, t_size / 2, t_size - 1 };
    for (int k = 0; k < (int)(sizeof counts / sizeof counts[0]); k++) {
        int c = counts[k];
        run(tdbl, O_SUM, c, -1, 0, MPI_COMM_WORLD, sbuf, rbuf);
        run(tint, O_MAX, c, -1, 1, MPI_COMM_WORLD, sbuf, rbuf);
        run(tint, O_SUM, 2 * c < 262144 ? 2 * c : 262144, roots[k % 3], 0, MPI_COMM_WORLD, sbuf,
            rbuf);
        run(tdbl, O_PROD, c, roots[(k + 1) % 3], 1, MPI_COMM_WORLD, sbuf, rbuf);
    }

    /* On halves of a split, and on MPI_COMM_SELF. */
    MPI_Comm half;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, 0, &half));
    int hs;
    MPI_CHK(MPI_Comm_size(half, &hs));
    run(tint, O_BXOR, 1000, -1, 0, half, sbuf, rbuf);
    run(tdbl, O_MIN, 1000, hs - 1, 0, half, sbuf, rbuf);
    run(tint, O_SUM, 10, 0, 0, MPI_COMM_SELF, sbuf, rbuf);
    run(tint, O_PROD, 10, -1, 1, MPI_COMM_SELF, sbuf, rbuf);
    MPI_CHK(MPI_Comm_free(&half));

    free(sbuf);
    free(rbuf);
    return t_finish();
}
