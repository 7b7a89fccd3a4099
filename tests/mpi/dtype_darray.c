/* dtype_darray.c: MPI_Type_create_darray for block, cyclic (with and
 * without a block size) and undistributed dimensions, in C and Fortran
 * order, 2-D and 3-D, on process grids of the job's size. Each rank
 * computes by hand which global elements it owns (an element at global
 * index j of a dimension belongs to coordinate j / b for a block
 * distribution and (j / b) mod p for a cyclic one, b the block size) and
 * in which order (the fastest dimension innermost); then it checks that
 * packing the global array with its darray type yields exactly those
 * elements, that receiving them into a full array through the type puts
 * them back in place, that the lower bound is 0 and the extent the whole
 * array, and, collectively, that the ranks' pieces tile the array. */
#include "common.h"

#include <stdbool.h>

#define MAXD 3

typedef struct {
    int ndims, order;
    int g[MAXD], dist[MAXD], darg[MAXD], p[MAXD];
} dcase;

/* Which process coordinate owns global index j of dimension d. */
static int owner(const dcase *c, int d, int j)
{
    int g = c->g[d], p = c->p[d], b;
    switch (c->dist[d]) {
    case MPI_DISTRIBUTE_NONE: return 0;
    case MPI_DISTRIBUTE_BLOCK:
        b = c->darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : c->darg[d];
        return j / b;
    default:
        b = c->darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : c->darg[d];
        return (j / b) % p;
    }
}

/* The global linear indices this rank owns, in the type's order. */
static long expected(const dcase *c, int rank, long *out)
{
    int coord[MAXD];
    for (int d = c->ndims - 1, r = rank; d >= 0; d--) { /* row-major process grid */
        coord[d] = r % c->p[d];
        r /= c->p[d];
    }
    long n = 0, total = 1;
    for (int d = 0; d < c->ndims; d++) total *= c->g[d];
    /* walk global indices with the fastest dimension innermost */
    int idx[MAXD] = {0};
    for (long q = 0; q < total; q++) {
        bool mine = true;
        for (int d = 0; d < c->ndims; d++)
            if (owner(c, d, idx[d]) != coord[d]) mine = false;
        if (mine) {
            long lin = 0;
            if (c->order == MPI_ORDER_C)
                for (int d = 0; d < c->ndims; d++) lin = lin * c->g[d] + idx[d];
            else
                for (int d = c->ndims - 1; d >= 0; d--) lin = lin * c->g[d] + idx[d];
            out[n++] = lin;
        }
        for (int k = 0; k < c->ndims; k++) { /* next index, fastest dimension first */
            int d = c->order == MPI_ORDER_C ? c->ndims - 1 - k : k;
            if (++idx[d] < c->g[d]) break;
            idx[d] = 0;
        }
    }
    return n;
}

static void run(const char *what, const dcase *c)
{
    long total = 1;
    for (int d = 0; d < c->ndims; d++) total *= c->g[d];
    MPI_Datatype t;
    MPI_CHK(MPI_Type_create_darray(t_size, t_rank, c->ndims, c->g, c->dist, c->darg, c->p,
                                   c->order, MPI_INT, &t));
    MPI_CHK(MPI_Type_commit(&t));
    long *want = t_malloc(total * sizeof(long));
    long n = expected(c, t_rank, want);
    int size = -1;
    MPI_Aint lb, ext;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(size == (long)(n * sizeof(int)), "%s: size %d, want %ld", what, size, n * 4);
    CHECK(lb == 0 && ext == (MPI_Aint)(total * sizeof(int)), "%s: lb %ld extent %ld, want 0 %ld",
          what, (long)lb, (long)ext, total * 4);
    int *global = t_malloc(total * sizeof(int)), *local = t_malloc((n + 1) * sizeof(int));
    for (long i = 0; i < total; i++) global[i] = (int)i;
    int pos = 0;
    MPI_CHK(MPI_Pack(global, 1, t, local, (int)((n + 1) * sizeof(int)), &pos, MPI_COMM_WORLD));
    CHECK(pos == (int)(n * sizeof(int)), "%s: packed %d bytes, want %ld", what, pos, n * 4);
    for (long k = 0, bad = 0; k < n; k++)
        if (local[k] != want[k] && bad++ < 3)
            CHECK(0, "%s: rank %d local element %ld is global %d, want %ld", what, t_rank, k,
                  local[k], want[k]);
    /* back through the type: received into the full array */
    for (long i = 0; i < total; i++) global[i] = -1;
    for (long k = 0; k < n; k++) local[k] = (int)(1000000 + want[k]);
    MPI_CHK(MPI_Sendrecv(local, (int)n, MPI_INT, 0, 1, global, 1, t, 0, 1, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE));
    long placed = 0;
    for (long i = 0; i < total; i++)
        if (global[i] != -1) {
            placed++;
            CHECK(global[i] == 1000000 + i, "%s: global %ld received %d", what, i, global[i]);
        }
    CHECK(placed == n, "%s: %ld elements placed, want %ld", what, placed, n);
    /* the pieces of all ranks tile the array (undistributed dims aside) */
    int *mark = calloc((size_t)total, sizeof(int)), *sum = calloc((size_t)total, sizeof(int));
    for (long k = 0; k < n; k++) mark[want[k]] = 1;
    MPI_Allreduce(mark, sum, (int)total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long i = 0; i < total; i++)
        if (sum[i] != 1) {
            CHECK(0, "%s: global element %ld owned by %d ranks", what, i, sum[i]);
            break;
        }
    free(mark);
    free(sum);
    free(want);
    free(global);
    free(local);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    /* process grids of t_size processes: p x 1, 1 x p, and near-square */
    int grids[3][2] = {{t_size, 1}, {1, t_size}, {t_size, 1}};
    if (t_size == 4) grids[2][0] = grids[2][1] = 2;
    for (int o = 0; o < 2; o++) {
        int order = o ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        for (int gi = 0; gi < 3; gi++) {
            int p0 = grids[gi][0], p1 = grids[gi][1];
            dcase cs[] = {
                {2, order, {10, 7}, {B, B}, {D, D}, {p0, p1}},
                {2, order, {10, 7}, {C, C}, {D, D}, {p0, p1}},
                {2, order, {11, 9}, {C, C}, {2, 3}, {p0, p1}},
                {2, order, {9, 13}, {B, C}, {4, 2}, {p0, p1}},
                {2, order, {13, 5}, {C, B}, {3, D}, {p0, p1}},
            };
            for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
                char what[64];
                snprintf(what, sizeof what, "2-D case %zu grid %dx%d %s", k, p0, p1,
                         o ? "fortran" : "C");
                if (cs[k].dist[0] == B && cs[k].darg[0] != D && cs[k].darg[0] * p0 < cs[k].g[0])
                    cs[k].darg[0] = D; /* blocks too small for this grid */
                run(what, &cs[k]);
            }
        }
        /* undistributed dimension and a 3-D array */
        dcase nd = {2, order, {6, 8}, {N, C}, {D, 2}, {1, t_size}};
        run(o ? "none x cyclic fortran" : "none x cyclic C", &nd);
        dcase three = {3, order, {5, 4, 6}, {C, N, B}, {2, D, D}, {t_size, 1, 1}};
        run(o ? "3-D fortran" : "3-D C", &three);
    }
    return t_finish();
}
