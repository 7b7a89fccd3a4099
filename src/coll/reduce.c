/* MPI_Reduce schedules.
 *  - binomial tree (small data). A commutative op uses a tree rooted at
 *    root; a non-commutative one uses a tree rooted at rank 0, where every
 *    partial result covers a contiguous range of ranks and is combined in
 *    rank order, and rank 0 then hands the result to root. An inner node
 *    receives all its children's data at once (into one temporary each)
 *    when that takes at most CHILD_BYTES, else one child after the other.
 *  - Rabenseifner (large data): as in allreduce.c, fold to a power of two
 *    and reduce-scatter by recursive halving; then, instead of the
 *    allgather, the blocks are gathered to the participant that stands for
 *    the root by undoing the halvings towards it, about 2n bytes per
 *    process in all instead of n log p at the root. Any op (ranges of ranks
 *    stay contiguous and are combined in order). */
#include "coll/coll.h"

#define CHILD_BYTES ((MPI_Count)1 << 20)

static void reduce_binomial(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank, root = a->root;
    MPI_Count count = a->rcount;
    dmpi_datatype *dt = a->rdt;
    dmpi_op *op = a->op;
    void *rbuf = a->rbuf;
    const void *mine = a->sbuf == MPI_IN_PLACE ? rbuf : a->sbuf;
    int troot = op->commutative ? root : 0, vr = (r - troot + p) % p;
#define REAL(v) (((v) + troot) % p)
    if ((vr & 1) || vr + 1 >= p) { /* a leaf sends its data to its parent as it is */
        dmpi_sched_send(s, mine, count, dt, REAL(vr & (vr - 1)));
    } else {
        void *acc = r == root ? rbuf : dmpi_sched_tmp(s, count, dt);
        if (!acc) return;
        if (acc != mine) dmpi_sched_copy(s, mine, count, dt, acc, count, dt);
        int low = 1, nchild = 0; /* children: vr + m for m < low */
        while (low < p && !(vr & low)) low <<= 1;
        for (int m = 1; m < low && vr + m < p; m <<= 1) nchild++;
        bool at_once = count * dt->size * nchild <= CHILD_BYTES;
        void *in[32];
        for (int k = 0; k < nchild; k++)
            if (!(in[k] = k == 0 || at_once ? dmpi_sched_tmp(s, count, dt) : in[0])) return;
        if (at_once) {
            for (int k = 0; k < nchild; k++)
                dmpi_sched_recv(s, in[k], count, dt, REAL(vr + (1 << k)));
            dmpi_sched_fence(s);
        }
        /* Child k covers the ranks just above those combined so far. */
        for (int k = 0; k < nchild; k++) {
            if (!at_once) {
                dmpi_sched_recv(s, in[k], count, dt, REAL(vr + (1 << k)));
                dmpi_sched_fence(s);
            }
            dmpi_sched_combine(s, op, in[k], acc, count, dt, false);
        }
        if (vr != 0) dmpi_sched_send(s, acc, count, dt, REAL(vr - low));
        else if (troot != root) dmpi_sched_send(s, acc, count, dt, root);
    }
    if (troot != root && r == root) {
        /* Non-commutative op with root != 0: rank 0 holds the result. */
        dmpi_sched_fence(s);
        dmpi_sched_recv(s, rbuf, count, dt, troot);
    }
#undef REAL
}

static void reduce_rabenseifner(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank, root = a->root;
    MPI_Count count = a->rcount;
    dmpi_datatype *dt = a->rdt;
    dmpi_op *op = a->op;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    int pof2 = dmpi_coll_largest_pof2(p), rem = p - pof2;
    /* the participant standing for the root */
    int vroot = root < 2 * rem ? root / 2 : root - rem, troot = dmpi_coll_fold_rank(vroot, rem);
    int newrank = r < 2 * rem ? (r % 2 ? r / 2 : -1) : r - rem;
    if (newrank < 0) { /* folded away: hand the data over (and wait if root) */
        dmpi_sched_send(s, mine, count, dt, r + 1);
        if (r == root) {
            dmpi_sched_fence(s);
            dmpi_sched_recv(s, a->rbuf, count, dt, troot);
        }
        return;
    }
    void *acc = r == root ? a->rbuf : dmpi_sched_tmp(s, count, dt);
    void *tmp = dmpi_sched_tmp(s, count, dt);
    MPI_Count *disp = dmpi_coll_blocks(s, count, pof2);
    if (!acc || !tmp || !disp) return;
    if (acc != mine) dmpi_sched_copy(s, mine, count, dt, acc, count, dt);
    if (r < 2 * rem) {
        dmpi_sched_recv(s, tmp, count, dt, r - 1);
        dmpi_sched_fence(s);
        dmpi_sched_combine(s, op, tmp, acc, count, dt, true);
    }
    dmpi_sched_fence(s);
#define AT(buf, b) dmpi_coll_at(buf, disp[b], dt)
#define N(lo, hi) (disp[hi] - disp[lo])
    int lo = 0, hi = pof2;
    for (int d = 1; d < pof2; d <<= 1) { /* reduce-scatter, as in allreduce.c */
        int peer = dmpi_coll_fold_rank(newrank ^ d, rem), mid = (lo + hi) / 2;
        bool upper = (newrank & d) != 0;
        int klo = upper ? mid : lo, khi = upper ? hi : mid;
        int slo = upper ? lo : mid, shi = upper ? mid : hi;
        dmpi_sched_send(s, AT(acc, slo), N(slo, shi), dt, peer);
        dmpi_sched_recv(s, AT(tmp, klo), N(klo, khi), dt, peer);
        dmpi_sched_fence(s);
        dmpi_sched_combine(s, op, AT(tmp, klo), AT(acc, klo), N(klo, khi), dt, upper);
        lo = klo;
        hi = khi;
    }
    /* Gather towards vroot: at distance d the one of each pair whose bit d
     * differs from vroot's sends its range and is done. */
    for (int d = pof2 / 2; d >= 1; d >>= 1) {
        int peer = dmpi_coll_fold_rank(newrank ^ d, rem), n = hi - lo;
        if ((newrank & d) != (vroot & d)) {
            dmpi_sched_send(s, AT(acc, lo), N(lo, hi), dt, peer);
            return;
        }
        int plo = (newrank & d) ? lo - n : hi;
        dmpi_sched_recv(s, AT(acc, plo), N(plo, plo + n), dt, peer);
        dmpi_sched_fence(s);
        if (plo < lo) lo = plo;
        hi = lo + 2 * n;
    }
#undef AT
#undef N
    if (r != root) dmpi_sched_send(s, acc, count, dt, root); /* troot for a folded root */
}

void dmpi_build_reduce(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size;
    MPI_Count count = a->rcount;
    if (count == 0) return;
    if (p == 1) {
        if (a->sbuf != MPI_IN_PLACE) dmpi_sched_copy(s, a->sbuf, count, a->rdt, a->rbuf, count, a->rdt);
        return;
    }
    if (dmpi_coll_choose(DMPI_COLL_REDUCE, count * a->rdt->size, p) == DMPI_REDUCE_RABENSEIFNER &&
        count >= dmpi_coll_largest_pof2(p))
        reduce_rabenseifner(s, c, a);
    else
        reduce_binomial(s, c, a);
}
