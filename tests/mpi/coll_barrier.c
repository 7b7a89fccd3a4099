/* coll_barrier.c: MPI_Barrier synchronises.  After a first barrier, one
 * rank (rank 0, then the last rank) sleeps 300 ms before entering the next
 * barrier; every other rank must spend most of that time inside the
 * barrier.  Plus many barriers in a row, alternating between world and a
 * duplicate, and on MPI_COMM_SELF. */
#include "common.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int late_ranks[2] = { 0, t_size - 1 };

    for (int k = 0; k < 2; k++) {
        int late = late_ranks[k];
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        if (t_rank == late)
            t_sleep_ms(300);
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        double dt = MPI_Wtime() - t0;
        CHECK(dt > 0.2, "left the barrier after %.3f s while rank %d slept 0.3 s before it", dt,
              late);
    }

    MPI_Comm dup;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int i = 0; i < 60; i++) {
        MPI_CHK(MPI_Barrier(i % 2 ? dup : MPI_COMM_WORLD));
        if (i % 20 == 0)
            MPI_CHK(MPI_Barrier(MPI_COMM_SELF));
    }
    MPI_CHK(MPI_Comm_free(&dup));
    return t_finish();
}
