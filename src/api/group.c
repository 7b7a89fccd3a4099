/* MPI group entry points: size, rank, translate_ranks, compare, the set
 * operations (union, intersection, difference), incl/excl and their range
 * forms, free, and MPI_Comm_group. A group is a list of MPI_COMM_WORLD
 * ranks; results with no members are MPI_GROUP_EMPTY. */
#include "api/api.h"
#include "core/group.h"
#include "core/session.h"

#include <stdlib.h>

#define GET_GROUP(var, h, fn)                                                      \
    do {                                                                           \
        (var) = dmpi_group_get(h);                                                 \
        if (!(var))                                                                \
            return dmpi_error_noobj(MPI_ERR_GROUP, (fn), "invalid group%s",        \
                                    (h) == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : ""); \
    } while (0)
#define CHECK_ARG(cond, fn, ...) \
    DMPI_CHECK(NULL, cond, MPI_ERR_ARG, fn, __VA_ARGS__)

/* Hands out a new group of n world ranks, derived from the session s (a
 * group made from groups of a session belongs to it), or from none. */
static int new_group(int n, const int *world, struct dmpi_session *s, MPI_Group *out,
                     const char *fn)
{
    dmpi_group *g = dmpi_group_make(n, world);
    if (!g) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    if (s && !g->builtin) {
        g->session = s;
        dmpi_session_retain(s);
    }
    *out = dmpi_group_handle(g);
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char *const FN = "MPI_Group_size";
    DMPI_CHECK_INIT(FN);
    dmpi_group *g;
    GET_GROUP(g, group, FN);
    CHECK_ARG(size, FN, "size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char *const FN = "MPI_Group_rank";
    DMPI_CHECK_INIT(FN);
    dmpi_group *g;
    GET_GROUP(g, group, FN);
    CHECK_ARG(rank, FN, "rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char *const FN = "MPI_Group_translate_ranks";
    DMPI_CHECK_INIT(FN);
    dmpi_group *a, *b;
    GET_GROUP(a, group1, FN);
    GET_GROUP(b, group2, FN);
    CHECK_ARG(n >= 0, FN, "negative number of ranks %d", n);
    CHECK_ARG(n == 0 || (ranks1 && ranks2), FN, "NULL rank array");
    for (int i = 0; i < n; i++)
        DMPI_CHECK(NULL, ranks1[i] == MPI_PROC_NULL || (ranks1[i] >= 0 && ranks1[i] < a->size),
                   MPI_ERR_RANK, FN, "ranks1[%d] = %d is not a rank of group1 (size %d)", i,
                   ranks1[i], a->size);
    dmpi_lock();
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL
                        ? MPI_PROC_NULL
                        : dmpi_group_rank_of_world(b, a->world[ranks1[i]]);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char *const FN = "MPI_Group_compare";
    DMPI_CHECK_INIT(FN);
    dmpi_group *a, *b;
    GET_GROUP(a, group1, FN);
    GET_GROUP(b, group2, FN);
    CHECK_ARG(result, FN, "result is NULL");
    dmpi_lock();
    *result = dmpi_group_compare(a, b);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_compare)

/* ------------------------------------------------------- set operations */
enum { UNION, INTERSECTION, DIFFERENCE };

static int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, int what,
                  const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_group *a, *b;
    GET_GROUP(a, group1, fn);
    GET_GROUP(b, group2, fn);
    CHECK_ARG(newgroup, fn, "newgroup is NULL");
    int *w = malloc((size_t)(a->size + b->size + 1) * sizeof(int)), n = 0;
    if (!w) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    dmpi_lock();
    /* Members of a in a's order (those in b or not, per the operation)... */
    for (int i = 0; i < a->size; i++) {
        bool in_b = dmpi_group_rank_of_world(b, a->world[i]) != MPI_UNDEFINED;
        if (what == UNION || in_b == (what == INTERSECTION)) w[n++] = a->world[i];
    }
    /* ...then, for a union, those of b not in a, in b's order. */
    if (what == UNION)
        for (int i = 0; i < b->size; i++)
            if (dmpi_group_rank_of_world(a, b->world[i]) == MPI_UNDEFINED) w[n++] = b->world[i];
    int rc = new_group(n, w, a->session ? a->session : b->session, newgroup, fn);
    dmpi_unlock();
    free(w);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, UNION, "MPI_Group_union");
}
DMPI_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, INTERSECTION, "MPI_Group_intersection");
}
DMPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, DIFFERENCE, "MPI_Group_difference");
}
DMPI_ALIAS(Group_difference)

/* ------------------------------------------------------------ incl/excl */
/* Builds the new group from `list` (n distinct ranks of g, already
 * checked): the listed ranks in list order (incl) or the others in group
 * order (excl); `mark` flags the listed ranks. */
