/* Collective operations over the internal point-to-point layer: the
 * blocking entry points the core calls (context-id agreement, communicator
 * constructors), the description of a call (dmpi_coll_args) from which the
 * api layer builds a schedule (sched.h) for the blocking, nonblocking and
 * persistent forms alike, the algorithm builders, the algorithm choice of
 * tuning.c, and helpers shared by the algorithms.
 *
 * Every collective must be called by all members of the communicator in the
 * same order. Messages travel in the
 * communicator's collective context (DMPI_CTX_COLL) with one tag per call
 * (dmpi_coll_tag), so they never mix with user point-to-point traffic.
 * Buffers are typed (buf + i * extent addresses element i), so derived
 * datatypes work; temporaries are sized by true extent. Where the standard
 * allows it, a send buffer may be MPI_IN_PLACE (its datatype may then be
 * NULL). Return values are MPI error classes. */
#ifndef DMPI_COLL_H
#define DMPI_COLL_H

#include "core/dmpi.h"
#include "coll/sched.h"

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
    DMPI_COLL_GATHERV, DMPI_COLL_SCATTERV, DMPI_COLL_ALLGATHERV, DMPI_COLL_ALLTOALLV,
    DMPI_COLL_ALLTOALLW, DMPI_COLL_REDUCE_SCATTER, DMPI_COLL_REDUCE_SCATTER_BLOCK,
    DMPI_COLL_SCAN, DMPI_COLL_EXSCAN,
    DMPI_COLL_NCOLLS, /* the collectives above have a choice of algorithms */
    DMPI_COLL_NEIGHBOR_ALLGATHER = DMPI_COLL_NCOLLS, DMPI_COLL_NEIGHBOR_ALLGATHERV,
    DMPI_COLL_NEIGHBOR_ALLTOALL, DMPI_COLL_NEIGHBOR_ALLTOALLV, DMPI_COLL_NEIGHBOR_ALLTOALLW,
    DMPI_COLL_NALL
};
/* Algorithms, numbered per collective (names in tuning.c). */
enum { DMPI_BARRIER_DISSEMINATION, DMPI_BARRIER_TREE };
enum { DMPI_BCAST_BINOMIAL, DMPI_BCAST_SCATTER_RING };
enum { DMPI_REDUCE_BINOMIAL, DMPI_REDUCE_RABENSEIFNER };
enum { DMPI_ALLREDUCE_RECURSIVE_DOUBLING, DMPI_ALLREDUCE_RABENSEIFNER, DMPI_ALLREDUCE_RING };
enum { DMPI_GATHER_BINOMIAL, DMPI_GATHER_LINEAR };
enum { DMPI_SCATTER_BINOMIAL, DMPI_SCATTER_LINEAR };
enum { DMPI_ALLGATHER_RECURSIVE_DOUBLING, DMPI_ALLGATHER_BRUCK, DMPI_ALLGATHER_RING };
enum { DMPI_ALLTOALL_LINEAR, DMPI_ALLTOALL_PAIRWISE, DMPI_ALLTOALL_BRUCK };
enum { DMPI_ALLGATHERV_RING, DMPI_ALLGATHERV_LINEAR };
enum { DMPI_ALLTOALLV_LINEAR, DMPI_ALLTOALLV_PAIRWISE }; /* also alltoallw */
enum { DMPI_REDUCE_SCATTER_REDUCE_SCATTERV, DMPI_REDUCE_SCATTER_PAIRWISE }; /* also _block */
/* Shared memory, the same numbers for every collective that has them,
 * above every point-to-point algorithm: through the slots (shm_coll.c) and
 * one-copy between the buffers (shm_direct.c). */
enum { DMPI_COLL_ALGO_SHM = 3, DMPI_COLL_ALGO_DIRECT = 4 };
/* The schedule algorithm for collective `coll` moving `bytes` (as defined
 * per collective in tuning.c) on `nranks` processes (never a shared-memory
 * one). */
int dmpi_coll_choose(int coll, MPI_Count bytes, int nranks);
/* The shared-memory algorithm (DMPI_COLL_ALGO_SHM or _DIRECT) for a
 * blocking call of that shape, or -1: none. */
int dmpi_coll_choose_node(int coll, MPI_Count bytes, int nranks);

