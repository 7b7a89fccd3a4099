/* Internal interface of the datatype engine (core/datatype.c, dt_*.c).
 *
 * Every datatype describes the data of ONE element with a layout: a list of
 * items in typemap order. An item is a grid of equal blocks: up to
 * DT_MAXDIM nested (cnt, stride) dimensions, innermost first, starting at
 * byte `disp` from the element's origin. A block is either `len`
 * contiguous bytes (a segment) or one instance of a child layout (`sub`,
 * then len = sub->size). So a vector, a subarray face or a nested vector is
 * one item whatever its count, and a big count of a many-item type stays
 * one `sub` item instead of being expanded. `count` elements of a type
 * repeat the layout at multiples of the extent (never materialised).
 *
 * cum[i] is the packed-stream offset where item i starts (cum[n] = size),
 * which lets the walkers seek to any byte offset by binary search.
 *
 * Two layouts per type: `tlay` keeps blocks of different basic types apart
 * (each segment has one elementary `tag`; used to count basic elements and
 * for external32), `lay` merges across basic types for packing. For a type
 * made of one basic type they are the same object. */
#ifndef DMPI_DT_LAYOUT_H
#define DMPI_DT_LAYOUT_H

#include "core/dmpi.h"

#include <sys/uio.h>

#define DT_MAXDIM 4

typedef struct dt_item {
    MPI_Aint disp;               /* first block, from the element's origin */
    MPI_Count len;               /* bytes of one block in the packed stream */
    struct dmpi_dt_lay *sub;     /* NULL: a block is contiguous bytes */
    int ndim;                    /* 0: a single block */
    int tag;                     /* typed layouts: elementary type handle value */
    MPI_Count cnt[DT_MAXDIM];
    MPI_Aint stride[DT_MAXDIM];
} dt_item;

typedef struct dmpi_dt_lay {
    int refs;
    bool typed;
    int n, cap;
    dt_item *items;
    MPI_Count *cum;              /* n+1 packed offsets */
    MPI_Count *ecum;             /* n+1 basic-element counts (typed only) */
    MPI_Count size, nelem;       /* bytes and basic elements of one instance */
} dt_lay;

/* ---- layouts (dt_layout.c) */
dt_lay *dt_lay_new(bool typed);
void dt_lay_retain(dt_lay *L);
void dt_lay_release(dt_lay *L);
/* Appends `child` placed at disp and repeated over the grid
 * (cnt[k], stride[k]), innermost first. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dt_lay_place(dt_lay *L, dt_lay *child, MPI_Aint disp, int ndim, const MPI_Count *cnt,
                 const MPI_Aint *stride);
/* Appends one segment of `len` bytes of elementary type tag at disp. */
int dt_lay_segment(dt_lay *L, MPI_Aint disp, MPI_Count len, int tag);
/* Computes the offsets once all items are in. */
int dt_lay_finish(dt_lay *L);
/* Merges dimensions (and contiguous blocks) of an item; false if empty. */
bool dt_item_normalize(dt_item *it);
/* Index of the item holding stream offset off (0 <= off < L->size). */
int dt_lay_find(const dt_lay *L, MPI_Count off);

/* Moves the grid position idx (block address *a) of item it k blocks on
 * along the innermost dimension, carrying into the outer ones. */
static inline void dt_advance(const dt_item *it, MPI_Count *idx, uintptr_t *a, MPI_Count k)
{
    if (it->ndim == 0) return;
    idx[0] += k;
    *a += (uintptr_t)(k * it->stride[0]);
    for (int d = 0; d < it->ndim && idx[d] == it->cnt[d]; d++) {
        idx[d] = 0;
        *a -= (uintptr_t)(it->cnt[d] * it->stride[d]);
        if (d + 1 < it->ndim) {
            idx[d + 1]++;
            *a += (uintptr_t)it->stride[d + 1];
        }
    }
}

/* ---- elementary (basic) types: native and external32 sizes */
typedef struct dt_elem_info {
    int native;                  /* bytes in memory */
    int ext;                     /* bytes in external32 */
    int conv;                    /* DT_CONV_* */
} dt_elem_info;
enum { DT_CONV_COPY, DT_CONV_SWAP, DT_CONV_SWAP_HALVES, DT_CONV_INT, DT_CONV_UINT,
       DT_CONV_LDOUBLE, DT_CONV_LDCOMPLEX };
