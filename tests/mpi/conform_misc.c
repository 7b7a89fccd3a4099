/* conform_misc: smaller conformance rules (issue 22, item 7), checked from
 * the standard's text:
 *   - MPI_Dims_create (MPI 4.1 section 8.5.2): the free entries get the
 *     dimensions "as close to each other as possible", in non-increasing
 *     order; positive entries are kept; nnodes must be a multiple of their
 *     product. Checked against a brute-force search for the smallest spread
 *     (largest - smallest), and 5040 in 3 dimensions is 21 x 16 x 15; ties
 *     go to the largest smallest factor, then the smallest sum (590520 in
 *     4 is 38 x 37 x 21 x 20, as MPICH gives it).
 *   - MPI_Info_create_env (section 11.4): the same construction as
 *     MPI_INFO_ENV made by MPI_Init with the same arguments, so the same
 *     keys and values whether called before or after MPI_Init.
 *   - struct and indexed types whose leading blocks have length zero: such
 *     a block adds no entry to the type map, so it changes neither the
 *     bounds nor the true bounds (section 5.1); the types commit, and sends
 *     with them carry the right data. */
#include "common.h"

#include <stdbool.h>
#include <string.h>

/* ------------------------------------------------------- Dims_create */
static long long brute_best; /* smallest spread found */

static void brute(int m, int k, int maxf, int minsofar, int maxsofar)
{
    if (k == 0) {
        if (m == 1 && maxsofar - minsofar < brute_best) brute_best = maxsofar - minsofar;
        return;
    }
    for (int f = maxf; f >= 1; f--) {
        if (m % f) continue;
        int mx = maxsofar < 0 ? f : maxsofar;
        if (mx - f >= brute_best) break; /* smaller f only widens it */
        brute(m / f, k - 1, f, f, mx);
    }
}

static void dims_case(int n, int nd, const int *in, const int *want)
{
    int d[8];
    memcpy(d, in, (size_t)nd * sizeof *d);
    MPI_CHK(MPI_Dims_create(n, nd, d));
    long long prod = 1;
    for (int i = 0; i < nd; i++) {
        prod *= d[i];
        if (in[i] > 0)
            CHECK(d[i] == in[i], "Dims_create(%d): fixed dims[%d] %d became %d", n, i, in[i],
                  d[i]);
        CHECK(d[i] > 0, "Dims_create(%d, %d): dims[%d] = %d", n, nd, i, d[i]);
    }
    CHECK(prod == n, "Dims_create(%d, %d): product %lld", n, nd, prod);
    /* the free entries, in order: non-increasing, with the smallest spread */
    int k = 0, mn = 1 << 30, mx = 0, last = 1 << 30, fixed = 1;
    for (int i = 0; i < nd; i++) {
        if (in[i] > 0) {
            fixed *= in[i];
            continue;
        }
        CHECK(d[i] <= last, "Dims_create(%d, %d): dims[%d] = %d after %d (not non-increasing)", n,
              nd, i, d[i], last);
        last = d[i];
        if (d[i] < mn) mn = d[i];
        if (d[i] > mx) mx = d[i];
        k++;
    }
    if (k > 0) {
        brute_best = 1LL << 40;
        brute(n / fixed, k, n / fixed, 0, -1);
        CHECK(mx - mn == brute_best, "Dims_create(%d, %d): spread %d, best is %lld", n, nd,
              mx - mn, brute_best);
    }
    if (want)
        for (int i = 0; i < nd; i++)
            CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, want %d", n, nd, i, d[i],
                  want[i]);
}

static void check_dims(void)
{
    static const int z[8] = {0};
    dims_case(5040, 3, z, (const int[]){21, 16, 15});
    /* equal spread (18) and a larger smallest factor, though a larger sum
     * than 37 x 30 x 28 x 19: the tie-break MPICH's table also follows */
    dims_case(590520, 4, z, (const int[]){38, 37, 21, 20});
    dims_case(6, 2, z, (const int[]){3, 2});
    dims_case(7, 2, z, (const int[]){7, 1});
    dims_case(1, 3, z, (const int[]){1, 1, 1});
    dims_case(16, 4, z, (const int[]){2, 2, 2, 2});
    dims_case(24, 3, z, (const int[]){4, 3, 2});
    dims_case(64, 3, z, (const int[]){4, 4, 4});
    dims_case(72, 2, z, (const int[]){9, 8});
    dims_case(30, 3, (const int[]){0, 3, 0}, (const int[]){5, 3, 2});
    dims_case(16, 3, (const int[]){2, 0, 0}, (const int[]){2, 4, 2});
    dims_case(12, 3, (const int[]){0, 0, 6}, (const int[]){2, 1, 6});
    dims_case(8, 2, (const int[]){2, 4}, (const int[]){2, 4});
    for (int n = 1; n <= 400; n++)
        for (int nd = 1; nd <= 4; nd++) dims_case(n, nd, z, NULL);
    for (int n = 5000; n <= 5100; n++) dims_case(n, 3, z, NULL);
    dims_case(t_size, 2, z, NULL);
    /* errors: nnodes not a multiple of the fixed entries; a negative entry */
    int d[2] = {3, 0};
    CHECK_CLASS(MPI_Dims_create(10, 2, d), MPI_ERR_DIMS);
    int e[2] = {-1, 0};
    CHECK_CLASS(MPI_Dims_create(4, 2, e), MPI_ERR_DIMS);
    int none[1] = {0};
    MPI_CHK(MPI_Dims_create(1, 0, none)); /* ndims 0: an empty grid of 1 node */
}

