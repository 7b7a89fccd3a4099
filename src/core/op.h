/* Reduction operations: additions to the op interface of core/dmpi.h used by
 * the api layer (MPI_Op_*, collectives' argument checks) and, later, RMA
 * accumulate. Implemented in core/op.c. */
#ifndef DMPI_OP_H
#define DMPI_OP_H

#include "core/dmpi.h"

/* MPI_SUCCESS if op may be applied to dt, else MPI_ERR_OP. MPI_REPLACE and
 * MPI_NO_OP are accepted only when allow_rma_ops is true (accumulate). */
int dmpi_op_check(const dmpi_op *op, const dmpi_datatype *dt, bool allow_rma_ops);
/* "MPI_SUM" ..., or "user-defined op". */
const char *dmpi_op_name(const dmpi_op *op);
/* A new user-defined op (refcount 1); exactly one of fn/fn_c is non-NULL. */
dmpi_op *dmpi_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute);
void dmpi_op_retain(dmpi_op *op);
void dmpi_op_release(dmpi_op *op);

#endif
