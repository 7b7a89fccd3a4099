/* MPI_Scatter and MPI_Scatterv schedules, the mirror of gather.c.
 * Scatter, small data: binomial tree; each process receives its subtree's
 * blocks (relative ranks [vr, vr + subtree)) as one packed byte message,
 * keeps its own and forwards the rest. Large data and Scatterv: linear,
 * the root sends every block straight from its buffer. */
#include "coll/coll.h"

#define REAL(v) (((v) + root) % p)
#define BLK(buf, i, n, dt) dmpi_coll_at(buf, (MPI_Count)(i) * (n), dt)

static int subtree(int vr, int p)
{
    int low = vr & -vr;
    return low < p - vr ? low : p - vr;
}

static void scatter_linear(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    if (c->rank != root) {
        dmpi_sched_recv(s, a->rbuf, a->rcount, a->rdt, root);
        return;
    }
    for (int i = 0; i < p; i++)
        if (i != root)
            dmpi_sched_send(s, BLK(a->sbuf, i, a->scount, a->sdt), a->scount, a->sdt, i);
}

static void scatter_binomial(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root, vr = (c->rank - root + p) % p;
    dmpi_datatype *byte = dmpi_coll_byte(), *sdt = a->sdt;
    MPI_Count scount = a->scount;
    const void *sbuf = a->sbuf;
    bool is_root = vr == 0;
    MPI_Count bb = is_root ? scount * sdt->size : a->rcount * a->rdt->size; /* bytes per block */
    char *tmp = NULL;
    int mask = 1; /* after the search: the lowest set bit of vr (p at the root) */
    while (mask < p && !(vr & mask)) mask <<= 1;
    if (!is_root) {
        int have = subtree(vr, p);
        if (have == 1) { /* a leaf receives its block in place */
            dmpi_sched_recv(s, a->rbuf, a->rcount, a->rdt, REAL(vr - mask));
            return;
        }
        if (!(tmp = dmpi_sched_alloc(s, (size_t)(have * bb)))) return;
        dmpi_sched_recv(s, tmp, have * bb, byte, REAL(vr - mask));
        dmpi_sched_fence(s);
    }
    /* Send each child its subtree's blocks, the largest subtree first. */
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        int k = subtree(child, p), first = REAL(child);
        if (!is_root) {
            dmpi_sched_send(s, tmp + mask * bb, k * bb, byte, first);
        } else if (first + k <= p) { /* straight from the send buffer */
            dmpi_sched_send(s, BLK(sbuf, first, scount, sdt), k * scount, sdt, first);
        } else { /* the subtree's blocks wrap past the last rank: pack them */
            int k1 = p - first;
            char *wrap = dmpi_sched_alloc(s, (size_t)(k * bb));
            if (!wrap) return;
            dmpi_sched_copy(s, BLK(sbuf, first, scount, sdt), k1 * scount, sdt, wrap, k1 * bb,
                            byte);
            dmpi_sched_copy(s, sbuf, (k - k1) * scount, sdt, wrap + k1 * bb, (k - k1) * bb, byte);
            dmpi_sched_send(s, wrap, k * bb, byte, first);
        }
    }
    if (!is_root) dmpi_sched_copy(s, tmp, bb, byte, a->rbuf, a->rcount, a->rdt);
}

void dmpi_build_scatter(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    bool is_root = c->rank == root;
    if (is_root && a->rbuf != MPI_IN_PLACE)
        dmpi_sched_copy(s, BLK(a->sbuf, root, a->scount, a->sdt), a->scount, a->sdt, a->rbuf,
                        a->rcount, a->rdt);
    if (p == 1) return;
    MPI_Count bytes = (is_root ? a->scount * a->sdt->size : a->rcount * a->rdt->size) * p;
    if (bytes == 0) return;
    if (dmpi_coll_choose(DMPI_COLL_SCATTER, bytes, p) == DMPI_SCATTER_BINOMIAL)
        scatter_binomial(s, c, a);
    else
        scatter_linear(s, c, a);
}

void dmpi_build_scatterv(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    if (c->rank != root) {
        dmpi_sched_recv(s, a->rbuf, a->rcount, a->rdt, root);
        return;
    }
    for (int i = 0; i < p; i++) {
        const void *at = dmpi_coll_at(a->sbuf, a->sdispls[i], a->sdt);
        if (i != root) dmpi_sched_send(s, at, a->scounts[i], a->sdt, i);
        else if (a->rbuf != MPI_IN_PLACE)
            dmpi_sched_copy(s, at, a->scounts[i], a->sdt, a->rbuf, a->rcount, a->rdt);
    }
}
