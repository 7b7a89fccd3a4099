/* Context-id agreement between the two groups of an intercommunicator,
 * or with a caller-supplied AND over the members (core/context.c; the
 * one-communicator form, dmpi_context_alloc, is declared in core/dmpi.h). */
#ifndef DMPI_CONTEXT_H
#define DMPI_CONTEXT_H

#include "core/dmpi.h"

/* ANDs buf[0..n-1] over every member of a group of processes (each
 * member calls it with its own words); returns an MPI error class. */
typedef int (*dmpi_ctx_and_fn)(void *arg, uint64_t *buf, int n);

/* dmpi_context_alloc with the AND of the members' free maps done by
 * and_all (MPI_Comm_create_group: over a group, not a communicator).
 * Collective over the members that and_all reaches. */
int dmpi_context_alloc_with(dmpi_ctx_and_fn and_all, void *arg, uint32_t *ctx_out);

/* Called at the leader only: swaps buf[0..n-1] with the other group's
 * leader and ANDs the other side's words into buf. Returns an MPI error
 * class. */
typedef int (*dmpi_ctx_xchg_fn)(void *arg, uint64_t *buf, int n);

/* Agrees on a context id that is free at every member of this group (the
 * members of intracommunicator `local`) and of the other group, whose
 * members make the same call with their own local communicator. `leader`
 * is a rank in local; only it calls xchg. Collective over both groups. */
int dmpi_context_alloc_pair(dmpi_comm *local, int leader, dmpi_ctx_xchg_fn xchg, void *arg,
                            uint32_t *ctx_out);

/* The steps of one agreement round, for an agreement that runs its ANDs
 * itself (nonblocking, core/comm_idup.c). A free map has
 * dmpi_context_map_words() words; dmpi_context_free_map fills one with this
 * process's free pairs. After the AND over every member:
 * dmpi_context_claim returns the lowest pair free everywhere (-1: none)
 * and claims it here if it is still free here (*claimed); the members then
 * AND their *claimed: if all claimed, the context id is pick * 2, else each
 * gives its claim back (dmpi_context_unclaim) and a new round starts. */
int dmpi_context_map_words(void);
void dmpi_context_free_map(uint64_t *map);
int dmpi_context_claim(const uint64_t *map, bool *claimed);
void dmpi_context_unclaim(int pick);

#endif
