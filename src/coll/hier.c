/* Node-aware (hierarchical) blocking collectives: an intra-node phase on
 * the node subcommunicator (shared memory, through the normal dispatch)
 * and an inter-node phase among the node leaders (point-to-point), as
 * described in hier.h and src/coll/README.md ("Collectives that know the
 * nodes").
 *
 * Placement tables (computed locally from the node map, identical on every
 * process of the communicator):
 *   - nodes are numbered 0 .. nn-1 by increasing leader comm rank (the
 *     leader of a node is its lowest comm rank), so node index k is rank k
 *     of the leaders communicator;
 *   - local_idx[i] is comm rank i's rank in its node communicator (comm
 *     rank order within the node);
 *   - "node-major order" lists the comm ranks node by node, each node's in
 *     comm rank order: position node_start[k] + l holds order[...] = the
 *     comm rank of local rank l of node k. Packed temporaries of the moving
 *     collectives (gather, scatter, allgather(v), alltoall(v)) hold blocks
 *     in this order.
 */
#include "coll/hier.h"
#include "coll/sched.h"
#include "core/comm_ops.h"

#include <stdlib.h>
#include <string.h>

enum { H_NO = -1, H_TABLES = 0, H_READY = 1, H_BUILDING = 2 };

typedef struct hier {
    int state;        /* H_*: READY once the subcommunicators exist */
    int p, nn;        /* comm size, nodes in the comm */
    int myk, myl;     /* this process's node index and local rank */
    int *node_idx;    /* [p] node index of comm rank i */
    int *local_idx;   /* [p] rank of comm rank i in its node communicator */
    int *leader;      /* [nn] comm rank of node k's leader */
    int *node_size;   /* [nn] */
    int *node_start;  /* [nn + 1] prefix sums of node_size */
    int *order;       /* [p] node-major order -> comm rank */
    dmpi_comm *node, *leaders;
} hier;

/* The communicators that never take the hierarchy share this record. */
static hier not_hier = {.state = H_NO};

static int knob = -1; /* DMPI_COLL_HIER, read on first use */

static void hier_free(hier *h)
{
    if (!h || h == &not_hier) return;
    if (h->node) dmpi_comm_release(h->node);
    if (h->leaders) dmpi_comm_release(h->leaders);
    free(h->node_idx);
    free(h);
}

void dmpi_coll_hier_gone(dmpi_comm *c)
{
    hier *h = c->hier;
    c->hier = NULL;
    hier_free(h);
}

typedef struct { int node, rank; } by_node;

