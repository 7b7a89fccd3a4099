/* Datatype constructors in the core: one generic builder (dt_build) that
 * turns a list of placements of child types into a new type — size, bounds
 * and extent, the typed and packing layouts, and the contiguity flag — and
 * the simple constructors on top of it (vector, indexed, struct, resized),
 * plus dup, the f90 types and the stored constructor arguments. Subarray
 * and darray are in dt_array.c.
 *
 * Bounds: lb/ub are the lowest lb and highest ub over the copies of the
 * parts that have data or explicit bounds (parts without either do not
 * count); a struct's extent is then padded to the alignment of its most
 * aligned basic type unless every part has explicit bounds (resized,
 * subarray, darray). This is what MPICH computes, so both MPIs agree on
 * extents for the standard ABI; Open MPI instead pads every constructor and
 * keeps MPI-1's "sticky" marker reading for mixed structs. */
#include "core/dt_layout.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ pass 1: properties */
typedef struct {
    bool any_bounds, all_markers, any_markers;
    MPI_Aint lb, ub, tlb, tub;
    MPI_Count size;
    int align, basic, tag; /* basic/tag: -1 none yet, 0 mixed */
} props;

static int basic_of(const dmpi_datatype *t)
{
    return t->builtin ? (int)(uintptr_t)(void *)t->handle : t->basic;
}

static void combine(int *acc, int v)
{
    if (*acc < 0) *acc = v;
    else if (*acc != v) *acc = 0;
}

