/* coll_alltoall.c: MPI_Alltoall with blocks of 0 bytes to 128 KiB per pair
 * (up to 1 MiB per rank at 8 ranks), in bytes and in doubles, and with
 * MPI_IN_PLACE (the data goes out of and comes back into recvbuf).  Block j
 * received by rank r must be the one rank j prepared for r.  Also on a
 * split half and on MPI_COMM_SELF. */
#include "common.h"

static const int sizes[] = { 0, 1, 100, 4096, 32768, 131072 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static unsigned seed(int from, int to, int k)
{
    return (unsigned)(from * 53 + to * 11 + k);
}

static void run(MPI_Comm comm, int n, int k, int in_place, unsigned char *sb, unsigned char *rb)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    unsigned char *src = in_place ? rb : sb;
    for (int j = 0; j < p; j++)
        t_fill(src + (size_t)j * n, (size_t)n, seed(me, j, k));
    if (!in_place)
        memset(rb, 0xee, (size_t)n * p);
    MPI_CHK(MPI_Alltoall(in_place ? MPI_IN_PLACE : sb, n, MPI_BYTE, rb, n, MPI_BYTE, comm));
    for (int j = 0; j < p; j++)
        if (t_verify(rb + (size_t)j * n, (size_t)n, seed(j, me, k)) >= 0) {
            CHECK(0, "Alltoall%s of %d bytes per block (%d ranks): block %d wrong",
                  in_place ? " in place" : "", n, p, j);
            break;
        }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    size_t total = (size_t)sizes[NSIZES - 1] * t_size;
    unsigned char *sb = t_malloc(total), *rb = t_malloc(total);

    for (int k = 0; k < NSIZES; k++) {
        run(MPI_COMM_WORLD, sizes[k], k, 0, sb, rb);
        run(MPI_COMM_WORLD, sizes[k], k, 1, sb, rb);
    }

    /* Doubles: element i of block j from rank r is r*1000 + j + i/1000. */
    int n = 1000;
    double *ds = t_malloc((size_t)n * t_size * sizeof(double));
    double *dr = t_malloc((size_t)n * t_size * sizeof(double));
    for (int j = 0; j < t_size; j++)
        for (int i = 0; i < n; i++)
            ds[j * n + i] = t_rank * 1000.0 + j + i / 1000.0;
    MPI_CHK(MPI_Alltoall(ds, n, MPI_DOUBLE, dr, n, MPI_DOUBLE, MPI_COMM_WORLD));
    for (int j = 0; j < t_size; j++)
        for (int i = 0; i < n; i++)
            if (dr[j * n + i] != j * 1000.0 + t_rank + i / 1000.0) {
                CHECK(0, "Alltoall of doubles: block %d element %d is %g", j, i, dr[j * n + i]);
                j = t_size;
                break;
            }
    free(ds);
    free(dr);

    MPI_Comm half;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, -t_rank, &half));
    run(half, 5000, 100, 0, sb, rb);
    run(half, 333, 101, 1, sb, rb);
    MPI_CHK(MPI_Comm_free(&half));
    run(MPI_COMM_SELF, 1000, 102, 0, sb, rb);
    run(MPI_COMM_SELF, 1000, 103, 1, sb, rb);
    free(sb);
    free(rb);
    return t_finish();
}