static int by_node_cmp(const void *x, const void *y)
{
    const by_node *a = x, *b = y;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The placement tables of c, or &not_hier when c is on one node or has
 * one process per node (or out of memory: the same answer everywhere is
 * not guaranteed then, but every table is made before any traffic). */
static hier *tables(dmpi_comm *c)
{
    int p = c->size;
    by_node *e = malloc((size_t)p * sizeof *e);
    /* one block for the five int tables: node_idx, local_idx, order, and
     * (nn-sized, allocated at p + 1) leader, node_size, node_start */
    int *t = malloc((size_t)(6 * p + 2) * sizeof(int));
    hier *h = calloc(1, sizeof *h);
    if (!e || !t || !h) {
        free(e);
        free(t);
        free(h);
        return &not_hier;
    }
    for (int i = 0; i < p; i++) e[i] = (by_node){dmpi_rt.node_of[c->group->world[i]], i};
    qsort(e, (size_t)p, sizeof *e, by_node_cmp);
    h->p = p;
    h->node_idx = t;
    h->local_idx = t + p;
    h->order = t + 2 * p;
    h->leader = t + 3 * p;
    h->node_size = t + 4 * p;
    h->node_start = t + 5 * p;
    /* groups of equal node in e; group g starts at e index gfirst, and
     * node_idx temporarily holds the group of each rank */
    int *gfirst = h->order; /* scratch: overwritten below */
    int ng = 0;
    for (int j = 0; j < p; j++) {
        if (j == 0 || e[j].node != e[j - 1].node) gfirst[ng++] = j;
        h->node_idx[e[j].rank] = ng - 1;
    }
    /* node index by increasing leader rank: walk the comm ranks, a rank
     * that leads its group (first of it in e) opens the next index */
    int *gidx = h->local_idx; /* scratch: [ng] group -> node index */
    int nn = 0;
    for (int i = 0; i < p; i++) {
        int g = h->node_idx[i];
        if (e[gfirst[g]].rank == i) gidx[g] = nn++;
    }
    int *gk = h->leader; /* scratch: [ng] node index -> group */
    for (int g = 0; g < ng; g++) gk[gidx[g]] = g;
    /* sizes and starts per node index, from the group bounds */
    int *first = h->node_start; /* e index of node k's first member */
    int *size = h->node_size;
    for (int k = 0; k < nn; k++) {
        int g = gk[k];
        int end = g + 1 < ng ? gfirst[g + 1] : p;
        first[k] = gfirst[g];
        size[k] = end - gfirst[g];
    }
    /* node_idx, leader, order, local_idx, node_start (in that order: the
     * scratch uses above are then all read) */
    for (int k = 0; k < nn; k++)
        for (int l = 0; l < size[k]; l++) h->node_idx[e[first[k] + l].rank] = k;
    for (int k = 0; k < nn; k++) h->leader[k] = e[first[k]].rank;
    int at = 0;
    for (int k = 0; k < nn; k++) {
        int f = first[k];
        first[k] = at; /* node_start[k] from here on */
        for (int l = 0; l < size[k]; l++) {
            h->order[at + l] = e[f + l].rank;
            h->local_idx[e[f + l].rank] = l;
        }
        at += size[k];
    }
    h->node_start[nn] = p;
    free(e);
    h->nn = nn;
    h->myk = h->node_idx[c->rank];
    h->myl = h->local_idx[c->rank];
    if (nn < 2 || nn == p) {
        free(t);
        free(h);
        return &not_hier;
    }
    h->state = H_TABLES;
    return h;
}

/* The subcommunicators, made with the internal split over c. Every process
 * of c gets here in the same blocking collective; the collectives that the
 * splits run on c meanwhile go flat (state H_BUILDING). Success is agreed,
 * so either everyone takes the hierarchy or no one ever does. */
static bool build(dmpi_comm *c, hier *h)
{
    h->state = H_BUILDING;
    bool lead = h->myl == 0;
    int rc1 = dmpi_comm_split(c, h->myk, c->rank, &h->node);
    int rc2 = dmpi_comm_split(c, lead ? 0 : MPI_UNDEFINED, c->rank, &h->leaders);
    int ok = rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && h->node &&
             h->node->rank == h->myl && h->node->size == h->node_size[h->myk] &&
             (lead ? h->leaders && h->leaders->rank == h->myk && h->leaders->size == h->nn
                   : !h->leaders);
    if (dmpi_coll_allreduce(MPI_IN_PLACE, &ok, 1, dmpi_dt_builtin(MPI_INT),
                            dmpi_op_builtin(MPI_MIN), c) != MPI_SUCCESS)
        ok = 0;
    if (!ok) {
        if (h->node) dmpi_comm_release(h->node);
        if (h->leaders) dmpi_comm_release(h->leaders);
        h->node = h->leaders = NULL;
        h->state = H_NO;
        return false;
    }
    h->state = H_READY;
    return true;
}

/* ------------------------------------------------------------ helpers */
static int run(dmpi_comm *sub, dmpi_coll_args a)
{
    return dmpi_coll_run(sub, &a);
}

/* Keeps the first error; every phase still runs (the others take part). */
static void keep(int *rc, int r)
{
    if (*rc == MPI_SUCCESS) *rc = r;
}

/* Where the phases of barrier, bcast, reduce and allreduce go: run one
 * after the other (blocking call, s NULL, first error in rc), or appended
 * to the schedule s of a nonblocking or persistent call, each phase a
 * schedule of the subcommunicator (its own tag) behind a fence, so that it
 * starts when the phase before it has completed. */
typedef struct {
    dmpi_sched *s;
    int rc;
} phases;

static void phase(phases *ph, dmpi_comm *sub, dmpi_coll_args a)
{
    if (!ph->s) {
        keep(&ph->rc, dmpi_coll_run(sub, &a));
        return;
    }
    dmpi_coll_sched(ph->s, sub, &a);
    dmpi_sched_fence(ph->s);
}

/* A typed temporary that lives as long as the phases: freed by the caller
 * through *base (blocking), or owned by the schedule (*base NULL). */
static void *phase_tmp(phases *ph, MPI_Count count, dmpi_datatype *dt, void **base)
{
    if (!ph->s) return dmpi_coll_tmp(count, dt, base);
    *base = NULL;
    return dmpi_sched_tmp(ph->s, count, dt);
}


/* Bytes of one process's block in gather / scatter / allgather, from the
 * arguments significant at this process (equal everywhere by the rules of
 * type matching). */
static MPI_Count block_bytes(const dmpi_coll_args *a, int r)
{
    switch (a->coll) {
    case DMPI_COLL_GATHER:
        return r == a->root && a->sbuf == MPI_IN_PLACE ? a->rcount * a->rdt->size
                                                       : a->scount * a->sdt->size;
    case DMPI_COLL_SCATTER:
        return r == a->root && a->rbuf == MPI_IN_PLACE ? a->scount * a->sdt->size
                                                       : a->rcount * a->rdt->size;
    default:
        return a->rcount * a->rdt->size;
    }
}

/* A temporary of n bytes (n > 0); NULL when out of memory. */
static unsigned char *bytes_tmp(MPI_Count n)
{
    return malloc((size_t)n);
}

/* ------------------------------------------------------------ barrier */
static void barrier(phases *ph, hier *h)
{
    phase(ph, h->node, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER});
    if (h->leaders) phase(ph, h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER});
    phase(ph, h->node, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER});
}

/* ------------------------------------------------------------- bcast
 * The root's node first spreads the data in the node when the root is not
 * its leader; then the leaders; then every other node (and the root's, when
 * the root leads it) from its leader. One node phase per node. */
static void bcast(phases *ph, hier *h, const dmpi_coll_args *a)
{
    int root = a->root, rk = h->node_idx[root];
    bool first = h->myk == rk && root != h->leader[rk];
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf, .rcount = a->rcount,
                        .rdt = a->rdt};
    if (first) {
        b.root = h->local_idx[root];
        phase(ph, h->node, b);
    }
    if (h->leaders) {
        b.root = rk;
        phase(ph, h->leaders, b);
    }
    if (!first) {
        b.root = 0;
        phase(ph, h->node, b);
    }
}

/* ------------------------------------------------------------ reduce
 * Root leads its node: every node reduces to its leader, the leaders to the
 * root. Otherwise the other nodes do the same towards the root's leader,
 * which adds its own input (leaders phase) and brings the result into its
 * node's reduction to the root. Commutative ops only. */
static void reduce(phases *ph, dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int root = a->root, rk = h->node_idx[root], me = c->rank;
    bool lead = h->myl == 0;
    dmpi_coll_args r = {.coll = DMPI_COLL_REDUCE, .rcount = a->rcount, .rdt = a->rdt,
                        .op = a->op};
    void *base = NULL, *tmp = NULL;
    if (lead && me != root) {
        tmp = phase_tmp(ph, a->rcount, a->rdt, &base);
        if (!tmp) {
            keep(&ph->rc, MPI_ERR_NO_MEM);
            return;
        }
    }
    if (h->myk != rk || root == h->leader[rk]) {
        /* node phase to the leader, then leaders to node rk's leader */
        r.sbuf = a->sbuf;
        r.rbuf = me == root ? a->rbuf : tmp;
        r.root = 0;
        phase(ph, h->node, r);
        if (lead) {
            r.sbuf = me == root ? MPI_IN_PLACE : tmp;
            r.rbuf = me == root ? a->rbuf : NULL;
            r.root = rk;
            phase(ph, h->leaders, r);
        }
    } else if (lead) {
        /* the root's node, root elsewhere in it: leaders, then node */
        r.sbuf = a->sbuf;
        r.rbuf = tmp;
        r.root = rk;
        phase(ph, h->leaders, r);
        r.sbuf = tmp;
        r.rbuf = NULL;
        r.root = h->local_idx[root];
        phase(ph, h->node, r);
    } else {
        r.sbuf = a->sbuf;
        r.rbuf = me == root ? a->rbuf : NULL;
        r.root = h->local_idx[root];
        phase(ph, h->node, r);
    }
    free(base);
}

