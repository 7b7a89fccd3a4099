/* rma_fastpath.c: differential test of the fast paths of rma/fast.h.
 * The same pseudo-random sequence of Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op and Compare_and_swap calls (valid and invalid: types, ops,
 * counts, displacements out of range or unaligned, NULL buffers, bad
 * ranks, MPI_PROC_NULL, calls outside an epoch) goes from rank 0 to rank 1
 * on a window of MPI_Win_allocate (memory mapped: the fast paths) and on
 * one of MPI_Win_create on static memory (outside dmpi's shared heap,
 * reached by CMA: the general path). Error classes, fetched data and the
 * final window contents must be the same. Run with 2 ranks (other sizes
 * pass without testing). With another MPI it checks that MPI against
 * itself. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WBYTES 256
#define NCALLS 20000

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)(rng % n); }

static const MPI_Datatype types[] = {MPI_INT, MPI_UNSIGNED, MPI_INT64_T, MPI_UINT64_T, MPI_FLOAT,
    MPI_DOUBLE, MPI_LONG, MPI_INT32_T, MPI_SHORT, MPI_CHAR, MPI_BYTE, MPI_UINT8_T, MPI_C_BOOL,
    MPI_AINT, MPI_COUNT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_C_DOUBLE_COMPLEX,
    MPI_DATATYPE_NULL, MPI_UINT16_T, MPI_INT16_T};
#define NT (int)(sizeof types / sizeof types[0])
static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR,
    MPI_REPLACE, MPI_NO_OP, MPI_LAND, MPI_LOR, MPI_MAXLOC, MPI_OP_NULL};
#define NO (int)(sizeof ops / sizeof ops[0])

static int cls(int rc) { int c = rc; if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c); return c; }

/* One call; fills out[] with what it fetched; returns the error class. */
static int one_call(MPI_Win win, int kind, MPI_Datatype t, MPI_Datatype t2, int cnt, int cnt2,
                    MPI_Aint disp, int target, MPI_Op op, char *obuf, char *rbuf, int nullbuf)
{
    char *o = nullbuf == 1 ? NULL : obuf, *r = nullbuf == 2 ? NULL : rbuf;
    int64_t cmpv = 0; memcpy(&cmpv, obuf + 8, 8);
    switch (kind) {
    case 0: return cls(MPI_Put(o, cnt, t, target, disp, cnt2, t2, win));
    case 1: return cls(MPI_Get(r, cnt, t, target, disp, cnt2, t2, win));
    case 2: return cls(MPI_Accumulate(o, cnt, t, target, disp, cnt2, t2, op, win));
    case 3: return cls(MPI_Get_accumulate(o, cnt, t, r, cnt, t, target, disp, cnt2, t2, op, win));
    case 4: return cls(MPI_Fetch_and_op(o, r, t, target, disp, op, win));
    case 5: return cls(MPI_Compare_and_swap(o, nullbuf == 3 ? NULL : obuf + 64, r, t, target, disp, win));
    case 6: return cls(MPI_Win_flush(target, win));
    case 7: return cls(MPI_Win_flush_all(win));
    }
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank) printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    static char cmem[WBYTES]; /* not from malloc: the shared heap may serve that */
    char *amem;
    MPI_Win wa, wc;
    MPI_Win_allocate(rank ? WBYTES : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &wa);
    MPI_Win_create(rank ? cmem : NULL, rank ? WBYTES : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
    MPI_Win_set_errhandler(wa, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wc, MPI_ERRORS_RETURN);
    if (rank) {
        for (int i = 0; i < WBYTES; i++) amem[i] = cmem[i] = (char)(i * 7 + 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        char ob[512], ra[512], rc[512];
        int epoch = 1;
        static int hist[8][64];
        MPI_Win_lock_all(0, wa);
        MPI_Win_lock_all(0, wc);
        for (int n = 0; n < NCALLS; n++) {
            if (rnd(500) == 0) { /* change the epoch: none, lock_all, lock(1) */
                if (epoch == 1) { MPI_Win_unlock_all(wa); MPI_Win_unlock_all(wc); }
                if (epoch == 2) { MPI_Win_unlock(1, wa); MPI_Win_unlock(1, wc); }
                epoch = (int)rnd(3);
                if (epoch == 1) { MPI_Win_lock_all(0, wa); MPI_Win_lock_all(0, wc); }
                if (epoch == 2) { MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, wa); MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, wc); }
            }
            int kind = rnd(8);
            MPI_Datatype t = types[rnd(4) ? rnd(8) : rnd(NT)];
            MPI_Datatype t2 = rnd(10) ? t : types[rnd(NT)];
            int cnt = rnd(20) ? 1 + (int)rnd(4) : (int)rnd(3) - 1;
            int cnt2 = rnd(10) ? cnt : (int)rnd(5);
            MPI_Aint disp = rnd(20) ? (MPI_Aint)(rnd(4) ? rnd(WBYTES / 8) * 8 : rnd(WBYTES)) : (MPI_Aint)rnd(4 * WBYTES) - WBYTES;
            int target = rnd(30) ? 1 : (int)rnd(5) - 2; /* includes MPI_PROC_NULL? */
            if (rnd(30) == 0) target = MPI_PROC_NULL;
            MPI_Op op = rnd(3) ? ops[rnd(4) ? 0 : rnd(NO)] : ops[rnd(9)];
            int nullbuf = rnd(40) ? 0 : 1 + rnd(3);
            for (int i = 0; i < 512; i++) ob[i] = (char)rnd(256);
            /* keep floats finite and comparable */
            if (t == MPI_FLOAT || t == MPI_DOUBLE) for (int i = 0; i < 512; i++) ob[i] &= 0x3f;
            memset(ra, 0x55, sizeof ra);
            memset(rc, 0x55, sizeof rc);
            if (kind == 0 || kind == 1) {
                /* allow puts of random bytes, but then floats in the window may be NaN:
                   restrict float windows by clearing the top bits */
                for (int i = 0; i < 512; i++) ob[i] &= 0x3f;
            }
            int ea = one_call(wa, kind, t, t2, cnt, cnt2, disp, target, op, ob, ra, nullbuf);
            int ec = one_call(wc, kind, t, t2, cnt, cnt2, disp, target, op, ob, rc, nullbuf);
            if (epoch) { /* gets are complete at a flush (at once only on one node) */
                MPI_Win_flush_all(wa);
                MPI_Win_flush_all(wc);
            }
            hist[kind][ea < 64 ? ea : 63]++;
            if (ea != ec || memcmp(ra, rc, sizeof ra)) {
                if (bad++ < 20)
                    printf("call %d kind %d type %p/%p cnt %d/%d disp %ld target %d op %p null %d: class %d vs %d%s\n",
                           n, kind, (void *)t, (void *)t2, cnt, cnt2, (long)disp, target, (void *)op, nullbuf,
                           ea, ec, memcmp(ra, rc, sizeof ra) ? ", fetched data differ" : "");
            }
        }
        if (epoch == 1) { MPI_Win_unlock_all(wa); MPI_Win_unlock_all(wc); }
        if (epoch == 2) { MPI_Win_unlock(1, wa); MPI_Win_unlock(1, wc); }
        for (int k = 0; k < 8; k++) {
            printf("kind %d:", k);
            for (int c = 0; c < 64; c++)
                if (hist[k][c]) printf(" class%d=%d", c, hist[k][c]);
            printf("\n");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && memcmp(amem, cmem, WBYTES)) {
        int first = 0; while (amem[first] == cmem[first]) first++;
        printf("window contents differ (first at byte %d)\n", first);
        bad++;
    }
    int all;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(all ? "FAIL: %d mismatches\n" : " No Errors\n", all);
    MPI_Win_free(&wa);
    MPI_Win_free(&wc);
    MPI_Finalize();
    return all != 0;
}
