/* errors_table_rma.c: bad input to one-sided communication gives the right
 * error class: bad window handles, window creation with bad arguments,
 * communication and synchronization calls outside the epoch they need
 * (MPI_ERR_RMA_SYNC), bad target ranks, counts, datatypes, ops and
 * displacements, lock types, groups of the general active target calls,
 * and the window's names, info, groups and error handlers. The harness is
 * described in errors_table.h. */
#include "errors_table.h"

static void win_errh_fn(MPI_Win *w, int *code, ...) { (void)w; (void)code; }

static void test_creation(void)
{
    MPI_Comm bc;
    MPI_Info bi;
    MPI_Win w;
    void *base;
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Win_create(ibuf2, 64, 4, MPI_INFO_NULL, bc, &w));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Win_create(ibuf2, 64, 4, bi, W, &w));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_create(ibuf2, -1, 4, MPI_INFO_NULL, W, &w));
    E2(MPI_ERR_DISP, MPI_ERR_ARG, MPI_Win_create(ibuf2, 64, -4, MPI_INFO_NULL, W, &w));
    E(MPI_ERR_ARG, MPI_Win_create(ibuf2, 64, 4, MPI_INFO_NULL, W, NULL));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_create_c(ibuf2, -1, 4, MPI_INFO_NULL, W, &w));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Win_allocate(64, 4, MPI_INFO_NULL, bc, &base, &w));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Win_allocate(64, 4, bi, W, &base, &w));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_allocate(-1, 4, MPI_INFO_NULL, W, &base, &w));
    E(MPI_ERR_ARG, MPI_Win_allocate(64, 4, MPI_INFO_NULL, W, NULL, &w));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_allocate_c(-1, 4, MPI_INFO_NULL, W, &base, &w));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Win_allocate_shared(64, 4, MPI_INFO_NULL, bc, &base, &w));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_allocate_shared(-1, 4, MPI_INFO_NULL, W, &base, &w));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_allocate_shared_c(-1, 4, MPI_INFO_NULL, W, &base, &w));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Win_create_dynamic(MPI_INFO_NULL, bc, &w));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Win_create_dynamic(bi, W, &w));
    E(MPI_ERR_ARG, MPI_Win_create_dynamic(MPI_INFO_NULL, W, NULL));
    E(MPI_ERR_ARG, MPI_Win_create_errhandler(win_errh_fn, NULL));
    MPI_Errhandler eh;
    E(MPI_ERR_ARG, MPI_Win_create_errhandler(NULL, &eh));
    w = MPI_WIN_NULL;
    E(MPI_ERR_WIN, MPI_Win_free(&w));
    E(MPI_ERR_ARG, MPI_Win_free(NULL));
}

static void test_bad_windows(void)
{
    MPI_Win bw;
    MPI_Group g;
    MPI_Info i;
    MPI_Errhandler eh;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    void *v;
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Put(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Get(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Accumulate(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_fence(0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_unlock(0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_lock_all(0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_flush_all(bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_sync(bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_start(wgroup, 0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_post(wgroup, 0, bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_complete(bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_wait(bw));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_test(bw, &flag));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_get_group(bw, &g));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_set_name(bw, "x"));
    FOR_BAD(badwin, bw) if (bw != MPI_WIN_NULL) E(MPI_ERR_WIN, MPI_Win_get_name(bw, name, &len));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_set_info(bw, info));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_get_info(bw, &i));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_set_errhandler(bw, MPI_ERRORS_RETURN));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_get_errhandler(bw, &eh));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_call_errhandler(bw, MPI_ERR_OTHER));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_attach(bw, ibuf, 4));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_detach(bw, ibuf));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_set_attr(bw, win_key, &ival));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_get_attr(bw, win_key, &v, &flag));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_delete_attr(bw, win_key));
    MPI_Aint sz;
    int du;
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_shared_query(bw, 0, &sz, &du, &v));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_shared_query_c(bw, 0, &sz, &aint, &v));
}