/* ------------------------------------------------------- schedules (sched.h)
 * One description of a call for every collective: the fields a collective
 * does not use are left zero. Counts are MPI_Count and displacements
 * MPI_Aint whatever the entry point (the api layer converts int arrays).
 * Arrays are read while the schedule is built, not afterwards. */
typedef struct dmpi_coll_args {
    int coll;                         /* DMPI_COLL_* */
    const void *sbuf;                 /* may be MPI_IN_PLACE where allowed */
    void *rbuf;
    MPI_Count scount, rcount;
    dmpi_datatype *sdt, *rdt;         /* sdt may be NULL with MPI_IN_PLACE */
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls; /* in elements; in bytes for alltoallw */
    dmpi_datatype *const *sdts, *const *rdts; /* alltoallw */
    dmpi_op *op;
    int root;                         /* intercommunicators: also MPI_ROOT, MPI_PROC_NULL */
} dmpi_coll_args;

struct dmpi_sched;
/* Adds to s the steps of the collective a on c: an intracommunicator, an
 * intercommunicator (the standard's intercommunicator semantics) or, for
 * the neighbourhood collectives, c's topology. Takes the tag(s) of the
 * call from c (and from its local communicator). Errors are recorded in s. */
void dmpi_coll_sched(struct dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a);
/* Runs a (blocking): in shared memory where chosen, else as a schedule. */
int dmpi_coll_run(dmpi_comm *c, const dmpi_coll_args *a);
/* Builds and runs the schedule of a (blocking). */
int dmpi_coll_run_sched(dmpi_comm *c, const dmpi_coll_args *a);

/* Algorithm builders: each adds the steps of one collective on the
 * intracommunicator c, which must be the schedule's current communicator
 * (dmpi_sched_use); its last round is left open. */
typedef void dmpi_coll_builder(struct dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a);
dmpi_coll_builder dmpi_build_barrier, dmpi_build_bcast, dmpi_build_reduce, dmpi_build_allreduce,
    dmpi_build_gather, dmpi_build_scatter, dmpi_build_allgather, dmpi_build_alltoall,
    dmpi_build_gatherv, dmpi_build_scatterv, dmpi_build_allgatherv, dmpi_build_alltoallv,
    dmpi_build_alltoallw, dmpi_build_reduce_scatter, dmpi_build_reduce_scatter_block,
    dmpi_build_scan, dmpi_build_exscan;
/* The same on an intercommunicator (inter.c). */
void dmpi_build_inter(struct dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a);
/* Neighbourhood collectives on c's topology (neighbor.c). */
void dmpi_build_neighbor(struct dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a);
/* Zero-byte tree barrier on c; if inter is not NULL, rank 0 of c swaps a
 * token with rank 0 of inter's remote group (tag inter_tag) between the
 * fan-in and the fan-out. */
void dmpi_build_tree_barrier(struct dmpi_sched *s, dmpi_comm *c, dmpi_comm *inter, int inter_tag);

/* ------------------------------------------------------ helpers (util.c) */
/* The tag of the next collective call on comm (advances its sequence). */
int dmpi_coll_tag(dmpi_comm *comm);
/* Temporary buffer for count elements of dt, addressed like a user buffer;
 * *base is the allocation to free(). NULL when out of memory. */
void *dmpi_coll_tmp(MPI_Count count, const dmpi_datatype *dt, void **base);
/* Bytes such a temporary takes; element 0 is at base + *shift. */
size_t dmpi_coll_tmp_span(MPI_Count count, const dmpi_datatype *dt, MPI_Aint *shift);
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
/* Folding p = pof2 + rem processes to pof2 participants (allreduce.c,
 * reduce.c): the first 2*rem ranks pair up, the odd one of each pair takes
 * part; the rank of participant `newrank`. */
static inline int dmpi_coll_fold_rank(int newrank, int rem)
{
    return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}
/* A vector of count elements cut into nb nearly equal blocks: block b is
 * elements [disp[b], disp[b+1]) (nb + 1 entries, schedule memory). */
MPI_Count *dmpi_coll_blocks(struct dmpi_sched *s, MPI_Count count, int nb);
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

/* A communicator whose collectives use a fixed tag: coll_state points to
 * one of these. (Comm_create_group no longer uses one: its agreement must
 * name members by their parent ranks, see core/comm_ops.c.) */
typedef struct dmpi_coll_state {
    int fixed_tag;
} dmpi_coll_state;

#endif
