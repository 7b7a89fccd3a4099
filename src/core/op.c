/* Reduction operations: the predefined ops (MPI_SUM ... MPI_NO_OP) applied to
 * every datatype the standard allows them on (MPI 4.1 section 6.9.2), the
 * user-defined ops of MPI_Op_create, and op handle lookup.
 *
 * A predefined op on a predefined type runs one "kernel": a function per C
 * element type that implements every op that makes sense for that type. A
 * per-type class (C integer, Fortran integer, floating point, logical,
 * complex, byte, multi-language, pair) decides which ops are legal. Derived
 * datatypes built from a single basic type are reduced element by element
 * of that basic type (packing through temporaries when they have holes). */
#include "core/op.h"
#include "core/objpool.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Standard-ABI values of the predefined ops (fixed by MPI 5.0, see mpi.h),
 * as integers so they can label a switch. */
enum {
    OP_NULL = 0x20, OP_SUM = 0x21, OP_MIN = 0x22, OP_MAX = 0x23, OP_PROD = 0x24,
    OP_BAND = 0x28, OP_BOR = 0x29, OP_BXOR = 0x2a,
    OP_LAND = 0x30, OP_LOR = 0x31, OP_LXOR = 0x32,
    OP_MINLOC = 0x38, OP_MAXLOC = 0x39, OP_REPLACE = 0x3c, OP_NO_OP = 0x3d,
    OP_LAST = 0x3d,
};

static int op_kind(const dmpi_op *op) { return (int)(uintptr_t)(void *)op->handle; }

/* ------------------------------------------------------------ predefined ops */
#define BUILTIN(k, comm) \
    [k - OP_NULL] = {DMPI_MAGIC_OP, 1, true, comm, (MPI_Op)(uintptr_t)k, NULL, NULL}
static dmpi_op builtin_ops[OP_LAST - OP_NULL + 1] = {
    BUILTIN(OP_SUM, true),       BUILTIN(OP_MIN, true),
    BUILTIN(OP_MAX, true),       BUILTIN(OP_PROD, true),
    BUILTIN(OP_BAND, true),     BUILTIN(OP_BOR, true),
    BUILTIN(OP_BXOR, true),     BUILTIN(OP_LAND, true),
    BUILTIN(OP_LOR, true),       BUILTIN(OP_LXOR, true),
    BUILTIN(OP_MINLOC, true), BUILTIN(OP_MAXLOC, true),
    BUILTIN(OP_REPLACE, false), BUILTIN(OP_NO_OP, false),
};

static const char *const op_names[OP_LAST - OP_NULL + 1] = {
    [OP_SUM - OP_NULL] = "MPI_SUM",       [OP_MIN - OP_NULL] = "MPI_MIN",
    [OP_MAX - OP_NULL] = "MPI_MAX",       [OP_PROD - OP_NULL] = "MPI_PROD",
    [OP_BAND - OP_NULL] = "MPI_BAND",     [OP_BOR - OP_NULL] = "MPI_BOR",
    [OP_BXOR - OP_NULL] = "MPI_BXOR",     [OP_LAND - OP_NULL] = "MPI_LAND",
    [OP_LOR - OP_NULL] = "MPI_LOR",       [OP_LXOR - OP_NULL] = "MPI_LXOR",
    [OP_MINLOC - OP_NULL] = "MPI_MINLOC", [OP_MAXLOC - OP_NULL] = "MPI_MAXLOC",
    [OP_REPLACE - OP_NULL] = "MPI_REPLACE", [OP_NO_OP - OP_NULL] = "MPI_NO_OP",
};

dmpi_op *dmpi_op_builtin(MPI_Op h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v <= OP_NULL || v > OP_LAST) return NULL;
    dmpi_op *op = &builtin_ops[v - OP_NULL];
    return op->magic == DMPI_MAGIC_OP ? op : NULL;
}

