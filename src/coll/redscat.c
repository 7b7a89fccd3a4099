/* MPI_Reduce_scatter and MPI_Reduce_scatter_block schedules.
 *  - reduce_scatterv (any op): the whole vector is reduced to rank 0 by
 *    the reduce schedule, then scattered (Scatterv) in blocks of
 *    recvcounts[i];
 *  - pairwise (commutative ops): in step i, send block r+i of my input to
 *    rank r+i and add block r of rank r-i's input to mine; p-1 steps of
 *    one block each.
 * With MPI_IN_PLACE the input vector is in recvbuf. */
#include "coll/coll.h"

static void reduce_scatterv(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a,
                            const MPI_Count *counts, const MPI_Aint *displs, MPI_Count total)
{
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *full = NULL;
    if (c->rank == 0 && !(full = dmpi_sched_tmp(s, total, a->rdt))) return;
    dmpi_coll_args red = {.coll = DMPI_COLL_REDUCE, .sbuf = in, .rbuf = full, .rcount = total,
                          .rdt = a->rdt, .op = a->op, .root = 0};
    dmpi_build_reduce(s, c, &red);
    dmpi_sched_fence(s);
    dmpi_coll_args sc = {.coll = DMPI_COLL_SCATTERV, .sbuf = full, .scounts = counts,
                         .sdispls = displs, .sdt = a->rdt, .rbuf = a->rbuf,
                         .rcount = counts[c->rank], .rdt = a->rdt, .root = 0};
    dmpi_build_scatterv(s, c, &sc);
}

static void pairwise(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a,
                     const MPI_Count *counts, const MPI_Aint *displs)
{
    int p = c->size, r = c->rank;
    dmpi_datatype *dt = a->rdt;
    bool in_place = a->sbuf == MPI_IN_PLACE;
    const void *in = in_place ? a->rbuf : a->sbuf;
    MPI_Count n = counts[r];
    void *acc = in_place ? dmpi_sched_tmp(s, n, dt) : a->rbuf;
    void *tmp = dmpi_sched_tmp(s, n, dt);
    if (!acc || !tmp) return;
    dmpi_sched_copy(s, dmpi_coll_at(in, displs[r], dt), n, dt, acc, n, dt);
    for (int i = 1; i < p; i++) {
        int to = (r + i) % p, from = (r - i + p) % p;
        dmpi_sched_send(s, dmpi_coll_at(in, displs[to], dt), counts[to], dt, to);
        dmpi_sched_recv(s, tmp, n, dt, from);
        dmpi_sched_fence(s);
        dmpi_sched_reduce(s, a->op, tmp, acc, n, dt);
    }
    if (in_place) dmpi_sched_copy(s, acc, n, dt, a->rbuf, n, dt);
}

void dmpi_build_reduce_scatter(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size;
    bool block = a->coll == DMPI_COLL_REDUCE_SCATTER_BLOCK;
    MPI_Count *counts = dmpi_sched_alloc(s, (size_t)p * sizeof *counts);
    MPI_Aint *displs = dmpi_sched_alloc(s, (size_t)p * sizeof *displs);
    if (!counts || !displs) return;
    MPI_Count total = 0;
    for (int i = 0; i < p; i++) {
        counts[i] = block ? a->rcount : a->rcounts[i];
        displs[i] = (MPI_Aint)total;
        total += counts[i];
    }
    if (total == 0) return;
    if (p == 1) {
        if (a->sbuf != MPI_IN_PLACE)
            dmpi_sched_copy(s, a->sbuf, total, a->rdt, a->rbuf, total, a->rdt);
        return;
    }
    int algo = dmpi_coll_choose(block ? DMPI_COLL_REDUCE_SCATTER_BLOCK : DMPI_COLL_REDUCE_SCATTER,
                                total * a->rdt->size, p);
    if (algo == DMPI_REDUCE_SCATTER_PAIRWISE && a->op->commutative)
        pairwise(s, c, a, counts, displs);
    else
        reduce_scatterv(s, c, a, counts, displs, total);
}

void dmpi_build_reduce_scatter_block(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    dmpi_build_reduce_scatter(s, c, a);
}
