/* dmpi's extensions to the standard ABI (names and meanings as MPICH and
 * Open MPI offer them), for programs that test for them:
 *   #if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
 * says the library can be built CUDA-aware; MPIX_Query_cuda_support()
 * says whether it is at run time (the CUDA backend built and the driver
 * found). */
#ifndef DMPI_MPI_EXT_H
#define DMPI_MPI_EXT_H

#include <mpi.h>

#define MPIX_CUDA_AWARE_SUPPORT 1

#ifdef __cplusplus
extern "C" {
#endif

int MPIX_Query_cuda_support(void);
int PMPIX_Query_cuda_support(void);

#ifdef __cplusplus
}
#endif

#endif