dmpi_op *dmpi_op_get(MPI_Op h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v < 0x1000) return dmpi_op_builtin(h);   /* predefined range (or junk) */
    dmpi_op *op = (dmpi_op *)(void *)h;
    return op->magic == DMPI_MAGIC_OP ? op : NULL;
}

const char *dmpi_op_name(const dmpi_op *op)
{
    return op->builtin ? op_names[op_kind(op) - OP_NULL] : "user-defined op";
}

/* ---------------------------------------------------------------- user ops */
static dmpi_objpool op_pool = DMPI_OBJPOOL_INIT(sizeof(dmpi_op));

dmpi_op *dmpi_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute)
{
    dmpi_op *op = dmpi_obj_alloc(&op_pool);
    if (!op) return NULL;
    op->magic = DMPI_MAGIC_OP;
    op->refcount = 1;
    op->commutative = commute;
    op->user_fn = fn;
    op->user_fn_c = fn_c;
    op->handle = (MPI_Op)(void *)op;
    return op;
}

void dmpi_op_retain(dmpi_op *op)
{
    if (!op->builtin) op->refcount++;
}

void dmpi_op_release(dmpi_op *op)
{
    if (op->builtin || --op->refcount > 0) return;
    dmpi_obj_free(&op_pool, op); /* a stale handle reads "freed" */
}

/* ----------------------------------------------------------------- kernels
 * A kernel computes inout[i] = in[i] op inout[i] for n elements of one C
 * type, or returns MPI_ERR_OP if it has no such op. */
typedef int (*kernel_fn)(int op, const void *in, void *inout, MPI_Count n);

/* The elements may sit at any address (an accumulate at any displacement
 * of a window, a user buffer): accessed through a 1-byte-aligned type. */
#define EACH(T, stmt)                                   \
    do {                                                \
        typedef T elem_t_ __attribute__((aligned(1)));  \
        const elem_t_ *restrict a = in;                 \
        elem_t_ *restrict b = inout;                    \
        for (MPI_Count i = 0; i < n; i++) { stmt; }     \
    } while (0)

/* Integers (also logicals and bytes). Arithmetic runs in the unsigned type W
 * (at least as wide as unsigned int) so that overflow wraps instead of being
 * undefined. */
#define INT_KERNEL(name, T, W)                                                  \
    static int name(int op, const void *in, void *inout, MPI_Count n)          \
    {                                                                           \
        switch (op) {                                                           \
        case OP_SUM: EACH(T, b[i] = (T)((W)a[i] + (W)b[i])); break;             \
        case OP_PROD: EACH(T, b[i] = (T)((W)a[i] * (W)b[i])); break;            \
        case OP_MIN: EACH(T, if (a[i] < b[i]) b[i] = a[i]); break;              \
        case OP_MAX: EACH(T, if (a[i] > b[i]) b[i] = a[i]); break;              \
        case OP_LAND: EACH(T, b[i] = (T)(a[i] && b[i])); break;                 \
        case OP_LOR: EACH(T, b[i] = (T)(a[i] || b[i])); break;                  \
        case OP_LXOR: EACH(T, b[i] = (T)(!a[i] != !b[i])); break;               \
        case OP_BAND: EACH(T, b[i] = (T)(a[i] & b[i])); break;                  \
        case OP_BOR: EACH(T, b[i] = (T)(a[i] | b[i])); break;                   \
        case OP_BXOR: EACH(T, b[i] = (T)(a[i] ^ b[i])); break;                  \
        default: return MPI_ERR_OP;                                             \
        }                                                                       \
        return MPI_SUCCESS;                                                     \
    }

#define FLOAT_KERNEL(name, T)                                                   \
    static int name(int op, const void *in, void *inout, MPI_Count n)          \
    {                                                                           \
        switch (op) {                                                           \
        case OP_SUM: EACH(T, b[i] = a[i] + b[i]); break;                        \
        case OP_PROD: EACH(T, b[i] = a[i] * b[i]); break;                       \
        case OP_MIN: EACH(T, if (a[i] < b[i]) b[i] = a[i]); break;              \
        case OP_MAX: EACH(T, if (a[i] > b[i]) b[i] = a[i]); break;              \
        default: return MPI_ERR_OP;                                             \
        }                                                                       \
        return MPI_SUCCESS;                                                     \
    }

