/* Communicator construction and comparison (core/comm_ops.c), used by
 * api/comm.c. Every constructor is collective over the parent (except
 * create_group: over the new group), returns an MPI error class, and sets
 * *out to NULL for processes that get MPI_COMM_NULL. New communicators
 * inherit the parent's error handler. */
#ifndef DMPI_COMM_OPS_H
#define DMPI_COMM_OPS_H

#include "core/dmpi.h"

int dmpi_comm_dup(dmpi_comm *parent, dmpi_comm **out);
/* color MPI_UNDEFINED: take part, get NULL. Ranks of equal color are
 * ordered by (key, rank in parent). */
int dmpi_comm_split(dmpi_comm *parent, int color, int key, dmpi_comm **out);
/* Split by node (MPI_COMM_TYPE_SHARED); undefined: take part, get NULL. */
int dmpi_comm_split_node(dmpi_comm *parent, bool undefined, int key, dmpi_comm **out);
/* g must be a subset of parent's group (checked by the caller). */
int dmpi_comm_create(dmpi_comm *parent, dmpi_group *g, dmpi_comm **out);
int dmpi_comm_create_group(dmpi_comm *parent, dmpi_group *g, int tag, dmpi_comm **out);
/* MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL. */
int dmpi_comm_compare(const dmpi_comm *a, const dmpi_comm *b);
/* Is every member of g a member of parent's group? */
bool dmpi_group_subset_of(const dmpi_group *g, const dmpi_group *parent);


#endif
