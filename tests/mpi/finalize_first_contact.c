/* finalize_first_contact: MPI_Init and at once MPI_Finalize, with no
 * communication between them, so that across nodes the first packets of
 * every pair of ranks are the finalize messages, sent by both at the same
 * time. libfabric 1.17's TCP provider drops one of two connections that
 * cross, and a packet queued on it was lost: the peer then waited in
 * MPI_Finalize for ever (seen between test hosts at 8 ranks, src/transport/
 * ofi/ofi_contact.c). The run passes when every rank leaves MPI_Finalize;
 * the rank numbers, sizes and thread level queried on the way are checked. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided = -1, rank = -1, size = -1, errs = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 1;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank < 0) errs++;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 1 || rank >= size) errs++;
    if (provided < MPI_THREAD_SINGLE || provided > MPI_THREAD_MULTIPLE) errs++;
    if (errs) fprintf(stderr, "[rank %d] rank %d of %d, thread level %d\n", rank, rank, size, provided);
    /* Nothing is said between the ranks before MPI_Finalize: rank 0 cannot
     * know of the others' errors, which each reports with its exit code. */
    if (rank == 0 && !errs) printf(" No Errors\n");
    fflush(stdout);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return errs ? 1 : 0;
}
