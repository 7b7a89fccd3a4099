/* Intercommunicator collectives (MPI 4.1 section 6.2.2) as schedules. The
 * local phase of a collective runs on the group's local
 * intracommunicator (core/intercomm.h) with an intra algorithm of this
 * directory; traffic between the groups goes over the intercommunicator.
 * Rooted collectives: the root passes MPI_ROOT, the rest of its group
 * MPI_PROC_NULL (they take no part), the other group the root's rank.
 *  - Barrier: tree fan-in in each group, rank-0 token swap, fan-out.
 *  - Bcast: root -> remote rank 0 -> binomial bcast in the remote group.
 *  - Reduce: reduce in the remote group to its rank 0 -> root.
 *  - Allreduce, Reduce_scatter(_block), Allgather: a local reduce (gather)
 *    to rank 0, the two ranks 0 swap their group's result, then a local
 *    bcast (scatter) of what came from the other group.
 *  - Gather(v), Scatter(v), Allgatherv, Alltoall(v,w): direct messages
 *    between the processes of the two groups, one round. */
#include "coll/coll.h"
#include "core/intercomm.h"

typedef struct ctx {
    dmpi_comm *inter, *local;
    int itag, ltag;
    int p, q, r; /* local size, remote size, local rank */
} ctx;

static void on_local(dmpi_sched *s, const ctx *x) { dmpi_sched_use(s, x->local, x->ltag); }
static void on_inter(dmpi_sched *s, const ctx *x) { dmpi_sched_use(s, x->inter, x->itag); }

/* Rooted collectives: 1 at the root, 0 in the root's group, -1 in the other. */
static int role(int root) { return root == MPI_ROOT ? 1 : root == MPI_PROC_NULL ? 0 : -1; }

static void bcast(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    int who = role(a->root);
    if (who == 1) dmpi_sched_send(s, a->rbuf, a->rcount, a->rdt, 0);
    if (who != -1) return;
    if (x->r == 0) dmpi_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
    dmpi_sched_fence(s);
    on_local(s, x);
    dmpi_coll_args b = *a;
    b.root = 0;
    dmpi_build_bcast(s, x->local, &b);
}

static void reduce(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    int who = role(a->root);
    if (who == 1) dmpi_sched_recv(s, a->rbuf, a->rcount, a->rdt, 0);
    if (who != -1 || a->rcount == 0) return;
    void *tmp = x->r == 0 ? dmpi_sched_tmp(s, a->rcount, a->rdt) : NULL;
    if (x->r == 0 && !tmp) return;
    on_local(s, x);
    dmpi_coll_args b = *a;
    b.rbuf = tmp;
    b.root = 0;
    dmpi_build_reduce(s, x->local, &b);
    dmpi_sched_fence(s);
    on_inter(s, x);
    if (x->r == 0) dmpi_sched_send(s, tmp, a->rcount, a->rdt, a->root);
}

/* Local reduce of n elements of sbuf to rank 0, swap with the other
 * group's rank 0 (its vector into `theirs`), the reduced vector of the
 * other group is then at rank 0 in `theirs`. */
static void reduce_swap(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a, MPI_Count n,
                        void *theirs)
{
    void *mine = x->r == 0 ? dmpi_sched_tmp(s, n, a->rdt) : NULL;
    if (x->r == 0 && !mine) return;
    on_local(s, x);
    dmpi_coll_args b = {.coll = DMPI_COLL_REDUCE, .sbuf = a->sbuf, .rbuf = mine, .rcount = n,
                        .rdt = a->rdt, .op = a->op, .root = 0};
    dmpi_build_reduce(s, x->local, &b);
    dmpi_sched_fence(s);
    on_inter(s, x);
    if (x->r == 0) {
        dmpi_sched_send(s, mine, n, a->rdt, 0);
        dmpi_sched_recv(s, theirs, n, a->rdt, 0);
    }
    dmpi_sched_fence(s);
    on_local(s, x);
}

static void allreduce(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    if (a->rcount == 0) return;
    reduce_swap(s, x, a, a->rcount, a->rbuf);
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf, .rcount = a->rcount,
                        .rdt = a->rdt, .root = 0};
    dmpi_build_bcast(s, x->local, &b);
}

static void reduce_scatter(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    bool block = a->coll == DMPI_COLL_REDUCE_SCATTER_BLOCK;
    MPI_Count *counts = dmpi_sched_alloc(s, (size_t)x->p * sizeof *counts);
    MPI_Aint *displs = dmpi_sched_alloc(s, (size_t)x->p * sizeof *displs);
    if (!counts || !displs) return;
    MPI_Count n = 0;
    for (int i = 0; i < x->p; i++) {
        counts[i] = block ? a->rcount : a->rcounts[i];
        displs[i] = (MPI_Aint)n;
        n += counts[i];
    }
    if (n == 0) return;
    void *theirs = x->r == 0 ? dmpi_sched_tmp(s, n, a->rdt) : NULL;
    if (x->r == 0 && !theirs) return;
    reduce_swap(s, x, a, n, theirs);
    dmpi_coll_args b = {.coll = DMPI_COLL_SCATTERV, .sbuf = theirs, .scounts = counts,
                        .sdispls = displs, .sdt = a->rdt, .rbuf = a->rbuf,
                        .rcount = counts[x->r], .rdt = a->rdt, .root = 0};
    dmpi_build_scatterv(s, x->local, &b);
}

