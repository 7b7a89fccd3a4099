/* MPI-IO views: each rank writes its interleaved part of a file through a
 * strided filetype (a resized contiguous type, then a vector with holes),
 * all read the whole file back; noncontiguous memory datatypes on both
 * sides; get_view; byte offsets and SEEK_END through holes; external32 and
 * a registered data representation; bad views (non-monotonic filetype,
 * unknown representation) fail with the right class. */
#include "io_common.h"

#define B 7    /* ints per block */
#define NB 50  /* blocks per rank */

static int val(int owner, int k) { return owner * 1000000 + k; }

/* Blocks of B ints, rank r owning blocks r, r+size, ... */
static void interleaved(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)B * t_size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_CHK(MPI_File_set_view(fh, (MPI_Offset)t_rank * B * sizeof(int), MPI_INT, ft, "native",
                              MPI_INFO_NULL));
    int *buf = t_malloc(sizeof(int) * B * NB);
    for (int k = 0; k < B * NB; k++) buf[k] = val(t_rank, k);
    MPI_Status st;
    MPI_CHK(MPI_File_write_all(fh, buf, B * NB, MPI_INT, &st));
    /* the view's end of file and byte offsets */
    MPI_Offset pos, byte;
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == B * NB, "position %lld", (long long)pos);
    MPI_CHK(MPI_File_get_byte_offset(fh, B + 2, &byte));
    CHECK(byte == ((MPI_Offset)t_size * B + t_rank * B + 2) * (MPI_Offset)sizeof(int),
          "byte offset of etype %d: %lld", B + 2, (long long)byte);
    MPI_CHK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == B * NB, "SEEK_END position %lld", (long long)pos);
    /* read my part back through the view */
    int *back = t_malloc(sizeof(int) * B * NB);
    MPI_CHK(MPI_File_read_at_all(fh, 0, back, B * NB, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == B * NB, "read count %d", cnt);
    CHECK(!memcmp(back, buf, sizeof(int) * B * NB), "my part differs");
    /* get_view gives a duplicate of the filetype */
    MPI_Offset disp;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_CHK(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    CHECK(disp == (MPI_Offset)t_rank * B * (MPI_Offset)sizeof(int), "view disp %lld", (long long)disp);
    CHECK(et == MPI_INT, "view etype is not MPI_INT");
    CHECK(!strcmp(rep, "native"), "datarep '%s'", rep);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(ft2, &lb, &ext);
    CHECK(ext == (MPI_Aint)B * t_size * (MPI_Aint)sizeof(int), "filetype extent %ld", (long)ext);
    MPI_Type_free(&ft2);
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
    /* everyone reads the whole file with the plain view */
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    int n = B * NB * t_size;
    int *all = t_malloc(sizeof(int) * n);
    MPI_CHK(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
    for (int i = 0; i < n; i++) {
        int block = i / B, owner = block % t_size, k = (block / t_size) * B + i % B;
        if (all[i] != val(owner, k)) {
            CHECK(0, "int %d = %d, want %d", i, all[i], val(owner, k));
            break;
        }
    }
    free(all);
    free(back);
    free(buf);
    MPI_CHK(MPI_File_close(&fh));
}

/* A filetype with holes inside (vector of 3 pairs, 2*size ints apart, in a
 * tile of 6*size ints) and noncontiguous memory (every other int). */
static void holes(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
    MPI_Datatype vec, ft, mem;
    MPI_Type_vector(3, 2, 2 * t_size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)6 * t_size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    const int n = 60; /* ints per rank: 10 tiles */
    MPI_Type_vector(n, 1, 2, MPI_INT, &mem);
    MPI_Type_commit(&mem);
    MPI_CHK(MPI_File_set_view(fh, (MPI_Offset)2 * t_rank * sizeof(int), MPI_INT, ft, "native",
                              MPI_INFO_NULL));
    int src[2 * 60], dst[2 * 60];
    for (int i = 0; i < 2 * n; i++) src[i] = i % 2 ? -1 : val(t_rank, i / 2);
    MPI_Status st;
    MPI_CHK(MPI_File_write_at_all(fh, 0, src, 1, mem, &st));
    int cnt;
    MPI_Get_count(&st, mem, &cnt);
    CHECK(cnt == 1, "noncontiguous write count %d", cnt);
    /* read back into the odd ints of another buffer */
    for (int i = 0; i < 2 * n; i++) dst[i] = -7;
    MPI_CHK(MPI_File_read_at_all(fh, 0, dst + 1, 1, mem, &st));
    for (int i = 0; i < n; i++)
        if (dst[2 * i + 1] != val(t_rank, i) || dst[2 * i] != -7) {
            CHECK(0, "noncontiguous read at %d: %d %d", i, dst[2 * i], dst[2 * i + 1]);
            break;
        }
    /* a read through the holes that runs past the end of file: 5 of 10 */
    MPI_CHK(MPI_File_read_at(fh, n - 5, dst, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 5, "read past the end through holes: count %d, want 5", cnt);
    for (int i = 0; i < 5 && cnt == 5; i++)
        CHECK(dst[i] == val(t_rank, n - 5 + i), "tail [%d] = %d", i, dst[i]);
    /* the whole file in plain order */
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int total = n * t_size, *all = t_malloc(sizeof(int) * total);
    MPI_CHK(MPI_File_read_at(fh, 0, all, total, MPI_INT, &st));
    for (int i = 0; i < total; i++) {
        int owner = (i / 2) % t_size, k = (i / (2 * t_size)) * 2 + i % 2;
        if (all[i] != val(owner, k)) {
            CHECK(0, "hole file int %d = %d, want %d", i, all[i], val(owner, k));
            break;
        }
    }
    free(all);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
    MPI_CHK(MPI_File_close(&fh));
}

/* A collective write with holes to a write-only file: every rank writes
 * int k*2*size + rank (k < 100); the other half of the file stays zero.
 * (The two-phase aggregator may not read a write-only file to fill holes.) */
static void write_only(const char *path)
{
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable"); /* two-phase on any file system */
    MPI_Info_set(info, "cb_buffer_size", "64");
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
    MPI_Info_free(&info);
    MPI_Datatype one, ft;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, (MPI_Aint)2 * t_size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_CHK(MPI_File_set_view(fh, (MPI_Offset)t_rank * sizeof(int), MPI_INT, ft, "native",
                              MPI_INFO_NULL));
    int v[100];
    for (int k = 0; k < 100; k++) v[k] = val(t_rank, k);
    MPI_CHK(MPI_File_write_all(fh, v, 100, MPI_INT, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_File_close(&fh));
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
    int n = 200 * t_size - t_size, *all = t_malloc(sizeof(int) * n);
    MPI_Status st;
    MPI_CHK(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == n, "write-only file: %d ints, want %d", cnt, n);
    for (int i = 0; i < cnt; i++) {
        int k = i / (2 * t_size), r = i % (2 * t_size);
        int want = r < t_size ? val(r, k) : 0;
        if (all[i] != want) {
            CHECK(0, "write-only file int %d = %d, want %d", i, all[i], want);
            break;
        }
    }
    free(all);
    MPI_Type_free(&ft);
    MPI_Type_free(&one);
    MPI_CHK(MPI_File_close(&fh));
}

static int conv_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    const int *u = userbuf;
    int *f = (int *)filebuf + position;
    for (int i = 0; i < count; i++) f[i] = u[i] + 1;
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

static int conv_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    int *u = userbuf;
    const int *f = (const int *)filebuf + position;
    for (int i = 0; i < count; i++) u[i] = f[i] - 1;
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

static int conv_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static void representations(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    int x[4] = {0x01020304, -2, 7, t_rank}, y[4];
    MPI_Offset at = (MPI_Offset)t_rank * 4;
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    MPI_CHK(MPI_File_write_at_all(fh, at, x, 4, MPI_INT, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_File_read_at_all(fh, at, y, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!memcmp(x, y, sizeof x), "external32 round trip differs");
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[4];
    MPI_CHK(MPI_File_read_at(fh, at * 4, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4,
          "external32 bytes %02x %02x %02x %02x", raw[0], raw[1], raw[2], raw[3]);
    /* a registered representation: +1 in the file */
    static int calls;
    MPI_CHK(MPI_Register_datarep("dmpi_test_plus1", conv_read, conv_write, conv_extent, &calls));
    CHECK_CLASS(MPI_Register_datarep("dmpi_test_plus1", conv_read, conv_write, conv_extent,
                                     &calls), MPI_ERR_DUP_DATAREP);
    CHECK_CLASS(MPI_Register_datarep("external32", conv_read, conv_write, conv_extent, &calls),
                MPI_ERR_DUP_DATAREP);
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "dmpi_test_plus1", MPI_INFO_NULL));
    MPI_CHK(MPI_File_write_at_all(fh, at, x, 4, MPI_INT, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_File_read_at_all(fh, at, y, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!memcmp(x, y, sizeof x), "user datarep round trip differs");
    CHECK(calls == 2, "conversion functions called %d times", calls);
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    MPI_CHK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(!strcmp(rep, "dmpi_test_plus1"), "datarep '%s'", rep);
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_CHK(MPI_File_read_at(fh, at, y, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(y[1] == -1 && y[2] == 8, "user datarep file values %d %d", y[1], y[2]);
    /* bad views */
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Datatype bad;
    int bl[2] = {1, 1}, dp[2] = {4, 0};
    MPI_Type_indexed(2, bl, dp, MPI_INT, &bad);
    MPI_Type_commit(&bad);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
    MPI_Type_free(&bad);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL),
                MPI_ERR_TYPE);
    CHECK_CLASS(MPI_File_set_view(fh, -5, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
                MPI_ERR_ARG);
    /* the view is unchanged by the failures */
    MPI_CHK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(!strcmp(rep, "native") && et == MPI_INT, "view changed by a failed set_view");
    /* data that is not a whole number of etypes */
    CHECK_CLASS(MPI_File_read_at(fh, 0, y, 3, MPI_SHORT, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    MPI_CHK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    io_path(path, "view.dat");
    interleaved(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) MPI_CHK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    holes(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) MPI_CHK(MPI_File_delete(path, MPI_INFO_NULL));
    representations(path);
    write_only(io_path(path, "wronly.dat"));
    io_cleanup();
    return t_finish();
}
