/* MPI_Gather. Small data: binomial tree; each process gathers its subtree's
 * blocks (relative ranks [vr, vr + subtree)) as one packed byte message and
 * passes it up, so the root receives log p messages. Large data: linear,
 * the root receives every block straight into place. */
#include "coll/coll.h"

#include <stdlib.h>

#define REAL(v) (((v) + root) % p)
#define BLK(buf, i, n, dt) dmpi_coll_at(buf, (MPI_Count)(i) * (n), dt)

/* Size of the subtree of relative rank vr (vr > 0). */
static int subtree(int vr, int p)
{
    int low = vr & -vr;
    return low < p - vr ? low : p - vr;
}

static int gather_linear(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                         MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c, int tag)
{
    int p = c->size, rc = MPI_SUCCESS, n = 0;
    if (c->rank != root) return dmpi_coll_send(sbuf, scount, sdt, root, tag, c);
    dmpi_request **reqs = malloc((size_t)p * sizeof *reqs);
    if (!reqs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root) {
            rc = dmpi_coll_irecv(BLK(rbuf, i, rcount, rdt), rcount, rdt, i, tag, c, &reqs[n]);
            if (rc == MPI_SUCCESS) n++;
        }
    int rc2 = dmpi_waitall(n, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int gather_binomial(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                           MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c, int tag)
{
    int p = c->size, vr = (c->rank - root + p) % p, rc = MPI_SUCCESS, n = 0;
    dmpi_datatype *byte = dmpi_coll_byte();
    bool is_root = vr == 0;
    MPI_Count bb = is_root ? rcount * rdt->size : scount * sdt->size; /* bytes per block */
    int have = is_root ? p : subtree(vr, p);
    char *tmp = NULL, *wrap = NULL;
    int wrap_first = 0, wrap_n = 0;
    if (!is_root) {
        if (!(tmp = malloc((size_t)(have * bb) + 1))) return MPI_ERR_NO_MEM;
        rc = dmpi_coll_copy(sbuf, scount, sdt, tmp, bb, byte);
    }
    /* Post the receives from all children: relative ranks vr + mask. */
    dmpi_request *reqs[32];
    int mask = 1;
    for (; mask < p && !(vr & mask) && rc == MPI_SUCCESS; mask <<= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        int k = subtree(child, p), first = REAL(child);
        if (!is_root) {
            rc = dmpi_coll_irecv(tmp + mask * bb, k * bb, byte, first, tag, c, &reqs[n]);
        } else if (first + k <= p) { /* straight into place */
            rc = dmpi_coll_irecv(BLK(rbuf, first, rcount, rdt), k * rcount, rdt, first, tag, c,
                                 &reqs[n]);
        } else { /* the subtree's blocks wrap past the last rank */
            if (!(wrap = malloc((size_t)(k * bb)))) rc = MPI_ERR_NO_MEM;
            else rc = dmpi_coll_irecv(wrap, k * bb, byte, first, tag, c, &reqs[n]);
            wrap_first = first;
            wrap_n = k;
        }
        if (rc == MPI_SUCCESS) n++;
    }
    int rc2 = dmpi_waitall(n, reqs);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc == MPI_SUCCESS && !is_root) /* pass the subtree's blocks up */
        rc = dmpi_coll_send(tmp, have * bb, byte, REAL(vr - mask), tag, c);
    if (rc == MPI_SUCCESS && wrap) {
        int k1 = p - wrap_first;
        dmpi_dt_unpack(BLK(rbuf, wrap_first, rcount, rdt), k1 * rcount, rdt, 0, wrap, k1 * bb);
        dmpi_dt_unpack(rbuf, (wrap_n - k1) * rcount, rdt, 0, wrap + k1 * bb, (wrap_n - k1) * bb);
    }
    free(tmp);
    free(wrap);
    return rc;
}

int dmpi_coll_gather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                     MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size, rc = MPI_SUCCESS;
    if (c->rank == root && sbuf != MPI_IN_PLACE)
        rc = dmpi_coll_copy(sbuf, scount, sdt, BLK(rbuf, root, rcount, rdt), rcount, rdt);
    if (rc != MPI_SUCCESS || p == 1) return rc;
    MPI_Count bytes = (c->rank == root ? rcount * rdt->size : scount * sdt->size) * p;
    if (bytes == 0) return MPI_SUCCESS;
    if (dmpi_coll_choose(DMPI_COLL_GATHER, bytes, p) == DMPI_GATHER_BINOMIAL)
        return gather_binomial(sbuf, scount, sdt, rbuf, rcount, rdt, root, c, tag);
    return gather_linear(sbuf, scount, sdt, rbuf, rcount, rdt, root, c, tag);
}
