/* topo_cart: Cartesian topologies and MPI_Dims_create.
 *   - MPI_Dims_create against a table of known balanced results, with
 *     fixed entries, and its MPI_ERR_DIMS error;
 *   - MPI_Cart_create over 1..3 dimensions (periodic and not), including
 *     grids smaller than the communicator (the rest get MPI_COMM_NULL) and
 *     the zero-dimensional grid;
 *   - MPI_Cart_get / MPI_Cartdim_get / MPI_Topo_test, the row-major rank
 *     order, MPI_Cart_rank <-> MPI_Cart_coords round trips, periodic wrap;
 *   - MPI_Cart_shift (MPI_PROC_NULL at open edges) checked by arithmetic and
 *     by a message exchange along each dimension;
 *   - MPI_Cart_sub, MPI_Cart_map, MPI_Comm_dup keeping the topology;
 *   - error classes under MPI_ERRORS_RETURN. */
#include "common.h"

static const struct {
    int nnodes, ndims, in[4], out[4];
} dims_table[] = {
    {6, 2, {0, 0}, {3, 2}},
    {7, 2, {0, 0}, {7, 1}},
    {24, 3, {0, 0, 0}, {4, 3, 2}},
    {12, 3, {0, 0, 0}, {3, 2, 2}},
    {16, 3, {0, 0, 0}, {4, 2, 2}},
    {36, 3, {0, 0, 0}, {4, 3, 3}},
    {64, 3, {0, 0, 0}, {4, 4, 4}},
    {1, 3, {0, 0, 0}, {1, 1, 1}},
    {2, 4, {0, 0, 0, 0}, {2, 1, 1, 1}},
    {100, 2, {0, 0}, {10, 10}},
    {90, 3, {0, 0, 0}, {6, 5, 3}},
    {30, 3, {0, 3, 0}, {5, 3, 2}},
    {12, 2, {0, 4}, {3, 4}},
    {16, 4, {0, 0, 0, 0}, {2, 2, 2, 2}},
    {32, 2, {0, 0}, {8, 4}},
    {1000, 3, {0, 0, 0}, {10, 10, 10}},
    {210, 4, {0, 0, 0, 0}, {7, 5, 3, 2}},
    {120, 3, {0, 0, 0}, {6, 5, 4}},
    {8, 3, {2, 0, 0}, {2, 2, 2}},
    {4, 1, {0}, {4}},
    {48, 4, {0, 0, 0, 0}, {4, 3, 2, 2}},
    {18, 3, {0, 0, 0}, {3, 3, 2}},
    {5, 2, {0, 5}, {1, 5}},
    {6, 3, {1, 0, 1}, {1, 6, 1}},
    {9, 2, {3, 3}, {3, 3}},
};

static void test_dims_create(void)
{
    for (size_t i = 0; i < sizeof dims_table / sizeof dims_table[0]; i++) {
        int d[4];
        memcpy(d, dims_table[i].in, sizeof d);
        MPI_CHK(MPI_Dims_create(dims_table[i].nnodes, dims_table[i].ndims, d));
        for (int k = 0; k < dims_table[i].ndims; k++)
            CHECK(d[k] == dims_table[i].out[k], "Dims_create(%d, %d): dims[%d] = %d, want %d",
                  dims_table[i].nnodes, dims_table[i].ndims, k, d[k], dims_table[i].out[k]);
    }
    /* Every result multiplies out and is non-increasing. */
    for (int n = 1; n <= 300; n++)
        for (int nd = 1; nd <= 4; nd++) {
            int d[4] = {0, 0, 0, 0}, prod = 1;
            MPI_CHK(MPI_Dims_create(n, nd, d));
            for (int k = 0; k < nd; k++) {
                prod *= d[k];
                if (k) CHECK(d[k] <= d[k - 1], "Dims_create(%d, %d) not non-increasing", n, nd);
            }
            CHECK(prod == n, "Dims_create(%d, %d): product %d", n, nd, prod);
        }
    int d2[2] = {2, 0};
    CHECK_CLASS(MPI_Dims_create(7, 2, d2), MPI_ERR_DIMS);
    int d3[2] = {3, 3};
    CHECK_CLASS(MPI_Dims_create(10, 2, d3), MPI_ERR_DIMS);
}

