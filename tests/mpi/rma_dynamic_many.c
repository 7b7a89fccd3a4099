/* rma_dynamic_many: a dynamic window with many attached regions (issue 22,
 * item 5). Every rank attaches NREG regions of random sizes from 1 byte to
 * 1 MiB (seeded; malloc'ed, some from MPI_Alloc_mem, and a run of adjacent
 * regions cut from one buffer), in shuffled address order. Its left
 * neighbour then, region by region, gets, puts, accumulates (bytes, uint64
 * count > 1), get_accumulates, fetch_and_ops and compare_and_swaps, and
 * puts with a datatype whose extent exceeds its size, every access ending
 * exactly at the region's end, with target addresses from MPI_Get_address
 * and MPI_Aint_add; first under lock_all + flush_all, then (after half the
 * regions were detached and attached again in another order) under fence.
 * An access to a detached region fails with MPI_ERR_RMA_RANGE. Each rank
 * is the only origin for its right neighbour, so it knows what the tail
 * of every region there must hold (the shadow). */
#include "common.h"

#include <stdbool.h>

#define NREG 1200
#define NADJ 64      /* adjacent regions cut from one buffer */
#define TAIL 4096    /* bytes accessed at the end of each region */
#define MAXSZ (1 << 20)

static unsigned long long rs;
static unsigned rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rs >> 33);
}

typedef struct plan {
    MPI_Aint size[NREG];
} plan;

/* Sizes of rank r's regions (any rank can compute them). */
static void make_plan(int r, plan *p)
{
    rs = 0xd1ce0000ull + (unsigned long long)r * 104729u;
    for (int i = 0; i < NREG; i++) {
        if (i < NADJ) {
            p->size[i] = 1 + (MPI_Aint)(rnd() % 4000);
        } else {
            int bits = (int)(rnd() % 21); /* log-uniform 1 B .. 1 MiB */
            MPI_Aint hi = (MPI_Aint)1 << bits;
            p->size[i] = hi / 2 + 1 + (MPI_Aint)(rnd() % (unsigned)(hi - hi / 2));
            if (p->size[i] > MAXSZ) p->size[i] = MAXSZ;
        }
    }
    p->size[NADJ] = MAXSZ; /* at least one of the largest */
    p->size[NADJ + 1] = 1;
}

static unsigned char pat(int rank, int reg, MPI_Aint j, int gen)
{
    return (unsigned char)(rank * 31 + reg * 7 + j * 13 + gen * 101 + (j >> 8));
}

static MPI_Win win;
static int me, right;
static plan mine_p, right_p;
static MPI_Aint *raddr;          /* right neighbour's region addresses */
static unsigned char **shadow;   /* what I expect in the tail of each of its regions */
static unsigned char **gbuf;     /* results of gets */
static uint64_t (*racc)[8];      /* get_accumulate results */
static uint64_t *rcas;
static unsigned char *rfop;
static MPI_Datatype resized;     /* uint64 with extent 16 */
static bool fence_mode;

static void sync_step(void)
{
    if (fence_mode) MPI_CHK(MPI_Win_fence(0, win));
    else MPI_CHK(MPI_Win_flush_all(win));
}

static MPI_Aint tail_of(int r) { return right_p.size[r] < TAIL ? right_p.size[r] : TAIL; }
static MPI_Aint at_end(int r, MPI_Aint bytes)
{
    return MPI_Aint_add(raddr[r], right_p.size[r] - bytes);
}

/* Gets the tail of every region of the right neighbour and compares it
 * with the shadow (step names the step in messages). */
static void get_and_compare(int gen, int step)
{
    for (int r = 0; r < NREG; r++) {
        MPI_Aint m = tail_of(r);
        MPI_CHK(MPI_Get(gbuf[r], (int)m, MPI_BYTE, right, at_end(r, m), (int)m, MPI_BYTE, win));
    }
    sync_step();
    for (int r = 0; r < NREG; r++)
        CHECK(memcmp(gbuf[r], shadow[r], (size_t)tail_of(r)) == 0,
              "gen %d step %d: region %d (size %lld) differs", gen, step, r,
              (long long)right_p.size[r]);
}

