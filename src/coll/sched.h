/* Collective schedules: every collective algorithm is written as a
 * schedule, a list of steps cut into rounds by fences. Running a round
 * executes its local steps (typed copies, reductions) in order and starts
 * its sends and receives; the next round begins when all of them have
 * completed. Local steps that use received data therefore go after the
 * fence that ends the round of the receive.
 *
 * One schedule serves the three forms of a collective: the blocking call
 * runs it to completion (dmpi_sched_run); the nonblocking call wraps it in
 * a request that the progress engine advances through its poll hook
 * (dmpi_sched_post); the persistent call wraps it in an inactive
 * persistent request that MPI_Start runs again from the first step each
 * time (dmpi_coll_start_persistent). Sends and receives travel in the
 * collective context of the communicator chosen with dmpi_sched_use, with
 * the tag given there (one tag per collective instance, see coll.h).
 *
 * Building never fails half way for the caller: an out-of-memory error is
 * remembered (dmpi_sched_error) and later additions are dropped; running
 * or posting such a schedule reports the error. */
#ifndef DMPI_COLL_SCHED_H
#define DMPI_COLL_SCHED_H

#include "core/dmpi.h"

typedef struct dmpi_sched dmpi_sched;

/* A new empty schedule, or NULL when out of memory. */
dmpi_sched *dmpi_sched_new(void);
void dmpi_sched_free(dmpi_sched *s);
/* MPI_SUCCESS, or the first error met while building. */
int dmpi_sched_error(const dmpi_sched *s);
/* Records an error found while building (the first one stays). */
void dmpi_sched_fail(dmpi_sched *s, int err);

/* Communicator and tag of the sends and receives added from now on. */
void dmpi_sched_use(dmpi_sched *s, dmpi_comm *c, int tag);
dmpi_comm *dmpi_sched_comm(const dmpi_sched *s);
int dmpi_sched_tag(const dmpi_sched *s);

/* Point-to-point steps to/from a rank of the current communicator (of its
 * remote group for an intercommunicator). A message of zero bytes is left
 * out (both sides of a collective agree on every message's size). */
void dmpi_sched_send(dmpi_sched *s, const void *buf, MPI_Count n, dmpi_datatype *dt, int peer);
void dmpi_sched_recv(dmpi_sched *s, void *buf, MPI_Count n, dmpi_datatype *dt, int peer);
/* Zero-byte synchronisation messages, never left out. */
void dmpi_sched_send0(dmpi_sched *s, int peer);
void dmpi_sched_recv0(dmpi_sched *s, int peer);
/* inout = in op inout (n elements of dt). */
void dmpi_sched_reduce(dmpi_sched *s, dmpi_op *op, const void *in, void *inout, MPI_Count n,
                       dmpi_datatype *dt);
/* mine = theirs op mine if theirs_first or op is commutative, else
 * mine = mine op theirs (theirs is then clobbered). */
void dmpi_sched_combine(dmpi_sched *s, dmpi_op *op, void *theirs, void *mine, MPI_Count n,
                        dmpi_datatype *dt, bool theirs_first);
/* Typed local copy; the run fails with MPI_ERR_TRUNCATE if dn elements of
 * ddt hold less than sn elements of sdt. */
void dmpi_sched_copy(dmpi_sched *s, const void *src, MPI_Count sn, dmpi_datatype *sdt, void *dst,
                     MPI_Count dn, dmpi_datatype *ddt);
/* Ends the current round. */
void dmpi_sched_fence(dmpi_sched *s);

/* Memory owned by the schedule (freed with it): raw bytes, or a typed
 * temporary for count elements of dt addressed like a user buffer. NULL
 * when out of memory (the error is recorded). */
void *dmpi_sched_alloc(dmpi_sched *s, size_t bytes);
void *dmpi_sched_tmp(dmpi_sched *s, MPI_Count count, const dmpi_datatype *dt);
/* Keeps dt / op alive while the schedule exists (the user may free their
 * handles once a nonblocking or persistent call has returned). */
void dmpi_sched_hold_dt(dmpi_sched *s, dmpi_datatype *dt);
void dmpi_sched_hold_op(dmpi_sched *s, dmpi_op *op);

/* Blocking: runs s to completion and frees it; returns the first error. */
int dmpi_sched_run(dmpi_sched *s);
/* A request of kind DMPI_REQ_COLL on comm (which it holds) whose poll hook
 * and free hook are given, ext their state; NULL when out of memory. */
dmpi_request *dmpi_coll_hooked_request(dmpi_comm *comm, void *ext, dmpi_req_poll_fn poll,
                                       dmpi_req_free_fn on_free);
/* Driven by the caller (a request of its own whose poll hook drives one
 * schedule after another, core/comm_idup.c): dmpi_sched_begin starts s
 * (returns a build error, if any); dmpi_sched_test advances it and returns
 * true once it has ended, with its first error in *err. The caller frees s. */
int dmpi_sched_begin(dmpi_sched *s);
bool dmpi_sched_test(dmpi_sched *s, int *err);
/* Nonblocking (persistent = false: started at once) or persistent
 * (inactive until MPI_Start): a request of kind DMPI_REQ_COLL on comm that
 * owns s. On failure s is freed and *out is left alone. */
int dmpi_sched_post(dmpi_sched *s, dmpi_comm *comm, bool persistent, dmpi_request **out);
/* MPI_Start of a persistent collective request (called by api/request.c):
 * MPI_ERR_REQUEST if r is not one. */
int dmpi_coll_start_persistent(dmpi_request *r);
/* True if r is a persistent collective request made here. */
bool dmpi_coll_is_persistent(const dmpi_request *r);

#endif
