/* coll_gather.c: MPI_Gather, MPI_Allgather and MPI_Scatter with blocks of
 * 0 bytes to 128 KiB per rank (up to 1 MiB in all at 8 ranks), from roots
 * first / middle / last, with and without MPI_IN_PLACE (Gather at the root:
 * sendbuf; Scatter at the root: recvbuf; Allgather: sendbuf everywhere).
 * Block r must hold rank r's pattern.  Data goes as bytes, or as ints where
 * the size allows. */
#include "common.h"

static const int sizes[] = { 0, 1, 100, 4096, 65536, 131072 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static unsigned seed(int r, int k)
{
    return (unsigned)(r * 31 + k * 7);
}

static void check_blocks(const unsigned char *buf, int n, int k, const char *what, int root)
{
    for (int r = 0; r < t_size; r++)
        if (t_verify(buf + (size_t)r * n, (size_t)n, seed(r, k)) >= 0) {
            CHECK(0, "%s, %d bytes per rank, root %d: block %d wrong", what, n, root, r);
            break;
        }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    size_t total = (size_t)sizes[NSIZES - 1] * t_size;
    unsigned char *mine = t_malloc((size_t)sizes[NSIZES - 1]), *all = t_malloc(total);
    int roots[3] = { 0, t_size / 2, t_size - 1 };

    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri], inp = (k + ri) % 2, iamroot = t_rank == root;
            /* Gather */
            t_fill(mine, (size_t)n, seed(t_rank, k));
            memset(all, 0xee, total);
            if (iamroot && inp) {
                t_fill(all + (size_t)root * n, (size_t)n, seed(root, k));
                MPI_CHK(MPI_Gather(MPI_IN_PLACE, n, MPI_BYTE, all, n, MPI_BYTE, root,
                                   MPI_COMM_WORLD));
            } else if (n % 4 == 0) {
                MPI_CHK(MPI_Gather(mine, n / 4, MPI_INT, all, n / 4, MPI_INT, root,
                                   MPI_COMM_WORLD));
            } else {
                MPI_CHK(MPI_Gather(mine, n, MPI_BYTE, all, n, MPI_BYTE, root, MPI_COMM_WORLD));
            }
            if (iamroot)
                check_blocks(all, n, k, inp ? "Gather in place" : "Gather", root);

            /* Scatter: the root's blocks (already right at the root) go out. */
            if (iamroot)
                for (int r = 0; r < t_size; r++)
                    t_fill(all + (size_t)r * n, (size_t)n, seed(r, k));
            memset(mine, 0xee, (size_t)n);
            if (iamroot && inp) {
                MPI_CHK(MPI_Scatter(all, n, MPI_BYTE, MPI_IN_PLACE, n, MPI_BYTE, root,
                                    MPI_COMM_WORLD));
                CHECK_PATTERN(all + (size_t)root * n, (size_t)n, seed(root, k));
            } else {
                MPI_CHK(MPI_Scatter(all, n, MPI_BYTE, mine, n, MPI_BYTE, root, MPI_COMM_WORLD));
                CHECK_PATTERN(mine, (size_t)n, seed(t_rank, k));
            }
        }

        /* Allgather */
        for (int inp = 0; inp < 2; inp++) {
            memset(all, 0xee, total);
            t_fill(mine, (size_t)n, seed(t_rank, k));
            if (inp) {
                t_fill(all + (size_t)t_rank * n, (size_t)n, seed(t_rank, k));
                MPI_CHK(MPI_Allgather(MPI_IN_PLACE, n, MPI_BYTE, all, n, MPI_BYTE,
                                      MPI_COMM_WORLD));
            } else {
                MPI_CHK(MPI_Allgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, MPI_COMM_WORLD));
            }
            check_blocks(all, n, k, inp ? "Allgather in place" : "Allgather", -1);
        }
    }

    /* Doubles on a split half. */
    MPI_Comm half;
    int hr, hs;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
    MPI_CHK(MPI_Comm_rank(half, &hr));
    MPI_CHK(MPI_Comm_size(half, &hs));
    double dv[3] = { hr + 0.5, hr * 2.0, -hr }, *dall = t_malloc(3 * (size_t)hs * sizeof(double));
    MPI_CHK(MPI_Allgather(dv, 3, MPI_DOUBLE, dall, 3, MPI_DOUBLE, half));
    for (int r = 0; r < hs; r++)
        CHECK(dall[3 * r] == r + 0.5 && dall[3 * r + 1] == r * 2.0 && dall[3 * r + 2] == -r,
              "Allgather of doubles on a half: block %d wrong", r);
    free(dall);
    MPI_CHK(MPI_Comm_free(&half));
    free(mine);
    free(all);
    return t_finish();
}
