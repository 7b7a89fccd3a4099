/* Communicator objects and their construction: new/retain/release, dup,
 * split (by color and by node), create, create_group, comparison, the
 * wait of MPI_Comm_disconnect, and
 * the from-group constructors of MPI 4.0 (over MPI_COMM_WORLD's
 * collective context: every process of a job is in it).
 * Constructors agree on a context id over the parent (core/context.c);
 * one id serves all the disjoint communicators a split produces. Dup and
 * split of an intercommunicator are in core/intercomm.c.
 *
 * A communicator made here is a comm_impl: the public struct followed by
 * the extras of comm_ops.h (info hints, an intercommunicator's local
 * intracommunicator). The predefined ones keep theirs in statics. */
#include "core/comm_ops.h"
#include "core/context.h"
#include "coll/coll.h"
#include "core/group.h"
#include "core/session.h"
#include "core/intercomm.h"
#include "core/objpool.h"
#include "core/topo.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------- object lifetime */
void dmpi_errhandler_retain(dmpi_errhandler *e)
{
    if (e && !e->builtin) e->refcount++;
}

void dmpi_errhandler_release(dmpi_errhandler *e)
{
    if (!e || e->builtin || --e->refcount > 0) return;
    dmpi_obj_free(&dmpi_errh_pool, e); /* a stale handle reads "freed" */
}

typedef struct comm_impl {
    dmpi_comm c; /* first: a dmpi_comm * made here is a comm_impl * */
    dmpi_comm_ext ext;
} comm_impl;

static dmpi_objpool comm_pool = DMPI_OBJPOOL_INIT(sizeof(comm_impl));
dmpi_objpool dmpi_errh_pool = DMPI_OBJPOOL_INIT(sizeof(dmpi_errhandler));

static dmpi_comm_ext world_ext, self_ext;

dmpi_comm_ext *dmpi_comm_ext_of(dmpi_comm *c)
{
    if (c == &dmpi_comm_world_obj) return &world_ext;
    if (c == &dmpi_comm_self_obj) return &self_ext;
    if (c->builtin) return NULL;
    return &((comm_impl *)c)->ext;
}

static const char *const hint_keys[DMPI_NHINTS] = {
    [DMPI_HINT_NO_ANY_TAG] = "mpi_assert_no_any_tag",
    [DMPI_HINT_NO_ANY_SOURCE] = "mpi_assert_no_any_source",
    [DMPI_HINT_EXACT_LENGTH] = "mpi_assert_exact_length",
    [DMPI_HINT_ALLOW_OVERTAKING] = "mpi_assert_allow_overtaking",
};

const char *dmpi_comm_hint_key(int i)
{
    return i >= 0 && i < DMPI_NHINTS ? hint_keys[i] : NULL;
}

const char *dmpi_comm_wildcard_refused(dmpi_comm *c, int src, int tag, int *cls)
{
    const dmpi_comm_ext *e = dmpi_comm_ext_of(c);
    if (!e) return NULL;
    if (src == MPI_ANY_SOURCE && e->hints[DMPI_HINT_NO_ANY_SOURCE]) {
        *cls = MPI_ERR_RANK;
        return "MPI_ANY_SOURCE used on a communicator with the info hint "
               "mpi_assert_no_any_source set to true";
    }
    if (tag == MPI_ANY_TAG && e->hints[DMPI_HINT_NO_ANY_TAG]) {
        *cls = MPI_ERR_TAG;
        return "MPI_ANY_TAG used on a communicator with the info hint "
               "mpi_assert_no_any_tag set to true";
    }
    return NULL;
}

dmpi_comm *dmpi_comm_new(dmpi_group *g, uint32_t context_id)
{
    comm_impl *ci = dmpi_obj_alloc(&comm_pool);
    if (!ci) return NULL;
    dmpi_comm *c = &ci->c;
    c->magic = DMPI_MAGIC_COMM;
    c->refcount = 1;
    c->context_id = context_id;
    c->rank = g->rank;
    c->size = g->size;
    c->group = g;
    dmpi_group_retain(g);
    c->errh = &dmpi_errh_fatal;
    c->handle = (MPI_Comm)(void *)c;
    return c;
}

void dmpi_comm_retain(dmpi_comm *c)
{
    if (!c->builtin) c->refcount++;
}

void dmpi_comm_release(dmpi_comm *c)
{
    if (c->builtin || --c->refcount > 0) return;
    dmpi_bsend_comm_gone(c);
    dmpi_coll_comm_gone(c);
    dmpi_topo_release(c);
    comm_impl *ci = (comm_impl *)c;
    if (ci->ext.local) dmpi_comm_release(ci->ext.local);
    dmpi_session_release(ci->ext.session);
    dmpi_context_free(c->context_id);
    dmpi_group_release(c->group);
    if (c->remote_group) dmpi_group_release(c->remote_group);
    dmpi_errhandler_release(c->errh);
    dmpi_obj_free(&comm_pool, ci); /* a stale handle reads "freed" */
}