#define COMPLEX_KERNEL(name, T)                                                 \
    static int name(int op, const void *in, void *inout, MPI_Count n)          \
    {                                                                           \
        switch (op) {                                                           \
        case OP_SUM: EACH(T, b[i] = a[i] + b[i]); break;                        \
        case OP_PROD: EACH(T, b[i] = a[i] * b[i]); break;                       \
        default: return MPI_ERR_OP;                                             \
        }                                                                       \
        return MPI_SUCCESS;                                                     \
    }

/* Value-index pairs for MINLOC/MAXLOC: the value wins, ties keep the
 * smaller index. The structs match the layouts of MPI_DOUBLE_INT etc. */
#define PAIR_KERNEL(name, V, I)                                                 \
    typedef struct { V v; I i; } name##_t;                                      \
    static int name(int op, const void *in, void *inout, MPI_Count n)          \
    {                                                                           \
        if (op != OP_MINLOC && op != OP_MAXLOC) return MPI_ERR_OP;              \
        bool max = op == OP_MAXLOC;                                             \
        const name##_t *a = in;                                                 \
        name##_t *b = inout;                                                    \
        for (MPI_Count i = 0; i < n; i++) { /* fieldwise: no padding touched */ \
            bool wins = max ? a[i].v > b[i].v : a[i].v < b[i].v;                \
            if (wins) b[i].v = a[i].v;                                          \
            if (wins || (a[i].v == b[i].v && a[i].i < b[i].i)) b[i].i = a[i].i; \
        }                                                                       \
        return MPI_SUCCESS;                                                     \
    }

INT_KERNEL(k_i8, int8_t, unsigned)
INT_KERNEL(k_u8, uint8_t, unsigned)
INT_KERNEL(k_i16, int16_t, unsigned)
INT_KERNEL(k_u16, uint16_t, unsigned)
INT_KERNEL(k_i32, int32_t, uint32_t)
INT_KERNEL(k_u32, uint32_t, uint32_t)
INT_KERNEL(k_i64, int64_t, uint64_t)
INT_KERNEL(k_u64, uint64_t, uint64_t)
FLOAT_KERNEL(k_float, float)
FLOAT_KERNEL(k_double, double)
FLOAT_KERNEL(k_ldouble, long double)
COMPLEX_KERNEL(k_cfloat, float _Complex)
COMPLEX_KERNEL(k_cdouble, double _Complex)
COMPLEX_KERNEL(k_cldouble, long double _Complex)
PAIR_KERNEL(k_float_int, float, int)
PAIR_KERNEL(k_double_int, double, int)
PAIR_KERNEL(k_long_int, long, int)
PAIR_KERNEL(k_short_int, short, int)
PAIR_KERNEL(k_ldouble_int, long double, int)
PAIR_KERNEL(k_2int, int, int)
PAIR_KERNEL(k_2float, float, float)
PAIR_KERNEL(k_2double, double, double)
#ifdef __SIZEOF_INT128__
INT_KERNEL(k_i128, __int128, unsigned __int128)
#else
#define k_i128 NULL
#endif
#ifdef __FLT16_MAX__
FLOAT_KERNEL(k_half, _Float16)
COMPLEX_KERNEL(k_chalf, _Float16 _Complex)
#else
#define k_half NULL
#define k_chalf NULL
#endif
#ifdef __SIZEOF_FLOAT128__
FLOAT_KERNEL(k_quad, _Float128)
COMPLEX_KERNEL(k_cquad, _Float128 _Complex)
#else
#define k_quad NULL
#define k_cquad NULL
#endif

