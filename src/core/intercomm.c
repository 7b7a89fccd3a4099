/* Intercommunicators: MPI_Intercomm_create (the two leaders swap their
 * groups over the peer communicator, each broadcasts the other group to its
 * own side, and both groups agree on a context id), merge, dup, split and
 * barrier. See core/intercomm.h for the conventions (local
 * intracommunicator, leader traffic in the collective context). */
#include "core/intercomm.h"
#include "coll/coll.h"
#include "core/comm_ops.h"
#include "core/context.h"
#include "core/dynproc.h"
#include "core/group.h"

#include <stdlib.h>
#include <string.h>

dmpi_comm *dmpi_intercomm_local(dmpi_comm *inter)
{
    if (!inter->remote_group) return NULL;
    dmpi_comm_ext *e = dmpi_comm_ext_of(inter);
    return e ? e->local : NULL;
}

/* ------------------------------------------------------- leader traffic
 * The path from this group's leader to the other's: a rank in `comm`, the
 * tag, and the context (the peer communicator's point-to-point context for
 * Intercomm_create, the intercommunicator's collective context later). */
typedef struct link {
    dmpi_comm *comm;
    int peer, tag, ctx_kind;
} link_t;

static int link_swap(const link_t *l, const void *out, int nout, void *in, int nin,
                     dmpi_datatype *dt)
{
    return dmpi_sendrecv(out, nout, dt, l->peer, l->tag, in, nin, dt, l->peer, l->tag, l->comm,
                         l->ctx_kind, NULL);
}

/* dmpi_ctx_xchg_fn over a link. */
static int link_and(void *arg, uint64_t *buf, int n)
{
    uint64_t *theirs = malloc((size_t)n * sizeof *theirs);
    if (!theirs) return MPI_ERR_NO_MEM;
    int rc = link_swap(arg, buf, n, theirs, n, dmpi_dt_builtin(MPI_UINT64_T));
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < n; i++) buf[i] &= theirs[i];
    free(theirs);
    return rc;
}

/* The link from local rank 0 to remote rank 0 of an intercommunicator, with
 * the tag of a new collective call on it (every member calls this once per
 * operation, so the tags stay in step on both sides). */
static link_t leaders_link(dmpi_comm *inter)
{
    return (link_t){inter, 0, dmpi_coll_tag(inter), DMPI_CTX_COLL};
}

/* Context ids for a new intercommunicator over local intracommunicator l:
 * one agreed with the other group over link, one for its own local
 * intracommunicator. */
static int two_contexts(dmpi_comm *l, int leader, dmpi_ctx_xchg_fn xchg, void *arg, uint32_t *ctx,
                        uint32_t *lctx)
{
    int rc = dmpi_context_alloc_pair(l, leader, xchg, arg, ctx);
    if (rc != MPI_SUCCESS) return rc;
    rc = dmpi_context_alloc(l, lctx);
    if (rc != MPI_SUCCESS) dmpi_context_free(*ctx);
    return rc;
}

/* ---------------------------------------------------------------- create */
/* At the local leader: swaps the groups (as world ranks) with the other
 * leader; *rworld gets the other group. MPI_ERR_ARG if the groups overlap
 * (both leaders see the same two lists, so both find it);
 * MPI_ERR_UNSUPPORTED_OPERATION if the leaders belong to two mpiexec runs
 * (both find that too). */
static int leaders_swap_groups(const link_t *link, const dmpi_group *mine, int *rsize,
                               int **rworld)
{
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    /* our size and our own order key (run, own index): a leader of another
     * mpiexec run sends universe indices that mean nothing here
     * (docs/dynproc.md), and one not known by the key it sends is no
     * better */
    uint64_t me = dmpi_dyn_order_key(dmpi_rt.uni_rank);
    const dmpi_group *pg = link->comm->remote_group ? link->comm->remote_group : link->comm->group;
    uint64_t want = dmpi_dyn_order_key(pg->world[link->peer]);
    int out[3] = {mine->size, (int)(me >> 32), (int)(uint32_t)me}, in[3] = {0, 0, 0};
    int rc = link_swap(link, out, 3, in, 3, i32);
    if (rc != MPI_SUCCESS) return rc;
    *rsize = in[0];
    uint64_t theirs = (uint64_t)(uint32_t)in[1] << 32 | (uint32_t)in[2];
    if (theirs >> 32 != me >> 32 || theirs != want) return MPI_ERR_UNSUPPORTED_OPERATION;
    int n = mine->size;
    if (*rsize <= 0) return MPI_ERR_INTERN;
    if (!(*rworld = malloc((size_t)*rsize * sizeof(int)))) return MPI_ERR_NO_MEM;
    rc = link_swap(link, mine->world, n, *rworld, *rsize, i32);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < *rsize; i++)
        if (dmpi_group_rank_of_world(mine, (*rworld)[i]) != MPI_UNDEFINED) return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

