/* MPI-IO basics: open/close/delete, explicit offsets and the individual
 * file pointer (blocking, independent and collective), seek and positions,
 * size, set_size, preallocate, sync, amode, group, info, atomicity, the
 * status of short reads at the end of file (Get_count/Get_elements), reads
 * past the end, MPI_MODE_DELETE_ON_CLOSE and APPEND, handle <-> int. */
#include "io_common.h"

#define N 1000

static void explicit_offsets(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                          MPI_INFO_NULL, &fh));
    int buf[N], back[N];
    for (int i = 0; i < N; i++) buf[i] = t_rank * N + i;
    MPI_Status st;
    MPI_Offset off = (MPI_Offset)t_rank * N * sizeof(int);
    MPI_CHK(MPI_File_write_at(fh, off, buf, N, MPI_INT, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "write_at count %d", cnt);
    MPI_CHK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHK(MPI_File_sync(fh));
    MPI_Offset size = 0;
    MPI_CHK(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)t_size * N * (MPI_Offset)sizeof(int), "size %lld", (long long)size);
    /* read the next rank's block, collectively */
    int peer = (t_rank + 1) % t_size;
    MPI_CHK(MPI_File_read_at_all(fh, (MPI_Offset)peer * N * sizeof(int), back, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "read_at_all count %d", cnt);
    for (int i = 0; i < N; i++)
        if (back[i] != peer * N + i) {
            CHECK(0, "read_at_all [%d] = %d, want %d", i, back[i], peer * N + i);
            break;
        }
    /* a short read at the end of file: 3 ints, then 0 */
    MPI_Offset end = size;
    MPI_CHK(MPI_File_read_at(fh, end - 3 * sizeof(int), back, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "short read count %d, want 3", cnt);
    MPI_Get_elements(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "short read elements %d, want 3", cnt);
    CHECK(back[2] == (t_size - 1) * N + N - 1, "last int %d", back[2]);
    MPI_CHK(MPI_File_read_at(fh, end + 100, back, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 0, "read past the end count %d", cnt);
    /* a short read that ends inside a 2-int pair type */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_CHK(MPI_File_read_at(fh, end - 3 * sizeof(int), back, 5, pair, &st));
    MPI_Get_count(&st, pair, &cnt);
    CHECK(cnt == MPI_UNDEFINED, "partial pair count %d, want MPI_UNDEFINED", cnt);
    MPI_Get_elements(&st, pair, &cnt);
    CHECK(cnt == 3, "partial pair elements %d, want 3", cnt);
    MPI_Type_free(&pair);
    MPI_CHK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");
}

static void file_pointers(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset pos = -1;
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0, "initial position %lld", (long long)pos);
    /* view of ints: offsets count ints */
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_CHK(MPI_File_seek(fh, (MPI_Offset)t_rank * N, MPI_SEEK_SET));
    int back[N];
    MPI_Status st;
    MPI_CHK(MPI_File_read(fh, back, N / 2, MPI_INT, &st));
    MPI_CHK(MPI_File_read_all(fh, back + N / 2, N / 2, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        if (back[i] != t_rank * N + i) {
            CHECK(0, "read [%d] = %d", i, back[i]);
            break;
        }
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)(t_rank + 1) * N, "position %lld", (long long)pos);
    MPI_Offset byte = -1;
    MPI_CHK(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK(byte == pos * (MPI_Offset)sizeof(int), "byte offset %lld", (long long)byte);
    MPI_CHK(MPI_File_seek(fh, -5, MPI_SEEK_CUR));
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)(t_rank + 1) * N - 5, "after SEEK_CUR %lld", (long long)pos);
    MPI_CHK(MPI_File_seek(fh, -1, MPI_SEEK_END));
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)t_size * N - 1, "after SEEK_END %lld", (long long)pos);
    CHECK_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    /* rewrite my block through the pointer, collectively; read it back */
    for (int i = 0; i < N; i++) back[i] = -(t_rank * N + i);
    MPI_CHK(MPI_File_seek(fh, (MPI_Offset)t_rank * N, MPI_SEEK_SET));
    MPI_CHK(MPI_File_write_all(fh, back, N, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "write_all count %d", cnt);
    int peer = (t_rank + t_size - 1) % t_size, other[N];
    MPI_CHK(MPI_File_read_at_all(fh, (MPI_Offset)peer * N, other, N, MPI_INT, &st));
    CHECK(other[7] == -(peer * N + 7), "after write_all [7] = %d", other[7]);
    MPI_CHK(MPI_File_close(&fh));
}

