/* mem_free_errors.c: MPI_Alloc_mem / MPI_Free_mem bookkeeping: blocks freed in
 * any order, and MPI_Free_mem of a pointer MPI_Alloc_mem did not return (or
 * one already freed, or an interior pointer) gives MPI_ERR_BASE, no crash. */
#include <mpi.h>
#include <stdio.h>
int main(int c, char **v) { MPI_Init(&c, &v); MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int errs = 0; void *p[100]; for (int i = 0; i < 100; i++) if (MPI_Alloc_mem(1000 + i, MPI_INFO_NULL, &p[i])) errs++;
  for (int i = 0; i < 100; i += 2) if (MPI_Free_mem(p[i])) errs++;
  int x; int rc = MPI_Free_mem(&x), cls; MPI_Error_class(rc, &cls); if (cls != MPI_ERR_BASE) errs++;
  rc = MPI_Free_mem(p[0]); MPI_Error_class(rc, &cls); if (cls != MPI_ERR_BASE) errs++;
  rc = MPI_Free_mem((char *)p[1] + 8); MPI_Error_class(rc, &cls); if (cls != MPI_ERR_BASE) errs++;
  for (int i = 1; i < 100; i += 2) if (MPI_Free_mem(p[i])) errs++;
  printf(errs ? " Found %d errors\n" : " No Errors\n", errs); MPI_Finalize(); return 0; }
