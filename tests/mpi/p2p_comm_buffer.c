/* p2p_comm_buffer.c: MPI 4.1 per-communicator buffers (attach, iflush,
 * detach), precedence over the missing process buffer, and
 * MPI_BUFFER_AUTOMATIC for the process buffer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, errs = 0; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup; MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int bsz = 10 * (1000 + MPI_BSEND_OVERHEAD); char *b = malloc(bsz);
  MPI_Comm_attach_buffer(dup, b, bsz);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x[250] = {0};
  /* no process buffer: a bsend on world fails, on dup works */
  int rc = MPI_Bsend(x, 250, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD), cls;
  MPI_Error_class(rc, &cls); if (cls != MPI_ERR_BUFFER) { errs++; printf("world bsend gave %d\n", cls); }
  for (int i = 0; i < 5; i++) { x[0] = i; if (MPI_Bsend(x, 250, MPI_INT, (rank + 1) % size, i, dup)) errs++; }
  MPI_Request r; MPI_Comm_iflush_buffer(dup, &r);
  for (int i = 0; i < 5; i++) { MPI_Recv(x, 250, MPI_INT, (rank + size - 1) % size, i, dup, MPI_STATUS_IGNORE); if (x[0] != i) errs++; }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  void *p; int n; MPI_Comm_detach_buffer(dup, &p, &n); if (p != b || n != bsz) errs++;
  MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
  MPI_Bsend(x, 250, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD);
  MPI_Recv(x, 250, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Buffer_flush();
  MPI_Buffer_detach(&p, &n); if (p != MPI_BUFFER_AUTOMATIC) errs++;
  MPI_Comm_free(&dup);
  int tot; MPI_Reduce(&errs, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(tot ? " Found %d errors\n" : " No Errors\n", tot);
  MPI_Finalize(); return 0; }
