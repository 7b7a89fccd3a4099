/* comm_info.c: communicator info hints (MPI 4.1 section 7.4.4).
 * MPI_Comm_set_info / MPI_Comm_get_info keep the standard's assertion hints
 * (mpi_assert_no_any_tag, mpi_assert_no_any_source, mpi_assert_exact_length,
 * mpi_assert_allow_overtaking); get_info returns a new object the caller
 * frees; MPI_Comm_dup copies the hints, MPI_Comm_dup_with_info and
 * MPI_Comm_idup_with_info take them from their info argument instead (and
 * MPI_INFO_NULL there means none); no duplicate copies the name. Unknown
 * keys may be ignored, so they are not checked. */
#include "common.h"

/* The value of key in comm's hints: "" when get_info does not return it. */
static const char *hint(MPI_Comm comm, const char *key)
{
    static char v[MPI_MAX_INFO_VAL + 1];
    MPI_Info info = MPI_INFO_NULL;
    int flag = 0, len = (int)sizeof v;
    v[0] = 0;
    MPI_CHK(MPI_Comm_get_info(comm, &info));
    CHECK(info != MPI_INFO_NULL, "get_info gave MPI_INFO_NULL");
    if (info == MPI_INFO_NULL)
        return v;
    MPI_CHK(MPI_Info_get_string(info, key, &len, v, &flag));
    if (!flag)
        v[0] = 0;
    MPI_CHK(MPI_Info_free(&info));
    return v;
}

/* The hint is "true", or (want_true == 0) "false" or absent. */
static void check_hint(MPI_Comm comm, const char *key, int want_true, const char *what)
{
    const char *v = hint(comm, key);
    if (want_true)
        CHECK(strcmp(v, "true") == 0, "%s: %s = \"%s\", want \"true\"", what, key, v);
    else
        CHECK(strcmp(v, "false") == 0 || v[0] == 0, "%s: %s = \"%s\", want false", what, key, v);
}

static void check_name_empty(MPI_Comm c, const char *what)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_CHK(MPI_Comm_get_name(c, name, &len));
    CHECK(len == 0 && name[0] == 0, "%s: name \"%s\", want none", what, name);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const char *const keys[4] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length",
                                        "mpi_assert_allow_overtaking"};
    MPI_Comm a, b, c, d;
    MPI_Info info;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    for (int i = 0; i < 4; i++)
        check_hint(a, keys[i], 0, "fresh duplicate of world");

    /* set_info: two hints true; a later set_info changes only its keys. */
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, keys[0], "true"));
    MPI_CHK(MPI_Info_set(info, keys[2], "true"));
    MPI_CHK(MPI_Info_set(info, "dmpi_test_unknown_key", "whatever"));
    MPI_CHK(MPI_Comm_set_info(a, info));
    MPI_CHK(MPI_Info_free(&info));
    check_hint(a, keys[0], 1, "after set_info");
    check_hint(a, keys[1], 0, "after set_info");
    check_hint(a, keys[2], 1, "after set_info");
    check_hint(a, keys[3], 0, "after set_info");
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, keys[2], "false"));
    MPI_CHK(MPI_Comm_set_info(a, info));
    MPI_CHK(MPI_Info_free(&info));
    check_hint(a, keys[0], 1, "after a second set_info");
    check_hint(a, keys[2], 0, "after a second set_info");

    /* dup copies the hints, not the name. */
    MPI_CHK(MPI_Comm_set_name(a, "comm_info a"));
    MPI_CHK(MPI_Comm_dup(a, &b));
    /* MPI_Comm_dup_with_info is defined as MPI_Comm_dup except that the
     * hints of comm are not duplicated: so MPI_Comm_dup duplicates them. */
    if (!T_MPICH_QUIRK("MPICH's MPI_Comm_dup does not copy the assertion hints"))
        check_hint(b, keys[0], 1, "dup");
    check_hint(b, keys[2], 0, "dup");
    check_name_empty(b, "dup");

    /* dup_with_info: the hints of the info argument only. */
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, keys[3], "true"));
    MPI_CHK(MPI_Comm_dup_with_info(a, info, &c));
    check_hint(c, keys[3], 1, "dup_with_info");
    check_hint(c, keys[0], 0, "dup_with_info (not copied from the parent)");
    check_name_empty(c, "dup_with_info");
    MPI_Request req;
    MPI_CHK(MPI_Comm_idup_with_info(a, info, &d, &req));
    MPI_CHK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_hint(d, keys[3], 1, "idup_with_info");
    check_hint(d, keys[0], 0, "idup_with_info");
    MPI_CHK(MPI_Info_free(&info));
    MPI_CHK(MPI_Comm_free(&d));
    MPI_CHK(MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &d));
    check_hint(d, keys[0], 0, "dup_with_info(MPI_INFO_NULL)");

    /* The duplicates work and are separate. */
    int v = t_rank, sum = -1;
    MPI_CHK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == t_size * (t_size - 1) / 2, "allreduce on dup_with_info: %d", sum);
    int result = -1;
    MPI_CHK(MPI_Comm_compare(a, c, &result));
    CHECK(result == MPI_CONGRUENT, "compare(a, dup_with_info) = %d", result);

    /* The info object the user gave is not tied to the communicator. */
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, keys[1], "true"));
    MPI_CHK(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    MPI_CHK(MPI_Info_set(info, keys[1], "false"));
    MPI_CHK(MPI_Info_free(&info));
    check_hint(MPI_COMM_WORLD, keys[1], 1, "world after set_info");
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, keys[1], "false"));
    MPI_CHK(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    MPI_CHK(MPI_Info_free(&info));
    check_hint(MPI_COMM_WORLD, keys[1], 0, "world reset");

    MPI_CHK(MPI_Comm_free(&d));
    MPI_CHK(MPI_Comm_free(&c));
    MPI_CHK(MPI_Comm_free(&b));
    MPI_CHK(MPI_Comm_free(&a));
    return t_finish();
}