/* Checks everything about one Cartesian communicator of the given shape. */
static void check_cart(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int rank, size, status, nd = -1;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    MPI_CHK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test %d, want MPI_CART", status);
    MPI_CHK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims, "Cartdim_get %d, want %d", nd, ndims);
    int gd[4], gp[4], gc[4], cc[4];
    MPI_CHK(MPI_Cart_get(cart, 4, gd, gp, gc));
    int expect_rank = 0;
    for (int i = 0; i < ndims; i++) {
        CHECK(gd[i] == dims[i], "Cart_get dims[%d] = %d, want %d", i, gd[i], dims[i]);
        CHECK(!gp[i] == !periods[i], "Cart_get periods[%d] = %d", i, gp[i]);
        CHECK(gc[i] >= 0 && gc[i] < dims[i], "Cart_get coords[%d] = %d", i, gc[i]);
        expect_rank = expect_rank * dims[i] + gc[i]; /* row-major */
    }
    CHECK(expect_rank == rank, "coords give rank %d, I am %d", expect_rank, rank);
    /* Round trips over every rank. */
    for (int r = 0; r < size; r++) {
        int back = -1;
        MPI_CHK(MPI_Cart_coords(cart, r, 4, cc));
        MPI_CHK(MPI_Cart_rank(cart, cc, &back));
        CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
    }
    MPI_CHK(MPI_Cart_coords(cart, rank, 4, cc));
    for (int i = 0; i < ndims; i++) CHECK(cc[i] == gc[i], "Cart_coords of me differs at %d", i);
    /* Periodic wrap. */
    for (int i = 0; i < ndims; i++) {
        if (!periods[i]) continue;
        int w[4], r1 = -1, r2 = -1;
        memcpy(w, gc, sizeof w);
        w[i] = gc[i] + dims[i];
        MPI_CHK(MPI_Cart_rank(cart, w, &r1));
        w[i] = gc[i] - 3 * dims[i];
        MPI_CHK(MPI_Cart_rank(cart, w, &r2));
        CHECK(r1 == rank && r2 == rank, "wrapped coordinates give %d and %d, want %d", r1, r2,
              rank);
    }
    /* Shifts: arithmetic, then by exchanging messages. */
    for (int i = 0; i < ndims; i++)
        for (int disp = -2; disp <= 2; disp++) {
            int src = -7, dst = -7;
            MPI_CHK(MPI_Cart_shift(cart, i, disp, &src, &dst));
            for (int side = 0; side < 2; side++) {
                int c = gc[i] + (side ? disp : -disp), want;
                if (periods[i]) c = ((c % dims[i]) + dims[i]) % dims[i];
                if (c < 0 || c >= dims[i]) {
                    want = MPI_PROC_NULL;
                } else {
                    int w[4];
                    memcpy(w, gc, sizeof w);
                    w[i] = c;
                    MPI_Cart_rank(cart, w, &want);
                }
                int got = side ? dst : src;
                CHECK(got == want, "Cart_shift(dim %d, disp %d) %s = %d, want %d", i, disp,
                      side ? "dest" : "source", got, want);
            }
            int out = rank, in = -5;
            MPI_Status st;
            MPI_CHK(MPI_Sendrecv(&out, 1, MPI_INT, dst, 7, &in, 1, MPI_INT, src, 7, cart, &st));
            if (src != MPI_PROC_NULL) CHECK(in == src, "shift exchange got %d from %d", in, src);
            else CHECK(in == -5, "receive from MPI_PROC_NULL changed the buffer");
        }
}

static void test_cart_shapes(void)
{
    static const struct {
        int ndims, periods[3];
    } shapes[] = {{1, {0}}, {1, {1}}, {2, {0, 0}}, {2, {1, 0}}, {2, {1, 1}}, {3, {0, 1, 0}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndims, dims[3] = {0, 0, 0};
        MPI_Dims_create(t_size, nd, dims);
        MPI_Comm cart;
        MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, shapes[s].periods, 0, &cart));
        CHECK(cart != MPI_COMM_NULL, "Cart_create gave MPI_COMM_NULL");
        if (cart == MPI_COMM_NULL) continue;
        check_cart(cart, nd, dims, shapes[s].periods);
        /* A duplicate has the same topology. */
        MPI_Comm dup;
        MPI_CHK(MPI_Comm_dup(cart, &dup));
        check_cart(dup, nd, dims, shapes[s].periods);
        MPI_CHK(MPI_Comm_free(&dup));
        MPI_CHK(MPI_Comm_free(&cart));
    }
}

/* A grid with fewer points than processes: the others get MPI_COMM_NULL. */
static void test_cart_smaller(void)
{
    int n = t_size > 1 ? t_size - 1 : 1, dims[1] = {n}, periods[1] = {1};
    MPI_Comm cart;
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart));
    if (t_rank < n) {
        CHECK(cart != MPI_COMM_NULL, "rank %d inside the grid got MPI_COMM_NULL", t_rank);
        if (cart != MPI_COMM_NULL) {
            int size, rank;
            MPI_Comm_size(cart, &size);
            MPI_Comm_rank(cart, &rank);
            CHECK(size == n && rank == t_rank, "size %d rank %d", size, rank);
            check_cart(cart, 1, dims, periods);
            MPI_Comm_free(&cart);
        }
    } else {
        CHECK(cart == MPI_COMM_NULL, "rank %d outside the grid got a communicator", t_rank);
    }
    int newrank = -7;
    MPI_CHK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
    CHECK(newrank == (t_rank < n ? t_rank : MPI_UNDEFINED), "Cart_map gave %d", newrank);

    /* Zero dimensions: one process. */
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    if (t_rank == 0) {
        CHECK(cart != MPI_COMM_NULL, "0-d grid: rank 0 got MPI_COMM_NULL");
        if (cart != MPI_COMM_NULL) {
            int size = -1, nd = -1;
            MPI_Comm_size(cart, &size);
            MPI_CHK(MPI_Cartdim_get(cart, &nd));
            CHECK(size == 1 && nd == 0, "0-d grid: size %d ndims %d", size, nd);
            MPI_Comm_free(&cart);
        }
    } else {
        CHECK(cart == MPI_COMM_NULL, "0-d grid: rank %d got a communicator", t_rank);
    }
}