int dmpi_intercomm_create(dmpi_comm *local, int local_leader, dmpi_comm *peer,
                          int remote_leader, int tag, int ctx_kind, int leader_status,
                          dmpi_comm **out)
{
    *out = NULL;
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    link_t link = {peer, remote_leader, tag, ctx_kind};
    bool leader = local->rank == local_leader;
    int hdr[2] = {leader_status, 0}; /* status, size of the remote group */
    int *rworld = NULL;
    if (leader && hdr[0] == MPI_SUCCESS)
        hdr[0] = leaders_swap_groups(&link, local->group, &hdr[1], &rworld);
    int rc = dmpi_coll_bcast(hdr, 2, i32, local_leader, local);
    if (rc == MPI_SUCCESS) rc = hdr[0];
    if (rc == MPI_SUCCESS && !leader && !(rworld = malloc((size_t)hdr[1] * sizeof(int))))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = dmpi_coll_bcast(rworld, hdr[1], i32, local_leader, local);
    dmpi_group *rg = rc == MPI_SUCCESS ? dmpi_group_new(hdr[1], rworld) : NULL;
    free(rworld);
    if (rc != MPI_SUCCESS) return rc;
    if (!rg) return MPI_ERR_NO_MEM;
    rc = dmpi_dyn_reach_group(local, rg);
    if (rc == MPI_SUCCESS) rc = dmpi_intercomm_with(local, local_leader, rg, link_and, &link, out);
    dmpi_group_release(rg);
    return rc;
}

int dmpi_intercomm_with(dmpi_comm *local, int local_leader, dmpi_group *rg, dmpi_ctx_xchg_fn xchg,
                        void *arg, dmpi_comm **out)
{
    *out = NULL;
    uint32_t ctx, lctx;
    int rc = two_contexts(local, local_leader, xchg, arg, &ctx, &lctx);
    if (rc == MPI_SUCCESS) rc = dmpi_intercomm_new(local, local->group, rg, ctx, lctx, out);
    return rc;
}

/* ------------------------------------------------------------------ dup */
int dmpi_intercomm_dup(dmpi_comm *inter, dmpi_comm **out)
{
    *out = NULL;
    dmpi_comm *l = dmpi_intercomm_local(inter);
    if (!l) return MPI_ERR_COMM;
    link_t link = leaders_link(inter);
    uint32_t ctx, lctx;
    int rc = two_contexts(l, 0, link_and, &link, &ctx, &lctx);
    if (rc != MPI_SUCCESS) return rc;
    return dmpi_intercomm_new(inter, inter->group, inter->remote_group, ctx, lctx, out);
}

/* ---------------------------------------------------------------- merge */
int dmpi_intercomm_merge(dmpi_comm *inter, bool high, dmpi_comm **out)
{
    *out = NULL;
    dmpi_comm *l = dmpi_intercomm_local(inter);
    if (!l) return MPI_ERR_COMM;
    link_t link = leaders_link(inter);
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    /* The leaders' flags decide for their groups; on a tie, the order
     * keys of the groups' first members (the same in both groups, also
     * when they belong to two mpiexec runs). */
    const dmpi_group *a = inter->group, *b = inter->remote_group;
    uint64_t key = dmpi_dyn_order_key(a->world[0]);
    int v[7] = {MPI_SUCCESS, high, (int)(key >> 32), (int)(uint32_t)key}; /* status, ours, theirs */
    if (l->rank == 0) v[0] = link_swap(&link, &v[1], 3, &v[4], 3, i32);
    int rc = dmpi_coll_bcast(v, 7, i32, 0, l);
    if (rc == MPI_SUCCESS) rc = v[0];
    if (rc != MPI_SUCCESS) return rc;
    uint64_t theirs = (uint64_t)(uint32_t)v[5] << 32 | (uint32_t)v[6];
    bool we_first = v[1] != v[4] ? !v[1] : key < theirs;
    if (!we_first) {
        a = inter->remote_group;
        b = inter->group;
    }
    int n = a->size + b->size;
    int *world = malloc((size_t)n * sizeof(int));
    if (!world) return MPI_ERR_NO_MEM;
    memcpy(world, a->world, (size_t)a->size * sizeof(int));
    memcpy(world + a->size, b->world, (size_t)b->size * sizeof(int));
    dmpi_group *g = dmpi_group_new(n, world);
    free(world);
    if (!g) return MPI_ERR_NO_MEM;
    uint32_t ctx;
    rc = dmpi_context_alloc_pair(l, 0, link_and, &link, &ctx);
    if (rc == MPI_SUCCESS) rc = dmpi_comm_make(inter, g, ctx, out);
    dmpi_group_release(g);
    return rc;
}

