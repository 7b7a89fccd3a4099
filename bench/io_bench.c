/* io_bench.c: MPI-IO throughput, plain MPI C (builds with any MPI).
 *
 *   mpiexec -n P bench/io_bench [-m MIB] [-b BLOCK] [-r ROUNDS] [-d DIR] [-n]
 *
 * Patterns, each timed -r times (median of the slowest rank's time):
 *   coll_write  a block-distributed 3-D array of doubles (about MIB MiB in
 *               all) written with MPI_File_write_all through a subarray
 *               filetype, then MPI_File_sync
 *   coll_read   the same array read back with MPI_File_read_all
 *   indep_write every rank writes its blocks of BLOCK bytes, interleaved
 *               with the other ranks' (a strided view), with independent
 *               MPI_File_write, then MPI_File_sync
 *   posix_seq   the limit: rank 0 alone writes MIB MiB sequentially with
 *               write(2) in 4 MiB calls, then fsync (what dd would do)
 * -n leaves out the syncs (page-cache speed). Files go to DIR ($TMPDIR or
 * /tmp by default) and are deleted. Prints one line per pattern: name,
 * MiB, median MiB/s, best MiB/s. */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, rounds = 5, nosync;
static double mib = 64;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, double bytes, double *t)
{
    qsort(t, (size_t)rounds, sizeof *t, cmp);
    if (rank == 0)
        printf("%-12s %8.1f MiB  median %8.1f MiB/s  best %8.1f MiB/s\n", name, bytes / 1048576,
               bytes / 1048576 / t[rounds / 2], bytes / 1048576 / t[0]);
}

/* The slowest rank's time of what f did since t0. */
static double span(double t0)
{
    double t = MPI_Wtime() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    long block = 4096;
    int c;
    while ((c = getopt(argc, argv, "m:b:r:d:n")) != -1) switch (c) {
        case 'm': mib = atof(optarg); break;
        case 'b': block = atol(optarg); break;
        case 'r': rounds = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
        case 'd': dir = optarg; break;
        case 'n': nosync = 1; break;
        default: MPI_Abort(MPI_COMM_WORLD, 2);
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/io_bench.%d.dat", dir, (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    double *t = malloc(sizeof(double) * (size_t)rounds);

    /* 3-D block distribution: N^3 doubles, N a multiple of every dimension */
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, co[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, co);
    int lcm = dims[0] * dims[1] * dims[2], N = lcm;
    while ((double)(N + lcm) * (N + lcm) * (N + lcm) * 8 <= mib * 1048576) N += lcm;
    int g[3] = {N, N, N}, sub[3], st[3];
    for (int d = 0; d < 3; d++) sub[d] = N / dims[d], st[d] = co[d] * sub[d];
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, g, sub, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    size_t n = (size_t)sub[0] * sub[1] * sub[2];
    double *a = malloc(n * sizeof *a), bytes = (double)N * N * N * 8;
    for (size_t i = 0; i < n; i++) a[i] = (double)i + rank;
    MPI_File fh;
    for (int r = 0; r < rounds; r++) {
        MPI_File_open(cart, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_write_all(fh, a, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
        if (!nosync) MPI_File_sync(fh);
        t[r] = span(t0);
        MPI_File_close(&fh);
    }
    report("coll_write", bytes, t);
    for (int r = 0; r < rounds; r++) {
        MPI_File_open(cart, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_read_all(fh, a, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
        t[r] = span(t0);
        MPI_File_close(&fh);
    }
    report("coll_read", bytes, t);
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Type_free(&ft);

    /* independent strided writes: blocks of `block` bytes, round robin */
    long nb = (long)(mib * 1048576 / block / size);
    MPI_Datatype blk, sft;
    MPI_Type_contiguous((int)block, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)block * size, &sft);
    MPI_Type_commit(&sft);
    char *b = malloc((size_t)(nb * block));
    memset(b, rank + 1, (size_t)(nb * block));
    bytes = (double)nb * block * size;
    for (int r = 0; r < rounds; r++) {
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        MPI_File_set_view(fh, (MPI_Offset)rank * block, MPI_BYTE, sft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_write(fh, b, (int)(nb * block), MPI_BYTE, MPI_STATUS_IGNORE);
        if (!nosync) MPI_File_sync(fh);
        t[r] = span(t0);
        MPI_File_close(&fh);
    }
    report("indep_write", bytes, t);
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Type_free(&sft);
    MPI_Type_free(&blk);

    /* the limit: one process, sequential write(2) */
    size_t total = (size_t)(mib * 1048576), chunk = 4 << 20;
    char *s = malloc(chunk);
    memset(s, 7, chunk);
    for (int r = 0; r < rounds; r++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            for (size_t done = 0; fd >= 0 && done < total; done += chunk)
                if (write(fd, s, total - done < chunk ? total - done : chunk) < 0) break;
            if (fd >= 0 && !nosync) fsync(fd);
            if (fd >= 0) close(fd);
        }
        t[r] = span(t0);
    }
    report("posix_seq", (double)total, t);
    if (rank == 0) unlink(path);
    free(s), free(b), free(a), free(t);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