/* --------------------------------------------------------- allreduce
 * Reduce to the leaders, allreduce among them, bcast in the node: every
 * process gets the leaders' bits. */
static void allreduce(phases *ph, hier *h, const dmpi_coll_args *a)
{
    bool lead = h->myl == 0;
    bool in_place = a->sbuf == MPI_IN_PLACE;
    dmpi_coll_args r = {.coll = DMPI_COLL_REDUCE, .rcount = a->rcount, .rdt = a->rdt,
                        .op = a->op, .root = 0};
    if (lead) {
        r.sbuf = a->sbuf;
        r.rbuf = a->rbuf;
    } else {
        r.sbuf = in_place ? a->rbuf : a->sbuf;
        r.rbuf = NULL;
    }
    phase(ph, h->node, r);
    if (lead)
        phase(ph, h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_ALLREDUCE, .sbuf = MPI_IN_PLACE,
                                               .rbuf = a->rbuf, .rcount = a->rcount,
                                               .rdt = a->rdt, .op = a->op});
    phase(ph, h->node, (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf,
                                        .rcount = a->rcount, .rdt = a->rdt, .root = 0});
}

/* Where node-major position q starts in a packed temporary: off[q] when
 * the blocks differ in size (allgatherv: p + 1 prefix sums), else q blocks
 * of blk bytes. */
static MPI_Count packed_at(const MPI_Count *off, MPI_Count blk, int q)
{
    return off ? off[q] : q * blk;
}

/* The node-major byte counts and displacements of the nodes' packed
 * runs, for the leaders' v-collectives (blocks laid out as packed_at). */
static int node_counts(hier *h, const MPI_Count *off, MPI_Count blk, MPI_Count **counts,
                       MPI_Aint **displs)
{
    *counts = malloc((size_t)h->nn * sizeof **counts);
    *displs = malloc((size_t)h->nn * sizeof **displs);
    if (!*counts || !*displs) {
        free(*counts);
        free(*displs);
        *counts = NULL;
        *displs = NULL;
        return MPI_ERR_NO_MEM;
    }
    for (int k = 0; k < h->nn; k++) {
        MPI_Count at = packed_at(off, blk, h->node_start[k]);
        (*counts)[k] = packed_at(off, blk, h->node_start[k + 1]) - at;
        (*displs)[k] = (MPI_Aint)at;
    }
    return MPI_SUCCESS;
}

/* Block j of one side of a call whose blocks are uniform (count) or
 * given per process (counts, displs in elements): its count and place. */
static MPI_Count side_count(const MPI_Count *counts, MPI_Count count, int j)
{
    return counts ? counts[j] : count;
}

static MPI_Aint side_disp(const MPI_Aint *displs, MPI_Count count, int j)
{
    return displs ? displs[j] : (MPI_Aint)(j * count);
}

/* Block j of the receive buffer (allgather(v), gather, alltoall(v)): its
 * address and element count of a->rdt. */
static char *rblock(const dmpi_coll_args *a, int j, MPI_Count *n)
{
    *n = side_count(a->rcounts, a->rcount, j);
    return dmpi_coll_at(a->rbuf, side_disp(a->rdispls, a->rcount, j), a->rdt);
}

/* The p packed blocks of t (node-major order, laid out as packed_at) into
 * a->rbuf in comm rank order, leaving out block `skip` (in place: already
 * there). */
static void unpack_in_comm_order(const hier *h, const dmpi_coll_args *a,
                                 const unsigned char *t, const MPI_Count *off, MPI_Count blk,
                                 int skip)
{
    for (int q = 0; q < h->p; q++) {
        int j = h->order[q];
        if (j == skip) continue;
        MPI_Count n, at = packed_at(off, blk, q);
        char *dst = rblock(a, j, &n);
        dmpi_dt_unpack(dst, n, a->rdt, 0, t + at, packed_at(off, blk, q + 1) - at);
    }
}

/* The node-major prefix sums of the allgatherv blocks' bytes (p + 1). */
static MPI_Count *v_offsets(const hier *h, const dmpi_coll_args *a)
{
    MPI_Count *off = malloc((size_t)(h->p + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (int q = 0; q < h->p; q++) off[q + 1] = off[q] + a->rcounts[h->order[q]] * a->rdt->size;
    return off;
}

/* ------------------------------------------------------ allgather(v)
 * Everyone packs its block at its node-major place in a temporary of all
 * the blocks; the node gathers to its leader (allgatherv: an allgatherv
 * in the node, with the node's block sizes), the leaders allgatherv the
 * node runs, the node
 * bcasts the whole; everyone unpacks in comm order (allgatherv: each block
 * at its own displacement; zero-sized blocks take no room). */
static int allgather(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int me = c->rank, k = h->myk, ns = h->node_size[k], q0 = h->node_start[k];
    bool lead = h->myl == 0, in_place = a->sbuf == MPI_IN_PLACE;
    bool v = a->coll == DMPI_COLL_ALLGATHERV;
    MPI_Count blk = v ? 0 : a->rcount * a->rdt->size;
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count *off = v ? v_offsets(h, a) : NULL;
    MPI_Count total = v ? (off ? off[h->p] : 0) : h->p * blk;
    unsigned char *t = total > 0 ? bytes_tmp(total) : NULL;
    MPI_Count *counts = NULL, *vc = NULL;
    MPI_Aint *displs = NULL, *vd = NULL;
    bool ok = t && (!lead || node_counts(h, off, blk, &counts, &displs) == MPI_SUCCESS);
    if (ok && v) { /* the node's blocks, relative to its run */
        vc = malloc((size_t)ns * sizeof *vc);
        vd = malloc((size_t)ns * sizeof *vd);
        ok = vc && vd;
        for (int l = 0; ok && l < ns; l++) {
            vd[l] = (MPI_Aint)(off[q0 + l] - off[q0]);
            vc[l] = off[q0 + l + 1] - off[q0 + l];
        }
    }
    int rc = MPI_ERR_NO_MEM;
    if (!ok) goto out;
    unsigned char *node_run = t + packed_at(off, blk, q0);
    unsigned char *mine = t + packed_at(off, blk, q0 + h->myl);
    MPI_Count myb = packed_at(off, blk, q0 + h->myl + 1) - (mine - t);
    if (in_place) {
        MPI_Count n;
        char *src = rblock(a, me, &n);
        dmpi_dt_pack(src, n, a->rdt, 0, mine, myb);
    } else {
        dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, mine, myb);
    }
    /* allgatherv: an allgatherv in the node (a gatherv would go
     * point-to-point; this one takes the shared-memory paths) */
    rc = run(h->node, (dmpi_coll_args){.coll = v ? DMPI_COLL_ALLGATHERV : DMPI_COLL_GATHER,
                                       .sbuf = lead || v ? MPI_IN_PLACE : mine, .scount = myb,
                                       .sdt = byte, .rbuf = node_run, .rcount = blk,
                                       .rcounts = vc, .rdispls = vd, .rdt = byte, .root = 0});
    if (lead)
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_ALLGATHERV,
                                                    .sbuf = MPI_IN_PLACE, .rbuf = t,
                                                    .rcounts = counts, .rdispls = displs,
                                                    .rdt = byte}));
    keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = t,
                                            .rcount = total, .rdt = byte, .root = 0}));
    if (rc == MPI_SUCCESS)
        unpack_in_comm_order(h, a, t, off, blk, in_place ? me : -1);
