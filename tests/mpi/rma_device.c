/* rma_device: one-sided communication with (emulated) device buffers.
 *
 * Under DMPI_ACCEL=emul (set here before MPI_Init unless the environment
 * says otherwise; DMPI_TEST_DEVICE=cuda uses a GPU) origin, compare and
 * result buffers in device memory work in every communication call:
 * Put, Get, Accumulate, Get_accumulate, Fetch_and_op (MPI_NO_OP too),
 * Compare_and_swap, and Rput, Rget, Raccumulate, Rget_accumulate under
 * MPI_Win_lock_all; small (the fast paths' sizes) and 1 MiB transfers, and
 * a vector type with holes on the origin side (a Get must leave the holes
 * alone). Each rank works on its right neighbour's window (host memory
 * from MPI_Win_allocate and MPI_Win_create); the targets check their own
 * memory, the origins their device buffers through the test's view of the
 * memory (emul_mem.h).
 *
 * Window memory in device memory is refused (not supported yet): with
 * MPI_ERRORS_RETURN, MPI_Win_create on a device buffer (on every rank, or
 * on rank 0 only: every rank must fail, none may hang), MPI_Win_allocate
 * asked for emul:device through mpi_memory_alloc_kinds, and MPI_Win_attach
 * of device memory give MPI_ERR_BUFFER, and a window made afterwards works.
 * Runs at any size; prints a line and passes when the emulated device
 * cannot be had. */
#include "emul_mem.h"

#define WN (300 * 1024) /* ints in each window */
#define BIG (256 * 1024) /* ints of the 1 MiB transfers */
#define SMALL 8

static int me, np, right, left;
static int *wmem;    /* my window's memory */
static MPI_Win win;
static MPI_Datatype t_vec; /* 2 ints at 0 and 8 in an extent of 16 */
static t_dbuf dorig, dres, dcmp, horig;
static int nchecked;

static int init_val(int r, int i) { return r * 1000 + i % 100000; }
static int orig_val(int r, int i, int k) { return r * 7 + i % 50000 + k * 3; }

/* Resets my window (every rank) between two fences; `passive`: the
 * second one ends the fence epochs (a lock_all epoch follows). */
static void reset(bool passive)
{
    MPI_CHK(MPI_Win_fence(0, win));
    for (int i = 0; i < WN; i++) wmem[i] = init_val(me, i);
    MPI_CHK(MPI_Win_fence(passive ? MPI_MODE_NOSUCCEED : 0, win));
}
static void reset_window(void) { reset(false); }

static void fill_orig(t_dbuf *b, int n, int k)
{
    int *v = (int *)b->rw;
    for (int i = 0; i < n; i++) v[i] = orig_val(me, i, k);
    t_dbuf_push(b);
}

/* My window after `left` put (k) or accumulated (acc) n elements at 0. */
static void check_window(int n, int k, bool acc, const char *what)
{
    int bad = 0, first = -1;
    for (int i = 0; i < WN; i++) {
        int want = init_val(me, i);
        if (i < n) want = acc ? want + orig_val(left, i, k) : orig_val(left, i, k);
        if (wmem[i] != want && bad++ == 0) first = i;
    }
    CHECK(bad == 0, "%s: %d wrong window elements (first %d)", what, bad, first);
    nchecked++;
}

/* The result of a Get (or the old values of a Get_accumulate) of n
 * elements of my right neighbour's window. */
static void check_got(t_dbuf *b, int n, const char *what)
{
    t_dbuf_pull(b);
    const int *v = (const int *)b->rw;
    int bad = 0;
    for (int i = 0; i < n; i++) bad += v[i] != init_val(right, i);
    CHECK(bad == 0, "%s: %d wrong elements", what, bad);
    nchecked++;
}

