/* rma_dynamic.c: MPI_Win_create_dynamic with MPI_Win_attach/MPI_Win_detach:
 * several regions per rank (malloc'ed and from MPI_Alloc_mem), addresses
 * exchanged with MPI_Get_address + allgather, Put/Get/Accumulate/
 * Fetch_and_op into each region under lock_all, attach and detach while
 * the window is in use, and (with MPI_ERRORS_RETURN on the window) an
 * access to detached memory fails with MPI_ERR_RMA_RANGE. */
#include "common.h"

#define NREG 3
#define LEN 256 /* int64 per region */

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    MPI_CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_CHK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int64_t *reg[NREG];
    reg[0] = t_malloc(LEN * 8);
    reg[1] = t_malloc(LEN * 8);
    MPI_CHK(MPI_Alloc_mem(LEN * 8, MPI_INFO_NULL, &reg[2]));
    for (int k = 0; k < NREG; k++) {
        for (int i = 0; i < LEN; i++) reg[k][i] = t_rank * 10000 + k * 1000 + i;
        MPI_CHK(MPI_Win_attach(win, reg[k], LEN * 8));
    }
    MPI_Aint mine[NREG], *all = t_malloc((size_t)t_size * NREG * sizeof(MPI_Aint));
    for (int k = 0; k < NREG; k++) MPI_Get_address(reg[k], &mine[k]);
    MPI_CHK(MPI_Allgather(mine, NREG, MPI_AINT, all, NREG, MPI_AINT, MPI_COMM_WORLD));
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Aint *ra = &all[right * NREG];

    MPI_CHK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < NREG; k++) {
        int64_t v[4] = {-1, -2, -3, -4}, got[4], one = 1, old = -1;
        MPI_CHK(MPI_Put(v, 4, MPI_INT64_T, right, ra[k] + 8 * 10, 4, MPI_INT64_T, win));
        MPI_CHK(MPI_Get(got, 4, MPI_INT64_T, right, ra[k] + 8 * 20, 4, MPI_INT64_T, win));
        MPI_CHK(MPI_Accumulate(&one, 1, MPI_INT64_T, right, ra[k] + 8 * 30, 1, MPI_INT64_T,
                               MPI_SUM, win));
        MPI_CHK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, ra[k] + 8 * 31, MPI_SUM, win));
        MPI_CHK(MPI_Win_flush(right, win));
        for (int i = 0; i < 4; i++)
            CHECK(got[i] == right * 10000 + k * 1000 + 20 + i, "region %d: got %lld", k,
                  (long long)got[i]);
        CHECK(old == right * 10000 + k * 1000 + 31, "region %d: fetched %lld", k, (long long)old);
    }
    MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < NREG; k++) {
        for (int i = 0; i < 4; i++)
            CHECK(reg[k][10 + i] == -1 - i, "region %d [%d] = %lld", k, 10 + i,
                  (long long)reg[k][10 + i]);
        CHECK(reg[k][30] == t_rank * 10000 + k * 1000 + 31, "region %d: sum %lld", k,
              (long long)reg[k][30]);
        CHECK(reg[k][31] == t_rank * 10000 + k * 1000 + 32, "region %d: fop %lld", k,
              (long long)reg[k][31]);
    }
    (void)left;

    /* detach region 1 everywhere; accesses to it now fail */
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_detach(win, reg[1]));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_lock_all(0, win));
    int64_t x = 5;
    if (!T_MPICH_QUIRK("MPICH 5.0.2 does not check accesses to dynamic windows")) {
        CHECK_CLASS(MPI_Put(&x, 1, MPI_INT64_T, right, ra[1], 1, MPI_INT64_T, win),
                    MPI_ERR_RMA_RANGE);
        /* straddling the end of an attached region is out of range too */
        CHECK_CLASS(MPI_Put(&x, 1, MPI_INT64_T, right, ra[0] + 8 * LEN - 4, 1, MPI_INT64_T, win),
                    MPI_ERR_RMA_RANGE);
    }
    MPI_CHK(MPI_Put(&x, 1, MPI_INT64_T, right, ra[2], 1, MPI_INT64_T, win)); /* still there */
    MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(reg[2][0] == 5, "region 2 after detach of 1: %lld", (long long)reg[2][0]);

    /* attach again (a fresh region) while others may be working */
    int64_t *fresh = t_malloc(64);
    fresh[0] = 0;
    MPI_CHK(MPI_Win_attach(win, fresh, 64));
    MPI_Aint fa, *fall = t_malloc((size_t)t_size * sizeof(MPI_Aint));
    MPI_Get_address(fresh, &fa);
    MPI_CHK(MPI_Allgather(&fa, 1, MPI_AINT, fall, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_CHK(MPI_Accumulate(&x, 1, MPI_INT64_T, right, fall[right], 1, MPI_INT64_T, MPI_SUM, win));
    MPI_CHK(MPI_Win_unlock(right, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(fresh[0] == 5, "fresh region: %lld", (long long)fresh[0]);

    MPI_CHK(MPI_Win_detach(win, fresh));
    MPI_CHK(MPI_Win_detach(win, reg[0]));
    MPI_CHK(MPI_Win_detach(win, reg[2]));
    MPI_CHK(MPI_Win_free(&win));
    free(reg[0]);
    free(reg[1]);
    MPI_Free_mem(reg[2]);
    free(fresh);
    free(all);
    free(fall);
    return t_finish();
}