/* -------------------------------------------------------- Info_create_env */
#define MAXK 32
typedef struct {
    int n;
    char key[MAXK][MPI_MAX_INFO_KEY];
    char val[MAXK][256];
} kv_list;

static void snapshot(MPI_Info info, kv_list *l)
{
    int n = 0;
    MPI_Info_get_nkeys(info, &n);
    l->n = n < MAXK ? n : MAXK;
    for (int i = 0; i < l->n; i++) {
        int len = sizeof l->val[i], flag = 0;
        MPI_Info_get_nthkey(info, i, l->key[i]);
        MPI_Info_get_string(info, l->key[i], &len, l->val[i], &flag);
        if (!flag) l->val[i][0] = 0;
    }
}

static void compare(const kv_list *a, const kv_list *b, const char *what)
{
    CHECK(a->n == b->n, "%s: %d keys before MPI_Init, %d after", what, a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        int j = 0;
        while (j < b->n && strcmp(a->key[i], b->key[j]) != 0) j++;
        CHECK(j < b->n, "%s: key \"%s\" only before MPI_Init", what, a->key[i]);
        if (j < b->n)
            CHECK(strcmp(a->val[i], b->val[j]) == 0,
                  "%s: \"%s\" = \"%.60s\" before, \"%.60s\" after", what, a->key[i],
                  a->val[i], b->val[j]);
    }
}

static kv_list env_before_args, env_before_noargs;

static void check_info_env(int argc, char **argv)
{
    kv_list l;
    MPI_Info info;
    MPI_CHK(MPI_Info_create_env(argc, argv, &info));
    snapshot(info, &l);
    MPI_Info_free(&info);
    compare(&env_before_args, &l, "Info_create_env(argc, argv)");
    CHECK(l.n > 0, "Info_create_env gave no keys");
    MPI_CHK(MPI_Info_create_env(0, NULL, &info));
    snapshot(info, &l);
    MPI_Info_free(&info);
    compare(&env_before_noargs, &l, "Info_create_env(0, NULL)");
}

/* --------------------------------------------- zero-length leading blocks */
static void check_bounds(MPI_Datatype t, const char *name, MPI_Count size, MPI_Aint lb,
                         MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent)
{
    MPI_Count sz = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;
    MPI_CHK(MPI_Type_size_x(t, &sz));
    MPI_CHK(MPI_Type_get_extent(t, &l, &e));
    MPI_CHK(MPI_Type_get_true_extent(t, &tl, &te));
    CHECK(sz == size && l == lb && e == extent && tl == tlb && te == textent,
          "%s: size %lld lb %ld extent %ld true lb %ld true extent %ld; want %lld %ld %ld %ld %ld",
          name, (long long)sz, (long)l, (long)e, (long)tl, (long)te, (long long)size, (long)lb,
          (long)extent, (long)tlb, (long)textent);
}

/* Sends 2 of t from the data pattern to the partner, which receives into
 * -1s; every int the type map covers must arrive, nothing else change. */
