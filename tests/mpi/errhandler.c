/* errhandler.c: MPI_Comm_set_errhandler / MPI_Comm_get_errhandler.  World
 * starts with MPI_ERRORS_ARE_FATAL; after setting MPI_ERRORS_RETURN, get
 * gives it back and errors return; a communicator created from world
 * inherits its handler, and setting one on the child leaves the parent
 * alone; MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT can be set back.
 * MPI_Error_class / MPI_Error_string: a class is its own class, every class
 * has a message. */
#include "common.h"

static void expect_handler(MPI_Comm c, MPI_Errhandler want, const char *what)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_CHK(MPI_Comm_get_errhandler(c, &eh));
    CHECK(eh == want, "%s: MPI_Comm_get_errhandler gave another handler", what);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int buf = 0;

    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "world at start");
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "world after set");
    int rc = MPI_Send(&buf, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD);
    CHECK(t_class(rc) == MPI_ERR_RANK, "bad rank on world returned %d", rc);

    /* Children inherit; the parent keeps its own. */
    MPI_Comm dup, split;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    expect_handler(dup, MPI_ERRORS_RETURN, "dup of world");
    rc = MPI_Send(&buf, 1, MPI_INT, t_size, 0, dup);
    CHECK(t_class(rc) == MPI_ERR_RANK, "bad rank on dup returned %d", rc);
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, 0, t_rank, &split));
    expect_handler(split, MPI_ERRORS_RETURN, "split of world");
    MPI_CHK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL));
    expect_handler(dup, MPI_ERRORS_ARE_FATAL, "dup after set");
    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "world after setting dup's");
    MPI_CHK(MPI_Comm_set_errhandler(split, MPI_ERRORS_ABORT));
    expect_handler(split, MPI_ERRORS_ABORT, "split after set");
    MPI_CHK(MPI_Comm_free(&dup));
    MPI_CHK(MPI_Comm_free(&split));

    /* MPI_COMM_SELF has its own handler. */
    expect_handler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, "self");
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF);
    CHECK(t_class(rc) == MPI_ERR_RANK, "rank 1 on MPI_COMM_SELF returned %d", rc);

    /* Classes and strings. */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_ABI; c++) {
        int cls = -1, len = -1;
        char s[MPI_MAX_ERROR_STRING];
        MPI_CHK(MPI_Error_class(c, &cls));
        CHECK(cls == c, "MPI_Error_class(%d) gave %d", c, cls);
        MPI_CHK(MPI_Error_string(c, s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len,
              "MPI_Error_string(%d) length %d", c, len);
    }
    /* A returned code has a class and a message naming the problem. */
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    rc = MPI_Recv(&buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(t_class(rc) == MPI_ERR_COUNT, "negative count returned %d", rc);
    MPI_CHK(MPI_Error_string(rc, s, &len));
    CHECK(len > 0, "empty error string for a returned code");

    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "world set back");
    return t_finish();
}
