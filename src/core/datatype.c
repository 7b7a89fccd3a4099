/* Datatypes: the table of predefined (built-in) datatypes, indexed directly
 * by their standard-ABI handle value, with each one's alignment and
 * external32 representation; handle <-> object conversion; and the
 * lifetime of derived datatypes (reference counts: user handles, parent
 * types and requests; freed objects are kept a while marked freed so that
 * a stale handle is reported as invalid rather than read as garbage).
 * Layouts are in dt_layout.c, packing in dt_walk.c, constructors in
 * dt_create.c. */
#include "core/dt_layout.h"
#include "core/attr.h"
#include "core/handle_ints.h"

#include <complex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define DT_FIRST 0x200
#define DT_LAST 0x2ff
static dmpi_datatype builtin_types[DT_LAST - DT_FIRST + 1];
static dt_elem_info elem_table[DT_LAST - DT_FIRST + 1];

/* Value-index pairs: C structs whose padding the pack step skips. */
typedef struct { float v; int i; } pair_float_int;
typedef struct { double v; int i; } pair_double_int;
typedef struct { long v; int i; } pair_long_int;
typedef struct { short v; int i; } pair_short_int;
typedef struct { long double v; int i; } pair_long_double_int;

typedef struct {
    MPI_Datatype h;
    const char *name;
    int size, align;
    int ext, conv;            /* external32 bytes and conversion */
} builtin_desc;

#define T(h, ctype, ext, conv) {h, #h, sizeof(ctype), _Alignof(ctype), ext, conv}
#define F(h, size, align, ext, conv) {h, #h, size, align, ext, conv}
enum { CP = DT_CONV_COPY, SW = DT_CONV_SWAP, SH = DT_CONV_SWAP_HALVES, NI = DT_CONV_INT,
       NU = DT_CONV_UINT, LD = DT_CONV_LDOUBLE, LC = DT_CONV_LDCOMPLEX };
static const builtin_desc plain_types[] = {
    T(MPI_AINT, MPI_Aint, 8, SW),
    T(MPI_COUNT, MPI_Count, 8, SW),
    T(MPI_OFFSET, MPI_Offset, 8, SW),
    F(MPI_PACKED, 1, 1, 1, CP),
    T(MPI_SHORT, short, 2, SW),
    T(MPI_INT, int, 4, SW),
    T(MPI_LONG, long, 4, NI),
    T(MPI_LONG_LONG, long long, 8, SW),
    T(MPI_UNSIGNED_SHORT, unsigned short, 2, SW),
    T(MPI_UNSIGNED, unsigned, 4, SW),
    T(MPI_UNSIGNED_LONG, unsigned long, 4, NU),
    T(MPI_UNSIGNED_LONG_LONG, unsigned long long, 8, SW),
    T(MPI_FLOAT, float, 4, SW),
    T(MPI_C_FLOAT_COMPLEX, float _Complex, 8, SH),
    T(MPI_CXX_FLOAT_COMPLEX, float _Complex, 8, SH),
    T(MPI_DOUBLE, double, 8, SW),
    T(MPI_C_DOUBLE_COMPLEX, double _Complex, 16, SH),
    T(MPI_CXX_DOUBLE_COMPLEX, double _Complex, 16, SH),
    F(MPI_LOGICAL, 4, 4, 4, SW),
    F(MPI_INTEGER, 4, 4, 4, SW),
    F(MPI_REAL, 4, 4, 4, SW),
    F(MPI_COMPLEX, 8, 4, 8, SH),
    F(MPI_DOUBLE_PRECISION, 8, 8, 8, SW),
    F(MPI_DOUBLE_COMPLEX, 16, 8, 16, SH),
    F(MPI_CHARACTER, 1, 1, 1, CP),
    T(MPI_LONG_DOUBLE, long double, 16, LD),
    T(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, 32, LC),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, 32, LC),
    F(MPI_2REAL, 8, 4, 8, SW),
    F(MPI_2DOUBLE_PRECISION, 16, 8, 16, SW),
    F(MPI_2INTEGER, 8, 4, 8, SW),
    F(MPI_2INT, 2 * sizeof(int), _Alignof(int), 8, SW),
    T(MPI_C_BOOL, _Bool, 1, CP),
    F(MPI_CXX_BOOL, 1, 1, 1, CP),
    T(MPI_WCHAR, wchar_t, 2, NU),
    F(MPI_INT8_T, 1, 1, 1, CP),
    F(MPI_UINT8_T, 1, 1, 1, CP),
    F(MPI_CHAR, 1, 1, 1, CP),
    F(MPI_SIGNED_CHAR, 1, 1, 1, CP),
    F(MPI_UNSIGNED_CHAR, 1, 1, 1, CP),
    F(MPI_BYTE, 1, 1, 1, CP),
    F(MPI_INT16_T, 2, 2, 2, SW),
    F(MPI_UINT16_T, 2, 2, 2, SW),
    F(MPI_INT32_T, 4, 4, 4, SW),
    F(MPI_UINT32_T, 4, 4, 4, SW),
    F(MPI_INT64_T, 8, 8, 8, SW),
    F(MPI_UINT64_T, 8, 8, 8, SW),
    F(MPI_LOGICAL1, 1, 1, 1, CP),
    F(MPI_INTEGER1, 1, 1, 1, CP),
    F(MPI_LOGICAL2, 2, 2, 2, SW),
    F(MPI_INTEGER2, 2, 2, 2, SW),
    F(MPI_REAL2, 2, 2, 2, SW),
    F(MPI_LOGICAL4, 4, 4, 4, SW),
    F(MPI_INTEGER4, 4, 4, 4, SW),
    F(MPI_REAL4, 4, 4, 4, SW),
    F(MPI_COMPLEX4, 4, 2, 4, SH),
    F(MPI_LOGICAL8, 8, 8, 8, SW),
    F(MPI_INTEGER8, 8, 8, 8, SW),
    F(MPI_REAL8, 8, 8, 8, SW),
    F(MPI_COMPLEX8, 8, 4, 8, SH),
    F(MPI_LOGICAL16, 16, 16, 16, SW),
    F(MPI_INTEGER16, 16, 16, 16, SW),
    F(MPI_REAL16, 16, 16, 16, SW),
    F(MPI_COMPLEX16, 16, 8, 16, SH),
    F(MPI_COMPLEX32, 32, 16, 32, SH),
};
#undef T
#undef F