static void exchange(MPI_Datatype t, const int *covered, int nint, const char *name)
{
    int sb[64], rb[64];
    for (int i = 0; i < 64; i++) sb[i] = 1000 * (t_rank + 1) + i, rb[i] = -1;
    int p = t_partner();
    MPI_Status st;
    MPI_CHK(MPI_Sendrecv(sb, 2, t, p, 7, rb, 2, t, p, 7, MPI_COMM_WORLD, &st));
    int cnt = -1;
    MPI_CHK(MPI_Get_count(&st, t, &cnt));
    CHECK(cnt == 2, "%s: received count %d, want 2", name, cnt);
    for (int i = 0; i < 64; i++) {
        bool in = false;
        for (int c = 0; c < nint; c++) in = in || covered[c] == i;
        int want = in ? 1000 * (p + 1) + i : -1;
        CHECK(rb[i] == want, "%s: int %d is %d, want %d", name, i, rb[i], want);
    }
    /* and Pack/Unpack agree */
    char pk[1024];
    int pos = 0;
    MPI_CHK(MPI_Pack(sb, 2, t, pk, sizeof pk, &pos, MPI_COMM_WORLD));
    CHECK(pos == nint * (int)sizeof(int), "%s: packed %d bytes", name, pos);
}

static void check_zero_blocks(void)
{
    const int I = (int)sizeof(int);
    /* struct: leading blocks of length 0 (far away, and of another type) */
    {
        int bl[4] = {0, 0, 2, 1};
        MPI_Aint d[4] = {-64, 200, 2 * I, 6 * I};
        MPI_Datatype ty[4] = {MPI_DOUBLE, MPI_CHAR, MPI_INT, MPI_INT}, t;
        MPI_CHK(MPI_Type_create_struct(4, bl, d, ty, &t));
        MPI_CHK(MPI_Type_commit(&t));
        /* type map: ints at 2, 3, 6 (in ints); lb 2I, ub 7I */
        check_bounds(t, "struct {0,0,2,1}", 3 * I, 2 * I, 5 * I, 2 * I, 5 * I);
        /* two copies: the second starts one extent (5 ints) later */
        const int cov[6] = {2, 3, 6, 7, 8, 11};
        exchange(t, cov, 6, "struct {0,0,2,1}");
        MPI_Type_free(&t);
    }
    /* indexed: two leading empty blocks, displacements out of order */
    {
        int bl[3] = {0, 0, 3}, d[3] = {40, 1, 4};
        MPI_Datatype t;
        MPI_CHK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        MPI_CHK(MPI_Type_commit(&t));
        check_bounds(t, "indexed {0,0,3}", 3 * I, 4 * I, 3 * I, 4 * I, 3 * I);
        const int cov[6] = {4, 5, 6, 7, 8, 9};
        exchange(t, cov, 6, "indexed {0,0,3}");
        MPI_Type_free(&t);
    }
    /* struct with a leading empty block of a derived type */
    {
        MPI_Datatype vec, t;
        MPI_CHK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
        int bl[2] = {0, 1};
        MPI_Aint d[2] = {0, 8 * I};
        MPI_Datatype ty[2] = {vec, vec};
        MPI_CHK(MPI_Type_create_struct(2, bl, d, ty, &t));
        MPI_CHK(MPI_Type_commit(&t));
        /* ints at 8 and 11: lb 8I, extent 4I */
        check_bounds(t, "struct {0 x vec, vec}", 2 * I, 8 * I, 4 * I, 8 * I, 4 * I);
        const int cov[4] = {8, 11, 12, 15};
        exchange(t, cov, 4, "struct {0 x vec, vec}");
        MPI_Type_free(&t);
        MPI_Type_free(&vec);
    }
    /* every block empty: size 0, extent 0, and a send of it is empty */
    {
        int bl[2] = {0, 0}, d[2] = {3, 7};
        MPI_Datatype t;
        MPI_CHK(MPI_Type_indexed(2, bl, d, MPI_INT, &t));
        MPI_CHK(MPI_Type_commit(&t));
        check_bounds(t, "indexed {0,0}", 0, 0, 0, 0, 0);
        int p = t_partner(), cnt = -1;
        MPI_Status st;
        MPI_CHK(MPI_Sendrecv(NULL, 1, t, p, 8, NULL, 1, t, p, 8, MPI_COMM_WORLD, &st));
        MPI_CHK(MPI_Get_count(&st, t, &cnt));
        CHECK(cnt == 0, "empty type: count %d, want 0", cnt);
        MPI_Type_free(&t);
    }
}

int main(int argc, char **argv)
{
    /* before MPI_Init (allowed for Info_create_env and the info calls) */
    MPI_Info info;
    if (MPI_Info_create_env(argc, argv, &info) == MPI_SUCCESS) {
        snapshot(info, &env_before_args);
        MPI_Info_free(&info);
    }
    if (MPI_Info_create_env(0, NULL, &info) == MPI_SUCCESS) {
        snapshot(info, &env_before_noargs);
        MPI_Info_free(&info);
    }
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (t_rank == 0) check_dims(); /* local: one rank is enough */
    check_info_env(argc, argv);
    check_zero_blocks();
    return t_finish();
}