static int emit_props(void *ctx, dmpi_datatype *t, MPI_Aint disp, int ndim, const MPI_Count *cnt,
                      const MPI_Aint *stride)
{
    props *p = ctx;
    MPI_Count copies = 1, bytes;
    MPI_Aint lo = disp, hi = disp;
    for (int d = 0; d < ndim; d++) {
        if (cnt[d] <= 0) return MPI_SUCCESS;
        if (__builtin_mul_overflow(copies, cnt[d], &copies)) return MPI_ERR_COUNT;
        MPI_Aint span = (MPI_Aint)(cnt[d] - 1) * stride[d];
        if (span < 0) lo += span;
        else hi += span;
    }
    if (__builtin_mul_overflow(copies, t->size, &bytes) ||
        __builtin_add_overflow(p->size, bytes, &p->size))
        return MPI_ERR_COUNT;
    if (t->size > 0 || t->has_markers) {
        MPI_Aint l = lo + t->lb, u = hi + t->lb + t->extent;
        if (!p->any_bounds || l < p->lb) p->lb = l;
        if (!p->any_bounds || u > p->ub) p->ub = u;
        p->any_bounds = true;
        p->all_markers = p->all_markers && t->has_markers;
        p->any_markers = p->any_markers || t->has_markers;
    }
    if (t->size > 0) {
        MPI_Aint l = lo + t->true_lb, u = hi + t->true_lb + t->true_extent;
        if (p->tag < 0 || l < p->tlb) p->tlb = l;
        if (p->tag < 0 || u > p->tub) p->tub = u;
        if (t->align > p->align) p->align = t->align;
        combine(&p->basic, basic_of(t));
        combine(&p->tag, t->elem_tag);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- pass 2: layouts */
typedef struct {
    dt_lay *L;
} lay_ctx;

static int emit_lay(void *ctx, dmpi_datatype *t, MPI_Aint disp, int ndim, const MPI_Count *cnt,
                    const MPI_Aint *stride)
{
    lay_ctx *c = ctx;
    return dt_lay_place(c->L, c->L->typed ? t->tlay : t->lay, disp, ndim, cnt, stride);
}

static int build_layout(dt_gen_fn gen, const void *spec, bool typed, dt_lay **out)
{
    lay_ctx c = {dt_lay_new(typed)};
    if (!c.L) return MPI_ERR_NO_MEM;
    int rc = gen(spec, emit_lay, &c);
    if (rc == MPI_SUCCESS) rc = dt_lay_finish(c.L);
    if (rc != MPI_SUCCESS) {
        dt_lay_release(c.L);
        return rc;
    }
    *out = c.L;
    return MPI_SUCCESS;
}

int dt_build(dt_gen_fn gen, const void *spec, int bounds, MPI_Aint lb, MPI_Aint extent,
             dmpi_datatype **out)
{
    props p = {.all_markers = true, .align = 1, .basic = -1, .tag = -1};
    int rc = gen(spec, emit_props, &p);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_datatype *dt = dt_alloc();
    if (!dt) return MPI_ERR_NO_MEM;
    rc = build_layout(gen, spec, true, &dt->tlay);
    if (rc == MPI_SUCCESS) {
        if (p.tag != 0) { /* one basic type (or none): same merges */
            dt->lay = dt->tlay;
            dt_lay_retain(dt->lay);
        } else {
            rc = build_layout(gen, spec, false, &dt->lay);
        }
    }
    if (rc != MPI_SUCCESS) {
        dt_lay_release(dt->tlay);
        free(dt);
        return rc;
    }
    dt->size = p.size;
    dt->basic_count = dt->tlay->nelem;
    if (bounds == DT_BOUNDS_SET) {
        dt->lb = lb;
        dt->extent = extent;
        dt->has_markers = true;
    } else if (p.any_bounds) {
        MPI_Aint ub = p.ub;
        if (bounds == DT_BOUNDS_STRUCT && !p.all_markers && p.align > 1 && ub - p.lb > 0) {
            MPI_Aint r = (ub - p.lb) % p.align;
            if (r) ub += p.align - r;
        }
        dt->lb = p.lb;
        dt->extent = ub - p.lb;
        dt->has_markers = p.any_markers;
    }
    if (p.size > 0) {
        dt->true_lb = p.tlb;
        dt->true_extent = p.tub - p.tlb;
    }
    dt->align = p.align;
    dt->basic = p.basic > 0 ? p.basic : 0;
    dt->elem_tag = p.tag > 0 ? p.tag : 0;
    const dt_lay *U = dt->lay;
    dt->contiguous = dt->size == dt->extent &&
                     (dt->size == 0 || (U->n == 1 && U->items[0].ndim == 0 && !U->items[0].sub));
    *out = dt;
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- constructors */
typedef struct {
    MPI_Count count, bl;
    MPI_Aint stride;
    dmpi_datatype *t;
} vector_spec;

static int gen_vector(const void *spec, dt_emit_fn emit, void *ctx)
{
    const vector_spec *v = spec;
    MPI_Count cnt[2] = {v->bl, v->count};
    MPI_Aint st[2] = {v->t->extent, v->stride};
    return emit(ctx, v->t, 0, 2, cnt, st);
}

int dt_create_vector(MPI_Count count, MPI_Count bl, MPI_Aint stride, dmpi_datatype *old,
                     dmpi_datatype **out)
{
    vector_spec v = {count, bl, stride, old};
    return dt_build(gen_vector, &v, DT_BOUNDS_PLAIN, 0, 0, out);
}

typedef struct {
    MPI_Count count, bl1;
    const MPI_Count *bl, *disp;
    MPI_Aint unit;
    dmpi_datatype *t;
    dmpi_datatype *const *types;
} indexed_spec;

static int gen_indexed(const void *spec, dt_emit_fn emit, void *ctx)
{
    const indexed_spec *s = spec;
    for (MPI_Count i = 0; i < s->count; i++) {
        dmpi_datatype *t = s->types ? s->types[i] : s->t;
        MPI_Count cnt[1] = {s->bl ? s->bl[i] : s->bl1};
        MPI_Aint st[1] = {t->extent};
        int rc = emit(ctx, t, (MPI_Aint)s->disp[i] * s->unit, 1, cnt, st);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int dt_create_indexed(MPI_Count count, const MPI_Count *bl, MPI_Count bl1, const MPI_Count *disp,
                      MPI_Aint unit, dmpi_datatype *old, dmpi_datatype *const *types,
                      bool is_struct, dmpi_datatype **out)
{
    indexed_spec s = {count, bl1, bl, disp, unit, old, types};
    return dt_build(gen_indexed, &s, is_struct ? DT_BOUNDS_STRUCT : DT_BOUNDS_PLAIN, 0, 0, out);
}

static int gen_single(const void *spec, dt_emit_fn emit, void *ctx)
{
    MPI_Count c[1] = {1};
    MPI_Aint s[1] = {0};
    return emit(ctx, (dmpi_datatype *)spec, 0, 0, c, s);
}

int dt_create_resized(dmpi_datatype *old, MPI_Aint lb, MPI_Aint extent, dmpi_datatype **out)
{
    return dt_build(gen_single, old, DT_BOUNDS_SET, lb, extent, out);
}

/* Same type map, own identity; the layouts are shared. */
int dt_create_dup(dmpi_datatype *old, dmpi_datatype **out)
{
    dmpi_datatype *dt = dt_alloc();
    if (!dt) return MPI_ERR_NO_MEM;
    dt->size = old->size;
    dt->lb = old->lb;
    dt->extent = old->extent;
    dt->true_lb = old->true_lb;
    dt->true_extent = old->true_extent;
    dt->contiguous = old->contiguous;
    dt->committed = old->committed;
    dt->basic = basic_of(old);
    dt->basic_count = old->basic_count;
    dt->has_markers = old->has_markers;
    dt->align = old->align;
    dt->elem_tag = old->elem_tag;
    dt->lay = old->lay;
    dt->tlay = old->tlay;
    dt_lay_retain(dt->lay);
    dt_lay_retain(dt->tlay);
    *out = dt;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------------- f90 */
/* One object per (combiner, p, r), made on first request, kept for the run. */
static dmpi_datatype **f90_cache;
static int f90_n, f90_cap;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

static bool f90_is(const dmpi_datatype *dt, int combiner, int p, int r)
{
    const dmpi_dt_args *a = dt->args;
    if (a->combiner != combiner) return false;
    if (combiner == MPI_COMBINER_F90_INTEGER) return a->ints[0] == r;
    return a->ints[0] == p && a->ints[1] == r;
}

dmpi_datatype *dt_f90(int combiner, int p, int r, MPI_Datatype base)
{
    pthread_mutex_lock(&f90_lock);
    dmpi_datatype *dt = NULL;
    for (int i = 0; i < f90_n && !dt; i++)
        if (f90_is(f90_cache[i], combiner, p, r)) dt = f90_cache[i];
    if (!dt && f90_n == f90_cap) {
        int cap = f90_cap ? 2 * f90_cap : 8;
        dmpi_datatype **c = realloc(f90_cache, (size_t)cap * sizeof *c);
        if (c) f90_cache = c, f90_cap = cap;
    }
    if (!dt && f90_n < f90_cap) {
        dmpi_datatype *b = dmpi_dt_builtin(base);
        int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
        dmpi_dt_args *a = dt_args_new(combiner, ni, 0, 0, 0);
        if (b && a && dt_create_dup(b, &dt) == MPI_SUCCESS) {
            if (ni == 1) {
                a->ints[0] = r;
            } else {
                a->ints[0] = p;
                a->ints[1] = r;
            }
            dt->args = a;
            dt->named = true;
            dt->committed = true;
            f90_cache[f90_n++] = dt;
        } else {
            free(a);
            dt = NULL;
        }
    }
    pthread_mutex_unlock(&f90_lock);
    return dt;
}

/* ------------------------------------------------------------- arguments */
dmpi_dt_args *dt_args_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd)
{
    size_t bytes = sizeof(dmpi_dt_args) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)nc * sizeof(MPI_Count) + (size_t)nd * sizeof(dmpi_datatype *) +
                   (size_t)ni * sizeof(int);
    dmpi_dt_args *a = calloc(1, bytes);
    if (!a) return NULL;
    a->combiner = combiner;
    a->ni = ni;
    a->na = na;
    a->nc = nc;
    a->nd = nd;
    char *p = (char *)(a + 1); /* 8-byte members first, then pointers, then ints */
    a->addrs = (MPI_Aint *)(void *)p;
    p += (size_t)na * sizeof(MPI_Aint);
    a->counts = (MPI_Count *)(void *)p;
    p += (size_t)nc * sizeof(MPI_Count);
    a->types = (dmpi_datatype **)(void *)p;
    p += (size_t)nd * sizeof(dmpi_datatype *);
    a->ints = (int *)(void *)p;
    return a;
}

void dt_set_args(dmpi_datatype *dt, dmpi_dt_args *a)
{
    for (MPI_Count i = 0; i < a->nd; i++) dmpi_dt_retain(a->types[i]);
    dt->args = a;
}
