/* MPI_Scan and MPI_Exscan schedules: the shift form of recursive doubling.
 * In the round of distance d (1, 2, 4, ...) each rank sends its partial
 * result, the reduction of ranks [r - 2d + 1, r] ∩ [0, r], to r + d and
 * combines what r - d sent in front of its own (those ranks precede), so
 * non-commutative ops are exact. After ceil(log2 p) rounds rank r holds the
 * reduction of ranks 0..r; Exscan keeps the same ranges without its own
 * contribution in a separate result. */
#include "coll/coll.h"

void dmpi_build_scan(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank;
    MPI_Count n = a->rcount;
    dmpi_datatype *dt = a->rdt;
    if (a->sbuf != MPI_IN_PLACE) dmpi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt);
    if (p == 1 || n == 0) return;
    void *in = dmpi_sched_tmp(s, n, dt);
    if (!in) return;
    for (int d = 1; d < p; d <<= 1) {
        if (r + d < p) dmpi_sched_send(s, a->rbuf, n, dt, r + d);
        if (r - d >= 0) dmpi_sched_recv(s, in, n, dt, r - d);
        dmpi_sched_fence(s);
        if (r - d >= 0) dmpi_sched_reduce(s, a->op, in, a->rbuf, n, dt);
    }
}

void dmpi_build_exscan(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    int p = c->size, r = c->rank;
    MPI_Count n = a->rcount;
    dmpi_datatype *dt = a->rdt;
    if (p == 1 || n == 0) return;
    /* partial: ranks [r - 2d + 1, r]; rbuf: the same without r. */
    void *partial = dmpi_sched_tmp(s, n, dt), *in = dmpi_sched_tmp(s, n, dt);
    if (!partial || !in) return;
    dmpi_sched_copy(s, a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf, n, dt, partial, n, dt);
    for (int d = 1; d < p; d <<= 1) {
        if (r + d < p) dmpi_sched_send(s, partial, n, dt, r + d);
        if (r - d >= 0) dmpi_sched_recv(s, in, n, dt, r - d);
        dmpi_sched_fence(s);
        if (r - d < 0) continue;
        if (d == 1) dmpi_sched_copy(s, in, n, dt, a->rbuf, n, dt);
        else dmpi_sched_reduce(s, a->op, in, a->rbuf, n, dt);
        if (r + 2 * d < p) dmpi_sched_reduce(s, a->op, in, partial, n, dt);
    }
}