/* The C types behind the fixed-size choices below (LP64 Linux). */
_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
                   sizeof(long long) == 8 && sizeof(MPI_Aint) == 8 &&
                   sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8 && sizeof(_Bool) == 1,
               "op.c assumes an LP64 platform");

/* ------------------------------------------------------ types and classes */
enum { CL_CINT = 1, CL_FINT, CL_FLOAT, CL_LOGICAL, CL_COMPLEX, CL_BYTE, CL_MULTI, CL_PAIR };

typedef struct { MPI_Datatype h; unsigned char cls; kernel_fn fn; } type_entry;
static const type_entry type_table[] = {
    /* C integers (MPI_CHAR is an extension, as in other MPIs) */
    {MPI_SHORT, CL_CINT, k_i16}, {MPI_INT, CL_CINT, k_i32}, {MPI_LONG, CL_CINT, k_i64},
    {MPI_LONG_LONG, CL_CINT, k_i64}, {MPI_UNSIGNED_SHORT, CL_CINT, k_u16},
    {MPI_UNSIGNED, CL_CINT, k_u32}, {MPI_UNSIGNED_LONG, CL_CINT, k_u64},
    {MPI_UNSIGNED_LONG_LONG, CL_CINT, k_u64}, {MPI_SIGNED_CHAR, CL_CINT, k_i8},
    {MPI_UNSIGNED_CHAR, CL_CINT, k_u8}, {MPI_CHAR, CL_CINT, k_i8},
    {MPI_INT8_T, CL_CINT, k_i8}, {MPI_UINT8_T, CL_CINT, k_u8},
    {MPI_INT16_T, CL_CINT, k_i16}, {MPI_UINT16_T, CL_CINT, k_u16},
    {MPI_INT32_T, CL_CINT, k_i32}, {MPI_UINT32_T, CL_CINT, k_u32},
    {MPI_INT64_T, CL_CINT, k_i64}, {MPI_UINT64_T, CL_CINT, k_u64},
    /* Fortran integers */
    {MPI_INTEGER, CL_FINT, k_i32}, {MPI_INTEGER1, CL_FINT, k_i8},
    {MPI_INTEGER2, CL_FINT, k_i16}, {MPI_INTEGER4, CL_FINT, k_i32},
    {MPI_INTEGER8, CL_FINT, k_i64}, {MPI_INTEGER16, CL_FINT, k_i128},
    /* floating point */
    {MPI_FLOAT, CL_FLOAT, k_float}, {MPI_DOUBLE, CL_FLOAT, k_double},
    {MPI_LONG_DOUBLE, CL_FLOAT, k_ldouble}, {MPI_REAL, CL_FLOAT, k_float},
    {MPI_DOUBLE_PRECISION, CL_FLOAT, k_double}, {MPI_REAL2, CL_FLOAT, k_half},
    {MPI_REAL4, CL_FLOAT, k_float}, {MPI_REAL8, CL_FLOAT, k_double},
    {MPI_REAL16, CL_FLOAT, k_quad},
    /* logical (Fortran logicals: zero is false, results are 0 or 1) */
    {MPI_C_BOOL, CL_LOGICAL, k_u8}, {MPI_CXX_BOOL, CL_LOGICAL, k_u8},
    {MPI_LOGICAL, CL_LOGICAL, k_i32}, {MPI_LOGICAL1, CL_LOGICAL, k_i8},
    {MPI_LOGICAL2, CL_LOGICAL, k_i16}, {MPI_LOGICAL4, CL_LOGICAL, k_i32},
    {MPI_LOGICAL8, CL_LOGICAL, k_i64}, {MPI_LOGICAL16, CL_LOGICAL, k_i128},
    /* complex */
    {MPI_C_FLOAT_COMPLEX, CL_COMPLEX, k_cfloat}, {MPI_CXX_FLOAT_COMPLEX, CL_COMPLEX, k_cfloat},
    {MPI_C_DOUBLE_COMPLEX, CL_COMPLEX, k_cdouble},
    {MPI_CXX_DOUBLE_COMPLEX, CL_COMPLEX, k_cdouble},
    {MPI_C_LONG_DOUBLE_COMPLEX, CL_COMPLEX, k_cldouble},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, CL_COMPLEX, k_cldouble},
    {MPI_COMPLEX, CL_COMPLEX, k_cfloat}, {MPI_DOUBLE_COMPLEX, CL_COMPLEX, k_cdouble},
    {MPI_COMPLEX4, CL_COMPLEX, k_chalf}, {MPI_COMPLEX8, CL_COMPLEX, k_cfloat},
    {MPI_COMPLEX16, CL_COMPLEX, k_cdouble}, {MPI_COMPLEX32, CL_COMPLEX, k_cquad},
    /* byte, multi-language */
    {MPI_BYTE, CL_BYTE, k_u8},
    {MPI_AINT, CL_MULTI, k_i64}, {MPI_OFFSET, CL_MULTI, k_i64}, {MPI_COUNT, CL_MULTI, k_i64},
    /* value-index pairs */
    {MPI_FLOAT_INT, CL_PAIR, k_float_int}, {MPI_DOUBLE_INT, CL_PAIR, k_double_int},
    {MPI_LONG_INT, CL_PAIR, k_long_int}, {MPI_SHORT_INT, CL_PAIR, k_short_int},
    {MPI_LONG_DOUBLE_INT, CL_PAIR, k_ldouble_int}, {MPI_2INT, CL_PAIR, k_2int},
    {MPI_2INTEGER, CL_PAIR, k_2int}, {MPI_2REAL, CL_PAIR, k_2float},
    {MPI_2DOUBLE_PRECISION, CL_PAIR, k_2double},
};

