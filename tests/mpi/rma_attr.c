/* rma_attr.c: attributes on windows: a user keyval set, read, replaced
 * (the delete callback runs for the old value), deleted, and deleted by
 * MPI_Win_free; the predefined window attributes are read-only
 * (MPI_ERR_KEYVAL on the window's handler); a keyval made for
 * communicators is refused on a window. */
#include "common.h"

static int deletes;
static void *deleted_val;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win, (void)keyval;
    deletes++;
    deleted_val = val;
    CHECK(extra == &deletes, "extra_state %p", extra);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Win win;
    char *mem;
    MPI_CHK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_CHK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int key = MPI_KEYVAL_INVALID, flag = -1;
    MPI_CHK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, &deletes));
    static int a, b, c;
    void *v = NULL;
    MPI_CHK(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag == 0, "unset attribute found");
    MPI_CHK(MPI_Win_set_attr(win, key, &a));
    MPI_CHK(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag == 1 && v == &a, "get after set: flag %d", flag);
    MPI_CHK(MPI_Win_set_attr(win, key, &b));
    CHECK(deletes == 1 && deleted_val == &a, "replacing did not delete the old value (%d)",
          deletes);
    MPI_CHK(MPI_Win_delete_attr(win, key));
    CHECK(deletes == 2 && deleted_val == &b, "delete_attr: %d deletes", deletes);
    MPI_CHK(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag == 0, "deleted attribute found");

    /* read-only predefined keys; a communicator keyval is not for windows */
    CHECK_CLASS(MPI_Win_set_attr(win, MPI_WIN_SIZE, &a), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Win_delete_attr(win, MPI_WIN_BASE), MPI_ERR_KEYVAL);
    int ckey;
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    CHECK_CLASS(MPI_Win_set_attr(win, ckey, &a), MPI_ERR_KEYVAL);
    MPI_CHK(MPI_Comm_free_keyval(&ckey));

    MPI_CHK(MPI_Win_set_attr(win, key, &c));
    MPI_CHK(MPI_Win_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the key");
    MPI_CHK(MPI_Win_free(&win)); /* deletes the attribute */
    CHECK(deletes == 3 && deleted_val == &c, "MPI_Win_free: %d deletes", deletes);
    return t_finish();
}
