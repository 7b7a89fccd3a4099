/* Unit test of the memory-kind layer (src/accel/) without MPI_Init:
 *   - with no backend on, every pointer is host memory and the flag is off;
 *   - DMPI_ACCEL=emul: device blocks classify as emulated device memory
 *     (anywhere inside, not one byte past), a freed and remade block gets a
 *     new buffer id, copies device<->host and device<->device move the
 *     right bytes (sync, and async only once tested), a copy past a
 *     block's end fails with MPI_ERR_BUFFER and a message;
 *   - the mpi_memory_alloc_kinds value follows what is on;
 *   - the staging helper makes a host copy of a device span and copies a
 *     receive back; staging blocks are reused by size class. */
#include "accel/accel.h"
#include "accel/stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);               \
            fprintf(stderr, "\n");                      \
            failures++;                                 \
        }                                               \
    } while (0)

static void check_off(void)
{
    int x;
    dmpi_accel_init();
    CHECK(!dmpi_accel_on || dmpi_accel_cuda_found(), "a backend is on with DMPI_ACCEL unset");
    CHECK(dmpi_accel_kind(&x) == DMPI_MEM_HOST, "a stack address is not host memory");
    CHECK(strncmp(dmpi_accel_alloc_kinds(), "system,mpi", 10) == 0, "kinds %s",
          dmpi_accel_alloc_kinds());
    dmpi_accel_fini();
}

static void check_emul(void)
{
    setenv("DMPI_ACCEL", "emul", 1);
    dmpi_accel_init();
    CHECK(dmpi_accel_on, "DMPI_ACCEL=emul did not turn the flag on");
    CHECK(strstr(dmpi_accel_alloc_kinds(), "emul:device") != NULL, "kinds %s",
          dmpi_accel_alloc_kinds());
    enum { N = 10000 };
    char *a = NULL, *b = NULL;
    CHECK(dmpi_accel_dev_alloc(N, DMPI_MEM_EMUL_DEVICE, (void **)&a) == MPI_SUCCESS, "alloc a");
    CHECK(dmpi_accel_dev_alloc(N, DMPI_MEM_EMUL_DEVICE, (void **)&b) == MPI_SUCCESS, "alloc b");
    if (!a || !b) return;
    dmpi_mem_info ia, ib;
    CHECK(dmpi_accel_classify(a + N - 1, &ia) == DMPI_MEM_EMUL_DEVICE, "a's last byte");
    CHECK(dmpi_accel_classify(b, &ib) == DMPI_MEM_EMUL_DEVICE, "b");
    CHECK(ia.buffer_id != ib.buffer_id, "two blocks share buffer id %llu",
          (unsigned long long)ia.buffer_id);
    char host[N], back[N];
    for (int i = 0; i < N; i++) host[i] = (char)(i * 5 + 3);
    CHECK(dmpi_accel_copy(a, DMPI_MEM_EMUL_DEVICE, host, DMPI_MEM_HOST, N) == MPI_SUCCESS, "h2d");
    CHECK(dmpi_accel_copy(b, DMPI_MEM_EMUL_DEVICE, a, DMPI_MEM_EMUL_DEVICE, N) == MPI_SUCCESS,
          "d2d");
    memset(back, 0, N);
    dmpi_accel_xfer x;
    CHECK(dmpi_accel_copy_async(back, DMPI_MEM_HOST, b, DMPI_MEM_EMUL_DEVICE, N, &x) ==
              MPI_SUCCESS, "async d2h");
    CHECK(back[1] == 0, "the async copy was done before its test (emul defers it)");
    CHECK(dmpi_accel_copy_wait(&x) == MPI_SUCCESS, "wait");
    CHECK(memcmp(back, host, N) == 0, "bytes differ after h2d, d2d, d2h");
    CHECK(dmpi_accel_copy(back, DMPI_MEM_HOST, a + 1, DMPI_MEM_EMUL_DEVICE, 2 * N) ==
              MPI_ERR_BUFFER, "a copy past the end of a block was accepted");
    CHECK(strstr(dmpi_accel_error(), "emulated device") != NULL, "message: %s",
          dmpi_accel_error());

    /* staging: a device span copied to host and back */
    dmpi_datatype *byte = dmpi_dt_builtin(MPI_BYTE);
    void *h = NULL;
    int rc;
    dmpi_stage *s = dmpi_stage_new(true, a, 100, byte, &h, &rc);
    CHECK(s && h && h != a, "no staging block for a device receive");
    CHECK(!dmpi_stage_wanted(host, 100, byte), "host memory wants staging");
    CHECK(dmpi_stage_wanted(a, 100, byte), "device memory does not want staging");
    if (s) {
        memset(h, 0x5a, 100);
        CHECK(dmpi_stage_finish(s, 60) == MPI_SUCCESS, "finish");
        dmpi_accel_copy(back, DMPI_MEM_HOST, a, DMPI_MEM_EMUL_DEVICE, 100);
        CHECK(back[0] == 0x5a && back[59] == 0x5a && back[60] == host[60],
              "the copy back moved the wrong bytes");
        dmpi_stage_free(s);
    }

    /* staging blocks are kept for reuse by size class */
    void *p1 = dmpi_accel_pinned_alloc(5000);
    CHECK(p1 != NULL, "no staging block");
    memset(p1, 1, 8192); /* the block is the whole class (8 KiB) */
    dmpi_accel_pinned_free(p1, 5000);
    void *p2 = dmpi_accel_pinned_alloc(6000);
    CHECK(p2 == p1, "a freed staging block of the same class was not reused");
    dmpi_accel_pinned_free(p2, 6000);

    uint64_t old = ia.buffer_id;
    int frc = 0;
    CHECK(dmpi_accel_dev_free(a, &frc) && frc == MPI_SUCCESS, "free a");
    char *c = NULL;
    dmpi_accel_dev_alloc(N, DMPI_MEM_EMUL_DEVICE, (void **)&c);
    CHECK(c && dmpi_accel_classify(c, &ia) == DMPI_MEM_EMUL_DEVICE && ia.buffer_id != old,
          "a remade block kept the old buffer id");
    dmpi_accel_dev_free(b, &frc);
    dmpi_accel_dev_free(c, &frc);
    dmpi_accel_fini();
    CHECK(!dmpi_accel_on, "the flag stays on after fini");
}

int main(void)
{
    unsetenv("DMPI_ACCEL");
    dmpi_datatype_init();
    check_off();
    check_emul();
    if (failures) {
        fprintf(stderr, "test_accel: %d failures\n", failures);
        return 1;
    }
    printf("test_accel: No Errors\n");
    return 0;
}
