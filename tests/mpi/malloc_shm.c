/* malloc_shm.c: the malloc library that mpiexec preloads (DMPI_SHM_MALLOC,
 * tools/malloc/dmpi_malloc.c) keeps the malloc family's contract while it
 * serves large blocks from the shared heap: calloc zeroes reused memory,
 * realloc keeps the contents when it grows or shrinks (and moves blocks
 * between the C library and the heap), posix_memalign / aligned_alloc /
 * memalign align, malloc_usable_size covers the request; large messages
 * between malloc'ed buffers arrive intact; a forked child can allocate,
 * free and exec; blocks stay readable after MPI_Finalize and freeing them
 * then is harmless. Plain MPI: with any other MPI (or with
 * DMPI_SHM_MALLOC=0) it checks the same contract of the C library. */
#include "common.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG (1 << 20)

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 7 + seed);
}

static int same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 7 + seed)) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);

    /* calloc zeroes memory that a previous block dirtied */
    for (int k = 0; k < 3; k++) {
        unsigned char *d = malloc(BIG);
        memset(d, 0xff, BIG);
        free(d);
        unsigned char *z = calloc(BIG / 8, 8);
        CHECK(z != NULL, "calloc failed");
        size_t nz = 0;
        for (size_t i = 0; z && i < BIG; i++) nz += z[i] != 0;
        CHECK(nz == 0, "calloc: %zu nonzero bytes", nz);
        free(z);
    }

    /* realloc: small -> big (C library -> heap), grow, shrink, -> small */
    unsigned char *r = malloc(1000);
    fill(r, 1000, 3);
    r = realloc(r, BIG);
    CHECK(r && same(r, 1000, 3), "realloc to 1 MiB lost data");
    fill(r, BIG, 5);
    r = realloc(r, 4 * BIG);
    CHECK(r && same(r, BIG, 5), "realloc to 4 MiB lost data");
    CHECK(malloc_usable_size(r) >= 4 * (size_t)BIG, "usable size %zu", malloc_usable_size(r));
    r = realloc(r, BIG / 2);
    CHECK(r && same(r, BIG / 2, 5), "realloc shrink lost data");
    r = realloc(r, 100);
    CHECK(r && same(r, 100, 5), "realloc to 100 bytes lost data");
    free(r);
    free(realloc(NULL, 0)); /* may be NULL or a block */

    /* alignment */
    for (size_t a = 16; a <= 65536; a *= 4) {
        void *p = NULL;
        CHECK(posix_memalign(&p, a, BIG + 1) == 0 && (uintptr_t)p % a == 0,
              "posix_memalign %zu", a);
        free(p);
        p = aligned_alloc(a, 2 * BIG);
        CHECK(p && (uintptr_t)p % a == 0, "aligned_alloc %zu", a);
        free(p);
        p = memalign(a, BIG);
        CHECK(p && (uintptr_t)p % a == 0, "memalign %zu", a);
        free(p);
    }

    /* large messages around a ring, between malloc'ed buffers */
    size_t n = 4 * BIG;
    unsigned char *sb = malloc(n), *rb = malloc(n);
    fill(sb, n, (unsigned)t_rank);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    for (int k = 0; k < 5; k++) {
        MPI_CHK(MPI_Sendrecv(sb, (int)n, MPI_BYTE, right, k, rb, (int)n, MPI_BYTE, left, k,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(same(rb, n, (unsigned)left), "message %d from %d corrupted", k, left);
    }

    /* fork: the child allocates, frees and execs; the parent's buffers stay */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        void *c = malloc(2 * BIG);
        if (!c) _exit(2);
        memset(c, 1, 2 * BIG);
        free(c);
        execl("/bin/true", "true", (char *)NULL);
        _exit(3);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "forked child failed (status %d)", status);
    CHECK(same(sb, n, (unsigned)t_rank), "send buffer changed by the fork");

    int errs = t_errs, total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* after MPI_Finalize: blocks stay readable, free and malloc work */
    if (!same(rb, n, (unsigned)left)) total++;
    free(sb);
    free(rb);
    void *after = malloc(BIG);
    if (!after) total++;
    free(after);
    if (t_rank == 0) printf(total ? "%d errors\n" : " No Errors\n", total);
    return total != 0;
}
