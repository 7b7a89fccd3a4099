/* Collective operations over the internal point-to-point layer: the entry
 * points the api layer (and the core, e.g. context-id agreement) calls, the
 * algorithm choice of tuning.c, and helpers shared by the algorithms.
 *
 * Every function is collective over an intracommunicator and must be called
 * by all its members in the same order. Messages travel in the
 * communicator's collective context (DMPI_CTX_COLL) with one tag per call
 * (dmpi_coll_tag), so they never mix with user point-to-point traffic.
 * Buffers are typed (buf + i * extent addresses element i), so derived
 * datatypes work; temporaries are sized by true extent. Where the standard
 * allows it, a send buffer may be MPI_IN_PLACE (its datatype may then be
 * NULL). Return values are MPI error classes. */
#ifndef DMPI_COLL_H
#define DMPI_COLL_H

#include "core/dmpi.h"

int dmpi_coll_barrier(dmpi_comm *comm);
int dmpi_coll_bcast(void *buf, MPI_Count count, dmpi_datatype *dt, int root, dmpi_comm *comm);
int dmpi_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                     dmpi_op *op, int root, dmpi_comm *comm);
int dmpi_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                        dmpi_op *op, dmpi_comm *comm);
int dmpi_coll_gather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                     MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *comm);
int dmpi_coll_scatter(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                      MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *comm);
int dmpi_coll_allgather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                        MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *comm);
int dmpi_coll_alltoall(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                       MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *comm);

/* ------------------------------------------------ algorithm choice (tuning.c) */
enum {
    DMPI_COLL_BARRIER, DMPI_COLL_BCAST, DMPI_COLL_REDUCE, DMPI_COLL_ALLREDUCE,
    DMPI_COLL_GATHER, DMPI_COLL_SCATTER, DMPI_COLL_ALLGATHER, DMPI_COLL_ALLTOALL,
    DMPI_COLL_NCOLLS
};
/* Algorithms, numbered per collective. */
enum { DMPI_BARRIER_DISSEMINATION };
enum { DMPI_BCAST_BINOMIAL, DMPI_BCAST_SCATTER_RING };
enum { DMPI_REDUCE_BINOMIAL };
enum { DMPI_ALLREDUCE_RECURSIVE_DOUBLING, DMPI_ALLREDUCE_RABENSEIFNER };
enum { DMPI_GATHER_BINOMIAL, DMPI_GATHER_LINEAR };
enum { DMPI_SCATTER_BINOMIAL, DMPI_SCATTER_LINEAR };
enum { DMPI_ALLGATHER_RECURSIVE_DOUBLING, DMPI_ALLGATHER_BRUCK, DMPI_ALLGATHER_RING };
enum { DMPI_ALLTOALL_LINEAR, DMPI_ALLTOALL_PAIRWISE };
/* The algorithm for collective `coll` moving `bytes` (as defined per
 * collective in tuning.c) on `nranks` processes. */
int dmpi_coll_choose(int coll, MPI_Count bytes, int nranks);

/* ------------------------------------------------------ helpers (util.c) */
/* The tag of the next collective call on comm (advances its sequence). */
int dmpi_coll_tag(dmpi_comm *comm);
/* Temporary buffer for count elements of dt, addressed like a user buffer;
 * *base is the allocation to free(). NULL when out of memory. */
void *dmpi_coll_tmp(MPI_Count count, const dmpi_datatype *dt, void **base);
/* Element i of a typed buffer. */
static inline char *dmpi_coll_at(const void *buf, MPI_Count i, const dmpi_datatype *dt)
{
    return (char *)buf + (MPI_Aint)i * dt->extent;
}
/* Local typed copy; MPI_ERR_TRUNCATE if the destination is too small. */
int dmpi_coll_copy(const void *src, MPI_Count scount, const dmpi_datatype *sdt, void *dst,
                   MPI_Count rcount, const dmpi_datatype *rdt);
/* MPI_BYTE, for packed temporaries. */
dmpi_datatype *dmpi_coll_byte(void);
int dmpi_coll_largest_pof2(int n); /* largest power of two <= n (n >= 1) */
/* mine = theirs op mine if theirs_first (their ranks precede ours) or op is
 * commutative, else mine = mine op theirs (theirs is clobbered). */
int dmpi_coll_combine(dmpi_op *op, void *theirs, void *mine, MPI_Count n, dmpi_datatype *dt,
                      bool theirs_first);

/* Point-to-point in the collective context. */
static inline int dmpi_coll_send(const void *buf, MPI_Count n, dmpi_datatype *dt, int dest,
                                 int tag, dmpi_comm *c)
{
    return dmpi_send(buf, n, dt, dest, tag, c, DMPI_CTX_COLL);
}
static inline int dmpi_coll_recv(void *buf, MPI_Count n, dmpi_datatype *dt, int src, int tag,
                                 dmpi_comm *c)
{
    return dmpi_recv(buf, n, dt, src, tag, c, DMPI_CTX_COLL, NULL);
}
static inline int dmpi_coll_isend(const void *buf, MPI_Count n, dmpi_datatype *dt, int dest,
                                  int tag, dmpi_comm *c, dmpi_request **r)
{
    return dmpi_isend(buf, n, dt, dest, tag, c, DMPI_CTX_COLL, DMPI_MODE_STD, r);
}
static inline int dmpi_coll_irecv(void *buf, MPI_Count n, dmpi_datatype *dt, int src,
                                  int tag, dmpi_comm *c, dmpi_request **r)
{
    return dmpi_irecv(buf, n, dt, src, tag, c, DMPI_CTX_COLL, r);
}
static inline int dmpi_coll_sendrecv(const void *sbuf, MPI_Count sn, dmpi_datatype *sdt,
                                     int dest, void *rbuf, MPI_Count rn, dmpi_datatype *rdt,
                                     int src, int tag, dmpi_comm *c)
{
    return dmpi_sendrecv(sbuf, sn, sdt, dest, tag, rbuf, rn, rdt, src, tag, c, DMPI_CTX_COLL,
                         NULL);
}

/* A communicator whose collectives use a fixed tag (Comm_create_group runs
 * its context agreement over such a temporary communicator): coll_state
 * points to one of these. */
typedef struct dmpi_coll_state {
    int fixed_tag;
} dmpi_coll_state;

#endif
