/* dtype_extent.c: sizes, bounds and extents. Lower bound, extent, true
 * lower bound and true extent (every query form: MPI_Aint, _c, _x) of
 * resized types (also with a negative extent), types built from them,
 * negative strides, leading holes, structs padded to the alignment of
 * their members, subarrays, empty types; data sent with count > 1 of
 * resized types (the element spacing is the extent, the data starts at
 * the true lower bound); MPI_Get_address / MPI_Aint_add / MPI_Aint_diff;
 * and MPI_BOTTOM with a struct of absolute addresses on both sides. */
#include "common.h"

#include <stddef.h>

static void bounds(const char *what, MPI_Datatype t, long size, long lb, long ext, long tlb,
                   long text)
{
    int s = -1;
    MPI_Aint a, b, c, d;
    MPI_Count cs, cl, ce, ctl, cte, xs, xl, xe, xtl, xte;
    MPI_CHK(MPI_Type_size(t, &s));
    MPI_CHK(MPI_Type_get_extent(t, &a, &b));
    MPI_CHK(MPI_Type_get_true_extent(t, &c, &d));
    MPI_CHK(MPI_Type_size_c(t, &cs));
    MPI_CHK(MPI_Type_get_extent_c(t, &cl, &ce));
    MPI_CHK(MPI_Type_get_true_extent_c(t, &ctl, &cte));
    MPI_CHK(MPI_Type_size_x(t, &xs));
    MPI_CHK(MPI_Type_get_extent_x(t, &xl, &xe));
    MPI_CHK(MPI_Type_get_true_extent_x(t, &xtl, &xte));
    CHECK(s == size && a == lb && b == ext && c == tlb && d == text,
          "%s: size %d lb %ld extent %ld true lb %ld true extent %ld, want %ld %ld %ld %ld %ld",
          what, s, (long)a, (long)b, (long)c, (long)d, size, lb, ext, tlb, text);
    CHECK(cs == size && cl == lb && ce == ext && ctl == tlb && cte == text, "%s: _c forms differ",
          what);
    CHECK(xs == size && xl == lb && xe == ext && xtl == tlb && xte == text, "%s: _x forms differ",
          what);
}

static void test_bounds(void)
{
    MPI_Datatype r, t, u;
    MPI_Type_create_resized(MPI_INT, -4, 12, &r);
    bounds("resized(int,-4,12)", r, 4, -4, 12, 0, 4);
    MPI_Type_contiguous(2, r, &t);
    bounds("contiguous(2, resized)", t, 8, -4, 24, 0, 16);
    MPI_Type_free(&t);
    MPI_Type_vector(2, 2, 3, r, &t);
    bounds("vector(2,2,3, resized)", t, 16, -4, 60, 0, 52);
    MPI_Type_free(&t);
    MPI_Type_free(&r);

    MPI_Type_vector(3, 1, -2, MPI_INT, &t);
    bounds("vector(3,1,-2,int)", t, 12, -16, 20, -16, 20);
    MPI_Type_free(&t);

    MPI_Type_create_resized(MPI_INT, 0, -8, &r);
    bounds("resized(int,0,-8)", r, 4, 0, -8, 0, 4);
    MPI_Type_contiguous(3, r, &t);
    bounds("contiguous(3, resized(int,0,-8))", t, 12, -16, 8, -16, 20);
    MPI_Type_free(&t);
    MPI_Type_free(&r);

    MPI_Type_indexed(2, (int[]){1, 1}, (int[]){2, 5}, MPI_INT, &t);
    bounds("indexed with a leading hole", t, 8, 8, 16, 8, 16);
    MPI_Type_free(&t);

    /* structs: the extent is padded to the most aligned member */
    struct { double d; char c; } s1;
    MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, ty, &t);
    bounds("struct{double,char}", t, 9, 0, (long)sizeof s1, 0, 9);
    MPI_Type_free(&t);
    struct { short s; char c; } s2;
    ty[0] = MPI_SHORT;
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 2}, ty, &t);
    bounds("struct{short,char}", t, 3, 0, (long)sizeof s2, 0, 3);
    MPI_Type_free(&t);
    /* a struct whose only member has explicit bounds keeps them */
    MPI_Type_create_resized(MPI_INT, 0, 10, &r);
    MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0}, &r, &t);
    bounds("struct{resized(int,0,10)}", t, 4, 0, 10, 0, 4);
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    /* a zero-length block does not count */
    ty[0] = MPI_DOUBLE;
    ty[1] = MPI_INT;
    MPI_Type_create_struct(2, (int[]){0, 1}, (MPI_Aint[]){-64, 0}, ty, &t);
    bounds("struct{0 x double, int}", t, 4, 0, 4, 0, 4);
    MPI_Type_free(&t);

    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_C, MPI_INT,
                             &t);
    bounds("subarray 4x5 [1..3)x[1..4)", t, 24, 0, 80, 24, 32);
    MPI_Type_free(&t);
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_FORTRAN,
                             MPI_INT, &t);
    bounds("subarray fortran 4x5", t, 24, 0, 80, 20, 40);
    MPI_Type_free(&t);

    MPI_Type_contiguous(0, MPI_DOUBLE, &t);
    bounds("contiguous(0)", t, 0, 0, 0, 0, 0);
    MPI_Type_create_resized(t, -3, 7, &u);
    bounds("resized(empty,-3,7)", u, 0, -3, 7, 0, 0);
    MPI_Type_free(&u);
    MPI_Type_free(&t);

    MPI_Type_create_resized(MPI_DOUBLE_INT, 4, 20, &t);
    struct { double v; int i; } di;
    bounds("resized(MPI_DOUBLE_INT,4,20)", t, 12, 4, 20, 0, (long)(offsetof(__typeof__(di), i) + 4));
    MPI_Type_free(&t);
}

