/* The performance counters and their descriptions (core/pvar_list.h). */
#include "core/pvar.h"

#include <mpi.h>

#define DMPI_PVAR(ID, NAME, CLASS, CAT, VERB, DESC)                                             \
    [DMPI_PV_##ID] = {NAME, DESC, MPI_T_PVAR_CLASS_##CLASS, DMPI_KCAT_##CAT,                    \
                      MPI_T_VERBOSITY_##VERB},
const dmpi_pvar_desc dmpi_pvar_descs[DMPI_NPVARS] = {DMPI_PVAR_LIST};
#undef DMPI_PVAR

_Alignas(64) _Atomic uint64_t dmpi_pv[DMPI_NPVARS];
