/* MPI_Barrier schedules. Dissemination: in round k (k = 1, 2, 4, ...) each
 * process signals rank+k and waits for rank-k; after ceil(log2 p) rounds
 * every process has heard, directly or not, from every other one. Tree:
 * zero-byte fan-in to rank 0 along a binomial tree, then fan-out; the
 * intercommunicator barrier puts a token swap between the two groups'
 * rank 0 in the middle. */
#include "coll/coll.h"

static void dissemination(dmpi_sched *s, dmpi_comm *c)
{
    int p = c->size, r = c->rank;
    for (int k = 1; k < p; k <<= 1) {
        dmpi_sched_send0(s, (r + k) % p);
        dmpi_sched_recv0(s, (r - k + p) % p);
        dmpi_sched_fence(s);
    }
}

void dmpi_build_tree_barrier(dmpi_sched *s, dmpi_comm *c, dmpi_comm *inter, int inter_tag)
{
    int p = c->size, r = c->rank, tag = 0;
    int low = 1; /* lowest set bit of r: children are r + m for m < low */
    while (low < p && !(r & low)) low <<= 1;
    for (int m = 1; m < low && r + m < p; m <<= 1) dmpi_sched_recv0(s, r + m);
    dmpi_sched_fence(s);
    if (r != 0) {
        dmpi_sched_send0(s, r - low);
        dmpi_sched_recv0(s, r - low);
    } else if (inter) {
        tag = inter_tag;
        dmpi_comm *local = dmpi_sched_comm(s);
        int ltag = dmpi_sched_tag(s);
        dmpi_sched_use(s, inter, tag);
        dmpi_sched_send0(s, 0);
        dmpi_sched_recv0(s, 0);
        dmpi_sched_use(s, local, ltag);
    }
    dmpi_sched_fence(s);
    for (int m = 1; m < low && r + m < p; m <<= 1) dmpi_sched_send0(s, r + m);
}

void dmpi_build_barrier(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    (void)a;
    if (c->size == 1) return;
    if (dmpi_coll_choose(DMPI_COLL_BARRIER, 0, c->size) == DMPI_BARRIER_TREE)
        dmpi_build_tree_barrier(s, c, NULL, 0);
    else
        dissemination(s, c);
}
