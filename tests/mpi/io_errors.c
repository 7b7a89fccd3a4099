/* MPI-IO errors: the I/O error classes for bad access modes, missing files,
 * existing files with MPI_MODE_EXCL, writes to read-only and reads from
 * write-only files, directories, permissions, invalid handles and
 * arguments; the file error handlers: MPI_ERRORS_RETURN by default on
 * MPI_FILE_NULL, a user handler there is called for a failed open and
 * inherited by files opened after, MPI_File_call_errhandler. */
#include "io_common.h"

#include <sys/stat.h>

static int calls;
static MPI_File last_file;
static int last_code;

static void handler(MPI_File *f, int *code, ...)
{
    calls++;
    last_file = *f;
    last_code = *code;
}

static void modes(const char *path)
{
    MPI_File fh = (MPI_File)(void *)1;
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, 0, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK(fh == MPI_FILE_NULL, "failed open left fh %p", (void *)fh);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_EXCL,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | (1 << 20),
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    /* missing file, missing directory */
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_NO_SUCH_FILE);
    char sub[700];
    snprintf(sub, sizeof sub, "%s/no/such/dir/x", io_dir);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, sub, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                              MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_BAD_FILE);
    if (t_rank == 0) {
        CHECK_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
        CHECK_CLASS(MPI_File_delete(NULL, MPI_INFO_NULL), MPI_ERR_BAD_FILE);
    }
    /* EXCL on an existing file */
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                          &fh));
    MPI_CHK(MPI_File_close(&fh));
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL |
                              MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS);
    /* read-only and write-only files */
    int x = 5;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    CHECK_CLASS(MPI_File_write_all(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    CHECK_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
    MPI_Status st;
    MPI_CHK(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 0, "read of an empty file count %d", cnt);
    MPI_CHK(MPI_File_close(&fh));
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_read(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    /* bad arguments */
    CHECK_CLASS(MPI_File_write_at(fh, -1, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_CLASS(MPI_File_write_at(fh, 0, &x, -1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_File_write_at(fh, 0, &x, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE),
                MPI_ERR_TYPE);
    CHECK_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    CHECK_CLASS(MPI_File_iwrite_at(fh, 0, &x, 1, MPI_INT, NULL), MPI_ERR_ARG);
    MPI_CHK(MPI_File_close(&fh));
    /* permissions (root may open anything) */
    if (geteuid() != 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0) chmod(path, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                    MPI_ERR_ACCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (t_rank == 0) chmod(path, 0600);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* invalid handles */
    MPI_Offset size;
    CHECK_CLASS(MPI_File_get_size(MPI_FILE_NULL, &size), MPI_ERR_FILE);
    MPI_File none = MPI_FILE_NULL;
    CHECK_CLASS(MPI_File_close(&none), MPI_ERR_FILE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) MPI_CHK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void handlers(const char *path)
{
    MPI_Errhandler eh;
    MPI_CHK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file handler is not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    MPI_Errhandler mine;
    MPI_CHK(MPI_File_create_errhandler(handler, &mine));
    MPI_CHK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(t_class(rc) == MPI_ERR_NO_SUCH_FILE, "open class %d", t_class(rc));
    CHECK(calls == 1 && last_file == MPI_FILE_NULL && last_code == rc,
          "handler on MPI_FILE_NULL: calls %d", calls);
    /* a new file inherits the handler */
    calls = 0;
    MPI_CHK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_CHK(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == mine, "the file did not inherit the handler");
    MPI_Errhandler_free(&eh);
    rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    CHECK(calls == 1 && last_file == fh && t_class(last_code) == MPI_ERR_ARG,
          "handler on the file: calls %d", calls);
    MPI_CHK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(calls == 2 && last_code == MPI_ERR_IO, "call_errhandler: calls %d", calls);
    MPI_CHK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK(calls == 2, "handler called after MPI_ERRORS_RETURN was set");
    MPI_CHK(MPI_File_close(&fh));
    MPI_CHK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Errhandler_free(&mine));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    io_tmpdir();
    char path[600];
    modes(io_path(path, "err.dat"));
    handlers(io_path(path, "errh.dat"));
    io_cleanup();
    return t_finish();
}