/* All the steps over every region of the right neighbour; gen tells the
 * round. The shadow holds the tail's contents before. */
static void run_steps(int gen)
{
    int n = NREG;
    /* 1: get the tail, compare */
    get_and_compare(gen, 1);
    /* 2: put a new tail */
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        for (MPI_Aint j = 0; j < m; j++) shadow[r][j] = pat(right, r, j, gen + 50);
        MPI_CHK(MPI_Put(shadow[r], (int)m, MPI_BYTE, right, at_end(r, m), (int)m, MPI_BYTE, win));
    }
    sync_step();
    /* 3: byte accumulate (BXOR) over the whole tail */
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        for (MPI_Aint j = 0; j < m; j++) gbuf[r][j] = (unsigned char)(j * 3 + 1);
        MPI_CHK(MPI_Accumulate(gbuf[r], (int)m, MPI_BYTE, right, at_end(r, m), (int)m, MPI_BYTE,
                               MPI_BXOR, win));
        for (MPI_Aint j = 0; j < m; j++) shadow[r][j] ^= (unsigned char)(j * 3 + 1);
    }
    sync_step();
    /* 4: uint64 accumulate (SUM), count up to 8, at the end */
    static uint64_t add[8] = {1, 2, 3, 4, 5, 6, 7, 0x100000001ull};
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        int k = (int)(m / 8 < 8 ? m / 8 : 8);
        if (k == 0) continue;
        MPI_CHK(MPI_Accumulate(add, k, MPI_UINT64_T, right, at_end(r, 8 * k), k, MPI_UINT64_T,
                               MPI_SUM, win));
        unsigned char *p = shadow[r] + m - 8 * k;
        for (int i = 0; i < k; i++) {
            uint64_t v;
            memcpy(&v, p + 8 * i, 8);
            v += add[i];
            memcpy(p + 8 * i, &v, 8);
        }
    }
    sync_step();
    /* 5: get_accumulate: uint64 BXOR count up to 8; smaller: uint8 SUM */
    static uint64_t x[8] = {0xff, 0xff00, 3, 0x8000000000000000ull, 9, 10, 11, 12};
    static unsigned char one8[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        int k = (int)(m / 8 < 8 ? m / 8 : 8);
        if (k > 0)
            MPI_CHK(MPI_Get_accumulate(x, k, MPI_UINT64_T, racc[r], k, MPI_UINT64_T, right,
                                       at_end(r, 8 * k), k, MPI_UINT64_T, MPI_BXOR, win));
        else
            MPI_CHK(MPI_Get_accumulate(one8, (int)m, MPI_UINT8_T, racc[r], (int)m, MPI_UINT8_T,
                                       right, at_end(r, m), (int)m, MPI_UINT8_T, MPI_SUM, win));
    }
    sync_step();
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        int k = (int)(m / 8 < 8 ? m / 8 : 8);
        if (k > 0) {
            unsigned char *p = shadow[r] + m - 8 * k;
            CHECK(memcmp(racc[r], p, (size_t)(8 * k)) == 0, "gen %d step 5: region %d", gen, r);
            for (int i = 0; i < k; i++) {
                uint64_t v;
                memcpy(&v, p + 8 * i, 8);
                v ^= x[i];
                memcpy(p + 8 * i, &v, 8);
            }
        } else {
            CHECK(memcmp(racc[r], shadow[r], (size_t)m) == 0, "gen %d step 5: region %d", gen, r);
            for (MPI_Aint j = 0; j < m; j++) shadow[r][j]++;
        }
    }
    /* 6: fetch_and_op on the last byte */
    unsigned char three = 3;
    for (int r = 0; r < n; r++)
        MPI_CHK(MPI_Fetch_and_op(&three, &rfop[r], MPI_UINT8_T, right, at_end(r, 1), MPI_SUM,
                                 win));
    sync_step();
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        CHECK(rfop[r] == shadow[r][m - 1], "gen %d step 6: region %d: %d, want %d", gen, r,
              rfop[r], shadow[r][m - 1]);
        shadow[r][m - 1] += 3;
    }
    /* 7: compare_and_swap on the last 8 bytes (the last byte when smaller) */
    static uint64_t cmpv[NREG], newv[NREG];
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        newv[r] = 0x0123456789abcdefull ^ (uint64_t)r;
        if (m >= 8) {
            memcpy(&cmpv[r], shadow[r] + m - 8, 8);
            MPI_CHK(MPI_Compare_and_swap(&newv[r], &cmpv[r], &rcas[r], MPI_UINT64_T, right,
                                         at_end(r, 8), win));
        } else {
            cmpv[r] = shadow[r][m - 1];
            MPI_CHK(MPI_Compare_and_swap(&newv[r], &cmpv[r], &rcas[r], MPI_BYTE, right,
                                         at_end(r, 1), win));
        }
    }
    sync_step();
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        if (m >= 8) {
            CHECK(rcas[r] == cmpv[r], "gen %d step 7: region %d", gen, r);
            memcpy(shadow[r] + m - 8, &newv[r], 8);
        } else {
            CHECK(((unsigned char *)&rcas[r])[0] == (unsigned char)cmpv[r],
                  "gen %d step 7: region %d", gen, r);
            shadow[r][m - 1] = ((unsigned char *)&newv[r])[0];
        }
    }
    /* 8: put with a datatype of extent 16, size 8, ending at the end */
    for (int r = 0; r < n; r++) {
        MPI_Aint m = tail_of(r);
        if (m < 24) continue;
        int c = (int)((m - 8) / 16 + 1);
        if (c > 64) c = 64;
        MPI_Aint span = (MPI_Aint)(c - 1) * 16 + 8;
        uint64_t vals[64];
        for (int i = 0; i < c; i++) vals[i] = 0xa5a5000000000000ull + (uint64_t)r * 1000 + (uint64_t)i + (uint64_t)gen;
        MPI_CHK(MPI_Put(vals, c, MPI_UINT64_T, right, at_end(r, span), c, resized, win));
        sync_step(); /* vals lives on the stack */
        unsigned char *p = shadow[r] + m - span;
        for (int i = 0; i < c; i++) memcpy(p + 16 * i, &vals[i], 8);
        if (fence_mode) break; /* one fence per region would be slow: do one */
    }
    sync_step();
    /* 9: get the tail again, compare */
    get_and_compare(gen, 9);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    me = t_rank;
    right = (me + 1) % t_size;
    make_plan(me, &mine_p);
    make_plan(right, &right_p);
    MPI_CHK(MPI_Type_create_resized(MPI_UINT64_T, 0, 16, &resized));
    MPI_CHK(MPI_Type_commit(&resized));
    MPI_CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_CHK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* my regions: adjacent ones from one buffer, then malloc / Alloc_mem */
    unsigned char **reg = t_malloc(sizeof(*reg) * NREG);
    bool *am = t_malloc(sizeof(bool) * NREG);
    MPI_Aint adj = 0;
    for (int i = 0; i < NADJ; i++) adj += mine_p.size[i];
    unsigned char *adjbuf = t_malloc((size_t)adj);
    adj = 0;
    rs = 0xabcdull + (unsigned long long)me;
    for (int i = 0; i < NREG; i++) {
        am[i] = false;
        if (i < NADJ) {
            reg[i] = adjbuf + adj;
            adj += mine_p.size[i];
        } else if (rnd() % 8 == 0) {
            MPI_CHK(MPI_Alloc_mem(mine_p.size[i], MPI_INFO_NULL, &reg[i]));
            am[i] = true;
        } else {
            reg[i] = t_malloc((size_t)mine_p.size[i]);
        }
        MPI_Aint s = mine_p.size[i], from = s > TAIL ? s - TAIL : 0;
        memset(reg[i], 0, (size_t)from);
        for (MPI_Aint j = from; j < s; j++) reg[i][j] = pat(me, i, j - from, 0);
    }
    /* attach in a shuffled order (addresses neither increasing nor decreasing) */
    int *order = t_malloc(sizeof(int) * NREG);
    for (int i = 0; i < NREG; i++) order[i] = i;
    for (int i = NREG - 1; i > 0; i--) {
        int j = (int)(rnd() % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < NREG; i++)
        MPI_CHK(MPI_Win_attach(win, reg[order[i]], mine_p.size[order[i]]));

    MPI_Aint *maddr = t_malloc(sizeof(MPI_Aint) * NREG);
    for (int i = 0; i < NREG; i++) MPI_CHK(MPI_Get_address(reg[i], &maddr[i]));
    raddr = t_malloc(sizeof(MPI_Aint) * NREG);
    MPI_CHK(MPI_Sendrecv(maddr, NREG, MPI_AINT, (me + t_size - 1) % t_size, 1, raddr, NREG,
                         MPI_AINT, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    shadow = t_malloc(sizeof(*shadow) * NREG);
    gbuf = t_malloc(sizeof(*gbuf) * NREG);
    racc = t_malloc(sizeof(*racc) * NREG);
    rcas = t_malloc(sizeof(*rcas) * NREG);
    rfop = t_malloc(NREG);
    for (int r = 0; r < NREG; r++) {
        MPI_Aint m = tail_of(r);
        shadow[r] = t_malloc((size_t)m);
        gbuf[r] = t_malloc((size_t)m);
        for (MPI_Aint j = 0; j < m; j++) shadow[r][j] = pat(right, r, j, 0);
    }

    /* passive target */
    MPI_CHK(MPI_Win_lock_all(0, win));
    fence_mode = false;
    run_steps(1);
    MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    /* detach every other region, check an access to one fails, attach
     * them again in reverse order */
    for (int i = NREG - 1; i >= 0; i--)
        if (order[i] % 2) MPI_CHK(MPI_Win_detach(win, reg[order[i]]));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_lock_all(0, win));
    unsigned char b = 0;
    int rc = MPI_Put(&b, 1, MPI_BYTE, right, raddr[1], 1, MPI_BYTE, win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put to a detached region: class %d", cls);
    rc = MPI_Put(&b, 1, MPI_BYTE, right, raddr[2], 1, MPI_BYTE, win);
    CHECK(rc == MPI_SUCCESS, "put to an attached region: %s", t_errstr(rc));
    MPI_CHK(MPI_Win_unlock_all(win));
    shadow[2][0] = right_p.size[2] <= TAIL ? 0 : shadow[2][0];
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = NREG - 1; i >= 0; i--)
        if (order[NREG - 1 - i] % 2) MPI_CHK(MPI_Win_attach(win, reg[order[NREG - 1 - i]],
                                                           mine_p.size[order[NREG - 1 - i]]));

    /* active target */
    fence_mode = true;
    MPI_CHK(MPI_Win_fence(0, win));
    run_steps(2);
    MPI_CHK(MPI_Win_fence(0, win));

    for (int i = 0; i < NREG; i++) MPI_CHK(MPI_Win_detach(win, reg[i]));
    MPI_CHK(MPI_Win_free(&win));
    for (int i = NADJ; i < NREG; i++) {
        if (am[i]) MPI_CHK(MPI_Free_mem(reg[i]));
        else free(reg[i]);
    }
    for (int r = 0; r < NREG; r++) {
        free(shadow[r]);
        free(gbuf[r]);
    }
    free(adjbuf);
    free(shadow);
    free(gbuf);
    free(racc);
    free(rcas);
    free(rfop);
    free(raddr);
    free(maddr);
    free(order);
    free(am);
    free(reg);
    MPI_CHK(MPI_Type_free(&resized));
    return t_finish();
}
