/* dtype_errors.c: datatype calls with bad arguments return the right error
 * class under MPI_ERRORS_RETURN: negative counts and block lengths
 * (MPI_ERR_COUNT), invalid, freed or uncommitted types and freeing a
 * predefined one (MPI_ERR_TYPE), bad subarray and darray arguments and
 * orders, unknown type classes and f90 ranges (MPI_ERR_ARG); plus the
 * lookups that succeed (MPI_Type_match_size, MPI_Type_create_f90_*,
 * MPI_Type_get_value_index) and names of predefined and derived types. */
#include "common.h"

static void test_counts(void)
{
    MPI_Datatype t;
    CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector(1, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_hvector(1, -1, 8, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(1, (int[]){-1}, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_hindexed(-1, NULL, NULL, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_indexed_block(1, -3, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct(-1, NULL, NULL, NULL, &t), MPI_ERR_COUNT);
    MPI_Datatype ty[1] = {MPI_INT};
    CHECK_CLASS(MPI_Type_create_struct(1, (int[]){-2}, (MPI_Aint[]){0}, ty, &t), MPI_ERR_COUNT);
}

static void test_types(void)
{
    MPI_Datatype t, ty[2] = {MPI_INT, MPI_DATATYPE_NULL};
    CHECK_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, ty, &t), MPI_ERR_TYPE);
    int size;
    CHECK_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
    MPI_Datatype pre = MPI_INT;
    CHECK_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    CHECK(pre == MPI_INT, "a failed MPI_Type_free changed the handle");
    /* uncommitted type in communication */
    MPI_Type_contiguous(2, MPI_INT, &t);
    int buf[2] = {0, 0};
    CHECK_CLASS(MPI_Send(buf, 1, t, t_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Recv(buf, 1, t, t_rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    /* a freed handle is no longer a datatype */
    MPI_Datatype copy = t;
    MPI_CHK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle set");
    if (!T_MPICH_QUIRK("MPICH 5.0.2 aborts on a freed datatype handle")) {
        CHECK_CLASS(MPI_Type_size(copy, &size), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Type_commit(&copy), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Type_free(&copy), MPI_ERR_TYPE);
        MPI_Datatype u;
        CHECK_CLASS(MPI_Type_vector(2, 1, 2, copy, &u), MPI_ERR_TYPE);
    }
    /* contents: predefined types have none, arrays must be large enough */
    int ints[4];
    MPI_Aint addrs[4];
    MPI_Datatype types[4];
    CHECK(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, addrs, types) != MPI_SUCCESS,
          "MPI_Type_get_contents accepted a predefined type");
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    if (!T_MPICH_QUIRK("MPICH 5.0.2 does not check the array sizes of MPI_Type_get_contents"))
        CHECK_CLASS(MPI_Type_get_contents(t, 2, 4, 4, ints, addrs, types), MPI_ERR_ARG);
    MPI_Type_free(&t);
}

static void test_arrays(void)
{
    MPI_Datatype t;
    if (T_MPICH_QUIRK("MPICH 5.0.2 does not check subarray and darray arguments")) return;
    int sz[2] = {4, 5}, sub[2] = {2, 3}, st[2] = {1, 1};
    CHECK_CLASS(MPI_Type_create_subarray(0, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(2, (int[]){0, 5}, sub, st, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(2, sz, (int[]){5, 3}, st, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(2, sz, sub, (int[]){3, 1}, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(2, sz, sub, (int[]){-1, 1}, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(2, sz, sub, st, 77, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray_c(2, (MPI_Count[]){4, 5}, (MPI_Count[]){2, -1},
                                           (MPI_Count[]){0, 0}, MPI_ORDER_FORTRAN, MPI_INT, &t),
                MPI_ERR_ARG);

    int g[2] = {8, 8}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
    CHECK_CLASS(MPI_Type_create_darray(3, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG); /* 2 x 2 grid is not 3 processes */
    CHECK_CLASS(MPI_Type_create_darray(4, 4, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG); /* rank outside the grid */
    CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, (int[]){99, MPI_DISTRIBUTE_BLOCK}, darg, ps,
                                       MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, (int[]){3, 1}, ps, MPI_ORDER_C, MPI_INT,
                                       &t),
                MPI_ERR_ARG); /* 2 blocks of 3 cannot hold 8 */
    CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, (int[]){MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK},
                                       darg, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG); /* an undistributed dimension over 2 processes */
    CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, darg, ps, 0, MPI_INT, &t), MPI_ERR_ARG);
}

static void test_lookups(void)
{
    MPI_Datatype t;
    MPI_CHK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    int size = 0;
    MPI_Type_size(t, &size);
    CHECK(size == 8, "match_size(REAL, 8) has size %d", size);
    MPI_CHK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 4, "match_size(INTEGER, 4) has size %d", size);
    MPI_CHK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 16, "match_size(COMPLEX, 16) has size %d", size);
    CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_match_size(12345, 4, &t), MPI_ERR_ARG);

    MPI_CHK(MPI_Type_create_f90_real(6, 30, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 4, "f90_real(6, 30) has size %d, want 4", size);
    MPI_CHK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 8, "f90_real(-, 300) has size %d, want 8", size);
    MPI_Datatype t2;
    MPI_CHK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t2));
    CHECK(t == t2, "f90_real twice with the same arguments gave different handles");
    if (!T_MPICH_QUIRK("MPICH 5.0.2 lets f90 types be freed"))
        CHECK_CLASS(MPI_Type_free(&t2), MPI_ERR_TYPE);
    MPI_CHK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 16, "f90_complex(15, -) has size %d, want 16", size);
    MPI_CHK(MPI_Type_create_f90_integer(9, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 4, "f90_integer(9) has size %d, want 4", size);
    MPI_CHK(MPI_Type_create_f90_integer(10, &t));
    MPI_Type_size(t, &size);
    CHECK(size == 8, "f90_integer(10) has size %d, want 8", size);
    if (T_MPICH_QUIRK("MPICH 5.0.2 gives MPI_ERR_OTHER for an unavailable f90 kind")) {
        CHECK(MPI_Type_create_f90_real(40, 30, &t) != MPI_SUCCESS, "f90_real(40, 30) accepted");
    } else {
        CHECK_CLASS(MPI_Type_create_f90_real(40, 30, &t), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Type_create_f90_integer(50, &t), MPI_ERR_ARG);
    }
    /* f90 types communicate like their predefined counterparts */
    MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t);
    double x = 2.5 + t_rank, y = 0;
    MPI_CHK(MPI_Sendrecv(&x, 1, t, 0, 1, &y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(y == x, "f90 real sent %g, received %g", x, y);

    MPI_CHK(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &t));
    CHECK(t == MPI_FLOAT_INT, "value_index(FLOAT, INT) is not MPI_FLOAT_INT");
    MPI_CHK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT, "value_index(INT, INT) is not MPI_2INT");
    MPI_CHK(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, &t));
    CHECK(t == MPI_2DOUBLE_PRECISION ||
              T_MPICH_QUIRK("MPICH 5.0.2 has no Fortran pairs in MPI_Type_get_value_index"),
          "value_index(DOUBLE_PRECISION x2) is wrong");
    MPI_CHK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_DOUBLE, &t));
    CHECK(t == MPI_DATATYPE_NULL, "value_index(DOUBLE, DOUBLE) is not MPI_DATATYPE_NULL");
}

static void test_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_CHK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10, "MPI_DOUBLE is named '%s' (%d)", name, len);
    MPI_CHK(MPI_Type_get_name(MPI_2INT, name, &len));
    CHECK(strcmp(name, "MPI_2INT") == 0, "MPI_2INT is named '%s'", name);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_CHK(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == 0, "a new type is named '%s'", name);
    MPI_CHK(MPI_Type_set_name(t, "pair of ints"));
    MPI_CHK(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "set name came back as '%s'", name);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_counts();
    test_types();
    test_arrays();
    test_lookups();
    test_names();
    return t_finish();
}
