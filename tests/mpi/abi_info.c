/* abi_info.c: the standard-ABI calls of MPI 5.0 chapter 21.
 * Abi_get_version (1.0), Abi_get_info (mpi_aint_size, mpi_count_size,
 * mpi_offset_size = this platform's sizes), the Fortran registration calls
 * (get/set_fortran_info, get/set_fortran_booleans: set at most once),
 * MPI_Pcontrol, and the handle <-> int conversions: predefined handles are
 * their ABI values, user handles (info, error handler, request) get an int
 * outside the reserved 1..4095 that converts back to the same handle. */
#include "common.h"

/* Value of key in info as an int, or -1 when absent. */
static int int_value(MPI_Info info, const char *key)
{
    char buf[64];
    int len = (int)sizeof buf, flag = 0;
    MPI_CHK(MPI_Info_get_string(info, key, &len, buf, &flag));
    return flag ? atoi(buf) : -1;
}

static void check_abi_info(void)
{
    int major = -1, minor = -1;
    MPI_CHK(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "ABI version %d.%d, want 1.0", major, minor);

    MPI_Info info = MPI_INFO_NULL;
    MPI_CHK(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL, "Abi_get_info gave MPI_INFO_NULL");
    if (info == MPI_INFO_NULL) return;
    int v = int_value(info, "mpi_aint_size");
    CHECK(v == (int)sizeof(MPI_Aint), "mpi_aint_size %d, want %d", v, (int)sizeof(MPI_Aint));
    v = int_value(info, "mpi_count_size");
    CHECK(v == (int)sizeof(MPI_Count), "mpi_count_size %d, want %d", v, (int)sizeof(MPI_Count));
    v = int_value(info, "mpi_offset_size");
    CHECK(v == (int)sizeof(MPI_Offset), "mpi_offset_size %d, want %d", v,
          (int)sizeof(MPI_Offset));
    MPI_CHK(MPI_Info_free(&info));
}

static void check_fortran(void)
{
    /* Fortran properties: unknown (MPI_INFO_NULL) until set, set once. */
    MPI_Info got = MPI_INFO_NULL;
    MPI_CHK(MPI_Abi_get_fortran_info(&got));
    if (got == MPI_INFO_NULL) {
        MPI_Info mine;
        MPI_CHK(MPI_Info_create(&mine));
        MPI_CHK(MPI_Info_set(mine, "mpi_integer_size", "4"));
        MPI_CHK(MPI_Info_set(mine, "mpi_logical_size", "4"));
        MPI_CHK(MPI_Abi_set_fortran_info(mine));
        CHECK_CLASS(MPI_Abi_set_fortran_info(mine), MPI_ERR_ABI);
        MPI_CHK(MPI_Info_free(&mine));
        MPI_CHK(MPI_Abi_get_fortran_info(&got));
        CHECK(got != MPI_INFO_NULL, "Abi_get_fortran_info still MPI_INFO_NULL after set");
        if (got != MPI_INFO_NULL)
            CHECK(int_value(got, "mpi_integer_size") == 4, "mpi_integer_size not kept");
    } else {
        /* A library with Fortran support refuses to be told otherwise. */
        int v = int_value(got, "mpi_integer_size");
        CHECK(v > 0, "Fortran info without mpi_integer_size (%d)", v);
        CHECK_CLASS(MPI_Abi_set_fortran_info(got), MPI_ERR_ABI);
    }
    if (got != MPI_INFO_NULL) MPI_CHK(MPI_Info_free(&got));

    /* Booleans: logical_size must be a power of two; set at most once. */
    int t4 = 1, f4 = 0, t = -7, f = -7, is_set = -1;
    if (T_MPICH_QUIRK("MPICH gives MPI_ERR_ABI for a bad logical_size"))
        CHECK(MPI_Abi_get_fortran_booleans(3, &t, &f, &is_set) != MPI_SUCCESS,
              "logical_size 3 accepted");
    else
        CHECK_CLASS(MPI_Abi_get_fortran_booleans(3, &t, &f, &is_set), MPI_ERR_ARG);
    MPI_CHK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    if (!is_set) {
        if (T_MPICH_QUIRK("MPICH gives MPI_ERR_ABI for a bad logical_size"))
            CHECK(MPI_Abi_set_fortran_booleans(6, &t4, &f4) != MPI_SUCCESS,
                  "logical_size 6 accepted");
        else
            CHECK_CLASS(MPI_Abi_set_fortran_booleans(6, &t4, &f4), MPI_ERR_ARG);
        MPI_CHK(MPI_Abi_set_fortran_booleans(4, &t4, &f4));
        t = f = -7;
        MPI_CHK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
        CHECK(is_set && t == 1 && f == 0, "booleans after set: is_set %d true %d false %d",
              is_set, t, f);
    }
    CHECK_CLASS(MPI_Abi_set_fortran_booleans(4, &t4, &f4), MPI_ERR_ABI);
}

