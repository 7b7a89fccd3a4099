/* Datatypes: the table of predefined (built-in) datatypes, indexed directly
 * by their standard-ABI handle value, and packing/unpacking of a typed
 * buffer to/from a contiguous byte stream. Built-in types are either plain
 * contiguous or, for the value-index pair types (MPI_DOUBLE_INT ...), two
 * blocks with a hole; derived datatypes (object-model issue) plug their
 * layout into the same dmpi_dt_layout description. */
#include "core/dmpi.h"

#include <stdio.h>

#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define DT_FIRST 0x200
#define DT_LAST 0x2ff
static dmpi_datatype builtin_types[DT_LAST - DT_FIRST + 1];

/* Value-index pairs: C structs whose padding the pack step skips. */
typedef struct { float v; int i; } pair_float_int;
typedef struct { double v; int i; } pair_double_int;
typedef struct { long v; int i; } pair_long_int;
typedef struct { short v; int i; } pair_short_int;
typedef struct { long double v; int i; } pair_long_double_int;

typedef struct {
    MPI_Datatype h;
    const char *name;
    size_t size;
} builtin_desc;

static const builtin_desc plain_types[] = {
    {MPI_AINT, "MPI_AINT", sizeof(MPI_Aint)},
    {MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count)},
    {MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset)},
    {MPI_PACKED, "MPI_PACKED", 1},
    {MPI_SHORT, "MPI_SHORT", sizeof(short)},
    {MPI_INT, "MPI_INT", sizeof(int)},
    {MPI_LONG, "MPI_LONG", sizeof(long)},
    {MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long)},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(unsigned short)},
    {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned)},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long)},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long)},
    {MPI_FLOAT, "MPI_FLOAT", sizeof(float)},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", sizeof(float _Complex)},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(float _Complex)},
    {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double)},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double _Complex)},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(double _Complex)},
    {MPI_LOGICAL, "MPI_LOGICAL", 4},
    {MPI_INTEGER, "MPI_INTEGER", 4},
    {MPI_REAL, "MPI_REAL", 4},
    {MPI_COMPLEX, "MPI_COMPLEX", 8},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16},
    {MPI_CHARACTER, "MPI_CHARACTER", 1},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double)},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double _Complex)},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double _Complex)},
    {MPI_2REAL, "MPI_2REAL", 8},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16},
    {MPI_2INTEGER, "MPI_2INTEGER", 8},
    {MPI_2INT, "MPI_2INT", 2 * sizeof(int)},
    {MPI_C_BOOL, "MPI_C_BOOL", sizeof(_Bool)},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", 1},
    {MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t)},
    {MPI_INT8_T, "MPI_INT8_T", 1},
    {MPI_UINT8_T, "MPI_UINT8_T", 1},
    {MPI_CHAR, "MPI_CHAR", 1},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1},
    {MPI_BYTE, "MPI_BYTE", 1},
    {MPI_INT16_T, "MPI_INT16_T", 2},
    {MPI_UINT16_T, "MPI_UINT16_T", 2},
    {MPI_INT32_T, "MPI_INT32_T", 4},
    {MPI_UINT32_T, "MPI_UINT32_T", 4},
    {MPI_INT64_T, "MPI_INT64_T", 8},
    {MPI_UINT64_T, "MPI_UINT64_T", 8},
    {MPI_LOGICAL1, "MPI_LOGICAL1", 1},
    {MPI_INTEGER1, "MPI_INTEGER1", 1},
    {MPI_LOGICAL2, "MPI_LOGICAL2", 2},
    {MPI_INTEGER2, "MPI_INTEGER2", 2},
    {MPI_REAL2, "MPI_REAL2", 2},
    {MPI_LOGICAL4, "MPI_LOGICAL4", 4},
    {MPI_INTEGER4, "MPI_INTEGER4", 4},
    {MPI_REAL4, "MPI_REAL4", 4},
    {MPI_COMPLEX4, "MPI_COMPLEX4", 4},
    {MPI_LOGICAL8, "MPI_LOGICAL8", 8},
    {MPI_INTEGER8, "MPI_INTEGER8", 8},
    {MPI_REAL8, "MPI_REAL8", 8},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
    {MPI_LOGICAL16, "MPI_LOGICAL16", 16},
    {MPI_INTEGER16, "MPI_INTEGER16", 16},
    {MPI_REAL16, "MPI_REAL16", 16},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
    {MPI_COMPLEX32, "MPI_COMPLEX32", 32},
};

/* The pair types: two blocks (value, index) inside a padded struct. */
typedef struct {
    MPI_Datatype h;
    const char *name;
    size_t value_size, index_offset, extent;
} pair_desc;

#define PAIR(h, T, vt) \
    {h, #h, sizeof(vt), offsetof(T, i), sizeof(T)}
static const pair_desc pair_types[] = {
    PAIR(MPI_FLOAT_INT, pair_float_int, float),
    PAIR(MPI_DOUBLE_INT, pair_double_int, double),
    PAIR(MPI_LONG_INT, pair_long_int, long),
    PAIR(MPI_SHORT_INT, pair_short_int, short),
    PAIR(MPI_LONG_DOUBLE_INT, pair_long_double_int, long double),
};

static dmpi_datatype *slot(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v < DT_FIRST || v > DT_LAST) return NULL;
    return &builtin_types[v - DT_FIRST];
}