out:
    free(off);
    free(counts);
    free(displs);
    free(vc);
    free(vd);
    free(t);
    return rc;
}

/* The buffers of a rooted gather or scatter: t holds the p blocks at the
 * root's leader and the root, the node's run at other leaders, the own
 * block elsewhere; leaders have the leader phase's counts and
 * displacements; a root that does not lead its node, those of the
 * hand-over from its leader (everything in one piece at 0). */
typedef struct rooted_bufs {
    unsigned char *t;
    MPI_Count *counts, *vc;
    MPI_Aint *displs, *vd;
} rooted_bufs;

static void rooted_free(rooted_bufs *b)
{
    free(b->t);
    free(b->counts);
    free(b->displs);
    free(b->vc);
    free(b->vd);
}

static int rooted_alloc(hier *h, int rk, bool lead, bool is_root, bool hand,
                        MPI_Count blk, rooted_bufs *b)
{
    *b = (rooted_bufs){0};
    int ns = h->node_size[h->myk];
    MPI_Count tn = lead || is_root ? (h->myk == rk ? h->p : ns) : 1;
    b->t = bytes_tmp(tn * blk);
    bool ok = b->t &&
              (!lead || node_counts(h, NULL, blk, &b->counts, &b->displs) == MPI_SUCCESS);
    if (ok && hand && is_root) {
        b->vc = calloc((size_t)ns, sizeof *b->vc);
        b->vd = calloc((size_t)ns, sizeof *b->vd);
        ok = b->vc && b->vd;
        if (ok) b->vc[0] = h->p * blk;
    }
    if (ok) return MPI_SUCCESS;
    rooted_free(b);
    return MPI_ERR_NO_MEM;
}

/* ------------------------------------------------------------ gather
 * Node gathers to leaders (packed), leaders gatherv to the root's leader
 * in node-major order; when the root does not lead its node, its leader
 * then hands it the whole (a gatherv in the node where only the leader
 * sends); the root unpacks in comm order. */
static int gather(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int p = h->p, me = c->rank, root = a->root, rk = h->node_idx[root];
    bool lead = h->myl == 0, is_root = me == root;
    bool in_place = is_root && a->sbuf == MPI_IN_PLACE;
    bool root_leads = root == h->leader[rk];
    MPI_Count blk = block_bytes(a, me);
    dmpi_datatype *byte = dmpi_coll_byte();
    bool hand = !root_leads && h->myk == rk; /* the leader -> root step */
    int ns = h->node_size[h->myk];
    rooted_bufs bufs;
    if (rooted_alloc(h, rk, lead, is_root, hand, blk, &bufs) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    unsigned char *t = bufs.t;
    MPI_Count *counts = bufs.counts, *vc = bufs.vc;
    MPI_Aint *displs = bufs.displs, *vd = bufs.vd;
    /* node run: at its node-major place in the root's node, at 0 elsewhere */
    unsigned char *node_run = h->myk == rk && (lead || is_root) ? t + h->node_start[rk] * blk : t;
    unsigned char *mine = lead || is_root ? node_run + h->myl * blk : t;
    if (in_place)
        dmpi_dt_pack(dmpi_coll_at(a->rbuf, (MPI_Count)me * a->rcount, a->rdt), a->rcount,
                     a->rdt, 0, mine, blk);
    else
        dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, mine, blk);
    int rc = run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_GATHER,
                                           .sbuf = lead ? MPI_IN_PLACE : mine, .scount = blk,
                                           .sdt = byte, .rbuf = node_run, .rcount = blk,
                                           .rdt = byte, .root = 0});
    if (lead) {
        bool at_rk = h->myk == rk;
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_GATHERV,
                                                    .sbuf = at_rk ? MPI_IN_PLACE : t,
                                                    .scount = ns * blk, .sdt = byte,
                                                    .rbuf = t, .rcounts = counts,
                                                    .rdispls = displs, .rdt = byte,
                                                    .root = rk}));
    }
    if (hand)
        keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_GATHERV, .sbuf = t,
                                                .scount = lead ? p * blk : 0, .sdt = byte,
                                                .rbuf = t, .rcounts = vc, .rdispls = vd,
                                                .rdt = byte, .root = h->local_idx[root]}));
    if (is_root && rc == MPI_SUCCESS)
        unpack_in_comm_order(h, a, t, NULL, blk, in_place ? me : -1);
    rooted_free(&bufs);
    return rc;
}

