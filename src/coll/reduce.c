/* MPI_Reduce schedule: binomial tree. A commutative op uses a tree rooted
 * at root; a non-commutative one uses a tree rooted at rank 0, where every
 * partial result covers a contiguous range of ranks and is combined in
 * rank order, and rank 0 then hands the result to root. An inner node
 * receives all its children's data at once (into one temporary each) when
 * that takes at most CHILD_BYTES, else one child after the other. */
#include "coll/coll.h"

#define CHILD_BYTES ((MPI_Count)1 << 20)

void dmpi_build_reduce(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank, root = a->root;
    MPI_Count count = a->rcount;
    dmpi_datatype *dt = a->rdt;
    dmpi_op *op = a->op;
    void *rbuf = a->rbuf;
    const void *mine = a->sbuf == MPI_IN_PLACE ? rbuf : a->sbuf;
    if (count == 0) return;
    if (p == 1) {
        if (a->sbuf != MPI_IN_PLACE) dmpi_sched_copy(s, mine, count, dt, rbuf, count, dt);
        return;
    }
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
