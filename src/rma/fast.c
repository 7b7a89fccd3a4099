/* The table of predefined-datatype facts that the fast paths of
 * rma/fast.h look up by handle value: raw-copy size, atomic kind, whether
 * MPI_Compare_and_swap takes the type, and which accumulate operations
 * are defined on it (asked once of core/op.c, so the fast path and the
 * general path accept exactly the same pairs). */
#include "rma/fast.h"
#include "core/op.h"

dmpi_rma_tinfo dmpi_rma_tinfo_tab[DMPI_RMA_NTYPES];

/* The accumulate operations dmpi_rma_elem_atomic does without dmpi_op_apply. */
static const MPI_Op fast_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND,
                                  MPI_BOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};

static void fill(dmpi_rma_tinfo *ti, const dmpi_datatype *dt)
{
    if (!dt->committed || !dt->builtin || dt->size <= 0 || dt->size > 255 || !dt->contiguous ||
        dt->true_lb != 0 || dt->extent != (MPI_Aint)dt->size)
        return;
    ti->size = (uint8_t)dt->size;
    bool atomic_size = dt->size == 4 || dt->size == 8;
    int kind = dmpi_rma_type_kind(dt);
    ti->kind = (uint8_t)(atomic_size ? kind : DMPI_RMA_K_RAW);
    /* as PMPI_Compare_and_swap checks: integer, logical, byte types */
    ti->cas = atomic_size &&
              (dmpi_op_check(dmpi_op_builtin(MPI_BAND), dt, false) == MPI_SUCCESS ||
               dmpi_op_check(dmpi_op_builtin(MPI_LAND), dt, false) == MPI_SUCCESS);
    if (ti->kind == DMPI_RMA_K_RAW) return;
    for (size_t i = 0; i < sizeof fast_ops / sizeof fast_ops[0]; i++) {
        dmpi_op *op = dmpi_op_builtin(fast_ops[i]);
        if (op && op->builtin && dmpi_op_check(op, dt, true) == MPI_SUCCESS)
            ti->ops |= dmpi_rma_op_bit(fast_ops[i]);
    }
}

void dmpi_rma_fast_init(void)
{
    static bool done; /* window creation holds the big lock */
    if (done) return;
    for (uintptr_t v = 1; v < DMPI_RMA_NTYPES; v++) {
        dmpi_datatype *dt = dmpi_dt_builtin((MPI_Datatype)(void *)v);
        if (dt) fill(&dmpi_rma_tinfo_tab[v], dt);
    }
    done = true;
}