static void put_get(void)
{
    static const int sizes[] = {1, SMALL, BIG};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        char what[64];
        /* Put from device memory */
        reset_window();
        fill_orig(&dorig, n, s);
        MPI_CHK(MPI_Put(dorig.user, n, MPI_INT, right, 0, n, MPI_INT, win));
        MPI_CHK(MPI_Win_fence(0, win));
        snprintf(what, sizeof what, "Put of %d ints from device memory", n);
        check_window(n, s, false, what);
        /* Get into device memory */
        memset(dres.rw, 0x55, (size_t)n * 4 + 64);
        t_dbuf_push(&dres);
        MPI_CHK(MPI_Get(dres.user, n, MPI_INT, right, 0, n, MPI_INT, win));
        MPI_CHK(MPI_Win_fence(0, win));
        snprintf(what, sizeof what, "Get of %d ints into device memory", n);
        /* the window was changed by the Put: right's window holds my values */
        t_dbuf_pull(&dres);
        const int *v = (const int *)dres.rw;
        int bad = 0;
        for (int i = 0; i < n; i++) bad += v[i] != orig_val(me, i, s);
        for (int i = n * 4; i < n * 4 + 64; i++) bad += (unsigned char)dres.rw[i] != 0x55;
        CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
        nchecked++;
    }
    /* a vector type with holes on the origin side */
    enum { M = 100 };
    reset_window();
    int *o = (int *)dorig.rw;
    for (int i = 0; i < 4 * M; i++) o[i] = i % 4 == 0 || i % 4 == 2 ? orig_val(me, i / 2, 9) : -1;
    t_dbuf_push(&dorig);
    MPI_CHK(MPI_Put(dorig.user, M, t_vec, right, 0, 2 * M, MPI_INT, win));
    MPI_CHK(MPI_Win_fence(0, win));
    check_window(2 * M, 9, false, "Put of a vector type from device memory");
    memset(dres.rw, 0x66, 16 * M);
    t_dbuf_push(&dres);
    MPI_CHK(MPI_Get(dres.user, M, t_vec, right, 0, 2 * M, MPI_INT, win));
    MPI_CHK(MPI_Win_fence(0, win));
    t_dbuf_pull(&dres);
    const int *r = (const int *)dres.rw;
    int bad = 0;
    for (int i = 0; i < 4 * M; i++) {
        bool data = i % 4 == 0 || i % 4 == 2;
        int hole;
        memset(&hole, 0x66, 4);
        bad += data ? r[i] != orig_val(me, i / 2, 9) : r[i] != hole;
    }
    CHECK(bad == 0, "Get of a vector type into device memory: %d wrong ints (holes included)",
          bad);
    nchecked++;
}

