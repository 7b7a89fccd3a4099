/* Node-aware (hierarchical) blocking collectives (hier.c).
 *
 * A blocking collective on an intracommunicator whose members live on
 * several nodes, with two or more of them on at least one node, runs in
 * phases over two subcommunicators of it, made once (on the first call that
 * wants them) and kept until the communicator goes:
 *   - node:    the members on this process's node, ordered by comm rank
 *              (so the node's leader, its lowest comm rank, is rank 0);
 *              on one node, its collectives take the shared-memory paths;
 *   - leaders: one process per node, the leaders, in comm rank order of
 *              the leaders (rank k = node index k); NULL elsewhere.
 * Both run their phases through the ordinary dispatch (dmpi_coll_run).
 * Nonblocking and persistent barrier, bcast, reduce and allreduce take the
 * same phases as one schedule (dmpi_coll_hier_sched), once a blocking
 * collective has made the subcommunicators (a nonblocking call cannot
 * wait for their making); every other nonblocking collective runs flat. */
#ifndef DMPI_COLL_HIER_H
#define DMPI_COLL_HIER_H

#include "coll/coll.h"

/* Runs the blocking collective a on c in phases if that is the choice for
 * it (DMPI_COLL_HIER, the placement of c's members, the collective, its
 * size and op) and returns true with the result in *rc; false: run it
 * flat. Every process of c makes the same choice. */
bool dmpi_coll_hier_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc);
/* Appends to s the phases of the nonblocking or persistent collective a
 * on c and returns true if that is the choice for it (as for the blocking
 * call, and c's subcommunicators exist already); false: build it flat.
 * Every process of c makes the same choice. */
bool dmpi_coll_hier_sched(struct dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a);
/* c goes away: release its subcommunicators and tables (local). */
void dmpi_coll_hier_gone(dmpi_comm *c);

#endif
