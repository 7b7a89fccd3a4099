/* MPI datatype constructors and lifetime (MPI 4.1 sections 5.1.2-5.1.9):
 * Type_contiguous, vector, create_hvector, indexed, create_hindexed,
 * create_indexed_block, create_hindexed_block, create_struct,
 * create_subarray, create_darray, create_resized (each with its _c form),
 * Type_dup, Type_commit, Type_free. Each entry point checks its arguments,
 * records them as MPI_Type_get_contents will return them (int or large
 * counts, as the call was made), and lets the core build the type
 * (core/dt_create.c, core/dt_array.c). Queries are in datatype_query.c. */
#include "api/api.h"
#include "core/attr.h"
#include "core/dt_layout.h"

#include <stdlib.h>

#define ERR(cls, ...) dmpi_error_noobj((cls), fn, __VA_ARGS__)

static int get_type(const char *fn, MPI_Datatype h, dmpi_datatype **out, const char *what)
{
    *out = dmpi_dt_get(h);
    if (!*out)
        return ERR(MPI_ERR_TYPE, "invalid %s%s", what,
                   h == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : " (freed or not a datatype)");
    return MPI_SUCCESS;
}

/* Common start: initialised, valid oldtype, non-NULL newtype. */
#define BEGIN(old, oldtype, newtype)                                                      \
    DMPI_CHECK_INIT(fn);                                                                  \
    if (!(newtype)) return ERR(MPI_ERR_ARG, "newtype is NULL");                           \
    dmpi_datatype *old;                                                                   \
    do {                                                                                  \
        int rc_ = get_type(fn, oldtype, &old, "oldtype");                                 \
        if (rc_ != MPI_SUCCESS) return rc_;                                               \
    } while (0)

#define NEED(ptr, n) \
    if ((n) > 0 && !(ptr)) return ERR(MPI_ERR_ARG, "%s is NULL", #ptr)

/* Attaches the arguments and hands out the new type (or reports rc). */
static int finish(const char *fn, int rc, dmpi_datatype *dt, dmpi_dt_args *a, MPI_Datatype *newtype)
{
    if (rc == MPI_SUCCESS && !a) {
        dmpi_dt_release(dt);
        rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS) {
        free(a);
        return ERR(rc, rc == MPI_ERR_NO_MEM ? "out of memory" : "the datatype would be too large");
    }
    dt_set_args(dt, a);
    *newtype = dt->handle;
    return MPI_SUCCESS;
}

static MPI_Count *widen(const int *v, MPI_Count n)
{
    MPI_Count *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (w)
        for (MPI_Count i = 0; i < n; i++) w[i] = v[i];
    return w;
}

static MPI_Count *widen_aint(const MPI_Aint *v, MPI_Count n)
{
    MPI_Count *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (w)
        for (MPI_Count i = 0; i < n; i++) w[i] = v[i];
    return w;
}

/* ------------------------------------------------------ vector family */
/* stride_unit 0: stride in elements of oldtype; 1: in bytes. */
static int make_vector(const char *fn, int combiner, bool large, MPI_Count count, MPI_Count bl,
                       MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    BEGIN(old, oldtype, newtype);
    if (count < 0) return ERR(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    if (bl < 0) return ERR(MPI_ERR_COUNT, "negative blocklength %lld", (long long)bl);
    dmpi_dt_args *a;
    if (combiner == MPI_COMBINER_CONTIGUOUS) {
        a = dt_args_new(combiner, large ? 0 : 1, 0, large ? 1 : 0, 1);
        if (a && large) a->counts[0] = count;
        else if (a) a->ints[0] = (int)count;
    } else if (large) {
        a = dt_args_new(combiner, 0, 0, 3, 1);
        if (a) a->counts[0] = count, a->counts[1] = bl, a->counts[2] = stride;
    } else {
        bool h = combiner == MPI_COMBINER_HVECTOR;
        a = dt_args_new(combiner, h ? 2 : 3, h, 0, 1);
        if (a) {
            a->ints[0] = (int)count;
            a->ints[1] = (int)bl;
            if (h) a->addrs[0] = (MPI_Aint)stride;
            else a->ints[2] = (int)stride;
        }
    }
    if (a) a->types[0] = old;
    MPI_Aint bytes = combiner == MPI_COMBINER_HVECTOR ? (MPI_Aint)stride
                     : combiner == MPI_COMBINER_CONTIGUOUS ? old->extent
                                                           : (MPI_Aint)stride * old->extent;
    if (combiner == MPI_COMBINER_CONTIGUOUS) bl = 1;
    dmpi_datatype *dt = NULL;
    int rc = a ? dt_create_vector(count, bl, bytes, old, &dt) : MPI_ERR_NO_MEM;
    return finish(fn, rc, dt, a, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_contiguous", MPI_COMBINER_CONTIGUOUS, false, count, 1, 0,
                       oldtype, newtype);
}
DMPI_ALIAS(Type_contiguous)

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_contiguous_c", MPI_COMBINER_CONTIGUOUS, true, count, 1, 0,
                       oldtype, newtype);
}
DMPI_ALIAS(Type_contiguous_c)

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_vector", MPI_COMBINER_VECTOR, false, count, blocklength, stride,
                       oldtype, newtype);
}
DMPI_ALIAS(Type_vector)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_vector_c", MPI_COMBINER_VECTOR, true, count, blocklength, stride,
                       oldtype, newtype);
}
DMPI_ALIAS(Type_vector_c)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, false, count, blocklength,
                       stride, oldtype, newtype);
}
DMPI_ALIAS(Type_create_hvector)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, true, count,
                       blocklength, stride, oldtype, newtype);
}
DMPI_ALIAS(Type_create_hvector_c)