/* Pairs of equal types: two basic elements of the component type. */
static const struct { MPI_Datatype h, part; } twin_types[] = {
    {MPI_2INT, MPI_INT}, {MPI_2REAL, MPI_REAL},
    {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION}, {MPI_2INTEGER, MPI_INTEGER},
};

/* The value-index pairs: two blocks (value, index) inside a padded struct. */
typedef struct {
    MPI_Datatype h, value;
    const char *name;
    size_t value_size, index_offset, extent, align;
} pair_desc;

#define PAIR(h, T, vh, vt) {h, vh, #h, sizeof(vt), offsetof(T, i), sizeof(T), _Alignof(T)}
static const pair_desc pair_types[] = {
    PAIR(MPI_FLOAT_INT, pair_float_int, MPI_FLOAT, float),
    PAIR(MPI_DOUBLE_INT, pair_double_int, MPI_DOUBLE, double),
    PAIR(MPI_LONG_INT, pair_long_int, MPI_LONG, long),
    PAIR(MPI_SHORT_INT, pair_short_int, MPI_SHORT, short),
    PAIR(MPI_LONG_DOUBLE_INT, pair_long_double_int, MPI_LONG_DOUBLE, long double),
};

static dmpi_datatype *slot(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (v < DT_FIRST || v > DT_LAST) return NULL;
    return &builtin_types[v - DT_FIRST];
}

static int hval(MPI_Datatype h) { return (int)(uintptr_t)(void *)h; }

const dt_elem_info *dt_elem(int tag)
{
    static const dt_elem_info none = {1, 1, DT_CONV_COPY};
    if (tag < DT_FIRST || tag > DT_LAST || elem_table[tag - DT_FIRST].native == 0) return &none;
    return &elem_table[tag - DT_FIRST];
}

static dmpi_datatype *init_builtin(MPI_Datatype h, const char *name, MPI_Count size,
                                   MPI_Aint extent, int align)
{
    dmpi_datatype *dt = slot(h);
    dt->magic = DMPI_MAGIC_DTYPE;
    dt->refcount = 1;
    dt->user_refs = 1;
    dt->size = size;
    dt->lb = dt->true_lb = 0;
    dt->extent = dt->true_extent = extent;
    dt->contiguous = (size == extent);
    dt->committed = dt->builtin = dt->named = true;
    dt->basic = hval(h);
    dt->basic_count = 1;
    dt->align = align;
    dt->elem_tag = hval(h);
    dt->handle = h;
    snprintf(dt->name, sizeof dt->name, "%s", name);
    return dt;
}

/* One-segment layout shared as lay and tlay. */
static void simple_layout(dmpi_datatype *dt, int tag)
{
    dt_lay *L = dt_lay_new(true);
    if (!L || dt_lay_segment(L, 0, dt->size, tag) != MPI_SUCCESS || dt_lay_finish(L) != MPI_SUCCESS)
        dmpi_abort_job(1, "dmpi: out of memory setting up the predefined datatypes");
    dt->lay = dt->tlay = L;
    dt_lay_retain(L);
    dt->basic_count = L->nelem;
}

