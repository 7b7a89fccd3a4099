/* Datatype engine: building the compact layout of one element (see
 * core/dt_layout.h). Constructors describe a new type as placements of
 * child layouts over grids; each placement becomes one item when the child
 * is a single item (dimensions are appended and merged: nested vectors
 * collapse, blocks that touch become one), a few copied items when that
 * stays small, or one `sub` item that refers to the child otherwise. Items
 * appended one after the other are merged when they continue a regular
 * pattern (contiguous, or equal blocks at a constant stride). */
#include "core/dt_layout.h"

#include <stdlib.h>
#include <string.h>

/* A placement of a multi-item child is copied out when it makes at most
 * this many items; beyond, it becomes one sub item. */
#define EXPAND_MAX 64
#define WIDE (2 * DT_MAXDIM)

dt_lay *dt_lay_new(bool typed)
{
    dt_lay *L = calloc(1, sizeof *L);
    if (!L) return NULL;
    L->refs = 1;
    L->typed = typed;
    return L;
}

void dt_lay_retain(dt_lay *L)
{
    if (L) __atomic_add_fetch(&L->refs, 1, __ATOMIC_RELAXED);
}

void dt_lay_release(dt_lay *L)
{
    if (!L || __atomic_sub_fetch(&L->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    for (int i = 0; i < L->n; i++) dt_lay_release(L->items[i].sub);
    free(L->items);
    free(L->cum);
    free(L->ecum);
    free(L);
}

/* Drops unit dimensions, folds a dimension whose stride is the block
 * length into the block, and merges dimension pairs that continue each
 * other. Returns false when the grid is empty. */
static bool normalize(MPI_Count *len, bool is_sub, int *ndim, MPI_Count *cnt, MPI_Aint *stride)
{
    if (*len <= 0) return false;
    int k = 0;
    for (int d = 0; d < *ndim; d++) {
        if (cnt[d] <= 0) return false;
        if (cnt[d] == 1) continue;
        cnt[k] = cnt[d];
        stride[k] = stride[d];
        k++;
    }
    *ndim = k;
    for (bool changed = true; changed;) {
        changed = false;
        if (!is_sub && *ndim > 0 && stride[0] == *len) {
            *len *= cnt[0];
            memmove(cnt, cnt + 1, (size_t)(*ndim - 1) * sizeof *cnt);
            memmove(stride, stride + 1, (size_t)(*ndim - 1) * sizeof *stride);
            (*ndim)--;
            changed = true;
            continue;
        }
        for (int d = 0; d + 1 < *ndim; d++) {
            if (stride[d + 1] != cnt[d] * stride[d]) continue;
            cnt[d] *= cnt[d + 1];
            memmove(cnt + d + 1, cnt + d + 2, (size_t)(*ndim - d - 2) * sizeof *cnt);
            memmove(stride + d + 1, stride + d + 2, (size_t)(*ndim - d - 2) * sizeof *stride);
            (*ndim)--;
            changed = true;
            break;
        }
    }
    return true;
}

bool dt_item_normalize(dt_item *it)
{
    return normalize(&it->len, it->sub != NULL, &it->ndim, it->cnt, it->stride);
}

static bool same_shape(const dt_item *a, const dt_item *b, int ndim, bool typed)
{
    if (a->len != b->len || a->sub != b->sub || (typed && a->tag != b->tag)) return false;
    for (int d = 0; d < ndim; d++)
        if (a->cnt[d] != b->cnt[d] || a->stride[d] != b->stride[d]) return false;
    return true;
}

/* Tries to fold `it` into the last item P of L. */
static bool merge_last(dt_lay *L, const dt_item *it)
{
    if (L->n == 0) return false;
    dt_item *P = &L->items[L->n - 1];
    if (L->typed && P->tag != it->tag) return false;
    if (!P->sub && !it->sub && P->ndim == 0 && it->ndim == 0 && P->disp + P->len == it->disp) {
        P->len += it->len;
        return true;
    }
    if (P->ndim >= 1 && it->ndim == P->ndim - 1 && same_shape(P, it, it->ndim, L->typed) &&
        it->disp == P->disp + P->cnt[P->ndim - 1] * P->stride[P->ndim - 1]) {
        P->cnt[P->ndim - 1]++;
        dt_item_normalize(P);
        return true;
    }
    if (P->ndim < DT_MAXDIM && it->ndim == P->ndim && same_shape(P, it, it->ndim, L->typed)) {
        P->cnt[P->ndim] = 2;
        P->stride[P->ndim] = it->disp - P->disp;
        P->ndim++;
        dt_item_normalize(P);
        return true;
    }
    return false;
}

static int push(dt_lay *L, const dt_item *it)
{
    if (merge_last(L, it)) return MPI_SUCCESS;
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 4;
        dt_item *p = realloc(L->items, (size_t)cap * sizeof *p);
        if (!p) return MPI_ERR_NO_MEM;
        L->items = p;
        L->cap = cap;
    }
    L->items[L->n++] = *it;
    dt_lay_retain(it->sub);
    return MPI_SUCCESS;
}

/* Pushes an item whose grid may have up to WIDE dimensions: the inner
 * ones move into a child layout when they do not fit. */
static int push_wide(dt_lay *L, MPI_Aint disp, MPI_Count len, dt_lay *sub, int tag, int ndim,
                     MPI_Count *cnt, MPI_Aint *stride)
{
    if (!L->typed) tag = 0;
    if (!normalize(&len, sub != NULL, &ndim, cnt, stride)) return MPI_SUCCESS;
    dt_item it = {.disp = disp, .len = len, .sub = sub, .tag = tag};
    if (ndim <= DT_MAXDIM) {
        it.ndim = ndim;
        memcpy(it.cnt, cnt, (size_t)ndim * sizeof *cnt);
        memcpy(it.stride, stride, (size_t)ndim * sizeof *stride);
        return push(L, &it);
    }
    int inner = ndim - DT_MAXDIM;
    dt_lay *C = dt_lay_new(L->typed);
    if (!C) return MPI_ERR_NO_MEM;
    it.ndim = inner;
    memcpy(it.cnt, cnt, (size_t)inner * sizeof *cnt);
    memcpy(it.stride, stride, (size_t)inner * sizeof *stride);
    int rc = push(C, &it);
    if (rc == MPI_SUCCESS) rc = dt_lay_finish(C);
    if (rc == MPI_SUCCESS) {
        dt_item outer = {.disp = 0, .len = C->size, .sub = C, .ndim = DT_MAXDIM};
        memcpy(outer.cnt, cnt + inner, DT_MAXDIM * sizeof *cnt);
        memcpy(outer.stride, stride + inner, DT_MAXDIM * sizeof *stride);
        rc = push(L, &outer);
    }
    dt_lay_release(C);
    return rc;
}

int dt_lay_segment(dt_lay *L, MPI_Aint disp, MPI_Count len, int tag)
{
    MPI_Count c[1];
    MPI_Aint s[1];
    return push_wide(L, disp, len, NULL, tag, 0, c, s);
}

int dt_lay_place(dt_lay *L, dt_lay *child, MPI_Aint disp, int ndim, const MPI_Count *cnt,
                 const MPI_Aint *stride)
{
    for (int d = 0; d < ndim; d++)
        if (cnt[d] <= 0) return MPI_SUCCESS;
    if (child->n == 0) return MPI_SUCCESS;
    if (ndim > DT_MAXDIM) { /* the innermost dimensions first, as a child */
        dt_lay *C = dt_lay_new(L->typed);
        if (!C) return MPI_ERR_NO_MEM;
        int rc = dt_lay_place(C, child, 0, DT_MAXDIM, cnt, stride);
        if (rc == MPI_SUCCESS) rc = dt_lay_finish(C);
        if (rc == MPI_SUCCESS)
            rc = dt_lay_place(L, C, disp, ndim - DT_MAXDIM, cnt + DT_MAXDIM, stride + DT_MAXDIM);
        dt_lay_release(C);
        return rc;
    }
    MPI_Count c[WIDE];
    MPI_Aint s[WIDE];
    if (child->n == 1) {
        const dt_item *ci = &child->items[0];
        memcpy(c, ci->cnt, (size_t)ci->ndim * sizeof *c);
        memcpy(s, ci->stride, (size_t)ci->ndim * sizeof *s);
        memcpy(c + ci->ndim, cnt, (size_t)ndim * sizeof *c);
        memcpy(s + ci->ndim, stride, (size_t)ndim * sizeof *s);
        return push_wide(L, disp + ci->disp, ci->len, ci->sub, ci->tag, ci->ndim + ndim, c, s);
    }
    MPI_Count copies = 1;
    bool big = false;
    for (int d = 0; d < ndim; d++)
        if (__builtin_mul_overflow(copies, cnt[d], &copies)) big = true;
    if (!big && (copies == 1 || copies * child->n <= EXPAND_MAX)) {
        MPI_Count idx[DT_MAXDIM] = {0};
        for (MPI_Count k = 0; k < copies; k++) {
            MPI_Aint off = disp;
            for (int d = 0; d < ndim; d++) off += idx[d] * stride[d];
            for (int i = 0; i < child->n; i++) {
                dt_item it = child->items[i];
                it.disp += off;
                if (!L->typed) it.tag = 0;
                int rc = push(L, &it);
                if (rc != MPI_SUCCESS) return rc;
            }
            for (int d = 0; d < ndim && ++idx[d] == cnt[d]; d++) idx[d] = 0;
        }
        return MPI_SUCCESS;
    }
    memcpy(c, cnt, (size_t)ndim * sizeof *c);
    memcpy(s, stride, (size_t)ndim * sizeof *s);
    return push_wide(L, disp, child->size, child, 0, ndim, c, s);
}

static MPI_Count grid_blocks(const dt_item *it)
{
    MPI_Count n = 1;
    for (int d = 0; d < it->ndim; d++) n *= it->cnt[d];
    return n;
}

int dt_lay_finish(dt_lay *L)
{
    free(L->cum);
    free(L->ecum);
    L->ecum = NULL;
    L->cum = malloc((size_t)(L->n + 1) * sizeof *L->cum);
    if (L->typed) L->ecum = malloc((size_t)(L->n + 1) * sizeof *L->ecum);
    if (!L->cum || (L->typed && !L->ecum)) return MPI_ERR_NO_MEM;
    MPI_Count off = 0, el = 0;
    for (int i = 0; i < L->n; i++) {
        const dt_item *it = &L->items[i];
        L->cum[i] = off;
        MPI_Count blocks = grid_blocks(it);
        off += blocks * it->len;
        if (L->typed) {
            L->ecum[i] = el;
            if (it->sub) el += blocks * it->sub->nelem;
            else el += blocks * (it->len / dt_elem(it->tag)->native);
        }
    }
    L->cum[L->n] = off;
    if (L->typed) L->ecum[L->n] = el;
    L->size = off;
    L->nelem = el;
    return MPI_SUCCESS;
}

int dt_lay_find(const dt_lay *L, MPI_Count off)
{
    int lo = 0, hi = L->n - 1; /* cum[lo] <= off < cum[hi + 1] */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (L->cum[mid] <= off) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}
