/* The memory-kind extensions other MPIs offer under the same names:
 * MPIX_Query_cuda_support() (MPICH, Open MPI) is 1 only when this dmpi was
 * built with the CUDA backend and the driver was found at MPI_Init.
 * Declared in include/mpi-ext.h (the name Open MPI uses for its
 * extensions header); the standard-ABI mpi.h has no MPIX names. */
#include "accel/accel.h"
#include "core/dmpi.h"

#include <mpi-ext.h>

DMPI_API int PMPIX_Query_cuda_support(void) { return dmpi_accel_cuda_found(); }

extern __typeof__(PMPIX_Query_cuda_support) MPIX_Query_cuda_support
    __attribute__((alias("PMPIX_Query_cuda_support"), visibility("default")));
