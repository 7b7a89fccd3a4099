/* Intercommunicators (core/intercomm.c): creation from two
 * intracommunicators whose leaders talk over a peer communicator, merge
 * into an intracommunicator, dup, split, barrier, and access to the local
 * intracommunicator every intercommunicator carries.
 *
 * An intercommunicator's group/rank/size are those of the local group;
 * remote_group is the other group, to whose ranks point-to-point refers.
 * Its context id is agreed by both groups (dmpi_context_alloc_pair). Work
 * inside one group (agreements, the local phase of a collective) runs on
 * the local intracommunicator, which has a context of its own; traffic
 * between the groups' leaders runs in the intercommunicator's collective
 * context with the tag of the current collective call (dmpi_coll_tag on
 * the intercommunicator, called once per operation by every member of
 * both groups). All functions return MPI error classes. */
#ifndef DMPI_INTERCOMM_H
#define DMPI_INTERCOMM_H

#include "core/dmpi.h"

/* MPI_Intercomm_create. Collective over local and over the remote group's
 * local communicator. peer and remote_leader matter only at local rank
 * local_leader; there leader_status (MPI_SUCCESS or the class of a bad
 * leader-only argument found by the caller) is passed to the whole local
 * group, which then fails with it. The leaders talk in peer's context of
 * kind ctx_kind (DMPI_CTX_P2P for MPI_Intercomm_create, whose tag is the
 * user's). */
int dmpi_intercomm_create(dmpi_comm *local, int local_leader, dmpi_comm *peer,
                          int remote_leader, int tag, int ctx_kind, int leader_status,
                          dmpi_comm **out);
/* An intercommunicator whose remote group is known (dynamic processes):
 * the context ids are agreed with the other group through xchg, which
 * local_leader calls (core/context.h). */
int dmpi_intercomm_with(dmpi_comm *local, int local_leader, dmpi_group *rg,
                        int (*xchg)(void *arg, uint64_t *buf, int n), void *arg, dmpi_comm **out);
/* MPI_Intercomm_merge: the group that passed high = false comes first; if
 * both passed the same value, the group whose first member has the lower
 * order key (dmpi_dyn_order_key: the universe index within one mpiexec
 * run) does. */
int dmpi_intercomm_merge(dmpi_comm *inter, bool high, dmpi_comm **out);
/* Duplicate (same groups, new contexts). */
int dmpi_intercomm_dup(dmpi_comm *inter, dmpi_comm **out);
/* MPI_Comm_split on an intercommunicator: the result joins the processes
 * of each group with the same color; NULL where either side has none. */
int dmpi_intercomm_split(dmpi_comm *inter, int color, int key, dmpi_comm **out);
/* MPI_Barrier on an intercommunicator (no process leaves before every
 * process of both groups has entered). */
int dmpi_intercomm_barrier(dmpi_comm *inter);
/* The local intracommunicator of inter (NULL if inter is not one). */
dmpi_comm *dmpi_intercomm_local(dmpi_comm *inter);

#endif
