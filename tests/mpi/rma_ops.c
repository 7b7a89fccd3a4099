/* rma_ops.c: every communication call (Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap, and the request-based
 * Rput, Rget, Raccumulate, Rget_accumulate) under every synchronisation
 * mode (fence, post/start/complete/wait, exclusive and shared lock,
 * lock_all) on windows of every flavor. Each rank works on its right
 * neighbour's window; every slot of the window has one job (below). */
#include "common.h"

#define NSLOTS 24
enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVORS };
enum { S_FENCE, S_PSCW, S_LOCK_EXCL, S_LOCK_SHARED, S_LOCK_ALL, NSYNCS };
static const char *const fname[NFLAVORS] = {"create", "allocate", "shared", "dynamic"};
static const char *const sname[NSYNCS] = {"fence", "pscw", "lock(exclusive)", "lock(shared)",
                                          "lock_all"};

/* Initial value of slot i of rank r's window. */
static int64_t init_val(int r, int i) { return (int64_t)r * 1000 + i; }

static void open_epoch(int s, MPI_Win win, int right, MPI_Group lgrp, MPI_Group rgrp)
{
    switch (s) {
    case S_FENCE: MPI_CHK(MPI_Win_fence(0, win)); break;
    case S_PSCW:
        MPI_CHK(MPI_Win_post(lgrp, 0, win));
        MPI_CHK(MPI_Win_start(rgrp, 0, win));
        break;
    case S_LOCK_EXCL: MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win)); break;
    case S_LOCK_SHARED: MPI_CHK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win)); break;
    case S_LOCK_ALL: MPI_CHK(MPI_Win_lock_all(0, win)); break;
    }
}

static void close_epoch(int s, MPI_Win win, int right)
{
    switch (s) {
    case S_FENCE: MPI_CHK(MPI_Win_fence(0, win)); break;
    case S_PSCW:
        MPI_CHK(MPI_Win_complete(win));
        MPI_CHK(MPI_Win_wait(win));
        break;
    case S_LOCK_EXCL:
    case S_LOCK_SHARED: MPI_CHK(MPI_Win_unlock(right, win)); break;
    case S_LOCK_ALL: MPI_CHK(MPI_Win_unlock_all(win)); break;
    }
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
}

