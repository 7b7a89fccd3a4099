/* dtype_zero_blocks.c: derived datatypes whose blocks (the leading ones in
 * particular) have length zero. MPI 4.1 sec. 5.1: a type's typemap is the
 * union of its blocks' entries, so a block of length zero adds nothing:
 * it moves neither the lower nor the upper bound, and size, extent and the
 * data moved are those of the other blocks. Shapes: indexed, hindexed,
 * indexed_block and struct with zero-length first blocks (far from the
 * data), struct with only zero-length blocks, a resized struct (explicit
 * lb), and a struct of such types. Each is committed, its size and bounds
 * checked, and two elements of it sent to this process and received as
 * plain ints (and back the other way); three of them also go between
 * ranks 0 and 1, 3000 elements at a time. Issue 22 (7). */
#include "common.h"

#define N 64

/* Sends 2 elements of t from src (ints 0..N-1 at first) to self as ints
 * and checks them against want[0..n); then receives them back into a
 * cleared buffer as t and checks every int (-1 where t has no entry). */
static void transfer(MPI_Datatype t, const int *want, int n, const char *what)
{
    int src[N * 2], got[N * 2], back[N * 2];
    for (int i = 0; i < N * 2; i++) src[i] = i;
    for (int i = 0; i < N * 2; i++) got[i] = back[i] = -1;
    MPI_CHK(MPI_Sendrecv(src, 2, t, 0, 1, got, N * 2, MPI_INT, 0, 1, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: int %d = %d, want %d", what, i, got[i], want[i]);
    CHECK(got[n] == -1, "%s: more than %d ints arrived", what, n);
    MPI_CHK(MPI_Sendrecv(got, n, MPI_INT, 0, 2, back, 2, t, 0, 2, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE));
    int hit = 0;
    for (int i = 0; i < N * 2; i++) {
        if (back[i] == -1) continue;
        CHECK(back[i] == i, "%s: back[%d] = %d", what, i, back[i]);
        hit++;
    }
    CHECK(hit == n, "%s: %d ints written back, want %d", what, hit, n);
}

/* Ranks 0 and 1: rank 0 sends `count` elements of t (large enough for the
 * rendezvous path), rank 1 receives them as packed ints and compares with
 * MPI_Pack of the same data; then rank 1 sends the ints back and rank 0
 * receives them into t, compared with MPI_Unpack. */
static void across(MPI_Datatype t, const char *what)
{
    if (t_size < 2 || t_rank > 1) return;
    const int count = 3000;
    MPI_Aint lb, ext;
    int size;
    MPI_CHK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_CHK(MPI_Type_size(t, &size));
    size_t span = (size_t)(lb + ext * count) + 64, n = (size_t)size * count / sizeof(int);
    int *data = t_malloc(span), *ref = t_malloc(span), *packed = t_malloc(n * sizeof(int) + 1);
    for (size_t i = 0; i < span / sizeof(int); i++) data[i] = (int)i;
    int pos = 0;
    MPI_CHK(MPI_Pack(data, count, t, packed, (int)(n * sizeof(int)), &pos, MPI_COMM_WORLD));
    int *got = t_malloc(n * sizeof(int) + 1);
    if (t_rank == 0) {
        MPI_CHK(MPI_Send(data, count, t, 1, 3, MPI_COMM_WORLD));
        memset(data, 0xff, span);
        memset(ref, 0xff, span);
        pos = 0;
        MPI_CHK(MPI_Unpack(packed, (int)(n * sizeof(int)), &pos, ref, count, t, MPI_COMM_WORLD));
        MPI_CHK(MPI_Recv(data, count, t, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(!memcmp(data, ref, span), "%s: data received into the type differ", what);
    } else {
        MPI_CHK(MPI_Recv(got, (int)n, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(!memcmp(got, packed, n * sizeof(int)), "%s: data sent from the type differ", what);
        MPI_CHK(MPI_Send(got, (int)n, MPI_INT, 0, 4, MPI_COMM_WORLD));
    }
    free(data);
    free(ref);
    free(packed);
    free(got);
}

static void bounds(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent, const char *what)
{
    int s;
    MPI_Aint l, e;
    MPI_CHK(MPI_Type_size(t, &s));
    MPI_CHK(MPI_Type_get_extent(t, &l, &e));
    CHECK(s == size, "%s: size %d, want %d", what, s, size);
    CHECK(l == lb && e == extent, "%s: lb %ld extent %ld, want %ld %ld", what, (long)l, (long)e,
          (long)lb, (long)extent);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const MPI_Aint I = sizeof(int);
    MPI_Datatype t;
    { /* indexed: blocks {0 at 40, 2 at 3, 0 at 50, 1 at 6} -> ints 3,4,6 */
        int len[4] = {0, 2, 0, 1}, disp[4] = {40, 3, 50, 6};
        MPI_CHK(MPI_Type_indexed(4, len, disp, MPI_INT, &t));
        MPI_CHK(MPI_Type_commit(&t));
        bounds(t, 3 * (int)I, 3 * I, 4 * I, "indexed");
        int want[6] = {3, 4, 6, 7, 8, 10};
        transfer(t, want, 6, "indexed");
        across(t, "indexed");
        MPI_CHK(MPI_Type_free(&t));
    }
    { /* hindexed: {0 at 0, 0 at 80 bytes, 3 at 8 bytes} -> ints 2,3,4 */
        int len[3] = {0, 0, 3};
        MPI_Aint disp[3] = {0, 80, 2 * I};
        MPI_CHK(MPI_Type_create_hindexed(3, len, disp, MPI_INT, &t));
        MPI_CHK(MPI_Type_commit(&t));
        bounds(t, 3 * (int)I, 2 * I, 3 * I, "hindexed");
        int want[6] = {2, 3, 4, 5, 6, 7};
        transfer(t, want, 6, "hindexed");
        MPI_CHK(MPI_Type_free(&t));
    }
    { /* indexed_block with block length 0: empty */
        int disp[3] = {7, 1, 9};
        MPI_CHK(MPI_Type_create_indexed_block(3, 0, disp, MPI_INT, &t));
        MPI_CHK(MPI_Type_commit(&t));
        bounds(t, 0, 0, 0, "indexed_block 0");
        transfer(t, NULL, 0, "indexed_block 0");
        MPI_CHK(MPI_Type_free(&t));
    }
    { /* struct: {0 doubles at 0, 0 chars at 100, 2 ints at 12} -> ints 3,4 */
        int len[3] = {0, 0, 2};
        MPI_Aint disp[3] = {0, 100, 3 * I};
        MPI_Datatype types[3] = {MPI_DOUBLE, MPI_CHAR, MPI_INT};
        MPI_CHK(MPI_Type_create_struct(3, len, disp, types, &t));
        MPI_CHK(MPI_Type_commit(&t));
        bounds(t, 2 * (int)I, 3 * I, 2 * I, "struct");
        int want[4] = {3, 4, 5, 6};
        transfer(t, want, 4, "struct");
        across(t, "struct");
        /* a struct of that struct, with a zero-length block of it first */
        int len2[2] = {0, 1};
        MPI_Aint disp2[2] = {-40 * I, 10 * I};
        MPI_Datatype types2[2] = {t, t}, t2;
        MPI_CHK(MPI_Type_create_struct(2, len2, disp2, types2, &t2));
        MPI_CHK(MPI_Type_commit(&t2));
        bounds(t2, 2 * (int)I, 13 * I, 2 * I, "struct of struct");
        int want2[4] = {13, 14, 15, 16};
        transfer(t2, want2, 4, "struct of struct");
        MPI_CHK(MPI_Type_free(&t2));
        /* resized: explicit lb 0, extent 8 ints */
        MPI_CHK(MPI_Type_create_resized(t, 0, 8 * I, &t2));
        MPI_CHK(MPI_Type_commit(&t2));
        bounds(t2, 2 * (int)I, 0, 8 * I, "resized struct");
        int want3[4] = {3, 4, 11, 12};
        transfer(t2, want3, 4, "resized struct");
        across(t2, "resized struct");
        MPI_CHK(MPI_Type_free(&t2));
        MPI_CHK(MPI_Type_free(&t));
    }
    { /* struct of zero-length blocks only */
        int len[2] = {0, 0};
        MPI_Aint disp[2] = {8, 16};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_CHK(MPI_Type_create_struct(2, len, disp, types, &t));
        MPI_CHK(MPI_Type_commit(&t));
        bounds(t, 0, 0, 0, "empty struct");
        transfer(t, NULL, 0, "empty struct");
        MPI_CHK(MPI_Type_free(&t));
    }
    return t_finish();
}
