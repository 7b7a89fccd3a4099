/* rma_errors_fatal.c: an error on a window whose handler was never set
 * ends the job (MPI_ERRORS_ARE_FATAL is every window's default, even when
 * the communicator returns errors): MPI_Win_lock with an invalid lock type.
 * Run with expect=fail; the output must name MPI_Win_lock. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win;
    int *mem;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    if (T_MPICH_QUIRK("MPICH 5.0.2 gives a new window the communicator's handler"))
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    MPI_Win_lock(12345, 0, 0, win); /* fatal */
    fprintf(stderr, "[rank %d] MPI_Win_lock with a bad lock type returned\n", t_rank);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
