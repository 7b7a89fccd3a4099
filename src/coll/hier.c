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
 *     collectives (gather, scatter, allgather) hold blocks in this order.
 */
#include "coll/hier.h"
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
static int barrier(hier *h)
{
    int rc = run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER});
    if (h->leaders) keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER}));
    keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_BARRIER}));
    return rc;
}

/* ------------------------------------------------------------- bcast
 * The root's node first spreads the data in the node when the root is not
 * its leader; then the leaders; then every other node (and the root's, when
 * the root leads it) from its leader. One node phase per node. */
static int bcast(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int root = a->root, rk = h->node_idx[root];
    bool first = h->myk == rk && root != h->leader[rk];
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf, .rcount = a->rcount,
                        .rdt = a->rdt};
    int rc = MPI_SUCCESS;
    (void)c;
    if (first) {
        b.root = h->local_idx[root];
        keep(&rc, run(h->node, b));
    }
    if (h->leaders) {
        b.root = rk;
        keep(&rc, run(h->leaders, b));
    }
    if (!first) {
        b.root = 0;
        keep(&rc, run(h->node, b));
    }
    return rc;
}

/* ------------------------------------------------------------ reduce
 * Root leads its node: every node reduces to its leader, the leaders to the
 * root. Otherwise the other nodes do the same towards the root's leader,
 * which adds its own input (leaders phase) and brings the result into its
 * node's reduction to the root. Commutative ops only. */
static int reduce(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int root = a->root, rk = h->node_idx[root], me = c->rank;
    bool lead = h->myl == 0;
    dmpi_coll_args r = {.coll = DMPI_COLL_REDUCE, .rcount = a->rcount, .rdt = a->rdt,
                        .op = a->op};
    void *base = NULL, *tmp = NULL;
    if (lead && me != root) {
        tmp = dmpi_coll_tmp(a->rcount, a->rdt, &base);
        if (!tmp) return MPI_ERR_NO_MEM;
    }
    int rc = MPI_SUCCESS;
    if (h->myk != rk || root == h->leader[rk]) {
        /* node phase to the leader, then leaders to node rk's leader */
        r.sbuf = a->sbuf;
        r.rbuf = me == root ? a->rbuf : tmp;
        r.root = 0;
        keep(&rc, run(h->node, r));
        if (lead) {
            r.sbuf = me == root ? MPI_IN_PLACE : tmp;
            r.rbuf = me == root ? a->rbuf : NULL;
            r.root = rk;
            keep(&rc, run(h->leaders, r));
        }
    } else if (lead) {
        /* the root's node, root elsewhere in it: leaders, then node */
        r.sbuf = a->sbuf;
        r.rbuf = tmp;
        r.root = rk;
        keep(&rc, run(h->leaders, r));
        r.sbuf = tmp;
        r.rbuf = NULL;
        r.root = h->local_idx[root];
        keep(&rc, run(h->node, r));
    } else {
        r.sbuf = a->sbuf;
        r.rbuf = me == root ? a->rbuf : NULL;
        r.root = h->local_idx[root];
        keep(&rc, run(h->node, r));
    }
    free(base);
    return rc;
}

/* --------------------------------------------------------- allreduce
 * Reduce to the leaders, allreduce among them, bcast in the node: every
 * process gets the leaders' bits. */
static int allreduce(hier *h, const dmpi_coll_args *a)
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
    int rc = run(h->node, r);
    if (lead)
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_ALLREDUCE,
                                                    .sbuf = MPI_IN_PLACE, .rbuf = a->rbuf,
                                                    .rcount = a->rcount, .rdt = a->rdt,
                                                    .op = a->op}));
    keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf,
                                            .rcount = a->rcount, .rdt = a->rdt, .root = 0}));
    return rc;
}

/* The node-major byte counts and displacements of the nodes' packed
 * blocks (blk bytes per process), for the leaders' v-collectives. */
static int node_counts(hier *h, MPI_Count blk, MPI_Count **counts, MPI_Aint **displs)
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
        (*counts)[k] = h->node_size[k] * blk;
        (*displs)[k] = (MPI_Aint)(h->node_start[k] * blk);
    }
    return MPI_SUCCESS;
}

/* The p packed blocks of t (node-major order) into a->rbuf in comm rank
 * order, leaving out block `skip` (in place: already there). */