const dt_elem_info *dt_elem(int tag);

/* ---- counting basic elements (dt_walk.c) */
/* Basic elements in the first `bytes` bytes of the packed stream of dt
 * (any count); -1 if the bytes end inside a basic element. */
MPI_Count dt_count_elements(const dmpi_datatype *dt, MPI_Count bytes);
/* Bytes taken by the first `elements` basic elements. */
MPI_Count dt_bytes_of_elements(const dmpi_datatype *dt, MPI_Count elements);

/* ---- external32 (dt_external.c): whole elements only. Return the bytes
 * written/read; sizes via dt_external_size. */
MPI_Count dt_external_size(const dmpi_datatype *dt);
void dt_external_pack(const void *buf, MPI_Count count, const dmpi_datatype *dt, void *out);
void dt_external_unpack(const void *in, MPI_Count count, const dmpi_datatype *dt, void *buf);

/* ---- objects (datatype.c) */
/* A fresh derived datatype (refcount 1, user_refs 1, not committed). */
dmpi_datatype *dt_alloc(void);
/* One more user handle on dt (Type_get_contents); MPI_Type_free drops one
 * (deleting the attributes with the last) and returns an attribute
 * callback's error, if any. No-ops for predefined types. */
void dt_user_retain(dmpi_datatype *dt);
int dt_user_free(dmpi_datatype *dt);

/* The arguments a type was made with, as MPI_Type_get_contents(_c)
 * returns them (one allocation; types hold references). */
typedef struct dmpi_dt_args {
    int combiner;
    MPI_Count ni, na, nc, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    dmpi_datatype **types;
} dmpi_dt_args;
dmpi_dt_args *dt_args_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd);
/* Attaches a to dt, taking references on a->types (fill them first). */
void dt_set_args(dmpi_datatype *dt, dmpi_dt_args *a);

/* ---- constructors (dt_create.c, dt_array.c). Arguments are checked by
 * the api layer; these return MPI_SUCCESS or MPI_ERR_NO_MEM (MPI_ERR_COUNT
 * when the type would be too large) with *out a new uncommitted type. */
/* count blocks of bl elements of old, stride bytes apart. */
int dt_create_vector(MPI_Count count, MPI_Count bl, MPI_Aint stride, dmpi_datatype *old,
                     dmpi_datatype **out);
/* Blocks i: bl[i] (or bl1 when bl is NULL) elements of types[i] (or old
 * when types is NULL) at disp[i] * unit bytes; is_struct pads the extent
 * to the alignment of the basic types. */
int dt_create_indexed(MPI_Count count, const MPI_Count *bl, MPI_Count bl1, const MPI_Count *disp,
                      MPI_Aint unit, dmpi_datatype *old, dmpi_datatype *const *types,
                      bool is_struct, dmpi_datatype **out);
int dt_create_resized(dmpi_datatype *old, MPI_Aint lb, MPI_Aint extent, dmpi_datatype **out);
int dt_create_dup(dmpi_datatype *old, dmpi_datatype **out);
int dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                       const MPI_Count *starts, int order, dmpi_datatype *old,
                       dmpi_datatype **out);
int dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                     const int *dargs, const int *psizes, int order, dmpi_datatype *old,
                     dmpi_datatype **out);
/* The (cached, predefined) type MPI_Type_create_f90_* returns. */
dmpi_datatype *dt_f90(int combiner, int p, int r, MPI_Datatype base);

/* The generic builder behind the constructors: gen calls emit once per
 * placement (child t at disp over the grid cnt/stride, innermost first). */
typedef int (*dt_emit_fn)(void *ctx, dmpi_datatype *t, MPI_Aint disp, int ndim,
                          const MPI_Count *cnt, const MPI_Aint *stride);
typedef int (*dt_gen_fn)(const void *spec, dt_emit_fn emit, void *ctx);
enum { DT_BOUNDS_PLAIN, DT_BOUNDS_STRUCT, DT_BOUNDS_SET };
int dt_build(dt_gen_fn gen, const void *spec, int bounds, MPI_Aint lb, MPI_Aint extent,
             dmpi_datatype **out);

static inline uintptr_t dt_addr(const void *buf, MPI_Aint off)
{
    return (uintptr_t)buf + (uintptr_t)off;
}

#endif