void dmpi_datatype_init(void)
{
    static bool done;
    if (done) return;
    done = true;
    for (size_t i = 0; i < sizeof plain_types / sizeof plain_types[0]; i++) {
        const builtin_desc *p = &plain_types[i];
        init_builtin(p->h, p->name, p->size, p->size, p->align);
        elem_table[hval(p->h) - DT_FIRST] = (dt_elem_info){p->size, p->ext, p->conv};
    }
    for (size_t i = 0; i < sizeof plain_types / sizeof plain_types[0]; i++)
        simple_layout(slot(plain_types[i].h), hval(plain_types[i].h));
    for (size_t i = 0; i < sizeof twin_types / sizeof twin_types[0]; i++) {
        dmpi_datatype *dt = slot(twin_types[i].h);
        dt_lay_release(dt->lay);
        dt_lay_release(dt->tlay);
        simple_layout(dt, hval(twin_types[i].part));
        dt->elem_tag = hval(twin_types[i].part);
    }
    for (size_t i = 0; i < sizeof pair_types / sizeof pair_types[0]; i++) {
        const pair_desc *p = &pair_types[i];
        MPI_Count size = (MPI_Count)(p->value_size + sizeof(int));
        dmpi_datatype *dt = init_builtin(p->h, p->name, size, (MPI_Aint)p->extent, (int)p->align);
        dt->true_extent = (MPI_Aint)(p->index_offset + sizeof(int));
        dt->contiguous = (size == (MPI_Count)p->extent);
        dt->elem_tag = 0;
        dmpi_dt_layout *l = &dt->builtin_layout;
        l->blocks = dt->builtin_blocks;
        l->nblocks = 2;
        l->blocks[0].disp = 0;
        l->blocks[0].len = (MPI_Aint)p->value_size;
        l->blocks[1].disp = (MPI_Aint)p->index_offset;
        l->blocks[1].len = sizeof(int);
        dt->layout = dt->contiguous ? NULL : l;
        dt_lay *T = dt_lay_new(true), *U = dt_lay_new(false);
        int rc = T && U ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        for (int b = 0; b < 2 && rc == MPI_SUCCESS; b++) {
            int tag = b == 0 ? hval(p->value) : hval(MPI_INT);
            rc = dt_lay_segment(T, l->blocks[b].disp, l->blocks[b].len, tag);
            if (rc == MPI_SUCCESS) rc = dt_lay_segment(U, l->blocks[b].disp, l->blocks[b].len, 0);
        }
        if (rc == MPI_SUCCESS) rc = dt_lay_finish(T);
        if (rc == MPI_SUCCESS) rc = dt_lay_finish(U);
        if (rc != MPI_SUCCESS)
            dmpi_abort_job(1, "dmpi: out of memory setting up the predefined datatypes");
        dt->tlay = T;
        dt->lay = U;
        dt->basic_count = T->nelem;
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
    if (v < 0x1000) return dmpi_dt_builtin(h);
    dmpi_datatype *dt = (dmpi_datatype *)(void *)h;
    if (dt->magic != DMPI_MAGIC_DTYPE) return NULL;
    return __atomic_load_n(&dt->user_refs, __ATOMIC_ACQUIRE) > 0 ? dt : NULL;
}

/* ------------------------------------------------------------- lifetime */
dmpi_datatype *dt_alloc(void)
{
    dmpi_datatype *dt = calloc(1, sizeof *dt);
    if (!dt) return NULL;
    dt->magic = DMPI_MAGIC_DTYPE;
    dt->refcount = 1;
    dt->user_refs = 1;
    dt->handle = (MPI_Datatype)(void *)dt;
    return dt;
}

/* The last freed objects stay allocated (marked freed) so that using a
 * stale handle is caught; the oldest one is released when a slot is needed. */
#define QUARANTINE 256
static dmpi_datatype *quarantine[QUARANTINE];
static unsigned quarantine_next;
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy(dmpi_datatype *dt)
{
    dmpi_dt_args *a = dt->args;
    if (a) {
        for (MPI_Count i = 0; i < a->nd; i++) dmpi_dt_release(a->types[i]);
        free(a);
    }
    dt_lay_release(dt->lay);
    dt_lay_release(dt->tlay);
    dt->args = NULL;
    dt->lay = dt->tlay = NULL;
    dt->magic = DMPI_MAGIC_FREED;
    pthread_mutex_lock(&quarantine_lock);
    unsigned i = quarantine_next++ % QUARANTINE;
    dmpi_datatype *old = quarantine[i];
    quarantine[i] = dt;
    pthread_mutex_unlock(&quarantine_lock);
    free(old);
}

void dmpi_dt_retain(dmpi_datatype *dt)
{
    if (dt && !dt->named) __atomic_add_fetch(&dt->refcount, 1, __ATOMIC_RELAXED);
}

void dmpi_dt_release(dmpi_datatype *dt)
{
    if (!dt || dt->named) return;
    if (__atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL) == 0) destroy(dt);
}

void dt_user_retain(dmpi_datatype *dt)
{
    if (!dt || dt->named) return;
    __atomic_add_fetch(&dt->user_refs, 1, __ATOMIC_RELAXED);
    dmpi_dt_retain(dt);
}

int dt_user_free(dmpi_datatype *dt)
{
    int rc = MPI_SUCCESS;
    if (__atomic_sub_fetch(&dt->user_refs, 1, __ATOMIC_ACQ_REL) == 0) {
        rc = dmpi_type_attr_delete_all(dt);
        dmpi_handle_forget((uintptr_t)(void *)dt);
    }
    dmpi_dt_release(dt);
    return rc;
}