static void run(int f, int s, MPI_Win win, int64_t *mem, MPI_Aint *addr)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int passive = s >= S_LOCK_EXCL;
    MPI_Group world, lgrp, rgrp;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &lgrp);
    MPI_Group_incl(world, 1, &right, &rgrp);
    /* my window, before anyone accesses it */
    if (passive) MPI_CHK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, win));
    for (int i = 0; i < NSLOTS; i++) mem[i] = init_val(t_rank, i);
    if (passive) MPI_CHK(MPI_Win_unlock(t_rank, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Aint d = f == F_DYNAMIC ? addr[right] : 0; /* byte displacement of slot 0 */
#define D(i) (f == F_DYNAMIC ? d + (MPI_Aint)(i) * 8 : (MPI_Aint)(i))
    int64_t put[4], got[4], one = t_rank + 1, two = 2, three = 3, fifty = 50, nn = 99;
    int64_t r_gacc = -1, r_fop = -1, r_cas = -1, swap = 42, cmp = init_val(right, 11);
    int64_t rget[2] = {-1, -1}, r_rgacc = -1, r_nofop = -1, r_noacc = -1, rput[2];
    for (int i = 0; i < 4; i++) put[i] = t_rank * 100 + i;
    rput[0] = -7;
    rput[1] = -8;
    MPI_Request req[4];
    int nreq = 0;

    open_epoch(s, win, right, lgrp, rgrp);
    MPI_CHK(MPI_Put(put, 4, MPI_INT64_T, right, D(0), 4, MPI_INT64_T, win));
    MPI_CHK(MPI_Get(got, 4, MPI_INT64_T, right, D(4), 4, MPI_INT64_T, win));
    MPI_CHK(MPI_Accumulate(&one, 1, MPI_INT64_T, right, D(8), 1, MPI_INT64_T, MPI_SUM, win));
    MPI_CHK(MPI_Get_accumulate(&two, 1, MPI_INT64_T, &r_gacc, 1, MPI_INT64_T, right, D(9), 1,
                               MPI_INT64_T, MPI_SUM, win));
    MPI_CHK(MPI_Fetch_and_op(&three, &r_fop, MPI_INT64_T, right, D(10), MPI_SUM, win));
    MPI_CHK(MPI_Compare_and_swap(&swap, &cmp, &r_cas, MPI_INT64_T, right, D(11), win));
    MPI_CHK(MPI_Fetch_and_op(NULL, &r_nofop, MPI_INT64_T, right, D(18), MPI_NO_OP, win));
    MPI_CHK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, &r_noacc, 1, MPI_INT64_T, right, D(19), 1,
                               MPI_INT64_T, MPI_NO_OP, win));
    MPI_CHK(MPI_Accumulate(&nn, 1, MPI_INT64_T, right, D(20), 1, MPI_INT64_T, MPI_REPLACE, win));
    if (passive) { /* request-based calls need a passive-target epoch */
        MPI_CHK(MPI_Rput(rput, 2, MPI_INT64_T, right, D(12), 2, MPI_INT64_T, win, &req[nreq++]));
        MPI_CHK(MPI_Rget(rget, 2, MPI_INT64_T, right, D(14), 2, MPI_INT64_T, win, &req[nreq++]));
        MPI_CHK(MPI_Raccumulate(&fifty, 1, MPI_INT64_T, right, D(16), 1, MPI_INT64_T, MPI_MAX,
                                win, &req[nreq++]));
        MPI_CHK(MPI_Rget_accumulate(&nn, 1, MPI_INT64_T, &r_rgacc, 1, MPI_INT64_T, right, D(17),
                                    1, MPI_INT64_T, MPI_REPLACE, win, &req[nreq++]));
        MPI_CHK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        MPI_CHK(MPI_Win_flush(right, win));
    }
    close_epoch(s, win, right);

    const char *fn = fname[f], *sn = sname[s];
    for (int i = 0; i < 4; i++) {
        CHECK(got[i] == init_val(right, 4 + i), "%s/%s: Get[%d] = %lld", fn, sn, i,
              (long long)got[i]);
    }
    CHECK(r_gacc == init_val(right, 9), "%s/%s: Get_accumulate result %lld", fn, sn,
          (long long)r_gacc);
    CHECK(r_fop == init_val(right, 10), "%s/%s: Fetch_and_op result %lld", fn, sn,
          (long long)r_fop);
    CHECK(r_cas == init_val(right, 11), "%s/%s: Compare_and_swap result %lld", fn, sn,
          (long long)r_cas);
    CHECK(r_nofop == init_val(right, 18), "%s/%s: Fetch_and_op(NO_OP) %lld", fn, sn,
          (long long)r_nofop);
    CHECK(r_noacc == init_val(right, 19), "%s/%s: Get_accumulate(NO_OP) %lld", fn, sn,
          (long long)r_noacc);
    /* my own window, written by my left neighbour */
    if (passive) MPI_CHK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    int64_t want[NSLOTS];
    for (int i = 0; i < NSLOTS; i++) want[i] = init_val(t_rank, i);
    for (int i = 0; i < 4; i++) want[i] = left * 100 + i;
    want[8] += left + 1;
    want[9] += 2;
    want[10] += 3;
    want[11] = 42;
    want[20] = 99;
    if (passive) {
        want[12] = -7;
        want[13] = -8;
        want[16] = 50 > want[16] ? 50 : want[16];
        want[17] = 99;
        CHECK(rget[0] == init_val(right, 14) && rget[1] == init_val(right, 15),
              "%s/%s: Rget %lld %lld", fn, sn, (long long)rget[0], (long long)rget[1]);
        CHECK(r_rgacc == init_val(right, 17), "%s/%s: Rget_accumulate result %lld", fn, sn,
              (long long)r_rgacc);
    }
    for (int i = 0; i < NSLOTS; i++)
        CHECK(mem[i] == want[i], "%s/%s: slot %d is %lld, want %lld", fn, sn, i,
              (long long)mem[i], (long long)want[i]);
    if (passive) MPI_CHK(MPI_Win_unlock(t_rank, win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Group_free(&lgrp);
    MPI_Group_free(&rgrp);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const MPI_Aint bytes = NSLOTS * sizeof(int64_t);
    int one_node = t_world_one_node();
    for (int f = 0; f < NFLAVORS; f++) {
        if (f == F_SHARED && !one_node) continue; /* the ranks cannot share memory */
        MPI_Win win;
        int64_t *mem = NULL, *priv = NULL;
        int du = f == F_DYNAMIC ? 1 : 8;
        switch (f) {
        case F_CREATE:
            priv = mem = t_malloc((size_t)bytes);
            MPI_CHK(MPI_Win_create(mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            break;
        case F_ALLOCATE:
            MPI_CHK(MPI_Win_allocate(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
            break;
        case F_SHARED:
            MPI_CHK(MPI_Win_allocate_shared(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
            break;
        default:
            MPI_CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            priv = mem = t_malloc((size_t)bytes);
            MPI_CHK(MPI_Win_attach(win, mem, bytes));
            break;
        }
        MPI_Aint *addr = t_malloc((size_t)t_size * sizeof(MPI_Aint)), a;
        MPI_Get_address(mem, &a);
        MPI_CHK(MPI_Allgather(&a, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
        for (int s = 0; s < NSYNCS; s++) run(f, s, win, mem, addr);
        if (f == F_DYNAMIC) MPI_CHK(MPI_Win_detach(win, mem));
        MPI_CHK(MPI_Win_free(&win));
        free(priv);
        free(addr);
    }
    return t_finish();
}