/* ----------------------------------------------------- indexed family */
/* bl: per-block lengths, or NULL with every block bl1 long; types: per
 * block (struct) or NULL for oldtype. */
static int make_indexed(const char *fn, int combiner, bool large, MPI_Count count,
                        const MPI_Count *bl, MPI_Count bl1, const MPI_Count *disp,
                        MPI_Datatype oldtype, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    DMPI_CHECK_INIT(fn);
    if (!newtype) return ERR(MPI_ERR_ARG, "newtype is NULL");
    if (count < 0) return ERR(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    bool is_struct = combiner == MPI_COMBINER_STRUCT;
    bool block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    bool in_bytes = combiner != MPI_COMBINER_INDEXED && combiner != MPI_COMBINER_INDEXED_BLOCK;
    dmpi_datatype *old = NULL;
    if (!is_struct) {
        int rc = get_type(fn, oldtype, &old, "oldtype");
        if (rc != MPI_SUCCESS) return rc;
    }
    NEED(disp, count);
    if (!block) NEED(bl, count);
    if (is_struct) NEED(types, count);
    if (block && bl1 < 0) return ERR(MPI_ERR_COUNT, "negative blocklength %lld", (long long)bl1);
    for (MPI_Count i = 0; !block && i < count; i++)
        if (bl[i] < 0)
            return ERR(MPI_ERR_COUNT, "negative blocklength %lld for block %lld", (long long)bl[i],
                       (long long)i);
    /* arguments as get_contents returns them */
    MPI_Count nbl = block ? 1 : count, ni = 0, na = 0, nc = 0;
    if (large) nc = 1 + nbl + count;
    else if (in_bytes) ni = 1 + nbl, na = count;
    else ni = 1 + nbl + count;
    dmpi_dt_args *a = dt_args_new(combiner, ni, na, nc, is_struct ? count : 1);
    if (!a) return ERR(MPI_ERR_NO_MEM, "out of memory");
    for (MPI_Count i = 0; i < count && is_struct; i++) {
        int rc = get_type(fn, types[i], &a->types[i], "datatype in array_of_types");
        if (rc != MPI_SUCCESS) {
            free(a);
            return rc;
        }
    }
    if (!is_struct) a->types[0] = old;
    for (MPI_Count i = 0; i <= nbl + count; i++) {
        MPI_Count v = i == 0 ? count : i <= nbl ? (block ? bl1 : bl[i - 1]) : disp[i - 1 - nbl];
        if (large) a->counts[i] = v;
        else if (i <= nbl || !in_bytes) a->ints[i] = (int)v;
        else a->addrs[i - 1 - nbl] = (MPI_Aint)v;
    }
    dmpi_datatype *dt = NULL;
    int rc = dt_create_indexed(count, block ? NULL : bl, bl1, disp, in_bytes ? 1 : old->extent, old,
                               is_struct ? a->types : NULL, is_struct, &dt);
    return finish(fn, rc, dt, a, newtype);
}

/* int-argument forms: widen the arrays, then the common code */
static int indexed_int(const char *fn, int combiner, int count, const int *bl, int bl1,
                       const int *idisp, const MPI_Aint *adisp, MPI_Datatype oldtype,
                       const MPI_Datatype *types, MPI_Datatype *newtype)
{
    MPI_Count n = count > 0 ? count : 0;
    MPI_Count *wbl = bl ? widen(bl, n) : NULL;
    MPI_Count *wd = idisp ? widen(idisp, n) : adisp ? widen_aint(adisp, n) : NULL;
    int rc;
    if ((bl && !wbl) || ((idisp || adisp) && !wd)) rc = dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    else rc = make_indexed(fn, combiner, false, count, wbl, bl1, wd, oldtype, types, newtype);
    free(wbl);
    free(wd);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return indexed_int("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                       array_of_displacements, NULL, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_indexed)

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, true, count,
                        array_of_blocklengths, 0, array_of_displacements, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_indexed_c)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return indexed_int("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                       array_of_blocklengths, 0, NULL, array_of_displacements, oldtype, NULL,
                       newtype);
}
DMPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, true, count,
                        array_of_blocklengths, 0, array_of_displacements, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_create_hindexed_c)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed_int("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, NULL,
                       blocklength, array_of_displacements, NULL, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, true, count,
                        NULL, blocklength, array_of_displacements, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed_int("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, NULL,
                       blocklength, NULL, array_of_displacements, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, true,
                        count, NULL, blocklength, array_of_displacements, oldtype, NULL, newtype);
}
DMPI_ALIAS(Type_create_hindexed_block_c)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return indexed_int("MPI_Type_create_struct", MPI_COMBINER_STRUCT, count, array_of_blocklengths,
                       0, NULL, array_of_displacements, MPI_DATATYPE_NULL, array_of_types, newtype);
}
DMPI_ALIAS(Type_create_struct)

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_struct_c", MPI_COMBINER_STRUCT, true, count,
                        array_of_blocklengths, 0, array_of_displacements, MPI_DATATYPE_NULL,
                        array_of_types, newtype);
}
DMPI_ALIAS(Type_create_struct_c)