static void test_epochs(MPI_Win win)
{
    int n = t_size;
    MPI_Group bg;
    MPI_Op bo;
    MPI_Datatype bt;
    MPI_Request r;
    int cmp = 0, res;
    /* no epoch at all */
    E(MPI_ERR_RMA_SYNC, MPI_Put(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E(MPI_ERR_RMA_SYNC, MPI_Get(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E(MPI_ERR_RMA_SYNC, MPI_Accumulate(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    E(MPI_ERR_RMA_SYNC, MPI_Get_accumulate(ibuf, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    E(MPI_ERR_RMA_SYNC, MPI_Fetch_and_op(ibuf, &res, MPI_INT, 0, 0, MPI_SUM, win));
    E(MPI_ERR_RMA_SYNC, MPI_Compare_and_swap(ibuf, &cmp, &res, MPI_INT, 0, 0, win));
    E(MPI_ERR_RMA_SYNC, MPI_Put_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E(MPI_ERR_RMA_SYNC, MPI_Get_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E(MPI_ERR_RMA_SYNC, MPI_Accumulate_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    E(MPI_ERR_RMA_SYNC, MPI_Get_accumulate_c(ibuf, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    /* request-based operations need a passive target epoch */
    E(MPI_ERR_RMA_SYNC, MPI_Rput(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Rget(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Raccumulate(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Rget_accumulate(ibuf, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Rput_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Rget_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Raccumulate_c(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Rget_accumulate_c(ibuf, 1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    E(MPI_ERR_RMA_SYNC, MPI_Win_unlock(0, win));      /* not locked */
    E(MPI_ERR_RMA_SYNC, MPI_Win_unlock_all(win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_flush(0, win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_flush_all(win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_flush_local(0, win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_flush_local_all(win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_complete(win));       /* no access epoch */
    E(MPI_ERR_RMA_SYNC, MPI_Win_wait(win));           /* no exposure epoch */
    E(MPI_ERR_RMA_SYNC, MPI_Win_test(win, &flag));
    /* lock arguments */
    E(MPI_ERR_LOCKTYPE, MPI_Win_lock(12345, 0, 0, win));
    E(MPI_ERR_RANK, MPI_Win_lock(MPI_LOCK_SHARED, n, 0, win));
    E(MPI_ERR_RANK, MPI_Win_lock(MPI_LOCK_SHARED, -7, 0, win));
    E2(MPI_ERR_RANK, MPI_ERR_RMA_SYNC, MPI_Win_unlock(n, win));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Win_start(bg, 0, win));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Win_post(bg, 0, win));
    /* inside a passive target epoch: the operations' own arguments */
    MPI_CHK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    E(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)); /* locked twice */
    E(MPI_ERR_RANK, MPI_Put(ibuf, 1, MPI_INT, n, 0, 1, MPI_INT, win));
    E(MPI_ERR_RANK, MPI_Get(ibuf, 1, MPI_INT, -7, 0, 1, MPI_INT, win));
    E(MPI_ERR_COUNT, MPI_Put(ibuf, -1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E(MPI_ERR_COUNT, MPI_Get(ibuf, 1, MPI_INT, 0, 0, -1, MPI_INT, win));
    E(MPI_ERR_COUNT, MPI_Put_c(ibuf, -1, MPI_INT, 0, 0, 1, MPI_INT, win));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Put(ibuf, 1, bt, 0, 0, 1, MPI_INT, win));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Get(ibuf, 1, MPI_INT, 0, 0, 1, bt, win));
    FOR_BAD(badop, bo) E(MPI_ERR_OP, MPI_Accumulate(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, bo, win));
    FOR_BAD(badop, bo) E(MPI_ERR_OP, MPI_Fetch_and_op(ibuf, &res, MPI_INT, 0, 0, bo, win));
    E(MPI_ERR_OP, MPI_Accumulate(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win));
    E(MPI_ERR_BUFFER, MPI_Put(NULL, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    E2(MPI_ERR_RMA_RANGE, MPI_ERR_ARG, MPI_Put(ibuf, 1, MPI_INT, 0, 1 << 20, 1, MPI_INT, win));
    E2(MPI_ERR_RMA_RANGE, MPI_ERR_DISP, MPI_Get(ibuf, 1, MPI_INT, 0, -4, 1, MPI_INT, win));
    E(MPI_ERR_ARG, MPI_Rput(ibuf, 1, MPI_INT, 0, 0, 1, MPI_INT, win, NULL));
    MPI_CHK(MPI_Win_unlock(0, win));
    void *base;
    /* dynamic-window calls on a window that is not dynamic */
    E(MPI_ERR_RMA_FLAVOR, MPI_Win_attach(win, ibuf, 16));
    E2(MPI_ERR_RMA_FLAVOR, MPI_ERR_RMA_ATTACH, MPI_Win_detach(win, ibuf));
    E(MPI_ERR_ARG, MPI_Win_get_group(win, NULL));
    E(MPI_ERR_ARG, MPI_Win_set_name(win, NULL));
    E(MPI_ERR_ARG, MPI_Win_get_info(win, NULL));
    MPI_Info bi;
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Win_set_info(win, bi));
    MPI_Errhandler be;
    FOR_BAD(baderrh, be) E2(MPI_ERR_ERRHANDLER, MPI_ERR_ARG, MPI_Win_set_errhandler(win, be));
    E(MPI_ERR_ARG, MPI_Win_get_errhandler(win, NULL));
    MPI_Errhandler ce;
    MPI_CHK(MPI_Comm_create_errhandler(errh_fn, &ce)); /* a communicator's handler */
    E2(MPI_ERR_ERRHANDLER, MPI_ERR_ARG, MPI_Win_set_errhandler(win, ce));
    MPI_Errhandler_free(&ce);
    E(MPI_ERR_KEYVAL, MPI_Win_set_attr(win, comm_key, &ival));
    E(MPI_ERR_KEYVAL, MPI_Win_get_attr(win, MPI_KEYVAL_INVALID, &base, &flag));
    E(MPI_ERR_KEYVAL, MPI_Win_delete_attr(win, 987654));
    int k = comm_key;
    E(MPI_ERR_KEYVAL, MPI_Win_free_keyval(&k));
    E(MPI_ERR_ARG, MPI_Win_free_keyval(NULL));
    E(MPI_ERR_ARG, MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL));
}

static void test_dynamic(void)
{
    MPI_Win dw;
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, W, &dw) != MPI_SUCCESS) return;
    MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN);
    E2(MPI_ERR_RMA_ATTACH, MPI_ERR_ARG, MPI_Win_detach(dw, ibuf)); /* never attached */
    E2(MPI_ERR_ARG, MPI_ERR_RMA_ATTACH, MPI_Win_attach(dw, NULL, 16));
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Win_attach(dw, ibuf, -1));
    MPI_Win_free(&dw);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    setup();
    MPI_Win win;
    int rc = MPI_Win_create(ibuf2, sizeof ibuf2, sizeof(int), MPI_INFO_NULL, W, &win);
    if (t_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION) {
        nskipped++;
        if (t_rank == 0) printf("errors_table_rma: no windows yet: skipped\n");
    } else {
        MPI_CHK(rc);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        test_creation();
        test_bad_windows();
        test_epochs(win);
        test_dynamic();
        MPI_CHK(MPI_Win_fence(0, win)); /* the window still works */
        int v = t_rank + 100, got = -1;
        MPI_CHK(MPI_Put(&v, 1, MPI_INT, (t_rank + 1) % t_size, 5, 1, MPI_INT, win));
        MPI_CHK(MPI_Win_fence(0, win));
        got = ibuf2[5];
        CHECK(got == (t_rank + t_size - 1) % t_size + 100, "put after the errors: %d", got);
        MPI_CHK(MPI_Win_free(&win));
    }
    return et_finish("errors_table_rma");
}
