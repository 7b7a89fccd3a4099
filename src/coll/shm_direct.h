/* One-copy shared-memory collectives (shm_direct.c): large blocking
 * collectives copied straight between the processes' buffers. */
#ifndef DMPI_SHM_DIRECT_H
#define DMPI_SHM_DIRECT_H

#include "coll/shm_area.h"

/* Runs a (bcast, reduce, allreduce, gather, scatter, allgather(v) or
 * alltoall) on c, whose area is st; bdt: the basic type of a reduction. */
int dmpi_coll_direct(dmpi_comm *c, dmpi_shm_comm *st, const dmpi_coll_args *a,
                     dmpi_datatype *bdt);
/* Whether a call of one of those collectives can run this way. */
bool dmpi_coll_direct_fits(const dmpi_coll_args *a);

#endif
