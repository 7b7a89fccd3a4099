/* rma_big.c: one-sided operations larger than one network packet and with
 * many pieces: every rank accumulates (MPI_SUM, then MPI_MAX) N doubles
 * into its right neighbour's window through a strided target type (every
 * other element), gets them back with MPI_Get_accumulate(MPI_NO_OP) and
 * with a strided MPI_Get, and puts through the same type. Across nodes
 * these split into many requests and transfers (rma/net.c); on one node
 * they take the locked and CMA paths. Checked against the arithmetic. */
#include "common.h"

#define N 100000 /* elements moved: 800 KB, many 64 KiB packets */

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Datatype every_other;
    MPI_CHK(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other));
    MPI_CHK(MPI_Type_commit(&every_other));
    double *mem;
    MPI_Win win;
    MPI_CHK(MPI_Win_allocate(2 * N * sizeof(double), sizeof(double), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 2 * N; i++) mem[i] = -1.0;
    double *src = t_malloc(N * sizeof(double)), *back = t_malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) src[i] = t_rank * 1000.0 + i;
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    /* put, then accumulate twice, all through the strided type */
    MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_CHK(MPI_Put(src, N, MPI_DOUBLE, right, 0, 1, every_other, win));
    MPI_CHK(MPI_Win_flush(right, win));
    MPI_CHK(MPI_Accumulate(src, N, MPI_DOUBLE, right, 0, 1, every_other, MPI_SUM, win));
    MPI_CHK(MPI_Accumulate(src, N, MPI_DOUBLE, right, 1, 1, every_other, MPI_MAX, win));
    MPI_CHK(MPI_Win_unlock(right, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    /* my memory: from left; even slots 2 * its value, odd slots max(-1, v) */
    MPI_CHK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        double v = left * 1000.0 + i;
        if (mem[2 * i] != 2 * v || mem[2 * i + 1] != v) {
            CHECK(0, "slot %d: %g %g, want %g %g", i, mem[2 * i], mem[2 * i + 1], 2 * v, v);
            bad++;
        }
    }
    MPI_CHK(MPI_Win_unlock(t_rank, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    /* read the right neighbour's odd slots back, two ways */
    MPI_CHK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_CHK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, back, N, MPI_DOUBLE, right, 1, 1,
                               every_other, MPI_NO_OP, win));
    MPI_CHK(MPI_Win_flush(right, win));
    for (int i = 0, k = 0; i < N && k < 5; i++)
        if (back[i] != src[i]) {
            CHECK(0, "get_accumulate %d: %g, want %g", i, back[i], src[i]);
            k++;
        }
    memset(back, 0, N * sizeof(double));
    MPI_CHK(MPI_Get(back, N, MPI_DOUBLE, right, 0, 1, every_other, win));
    MPI_CHK(MPI_Win_unlock(right, win));
    for (int i = 0, k = 0; i < N && k < 5; i++)
        if (back[i] != 2 * src[i]) {
            CHECK(0, "get %d: %g, want %g", i, back[i], 2 * src[i]);
            k++;
        }

    MPI_CHK(MPI_Win_free(&win));
    MPI_CHK(MPI_Type_free(&every_other));
    free(src);
    free(back);
    return t_finish();
}