/* count > 1 of resized types in communication */
static void test_resized_data(void)
{
    int peer = t_partner();
    /* every third int, starting one int after the buffer argument's lb */
    MPI_Datatype r, c4, rc;
    MPI_Type_create_resized(MPI_INT, -4, 12, &r); /* element i at buf + 12 i */
    MPI_Type_commit(&r);
    int src[30], dst[10];
    for (int i = 0; i < 30; i++) src[i] = i + 100 * t_rank;
    MPI_CHK(MPI_Sendrecv(src, 10, r, peer, 1, dst, 10, MPI_INT, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        CHECK(dst[i] == 3 * i + 100 * peer, "resized element %d is %d, want %d", i, dst[i],
              3 * i + 100 * peer);
    /* a dense block with a non-zero lb: contiguous data at the true lb */
    MPI_Type_contiguous(4, MPI_INT, &c4);
    MPI_Type_create_resized(c4, -8, 16, &rc);
    MPI_Type_commit(&rc);
    int big[12], got[12];
    for (int i = 0; i < 12; i++) big[i] = i * 7 + t_rank, got[i] = -1;
    MPI_CHK(MPI_Sendrecv(big, 3, rc, peer, 2, got, 12, MPI_INT, peer, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        CHECK(got[i] == i * 7 + peer, "dense resized: int %d is %d", i, got[i]);
    for (int i = 0; i < 12; i++) got[i] = -1;
    MPI_CHK(MPI_Sendrecv(big, 12, MPI_INT, peer, 3, got, 3, rc, peer, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        CHECK(got[i] == i * 7 + peer, "dense resized receive: int %d is %d", i, got[i]);
    MPI_Type_free(&r);
    MPI_Type_free(&c4);
    MPI_Type_free(&rc);
}

static void test_addresses(void)
{
    double a[10] = {0};
    MPI_Aint p0, p5, p9;
    MPI_CHK(MPI_Get_address(&a[0], &p0));
    MPI_CHK(MPI_Get_address(&a[5], &p5));
    MPI_CHK(MPI_Get_address(&a[9], &p9));
    CHECK(MPI_Aint_diff(p5, p0) == 5 * (MPI_Aint)sizeof(double), "Aint_diff %ld",
          (long)MPI_Aint_diff(p5, p0));
    CHECK(MPI_Aint_add(p5, 4 * sizeof(double)) == p9, "Aint_add does not reach a[9]");
    CHECK(MPI_Aint_diff(p0, p9) == -9 * (MPI_Aint)sizeof(double), "negative Aint_diff");
}

/* MPI_BOTTOM: a struct of the absolute addresses of unrelated variables. */
static struct { int tag; char pad[100]; double vals[3]; } g_in, g_out;
static char g_name[8], g_name_out[8];

static void test_bottom(void)
{
    int peer = t_partner();
    g_in.tag = 42 + t_rank;
    for (int i = 0; i < 3; i++) g_in.vals[i] = i + 0.5 + t_rank;
    snprintf(g_name, sizeof g_name, "rank%u", (unsigned)t_rank % 1000u); /* fits the 8 chars */
    MPI_Aint addr[3];
    MPI_Get_address(&g_in.tag, &addr[0]);
    MPI_Get_address(g_in.vals, &addr[1]);
    MPI_Get_address(g_name, &addr[2]);
    int bl[3] = {1, 3, 8};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st, rt;
    MPI_CHK(MPI_Type_create_struct(3, bl, addr, ty, &st));
    MPI_CHK(MPI_Type_commit(&st));
    /* the receive side: absolute addresses of other variables */
    MPI_Get_address(&g_out.tag, &addr[0]);
    MPI_Get_address(g_out.vals, &addr[1]);
    MPI_Get_address(g_name_out, &addr[2]);
    MPI_CHK(MPI_Type_create_struct(3, bl, addr, ty, &rt));
    MPI_CHK(MPI_Type_commit(&rt));
    MPI_Status s;
    MPI_CHK(MPI_Sendrecv(MPI_BOTTOM, 1, st, peer, 7, MPI_BOTTOM, 1, rt, peer, 7, MPI_COMM_WORLD, &s));
    CHECK(g_out.tag == 42 + peer, "MPI_BOTTOM int %d", g_out.tag);
    for (int i = 0; i < 3; i++)
        CHECK(g_out.vals[i] == i + 0.5 + peer, "MPI_BOTTOM double %d is %g", i, g_out.vals[i]);
    char want[8] = {0};
    snprintf(want, sizeof want, "rank%u", (unsigned)peer % 1000u); /* fits the 8 chars */
    CHECK(memcmp(g_name_out, want, 8) == 0, "MPI_BOTTOM chars '%.8s'", g_name_out);
    int el = -1;
    MPI_Get_elements(&s, rt, &el);
    CHECK(el == 12, "MPI_BOTTOM Get_elements %d, want 12", el);
    /* and the same data packed from MPI_BOTTOM */
    char buf[64];
    int pos = 0;
    MPI_CHK(MPI_Pack(MPI_BOTTOM, 1, st, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 4 + 24 + 8, "packed %d bytes from MPI_BOTTOM", pos);
    int t;
    memcpy(&t, buf, 4);
    CHECK(t == 42 + t_rank, "packed int %d", t);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    /* one dense block at an absolute address (the zero-copy path) */
    static int dense_in[100000], dense_out[100000];
    for (int i = 0; i < 100000; i++) dense_in[i] = i * 3 + t_rank, dense_out[i] = -1;
    MPI_Aint a_in, a_out;
    MPI_Get_address(dense_in, &a_in);
    MPI_Get_address(dense_out, &a_out);
    MPI_Datatype din, dout, ity = MPI_INT;
    int n = 100000; /* rendezvous */
    MPI_Type_create_struct(1, &n, &a_in, &ity, &din);
    MPI_Type_create_struct(1, &n, &a_out, &ity, &dout);
    MPI_Type_commit(&din);
    MPI_Type_commit(&dout);
    MPI_CHK(MPI_Sendrecv(MPI_BOTTOM, 1, din, peer, 8, MPI_BOTTOM, 1, dout, peer, 8, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    for (int i = 0; i < 100000; i++)
        if (dense_out[i] != i * 3 + peer) {
            CHECK(0, "MPI_BOTTOM dense block: int %d is %d", i, dense_out[i]);
            break;
        }
    MPI_Type_free(&din);
    MPI_Type_free(&dout);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_bounds();
    test_resized_data();
    test_addresses();
    test_bottom();
    return t_finish();
}
