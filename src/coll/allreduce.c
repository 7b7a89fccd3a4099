/* MPI_Allreduce. With p = pof2 + rem processes (pof2 the largest power of
 * two <= p), the first 2*rem ranks fold in pairs (the even one hands its
 * data to the odd one and waits), leaving pof2 participants numbered
 * "newrank". Among them:
 *  - recursive doubling (small messages): log2(pof2) exchanges of the whole
 *    vector;
 *  - Rabenseifner (large): reduce-scatter by recursive halving, then
 *    allgather by recursive doubling, moving about 2n bytes per process.
 * Partial results always cover contiguous rank ranges and are combined in
 * rank order, so non-commutative ops are exact too. Finally the folded
 * ranks get the result back. */
#include "coll/coll.h"

#include <stdlib.h>

/* Rank in comm of participant `newrank`. */
static int real_rank(int newrank, int rem)
{
    return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}

static int recursive_doubling(void *rbuf, void *tmp, MPI_Count count, dmpi_datatype *dt,
                              dmpi_op *op, dmpi_comm *c, int tag, int newrank, int pof2, int rem)
{
    int rc = MPI_SUCCESS;
    for (int d = 1; d < pof2 && rc == MPI_SUCCESS; d <<= 1) {
        int peer = real_rank(newrank ^ d, rem);
        rc = dmpi_coll_sendrecv(rbuf, count, dt, peer, tmp, count, dt, peer, tag, c);
        if (rc == MPI_SUCCESS) rc = dmpi_coll_combine(op, tmp, rbuf, count, dt, (newrank & d) != 0);
    }
    return rc;
}

static int rabenseifner(void *rbuf, void *tmp, MPI_Count count, dmpi_datatype *dt, dmpi_op *op,
                        dmpi_comm *c, int tag, int newrank, int pof2, int rem)
{
    /* The vector is cut into pof2 blocks; block b is elements [disp[b], disp[b+1]). */
    MPI_Count *disp = malloc((size_t)(pof2 + 1) * sizeof *disp);
    if (!disp) return MPI_ERR_NO_MEM;
    for (int b = 0; b <= pof2; b++)
        disp[b] = count / pof2 * b + (b < count % pof2 ? b : count % pof2);
#define AT(buf, b) dmpi_coll_at(buf, disp[b], dt)
#define N(lo, hi) (disp[hi] - disp[lo])

    /* Reduce-scatter: at distance d, keep one half of the blocks [lo, hi)
     * (the lower half if bit d of newrank is clear) and send the other. */
    int lo = 0, hi = pof2, rc = MPI_SUCCESS;
    for (int d = 1; d < pof2 && rc == MPI_SUCCESS; d <<= 1) {
        int peer = real_rank(newrank ^ d, rem), mid = (lo + hi) / 2;
        bool upper = (newrank & d) != 0;
        int klo = upper ? mid : lo, khi = upper ? hi : mid; /* kept */
        int slo = upper ? lo : mid, shi = upper ? mid : hi; /* sent */
        rc = dmpi_coll_sendrecv(AT(rbuf, slo), N(slo, shi), dt, peer, AT(tmp, klo), N(klo, khi),
                                dt, peer, tag, c);
        if (rc == MPI_SUCCESS)
            rc = dmpi_coll_combine(op, AT(tmp, klo), AT(rbuf, klo), N(klo, khi), dt, upper);
        lo = klo;
        hi = khi;
    }
    /* Allgather: undo the halvings in reverse order; the partner owns the
     * sibling range of the same size. */
    for (int d = pof2 / 2; d >= 1 && rc == MPI_SUCCESS; d >>= 1) {
        int peer = real_rank(newrank ^ d, rem), n = hi - lo;
        int plo = (newrank & d) ? lo - n : hi;
        rc = dmpi_coll_sendrecv(AT(rbuf, lo), N(lo, hi), dt, peer, AT(rbuf, plo),
                                N(plo, plo + n), dt, peer, tag, c);
        if (plo < lo) lo = plo;
        hi = lo + 2 * n;
    }
#undef AT
#undef N
    free(disp);
    return rc;
}

int dmpi_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                        dmpi_op *op, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, r = c->rank, rc = MPI_SUCCESS;
    if (sbuf != MPI_IN_PLACE) rc = dmpi_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (rc != MPI_SUCCESS || p == 1 || count == 0) return rc;

    void *base;
    void *tmp = dmpi_coll_tmp(count, dt, &base);
    if (!tmp) return MPI_ERR_NO_MEM;
    int pof2 = dmpi_coll_largest_pof2(p), rem = p - pof2, newrank;
    if (r < 2 * rem) { /* fold */
        if (r % 2 == 0) {
            rc = dmpi_coll_send(rbuf, count, dt, r + 1, tag, c);
            newrank = -1;
        } else {
            rc = dmpi_coll_recv(tmp, count, dt, r - 1, tag, c);
            if (rc == MPI_SUCCESS) rc = dmpi_coll_combine(op, tmp, rbuf, count, dt, true);
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    if (rc == MPI_SUCCESS && newrank >= 0) {
        int algo = dmpi_coll_choose(DMPI_COLL_ALLREDUCE, count * dt->size, p);
        if (algo == DMPI_ALLREDUCE_RABENSEIFNER && count >= pof2)
            rc = rabenseifner(rbuf, tmp, count, dt, op, c, tag, newrank, pof2, rem);
        else
            rc = recursive_doubling(rbuf, tmp, count, dt, op, c, tag, newrank, pof2, rem);
    }
    if (rc == MPI_SUCCESS && r < 2 * rem) { /* unfold */
        if (r % 2) rc = dmpi_coll_send(rbuf, count, dt, r - 1, tag, c);
        else rc = dmpi_coll_recv(rbuf, count, dt, r + 1, tag, c);
    }
    free(base);
    return rc;
}