int dmpi_comm_make(dmpi_comm *parent, dmpi_group *g, uint32_t ctx, dmpi_comm **out)
{
    dmpi_comm *c = dmpi_comm_new(g, ctx);
    if (!c) {
        dmpi_context_free(ctx);
        return MPI_ERR_NO_MEM;
    }
    c->errh = parent->errh;
    dmpi_errhandler_retain(c->errh);
    dmpi_comm_set_session(c, dmpi_comm_session(parent)); /* derived: the parent's session */
    *out = c;
    return MPI_SUCCESS;
}

struct dmpi_session *dmpi_comm_session(dmpi_comm *c)
{
    dmpi_comm_ext *e = dmpi_comm_ext_of(c);
    return e ? e->session : NULL;
}

void dmpi_comm_set_session(dmpi_comm *c, struct dmpi_session *s)
{
    dmpi_comm_ext *e = dmpi_comm_ext_of(c);
    if (!e || e->session == s) return;
    dmpi_session_retain(s);
    dmpi_session_release(e->session);
    e->session = s;
}

int dmpi_intercomm_new(dmpi_comm *like, dmpi_group *lg, dmpi_group *rg, uint32_t ctx,
                       uint32_t lctx, dmpi_comm **out)
{
    dmpi_comm *c = NULL, *l = dmpi_comm_new(lg, lctx);
    *out = NULL;
    if (!l) {
        dmpi_context_free(lctx);
        dmpi_context_free(ctx);
        return MPI_ERR_NO_MEM;
    }
    int rc = dmpi_comm_make(like, lg, ctx, &c);
    if (rc != MPI_SUCCESS) {
        dmpi_comm_release(l);
        return rc;
    }
    c->remote_group = rg;
    dmpi_group_retain(rg);
    dmpi_comm_ext_of(c)->local = l;
    *out = c;
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- constructors */
int dmpi_comm_dup(dmpi_comm *parent, dmpi_comm **out)
{
    uint32_t ctx;
    *out = NULL;
    if (parent->remote_group) return dmpi_intercomm_dup(parent, out);
    int rc = dmpi_context_alloc(parent, &ctx);
    return rc != MPI_SUCCESS ? rc : dmpi_comm_make(parent, parent->group, ctx, out);
}

typedef struct { int color, key, rank; } split_entry;

static int split_cmp(const void *a, const void *b)
{
    const split_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int dmpi_comm_split(dmpi_comm *parent, int color, int key, dmpi_comm **out)
{
    int p = parent->size, mine[2] = {color, key}, n = 0;
    *out = NULL;
    if (parent->remote_group) return dmpi_intercomm_split(parent, color, key, out);
    int *all = malloc((size_t)p * 2 * sizeof(int)), *world = malloc((size_t)p * sizeof(int));
    split_entry *e = malloc((size_t)p * sizeof *e);
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    uint32_t ctx;
    int rc = !all || !e || !world ? MPI_ERR_NO_MEM
                                  : dmpi_coll_allgather(mine, 2, i32, all, 2, i32, parent);
    if (rc == MPI_SUCCESS) rc = dmpi_context_alloc(parent, &ctx);
    if (rc == MPI_SUCCESS && color == MPI_UNDEFINED) {
        dmpi_context_free(ctx);
    } else if (rc == MPI_SUCCESS) {
        for (int i = 0; i < p; i++)
            if (all[2 * i] == color) e[n++] = (split_entry){color, all[2 * i + 1], i};
        qsort(e, (size_t)n, sizeof *e, split_cmp);
        for (int i = 0; i < n; i++) world[i] = dmpi_comm_world_rank(parent, e[i].rank);
        dmpi_group *g = dmpi_group_new(n, world);
        if (!g) {
            dmpi_context_free(ctx);
            rc = MPI_ERR_NO_MEM;
        } else {
            rc = dmpi_comm_make(parent, g, ctx, out);
            dmpi_group_release(g);
        }
    }
    free(all);
    free(e);
    free(world);
    return rc;
}

int dmpi_comm_split_node(dmpi_comm *parent, bool undefined, int key, dmpi_comm **out)
{
    /* The launcher's node map names the node (a host name could be shared
     * by containers or test hosts that share no memory); color = lowest
     * parent rank on it. Every rank computes the same answer locally. */
    *out = NULL;
    int color = MPI_UNDEFINED;
    const dmpi_group *g = parent->group; /* the local group of an intercommunicator */
    for (int i = 0; i < g->size && color == MPI_UNDEFINED; i++)
        if (dmpi_rt.node_of[g->world[i]] == dmpi_rt.node_id) color = i;
    return dmpi_comm_split(parent, undefined ? MPI_UNDEFINED : color, key, out);
}

bool dmpi_comm_on_one_node(dmpi_comm *c)
{
    if (c->on_node == 0) {
        const dmpi_group *g = c->group;
        bool one = !c->remote_group;
        for (int i = 0; one && i < g->size; i++)
            one = dmpi_rt.node_of[g->world[i]] == dmpi_rt.node_id;
        c->on_node = one ? 1 : -1;
    }
    return c->on_node > 0;
}

bool dmpi_group_subset_of(const dmpi_group *g, const dmpi_group *parent)
{
    for (int i = 0; i < g->size; i++)
        if (dmpi_group_rank_of_world(parent, g->world[i]) == MPI_UNDEFINED) return false;
    return true;
}

int dmpi_comm_create(dmpi_comm *parent, dmpi_group *g, dmpi_comm **out)
{
    uint32_t ctx;
    *out = NULL;
    /* Intercommunicator (MPI 4.1 sec. 7.4.2): an intercommunicator between
     * the two sides' groups, in group order; MPI_COMM_NULL outside them and
     * where either is empty. That is a split with one color for the members
     * and their rank in the group as key. */
    if (parent->remote_group)
        return dmpi_intercomm_split(parent, g->rank != MPI_UNDEFINED ? 0 : MPI_UNDEFINED, g->rank,
                                    out);
    int rc = dmpi_context_alloc(parent, &ctx);
    if (rc != MPI_SUCCESS) return rc;
    if (g->rank == MPI_UNDEFINED) {
        dmpi_context_free(ctx);
        return MPI_SUCCESS;
    }
    return dmpi_comm_make(parent, g, ctx, out);
}

/* The AND of buf[0..n-1] over the members of a Comm_create_group group:
 * a binomial-tree reduction to group rank 0 and a binomial broadcast back,
 * sent in the parent's collective context with a tag of its own (above the
 * range of ordinary collective tags) derived from the user's tag.
 *
 * Every message names the members by their ranks in the parent, both as
 * destination and as source. A temporary communicator over the group
 * (group ranks as sources) would not do: two calls in a row with the same
 * tag over different groups that overlap may run at once on different
 * members (a member of both runs ahead into the second while another
 * still finishes the first), and group rank i of one call is another
 * process than group rank i of the other, so a message of one call could
 * match a receive of the other (the 4 KiB free map arriving into the
 * 8-byte confirmation: "message truncated"). With parent ranks, the
 * messages between two processes are those of the calls both make, in
 * the order both make them. */
typedef struct group_and {
    dmpi_comm *parent;
    const dmpi_group *g;
    int tag;
} group_and;

static int parent_rank(const group_and *a, int i)
{
    return dmpi_group_rank_of_world(a->parent->group, a->g->world[i]);
}

static int and_over_group(void *arg, uint64_t *buf, int n)
{
    const group_and *a = arg;
    dmpi_datatype *u64 = dmpi_dt_builtin(MPI_UINT64_T);
    int k = a->g->size, r = a->g->rank, rc = MPI_SUCCESS;
    if (k < 2) return MPI_SUCCESS;
    uint64_t *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp) return MPI_ERR_NO_MEM;
    int mask = 1;
    for (; mask < k; mask <<= 1) { /* reduce: children first, then my parent */
        if (r & mask) {
            rc = dmpi_send(buf, n, u64, parent_rank(a, r - mask), a->tag, a->parent,
                           DMPI_CTX_COLL);
            break;
        }
        if (r + mask < k) {
            rc = dmpi_recv(tmp, n, u64, parent_rank(a, r + mask), a->tag, a->parent,
                           DMPI_CTX_COLL, NULL);
            if (rc != MPI_SUCCESS) break;
            for (int i = 0; i < n; i++) buf[i] &= tmp[i];
        }
    }
    free(tmp);
    if (rc != MPI_SUCCESS) return rc;
    /* broadcast: from the rank I sent to, then down the same tree */
    if (r != 0) {
        rc = dmpi_recv(buf, n, u64, parent_rank(a, r - mask), a->tag, a->parent, DMPI_CTX_COLL,
                       NULL);
        if (rc != MPI_SUCCESS) return rc;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < k) {
            rc = dmpi_send(buf, n, u64, parent_rank(a, r + mask), a->tag, a->parent,
                           DMPI_CTX_COLL);
            if (rc != MPI_SUCCESS) return rc;
        }
    return MPI_SUCCESS;
}

/* Tags of the group agreements in the parent's collective context, above
 * those of ordinary collectives (below 2^30): MPI_Comm_create_group's
 * from the user's tag, the from-group constructors' (over MPI_COMM_WORLD)
 * from a hash of their string tag. */
#define TAG_CREATE_GROUP(t) (0x40000000 | ((t) & 0x1fffffff))
#define TAG_FROM_GROUP(h) (0x60000000 | ((h) & 0x1fffffff))

/* A communicator over g made by its members alone, agreeing over parent
 * with internal tag itag. */
static int group_comm(dmpi_comm *parent, dmpi_group *g, int itag, dmpi_comm **out)
{
    *out = NULL;
    if (g->rank == MPI_UNDEFINED) return MPI_SUCCESS;
    group_and a = {parent, g, itag};
    uint32_t ctx;
    int rc = dmpi_context_alloc_with(and_over_group, &a, &ctx);
    return rc != MPI_SUCCESS ? rc : dmpi_comm_make(parent, g, ctx, out);
}

int dmpi_comm_create_group(dmpi_comm *parent, dmpi_group *g, int tag, dmpi_comm **out)
{
    return group_comm(parent, g, TAG_CREATE_GROUP(tag), out);
}

uint32_t dmpi_stringtag_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The error handler of a communicator made from a group is the caller's. */
static void set_errh(dmpi_comm *c, dmpi_errhandler *e)
{
    dmpi_errhandler_retain(e);
    dmpi_errhandler_release(c->errh);
    c->errh = e;
}

int dmpi_comm_from_group(dmpi_group *g, const char *stringtag, dmpi_errhandler *e,
                         dmpi_comm **out)
{
    int rc = group_comm(&dmpi_comm_world_obj, g, TAG_FROM_GROUP(dmpi_stringtag_hash(stringtag)),
                        out);
    if (rc == MPI_SUCCESS && *out) {
        set_errh(*out, e);
        dmpi_comm_set_session(*out, g->session);
    }
    return rc;
}

int dmpi_intercomm_from_groups(dmpi_group *lg, int local_leader, dmpi_group *rg,
                               int remote_leader, const char *stringtag, dmpi_errhandler *e,
                               dmpi_comm **out)
{
    dmpi_comm *l;
    uint32_t h = dmpi_stringtag_hash(stringtag);
    *out = NULL;
    int rc = group_comm(&dmpi_comm_world_obj, lg, TAG_FROM_GROUP(h), &l);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_comm_set_session(l, lg->session); /* the intercommunicator inherits it */
    /* the leaders meet in MPI_COMM_WORLD's collective context */
    int peer = lg->rank == local_leader ? rg->world[remote_leader] : 0;
    rc = dmpi_intercomm_create(l, local_leader, &dmpi_comm_world_obj, peer, TAG_FROM_GROUP(h),
                               DMPI_CTX_COLL, MPI_SUCCESS, out);
    dmpi_comm_release(l);
    if (rc == MPI_SUCCESS) set_errh(*out, e);
    return rc;
}

/* ----------------------------------------------------------- disconnect */
/* How long dmpi_comm_quiesce waits for a reference that no progress moves
 * (an inactive persistent request, which is not pending communication). */
#define QUIET_NS 500000000LL

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int dmpi_comm_quiesce(dmpi_comm *c)
{
    /* Every member has called it, so every message to us has been sent;
     * the requests still on c (freed by the user or not) each hold a
     * reference, and go when they complete. */
    int rc = dmpi_coll_barrier(c);
    unsigned idle = 0;
    long long quiet = now_ns();
    while (rc == MPI_SUCCESS && c->refcount > 1) {
        if (dmpi_progress()) {
            idle = 0;
            quiet = now_ns();
        } else {
            dmpi_progress_idle(&idle);
            if (now_ns() - quiet > QUIET_NS) break;
        }
    }
    return rc;
}

/* -------------------------------------------------------------- compare */
int dmpi_comm_compare(const dmpi_comm *a, const dmpi_comm *b)
{
    if (a == b) return MPI_IDENT;
    if (!a->remote_group != !b->remote_group) return MPI_UNEQUAL;
    int g = dmpi_group_compare(a->group, b->group);
    if (a->remote_group && g != MPI_UNEQUAL) {
        int r = dmpi_group_compare(a->remote_group, b->remote_group);
        if (r == MPI_UNEQUAL) return MPI_UNEQUAL;
        if (r == MPI_SIMILAR) g = MPI_SIMILAR;
    }
    return g == MPI_IDENT ? MPI_CONGRUENT : g;
}