static dmpi_datatype *init_builtin(MPI_Datatype h, const char *name, MPI_Count size,
                                   MPI_Aint extent)
{
    dmpi_datatype *dt = slot(h);
    dt->magic = DMPI_MAGIC_DTYPE;
    dt->refcount = 1;
    dt->size = size;
    dt->lb = dt->true_lb = 0;
    dt->extent = dt->true_extent = extent;
    dt->contiguous = (size == extent);
    dt->committed = dt->builtin = true;
    dt->basic = (int)(uintptr_t)(void *)h;
    dt->basic_count = 1;
    dt->handle = h;
    snprintf(dt->name, sizeof dt->name, "%s", name);
    return dt;
}

void dmpi_datatype_init(void)
{
    for (size_t i = 0; i < sizeof plain_types / sizeof plain_types[0]; i++)
        init_builtin(plain_types[i].h, plain_types[i].name, (MPI_Count)plain_types[i].size,
                     (MPI_Aint)plain_types[i].size);
    /* Pairs of equal types count as two basic elements. */
    static const MPI_Datatype twins[] = {MPI_2INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    for (size_t i = 0; i < sizeof twins / sizeof twins[0]; i++) slot(twins[i])->basic_count = 2;
    for (size_t i = 0; i < sizeof pair_types / sizeof pair_types[0]; i++) {
        const pair_desc *p = &pair_types[i];
        MPI_Count size = (MPI_Count)(p->value_size + sizeof(int));
        dmpi_datatype *dt = init_builtin(p->h, p->name, size, (MPI_Aint)p->extent);
        dt->true_extent = (MPI_Aint)(p->index_offset + sizeof(int));
        dt->contiguous = (size == (MPI_Count)p->extent);
        if (!dt->contiguous) {
            dmpi_dt_layout *l = &dt->builtin_layout;
            l->blocks = dt->builtin_blocks;
            l->nblocks = 2;
            l->blocks[0].disp = 0;
            l->blocks[0].len = (MPI_Aint)p->value_size;
            l->blocks[1].disp = (MPI_Aint)p->index_offset;
            l->blocks[1].len = sizeof(int);
            dt->layout = l;
        }
    }
}

dmpi_datatype *dmpi_dt_builtin(MPI_Datatype h)
{
    dmpi_datatype *dt = slot(h);
    return dt && dt->magic == DMPI_MAGIC_DTYPE ? dt : NULL;
}

dmpi_datatype *dmpi_dt_get(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v <= DT_LAST) return dmpi_dt_builtin(h);
    dmpi_datatype *dt = (dmpi_datatype *)(void *)h;
    return dt->magic == DMPI_MAGIC_DTYPE ? dt : NULL;
}

/* Walks the byte range [offset, offset+len) of the packed stream of
 * count elements, calling copy(typed_ptr, stream_ptr, n) per piece. */
typedef void (*piece_fn)(char *typed, char *stream, size_t n);
static void copy_out(char *typed, char *stream, size_t n) { memcpy(stream, typed, n); }
static void copy_in(char *typed, char *stream, size_t n) { memcpy(typed, stream, n); }

static void walk(char *buf, const dmpi_datatype *dt, MPI_Count offset, char *stream,
                 MPI_Count len, piece_fn fn)
{
    const dmpi_dt_layout *l = dt->layout;
    MPI_Count elem = offset / dt->size;
    MPI_Count in_elem = offset % dt->size;
    while (len > 0) {
        char *base = buf + elem * dt->extent;
        MPI_Count pos = 0;
        for (int b = 0; b < l->nblocks && len > 0; b++) {
            MPI_Count blen = l->blocks[b].len;
            if (in_elem >= pos + blen) { pos += blen; continue; }
            MPI_Count skip = in_elem - pos;
            MPI_Count n = blen - skip < len ? blen - skip : len;
            fn(base + l->blocks[b].disp + skip, stream, (size_t)n);
            stream += n;
            len -= n;
            in_elem += n;
            pos += blen;
        }
        elem++;
        in_elem = 0;
    }
}

void dmpi_dt_pack(const void *buf, MPI_Count count, const dmpi_datatype *dt,
                  MPI_Count offset, void *out, MPI_Count len)
{
    (void)count;
    if (len <= 0) return;
    if (dt->contiguous) {
        memcpy(out, (const char *)buf + dt->true_lb + offset, (size_t)len);
        return;
    }
    walk((char *)buf, dt, offset, out, len, copy_out);
}

void dmpi_dt_unpack(void *buf, MPI_Count count, const dmpi_datatype *dt,
                    MPI_Count offset, const void *in, MPI_Count len)
{
    (void)count;
    if (len <= 0) return;
    if (dt->contiguous) {
        memcpy((char *)buf + dt->true_lb + offset, in, (size_t)len);
        return;
    }
    walk(buf, dt, offset, (char *)in, len, copy_in);
}
