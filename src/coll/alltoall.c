/* MPI_Alltoall. Small data: every send and receive posted at once (the
 * progress engine overlaps them). Large data: pairwise exchange, in step i
 * send to rank+i and receive from rank-i, one pair of blocks in flight.
 * MPI_IN_PLACE: a round-robin schedule in which, in round k, rank r swaps
 * with k - r (mod p), through a one-block temporary. */
#include "coll/coll.h"

#include <stdlib.h>

#define SBLK(i) dmpi_coll_at(sbuf, (MPI_Count)(i) * scount, sdt)
#define RBLK(i) dmpi_coll_at(rbuf, (MPI_Count)(i) * rcount, rdt)

static int alltoall_in_place(void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c,
                             int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    void *base;
    void *tmp = dmpi_coll_tmp(rcount, rdt, &base);
    if (!tmp) return MPI_ERR_NO_MEM;
    for (int k = 0; k < p && rc == MPI_SUCCESS; k++) {
        int peer = ((k - r) % p + p) % p;
        if (peer == r) continue;
        rc = dmpi_coll_copy(RBLK(peer), rcount, rdt, tmp, rcount, rdt);
        if (rc == MPI_SUCCESS)
            rc = dmpi_coll_sendrecv(tmp, rcount, rdt, peer, RBLK(peer), rcount, rdt, peer, tag, c);
    }
    free(base);
    return rc;
}

static int alltoall_linear(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                           MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c, int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS, n = 0;
    dmpi_request **reqs = malloc((size_t)(2 * p) * sizeof *reqs);
    if (!reqs) return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (r - i + p) % p, dst = (r + i) % p;
        rc = dmpi_coll_irecv(RBLK(src), rcount, rdt, src, tag, c, &reqs[n]);
        if (rc == MPI_SUCCESS) n++;
        if (rc == MPI_SUCCESS) rc = dmpi_coll_isend(SBLK(dst), scount, sdt, dst, tag, c, &reqs[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    int rc2 = dmpi_waitall(n, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int alltoall_pairwise(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                             MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c, int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (r - i + p) % p, dst = (r + i) % p;
        rc = dmpi_coll_sendrecv(SBLK(dst), scount, sdt, dst, RBLK(src), rcount, rdt, src, tag, c);
    }
    return rc;
}

int dmpi_coll_alltoall(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                       MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, r = c->rank;
    MPI_Count bytes = rcount * rdt->size * p;
    if (bytes == 0) return MPI_SUCCESS;
    if (sbuf == MPI_IN_PLACE) return p == 1 ? MPI_SUCCESS : alltoall_in_place(rbuf, rcount, rdt, c, tag);
    int rc = dmpi_coll_copy(SBLK(r), scount, sdt, RBLK(r), rcount, rdt);
    if (rc != MPI_SUCCESS || p == 1) return rc;
    if (dmpi_coll_choose(DMPI_COLL_ALLTOALL, bytes, p) == DMPI_ALLTOALL_LINEAR)
        return alltoall_linear(sbuf, scount, sdt, rbuf, rcount, rdt, c, tag);
    return alltoall_pairwise(sbuf, scount, sdt, rbuf, rcount, rdt, c, tag);
}