static void accumulates(void)
{
    static const int sizes[] = {SMALL, BIG};
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        char what[80];
        reset_window();
        fill_orig(&dorig, n, s);
        MPI_CHK(MPI_Accumulate(dorig.user, n, MPI_INT, right, 0, n, MPI_INT, MPI_SUM, win));
        MPI_CHK(MPI_Win_fence(0, win));
        snprintf(what, sizeof what, "Accumulate of %d ints from device memory", n);
        check_window(n, s, true, what);
        /* Get_accumulate: device origin; result in device, then host memory */
        for (int rdev = 1; rdev >= 0; rdev--) {
            reset_window();
            t_dbuf *res = rdev ? &dres : &horig;
            MPI_CHK(MPI_Get_accumulate(dorig.user, n, MPI_INT, res->user, n, MPI_INT, right, 0,
                                       n, MPI_INT, MPI_SUM, win));
            MPI_CHK(MPI_Win_fence(0, win));
            snprintf(what, sizeof what, "Get_accumulate of %d ints (result in %s memory)", n,
                     rdev ? "device" : "host");
            check_window(n, s, true, what);
            check_got(res, n, what);
        }
        /* host origin, device result */
        reset_window();
        fill_orig(&horig, n, s);
        MPI_CHK(MPI_Get_accumulate(horig.user, n, MPI_INT, dres.user, n, MPI_INT, right, 0, n,
                                   MPI_INT, MPI_SUM, win));
        MPI_CHK(MPI_Win_fence(0, win));
        check_window(n, s, true, "Get_accumulate from host into device memory");
        check_got(&dres, n, "Get_accumulate from host into device memory");
    }
    /* Fetch_and_op and Compare_and_swap on element 5 */
    reset_window();
    int *o = (int *)dorig.rw, *c = (int *)dcmp.rw;
    o[0] = 11;
    t_dbuf_push(&dorig);
    MPI_CHK(MPI_Fetch_and_op(dorig.user, dres.user, MPI_INT, right, 5, MPI_SUM, win));
    MPI_CHK(MPI_Win_fence(0, win));
    CHECK(wmem[5] == init_val(me, 5) + 11, "Fetch_and_op from device memory: %d", wmem[5]);
    t_dbuf_pull(&dres);
    CHECK(*(int *)dres.rw == init_val(right, 5), "Fetch_and_op into device memory: got %d",
          *(int *)dres.rw);
    MPI_CHK(MPI_Fetch_and_op(NULL, dres.user, MPI_INT, right, 5, MPI_NO_OP, win));
    MPI_CHK(MPI_Win_fence(0, win));
    t_dbuf_pull(&dres);
    CHECK(*(int *)dres.rw == init_val(right, 5) + 11, "Fetch_and_op MPI_NO_OP: got %d",
          *(int *)dres.rw);
    /* a swap that happens, then one that does not */
    for (int k = 0; k < 2; k++) {
        o[0] = 4242 + k;
        c[0] = k == 0 ? init_val(right, 5) + 11 : -7;
        t_dbuf_push(&dorig);
        t_dbuf_push(&dcmp);
        MPI_CHK(MPI_Compare_and_swap(dorig.user, dcmp.user, dres.user, MPI_INT, right, 5, win));
        MPI_CHK(MPI_Win_fence(0, win));
        t_dbuf_pull(&dres);
        int want_old = k == 0 ? init_val(right, 5) + 11 : 4242;
        CHECK(*(int *)dres.rw == want_old, "Compare_and_swap %d: old value %d, want %d", k,
              *(int *)dres.rw, want_old);
        CHECK(wmem[5] == 4242, "Compare_and_swap %d: window holds %d", k, wmem[5]);
    }
    nchecked += 4;
}

/* The request-based forms in a passive-target epoch. */
static void request_based(void)
{
    static const int sizes[] = {SMALL, BIG};
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        MPI_Request rq;
        reset(true);
        fill_orig(&dorig, n, s);
        MPI_CHK(MPI_Win_lock_all(0, win));
        MPI_CHK(MPI_Rput(dorig.user, n, MPI_INT, right, 0, n, MPI_INT, win, &rq));
        MPI_CHK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Win_unlock_all(win));
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        check_window(n, s, false, "Rput from device memory");

        reset(true);
        MPI_CHK(MPI_Win_lock_all(0, win));
        MPI_CHK(MPI_Rget(dres.user, n, MPI_INT, right, 0, n, MPI_INT, win, &rq));
        MPI_CHK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Win_unlock_all(win));
        check_got(&dres, n, "Rget into device memory");

        reset(true);
        MPI_CHK(MPI_Win_lock_all(0, win));
        MPI_CHK(MPI_Raccumulate(dorig.user, n, MPI_INT, right, 0, n, MPI_INT, MPI_SUM, win, &rq));
        MPI_CHK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Win_unlock_all(win));
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        check_window(n, s, true, "Raccumulate from device memory");

        reset(true);
        MPI_CHK(MPI_Win_lock_all(0, win));
        MPI_CHK(MPI_Rget_accumulate(dorig.user, n, MPI_INT, dres.user, n, MPI_INT, right, 0, n,
                                    MPI_INT, MPI_SUM, win, &rq));
        MPI_CHK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Win_unlock_all(win));
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        check_window(n, s, true, "Rget_accumulate from device memory");
        check_got(&dres, n, "Rget_accumulate into device memory");
    }
}

static void expect_buffer_error(int rc, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "%s: error class %d, want MPI_ERR_BUFFER", what, cls);
    nchecked++;
}