static const type_entry *type_lookup(int basic)
{
    for (size_t i = 0; i < sizeof type_table / sizeof type_table[0]; i++)
        if ((int)(uintptr_t)(void *)type_table[i].h == basic)
            return type_table[i].fn ? &type_table[i] : NULL;
    return NULL;
}

/* The element type of dt: a predefined type is its own (even if it counts
 * as two basic elements, like MPI_2INT); a derived type made of one
 * predefined type is reduced per element of that type. */
static const type_entry *entry_of(const dmpi_datatype *dt)
{
    int key = dt->builtin ? (int)(uintptr_t)(void *)dt->handle : dt->basic;
    return key ? type_lookup(key) : NULL;
}

/* Which classes each predefined op accepts (MPI 4.1 section 6.9.2). */
#define C(x) (1u << (x))
static unsigned op_classes(int kind)
{
    switch (kind) {
    case OP_MIN: case OP_MAX: return C(CL_CINT) | C(CL_FINT) | C(CL_FLOAT) | C(CL_MULTI);
    case OP_SUM: case OP_PROD:
        return C(CL_CINT) | C(CL_FINT) | C(CL_FLOAT) | C(CL_COMPLEX) | C(CL_MULTI);
    case OP_LAND: case OP_LOR: case OP_LXOR: return C(CL_CINT) | C(CL_LOGICAL);
    case OP_BAND: case OP_BOR: case OP_BXOR:
        return C(CL_CINT) | C(CL_FINT) | C(CL_BYTE) | C(CL_MULTI);
    case OP_MINLOC: case OP_MAXLOC: return C(CL_PAIR);
    default: return 0;
    }
}
#undef C

int dmpi_op_check(const dmpi_op *op, const dmpi_datatype *dt, bool allow_rma_ops)
{
    if (!op->builtin) return MPI_SUCCESS;
    int kind = op_kind(op);
    if (kind == OP_REPLACE || kind == OP_NO_OP) return allow_rma_ops ? MPI_SUCCESS : MPI_ERR_OP;
    const type_entry *t = entry_of(dt);
    return t && (op_classes(kind) & (1u << t->cls)) ? MPI_SUCCESS : MPI_ERR_OP;
}

