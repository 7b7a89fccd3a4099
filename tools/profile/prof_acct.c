/* libdmpi_profile.so: what the calls that move data put into the traffic
 * matrix and the size histograms. Each rank fills its own row of the
 * matrix with the logical data flow of the call (a collective as if every
 * block went straight to the rank that needs it, whatever algorithm the
 * library uses), in MPI_COMM_WORLD ranks; docs/profile.md. */
#include "prof.h"

#include <stddef.h>

static uint64_t coll_done(uint64_t n)
{
    prof_hist(PROF_COLL, n);
    return n;
}

static MPI_Count count_at(const void *counts, int wide, int i)
{
    return wide ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

/* the intracommunicator map of comm, NULL for intercommunicators */
static const struct prof_map *intra(MPI_Comm comm)
{
    const struct prof_map *m = prof_comm(comm);
    return m && !m->inter ? m : NULL;
}

/* n bytes to every rank of m but this one */
static uint64_t to_all(const struct prof_map *m, uint64_t n)
{
    for (int i = 0; i < m->n; i++)
        if (i != m->me) prof_msg(PROF_COLL, m->r[i], n);
    return n * (uint64_t)(m->n - 1);
}

uint64_t prof_send(MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm)
{
    uint64_t n = prof_bytes(count, dt);
    if (dest == MPI_PROC_NULL) return 0;
    prof_hist(PROF_P2P, n);
    prof_msg(PROF_P2P, prof_peer(comm, dest), n);
    return n;
}

uint64_t prof_bcast(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    if (!m || m->me != root) return coll_done(0);
    return coll_done(to_all(m, prof_bytes(count, dt)));
}

uint64_t prof_reduce(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return prof_gather(count, dt, root, comm);
}

uint64_t prof_allreduce(MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    return coll_done(m ? to_all(m, prof_bytes(count, dt)) : 0);
}

uint64_t prof_gather(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    if (!m || m->me == root || root < 0 || root >= m->n) return coll_done(0);
    uint64_t n = prof_bytes(count, dt);
    prof_msg(PROF_COLL, m->r[root], n);
    return coll_done(n);
}

uint64_t prof_scatter(MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return prof_bcast(count, dt, root, comm);
}

uint64_t prof_scatterv(const void *counts, int wide, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    uint64_t sum = 0;
    if (m && m->me == root)
        for (int i = 0; i < m->n; i++) {
            if (i == root) continue;
            uint64_t n = prof_bytes(count_at(counts, wide, i), dt);
            prof_msg(PROF_COLL, m->r[i], n);
            sum += n;
        }
    return coll_done(sum);
}

uint64_t prof_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                        MPI_Datatype rtype, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    if (!m) return coll_done(0);
    uint64_t n = sbuf == MPI_IN_PLACE ? prof_bytes(rcount, rtype) : prof_bytes(scount, stype);
    return coll_done(to_all(m, n));
}

uint64_t prof_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, const void *rcounts,
                         int wide, MPI_Datatype rtype, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    if (!m) return coll_done(0);
    uint64_t n = sbuf == MPI_IN_PLACE ? prof_bytes(count_at(rcounts, wide, m->me), rtype)
                                      : prof_bytes(scount, stype);
    return coll_done(to_all(m, n));
}

uint64_t prof_alltoallv(const void *sbuf, const void *scounts, MPI_Datatype stype, const void *rcounts,
                        int wide, MPI_Datatype rtype, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    uint64_t sum = 0;
    for (int i = 0; m && i < m->n; i++) {
        if (i == m->me) continue;
        uint64_t n = sbuf == MPI_IN_PLACE ? prof_bytes(count_at(rcounts, wide, i), rtype)
                                          : prof_bytes(count_at(scounts, wide, i), stype);
        prof_msg(PROF_COLL, m->r[i], n);
        sum += n;
    }
    return coll_done(sum);
}

uint64_t prof_alltoallw(const void *sbuf, const void *scounts, const MPI_Datatype *stypes,
                        const void *rcounts, int wide, const MPI_Datatype *rtypes, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    uint64_t sum = 0;
    for (int i = 0; m && i < m->n; i++) {
        if (i == m->me) continue;
        uint64_t n = sbuf == MPI_IN_PLACE ? prof_bytes(count_at(rcounts, wide, i), rtypes[i])
                                          : prof_bytes(count_at(scounts, wide, i), stypes[i]);
        prof_msg(PROF_COLL, m->r[i], n);
        sum += n;
    }
    return coll_done(sum);
}

uint64_t prof_reduce_scatter(const void *rcounts, int wide, MPI_Datatype dt, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    uint64_t sum = 0;
    for (int i = 0; m && i < m->n; i++) {
        if (i == m->me) continue;
        uint64_t n = prof_bytes(count_at(rcounts, wide, i), dt);
        prof_msg(PROF_COLL, m->r[i], n);
        sum += n;
    }
    return coll_done(sum);
}

uint64_t prof_reduce_scatter_block(MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    return prof_allreduce(count, dt, comm);
}

uint64_t prof_scan(MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    const struct prof_map *m = intra(comm);
    if (!m) return coll_done(0);
    uint64_t n = prof_bytes(count, dt);
    for (int i = m->me + 1; i < m->n; i++) prof_msg(PROF_COLL, m->r[i], n);
    return coll_done(n * (uint64_t)(m->n - 1 - m->me));
}

uint64_t prof_barrier(MPI_Comm comm)
{
    return coll_done(0);
}