/* ---------------------------------------------------------------- split */
typedef struct { int key, rank; } split_entry;

static int split_cmp(const void *x, const void *y)
{
    const split_entry *p = x, *q = y;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return (p->rank > q->rank) - (p->rank < q->rank);
}

/* The members of g whose (color, key) pair in ck has this color, ordered by
 * (key, rank), as a group; NULL with *n = 0 if there are none. */
static dmpi_group *color_group(const dmpi_group *g, const int *ck, int color, int *n, int *rc)
{
    split_entry *e = malloc((size_t)g->size * sizeof *e);
    int *world = malloc((size_t)g->size * sizeof(int));
    dmpi_group *out = NULL;
    *n = 0;
    if (e && world) {
        for (int i = 0; i < g->size; i++)
            if (ck[2 * i] == color) e[(*n)++] = (split_entry){ck[2 * i + 1], i};
        qsort(e, (size_t)*n, sizeof *e, split_cmp);
        for (int i = 0; i < *n; i++) world[i] = g->world[e[i].rank];
        if (*n > 0 && !(out = dmpi_group_new(*n, world))) *rc = MPI_ERR_NO_MEM;
    } else {
        *rc = MPI_ERR_NO_MEM;
    }
    free(e);
    free(world);
    return out;
}

int dmpi_intercomm_split(dmpi_comm *inter, int color, int key, dmpi_comm **out)
{
    *out = NULL;
    dmpi_comm *l = dmpi_intercomm_local(inter);
    if (!l) return MPI_ERR_COMM;
    link_t link = leaders_link(inter);
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    int n = l->size, m = inter->remote_group->size, mine[2] = {color, key};
    int *ours = malloc((size_t)n * 2 * sizeof(int));
    int *theirs = malloc(((size_t)m * 2 + 1) * sizeof(int)); /* status, then pairs */
    if (!ours || !theirs) {
        free(ours);
        free(theirs);
        return MPI_ERR_NO_MEM;
    }
    int rc = dmpi_coll_allgather(mine, 2, i32, ours, 2, i32, l);
    if (rc == MPI_SUCCESS) {
        theirs[0] = MPI_SUCCESS;
        if (l->rank == 0) theirs[0] = link_swap(&link, ours, 2 * n, theirs + 1, 2 * m, i32);
        rc = dmpi_coll_bcast(theirs, 2 * m + 1, i32, 0, l);
        if (rc == MPI_SUCCESS) rc = theirs[0];
    }
    uint32_t ctx, lctx;
    if (rc == MPI_SUCCESS) rc = two_contexts(l, 0, link_and, &link, &ctx, &lctx);
    if (rc != MPI_SUCCESS) {
        free(ours);
        free(theirs);
        return rc;
    }
    dmpi_group *lg = NULL, *rg = NULL;
    int nl = 0, nr = 0;
    if (color != MPI_UNDEFINED) {
        lg = color_group(inter->group, ours, color, &nl, &rc);
        if (rc == MPI_SUCCESS) rg = color_group(inter->remote_group, theirs + 1, color, &nr, &rc);
    }
    free(ours);
    free(theirs);
    if (rc == MPI_SUCCESS && lg && rg) {
        rc = dmpi_intercomm_new(inter, lg, rg, ctx, lctx, out);
    } else { /* no communicator here (or out of memory) */
        dmpi_context_free(ctx);
        dmpi_context_free(lctx);
    }
    if (lg) dmpi_group_release(lg);
    if (rg) dmpi_group_release(rg);
    return rc;
}

/* -------------------------------------------------------------- barrier */
int dmpi_intercomm_barrier(dmpi_comm *inter)
{
    dmpi_comm *l = dmpi_intercomm_local(inter);
    if (!l) return MPI_ERR_COMM;
    link_t link = leaders_link(inter);
    /* Our group has entered; the leaders tell each other so; each leader
     * then releases its group. */
    int st = dmpi_coll_barrier(l);
    if (l->rank == 0 && st == MPI_SUCCESS)
        st = link_swap(&link, NULL, 0, NULL, 0, dmpi_coll_byte());
    int rc = dmpi_coll_bcast(&st, 1, dmpi_dt_builtin(MPI_INT), 0, l);
    return rc != MPI_SUCCESS ? rc : st;
}