/* ------------------------------------------------------------------- apply */
/* Calls a user function, in pieces of at most INT_MAX elements for the int
 * variant. */
static void apply_user(dmpi_op *op, const void *in, void *inout, MPI_Count count,
                       dmpi_datatype *dt)
{
    MPI_Datatype h = dt->handle;
    if (op->user_fn_c) {
        op->user_fn_c((void *)in, inout, &count, &h);
        return;
    }
    for (MPI_Count done = 0; done < count;) {
        int len = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        MPI_Aint off = (MPI_Aint)done * dt->extent;
        op->user_fn((char *)in + off, (char *)inout + off, &len, &h);
        done += len;
    }
}

/* REPLACE: inout takes the value of in, through the packed form. */
static int apply_replace(const void *in, void *inout, MPI_Count count, dmpi_datatype *dt)
{
    MPI_Count bytes = count * dt->size;
    if (dt->contiguous) {
        memmove((char *)inout + dt->true_lb, (const char *)in + dt->true_lb, (size_t)bytes);
        return MPI_SUCCESS;
    }
    void *tmp = malloc(bytes ? (size_t)bytes : 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    dmpi_dt_pack(in, count, dt, 0, tmp, bytes);
    dmpi_dt_unpack(inout, count, dt, 0, tmp, bytes);
    free(tmp);
    return MPI_SUCCESS;
}

/* Derived type with holes, made of one basic type: unpack both operands into
 * arrays of the basic type, reduce, and put the result back. */
static int apply_derived(kernel_fn fn, int kind, const void *in, void *inout,
                         MPI_Count count, dmpi_datatype *dt, dmpi_datatype *bdt)
{
    MPI_Count bytes = count * dt->size, n = bytes / bdt->size;
    size_t span = (size_t)(n * bdt->extent);
    char *stream = malloc((size_t)bytes + 1), *a = malloc(span + 1), *b = malloc(span + 1);
    int rc = MPI_ERR_NO_MEM;
    if (stream && a && b) {
        dmpi_dt_pack(in, count, dt, 0, stream, bytes);
        dmpi_dt_unpack(a, n, bdt, 0, stream, bytes);
        dmpi_dt_pack(inout, count, dt, 0, stream, bytes);
        dmpi_dt_unpack(b, n, bdt, 0, stream, bytes);
        rc = fn(kind, a, b, n);
        if (rc == MPI_SUCCESS) {
            dmpi_dt_pack(b, n, bdt, 0, stream, bytes);
            dmpi_dt_unpack(inout, count, dt, 0, stream, bytes);
        }
    }
    free(stream);
    free(a);
    free(b);
    return rc;
}

int dmpi_op_apply(dmpi_op *op, const void *in, void *inout, MPI_Count count,
                  dmpi_datatype *dt)
{
    if (count <= 0) return MPI_SUCCESS;
    if (!op->builtin) {
        apply_user(op, in, inout, count, dt);
        return MPI_SUCCESS;
    }
    int kind = op_kind(op);
    if (kind == OP_NO_OP) return MPI_SUCCESS;
    if (kind == OP_REPLACE) return apply_replace(in, inout, count, dt);
    const type_entry *t = entry_of(dt);
    if (!t || !(op_classes(kind) & (1u << t->cls))) return MPI_ERR_OP;
    if (dt->builtin) return t->fn(kind, in, inout, count);
    dmpi_datatype *bdt = dmpi_dt_builtin((MPI_Datatype)(uintptr_t)dt->basic);
    if (!bdt) return MPI_ERR_OP;
    if (dt->contiguous && bdt->contiguous)
        return t->fn(kind, (const char *)in + dt->true_lb, (char *)inout + dt->true_lb,
                     count * dt->size / bdt->size);
    return apply_derived(t->fn, kind, in, inout, count, dt, bdt);
}
