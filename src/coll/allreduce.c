/* MPI_Allreduce schedules. With p = pof2 + rem processes (pof2 the largest
 * power of two <= p), the first 2*rem ranks fold in pairs (the even one
 * hands its data to the odd one and waits), leaving pof2 participants
 * numbered "newrank". Among them:
 *  - recursive doubling (small messages): log2(pof2) exchanges of the whole
 *    vector;
 *  - Rabenseifner (large): reduce-scatter by recursive halving, then
 *    allgather by recursive doubling, moving about 2n bytes per process.
 * Partial results always cover contiguous rank ranges and are combined in
 * rank order, so non-commutative ops are exact too. Finally the folded
 * ranks get the result back.
 * Ring (large, commutative ops; any p, no folding): a ring reduce-scatter
 * of p blocks followed by a ring allgather, 2(p-1) steps of n/p bytes. */
#include "coll/coll.h"


static void recursive_doubling(dmpi_sched *s, dmpi_comm *c, void *rbuf, void *tmp,
                               MPI_Count count, dmpi_datatype *dt, dmpi_op *op, int newrank,
                               int pof2, int rem)
{
    for (int d = 1; d < pof2; d <<= 1) {
        int peer = dmpi_coll_fold_rank(newrank ^ d, rem);
        dmpi_sched_send(s, rbuf, count, dt, peer);
        dmpi_sched_recv(s, tmp, count, dt, peer);
        dmpi_sched_fence(s);
        dmpi_sched_combine(s, op, tmp, rbuf, count, dt, (newrank & d) != 0);
    }
}

static void rabenseifner(dmpi_sched *s, dmpi_comm *c, void *rbuf, void *tmp, MPI_Count count,
                         dmpi_datatype *dt, dmpi_op *op, int newrank, int pof2, int rem)
{
    MPI_Count *disp = dmpi_coll_blocks(s, count, pof2);
    if (!disp) return;
#define AT(buf, b) dmpi_coll_at(buf, disp[b], dt)
#define N(lo, hi) (disp[hi] - disp[lo])
    /* Reduce-scatter: at distance d, keep one half of the blocks [lo, hi)
     * (the lower half if bit d of newrank is clear) and send the other. */
    int lo = 0, hi = pof2;
    for (int d = 1; d < pof2; d <<= 1) {
        int peer = dmpi_coll_fold_rank(newrank ^ d, rem), mid = (lo + hi) / 2;
        bool upper = (newrank & d) != 0;
        int klo = upper ? mid : lo, khi = upper ? hi : mid; /* kept */
        int slo = upper ? lo : mid, shi = upper ? mid : hi; /* sent */
        dmpi_sched_send(s, AT(rbuf, slo), N(slo, shi), dt, peer);
        dmpi_sched_recv(s, AT(tmp, klo), N(klo, khi), dt, peer);
        dmpi_sched_fence(s);
        dmpi_sched_combine(s, op, AT(tmp, klo), AT(rbuf, klo), N(klo, khi), dt, upper);
        lo = klo;
        hi = khi;
    }
    /* Allgather: undo the halvings in reverse order; the partner owns the
     * sibling range of the same size. */
    for (int d = pof2 / 2; d >= 1; d >>= 1) {
        int peer = dmpi_coll_fold_rank(newrank ^ d, rem), n = hi - lo;
        int plo = (newrank & d) ? lo - n : hi;
        dmpi_sched_send(s, AT(rbuf, lo), N(lo, hi), dt, peer);
        dmpi_sched_recv(s, AT(rbuf, plo), N(plo, plo + n), dt, peer);
        dmpi_sched_fence(s);
        if (plo < lo) lo = plo;
        hi = lo + 2 * n;
    }
}

static void ring(dmpi_sched *s, dmpi_comm *c, void *rbuf, void *tmp, MPI_Count count,
                 dmpi_datatype *dt, dmpi_op *op)
{
    int p = c->size, r = c->rank, left = (r - 1 + p) % p, right = (r + 1) % p;
    MPI_Count *disp = dmpi_coll_blocks(s, count, p);
    if (!disp) return;
    /* Step i: pass the partial sum of block r-i right, add the left
     * neighbour's partial sum of block r-i-1 to ours. At the end rank r
     * holds the whole sum of block r+1. */
    for (int i = 0; i < p - 1; i++) {
        int sb = (r - i + p) % p, rb = (r - i - 1 + p) % p;
        dmpi_sched_send(s, AT(rbuf, sb), N(sb, sb + 1), dt, right);
        dmpi_sched_recv(s, AT(tmp, rb), N(rb, rb + 1), dt, left);
        dmpi_sched_fence(s);
        dmpi_sched_reduce(s, op, AT(tmp, rb), AT(rbuf, rb), N(rb, rb + 1), dt);
    }
    for (int i = 0; i < p - 1; i++) {
        int sb = (r + 1 - i + p) % p, rb = (r - i + p) % p;
        dmpi_sched_send(s, AT(rbuf, sb), N(sb, sb + 1), dt, right);
        dmpi_sched_recv(s, AT(rbuf, rb), N(rb, rb + 1), dt, left);
        dmpi_sched_fence(s);
    }
#undef AT
#undef N
}

void dmpi_build_allreduce(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank;
    MPI_Count count = a->rcount;
    dmpi_datatype *dt = a->rdt;
    dmpi_op *op = a->op;
    void *rbuf = a->rbuf;
    if (a->sbuf != MPI_IN_PLACE) dmpi_sched_copy(s, a->sbuf, count, dt, rbuf, count, dt);
    if (p == 1 || count == 0) return;
    void *tmp = dmpi_sched_tmp(s, count, dt);
    if (!tmp) return;
    int algo = dmpi_coll_choose(DMPI_COLL_ALLREDUCE, count * dt->size, p);
    if (algo == DMPI_ALLREDUCE_RING && op->commutative && count >= p) {
        ring(s, c, rbuf, tmp, count, dt, op);
        return;
    }
    int pof2 = dmpi_coll_largest_pof2(p), rem = p - pof2, newrank;
    if (r < 2 * rem) { /* fold */
        if (r % 2 == 0) {
            dmpi_sched_send(s, rbuf, count, dt, r + 1);
            newrank = -1;
        } else {
            dmpi_sched_recv(s, tmp, count, dt, r - 1);
            dmpi_sched_fence(s);
            dmpi_sched_combine(s, op, tmp, rbuf, count, dt, true);
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    dmpi_sched_fence(s);
    if (newrank >= 0) {
        if (algo != DMPI_ALLREDUCE_RECURSIVE_DOUBLING && count >= pof2)
            rabenseifner(s, c, rbuf, tmp, count, dt, op, newrank, pof2, rem);
        else
            recursive_doubling(s, c, rbuf, tmp, count, dt, op, newrank, pof2, rem);
    }
    dmpi_sched_fence(s);
    if (r < 2 * rem) { /* unfold */
        if (r % 2) dmpi_sched_send(s, rbuf, count, dt, r - 1);
        else dmpi_sched_recv(s, rbuf, count, dt, r + 1);
    }
}
