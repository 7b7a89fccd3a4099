/* status_count.c: what a status says about a message, and setting it.
 * MPI_Get_count / MPI_Get_elements (and _c) read with the message's type
 * and with other predefined types: exact multiples give counts,
 * non-multiples give MPI_UNDEFINED; pair types (MPI_2INT) count pairs vs
 * basic elements.  MPI_Status_set_elements(_c), MPI_Status_set_cancelled /
 * MPI_Test_cancelled, and MPI-4.1's MPI_Status_set/get_source/tag/error. */
#include "common.h"

/* Send count elements of type to oneself; receive them as the same type
 * into a larger buffer and return the status. */
static MPI_Status self_msg(int tag, MPI_Datatype type, int count)
{
    static double buf[512], out[512]; /* room for 256 pairs of anything */
    MPI_Status st;
    MPI_Request r;
    memset(out, 0, sizeof out);
    MPI_CHK(MPI_Isend(out, count, type, 0, tag, MPI_COMM_SELF, &r));
    MPI_CHK(MPI_Recv(buf, 256, type, 0, tag, MPI_COMM_SELF, &st));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    return st;
}

#define EXPECT_COUNT(st, type, want)                                                   \
    do {                                                                               \
        int c_ = -7;                                                                   \
        MPI_CHK(MPI_Get_count(&(st), type, &c_));                                      \
        CHECK(c_ == (want), "MPI_Get_count(%s) gave %d, want %d", #type, c_, (want));  \
    } while (0)
#define EXPECT_ELEMENTS(st, type, want)                                                \
    do {                                                                               \
        int c_ = -7;                                                                   \
        MPI_CHK(MPI_Get_elements(&(st), type, &c_));                                   \
        CHECK(c_ == (want), "MPI_Get_elements(%s) gave %d, want %d", #type, c_,        \
              (want));                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Status st;
    MPI_Count cc;

    /* 7 bytes: a count in bytes only. */
    st = self_msg(0, MPI_BYTE, 7);
    EXPECT_COUNT(st, MPI_BYTE, 7);
    EXPECT_COUNT(st, MPI_CHAR, 7);
    EXPECT_COUNT(st, MPI_INT, MPI_UNDEFINED);
    EXPECT_COUNT(st, MPI_SHORT, MPI_UNDEFINED);
    EXPECT_COUNT(st, MPI_DOUBLE, MPI_UNDEFINED);
    EXPECT_ELEMENTS(st, MPI_BYTE, 7);
    EXPECT_ELEMENTS(st, MPI_INT, MPI_UNDEFINED);
    cc = -7;
    MPI_CHK(MPI_Get_count_c(&st, MPI_INT, &cc));
    CHECK(cc == MPI_UNDEFINED, "MPI_Get_count_c(MPI_INT) of 7 bytes gave %lld", (long long)cc);
    cc = -7;
    MPI_CHK(MPI_Get_elements_c(&st, MPI_BYTE, &cc));
    CHECK(cc == 7, "MPI_Get_elements_c(MPI_BYTE) gave %lld", (long long)cc);

    /* 8 bytes. */
    st = self_msg(1, MPI_INT, 2);
    EXPECT_COUNT(st, MPI_BYTE, 8);
    EXPECT_COUNT(st, MPI_INT, 2);
    EXPECT_COUNT(st, MPI_SHORT, 4);
    EXPECT_COUNT(st, MPI_DOUBLE, 1);
    EXPECT_COUNT(st, MPI_INT64_T, 1);
    EXPECT_ELEMENTS(st, MPI_INT, 2);

    /* Empty message. */
    st = self_msg(2, MPI_INT, 0);
    EXPECT_COUNT(st, MPI_INT, 0);
    EXPECT_COUNT(st, MPI_DOUBLE, 0);
    EXPECT_ELEMENTS(st, MPI_DOUBLE, 0);

    /* Pairs: 3 MPI_2INT = 6 ints. */
    st = self_msg(3, MPI_2INT, 3);
    EXPECT_COUNT(st, MPI_2INT, 3);
    EXPECT_ELEMENTS(st, MPI_2INT, 6);
    EXPECT_COUNT(st, MPI_INT, 6);
    /* 3 ints are one and a half pairs: 3 basic elements, no whole count
     * (MPI_2INT is defined as if MPI_Type_contiguous(2, MPI_INT)). */
    st = self_msg(4, MPI_INT, 3);
    EXPECT_COUNT(st, MPI_2INT, MPI_UNDEFINED);
    if (!T_MPICH_QUIRK("MPICH 5.0.2 says MPI_UNDEFINED"))
        EXPECT_ELEMENTS(st, MPI_2INT, 3);

    /* Status_set_elements. */
    t_junk_status(&st);
    MPI_CHK(MPI_Status_set_elements(&st, MPI_INT, 5));
    EXPECT_COUNT(st, MPI_INT, 5);
    EXPECT_ELEMENTS(st, MPI_INT, 5);
    EXPECT_COUNT(st, MPI_BYTE, 5 * (int)sizeof(int));
    MPI_CHK(MPI_Status_set_elements(&st, MPI_DOUBLE, 0));
    EXPECT_COUNT(st, MPI_DOUBLE, 0);
    MPI_CHK(MPI_Status_set_elements(&st, MPI_2INT, 4)); /* 4 ints = 2 pairs */
    if (!T_MPICH_QUIRK("MPICH 5.0.2 takes the count as pairs")) {
        EXPECT_ELEMENTS(st, MPI_2INT, 4);
        EXPECT_COUNT(st, MPI_2INT, 2);
    }

    /* Large counts: only the _c calls can say them. */
    MPI_Count big = (MPI_Count)3 << 30; /* 3 Gi */
    MPI_CHK(MPI_Status_set_elements_c(&st, MPI_BYTE, big));
    cc = -7;
    MPI_CHK(MPI_Get_count_c(&st, MPI_BYTE, &cc));
    CHECK(cc == big, "MPI_Get_count_c gave %lld, want %lld", (long long)cc, (long long)big);
    cc = -7;
    MPI_CHK(MPI_Get_elements_c(&st, MPI_BYTE, &cc));
    CHECK(cc == big, "MPI_Get_elements_c gave %lld, want %lld", (long long)cc, (long long)big);
    int small = -7;
    MPI_Get_count(&st, MPI_BYTE, &small);
    CHECK(small == MPI_UNDEFINED, "MPI_Get_count of 3 GiB gave %d, want MPI_UNDEFINED", small);
    MPI_CHK(MPI_Status_set_elements_c(&st, MPI_INT, 1000));
    EXPECT_COUNT(st, MPI_INT, 1000);

    /* Cancelled flag. */
    int flag = -1;
    MPI_CHK(MPI_Status_set_cancelled(&st, 1));
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "MPI_Test_cancelled after set_cancelled(1) gave %d", flag);
    MPI_CHK(MPI_Status_set_cancelled(&st, 0));
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "MPI_Test_cancelled after set_cancelled(0) gave %d", flag);
    st = self_msg(5, MPI_BYTE, 3);
    flag = -1;
    MPI_CHK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "a received message reads as cancelled");

    /* Source, tag, error (MPI-4.1). */
    int v = -7;
    MPI_CHK(MPI_Status_set_source(&st, 42));
    MPI_CHK(MPI_Status_set_tag(&st, 4242));
    MPI_CHK(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK(st.MPI_SOURCE == 42 && st.MPI_TAG == 4242 && st.MPI_ERROR == MPI_ERR_TAG,
          "status fields %d/%d/%d after set", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    MPI_CHK(MPI_Status_get_source(&st, &v));
    CHECK(v == 42, "MPI_Status_get_source gave %d", v);
    MPI_CHK(MPI_Status_get_tag(&st, &v));
    CHECK(v == 4242, "MPI_Status_get_tag gave %d", v);
    MPI_CHK(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TAG, "MPI_Status_get_error gave %d", v);
    st = self_msg(6, MPI_BYTE, 1);
    MPI_CHK(MPI_Status_get_source(&st, &v));
    CHECK(v == 0, "MPI_Status_get_source after a receive gave %d", v);
    MPI_CHK(MPI_Status_get_tag(&st, &v));
    CHECK(v == 6, "MPI_Status_get_tag after a receive gave %d", v);
    return t_finish();
}