static void test_cart_sub(void)
{
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    MPI_Dims_create(t_size, 3, dims);
    MPI_Comm cart;
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart));
    int coords[3];
    MPI_Cart_coords(cart, t_rank, 3, coords);
    for (int mask = 0; mask < 8; mask++) {
        int remain[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1}, want_size = 1;
        int sd[3], sp[3], kept = 0, want_rank = 0;
        for (int i = 0; i < 3; i++)
            if (remain[i]) {
                want_size *= dims[i];
                want_rank = want_rank * dims[i] + coords[i];
                sd[kept] = dims[i];
                sp[kept++] = periods[i];
            }
        MPI_Comm sub;
        MPI_CHK(MPI_Cart_sub(cart, remain, &sub));
        if (sub == MPI_COMM_NULL) {
            CHECK(0, "Cart_sub(mask %d) gave MPI_COMM_NULL", mask);
            continue;
        }
        int size, rank, nd = -1;
        MPI_Comm_size(sub, &size);
        MPI_Comm_rank(sub, &rank);
        MPI_CHK(MPI_Cartdim_get(sub, &nd));
        CHECK(size == want_size && rank == want_rank && nd == kept,
              "Cart_sub(mask %d): size %d rank %d ndims %d, want %d %d %d", mask, size, rank,
              nd, want_size, want_rank, kept);
        if (nd == kept) check_cart(sub, kept, sd, sp);
        /* The members are exactly the processes that share the dropped
         * coordinates: sum the world ranks to check. */
        int sum = 0, want_sum = 0;
        MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, sub);
        for (int r = 0; r < t_size; r++) {
            int c[3], same = 1;
            MPI_Cart_coords(cart, r, 3, c);
            for (int i = 0; i < 3; i++)
                if (!remain[i] && c[i] != coords[i]) same = 0;
            if (same) want_sum += r;
        }
        CHECK(sum == want_sum, "Cart_sub(mask %d): members sum to %d, want %d", mask, sum,
              want_sum);
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&cart);
}

static void test_errors(void)
{
    int status = -1;
    MPI_CHK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED, "Topo_test(MPI_COMM_WORLD) = %d", status);
    int nd;
    CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    int src, dst;
    CHECK_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);

    int dims[2] = {t_size, 1}, periods[2] = {0, 1};
    MPI_Comm cart;
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    /* Out of range on a non-periodic dimension: the standard names no
     * class; dmpi says MPI_ERR_RANK. */
    int coords[2] = {t_size, 0}, r;
    int range_cls = T_MPICH_QUIRK("MPICH says MPI_ERR_ARG") ? MPI_ERR_ARG : MPI_ERR_RANK;
    CHECK_CLASS(MPI_Cart_rank(cart, coords, &r), range_cls);
    coords[0] = -1;
    CHECK_CLASS(MPI_Cart_rank(cart, coords, &r), range_cls);
    coords[0] = 0;
    coords[1] = 5; /* periodic: fine */
    MPI_CHK(MPI_Cart_rank(cart, coords, &r));
    CHECK(r == 0, "Cart_rank wrapped to %d", r);
    CHECK_CLASS(MPI_Cart_coords(cart, t_size, 2, coords), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK);
    MPI_Comm_free(&cart);

    int big[2] = {t_size + 1, 1};
    MPI_Comm none = MPI_COMM_NULL;
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &none);
    CHECK(rc != MPI_SUCCESS, "Cart_create with a grid larger than the communicator succeeded");
    int bad[2] = {-1, 1};
    if (!T_MPICH_QUIRK("MPICH does not check for negative dims"))
        CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, periods, 0, &none), MPI_ERR_DIMS);
    /* A grid of no points is smaller than the group: nobody is in it. */
    int empty[2] = {0, 1};
    none = MPI_COMM_WORLD;
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 2, empty, periods, 0, &none));
    CHECK(none == MPI_COMM_NULL, "a grid of no points gave a communicator");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_dims_create();
    test_cart_shapes();
    test_cart_smaller();
    test_cart_sub();
    test_errors();
    return t_finish();
}
