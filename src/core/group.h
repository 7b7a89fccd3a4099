/* Groups: additions to the group interface of core/dmpi.h (handles, the
 * predefined empty group, comparison), shared by api/group.c, api/comm.c and
 * core/comm_ops.c. Implemented in core/group.c. */
#ifndef DMPI_GROUP_H
#define DMPI_GROUP_H

#include "core/dmpi.h"

/* The object behind MPI_GROUP_EMPTY. */
extern dmpi_group dmpi_group_empty_obj;

/* The handle the user sees for g (MPI_GROUP_EMPTY for the empty object). */
MPI_Group dmpi_group_handle(dmpi_group *g);
/* MPI_IDENT (same ranks in the same order), MPI_SIMILAR (same members) or
 * MPI_UNEQUAL. */
int dmpi_group_compare(const dmpi_group *a, const dmpi_group *b);
/* Group of `n` members given by world ranks; an empty result is the
 * retained MPI_GROUP_EMPTY object. NULL when out of memory. */
dmpi_group *dmpi_group_make(int n, const int *world_ranks);

#endif