/* toint of a predefined handle is its ABI value; fromint gives it back. */
#define CHECK_PREDEF(Kind, h)                                                       \
    do {                                                                            \
        int i_ = MPI_##Kind##_toint(h);                                             \
        CHECK(i_ == (int)(intptr_t)(h), #Kind "_toint(" #h ") = %#x, want %#x", i_,  \
              (int)(intptr_t)(h));                                                  \
        CHECK(MPI_##Kind##_fromint(i_) == (h), #Kind "_fromint(%#x) is not " #h, i_); \
    } while (0)

/* A user handle: an int outside 1..4095, the same every time, that
 * converts back to the handle. */
#define CHECK_USER(Kind, h)                                                         \
    do {                                                                            \
        int i_ = MPI_##Kind##_toint(h);                                             \
        CHECK(i_ < 1 || i_ > 4095, #Kind "_toint(" #h ") = %d, in the reserved range", i_); \
        CHECK(MPI_##Kind##_toint(h) == i_, #Kind "_toint(" #h ") not stable");      \
        CHECK(MPI_##Kind##_fromint(i_) == (h), #Kind "_fromint(%d) is not " #h, i_); \
    } while (0)

static void check_handles(void)
{
    CHECK_PREDEF(Comm, MPI_COMM_NULL);
    CHECK_PREDEF(Comm, MPI_COMM_WORLD);
    CHECK_PREDEF(Comm, MPI_COMM_SELF);
    CHECK_PREDEF(Group, MPI_GROUP_NULL);
    CHECK_PREDEF(Group, MPI_GROUP_EMPTY);
    CHECK_PREDEF(Type, MPI_DATATYPE_NULL);
    CHECK_PREDEF(Type, MPI_INT);
    CHECK_PREDEF(Type, MPI_DOUBLE);
    CHECK_PREDEF(Type, MPI_BYTE);
    CHECK_PREDEF(Type, MPI_2INT);
    CHECK_PREDEF(Type, MPI_UINT64_T);
    CHECK_PREDEF(Op, MPI_OP_NULL);
    CHECK_PREDEF(Op, MPI_SUM);
    CHECK_PREDEF(Op, MPI_MAXLOC);
    CHECK_PREDEF(Op, MPI_NO_OP);
    CHECK_PREDEF(Errhandler, MPI_ERRHANDLER_NULL);
    CHECK_PREDEF(Errhandler, MPI_ERRORS_ARE_FATAL);
    CHECK_PREDEF(Errhandler, MPI_ERRORS_RETURN);
    CHECK_PREDEF(Errhandler, MPI_ERRORS_ABORT);
    CHECK_PREDEF(Info, MPI_INFO_NULL);
    CHECK_PREDEF(Info, MPI_INFO_ENV);
    CHECK_PREDEF(Request, MPI_REQUEST_NULL);
    CHECK_PREDEF(Message, MPI_MESSAGE_NULL);
    CHECK_PREDEF(Message, MPI_MESSAGE_NO_PROC);
    CHECK_PREDEF(Win, MPI_WIN_NULL);
    CHECK_PREDEF(File, MPI_FILE_NULL);
    CHECK_PREDEF(Session, MPI_SESSION_NULL);

    /* User-created info objects: distinct ints, stable, round trip. */
    MPI_Info a, b;
    MPI_CHK(MPI_Info_create(&a));
    MPI_CHK(MPI_Info_create(&b));
    CHECK_USER(Info, a);
    CHECK_USER(Info, b);
    CHECK(MPI_Info_toint(a) != MPI_Info_toint(b), "two info objects got the same int");
    MPI_CHK(MPI_Info_set(MPI_Info_fromint(MPI_Info_toint(a)), "via", "int"));
    int flag = 0, n = -1;
    MPI_CHK(MPI_Info_get_valuelen(a, "via", &n, &flag));
    CHECK(flag && n == 3, "set through the converted handle not seen");
    MPI_CHK(MPI_Info_free(&a));
    MPI_CHK(MPI_Info_free(&b));
    MPI_Info c;
    MPI_CHK(MPI_Info_create(&c));
    CHECK_USER(Info, c);
    MPI_CHK(MPI_Info_free(&c));

    /* A user error handler. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_CHK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh)); /* MPI_ERRORS_RETURN here */
    CHECK_PREDEF(Errhandler, eh);
    MPI_CHK(MPI_Errhandler_free(&eh));

    /* A request: a receive from this rank, completed through the handle
     * that came back from its int. */
    int in = -1, out = 42 + t_rank;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_CHK(MPI_Irecv(&in, 1, MPI_INT, t_rank, 7, MPI_COMM_WORLD, &req));
    CHECK(req != MPI_REQUEST_NULL, "Irecv gave MPI_REQUEST_NULL");
    CHECK_USER(Request, req);
    MPI_Request back = MPI_Request_fromint(MPI_Request_toint(req));
    MPI_CHK(MPI_Send(&out, 1, MPI_INT, t_rank, 7, MPI_COMM_WORLD));
    MPI_CHK(MPI_Wait(&back, MPI_STATUS_IGNORE));
    CHECK(back == MPI_REQUEST_NULL, "Wait did not free the converted request");
    CHECK(in == out, "received %d, want %d", in, out);

    /* An int that names nothing gives the null handle (erroneous by the
     * standard; dmpi answers safely). */
    if (!T_MPICH_QUIRK("erroneous input; MPICH may crash")) {
        CHECK(MPI_Info_fromint(0x7ffffff0) == MPI_INFO_NULL, "unknown int is not MPI_INFO_NULL");
        CHECK(MPI_Comm_fromint(0) == MPI_COMM_NULL, "int 0 is not MPI_COMM_NULL");
        CHECK(MPI_Comm_fromint((int)(intptr_t)MPI_INT) == MPI_COMM_NULL,
              "a datatype's int converted to a communicator");
    }
}

static void user_errh_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void check_user_errhandler(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_CHK(MPI_Comm_create_errhandler(user_errh_fn, &eh));
    CHECK(eh != MPI_ERRHANDLER_NULL, "Comm_create_errhandler gave MPI_ERRHANDLER_NULL");
    CHECK_USER(Errhandler, eh);
    MPI_Errhandler back = MPI_Errhandler_fromint(MPI_Errhandler_toint(eh));
    MPI_CHK(MPI_Errhandler_free(&back));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    check_abi_info();
    check_fortran();
    check_handles();
    check_user_errhandler();
    CHECK(MPI_Pcontrol(0) == MPI_SUCCESS, "MPI_Pcontrol(0) failed");
    CHECK(MPI_Pcontrol(1, "extra", 3) == MPI_SUCCESS, "MPI_Pcontrol(1, ...) failed");

    return t_finish();
}
