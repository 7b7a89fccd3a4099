/* rma_dtypes.c: derived datatypes on the origin side, the target side or
 * both, for Put, Get, Accumulate and Get_accumulate: vectors, indexed and
 * indexed-block types, a struct and a resized type (all of MPI_INT), a
 * vector of doubles, and the pair type MPI_2INT with MPI_MAXLOC. Windows
 * made by MPI_Win_create (private memory) and MPI_Win_allocate; each rank
 * works on its right neighbour's window under fences. Empty transfers
 * (count 0, or a type of size 0 such as a contiguous type of no ints, on
 * any side, NULL buffers) succeed and change nothing (sec. 12.3: a
 * transfer of no data is valid; the accumulate type rules concern
 * elements, and there are none). */
#include "common.h"

#define N 512 /* ints in each window */

static int val(int r, int i) { return r * 10000 + i; }

static void run(MPI_Win win, int *mem, const char *fn)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Datatype vec3, idx, iblk, vec2, strct, rsz, dvec, vgot, vec42;
    MPI_Type_vector(16, 1, 3, MPI_INT, &vec3);                     /* 16 ints, stride 3 */
    int bl[3] = {3, 1, 4}, dp[3] = {0, 5, 9};
    MPI_Type_indexed(3, bl, dp, MPI_INT, &idx);                     /* 8 ints */
    int ib[8] = {0, 2, 4, 6, 8, 10, 12, 14};
    MPI_Type_create_indexed_block(8, 1, ib, MPI_INT, &iblk);        /* 8 ints, every other */
    MPI_Type_vector(8, 1, 2, MPI_INT, &vec2);                       /* same shape */
    int sbl[2] = {2, 2};
    MPI_Aint sdp[2] = {0, 4 * sizeof(int)};
    MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, sbl, sdp, sty, &strct);               /* ints 0,1,4,5 */
    MPI_Type_create_resized(MPI_INT, 0, 4 * sizeof(int), &rsz);     /* every 4th int */
    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &dvec);                    /* 4 doubles, stride 4 */
    MPI_Type_vector(16, 1, 2, MPI_INT, &vgot);
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec42);
    MPI_Datatype all[] = {vec3, idx, iblk, vec2, strct, rsz, dvec, vgot, vec42};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_commit(&all[i]);

    for (int i = 0; i < N; i++) mem[i] = val(t_rank, i);
    double *dmem = (double *)(void *)(mem + 384); /* ints 384..511 hold 64 doubles */
    for (int i = 0; i < 64; i++) dmem[i] = t_rank + i * 0.5;
    int src[64], got[64], gacc[64];
    for (int i = 0; i < 64; i++) src[i] = t_rank * 100 + i + 1;
    memset(got, 0, sizeof got);
    memset(gacc, 0, sizeof gacc);
    double dsrc[4] = {1.5, 2.5, 3.5, 4.5};
    int pair[2] = {100000000 + t_rank, t_rank}; /* beats the value in int 300 */

    MPI_CHK(MPI_Win_fence(0, win));
    /* A: contiguous origin -> vector target at int 1 */
    MPI_CHK(MPI_Put(src, 16, MPI_INT, right, 1, 1, vec3, win));
    /* B: indexed origin -> contiguous target at int 100 */
    MPI_CHK(MPI_Put(src, 1, idx, right, 100, 8, MPI_INT, win));
    /* C: vector origin, indexed-block target at int 200, SUM */
    MPI_CHK(MPI_Accumulate(src, 1, vec2, right, 200, 1, iblk, MPI_SUM, win));
    /* D: Get of a vector target (ints 320, 323, ...) into every other int */
    MPI_CHK(MPI_Get(got, 1, vgot, right, 320, 1, vec3, win));
    /* E: struct target at int 240, Get_accumulate SUM, result as vector */
    MPI_CHK(MPI_Get_accumulate(src, 4, MPI_INT, gacc, 1, vec42, right, 240, 1, strct, MPI_SUM, win));
    /* F: resized target: 4 ints at 260, 264, 268, 272, REPLACE */
    MPI_CHK(MPI_Accumulate(src, 4, MPI_INT, right, 260, 4, rsz, MPI_REPLACE, win));
    /* G: doubles: SUM into every 4th double of the double area (int 384 = double 0) */
    MPI_CHK(MPI_Accumulate(dsrc, 4, MPI_DOUBLE, right, 384, 1, dvec, MPI_SUM, win));
    /* H: MPI_2INT MAXLOC at int 300 */
    MPI_CHK(MPI_Accumulate(pair, 1, MPI_2INT, right, 300, 1, MPI_2INT, MPI_MAXLOC, win));
    MPI_CHK(MPI_Win_fence(0, win));

    int want[N];
    for (int i = 0; i < N; i++) want[i] = val(t_rank, i);
    int lsrc[64];
    for (int i = 0; i < 64; i++) lsrc[i] = left * 100 + i + 1;
    for (int i = 0; i < 16; i++) want[1 + 3 * i] = lsrc[i];
    int k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < bl[b]; j++) want[100 + k++] = lsrc[dp[b] + j];
    for (int i = 0; i < 8; i++) want[200 + ib[i]] += lsrc[2 * i];
    int sidx[4] = {0, 1, 4, 5};
    for (int i = 0; i < 4; i++) want[240 + sidx[i]] += lsrc[i];
    for (int i = 0; i < 4; i++) want[260 + 4 * i] = lsrc[i];
    want[300] = 100000000 + left;
    want[301] = left;
    for (int i = 0; i < 384; i++)
        CHECK(mem[i] == want[i], "%s: int %d is %d, want %d", fn, i, mem[i], want[i]);
    for (int i = 0; i < 64; i++) {
        double w = t_rank + i * 0.5 + (i % 4 == 0 && i < 16 ? dsrc[i / 4] : 0.0);
        CHECK(dmem[i] == w, "%s: double %d is %g, want %g", fn, i, dmem[i], w);
    }
    for (int i = 0; i < 32; i++) {
        int w = i % 2 == 0 ? val(right, 320 + 3 * (i / 2)) : 0;
        CHECK(got[i] == w, "%s: Get into int %d: %d, want %d", fn, i, got[i], w);
    }
    for (int i = 0; i < 8; i++) {
        int w = i % 2 == 0 ? val(right, 240 + sidx[i / 2]) : 0;
        CHECK(gacc[i] == w, "%s: Get_accumulate result %d: %d, want %d", fn, i, gacc[i], w);
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_free(&all[i]);
}

