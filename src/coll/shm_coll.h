/* Shared-memory collectives (shm_coll.c): the blocking collectives of a
 * communicator on one node through an area of the shared heap. */
#ifndef DMPI_SHM_COLL_H
#define DMPI_SHM_COLL_H

#include "coll/coll.h"

/* Runs the blocking collective a on c in shared memory if that is the
 * choice for it (tuning table, data fits the slot, area available) and
 * returns true with the result in *rc; false: use a schedule. Every
 * process of c makes the same choice. */
bool dmpi_coll_shm_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc);

#endif
