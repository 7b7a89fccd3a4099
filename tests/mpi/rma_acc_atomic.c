/* rma_acc_atomic.c: accumulates from every rank at once to the same
 * locations of rank 0 give exact results (element-wise atomicity): SUM on
 * int64, int32, double, short and a misaligned int64, MAX and BXOR on
 * int64, a 1000-element int64 array, and Fetch_and_op tickets that must
 * all differ. Under lock_all (everyone at once) and under exclusive locks,
 * on windows of MPI_Win_allocate (native atomics) and MPI_Win_create
 * (private memory: the target's mutex). Also a Get_accumulate of 500
 * int64 into every other element (a strided target type): the sums are
 * exact, the holes untouched, and under an exclusive lock (where dmpi
 * combines long runs without atomics) each result is one moment's state:
 * element j is (j + 1) times the same count. */
#include "common.h"

#define ITERS 200
#define ARR 1000

/* Byte offsets in the window. */
enum { O_I64 = 0, O_MAX = 8, O_XOR = 16, O_TICKET = 24, O_DBL = 32, O_I32 = 40, O_SHORT = 44,
       O_MISAL = 52 /* int64 at an address that is 4 mod 8 */, O_ARR = 64,
       O_STR = O_ARR + ARR * 8 /* ARR int64 slots, every other one accumulated */,
       BYTES = O_STR + ARR * 8 };