static int incl_excl(dmpi_group *g, const int *list, int n, const char *mark, bool incl,
                     MPI_Group *newgroup, const char *fn)
{
    int *w = malloc((size_t)(g->size + 1) * sizeof(int)), k = 0;
    if (!w) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    if (incl)
        for (int i = 0; i < n; i++) w[k++] = g->world[list[i]];
    else
        for (int i = 0; i < g->size; i++)
            if (!mark[i]) w[k++] = g->world[i];
    dmpi_lock();
    int rc = new_group(k, w, g->session, newgroup, fn);
    dmpi_unlock();
    free(w);
    return rc;
}

/* Validates and records one listed rank; returns an error class or 0. */
static int take_rank(dmpi_group *g, int r, char *mark, int *list, int *n)
{
    if (r < 0 || r >= g->size) return MPI_ERR_RANK;
    if (mark[r]) return MPI_ERR_RANK; /* listed twice */
    mark[r] = 1;
    list[(*n)++] = r;
    return MPI_SUCCESS;
}

static int incl_or_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup,
                        bool incl, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_group *g;
    GET_GROUP(g, group, fn);
    CHECK_ARG(newgroup, fn, "newgroup is NULL");
    CHECK_ARG(n >= 0 && n <= g->size, fn, "n = %d is not in [0, group size %d]", n, g->size);
    CHECK_ARG(n == 0 || ranks, fn, "ranks is NULL");
    char *mark = calloc((size_t)g->size + 1, 1);
    int *list = malloc((size_t)(n + 1) * sizeof(int)), k = 0;
    int rc = mark && list ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if ((rc = take_rank(g, ranks[i], mark, list, &k)) != MPI_SUCCESS)
            rc = dmpi_error_noobj(MPI_ERR_RANK, fn, "ranks[%d] = %d is %s (group size %d)", i,
                                  ranks[i], ranks[i] >= 0 && ranks[i] < g->size ? "listed twice"
                                                                              : "not a rank",
                                  g->size);
    if (rc == MPI_ERR_NO_MEM) rc = dmpi_error_noobj(rc, fn, "out of memory");
    else if (rc == MPI_SUCCESS) rc = incl_excl(g, list, k, mark, incl, newgroup, fn);
    free(mark);
    free(list);
    return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_or_excl(group, n, ranks, newgroup, true, "MPI_Group_incl");
}
DMPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_or_excl(group, n, ranks, newgroup, false, "MPI_Group_excl");
}
DMPI_ALIAS(Group_excl)

/* Range forms: each triplet (first, last, stride) lists first, first +
 * stride, ... up to last (inclusive), in either direction. */
static int range_incl_or_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup,
                              bool incl, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_group *g;
    GET_GROUP(g, group, fn);
    CHECK_ARG(newgroup, fn, "newgroup is NULL");
    CHECK_ARG(n >= 0, fn, "negative number of ranges %d", n);
    CHECK_ARG(n == 0 || ranges, fn, "ranges is NULL");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        CHECK_ARG(stride != 0, fn, "ranges[%d] has stride 0", i);
        DMPI_CHECK(NULL, first >= 0 && first < g->size && last >= 0 && last < g->size,
                   MPI_ERR_RANK, fn, "ranges[%d] = (%d, %d, %d) goes outside the group (size %d)",
                   i, first, last, stride, g->size);
        CHECK_ARG(stride > 0 ? first <= last : first >= last, fn,
                  "ranges[%d] = (%d, %d, %d) is empty: the stride points away from last", i,
                  first, last, stride);
    }
    char *mark = calloc((size_t)g->size + 1, 1);
    int *list = malloc((size_t)(g->size + 1) * sizeof(int)), k = 0, rc = MPI_SUCCESS;
    if (!mark || !list) rc = dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; rc == MPI_SUCCESS && (stride > 0 ? r <= last : r >= last); r += stride)
            if (take_rank(g, (int)r, mark, list, &k) != MPI_SUCCESS)
                rc = dmpi_error_noobj(MPI_ERR_RANK, fn, "rank %ld of ranges[%d] is listed twice",
                                      r, i);
    }
    if (rc == MPI_SUCCESS) rc = incl_excl(g, list, k, mark, incl, newgroup, fn);
    free(mark);
    free(list);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_or_excl(group, n, ranges, newgroup, true, "MPI_Group_range_incl");
}
DMPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_or_excl(group, n, ranges, newgroup, false, "MPI_Group_range_excl");
}
DMPI_ALIAS(Group_range_excl)

/* ----------------------------------------------------------- free, comm */
int PMPI_Group_free(MPI_Group *group)
{
    static const char *const FN = "MPI_Group_free";
    DMPI_CHECK_INIT(FN);
    CHECK_ARG(group, FN, "group is NULL");
    dmpi_group *g;
    GET_GROUP(g, *group, FN);
    dmpi_lock();
    dmpi_group_release(g); /* MPI_GROUP_EMPTY and built-in groups stay */
    dmpi_unlock();
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_free)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *const FN = "MPI_Comm_group";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    DMPI_CHECK(c, group, MPI_ERR_ARG, FN, "group is NULL");
    dmpi_lock();
    dmpi_group_retain(c->group);
    *group = dmpi_group_handle(c->group);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_group)