/* ----------------------------------------------------------- scatter
 * The mirror of gather: the root packs in node-major order, hands the
 * whole to its leader when it does not lead its node, the leaders scatterv
 * node runs, each node scatters from its leader; everyone unpacks its
 * block. */
static int scatter(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int p = h->p, me = c->rank, root = a->root, rk = h->node_idx[root];
    bool lead = h->myl == 0, is_root = me == root;
    bool in_place = is_root && a->rbuf == MPI_IN_PLACE;
    bool root_leads = root == h->leader[rk];
    bool hand = !root_leads && h->myk == rk;
    MPI_Count blk = block_bytes(a, me);
    dmpi_datatype *byte = dmpi_coll_byte();
    int ns = h->node_size[h->myk];
    rooted_bufs bufs;
    if (rooted_alloc(h, rk, lead, is_root, hand, blk, &bufs) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    unsigned char *t = bufs.t;
    MPI_Count *counts = bufs.counts, *vc = bufs.vc;
    MPI_Aint *displs = bufs.displs, *vd = bufs.vd;
    if (is_root)
        for (int q = 0; q < p; q++)
            dmpi_dt_pack(dmpi_coll_at(a->sbuf, (MPI_Count)h->order[q] * a->scount, a->sdt),
                         a->scount, a->sdt, 0, t + q * blk, blk);
    int rc = MPI_SUCCESS;
    if (hand) /* root -> its leader, in the node */
        keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_SCATTERV, .sbuf = t,
                                                .scounts = vc, .sdispls = vd, .sdt = byte,
                                                .rbuf = t, .rcount = lead ? p * blk : 0,
                                                .rdt = byte, .root = h->local_idx[root]}));
    unsigned char *node_run = h->myk == rk && (lead || is_root) ? t + h->node_start[rk] * blk : t;
    if (lead) {
        bool at_rk = h->myk == rk;
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_SCATTERV, .sbuf = t,
                                                    .scounts = counts, .sdispls = displs,
                                                    .sdt = byte,
                                                    .rbuf = at_rk ? MPI_IN_PLACE : t,
                                                    .rcount = ns * blk, .rdt = byte,
                                                    .root = rk}));
    }
    unsigned char *mine = lead || is_root ? node_run + h->myl * blk : t;
    keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_SCATTER, .sbuf = node_run,
                                            .scount = blk, .sdt = byte,
                                            .rbuf = lead ? MPI_IN_PLACE : mine, .rcount = blk,
                                            .rdt = byte, .root = 0}));
    if (!in_place && rc == MPI_SUCCESS)
        dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0, mine, blk);
    rooted_free(&bufs);
    return rc;
}

/* ------------------------------------------------------- alltoall(v)
 * Between nodes x and y of n_x and n_y processes, the flat exchange sends
 * n_x * n_y messages each way; through the leaders it sends one, for the
 * price of copies at both ends (pack, gather, regroup by node; regroup by
 * process, scatter, unpack). A pair of nodes goes through its leaders
 * when the larger of its two combined messages is at most
 * unit * (n_x * n_y - 1) bytes, unit being DMPI_COLL_HIER_ALLTOALL: the
 * bytes of copying that one saved message is worth. So two one-process
 * nodes never combine, bigger nodes combine larger blocks, and large
 * blocks go flat (each process's own messages, no copies). A combined
 * message is also kept under A2A_PAIR_MAX / nodes, which bounds the
 * leader's temporaries. Both ends of a pair decide alike: each has its
 * node's sizes towards the other (alltoallv: a node allgather of every
 * member's send and receive sizes first; alltoall: from the arguments).
 * A node that combines with every other node also sends its internal
 * blocks through its leader (its processes then have no flat messages);
 * a block to oneself is always a local copy. Then:
 *   - everyone packs its combined blocks, destinations in node-major
 *     order; the node gathers them to its leader;
 *   - the leader regroups them by destination node (sender-major inside),
 *     the leaders run an alltoallv of the combined messages (empty where
 *     a pair does not combine: no message);
 *   - the leader regroups what it got by destination process (sources in
 *     node-major order); the node scatters; everyone unpacks;
 *   - the rest (every block that was not combined) is one flat alltoallv
 *     of c with zero counts for the combined blocks. */

#define A2A_PAIR_MAX ((MPI_Count)1 << 28) /* 256 MiB for all of a leader's pairs */

/* DMPI_COLL_HIER_ALLTOALL, read on first use; default 32 KiB: a saved
 * message across nodes costs about dmpi's 8-byte latency between hosts
 * (27 us over tcp, docs/results/2026-11-26-hosts), combining adds about 4
 * copies of every byte (pack, two regroups, unpack; gather and scatter
 * through shared memory replace sends that copy too) at 10-14 GB/s: the
 * break-even is 60-90 KB, halved for the leader doing its node's copies
 * alone and for faster fabrics (docs/results/2026-11-27-hier-a2a). */
static long a2a_unit = -1;

static long a2a_unit_get(void)
{
    if (a2a_unit < 0) a2a_unit = dmpi_knob(DMPI_KNOB_COLL_HIER_ALLTOALL);
    return a2a_unit;
}

typedef struct a2a {
    const hier *h;
    int p, ns, q0;   /* comm size; this node's size and first node-major place */
    MPI_Count blk;   /* alltoall: the bytes of every block */
    MPI_Count *rows; /* alltoallv: [ns][2][p] bytes local rank l sends to,
                      * receives from comm rank j */
    bool *agg;       /* [nn] this node's blocks with node y are combined */
    bool local;      /* and those inside the node */
} a2a;

static MPI_Count a2a_bytes(const a2a *x, int l, int recv, int j)
{
    return x->rows ? x->rows[((size_t)l * 2 + (size_t)recv) * (size_t)x->p + (size_t)j] : x->blk;
}

/* Whether the blocks between local rank l of this node and comm rank j
 * (both ways) go through the leaders. */
static bool a2a_via(const a2a *x, int l, int j)
{
    int y = x->h->node_idx[j];
    if (y != x->h->myk) return x->agg[y];
    return x->local && x->h->local_idx[j] != l;
}