/* ---------------------------------------------------------- subarray */
static int make_subarray(const char *fn, bool large, int ndims, const MPI_Count *sizes,
                         const MPI_Count *subsizes, const MPI_Count *starts, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    BEGIN(old, oldtype, newtype);
    if (ndims < 1) return ERR(MPI_ERR_ARG, "ndims is %d, must be positive", ndims);
    NEED(sizes, ndims);
    NEED(subsizes, ndims);
    NEED(starts, ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ERR(MPI_ERR_ARG, "invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] < 1)
            return ERR(MPI_ERR_ARG, "array_of_sizes[%d] is %lld, must be positive", d,
                       (long long)sizes[d]);
        if (subsizes[d] < 0 || subsizes[d] > sizes[d])
            return ERR(MPI_ERR_ARG, "array_of_subsizes[%d] is %lld, outside 0..%lld", d,
                       (long long)subsizes[d], (long long)sizes[d]);
        if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
            return ERR(MPI_ERR_ARG, "array_of_starts[%d] is %lld: the subarray leaves the array",
                       d, (long long)starts[d]);
    }
    dmpi_dt_args *a = large ? dt_args_new(MPI_COMBINER_SUBARRAY, 2, 0, 3 * (MPI_Count)ndims, 1)
                            : dt_args_new(MPI_COMBINER_SUBARRAY, 3 * (MPI_Count)ndims + 2, 0, 0, 1);
    if (a) {
        a->types[0] = old;
        a->ints[0] = ndims;
        for (int d = 0; d < ndims; d++) {
            const MPI_Count v[3] = {sizes[d], subsizes[d], starts[d]};
            for (int k = 0; k < 3; k++) {
                if (large) a->counts[k * ndims + d] = v[k];
                else a->ints[1 + k * ndims + d] = (int)v[k];
            }
        }
        a->ints[large ? 1 : 3 * ndims + 1] = order;
    }
    dmpi_datatype *dt = NULL;
    int rc = a ? dt_create_subarray(ndims, sizes, subsizes, starts, order, old, &dt) : MPI_ERR_NO_MEM;
    return finish(fn, rc, dt, a, newtype);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    MPI_Count n = ndims > 0 ? ndims : 0;
    MPI_Count *s = array_of_sizes ? widen(array_of_sizes, n) : NULL;
    MPI_Count *ss = array_of_subsizes ? widen(array_of_subsizes, n) : NULL;
    MPI_Count *st = array_of_starts ? widen(array_of_starts, n) : NULL;
    int rc;
    if ((array_of_sizes && !s) || (array_of_subsizes && !ss) || (array_of_starts && !st))
        rc = ERR(MPI_ERR_NO_MEM, "out of memory");
    else
        rc = make_subarray(fn, false, ndims, s, ss, st, order, oldtype, newtype);
    free(s);
    free(ss);
    free(st);
    return rc;
}
DMPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_subarray("MPI_Type_create_subarray_c", true, ndims, array_of_sizes,
                         array_of_subsizes, array_of_starts, order, oldtype, newtype);
}
DMPI_ALIAS(Type_create_subarray_c)

