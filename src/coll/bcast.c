/* MPI_Bcast. Small messages: binomial tree rooted at root. Large messages:
 * the root's data, as a byte stream cut into p chunks, is scattered down a
 * binomial tree and then completed by a ring allgather, which moves about
 * 2n bytes per process instead of n log p. */
#include "coll/coll.h"

#include <stdlib.h>

/* Ranks relative to the root: vr = 0 is the root. */
#define REAL(vr) (((vr) + root) % p)

static int bcast_binomial(void *buf, MPI_Count count, dmpi_datatype *dt, int root,
                          dmpi_comm *c, int tag)
{
    int p = c->size, vr = (c->rank - root + p) % p, mask = 1, rc = MPI_SUCCESS;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            rc = dmpi_coll_recv(buf, count, dt, REAL(vr - mask), tag, c);
            if (rc != MPI_SUCCESS) return rc;
            break;
        }
    dmpi_request *reqs[32];
    int n = 0;
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (vr + mask < p) rc = dmpi_coll_isend(buf, count, dt, REAL(vr + mask), tag, c, &reqs[n++]);
    if (rc != MPI_SUCCESS) n--;
    int rc2 = dmpi_waitall(n, reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int bcast_scatter_ring(void *buf, MPI_Count count, dmpi_datatype *dt, int root,
                              dmpi_comm *c, int tag)
{
    int p = c->size, vr = (c->rank - root + p) % p, rc = MPI_SUCCESS;
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count n = count * dt->size, chunk = (n + p - 1) / p;
    char *tmp = NULL, *bytes = (char *)buf + dt->true_lb;
    if (!dt->contiguous) {
        if (!(tmp = malloc((size_t)n))) return MPI_ERR_NO_MEM;
        bytes = tmp;
        if (vr == 0) dmpi_dt_pack(buf, count, dt, 0, tmp, n);
    }
/* Byte offset of chunk k, and the length of chunks [a, b). */
#define OFF(k) ((MPI_Count)(k) * chunk < n ? (MPI_Count)(k) * chunk : n)
#define LEN(a, b) (OFF(b) - OFF(a))

    /* Scatter: the subtree of vr (ranks [vr, vr + lowest set bit)) gets
     * those chunks. */
    int mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            rc = dmpi_coll_recv(bytes + OFF(vr), LEN(vr, vr + mask), byte, REAL(vr - mask), tag, c);
            break;
        }
    dmpi_request *reqs[32];
    int nreq = 0;
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (vr + mask < p)
            rc = dmpi_coll_isend(bytes + OFF(vr + mask), LEN(vr + mask, vr + 2 * mask), byte,
                                 REAL(vr + mask), tag, c, &reqs[nreq++]);
    if (rc != MPI_SUCCESS) nreq--;
    int rc2 = dmpi_waitall(nreq, reqs);
    if (rc == MPI_SUCCESS) rc = rc2;

    /* Ring allgather: in step i, pass chunk vr-i right, take vr-i-1 from the left. */
    int left = REAL(vr - 1 + p), right = REAL(vr + 1);
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int s = (vr - i + p) % p, r = (vr - i - 1 + p) % p;
        rc = dmpi_coll_sendrecv(bytes + OFF(s), LEN(s, s + 1), byte, right, bytes + OFF(r),
                                LEN(r, r + 1), byte, left, tag, c);
    }
#undef OFF
#undef LEN
    if (tmp) {
        if (rc == MPI_SUCCESS && vr != 0) dmpi_dt_unpack(buf, count, dt, 0, tmp, n);
        free(tmp);
    }
    return rc;
}

int dmpi_coll_bcast(void *buf, MPI_Count count, dmpi_datatype *dt, int root, dmpi_comm *c)
{
    int tag = dmpi_coll_tag(c), p = c->size;
    MPI_Count bytes = count * dt->size;
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    if (dmpi_coll_choose(DMPI_COLL_BCAST, bytes, p) == DMPI_BCAST_SCATTER_RING && bytes >= p)
        return bcast_scatter_ring(buf, count, dt, root, c, tag);
    return bcast_binomial(buf, count, dt, root, c, tag);
}
