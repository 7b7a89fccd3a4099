/* MPI_Alloc_mem / MPI_Free_mem: memory from the node's shared heap when it
 * is on (any local rank can then copy to or from it directly), else from
 * malloc. */
#include "api/api.h"
#include "transport/shm/heap.h"

#include <stdlib.h>

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char *const FN = "MPI_Alloc_mem";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    if (size < 0) return dmpi_error_noobj(MPI_ERR_SIZE, FN, "negative size %ld", (long)size);
    if (!baseptr) return dmpi_error_noobj(MPI_ERR_ARG, FN, "baseptr is NULL");
    dmpi_lock();
    void *p = dmpi_heap_alloc((size_t)size);
    dmpi_unlock();
    if (!p && posix_memalign(&p, 64, size ? (size_t)size : 1) != 0) p = NULL;
    if (!p) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    DMPI_CHECK_INIT("MPI_Free_mem");
    if (!base) return MPI_SUCCESS;
    dmpi_lock();
    bool ours = dmpi_heap_free(base);
    dmpi_unlock();
    if (!ours) free(base);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Free_mem)