/* ------------------------------------------------------------ darray */
static int make_darray(const char *fn, bool large, int size, int rank, int ndims,
                       const MPI_Count *gsizes, const int *distribs, const int *dargs,
                       const int *psizes, int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    BEGIN(old, oldtype, newtype);
    if (size < 1) return ERR(MPI_ERR_ARG, "size is %d, must be positive", size);
    if (rank < 0 || rank >= size) return ERR(MPI_ERR_ARG, "rank %d outside 0..%d", rank, size - 1);
    if (ndims < 1) return ERR(MPI_ERR_ARG, "ndims is %d, must be positive", ndims);
    NEED(gsizes, ndims);
    NEED(distribs, ndims);
    NEED(dargs, ndims);
    NEED(psizes, ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ERR(MPI_ERR_ARG, "invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
    long long procs = 1;
    for (int d = 0; d < ndims; d++) {
        if (gsizes[d] < 1)
            return ERR(MPI_ERR_ARG, "array_of_gsizes[%d] is %lld, must be positive", d,
                       (long long)gsizes[d]);
        if (psizes[d] < 1)
            return ERR(MPI_ERR_ARG, "array_of_psizes[%d] is %d, must be positive", d, psizes[d]);
        int dist = distribs[d], darg = dargs[d];
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
            dist != MPI_DISTRIBUTE_NONE)
            return ERR(MPI_ERR_ARG, "array_of_distribs[%d] is %d: not a distribution", d, dist);
        if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg < 1)
            return ERR(MPI_ERR_ARG, "array_of_dargs[%d] is %d: must be positive", d, darg);
        if (dist == MPI_DISTRIBUTE_NONE && psizes[d] != 1)
            return ERR(MPI_ERR_ARG, "dimension %d is not distributed but has %d processes", d,
                       psizes[d]);
        if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
            (long long)darg * psizes[d] < gsizes[d])
            return ERR(MPI_ERR_ARG, "dimension %d: %d blocks of %d cannot hold %lld elements", d,
                       psizes[d], darg, (long long)gsizes[d]);
        procs *= psizes[d];
        if (procs > size) break;
    }
    if (procs != size)
        return ERR(MPI_ERR_ARG, "the process grid does not have %d processes", size);
    MPI_Count n = ndims;
    dmpi_dt_args *a = large ? dt_args_new(MPI_COMBINER_DARRAY, 3 * n + 4, 0, n, 1)
                            : dt_args_new(MPI_COMBINER_DARRAY, 4 * n + 4, 0, 0, 1);
    if (a) {
        a->types[0] = old;
        int *p = a->ints;
        *p++ = size;
        *p++ = rank;
        *p++ = ndims;
        for (int d = 0; d < ndims; d++) {
            if (large) a->counts[d] = gsizes[d];
            else p[d] = (int)gsizes[d];
        }
        if (!large) p += ndims;
        for (int d = 0; d < ndims; d++) p[d] = distribs[d], p[ndims + d] = dargs[d];
        p += 2 * ndims;
        for (int d = 0; d < ndims; d++) p[d] = psizes[d];
        p[ndims] = order;
    }
    dmpi_datatype *dt = NULL;
    int rc = a ? dt_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, &dt)
               : MPI_ERR_NO_MEM;
    return finish(fn, rc, dt, a, newtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    MPI_Count *g = array_of_gsizes ? widen(array_of_gsizes, ndims > 0 ? ndims : 0) : NULL;
    if (array_of_gsizes && !g) return ERR(MPI_ERR_NO_MEM, "out of memory");
    int rc = make_darray(fn, false, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                         array_of_psizes, order, oldtype, newtype);
    free(g);
    return rc;
}
DMPI_ALIAS(Type_create_darray)

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return make_darray("MPI_Type_create_darray_c", true, size, rank, ndims, array_of_gsizes,
                       array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype);
}
DMPI_ALIAS(Type_create_darray_c)