static bool pair_combines(const hier *h, int kx, int ky, MPI_Count xy, MPI_Count yx)
{
    MPI_Count pairs = (MPI_Count)h->node_size[kx] * h->node_size[ky];
    MPI_Count big = xy > yx ? xy : yx;
    return pairs > 1 && big > 0 && big <= a2a_unit_get() * (pairs - 1) &&
           big <= A2A_PAIR_MAX / h->nn;
}

/* This node's choices (x->agg, x->local) from the sizes in x. */
static void a2a_decide(a2a *x)
{
    const hier *h = x->h;
    bool all = true;
    for (int y = 0; y < h->nn; y++) {
        if (y == h->myk) continue;
        MPI_Count out = 0, in = 0;
        for (int l = 0; l < x->ns; l++)
            for (int q = h->node_start[y]; q < h->node_start[y + 1]; q++) {
                out += a2a_bytes(x, l, 0, h->order[q]);
                in += a2a_bytes(x, l, 1, h->order[q]);
            }
        x->agg[y] = pair_combines(h, h->myk, y, out, in);
        all = all && x->agg[y];
    }
    x->local = all && x->ns > 1;
}

/* Block j of the send side (the receive buffer when in place). */
static char *sblock(const dmpi_coll_args *a, int j, MPI_Count *n, dmpi_datatype **dt)
{
    if (a->sbuf == MPI_IN_PLACE) {
        *dt = a->rdt;
        return rblock(a, j, n);
    }
    *dt = a->sdt;
    *n = side_count(a->scounts, a->scount, j);
    return dmpi_coll_at(a->sbuf, side_disp(a->sdispls, a->scount, j), a->sdt);
}

/* Bytes local rank l sends (recv 0) or receives (1) through the leaders. */
static MPI_Count a2a_via_bytes(const a2a *x, int l, int recv)
{
    MPI_Count n = 0;
    for (int j = 0; j < x->p; j++)
        if (a2a_via(x, l, j)) n += a2a_bytes(x, l, recv, j);
    return n;
}

/* The leader's plan: where each combined block lies in the gathered
 * buffer G (the members' packed blocks, one after the other) and in the
 * leaders' receive buffer Y, and the counts of every phase. */
typedef struct a2a_plan {
    MPI_Count *gat;  /* [ns][p] offset in G of block l -> order[q] */
    MPI_Count *yat;  /* [p][ns] offset in Y of block order[q] -> l */
    MPI_Count *nc;   /* [2][ns] gathered / scattered bytes per member */
    MPI_Aint *nd;    /* [2][ns] their displacements */
    MPI_Count *lc;   /* [2][nn] leaders' send / receive bytes per node */
    MPI_Aint *ld;    /* [2][nn] their displacements */
} a2a_plan;

static int a2a_plan_make(const a2a *x, a2a_plan *pl)
{
    const hier *h = x->h;
    int p = x->p, ns = x->ns, nn = h->nn;
    pl->gat = malloc((size_t)ns * (size_t)p * 2 * sizeof(MPI_Count));
    pl->nc = malloc((size_t)(2 * ns + 2 * nn) * sizeof(MPI_Count));
    pl->nd = malloc((size_t)(2 * ns + 2 * nn) * sizeof(MPI_Aint));
    if (!pl->gat || !pl->nc || !pl->nd) {
        free(pl->gat);
        free(pl->nc);
        free(pl->nd);
        return MPI_ERR_NO_MEM;
    }
    pl->yat = pl->gat + (size_t)ns * (size_t)p;
    pl->lc = pl->nc + 2 * ns;
    pl->ld = pl->nd + 2 * ns;
    /* G: member l's blocks in destination node-major order */
    MPI_Count at = 0;
    for (int l = 0; l < ns; l++) {
        pl->nd[l] = (MPI_Aint)at;
        for (int q = 0; q < p; q++) {
            int j = h->order[q];
            pl->gat[(size_t)l * p + q] = at;
            if (a2a_via(x, l, j)) at += a2a_bytes(x, l, 0, j);
        }
        pl->nc[l] = at - pl->nd[l];
    }
    /* the leaders' exchange: to node y, [l][j in y]; from y, [j in y][l] */
    MPI_Count sat = 0, rat = 0;
    for (int y = 0; y < nn; y++) {
        pl->ld[y] = (MPI_Aint)sat;
        pl->ld[nn + y] = (MPI_Aint)rat;
        bool on = y != h->myk && x->agg[y];
        for (int q = h->node_start[y]; q < h->node_start[y + 1]; q++)
            for (int l = 0; l < ns; l++) {
                int j = h->order[q];
                pl->yat[(size_t)q * ns + l] = rat;
                if (!on) continue;
                sat += a2a_bytes(x, l, 0, j);
                rat += a2a_bytes(x, l, 1, j);
            }
        pl->lc[y] = sat - (MPI_Count)pl->ld[y];
        pl->lc[nn + y] = rat - (MPI_Count)pl->ld[nn + y];
    }
    /* Z: member l's blocks in source node-major order */
    at = 0;
    for (int l = 0; l < ns; l++) {
        pl->nd[ns + l] = (MPI_Aint)at;
        at += a2a_via_bytes(x, l, 1);
        pl->nc[ns + l] = at - (MPI_Count)pl->nd[ns + l];
    }
    return MPI_SUCCESS;
}

/* The leader's regrouping: G -> S (by destination node) before the
 * leaders' exchange, G and Y -> Z (by destination member) after it. */
static void a2a_to_nodes(const a2a *x, const a2a_plan *pl, const unsigned char *g,
                         unsigned char *s)
{
    const hier *h = x->h;
    for (int y = 0; y < h->nn; y++) {
        if (y == h->myk || !x->agg[y]) continue;
        unsigned char *o = s + pl->ld[y];
        for (int l = 0; l < x->ns; l++)
            for (int q = h->node_start[y]; q < h->node_start[y + 1]; q++) {
                MPI_Count n = a2a_bytes(x, l, 0, h->order[q]);
                memcpy(o, g + pl->gat[(size_t)l * x->p + q], (size_t)n);
                o += n;
            }
    }
}

