/* MPI_Allgather and MPI_Allgatherv schedules. Allgather, small data:
 * recursive doubling when p is a power of two (log p exchanges of doubling
 * runs of blocks), else Bruck (log p rounds into a rotated packed buffer,
 * unrotated at the end). Large data: ring (p-1 steps, each passing one
 * block to the right neighbour). Allgatherv: ring, or for small data every
 * block sent straight to every process in one round (linear). */
#include "coll/coll.h"

#define BLK(i) dmpi_coll_at(rbuf, (MPI_Count)(i) * rcount, rdt)

static void allgather_ring(dmpi_sched *s, dmpi_comm *c, void *rbuf, MPI_Count rcount,
                           dmpi_datatype *rdt)
{
    int p = c->size, r = c->rank, left = (r - 1 + p) % p, right = (r + 1) % p;
    for (int i = 0; i < p - 1; i++) {
        int sb = (r - i + p) % p, rb = (r - i - 1 + p) % p;
        dmpi_sched_send(s, BLK(sb), rcount, rdt, right);
        dmpi_sched_recv(s, BLK(rb), rcount, rdt, left);
        dmpi_sched_fence(s);
    }
}

/* p a power of two: at distance d, swap the aligned runs of d blocks. */
static void allgather_rd(dmpi_sched *s, dmpi_comm *c, void *rbuf, MPI_Count rcount,
                         dmpi_datatype *rdt)
{
    int p = c->size, r = c->rank;
    for (int d = 1; d < p; d <<= 1) {
        int peer = r ^ d, mine = r & ~(d - 1), theirs = peer & ~(d - 1);
        dmpi_sched_send(s, BLK(mine), d * rcount, rdt, peer);
        dmpi_sched_recv(s, BLK(theirs), d * rcount, rdt, peer);
        dmpi_sched_fence(s);
    }
}

/* Bruck: tmp[i] holds block (r + i) % p; at distance d, send my first
 * min(d, p - d) blocks to r - d and append those of r + d. */
static void allgather_bruck(dmpi_sched *s, dmpi_comm *c, void *rbuf, MPI_Count rcount,
                            dmpi_datatype *rdt)
{
    int p = c->size, r = c->rank;
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count bb = rcount * rdt->size;
    char *tmp = dmpi_sched_alloc(s, (size_t)(p * bb));
    if (!tmp) return;
    dmpi_sched_copy(s, BLK(r), rcount, rdt, tmp, bb, byte);
    for (int d = 1; d < p; d <<= 1) {
        MPI_Count n = (d < p - d ? d : p - d) * bb;
        dmpi_sched_send(s, tmp, n, byte, (r - d + p) % p);
        dmpi_sched_recv(s, tmp + d * bb, n, byte, (r + d) % p);
        dmpi_sched_fence(s);
    }
    dmpi_sched_copy(s, tmp, (p - r) * bb, byte, BLK(r), (p - r) * rcount, rdt);
    dmpi_sched_copy(s, tmp + (p - r) * bb, r * bb, byte, rbuf, r * rcount, rdt);
}

void dmpi_build_allgather(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size;
    void *rbuf = a->rbuf;
    MPI_Count rcount = a->rcount;
    dmpi_datatype *rdt = a->rdt;
    if (a->sbuf != MPI_IN_PLACE)
        dmpi_sched_copy(s, a->sbuf, a->scount, a->sdt, BLK(c->rank), rcount, rdt);
    MPI_Count bytes = rcount * rdt->size * p;
    if (p == 1 || bytes == 0) return;
    dmpi_sched_fence(s);
    switch (dmpi_coll_choose(DMPI_COLL_ALLGATHER, bytes, p)) {
    case DMPI_ALLGATHER_RECURSIVE_DOUBLING:
        if (dmpi_coll_largest_pof2(p) == p) {
            allgather_rd(s, c, rbuf, rcount, rdt);
            break;
        }
        /* fall through */
    case DMPI_ALLGATHER_BRUCK: allgather_bruck(s, c, rbuf, rcount, rdt); break;
    default: allgather_ring(s, c, rbuf, rcount, rdt); break;
    }
}

#define VBLK(i) dmpi_coll_at(a->rbuf, a->rdispls[i], a->rdt)

void dmpi_build_allgatherv(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank;
    if (a->sbuf != MPI_IN_PLACE)
        dmpi_sched_copy(s, a->sbuf, a->scount, a->sdt, VBLK(r), a->rcounts[r], a->rdt);
    if (p == 1) return;
    MPI_Count total = 0;
    for (int i = 0; i < p; i++) total += a->rcounts[i];
    dmpi_sched_fence(s);
    if (dmpi_coll_choose(DMPI_COLL_ALLGATHERV, total * a->rdt->size, p) ==
        DMPI_ALLGATHERV_LINEAR) {
        for (int i = 1; i < p; i++) {
            int to = (r + i) % p, from = (r - i + p) % p;
            dmpi_sched_send(s, VBLK(r), a->rcounts[r], a->rdt, to);
            dmpi_sched_recv(s, VBLK(from), a->rcounts[from], a->rdt, from);
        }
        return;
    }
    int left = (r - 1 + p) % p, right = (r + 1) % p;
    for (int i = 0; i < p - 1; i++) {
        int sb = (r - i + p) % p, rb = (r - i - 1 + p) % p;
        dmpi_sched_send(s, VBLK(sb), a->rcounts[sb], a->rdt, right);
        dmpi_sched_recv(s, VBLK(rb), a->rcounts[rb], a->rdt, left);
        dmpi_sched_fence(s);
    }
}
