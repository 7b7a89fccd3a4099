/* errh_file_session.c: file and session error handlers without MPI-IO:
 * handlers are created and freed, MPI_FILE_NULL carries the default file
 * handler (MPI_ERRORS_RETURN at start; set, get and call it), a
 * communicator refuses a file handler, and session calls on
 * MPI_SESSION_NULL give MPI_ERR_SESSION (sessions.c tests real ones). */
#include "common.h"

static int calls, last_code;
static void file_fn(MPI_File *f, int *code, ...)
{
    (void)f;
    calls++;
    last_code = *code;
}
static void session_fn(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
}

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler eh, feh, seh;
    MPI_CHK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file handler is not MPI_ERRORS_RETURN");
    MPI_CHK(MPI_File_create_errhandler(file_fn, &feh));
    MPI_CHK(MPI_File_set_errhandler(MPI_FILE_NULL, feh));
    MPI_CHK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    CHECK(calls == 1 && last_code == MPI_ERR_IO, "file handler called %d times, code %d", calls,
          last_code);
    MPI_CHK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == feh, "get returns another handler");
    MPI_CHK(MPI_Errhandler_free(&eh));
    CHECK(cls(MPI_Comm_set_errhandler(MPI_COMM_WORLD, feh)) == MPI_ERR_ARG,
          "a communicator accepted a file handler");
    MPI_CHK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Errhandler_free(&feh));
    MPI_CHK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO)); /* returns */
    CHECK(calls == 1, "freed handler still called");
    MPI_CHK(MPI_Session_create_errhandler(session_fn, &seh));
    CHECK(cls(MPI_Session_set_errhandler(MPI_SESSION_NULL, seh)) == MPI_ERR_SESSION,
          "session call on MPI_SESSION_NULL");
    MPI_CHK(MPI_Errhandler_free(&seh));
    return t_finish();
}
