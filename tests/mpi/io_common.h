/* Helpers of the MPI-IO tests (io_*.c): a private temporary directory for
 * the test's files (made by rank 0 under $TMPDIR or /tmp, its name shared),
 * and its removal at the end, which also checks that nothing was left
 * behind in it (files not deleted, shared-file-pointer side files). */
#ifndef DMPI_TEST_IO_COMMON_H
#define DMPI_TEST_IO_COMMON_H

#include "common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char io_dir[512];

static inline void io_tmpdir(void)
{
    if (t_rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(io_dir, sizeof io_dir, "%s/dmpi-io-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(io_dir)) {
            snprintf(io_dir, sizeof io_dir, "/tmp/dmpi-io-XXXXXX");
            if (!mkdtemp(io_dir)) io_dir[0] = 0;
        }
    }
    MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!io_dir[0]) {
        fprintf(stderr, "cannot make a temporary directory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* io_dir/name into out (at least 600 bytes). */
static inline char *io_path(char *out, const char *name)
{
    snprintf(out, 600, "%s/%s", io_dir, name);
    return out;
}

/* Collective: every file in the directory must be gone by now. */
static inline void io_cleanup(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        DIR *d = opendir(io_dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[1200];
            snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
            CHECK(0, "left behind: %s", p);
            unlink(p);
        }
        if (d) closedir(d);
        CHECK(rmdir(io_dir) == 0, "cannot remove %s", io_dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif
