/* MPI-IO shared file pointer: concurrent write_shared never overlap (every
 * record lands whole, exactly once), read_shared hands each record to one
 * rank, seek_shared/get_position_shared; ordered writes and reads land in
 * rank order; MPI_MODE_SEQUENTIAL with MPI_DISPLACEMENT_CURRENT. */
#include "io_common.h"

#include <stdbool.h>

#define R 20   /* records per rank */
#define REC 5  /* ints per record */

static void shared(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int s = 0; s < R; s++) {
        int rec[REC] = {t_rank, s, s, s, s};
        MPI_Status st;
        MPI_CHK(MPI_File_write_shared(fh, rec, REC, MPI_INT, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == REC, "write_shared count %d", cnt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sp = -1;
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == (MPI_Offset)t_size * R * REC, "shared position %lld", (long long)sp);
    if (t_rank == 0) {
        int n = t_size * R, *all = t_malloc(sizeof(int) * n * REC), *seen = calloc(n, sizeof(int));
        MPI_CHK(MPI_File_read_at(fh, 0, all, n * REC, MPI_INT, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++) {
            int *r = all + i * REC;
            bool ok = r[0] >= 0 && r[0] < t_size && r[1] >= 0 && r[1] < R && r[2] == r[1] &&
                      r[3] == r[1] && r[4] == r[1];
            CHECK(ok, "record %d torn: %d %d %d %d %d", i, r[0], r[1], r[2], r[3], r[4]);
            if (ok) seen[r[0] * R + r[1]]++;
        }
        for (int i = 0; i < n; i++) CHECK(seen[i] == 1, "record %d seen %d times", i, seen[i]);
        free(all);
        free(seen);
    }
    /* read them back through the shared pointer: each record once */
    MPI_CHK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int got = 0;
    for (;;) {
        int rec[REC];
        MPI_Status st;
        MPI_CHK(MPI_File_read_shared(fh, rec, REC, MPI_INT, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        if (cnt == 0) break;
        CHECK(cnt == REC && rec[2] == rec[1] && rec[4] == rec[1], "read_shared record torn");
        got++;
        if (got > R * t_size) break;
    }
    int total = 0;
    MPI_Allreduce(&got, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == t_size * R, "read_shared got %d records in all", total);
    MPI_CHK(MPI_File_seek_shared(fh, 3, MPI_SEEK_SET));
    MPI_CHK(MPI_File_seek_shared(fh, 2, MPI_SEEK_CUR));
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 5, "shared position after seeks %lld", (long long)sp);
    MPI_CHK(MPI_File_seek_shared(fh, -REC, MPI_SEEK_END));
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == (MPI_Offset)t_size * R * REC - REC, "shared SEEK_END %lld", (long long)sp);
    MPI_CHK(MPI_File_close(&fh));
}

static void ordered(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int mine[64];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i <= t_rank; i++) mine[i] = 100 * round + t_rank;
        MPI_Status st;
        MPI_CHK(MPI_File_write_ordered(fh, mine, t_rank + 1, MPI_INT, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == t_rank + 1, "write_ordered count %d", cnt);
    }
    MPI_Offset sp = -1, per = (MPI_Offset)t_size * (t_size + 1) / 2;
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 2 * per, "shared position after ordered writes %lld", (long long)sp);
    int *all = t_malloc(sizeof(int) * 2 * per);
    MPI_CHK(MPI_File_read_at_all(fh, 0, all, (int)(2 * per), MPI_INT, MPI_STATUS_IGNORE));
    int k = 0;
    for (int round = 0; round < 2; round++)
        for (int r = 0; r < t_size; r++)
            for (int i = 0; i <= r; i++, k++)
                if (all[k] != 100 * round + r) {
                    CHECK(0, "ordered int %d = %d, want %d", k, all[k], 100 * round + r);
                    round = 2, r = t_size;
                    break;
                }
    free(all);
    MPI_CHK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    for (int round = 0; round < 2; round++) {
        int back[64];
        MPI_CHK(MPI_File_read_ordered(fh, back, t_rank + 1, MPI_INT, MPI_STATUS_IGNORE));
        for (int i = 0; i <= t_rank; i++)
            CHECK(back[i] == 100 * round + t_rank, "read_ordered round %d [%d] = %d", round, i,
                  back[i]);
    }
    MPI_CHK(MPI_File_close(&fh));
}

static void sequential(const char *path)
{
    MPI_File fh;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY |
                          MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    int x = t_rank;
    MPI_CHK(MPI_File_write_ordered(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_CLASS(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE),
                MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    /* the new view starts where the shared pointer is */
    MPI_CHK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                              MPI_INFO_NULL));
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_CHK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(disp == (MPI_Offset)t_size * (MPI_Offset)sizeof(int), "current disp %lld",
          (long long)disp);
    MPI_Offset sp = -1;
    MPI_CHK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 0, "shared position after set_view %lld", (long long)sp);
    MPI_CHK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    shared(io_path(path, "shared.dat"));
    ordered(io_path(path, "ordered.dat"));
    sequential(io_path(path, "seq.dat"));
    io_cleanup();
    return t_finish();
}