/* Every call on empty data succeeds (the window's handler returns) and
 * leaves the target's memory alone. */
static void empty(MPI_Win win, int *mem, const char *fn)
{
    int right = (t_rank + 1) % t_size;
    MPI_Datatype none, one;
    MPI_Type_contiguous(0, MPI_INT, &none); /* size 0, no basic type */
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_commit(&none);
    MPI_Type_commit(&one);
    MPI_Datatype ty[4] = {none, one, MPI_INT, MPI_DOUBLE};
    int buf[4] = {0}, res[4] = {0};
    for (int i = 0; i < N; i++) mem[i] = val(t_rank, i);
    MPI_CHK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Win_fence(0, win));
    /* every triple of origin, result and target types; one element of the
     * empty type, none of the others */
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                MPI_Datatype o = ty[a], r = ty[b], t = ty[c];
                int on = a == 0, rn = b == 0, tn = c == 0;
                MPI_CHK(MPI_Put(buf, on, o, right, 0, tn, t, win));
                MPI_CHK(MPI_Get(buf, on, o, right, 0, tn, t, win));
                MPI_CHK(MPI_Accumulate(buf, on, o, right, 0, tn, t, MPI_SUM, win));
                MPI_CHK(MPI_Accumulate(NULL, on, o, right, 0, tn, t, MPI_REPLACE, win));
                MPI_CHK(MPI_Get_accumulate(buf, on, o, res, rn, r, right, 0, tn, t, MPI_SUM,
                                           win));
                MPI_CHK(MPI_Get_accumulate(NULL, on, o, NULL, rn, r, right, 0, tn, t,
                                           MPI_NO_OP, win));
            }
    MPI_CHK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == val(t_rank, i), "%s: empty transfers changed int %d to %d", fn, i,
              mem[i]);
    MPI_CHK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    MPI_Type_free(&none);
    MPI_Type_free(&one);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    int *mem = t_malloc(N * sizeof(int));
    MPI_CHK(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, "create");
    empty(win, mem, "create");
    MPI_CHK(MPI_Win_free(&win));
    free(mem);
    MPI_CHK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem, "allocate");
    empty(win, mem, "allocate");
    MPI_CHK(MPI_Win_free(&win));
    return t_finish();
}
