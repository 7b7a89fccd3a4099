/* MPI_Allgather. Small data: recursive doubling when p is a power of two
 * (log p exchanges of doubling runs of blocks), else Bruck (log p rounds
 * into a rotated packed buffer, unrotated at the end). Large data: ring
 * (p-1 steps, each passing one block to the right neighbour). */
#include "coll/coll.h"

#include <stdlib.h>

#define BLK(i) dmpi_coll_at(rbuf, (MPI_Count)(i) * rcount, rdt)

static int allgather_ring(void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c, int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    int left = (r - 1 + p) % p, right = (r + 1) % p;
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int s = (r - i + p) % p, q = (r - i - 1 + p) % p;
        rc = dmpi_coll_sendrecv(BLK(s), rcount, rdt, right, BLK(q), rcount, rdt, left, tag, c);
    }
    return rc;
}

/* p a power of two: at distance d, swap the aligned runs of d blocks. */
static int allgather_rd(void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c, int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1) {
        int peer = r ^ d, mine = r & ~(d - 1), theirs = peer & ~(d - 1);
        rc = dmpi_coll_sendrecv(BLK(mine), d * rcount, rdt, peer, BLK(theirs), d * rcount, rdt,
                                peer, tag, c);
    }
    return rc;
}

/* Bruck: tmp[i] holds block (r + i) % p; at distance d, send my first
 * min(d, p - d) blocks to r - d and append those of r + d. */
static int allgather_bruck(void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c,
                           int tag)
{
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count bb = rcount * rdt->size;
    char *tmp = malloc((size_t)(p * bb));
    if (!tmp) return MPI_ERR_NO_MEM;
    dmpi_dt_pack(BLK(r), rcount, rdt, 0, tmp, bb);
    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1) {
        MPI_Count n = (d < p - d ? d : p - d) * bb;
        rc = dmpi_coll_sendrecv(tmp, n, byte, (r - d + p) % p, tmp + d * bb, n, byte, (r + d) % p,
                                tag, c);
    }
    if (rc == MPI_SUCCESS) {
        dmpi_dt_unpack(BLK(r), (p - r) * rcount, rdt, 0, tmp, (p - r) * bb);
        dmpi_dt_unpack(rbuf, r * rcount, rdt, 0, tmp + (p - r) * bb, r * bb);
    }
    free(tmp);
    return rc;
}

int dmpi_coll_allgather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                        MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, rc = MPI_SUCCESS;
    if (sbuf != MPI_IN_PLACE) rc = dmpi_coll_copy(sbuf, scount, sdt, BLK(c->rank), rcount, rdt);
    MPI_Count bytes = rcount * rdt->size * p;
    if (rc != MPI_SUCCESS || p == 1 || bytes == 0) return rc;
    switch (dmpi_coll_choose(DMPI_COLL_ALLGATHER, bytes, p)) {
    case DMPI_ALLGATHER_RECURSIVE_DOUBLING:
        if (dmpi_coll_largest_pof2(p) == p) return allgather_rd(rbuf, rcount, rdt, c, tag);
        /* fall through */
    case DMPI_ALLGATHER_BRUCK: return allgather_bruck(rbuf, rcount, rdt, c, tag);
    default: return allgather_ring(rbuf, rcount, rdt, c, tag);
    }
}
