/* rma_cas_mutex.c: a spin lock built from MPI_Compare_and_swap on rank 0's
 * window protects a counter that every rank increments with a plain
 * MPI_Get + MPI_Put (not atomic by themselves); the final count is exact
 * and no two ranks are ever inside at once (an "owner" word is checked
 * and set inside). The lock word is int64 on MPI_Win_allocate memory and
 * int32 on MPI_Win_create memory; the lock is released with
 * MPI_Fetch_and_op(MPI_REPLACE) or MPI_Accumulate(MPI_REPLACE). */
#include "common.h"

#define ITERS 100

static void acquire(MPI_Win win, MPI_Datatype dt, void *mine, void *result, size_t sz)
{
    char zero[8] = {0};
    for (;;) {
        MPI_CHK(MPI_Compare_and_swap(mine, zero, result, dt, 0, 0, win));
        MPI_CHK(MPI_Win_flush(0, win));
        if (!memcmp(result, zero, sz)) return;
    }
}

static void run(MPI_Win win, char *mem, MPI_Datatype dt, size_t sz, const char *what)
{
    if (t_rank == 0) memset(mem, 0, 32);
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    int64_t me64 = t_rank + 1, res64;
    int32_t me32 = t_rank + 1, res32;
    void *mine = sz == 8 ? (void *)&me64 : (void *)&me32;
    void *res = sz == 8 ? (void *)&res64 : (void *)&res32;
    char zero[8] = {0};
    MPI_CHK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < ITERS; it++) {
        acquire(win, dt, mine, res, sz);
        int64_t owner = -1, count = -1, me = t_rank;
        MPI_CHK(MPI_Get(&owner, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Get(&count, 1, MPI_INT64_T, 0, 16, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Win_flush(0, win));
        CHECK(owner == 0, "%s: rank %lld is inside the lock too", what, (long long)owner - 1);
        owner = me + 1;
        count++;
        MPI_CHK(MPI_Put(&owner, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Put(&count, 1, MPI_INT64_T, 0, 16, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Win_flush(0, win));
        owner = 0;
        MPI_CHK(MPI_Put(&owner, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Win_flush(0, win));
        if (it % 2)
            MPI_CHK(MPI_Fetch_and_op(zero, res, dt, 0, 0, MPI_REPLACE, win));
        else
            MPI_CHK(MPI_Accumulate(zero, 1, dt, 0, 0, 1, dt, MPI_REPLACE, win));
        MPI_CHK(MPI_Win_flush(0, win));
    }
    MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0) {
        int64_t count;
        memcpy(&count, mem + 16, 8);
        CHECK(count == (int64_t)ITERS * t_size, "%s: count %lld, want %lld", what,
              (long long)count, (long long)ITERS * t_size);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    char *mem;
    MPI_CHK(MPI_Win_allocate(32, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem, MPI_INT64_T, 8, "allocate/int64");
    run(win, mem, MPI_INT32_T, 4, "allocate/int32");
    MPI_CHK(MPI_Win_free(&win));
    mem = t_malloc(32);
    MPI_CHK(MPI_Win_create(mem, 32, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, MPI_INT32_T, 4, "create/int32");
    run(win, mem, MPI_INT64_T, 8, "create/int64");
    MPI_CHK(MPI_Win_free(&win));
    free(mem);
    return t_finish();
}
