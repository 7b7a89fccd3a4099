/* Partitioned point-to-point communication (MPI 4.1 chapter 4), built on
 * the internal nonblocking sends and receives: the interface api/part.c
 * and api/request.c use. Implemented in p2p/part.c, which explains the
 * protocol. Every function expects the big lock held and returns an MPI
 * error class. */
#ifndef DMPI_PART_H
#define DMPI_PART_H

#include "core/dmpi.h"

/* A new inactive partitioned send (is_send) or receive of `partitions`
 * partitions of `count` elements of dt each, to or from `peer` (a rank in
 * c, or MPI_PROC_NULL) with `tag`. */
int dmpi_part_init(bool is_send, void *buf, int partitions, MPI_Count count, dmpi_datatype *dt,
                   int peer, int tag, dmpi_comm *c, dmpi_request **out);
/* MPI_Start of an inactive partitioned request. */
int dmpi_part_start(dmpi_request *r);
/* Is r a partitioned request; *is_send and *partitions say which and how
 * many (either may be NULL). */
bool dmpi_part_query(const dmpi_request *r, bool *is_send, int *partitions);
/* Marks partition i of an active send ready (sent as soon as the receiver
 * is known). MPI_ERR_ARG if it is already ready in this round. */
int dmpi_part_ready(dmpi_request *r, int i);
/* Has everything of receive partition i arrived (progresses first)? True
 * for an inactive request. */
bool dmpi_part_arrived(dmpi_request *r, int i);
/* MPI_Cancel of an active partitioned request: succeeds while nothing of
 * the round has been sent (send) or has arrived (receive). */
void dmpi_part_cancel(dmpi_request *r);

#endif
