/* MPI_Scatter, the mirror of gather.c. Small data: binomial tree; each
 * process receives its subtree's blocks (relative ranks [vr, vr + subtree))
 * as one packed byte message, keeps its own and forwards the rest. Large
 * data: linear, the root sends every block straight from its buffer. */
#include "coll/coll.h"

#include <stdlib.h>

#define REAL(v) (((v) + root) % p)
#define BLK(buf, i, n, dt) dmpi_coll_at(buf, (MPI_Count)(i) * (n), dt)

static int subtree(int vr, int p)
{
    int low = vr & -vr;
    return low < p - vr ? low : p - vr;
}

static int scatter_linear(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                          MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c, int tag)
{
    int p = c->size, rc = MPI_SUCCESS, n = 0;
    if (c->rank != root) return dmpi_coll_recv(rbuf, rcount, rdt, root, tag, c);
    dmpi_request **reqs = malloc((size_t)p * sizeof *reqs);
    if (!reqs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root) {
            rc = dmpi_coll_isend(BLK(sbuf, i, scount, sdt), scount, sdt, i, tag, c, &reqs[n]);
            if (rc == MPI_SUCCESS) n++;
        }
    int rc2 = dmpi_waitall(n, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int scatter_binomial(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                            MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c, int tag)
{
    int p = c->size, vr = (c->rank - root + p) % p, rc = MPI_SUCCESS, n = 0;
    dmpi_datatype *byte = dmpi_coll_byte();
    bool is_root = vr == 0;
    MPI_Count bb = is_root ? scount * sdt->size : rcount * rdt->size; /* bytes per block */
    char *tmp = NULL, *wrap = NULL;
    int mask = 1; /* after the search: the lowest set bit of vr (p at the root) */
    while (mask < p && !(vr & mask)) mask <<= 1;
    if (!is_root) {
        int have = subtree(vr, p);
        if (have == 1) /* a leaf receives its block in place */
            return dmpi_coll_recv(rbuf, rcount, rdt, REAL(vr - mask), tag, c);
        if (!(tmp = malloc((size_t)(have * bb)))) return MPI_ERR_NO_MEM;
        rc = dmpi_coll_recv(tmp, have * bb, byte, REAL(vr - mask), tag, c);
    }
    /* Send each child its subtree's blocks, the largest subtree first. */
    dmpi_request *reqs[32];
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        int k = subtree(child, p), first = REAL(child);
        if (!is_root) {
            rc = dmpi_coll_isend(tmp + mask * bb, k * bb, byte, first, tag, c, &reqs[n]);
        } else if (first + k <= p) { /* straight from the send buffer */
            rc = dmpi_coll_isend(BLK(sbuf, first, scount, sdt), k * scount, sdt, first, tag, c,
                                 &reqs[n]);
        } else { /* the subtree's blocks wrap past the last rank: pack them */
            int k1 = p - first;
            if (!(wrap = malloc((size_t)(k * bb)))) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            dmpi_dt_pack(BLK(sbuf, first, scount, sdt), k1 * scount, sdt, 0, wrap, k1 * bb);
            dmpi_dt_pack(sbuf, (k - k1) * scount, sdt, 0, wrap + k1 * bb, (k - k1) * bb);
            rc = dmpi_coll_isend(wrap, k * bb, byte, first, tag, c, &reqs[n]);
        }
        if (rc == MPI_SUCCESS) n++;
    }
    int rc2 = dmpi_waitall(n, reqs);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc == MPI_SUCCESS && !is_root) rc = dmpi_coll_copy(tmp, bb, byte, rbuf, rcount, rdt);
    free(tmp);
    free(wrap);
    return rc;
}

int dmpi_coll_scatter(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                      MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, rc = MPI_SUCCESS;
    if (c->rank == root && rbuf != MPI_IN_PLACE)
        rc = dmpi_coll_copy(BLK(sbuf, root, scount, sdt), scount, sdt, rbuf, rcount, rdt);
    if (rc != MPI_SUCCESS || p == 1) return rc;
    MPI_Count bytes = (c->rank == root ? scount * sdt->size : rcount * rdt->size) * p;
    if (bytes == 0) return MPI_SUCCESS;
    if (dmpi_coll_choose(DMPI_COLL_SCATTER, bytes, p) == DMPI_SCATTER_BINOMIAL)
        return scatter_binomial(sbuf, scount, sdt, rbuf, rcount, rdt, root, c, tag);
    return scatter_linear(sbuf, scount, sdt, rbuf, rcount, rdt, root, c, tag);
}
