/* coll_bcast.c: MPI_Bcast from several roots (first, middle, last) at sizes
 * from 0 bytes to 1 MiB, in bytes, ints and doubles; every rank's buffer
 * must equal the root's, and bytes past the count stay untouched.  Also on
 * MPI_COMM_SELF and on the two halves of a split. */
#include "common.h"

static const int sizes[] = { 0, 1, 100, 4096, 65536, 1 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define GUARD 8

static void bcast_bytes(MPI_Comm comm, int root, int n, unsigned seed, unsigned char *buf)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == root)
        t_fill(buf, (size_t)n, seed);
    else
        memset(buf, 0xee, (size_t)n);
    memset(buf + n, 0xcc, GUARD);
    MPI_CHK(MPI_Bcast(buf, n, MPI_BYTE, root, comm));
    CHECK_PATTERN(buf, (size_t)n, seed);
    for (int i = 0; i < GUARD; i++)
        if (buf[n + i] != 0xcc) {
            CHECK(0, "Bcast of %d bytes from %d wrote past the count", n, root);
            break;
        }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    unsigned char *buf = t_malloc((1 << 20) + GUARD);
    int roots[3] = { 0, t_size / 2, t_size - 1 };

    for (int ri = 0; ri < 3; ri++) {
        if (ri > 0 && roots[ri] == roots[ri - 1])
            continue;
        for (int k = 0; k < NSIZES; k++)
            bcast_bytes(MPI_COMM_WORLD, roots[ri], sizes[k], (unsigned)(ri * 10 + k), buf);
    }

    /* Typed: ints and doubles, root 0 and last. */
    int n = 100000;
    int *iv = t_malloc((size_t)n * sizeof(int));
    double *dv = t_malloc((size_t)n * sizeof(double));
    for (int ri = 0; ri < 3; ri += 2) {
        int root = roots[ri];
        for (int i = 0; i < n; i++) {
            iv[i] = t_rank == root ? i * 3 - 7 : 0;
            dv[i] = t_rank == root ? i * 0.5 + 0.25 : -1.0;
        }
        MPI_CHK(MPI_Bcast(iv, n, MPI_INT, root, MPI_COMM_WORLD));
        MPI_CHK(MPI_Bcast(dv, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            if (iv[i] != i * 3 - 7 || dv[i] != i * 0.5 + 0.25) {
                CHECK(0, "typed Bcast from %d: element %d is %d / %g", root, i, iv[i], dv[i]);
                break;
            }
    }
    free(iv);
    free(dv);

    /* MPI_COMM_SELF and split halves (root = last rank of each half). */
    bcast_bytes(MPI_COMM_SELF, 0, 1000, 77, buf);
    MPI_Comm half;
    int hs;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
    MPI_CHK(MPI_Comm_size(half, &hs));
    for (int k = 0; k < NSIZES; k += 2)
        bcast_bytes(half, hs - 1, sizes[k], (unsigned)(100 + t_rank % 2 + k), buf);
    MPI_CHK(MPI_Comm_free(&half));
    free(buf);
    return t_finish();
}