static void a2a_to_members(const a2a *x, const a2a_plan *pl, const unsigned char *g,
                           const unsigned char *y, unsigned char *z)
{
    const hier *h = x->h;
    for (int l = 0; l < x->ns; l++) {
        unsigned char *o = z + pl->nd[x->ns + l];
        for (int q = 0; q < x->p; q++) {
            int j = h->order[q];
            if (!a2a_via(x, l, j)) continue;
            MPI_Count n = a2a_bytes(x, l, 1, j);
            const unsigned char *from =
                h->node_idx[j] == h->myk
                    ? g + pl->gat[(size_t)(q - x->q0) * x->p + x->q0 + l] /* member's block to l */
                    : y + pl->yat[(size_t)q * x->ns + l];
            memcpy(o, from, (size_t)n);
            o += n;
        }
    }
}

/* Everyone's own part: pack the combined blocks (destinations in
 * node-major order) into out, or unpack them from in (sources likewise). */
static void a2a_pack(const a2a *x, const dmpi_coll_args *a, unsigned char *out, bool unpack)
{
    const hier *h = x->h;
    int me = h->myl;
    for (int q = 0; q < x->p; q++) {
        int j = h->order[q];
        if (!a2a_via(x, me, j)) continue;
        MPI_Count n, bytes = a2a_bytes(x, me, unpack, j);
        dmpi_datatype *dt = a->rdt;
        if (unpack) {
            char *dst = rblock(a, j, &n);
            dmpi_dt_unpack(dst, n, dt, 0, out, bytes);
        } else {
            const char *src = sblock(a, j, &n, &dt);
            dmpi_dt_pack(src, n, dt, 0, out, bytes);
        }
        out += bytes;
    }
}

/* The flat part: every block that was not combined, as one alltoallv of c
 * (all of c takes part, possibly with nothing to move). */
static int a2a_flat(dmpi_comm *c, const a2a *x, const dmpi_coll_args *a)
{
    int p = x->p, me = x->h->myl;
    MPI_Count *cnt = malloc((size_t)(2 * p) * sizeof *cnt);
    MPI_Aint *dsp = malloc((size_t)(2 * p) * sizeof *dsp);
    if (!cnt || !dsp) {
        free(cnt);
        free(dsp);
        return MPI_ERR_NO_MEM;
    }
    for (int j = 0; j < p; j++) {
        bool via = a2a_via(x, me, j);
        cnt[j] = via ? 0 : side_count(a->scounts, a->scount, j);
        dsp[j] = side_disp(a->sdispls, a->scount, j);
        cnt[p + j] = via ? 0 : side_count(a->rcounts, a->rcount, j);
        dsp[p + j] = side_disp(a->rdispls, a->rcount, j);
    }
    int rc = dmpi_coll_run_sched(c, &(dmpi_coll_args){.coll = DMPI_COLL_ALLTOALLV,
                                                      .sbuf = a->sbuf, .scounts = cnt,
                                                      .sdispls = dsp, .sdt = a->sdt,
                                                      .rbuf = a->rbuf, .rcounts = cnt + p,
                                                      .rdispls = dsp + p, .rdt = a->rdt});
    free(cnt);
    free(dsp);
    return rc;
}

/* Whether an alltoall of blk-byte blocks combines anything: the pairs of
 * the largest node with the others are the likeliest to (exact enough:
 * a call that combines nothing is still right, the flat part does it). */
static bool a2a_wanted(const hier *h, MPI_Count blk)
{
    int big = 0;
    for (int y = 1; y < h->nn; y++)
        if (h->node_size[y] > h->node_size[big]) big = y;
    for (int y = 0; y < h->nn; y++) {
        MPI_Count pair = blk * h->node_size[big] * h->node_size[y];
        if (y != big && pair_combines(h, big, y, pair, pair)) return true;
    }
    return false;
}

static int alltoall(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int p = h->p, k = h->myk, ns = h->node_size[k], me = h->myl, nn = h->nn;
    bool lead = me == 0, v = a->coll == DMPI_COLL_ALLTOALLV;
    dmpi_datatype *byte = dmpi_coll_byte();
    a2a x = {.h = h, .p = p, .ns = ns, .q0 = h->node_start[k]};
    a2a_plan pl = {0};
    unsigned char *g = NULL, *s = NULL, *y = NULL, *z = NULL, *own = NULL;
    int rc = MPI_ERR_NO_MEM;
    x.agg = calloc((size_t)nn, sizeof *x.agg);
    if (v) x.rows = malloc((size_t)ns * 2 * (size_t)p * sizeof *x.rows);
    else x.blk = a->rcount * a->rdt->size;
    if (!x.agg || (v && !x.rows)) goto out;
    if (v) { /* the node's send and receive sizes, for the choices */
        MPI_Count *row = x.rows + (size_t)me * 2 * (size_t)p;
        for (int j = 0; j < p; j++) {
            MPI_Count n;
            dmpi_datatype *dt;
            sblock(a, j, &n, &dt);
            row[j] = n * dt->size;
            rblock(a, j, &n);
            row[p + j] = n * a->rdt->size;
        }
        rc = run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_ALLGATHER, .sbuf = MPI_IN_PLACE,
                                           .rbuf = x.rows,
                                           .rcount = 2 * p * (MPI_Count)sizeof *x.rows,
                                           .rdt = byte});
        if (rc != MPI_SUCCESS) goto out;
        rc = MPI_ERR_NO_MEM;
    }
    a2a_decide(&x);
    bool any = x.local;
    for (int yk = 0; yk < nn; yk++) any = any || x.agg[yk];
    MPI_Count mine_out = a2a_via_bytes(&x, me, 0), mine_in = a2a_via_bytes(&x, me, 1);
    if (lead) {
        if (a2a_plan_make(&x, &pl) != MPI_SUCCESS) goto out;
        g = malloc((size_t)(pl.nd[ns - 1] + pl.nc[ns - 1]) + 1);
        z = malloc((size_t)(pl.nd[2 * ns - 1] + pl.nc[2 * ns - 1]) + 1);
        s = malloc((size_t)(pl.ld[nn - 1] + pl.lc[nn - 1]) + 1);
        y = malloc((size_t)(pl.ld[2 * nn - 1] + pl.lc[2 * nn - 1]) + 1);
        if (!g || !z || !s || !y) goto out;
    } else if (!(own = malloc((size_t)(mine_out > mine_in ? mine_out : mine_in) + 1))) {
        goto out;
    }
    rc = MPI_SUCCESS;
    if (any) {
        a2a_pack(&x, a, lead ? g : own, false);
        keep(&rc, run(h->node, (dmpi_coll_args){.coll = v ? DMPI_COLL_GATHERV : DMPI_COLL_GATHER,
                                                .sbuf = lead ? MPI_IN_PLACE : own,
                                                .scount = mine_out, .sdt = byte, .rbuf = g,
                                                .rcount = mine_out, .rcounts = pl.nc,
                                                .rdispls = pl.nd, .rdt = byte, .root = 0}));
    }
    if (lead) {
        a2a_to_nodes(&x, &pl, g, s);
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_ALLTOALLV, .sbuf = s,
                                                    .scounts = pl.lc, .sdispls = pl.ld,
                                                    .sdt = byte, .rbuf = y,
                                                    .rcounts = pl.lc + nn,
                                                    .rdispls = pl.ld + nn, .rdt = byte}));
        a2a_to_members(&x, &pl, g, y, z);
    }
    if (any) {
        keep(&rc, run(h->node, (dmpi_coll_args){.coll = v ? DMPI_COLL_SCATTERV : DMPI_COLL_SCATTER,
                                                .sbuf = z, .scount = mine_in,
                                                .scounts = pl.nc ? pl.nc + ns : NULL,
                                                .sdispls = pl.nd ? pl.nd + ns : NULL,
                                                .sdt = byte, .rbuf = lead ? MPI_IN_PLACE : own,
                                                .rcount = mine_in, .rdt = byte, .root = 0}));
        if (rc == MPI_SUCCESS) a2a_pack(&x, a, lead ? z : own, true);
    }
    keep(&rc, a2a_flat(c, &x, a));
