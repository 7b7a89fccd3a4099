/* MPI-IO nonblocking and split collective access, and the large-count (_c)
 * forms: requests from MPI_File_i* complete through MPI_Wait, MPI_Test and
 * MPI_Waitall with the byte counts in their statuses; _begin/_end pairs
 * move the data and give the status at _end; misuse of split collectives
 * fails with an error class. */
#include "io_common.h"

#define N 256

static void nonblocking(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
    double a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = t_rank * 1000 + i;
    MPI_Offset base = (MPI_Offset)t_rank * 4 * N;
    MPI_Request rq[4];
    MPI_CHK(MPI_File_iwrite_at(fh, base, a, N, MPI_DOUBLE, &rq[0]));
    MPI_CHK(MPI_File_iwrite_at_all(fh, base + N, a, N, MPI_DOUBLE, &rq[1]));
    MPI_CHK(MPI_File_seek(fh, base + 2 * N, MPI_SEEK_SET));
    MPI_CHK(MPI_File_iwrite(fh, a, N / 2, MPI_DOUBLE, &rq[2]));
    MPI_CHK(MPI_File_iwrite_all_c(fh, a + N / 2, (MPI_Count)N / 2, MPI_DOUBLE, &rq[3]));
    MPI_Status sts[4];
    MPI_CHK(MPI_Waitall(4, rq, sts));
    for (int i = 0; i < 4; i++) {
        int cnt;
        MPI_Get_count(&sts[i], MPI_DOUBLE, &cnt);
        CHECK(cnt == (i < 2 ? N : N / 2), "iwrite %d count %d", i, cnt);
        CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    }
    MPI_Offset pos;
    MPI_CHK(MPI_File_get_position(fh, &pos));
    CHECK(pos == base + 3 * N, "position after iwrite %lld", (long long)pos);
    MPI_CHK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHK(MPI_File_sync(fh));
    for (int k = 0; k < 3; k++) {
        MPI_Request r;
        MPI_Status st;
        MPI_CHK(MPI_File_iread_at_c(fh, base + k * N, b, (MPI_Count)N, MPI_DOUBLE, &r));
        int flag = 0;
        while (!flag) MPI_CHK(MPI_Test(&r, &flag, &st));
        MPI_Count c = -1;
        MPI_Get_count_c(&st, MPI_DOUBLE, &c);
        CHECK(c == N, "iread_at_c count %lld", (long long)c);
        CHECK(!memcmp(a, b, sizeof a), "block %d differs", k);
    }
    /* iread through the pointer and iread_all, short at the end of file */
    MPI_Offset end = (MPI_Offset)t_size * 4 * N - N; /* last rank's 4th block is empty */
    MPI_CHK(MPI_File_seek(fh, (MPI_Offset)t_rank * 4 * N + 2 * N, MPI_SEEK_SET));
    MPI_Request r;
    MPI_Status st;
    MPI_CHK(MPI_File_iread_all(fh, b, N, MPI_DOUBLE, &r));
    MPI_CHK(MPI_Wait(&r, &st));
    int cnt;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == N, "iread_all count %d", cnt);
    MPI_CHK(MPI_File_iread_at(fh, end - 10, b, N, MPI_DOUBLE, &r));
    MPI_CHK(MPI_Wait(&r, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == 10, "iread_at at the end: count %d, want 10", cnt);
    /* shared pointer */
    MPI_CHK(MPI_File_seek_shared(fh, end, MPI_SEEK_SET));
    MPI_CHK(MPI_File_iwrite_shared(fh, a, 2, MPI_DOUBLE, &r));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sp;
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == end + 2 * t_size, "shared position %lld", (long long)sp);
    MPI_CHK(MPI_File_seek_shared(fh, end, MPI_SEEK_SET));
    MPI_CHK(MPI_File_iread_shared(fh, b, 2, MPI_DOUBLE, &r));
    MPI_CHK(MPI_Wait(&r, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == 2 && (int)b[0] % 1000 == 0 && b[1] == b[0] + 1,
          "iread_shared count %d values %g %g", cnt, b[0], b[1]);
    MPI_CHK(MPI_File_close(&fh));
}

static void split(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = t_rank * N + i;
    MPI_Status st;
    int cnt;
    MPI_CHK(MPI_File_write_at_all_begin(fh, (MPI_Offset)t_rank * N, a, N, MPI_INT));
    CHECK_CLASS(MPI_File_write_all_begin(fh, a, N, MPI_INT), MPI_ERR_OTHER);
    CHECK_CLASS(MPI_File_read_at_all_end(fh, a, &st), MPI_ERR_OTHER);
    MPI_CHK(MPI_File_write_at_all_end(fh, a, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "write_at_all_end count %d", cnt);
    CHECK_CLASS(MPI_File_write_at_all_end(fh, a, &st), MPI_ERR_OTHER);
    MPI_CHK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHK(MPI_File_sync(fh));
    int peer = (t_rank + 1) % t_size;
    MPI_CHK(MPI_File_read_at_all_begin_c(fh, (MPI_Offset)peer * N, b, (MPI_Count)N, MPI_INT));
    MPI_CHK(MPI_File_read_at_all_end(fh, b, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N && b[5] == peer * N + 5, "read_at_all split: count %d b[5] %d", cnt, b[5]);
    /* individual pointer */
    MPI_CHK(MPI_File_seek(fh, (MPI_Offset)t_rank * N, MPI_SEEK_SET));
    MPI_CHK(MPI_File_read_all_begin(fh, b, N, MPI_INT));
    MPI_CHK(MPI_File_read_all_end(fh, b, &st));
    CHECK(!memcmp(a, b, sizeof a), "read_all split differs");
    MPI_CHK(MPI_File_seek(fh, (MPI_Offset)t_rank * N, MPI_SEEK_SET));
    MPI_CHK(MPI_File_write_all_begin_c(fh, a, (MPI_Count)N, MPI_INT));
    MPI_CHK(MPI_File_write_all_end(fh, a, &st));
    /* ordered */
    MPI_CHK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_CHK(MPI_File_write_ordered_begin(fh, &t_rank, 1, MPI_INT));
    MPI_CHK(MPI_File_write_ordered_end(fh, &t_rank, &st));
    MPI_CHK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int who = -1;
    MPI_CHK(MPI_File_read_ordered_begin(fh, &who, 1, MPI_INT));
    MPI_CHK(MPI_File_read_ordered_end(fh, &who, &st));
    CHECK(who == t_rank, "read_ordered split gave %d", who);
    MPI_CHK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    nonblocking(io_path(path, "nb.dat"));
    split(io_path(path, "split.dat"));
    io_cleanup();
    return t_finish();
}