/* ----------------------------------------------------- resized, dup */
static int make_resized(const char *fn, bool large, MPI_Datatype oldtype, MPI_Count lb,
                        MPI_Count extent, MPI_Datatype *newtype)
{
    BEGIN(old, oldtype, newtype);
    dmpi_dt_args *a = dt_args_new(MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1);
    if (a) {
        a->types[0] = old;
        if (large) a->counts[0] = lb, a->counts[1] = extent;
        else a->addrs[0] = (MPI_Aint)lb, a->addrs[1] = (MPI_Aint)extent;
    }
    dmpi_datatype *dt = NULL;
    int rc = a ? dt_create_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, &dt) : MPI_ERR_NO_MEM;
    return finish(fn, rc, dt, a, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return make_resized("MPI_Type_create_resized", false, oldtype, lb, extent, newtype);
}
DMPI_ALIAS(Type_create_resized)

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return make_resized("MPI_Type_create_resized_c", true, oldtype, lb, extent, newtype);
}
DMPI_ALIAS(Type_create_resized_c)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    BEGIN(old, oldtype, newtype);
    dmpi_dt_args *a = dt_args_new(MPI_COMBINER_DUP, 0, 0, 0, 1);
    dmpi_datatype *dt = NULL;
    int rc = a ? dt_create_dup(old, &dt) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(a);
        return ERR(rc, "out of memory");
    }
    a->types[0] = old;
    dt_set_args(dt, a);
    rc = dmpi_type_attr_copy(old, dt);
    if (rc != MPI_SUCCESS) {
        dt_user_free(dt);
        return ERR(rc, "an attribute copy callback failed");
    }
    *newtype = dt->handle;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_dup)

/* --------------------------------------------------- commit and free */
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_commit";
    DMPI_CHECK_INIT(fn);
    if (!datatype) return ERR(MPI_ERR_ARG, "datatype is NULL");
    dmpi_datatype *dt;
    int rc = get_type(fn, *datatype, &dt, "datatype");
    if (rc != MPI_SUCCESS) return rc;
    dt->committed = true;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_free";
    DMPI_CHECK_INIT(fn);
    if (!datatype) return ERR(MPI_ERR_ARG, "datatype is NULL");
    dmpi_datatype *dt;
    int rc = get_type(fn, *datatype, &dt, "datatype");
    if (rc != MPI_SUCCESS) return rc;
    if (dt->named) return ERR(MPI_ERR_TYPE, "%s is predefined and cannot be freed",
                              dt->name[0] ? dt->name : "the datatype");
    rc = dt_user_free(dt);
    *datatype = MPI_DATATYPE_NULL;
    return rc == MPI_SUCCESS ? rc : ERR(rc, "an attribute delete callback failed");
}
DMPI_ALIAS(Type_free)
