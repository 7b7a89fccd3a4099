/* Datatype constructors for arrays: subarray and darray (MPI 4.1 sections
 * 5.1.3 and 5.1.4). Both select, inside a full array of oldtype elements,
 * the product of one index set per dimension, walked with the fastest
 * dimension innermost (the last one in C order, the first in Fortran
 * order); their lower bound is 0 and their extent the whole array. A
 * subarray is one grid placement. A darray is built dimension by
 * dimension: each step places the type of the faster dimensions at the
 * global positions this process owns along the next one (one run for a
 * block distribution; a regular grid of blocks plus a shorter last block
 * for a cyclic one), so its layout stays a handful of items. */
#include "core/dt_layout.h"

#include <stdlib.h>

typedef struct {
    dmpi_datatype *t;
    MPI_Aint disp;
    int ndim;
    const MPI_Count *cnt;
    const MPI_Aint *stride;
} one_grid;

static int gen_grid(const void *spec, dt_emit_fn emit, void *ctx)
{
    const one_grid *g = spec;
    return emit(ctx, g->t, g->disp, g->ndim, g->cnt, g->stride);
}

int dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                       const MPI_Count *starts, int order, dmpi_datatype *old,
                       dmpi_datatype **out)
{
    MPI_Count *cnt = malloc((size_t)ndims * sizeof *cnt);
    MPI_Aint *stride = malloc((size_t)ndims * sizeof *stride);
    if (!cnt || !stride) {
        free(cnt);
        free(stride);
        return MPI_ERR_NO_MEM;
    }
    MPI_Aint step = old->extent, disp = 0;
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        cnt[k] = subsizes[d];
        stride[k] = step;
        disp += (MPI_Aint)starts[d] * step;
        step *= (MPI_Aint)sizes[d];
    }
    one_grid g = {old, disp, ndims, cnt, stride};
    int rc = dt_build(gen_grid, &g, DT_BOUNDS_SET, 0, step, out);
    free(cnt);
    free(stride);
    return rc;
}

/* Up to two grids of copies of t along one dimension. */
typedef struct {
    dmpi_datatype *t;
    int n;
    struct { MPI_Aint disp; int ndim; MPI_Count cnt[2]; MPI_Aint stride[2]; } g[2];
} dim_spec;

static int gen_dim(const void *spec, dt_emit_fn emit, void *ctx)
{
    const dim_spec *s = spec;
    for (int i = 0; i < s->n; i++) {
        int rc = emit(ctx, s->t, s->g[i].disp, s->g[i].ndim, s->g[i].cnt, s->g[i].stride);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* The global indices that coordinate c of p owns along a dimension of g
 * elements, as placements of t (elements `step` bytes apart). */
static void own_indices(dim_spec *s, int distrib, int darg, MPI_Count g, int p, int c,
                        MPI_Aint step)
{
    s->n = 0;
    if (distrib == MPI_DISTRIBUTE_CYCLIC) {
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        MPI_Count nblocks = (g + b - 1) / b;
        MPI_Count mine = c < nblocks ? (nblocks - c + p - 1) / p : 0;
        if (mine == 0) return;
        MPI_Count last = c + (mine - 1) * p, lastlen = g - last * b < b ? g - last * b : b;
        MPI_Count full = lastlen == b ? mine : mine - 1;
        if (full > 0) {
            s->g[s->n].disp = (MPI_Aint)(c * b) * step;
            s->g[s->n].ndim = 2;
            s->g[s->n].cnt[0] = b;
            s->g[s->n].cnt[1] = full;
            s->g[s->n].stride[0] = step;
            s->g[s->n].stride[1] = (MPI_Aint)(b * p) * step;
            s->n++;
        }
        if (lastlen < b) {
            s->g[s->n].disp = (MPI_Aint)(last * b) * step;
            s->g[s->n].ndim = 1;
            s->g[s->n].cnt[0] = lastlen;
            s->g[s->n].stride[0] = step;
            s->n++;
        }
        return;
    }
    MPI_Count b = distrib == MPI_DISTRIBUTE_NONE ? g
                  : darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    MPI_Count start = distrib == MPI_DISTRIBUTE_NONE ? 0 : c * b;
    MPI_Count n = g - start < b ? g - start : b;
    if (n <= 0) return;
    s->g[0].disp = (MPI_Aint)start * step;
    s->g[0].ndim = 1;
    s->g[0].cnt[0] = n;
    s->g[0].stride[0] = step;
    s->n = 1;
}

int dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                     const int *dargs, const int *psizes, int order, dmpi_datatype *old,
                     dmpi_datatype **out)
{
    (void)size;
    int *coords = malloc((size_t)ndims * sizeof *coords);
    if (!coords) return MPI_ERR_NO_MEM;
    for (int i = ndims - 1, r = rank; i >= 0; i--) { /* process grid: row-major */
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    dmpi_datatype *cur = old;
    dmpi_dt_retain(cur);
    MPI_Aint step = old->extent;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        dim_spec s = {.t = cur};
        own_indices(&s, distribs[d], dargs[d], gsizes[d], psizes[d], coords[d], step);
        dmpi_datatype *next = NULL;
        rc = dt_build(gen_dim, &s, DT_BOUNDS_PLAIN, 0, 0, &next);
        dmpi_dt_release(cur);
        cur = next;
        step *= (MPI_Aint)gsizes[d];
    }
    free(coords);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Count one[1] = {1};
    MPI_Aint zero[1] = {0};
    rc = dt_build(gen_grid, &(one_grid){cur, 0, 0, one, zero}, DT_BOUNDS_SET, 0, step, out);
    dmpi_dt_release(cur);
    return rc;
}
