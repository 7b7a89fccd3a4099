/* Group objects: creation from a list of MPI_COMM_WORLD ranks, reference
 * counting, handle lookup (MPI_GROUP_EMPTY and user groups), translation of
 * a world rank to a group rank, and comparison.
 *
 * Groups made here carry a private index (world ranks sorted, with their
 * group ranks), built on first use, so rank_of_world is a binary search.
 * Built-in groups (the world's and self's, made by the runtime) have no
 * index: the world group is the identity and self has one member. */
#include "core/group.h"
#include "core/objpool.h"
#include "core/session.h"

#include <stdlib.h>
#include <string.h>

dmpi_group dmpi_group_empty_obj = {DMPI_MAGIC_GROUP, 1, 0, MPI_UNDEFINED, NULL, true};

typedef struct { int world, rank; } group_pair;

typedef struct group_impl {
    dmpi_group g;      /* first: a dmpi_group * is a group_impl * */
    group_pair *index; /* sorted by world rank, or NULL until needed */
} group_impl;

static dmpi_objpool group_pool = DMPI_OBJPOOL_INIT(sizeof(group_impl));

dmpi_group *dmpi_group_new(int size, const int *world_ranks)
{
    group_impl *gi = dmpi_obj_alloc(&group_pool);
    int *w = malloc((size_t)(size > 0 ? size : 1) * sizeof(int));
    if (!gi || !w) {
        dmpi_obj_free(&group_pool, gi);
        free(w);
        return NULL;
    }
    if (size > 0) memcpy(w, world_ranks, (size_t)size * sizeof(int));
    gi->g = (dmpi_group){DMPI_MAGIC_GROUP, 1, size, MPI_UNDEFINED, w, false};
    for (int i = 0; i < size; i++)
        if (w[i] == dmpi_rt.uni_rank) gi->g.rank = i;
    return &gi->g;
}

dmpi_group *dmpi_group_make(int n, const int *world_ranks)
{
    if (n == 0) return &dmpi_group_empty_obj;
    return dmpi_group_new(n, world_ranks);
}

void dmpi_group_retain(dmpi_group *g)
{
    if (!g->builtin) g->refcount++;
}

void dmpi_group_release(dmpi_group *g)
{
    if (g->builtin || --g->refcount > 0) return;
    group_impl *gi = (group_impl *)g;
    g->magic = DMPI_MAGIC_FREED;
    dmpi_session_release(g->session);
    free(gi->index);
    free(g->world);
    dmpi_obj_free(&group_pool, gi); /* a stale handle reads "freed" */
}

static int pair_cmp(const void *a, const void *b)
{
    const group_pair *x = a, *y = b;
    return (x->world > y->world) - (x->world < y->world);
}

int dmpi_group_rank_of_world(const dmpi_group *g, int w)
{
    if (w >= 0 && w < g->size && g->world[w] == w) return w; /* world-like */
    if (g->builtin || g->size < 16) {
        for (int i = 0; i < g->size; i++)
            if (g->world[i] == w) return i;
        return MPI_UNDEFINED;
    }
    group_impl *gi = (group_impl *)g;
    if (!gi->index) {
        group_pair *ix = malloc((size_t)g->size * sizeof *ix);
        if (!ix) { /* out of memory: fall back to a scan */
            for (int i = 0; i < g->size; i++)
                if (g->world[i] == w) return i;
            return MPI_UNDEFINED;
        }
        for (int i = 0; i < g->size; i++) ix[i] = (group_pair){g->world[i], i};
        qsort(ix, (size_t)g->size, sizeof *ix, pair_cmp);
        gi->index = ix;
    }
    group_pair key = {w, 0};
    const group_pair *hit = bsearch(&key, gi->index, (size_t)g->size, sizeof key, pair_cmp);
    return hit ? hit->rank : MPI_UNDEFINED;
}

dmpi_group *dmpi_group_get(MPI_Group h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    if (h == MPI_GROUP_EMPTY) return &dmpi_group_empty_obj;
    if (v < 0x1000) return NULL;
    dmpi_group *g = (dmpi_group *)(void *)h;
    return g->magic == DMPI_MAGIC_GROUP ? g : NULL;
}

MPI_Group dmpi_group_handle(dmpi_group *g)
{
    return g == &dmpi_group_empty_obj ? MPI_GROUP_EMPTY : (MPI_Group)(void *)g;
}

int dmpi_group_compare(const dmpi_group *a, const dmpi_group *b)
{
    if (a == b) return MPI_IDENT;
    if (a->size != b->size) return MPI_UNEQUAL;
    if (a->size == 0 || !memcmp(a->world, b->world, (size_t)a->size * sizeof(int)))
        return MPI_IDENT;
    for (int i = 0; i < a->size; i++)
        if (dmpi_group_rank_of_world(b, a->world[i]) == MPI_UNDEFINED) return MPI_UNEQUAL;
    return MPI_SIMILAR;
}