static void run(MPI_Win win, char *mem, int excl, const char *what)
{
    if (t_rank == 0) memset(mem, 0, BYTES);
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    int64_t one = t_rank + 1, me = t_rank, bit = (int64_t)1 << (t_rank % 63), one1 = 1, dummy = 0;
    int32_t one32 = t_rank + 1;
    short ones = 1;
    double half = 0.5 * (t_rank + 1);
    int64_t *arr = t_malloc(ARR * sizeof(int64_t)), *tickets = t_malloc(ITERS * sizeof(int64_t));
    for (int i = 0; i < ARR; i++) arr[i] = i + t_rank;
    int64_t *steps = t_malloc(ARR / 2 * sizeof(int64_t)), *snap = t_malloc(ARR / 2 * sizeof(int64_t));
    for (int j = 0; j < ARR / 2; j++) steps[j] = j + 1;
    MPI_Datatype every_other;
    MPI_CHK(MPI_Type_vector(ARR / 2, 1, 2, MPI_INT64_T, &every_other));
    MPI_CHK(MPI_Type_commit(&every_other));
    if (!excl) MPI_CHK(MPI_Win_lock_all(0, win));
    for (int it = 0; it < ITERS; it++) {
        if (excl) MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_CHK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, O_I64, 1, MPI_INT64_T, MPI_SUM, win));
        MPI_CHK(MPI_Accumulate(&me, 1, MPI_INT64_T, 0, O_MAX, 1, MPI_INT64_T, MPI_MAX, win));
        if (it % 2 == 0)
            MPI_CHK(MPI_Accumulate(&bit, 1, MPI_INT64_T, 0, O_XOR, 1, MPI_INT64_T, MPI_BXOR, win));
        /* the result is valid once the operation completes (unlock) */
        MPI_CHK(MPI_Fetch_and_op(&one1, &tickets[it], MPI_INT64_T, 0, O_TICKET, MPI_SUM, win));
        MPI_CHK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, O_DBL, 1, MPI_DOUBLE, MPI_SUM, win));
        MPI_CHK(MPI_Accumulate(&one32, 1, MPI_INT32_T, 0, O_I32, 1, MPI_INT32_T, MPI_SUM, win));
        MPI_CHK(MPI_Accumulate(&ones, 1, MPI_SHORT, 0, O_SHORT, 1, MPI_SHORT, MPI_SUM, win));
        MPI_CHK(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &dummy, 1, MPI_INT64_T, 0, O_MISAL, 1,
                                   MPI_INT64_T, MPI_SUM, win));
        if (it % 10 == 0) {
            MPI_CHK(MPI_Accumulate(arr, ARR, MPI_INT64_T, 0, O_ARR, ARR, MPI_INT64_T, MPI_SUM, win));
            MPI_CHK(MPI_Get_accumulate(steps, ARR / 2, MPI_INT64_T, snap, ARR / 2, MPI_INT64_T, 0,
                                       O_STR, 1, every_other, MPI_SUM, win));
        }
        if (excl) MPI_CHK(MPI_Win_unlock(0, win));
        if (excl && it % 10 == 0)
            for (int j = 1; j < ARR / 2; j++)
                if (snap[j] != snap[0] * (j + 1)) {
                    CHECK(0, "%s: get_accumulate result element %d is %lld, element 0 %lld", what,
                          j, (long long)snap[j], (long long)snap[0]);
                    break;
                }
    }
    if (!excl) MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Type_free(&every_other));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    /* every ticket 0 .. size*ITERS-1 handed out exactly once */
    int64_t *all = t_rank == 0 ? t_malloc((size_t)t_size * ITERS * sizeof(int64_t)) : NULL;
    MPI_CHK(MPI_Gather(tickets, ITERS, MPI_INT64_T, all, ITERS, MPI_INT64_T, 0, MPI_COMM_WORLD));
    if (t_rank == 0) {
        int64_t n = (int64_t)t_size * ITERS, sum_ranks = (int64_t)t_size * (t_size + 1) / 2;
        char *seen = calloc((size_t)n, 1);
        for (int64_t i = 0; i < n; i++) {
            CHECK(all[i] >= 0 && all[i] < n && !seen[all[i]], "%s: ticket %lld bad or repeated",
                  what, (long long)all[i]);
            if (all[i] >= 0 && all[i] < n) seen[all[i]] = 1;
        }
        free(seen);
        int64_t v64, x = 0;
        memcpy(&v64, mem + O_I64, 8);
        CHECK(v64 == ITERS * sum_ranks, "%s: int64 SUM %lld, want %lld", what, (long long)v64,
              (long long)(ITERS * sum_ranks));
        memcpy(&v64, mem + O_MAX, 8);
        CHECK(v64 == t_size - 1, "%s: MAX %lld", what, (long long)v64);
        for (int r = 0; r < t_size; r++) x ^= (ITERS / 2) % 2 ? (int64_t)1 << (r % 63) : 0;
        memcpy(&v64, mem + O_XOR, 8);
        CHECK(v64 == x, "%s: BXOR %llx, want %llx", what, (long long)v64, (long long)x);
        memcpy(&v64, mem + O_TICKET, 8);
        CHECK(v64 == n, "%s: ticket counter %lld", what, (long long)v64);
        double d;
        memcpy(&d, mem + O_DBL, 8);
        CHECK(d == 0.5 * ITERS * sum_ranks, "%s: double SUM %g, want %g", what, d,
              0.5 * ITERS * sum_ranks);
        int32_t v32;
        memcpy(&v32, mem + O_I32, 4);
        CHECK(v32 == ITERS * sum_ranks, "%s: int32 SUM %d", what, v32);
        short vs;
        memcpy(&vs, mem + O_SHORT, 2);
        CHECK(vs == ITERS * t_size, "%s: short SUM %d, want %d", what, vs, ITERS * t_size);
        memcpy(&v64, mem + O_MISAL, 8);
        CHECK(v64 == ITERS * sum_ranks, "%s: misaligned int64 SUM %lld", what, (long long)v64);
        for (int i = 0; i < ARR; i++) {
            int64_t want = (ITERS / 10) * ((int64_t)t_size * i + (int64_t)t_size * (t_size - 1) / 2);
            memcpy(&v64, mem + O_ARR + 8 * i, 8);
            CHECK(v64 == want, "%s: array element %d is %lld, want %lld", what, i,
                  (long long)v64, (long long)want);
        }
        for (int i = 0; i < ARR; i++) {
            int64_t want = i % 2 ? 0 : (int64_t)(ITERS / 10) * t_size * (i / 2 + 1);
            memcpy(&v64, mem + O_STR + 8 * i, 8);
            if (v64 != want) {
                CHECK(0, "%s: strided slot %d is %lld, want %lld", what, i, (long long)v64,
                      (long long)want);
                break;
            }
        }
    }
    free(all);
    free(arr);
    free(steps);
    free(snap);
    free(tickets);
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    char *mem;
    MPI_CHK(MPI_Win_allocate(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem, 0, "allocate/lock_all");
    run(win, mem, 1, "allocate/exclusive");
    MPI_CHK(MPI_Win_free(&win));
    mem = t_malloc(BYTES);
    MPI_CHK(MPI_Win_create(mem, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, 0, "create/lock_all");
    run(win, mem, 1, "create/exclusive");
    MPI_CHK(MPI_Win_free(&win));
    free(mem);
    return t_finish();
}
