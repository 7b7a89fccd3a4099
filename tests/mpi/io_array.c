/* MPI-IO with the distributed-array types: a 3-D array of doubles, block
 * distributed over the ranks (MPI_Type_create_subarray as the filetype,
 * a subarray of a haloed local block as the memory type), written
 * collectively and read back by every rank whole, then read again through
 * a cyclic MPI_Type_create_darray decomposition. The staging buffer is made
 * small (DMPI_IO_STAGE=4096) so that the noncontiguous memory goes through
 * it in many pieces; args=cb forces two-phase collective I/O, in tiny
 * rounds, args=nocb turns it off (by default it is used on network file
 * systems only). Atomic mode: concurrent noncontiguous writes of the
 * same bytes land whole, one rank's or another's, never mixed. */
#include "io_common.h"

#include <stdbool.h>

#define NX 12
#define NY 10
#define NZ 9

static double gval(int x, int y, int z) { return x * 10000.0 + y * 100.0 + z; }

static void blocks(const char *path)
{
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    MPI_Dims_create(t_size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int me;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 3, coords);
    int g[3] = {NX, NY, NZ}, sub[3], start[3];
    for (int d = 0; d < 3; d++) {
        int q = g[d] / dims[d], r = g[d] % dims[d];
        sub[d] = q + (coords[d] < r);
        start[d] = coords[d] * q + (coords[d] < r ? coords[d] : r);
    }
    MPI_Datatype ft, mem;
    MPI_Type_create_subarray(3, g, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    /* local block with a halo of 1 on every side */
    int lsz[3] = {sub[0] + 2, sub[1] + 2, sub[2] + 2}, one[3] = {1, 1, 1};
    MPI_Type_create_subarray(3, lsz, sub, one, MPI_ORDER_C, MPI_DOUBLE, &mem);
    MPI_Type_commit(&mem);
    size_t ln = (size_t)lsz[0] * lsz[1] * lsz[2];
    double *local = t_malloc(ln * sizeof(double));
    for (size_t i = 0; i < ln; i++) local[i] = -1;
    for (int x = 0; x < sub[0]; x++)
        for (int y = 0; y < sub[1]; y++)
            for (int z = 0; z < sub[2]; z++)
                local[((size_t)(x + 1) * lsz[1] + y + 1) * lsz[2] + z + 1] =
                    gval(start[0] + x, start[1] + y, start[2] + z);
    MPI_File fh;
    MPI_CHK(MPI_File_open(cart, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_Status st;
    MPI_CHK(MPI_File_write_all(fh, local, 1, mem, &st));
    int cnt;
    MPI_Get_count(&st, mem, &cnt);
    CHECK(cnt == 1, "write_all count %d", cnt);
    /* the whole array, read by every rank */
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
    size_t n = (size_t)NX * NY * NZ;
    double *all = t_malloc(n * sizeof(double));
    MPI_CHK(MPI_File_read_at_all(fh, 0, all, (int)n, MPI_DOUBLE, &st));
    for (int x = 0, bad = 0; x < NX && !bad; x++)
        for (int y = 0; y < NY && !bad; y++)
            for (int z = 0; z < NZ && !bad; z++)
                if (all[((size_t)x * NY + y) * NZ + z] != gval(x, y, z)) {
                    CHECK(0, "array (%d,%d,%d) = %g", x, y, z, all[((size_t)x * NY + y) * NZ + z]);
                    bad = 1;
                }
    /* read back through my block, into the halo buffer */
    for (size_t i = 0; i < ln; i++) local[i] = -2;
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_CHK(MPI_File_read_all(fh, local, 1, mem, &st));
    for (int x = 0, bad = 0; x < lsz[0] && !bad; x++)
        for (int y = 0; y < lsz[1] && !bad; y++)
            for (int z = 0; z < lsz[2] && !bad; z++) {
                bool halo = x == 0 || y == 0 || z == 0 || x > sub[0] || y > sub[1] || z > sub[2];
                double want = halo ? -2 : gval(start[0] + x - 1, start[1] + y - 1, start[2] + z - 1);
                if (local[((size_t)x * lsz[1] + y) * lsz[2] + z] != want) {
                    CHECK(0, "block read (%d,%d,%d)", x, y, z);
                    bad = 1;
                }
            }
    /* a cyclic darray decomposition of the same file */
    int gs[3] = {NX, NY, NZ}, dist[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK,
                                          MPI_DISTRIBUTE_NONE};
    int dargs[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int ps[3] = {t_size, 1, 1};
    MPI_Datatype da;
    MPI_Type_create_darray(t_size, t_rank, 3, gs, dist, dargs, ps, MPI_ORDER_C, MPI_DOUBLE, &da);
    MPI_Type_commit(&da);
    int dsize;
    MPI_Type_size(da, &dsize);
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_DOUBLE, da, "native", MPI_INFO_NULL));
    int m = dsize / (int)sizeof(double);
    double *mine = t_malloc((size_t)(m ? m : 1) * sizeof(double));
    MPI_CHK(MPI_File_read_all(fh, mine, m, MPI_DOUBLE, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == m, "darray read count %d of %d", cnt, m);
    /* the same elements, picked from the whole array with the darray type */
    double *pick = t_malloc((size_t)(m ? m : 1) * sizeof(double));
    int pos = 0;
    MPI_Pack(all, 1, da, pick, m * (int)sizeof(double), &pos, MPI_COMM_SELF);
    CHECK(!memcmp(mine, pick, (size_t)m * sizeof(double)), "darray read differs");
    MPI_CHK(MPI_File_close(&fh));
    free(pick);
    free(mine);
    free(all);
    free(local);
    MPI_Type_free(&da);
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
    MPI_Comm_free(&cart);
}

/* Every rank writes ints 0, 2, 4, ... 2*K-2 of the file (K pieces) with its
 * rank, in atomic mode, at once; afterwards they all hold one rank's value. */
static void atomic(const char *path)
{
    enum { K = 20000 };
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_atomicity(fh, 1));
    MPI_Datatype ft;
    MPI_Type_vector(K, 1, 2, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *v = t_malloc(K * sizeof(int));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < K; i++) v[i] = t_rank + 100 * round;
        MPI_CHK(MPI_File_write_at(fh, 0, v, K, MPI_INT, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_CHK(MPI_File_read_at(fh, 0, v, K, MPI_INT, MPI_STATUS_IGNORE));
        int first = v[0];
        CHECK(first >= 100 * round && first < 100 * round + t_size, "round %d value %d", round,
              first);
        for (int i = 1; i < K; i++)
            if (v[i] != first) {
                CHECK(0, "round %d: atomic write mixed: [0]=%d [%d]=%d", round, first, i, v[i]);
                break;
            }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(v);
    MPI_Type_free(&ft);
    MPI_CHK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    setenv("DMPI_IO_STAGE", "4096", 1);
    /* args: "cb" two-phase for every collective call, in 256-byte rounds;
     * "nocb" never (each process alone) */
    if (argc > 1 && !strcmp(argv[1], "cb")) {
        setenv("DMPI_IO_CB", "3", 1);
        setenv("DMPI_IO_CB_BUFFER", "256", 1);
    } else if (argc > 1 && !strcmp(argv[1], "nocb")) {
        setenv("DMPI_IO_CB", "0", 1);
    }
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    blocks(io_path(path, "array.dat"));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) MPI_CHK(MPI_File_delete(path, MPI_INFO_NULL));
    atomic(io_path(path, "atomic.dat"));
    io_cleanup();
    return t_finish();
}