static void management(const char *path)
{
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "read_mostly");
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    int amode = 0, flag = -1;
    MPI_CHK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == MPI_MODE_RDWR, "amode %#x", amode);
    MPI_Group g, wg;
    MPI_CHK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int cmp = -1;
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info used;
    MPI_CHK(MPI_File_get_info(fh, &used));
    char v[64] = "";
    MPI_Info_get(used, "access_style", sizeof v - 1, v, &flag);
    CHECK(flag && !strcmp(v, "read_mostly"), "hint access_style: flag %d '%s'", flag, v);
    MPI_Info_free(&used);
    MPI_CHK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomicity %d", flag);
    MPI_CHK(MPI_File_set_atomicity(fh, 1));
    MPI_CHK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity %d after set", flag);
    int x = 42 + t_rank;
    MPI_CHK(MPI_File_write_at(fh, (MPI_Offset)t_rank * sizeof(int), &x, 1, MPI_INT,
                              MPI_STATUS_IGNORE));
    MPI_CHK(MPI_File_set_atomicity(fh, 0));
    MPI_CHK(MPI_File_set_size(fh, 100));
    MPI_Offset size = 0;
    MPI_CHK(MPI_File_get_size(fh, &size));
    CHECK(size == 100, "size after set_size %lld", (long long)size);
    MPI_CHK(MPI_File_preallocate(fh, 50)); /* never shrinks */
    MPI_CHK(MPI_File_get_size(fh, &size));
    CHECK(size == 100, "size after preallocate(50) %lld", (long long)size);
    MPI_CHK(MPI_File_preallocate(fh, 4096));
    MPI_CHK(MPI_File_get_size(fh, &size));
    CHECK(size == 4096, "size after preallocate(4096) %lld", (long long)size);
    MPI_Aint ext = 0;
    MPI_CHK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK(ext == sizeof(double), "type extent %ld", (long)ext);
    int i = MPI_File_toint(fh);
    CHECK(MPI_File_fromint(i) == fh, "File_fromint(File_toint(fh)) differs");
    CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL, "FILE_NULL int");
    MPI_CHK(MPI_File_close(&fh));
}

static void append_and_delete_on_close(const char *path)
{
    /* APPEND: the pointers start at the end */
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_Offset pos = -1, sp = -1;
    MPI_CHK(MPI_File_get_position(fh, &pos));
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(pos == 4096 && sp == 4096, "APPEND positions %lld %lld", (long long)pos, (long long)sp);
    MPI_CHK(MPI_File_close(&fh));
    /* the file is gone */
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_NO_SUCH_FILE);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    io_path(path, "basic.dat");
    explicit_offsets(path);
    file_pointers(path);
    management(path);
    append_and_delete_on_close(path);
    /* MPI_COMM_SELF files, one per rank, deleted with MPI_File_delete */
    char mine[600], name[64];
    snprintf(name, sizeof name, "self.%d", t_rank);
    io_path(mine, name);
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_SELF, mine, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &fh));
    double d[3] = {1, 2, 3};
    MPI_CHK(MPI_File_write_shared(fh, d, 3, MPI_DOUBLE, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_File_close(&fh));
    MPI_CHK(MPI_File_delete(mine, MPI_INFO_NULL));
    io_cleanup();
    return t_finish();
}