static void allgather(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count bb = a->scount * a->sdt->size;
    char *mine = NULL;
    if (x->r == 0 && !(mine = dmpi_sched_alloc(s, (size_t)(x->p * bb)))) return;
    on_local(s, x);
    dmpi_coll_args g = {.coll = DMPI_COLL_GATHER, .sbuf = a->sbuf, .scount = a->scount,
                        .sdt = a->sdt, .rbuf = mine, .rcount = bb, .rdt = byte, .root = 0};
    dmpi_build_gather(s, x->local, &g);
    dmpi_sched_fence(s);
    on_inter(s, x);
    MPI_Count n = a->rcount * x->q;
    if (x->r == 0) {
        dmpi_sched_send(s, mine, x->p * bb, byte, 0);
        dmpi_sched_recv(s, a->rbuf, n, a->rdt, 0);
    }
    dmpi_sched_fence(s);
    on_local(s, x);
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = a->rbuf, .rcount = n, .rdt = a->rdt,
                        .root = 0};
    dmpi_build_bcast(s, x->local, &b);
}

/* Gather(v), Scatter(v), Allgatherv, Alltoall(v,w): direct messages. */
static void direct(dmpi_sched *s, const ctx *x, const dmpi_coll_args *a)
{
    int who = role(a->root), q = x->q;
    const char *sb = a->sbuf;
    char *rb = a->rbuf;
    switch (a->coll) {
    case DMPI_COLL_GATHER:
    case DMPI_COLL_GATHERV:
        if (who == -1) dmpi_sched_send(s, sb, a->scount, a->sdt, a->root);
        if (who == 1)
            for (int i = 0; i < q; i++) {
                bool v = a->coll == DMPI_COLL_GATHERV;
                MPI_Aint at = v ? a->rdispls[i] : i * a->rcount;
                dmpi_sched_recv(s, dmpi_coll_at(rb, at, a->rdt), v ? a->rcounts[i] : a->rcount,
                                a->rdt, i);
            }
        break;
    case DMPI_COLL_SCATTER:
    case DMPI_COLL_SCATTERV:
        if (who == -1) dmpi_sched_recv(s, rb, a->rcount, a->rdt, a->root);
        if (who == 1)
            for (int i = 0; i < q; i++) {
                bool v = a->coll == DMPI_COLL_SCATTERV;
                MPI_Aint at = v ? a->sdispls[i] : i * a->scount;
                dmpi_sched_send(s, dmpi_coll_at(sb, at, a->sdt), v ? a->scounts[i] : a->scount,
                                a->sdt, i);
            }
        break;
    case DMPI_COLL_ALLGATHERV:
        for (int i = 0; i < q; i++) {
            int j = (x->r + i) % q; /* spread the load */
            dmpi_sched_recv(s, dmpi_coll_at(rb, a->rdispls[j], a->rdt), a->rcounts[j], a->rdt, j);
            dmpi_sched_send(s, sb, a->scount, a->sdt, j);
        }
        break;
    default: /* alltoall(v,w) */
        for (int i = 0; i < q; i++) {
            int j = (x->r + i) % q;
            switch (a->coll) {
            case DMPI_COLL_ALLTOALL:
                dmpi_sched_recv(s, dmpi_coll_at(rb, (MPI_Count)j * a->rcount, a->rdt), a->rcount,
                                a->rdt, j);
                dmpi_sched_send(s, dmpi_coll_at(sb, (MPI_Count)j * a->scount, a->sdt), a->scount,
                                a->sdt, j);
                break;
            case DMPI_COLL_ALLTOALLV:
                dmpi_sched_recv(s, dmpi_coll_at(rb, a->rdispls[j], a->rdt), a->rcounts[j], a->rdt,
                                j);
                dmpi_sched_send(s, dmpi_coll_at(sb, a->sdispls[j], a->sdt), a->scounts[j], a->sdt,
                                j);
                break;
            default:
                dmpi_sched_recv(s, rb + a->rdispls[j], a->rcounts[j], a->rdts[j], j);
                dmpi_sched_send(s, sb + a->sdispls[j], a->scounts[j], a->sdts[j], j);
                break;
            }
        }
        break;
    }
}

void dmpi_build_inter(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    ctx x = {c, dmpi_intercomm_local(c), 0, 0, c->size, c->remote_group->size, c->rank};
    if (!x.local) {
        dmpi_sched_fail(s, MPI_ERR_COMM);
        return;
    }
    x.itag = dmpi_coll_tag(c);
    x.ltag = dmpi_coll_tag(x.local);
    on_inter(s, &x);
    switch (a->coll) {
    case DMPI_COLL_BARRIER:
        on_local(s, &x);
        dmpi_build_tree_barrier(s, x.local, c, x.itag);
        break;
    case DMPI_COLL_BCAST: bcast(s, &x, a); break;
    case DMPI_COLL_REDUCE: reduce(s, &x, a); break;
    case DMPI_COLL_ALLREDUCE: allreduce(s, &x, a); break;
    case DMPI_COLL_REDUCE_SCATTER:
    case DMPI_COLL_REDUCE_SCATTER_BLOCK: reduce_scatter(s, &x, a); break;
    case DMPI_COLL_ALLGATHER: allgather(s, &x, a); break;
    case DMPI_COLL_SCAN:
    case DMPI_COLL_EXSCAN: dmpi_sched_fail(s, MPI_ERR_COMM); break;
    default: direct(s, &x, a); break;
    }
}
