/* MPI_Bcast schedules. Small messages: binomial tree rooted at root. Large
 * messages: the root's data, as a byte stream cut into p chunks, is
 * scattered down a binomial tree and then completed by a ring allgather,
 * which moves about 2n bytes per process instead of n log p. */
#include "coll/coll.h"

/* Ranks relative to the root: vr = 0 is the root. */
#define REAL(vr) (((vr) + root) % p)

static void bcast_binomial(dmpi_sched *s, dmpi_comm *c, void *buf, MPI_Count count,
                           dmpi_datatype *dt, int root)
{
    int p = c->size, vr = (c->rank - root + p) % p, mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            dmpi_sched_recv(s, buf, count, dt, REAL(vr - mask));
            dmpi_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) dmpi_sched_send(s, buf, count, dt, REAL(vr + mask));
}

static void bcast_scatter_ring(dmpi_sched *s, dmpi_comm *c, void *buf, MPI_Count count,
                               dmpi_datatype *dt, int root)
{
    int p = c->size, vr = (c->rank - root + p) % p;
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count n = count * dt->size, chunk = (n + p - 1) / p;
    char *bytes = (char *)buf + dt->true_lb;
    if (!dt->contiguous) {
        if (!(bytes = dmpi_sched_alloc(s, (size_t)n))) return;
        if (vr == 0) dmpi_sched_copy(s, buf, count, dt, bytes, n, byte);
    }
/* Byte offset of chunk k, and the length of chunks [a, b). */
#define OFF(k) ((MPI_Count)(k) * chunk < n ? (MPI_Count)(k) * chunk : n)
#define LEN(a, b) (OFF(b) - OFF(a))
    /* Scatter: the subtree of vr (ranks [vr, vr + lowest set bit)) gets
     * those chunks. */
    int mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            dmpi_sched_recv(s, bytes + OFF(vr), LEN(vr, vr + mask), byte, REAL(vr - mask));
            dmpi_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            dmpi_sched_send(s, bytes + OFF(vr + mask), LEN(vr + mask, vr + 2 * mask), byte,
                            REAL(vr + mask));
    dmpi_sched_fence(s);
    /* Ring allgather: in step i, pass chunk vr-i right, take vr-i-1 from the left. */
    int left = REAL(vr - 1 + p), right = REAL(vr + 1);
    for (int i = 0; i < p - 1; i++) {
        int sc = (vr - i + p) % p, rc = (vr - i - 1 + p) % p;
        dmpi_sched_send(s, bytes + OFF(sc), LEN(sc, sc + 1), byte, right);
        dmpi_sched_recv(s, bytes + OFF(rc), LEN(rc, rc + 1), byte, left);
        dmpi_sched_fence(s);
    }
#undef OFF
#undef LEN
    if (!dt->contiguous && vr != 0) dmpi_sched_copy(s, bytes, n, byte, buf, count, dt);
}

void dmpi_build_bcast(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size;
    MPI_Count bytes = a->rcount * a->rdt->size;
    if (p == 1 || bytes == 0) return;
    if (dmpi_coll_choose(DMPI_COLL_BCAST, bytes, p) == DMPI_BCAST_SCATTER_RING && bytes >= p)
        bcast_scatter_ring(s, c, a->rbuf, a->rcount, a->rdt, a->root);
    else
        bcast_binomial(s, c, a->rbuf, a->rcount, a->rdt, a->root);
}