out:
    free(x.agg);
    free(x.rows);
    free(pl.gat);
    free(pl.nc);
    free(pl.nd);
    free(g);
    free(s);
    free(y);
    free(z);
    free(own);
    return rc;
}

/* ------------------------------------------------------------ choice */
/* Whether the collective a takes the hierarchy on a communicator of p
 * processes that could: only from arguments equal on every process. */
static bool wanted(const hier *h, const dmpi_coll_args *a, int p, int r)
{
    switch (a->coll) {
    case DMPI_COLL_BARRIER:
        return true;
    case DMPI_COLL_BCAST:
        return a->rcount * a->rdt->size > 0;
    case DMPI_COLL_REDUCE:
    case DMPI_COLL_ALLREDUCE:
        /* any fixed order of operands is allowed only for commutative ops
         * (built-in, or user ops created with commute = true) */
        return a->rcount > 0 && a->op && a->op->commutative;
    case DMPI_COLL_GATHER:
    case DMPI_COLL_SCATTER:
    case DMPI_COLL_ALLGATHER: {
        /* p packed blocks at some processes: keep that within reason */
        MPI_Count b = block_bytes(a, r);
        return b > 0 && b <= ((MPI_Count)1 << 30) / p;
    }
    case DMPI_COLL_ALLGATHERV: {
        MPI_Count total = 0;
        for (int j = 0; j < p; j++) total += a->rcounts[j] * a->rdt->size;
        return total > 0 && total <= (MPI_Count)1 << 30;
    }
    case DMPI_COLL_ALLTOALL:
        return a2a_wanted(h, a->rcount * a->rdt->size);
    case DMPI_COLL_ALLTOALLV: /* sizes differ between processes: decided inside */
        return a2a_unit_get() > 0;
    default:
        return false;
    }
}

/* The collectives whose phases go through phases (blocking or scheduled). */
static bool in_phases(phases *ph, dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    switch (a->coll) {
    case DMPI_COLL_BARRIER: barrier(ph, h); return true;
    case DMPI_COLL_BCAST: bcast(ph, h, a); return true;
    case DMPI_COLL_REDUCE: reduce(ph, c, h, a); return true;
    case DMPI_COLL_ALLREDUCE: allreduce(ph, h, a); return true;
    default: return false;
    }
}

/* The hierarchy for c if a collective may take it now without building
 * anything: NULL otherwise. */
static hier *usable(dmpi_comm *c, const dmpi_coll_args *a)
{
    if (knob < 0) knob = dmpi_knob(DMPI_KNOB_COLL_HIER) != 0;
    if (!knob || c->size < 3 || c->remote_group || c->coll_state || a->coll >= DMPI_COLL_NCOLLS)
        return NULL;
    hier *h = c->hier;
    if (!h) {
        if (dmpi_comm_on_one_node(c)) {
            c->hier = &not_hier;
            return NULL;
        }
        c->hier = h = tables(c);
    }
    if (h->state == H_NO || h->state == H_BUILDING) return NULL;
    return wanted(h, a, c->size, c->rank) ? h : NULL;
}

bool dmpi_coll_hier_sched(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    hier *h = usable(c, a);
    if (!h || h->state != H_READY) return false;
    phases ph = {.s = s, .rc = MPI_SUCCESS};
    if (!in_phases(&ph, c, h, a)) return false;
    if (ph.rc != MPI_SUCCESS) dmpi_sched_fail(s, ph.rc);
    return true;
}

bool dmpi_coll_hier_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc)
{
    hier *h = usable(c, a);
    if (!h) return false;
    if (h->state == H_TABLES && !build(c, h)) return false;
    phases ph = {.s = NULL, .rc = MPI_SUCCESS};
    if (in_phases(&ph, c, h, a)) {
        *rc = ph.rc;
        return true;
    }
    switch (a->coll) {
    case DMPI_COLL_ALLGATHER:
    case DMPI_COLL_ALLGATHERV: *rc = allgather(c, h, a); break;
    case DMPI_COLL_ALLTOALL:
    case DMPI_COLL_ALLTOALLV: *rc = alltoall(c, h, a); break;
    case DMPI_COLL_GATHER: *rc = gather(c, h, a); break;
    case DMPI_COLL_SCATTER: *rc = scatter(c, h, a); break;
    default: return false;
    }
    return true;
}