static void unpack_in_comm_order(const hier *h, const dmpi_coll_args *a,
                                 const unsigned char *t, MPI_Count blk, int skip)
{
    for (int q = 0; q < h->p; q++) {
        int j = h->order[q];
        if (j == skip) continue;
        dmpi_dt_unpack(dmpi_coll_at(a->rbuf, (MPI_Count)j * a->rcount, a->rdt), a->rcount,
                       a->rdt, 0, t + q * blk, blk);
    }
}

/* --------------------------------------------------------- allgather
 * Everyone packs its block at its node-major place in a p-block
 * temporary; the node gathers to its leader, the leaders allgatherv the
 * node runs, the node bcasts the whole; everyone unpacks in comm order. */
static int allgather(dmpi_comm *c, hier *h, const dmpi_coll_args *a)
{
    int p = h->p, me = c->rank;
    bool lead = h->myl == 0, in_place = a->sbuf == MPI_IN_PLACE;
    MPI_Count blk = a->rcount * a->rdt->size;
    dmpi_datatype *byte = dmpi_coll_byte();
    unsigned char *t = bytes_tmp(p * blk);
    MPI_Count *counts = NULL;
    MPI_Aint *displs = NULL;
    if (!t || (lead && node_counts(h, blk, &counts, &displs) != MPI_SUCCESS)) {
        free(t);
        return MPI_ERR_NO_MEM;
    }
    unsigned char *node_run = t + h->node_start[h->myk] * blk;
    unsigned char *mine = node_run + h->myl * blk;
    if (in_place)
        dmpi_dt_pack(dmpi_coll_at(a->rbuf, (MPI_Count)me * a->rcount, a->rdt), a->rcount,
                     a->rdt, 0, mine, blk);
    else
        dmpi_dt_pack(a->sbuf, a->scount, a->sdt, 0, mine, blk);
    int rc = run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_GATHER,
                                           .sbuf = lead ? MPI_IN_PLACE : mine, .scount = blk,
                                           .sdt = byte, .rbuf = node_run, .rcount = blk,
                                           .rdt = byte, .root = 0});
    if (lead)
        keep(&rc, run(h->leaders, (dmpi_coll_args){.coll = DMPI_COLL_ALLGATHERV,
                                                    .sbuf = MPI_IN_PLACE, .rbuf = t,
                                                    .rcounts = counts, .rdispls = displs,
                                                    .rdt = byte}));
    keep(&rc, run(h->node, (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = t,
                                            .rcount = p * blk, .rdt = byte, .root = 0}));
    if (rc == MPI_SUCCESS)
        unpack_in_comm_order(h, a, t, blk, in_place ? me : -1);
    free(counts);
    free(displs);
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
    bool ok = b->t && (!lead || node_counts(h, blk, &b->counts, &b->displs) == MPI_SUCCESS);
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
        unpack_in_comm_order(h, a, t, blk, in_place ? me : -1);
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

/* ------------------------------------------------------------ choice */
/* Whether the collective a takes the hierarchy on a communicator of p
 * processes that could: only from arguments equal on every process. */
static bool wanted(const dmpi_coll_args *a, int p, int r)
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
    default:
        return false;
    }
}

bool dmpi_coll_hier_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc)
{
    if (knob < 0) knob = dmpi_env_long("DMPI_COLL_HIER", 1) != 0;
    if (!knob || c->size < 3 || c->remote_group || c->coll_state || a->coll >= DMPI_COLL_NCOLLS)
        return false;
    hier *h = c->hier;
    if (!h) {
        if (dmpi_comm_on_one_node(c)) {
            c->hier = &not_hier;
            return false;
        }
        c->hier = h = tables(c);
    }
    if (h->state == H_NO || h->state == H_BUILDING) return false;
    if (!wanted(a, c->size, c->rank)) return false;
    if (h->state == H_TABLES && !build(c, h)) return false;
    switch (a->coll) {
    case DMPI_COLL_BARRIER: *rc = barrier(h); break;
    case DMPI_COLL_BCAST: *rc = bcast(c, h, a); break;
    case DMPI_COLL_REDUCE: *rc = reduce(c, h, a); break;
    case DMPI_COLL_ALLREDUCE: *rc = allreduce(h, a); break;
    case DMPI_COLL_ALLGATHER: *rc = allgather(c, h, a); break;
    case DMPI_COLL_GATHER: *rc = gather(c, h, a); break;
    case DMPI_COLL_SCATTER: *rc = scatter(c, h, a); break;
    default: return false;
    }
    return true;
}