/* Device window memory: refused cleanly on every rank. */
static void refusals(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t_dbuf d = t_dbuf_new(4096, 1);
    char *h = malloc(4096);
    MPI_Win w = MPI_WIN_NULL;
    expect_buffer_error(MPI_Win_create(d.user, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w),
                        "MPI_Win_create on device memory");
    CHECK(w == MPI_WIN_NULL, "MPI_Win_create on device memory made a window");
    /* only rank 0's memory is device memory: every rank fails, none hangs */
    w = MPI_WIN_NULL;
    expect_buffer_error(MPI_Win_create(me == 0 ? d.user : h, 4096, 1, MPI_INFO_NULL,
                                       MPI_COMM_WORLD, &w),
                        "MPI_Win_create with device memory on rank 0");
    CHECK(w == MPI_WIN_NULL, "MPI_Win_create with device memory on rank 0 made a window");
    /* MPI_Win_allocate asked for device memory */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_memory_alloc_kinds", t_dev_cuda() ? "cuda:device" : "emul:device");
    void *base = NULL;
    w = MPI_WIN_NULL;
    expect_buffer_error(MPI_Win_allocate(4096, 1, info, MPI_COMM_WORLD, &base, &w),
                        "MPI_Win_allocate asked for device memory");
    CHECK(w == MPI_WIN_NULL, "MPI_Win_allocate of device memory made a window");
    MPI_Info_free(&info);
    /* attaching device memory to a dynamic window */
    MPI_CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    expect_buffer_error(MPI_Win_attach(w, d.user, 4096), "MPI_Win_attach of device memory");
    MPI_CHK(MPI_Win_free(&w));
    /* a host window still works afterwards */
    int *hw;
    MPI_CHK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &hw,
                             &w));
    hw[0] = -1;
    MPI_CHK(MPI_Win_fence(0, w));
    int v = me;
    MPI_CHK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    MPI_CHK(MPI_Win_fence(0, w));
    CHECK(hw[0] == left, "a window made after the refusals: got %d, want %d", hw[0], left);
    MPI_CHK(MPI_Win_free(&w));
    free(h);
    t_dbuf_free(&d);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_emul_request();
    t_init(&argc, &argv);
    me = t_rank;
    np = t_size;
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *probe = t_emul_alloc(4096);
    int have = probe != NULL, all = 0;
    if (probe) MPI_Free_mem(probe);
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (!all) {
        if (t_rank == 0)
            printf("rma_device: no %s device memory here (DMPI_ACCEL=%s): skipped\n",
                   t_dev_cuda() ? "CUDA" : "emulated", getenv("DMPI_ACCEL"));
        return t_finish();
    }
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 16, &t_vec);
    MPI_Type_free(&v);
    MPI_Type_commit(&t_vec);
    size_t bytes = (size_t)BIG * 4 + 4096;
    dorig = t_dbuf_new(bytes, 1);
    dres = t_dbuf_new(bytes, 1);
    dcmp = t_dbuf_new(64, 1);
    horig = t_dbuf_new(bytes, 0);

    /* window memory from MPI_Win_allocate, then from MPI_Win_create */
    for (int flavor = 0; flavor < 2; flavor++) {
        int *mem = NULL;
        if (flavor == 0) {
            MPI_CHK(MPI_Win_allocate((MPI_Aint)WN * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                                     &win));
        } else {
            mem = malloc((size_t)WN * 4);
            MPI_CHK(MPI_Win_create(mem, (MPI_Aint)WN * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &win));
        }
        wmem = mem;
        MPI_CHK(MPI_Win_fence(0, win));
        put_get();
        accumulates();
        MPI_CHK(MPI_Win_fence(0, win));
        request_based();
        MPI_CHK(MPI_Win_free(&win));
        if (flavor == 1) free(mem);
    }
    refusals();

    t_dbuf_free(&dorig);
    t_dbuf_free(&dres);
    t_dbuf_free(&dcmp);
    t_dbuf_free(&horig);
    MPI_Type_free(&t_vec);
    CHECK(nchecked > 0, "nothing was checked");
    return t_finish();
}
