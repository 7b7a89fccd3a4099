/* attr_predef: the predefined attributes of MPI_COMM_WORLD (MPI 4.1
 * section 9.1.2): MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 * MPI_UNIVERSE_SIZE, MPI_APPNUM and MPI_LASTUSEDCODE, read with
 * MPI_Comm_get_attr and the deprecated MPI_Attr_get (values are pointers to
 * ints); the same on a duplicate; MPI_LASTUSEDCODE (the largest error
 * class) following MPI_Add_error_class; and that the predefined keys cannot be set, deleted
 * or freed (MPI_ERR_KEYVAL). dmpi's own values are checked exactly. */
#include "common.h"

/* The int a predefined attribute points to, or `missing` when unset. */
static int attr_int(MPI_Comm comm, int key, int missing, int deprecated)
{
    int *p = NULL, flag = -1;
    if (deprecated) MPI_CHK(MPI_Attr_get(comm, key, &p, &flag));
    else MPI_CHK(MPI_Comm_get_attr(comm, key, &p, &flag));
    CHECK(flag == 0 || flag == 1, "key %d: flag %d", key, flag);
    CHECK(!flag || p, "key %d: NULL value", key);
    return flag && p ? *p : missing;
}

#define UNSET (-999999)

static void check_values(MPI_Comm comm, int deprecated)
{
    int dmpi = !t_on_mpich();
    int tag_ub = attr_int(comm, MPI_TAG_UB, UNSET, deprecated);
    CHECK(tag_ub >= 32767, "MPI_TAG_UB %d is below 32767", tag_ub);
    if (dmpi) CHECK(tag_ub == 0x7fffffff, "MPI_TAG_UB %d", tag_ub);

    int host = attr_int(comm, MPI_HOST, UNSET, deprecated);
    CHECK(host == MPI_PROC_NULL || (host >= 0 && host < t_size), "MPI_HOST %d", host);
    if (dmpi) CHECK(host == MPI_PROC_NULL, "MPI_HOST %d", host);

    int io = attr_int(comm, MPI_IO, UNSET, deprecated);
    CHECK(io == MPI_ANY_SOURCE || io == MPI_PROC_NULL || (io >= 0 && io < t_size), "MPI_IO %d",
          io);
    if (dmpi) CHECK(io == MPI_ANY_SOURCE, "MPI_IO %d", io);

    int wg = attr_int(comm, MPI_WTIME_IS_GLOBAL, UNSET, deprecated);
    CHECK(wg == 0 || wg == 1 || wg == UNSET, "MPI_WTIME_IS_GLOBAL %d", wg);
    if (dmpi) CHECK(wg == 0, "MPI_WTIME_IS_GLOBAL %d", wg);

    int us = attr_int(comm, MPI_UNIVERSE_SIZE, UNSET, deprecated);
    CHECK(us == UNSET || us >= t_size, "MPI_UNIVERSE_SIZE %d below the world size", us);
    if (dmpi) CHECK(us == t_size, "MPI_UNIVERSE_SIZE %d", us);

    int app = attr_int(comm, MPI_APPNUM, UNSET, deprecated);
    CHECK(app == UNSET || app >= 0, "MPI_APPNUM %d", app);
    if (dmpi) CHECK(app == 0, "MPI_APPNUM %d (one program under mpiexec)", app);

    int last = attr_int(comm, MPI_LASTUSEDCODE, UNSET, deprecated);
    CHECK(last != UNSET && last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below %d", last,
          MPI_ERR_LASTCODE);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_values(MPI_COMM_WORLD, 0);
    check_values(MPI_COMM_WORLD, 1);

    /* Libraries ask their own communicator for MPI_TAG_UB. */
    MPI_Comm dup;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int ub = attr_int(dup, MPI_TAG_UB, UNSET, 0);
    CHECK(ub >= 32767, "MPI_TAG_UB on a duplicate: %d", ub);
    MPI_Comm_free(&dup);

    /* The tag upper bound is usable. */
    int tag_ub = attr_int(MPI_COMM_WORLD, MPI_TAG_UB, 32767, 0), x = t_rank, y = -1;
    MPI_CHK(MPI_Sendrecv(&x, 1, MPI_INT, t_rank, tag_ub, &y, 1, MPI_INT, t_rank, tag_ub,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == t_rank, "message with tag MPI_TAG_UB: %d", y);

    /* MPI_LASTUSEDCODE is the largest error class, added ones included. */
    int cls, code;
    MPI_CHK(MPI_Add_error_class(&cls));
    MPI_CHK(MPI_Add_error_code(cls, &code));
    int last = attr_int(MPI_COMM_WORLD, MPI_LASTUSEDCODE, UNSET, 0);
    CHECK(last >= cls, "MPI_LASTUSEDCODE %d below the added class %d", last, cls);

    /* Predefined keys are read-only. */
    int k = MPI_TAG_UB, v = 1;
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPI_HOST, &v), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_IO), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Attr_delete(MPI_COMM_WORLD, MPI_APPNUM), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    CHECK(k == MPI_TAG_UB, "a failed free changed the keyval to %d", k);
    /* still there */
    CHECK(attr_int(MPI_COMM_WORLD, MPI_TAG_UB, UNSET, 0) == tag_ub, "MPI_TAG_UB changed");
    return t_finish();
}
