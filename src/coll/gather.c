/* MPI_Gather and MPI_Gatherv schedules. Gather, small data: binomial tree;
 * each process gathers its subtree's blocks (relative ranks
 * [vr, vr + subtree)) as one packed byte message and passes it up, so the
 * root receives log p messages. Large data and Gatherv: linear, the root
 * receives every block straight into place. */
#include "coll/coll.h"

#define REAL(v) (((v) + root) % p)
#define BLK(buf, i, n, dt) dmpi_coll_at(buf, (MPI_Count)(i) * (n), dt)

/* Size of the subtree of relative rank vr (vr > 0). */
static int subtree(int vr, int p)
{
    int low = vr & -vr;
    return low < p - vr ? low : p - vr;
}

static void gather_linear(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    if (c->rank != root) {
        dmpi_sched_send(s, a->sbuf, a->scount, a->sdt, root);
        return;
    }
    for (int i = 0; i < p; i++)
        if (i != root)
            dmpi_sched_recv(s, BLK(a->rbuf, i, a->rcount, a->rdt), a->rcount, a->rdt, i);
}

static void gather_binomial(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root, vr = (c->rank - root + p) % p;
    dmpi_datatype *byte = dmpi_coll_byte(), *rdt = a->rdt;
    MPI_Count rcount = a->rcount;
    void *rbuf = a->rbuf;
    bool is_root = vr == 0;
    MPI_Count bb = is_root ? rcount * rdt->size : a->scount * a->sdt->size; /* bytes per block */
    char *tmp = NULL;
    if (!is_root) {
        if (!(tmp = dmpi_sched_alloc(s, (size_t)(subtree(vr, p) * bb)))) return;
        dmpi_sched_copy(s, a->sbuf, a->scount, a->sdt, tmp, bb, byte);
    }
    /* Receive from all children (relative ranks vr + mask) at once. */
    char *wrap = NULL;
    int wrap_first = 0, wrap_n = 0, mask = 1;
    for (; mask < p && !(vr & mask); mask <<= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        int k = subtree(child, p), first = REAL(child);
        if (!is_root) {
            dmpi_sched_recv(s, tmp + mask * bb, k * bb, byte, first);
        } else if (first + k <= p) { /* straight into place */
            dmpi_sched_recv(s, BLK(rbuf, first, rcount, rdt), k * rcount, rdt, first);
        } else { /* the subtree's blocks wrap past the last rank */
            if (!(wrap = dmpi_sched_alloc(s, (size_t)(k * bb)))) return;
            dmpi_sched_recv(s, wrap, k * bb, byte, first);
            wrap_first = first;
            wrap_n = k;
        }
    }
    dmpi_sched_fence(s);
    if (!is_root) /* pass the subtree's blocks up */
        dmpi_sched_send(s, tmp, subtree(vr, p) * bb, byte, REAL(vr - mask));
    if (wrap) {
        int k1 = p - wrap_first;
        dmpi_sched_copy(s, wrap, k1 * bb, byte, BLK(rbuf, wrap_first, rcount, rdt), k1 * rcount,
                        rdt);
        dmpi_sched_copy(s, wrap + k1 * bb, (wrap_n - k1) * bb, byte, rbuf,
                        (wrap_n - k1) * rcount, rdt);
    }
}

void dmpi_build_gather(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    bool is_root = c->rank == root;
    if (is_root && a->sbuf != MPI_IN_PLACE)
        dmpi_sched_copy(s, a->sbuf, a->scount, a->sdt, BLK(a->rbuf, root, a->rcount, a->rdt),
                        a->rcount, a->rdt);
    if (p == 1) return;
    MPI_Count bytes = (is_root ? a->rcount * a->rdt->size : a->scount * a->sdt->size) * p;
    if (bytes == 0) return;
    if (dmpi_coll_choose(DMPI_COLL_GATHER, bytes, p) == DMPI_GATHER_BINOMIAL)
        gather_binomial(s, c, a);
    else
        gather_linear(s, c, a);
}

void dmpi_build_gatherv(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, root = a->root;
    if (c->rank != root) {
        dmpi_sched_send(s, a->sbuf, a->scount, a->sdt, root);
        return;
    }
    for (int i = 0; i < p; i++) {
        void *at = dmpi_coll_at(a->rbuf, a->rdispls[i], a->rdt);
        if (i != root) dmpi_sched_recv(s, at, a->rcounts[i], a->rdt, i);
        else if (a->sbuf != MPI_IN_PLACE)
            dmpi_sched_copy(s, a->sbuf, a->scount, a->sdt, at, a->rcounts[i], a->rdt);
    }
}
