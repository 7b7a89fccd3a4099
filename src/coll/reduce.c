/* MPI_Reduce: binomial tree. A commutative op uses a tree rooted at root;
 * a non-commutative one uses a tree rooted at rank 0, where every partial
 * result covers a contiguous range of ranks and is combined in rank order,
 * and rank 0 then hands the result to root. */
#include "coll/coll.h"

#include <stdlib.h>

int dmpi_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                     dmpi_op *op, int root, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, r = c->rank;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0) return MPI_SUCCESS;
    if (p == 1) return dmpi_coll_copy(mine, count, dt, rbuf, count, dt);

    int troot = op->commutative ? root : 0, vr = (r - troot + p) % p, rc = MPI_SUCCESS;
#define REAL(v) (((v) + troot) % p)
    if ((vr & 1) || vr + 1 >= p) {  /* a leaf sends its data to its parent as it is */
        rc = dmpi_coll_send(mine, count, dt, REAL(vr & (vr - 1)), tag, c);
    } else {
        void *b1 = NULL, *b2 = NULL;
        void *in = dmpi_coll_tmp(count, dt, &b1);
        void *acc = r == root ? rbuf : dmpi_coll_tmp(count, dt, &b2);
        if (!in || !acc) rc = MPI_ERR_NO_MEM;
        else if (acc != mine) rc = dmpi_coll_copy(mine, count, dt, acc, count, dt);
        for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
            if (vr & mask) {
                rc = dmpi_coll_send(acc, count, dt, REAL(vr - mask), tag, c);
                break;
            }
            if (vr + mask < p) {
                rc = dmpi_coll_recv(in, count, dt, REAL(vr + mask), tag, c);
                if (rc == MPI_SUCCESS) rc = dmpi_coll_combine(op, in, acc, count, dt, false);
            }
        }
        /* Non-commutative op with root != 0: rank 0 holds the result. */
        if (rc == MPI_SUCCESS && troot != root && r == troot)
            rc = dmpi_coll_send(acc, count, dt, root, tag, c);
        free(b1);
        free(b2);
    }
    if (rc == MPI_SUCCESS && troot != root && r == root)
        rc = dmpi_coll_recv(rbuf, count, dt, troot, tag, c);
#undef REAL
    return rc;
}
