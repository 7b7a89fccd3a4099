/* accel_emul: the emulated device itself and what dmpi tells programs
 * (DMPI_TEST_DEVICE=cuda: the same on a GPU, less the fault and overrun).
 *   - emulated device memory really is out of the CPU's reach: a forked
 *     child that reads it, or writes it, dies of SIGSEGV;
 *   - MPI_COMM_WORLD's info has mpi_memory_alloc_kinds with system, mpi
 *     and emul:device (and the cuda kinds exactly when
 *     MPIX_Query_cuda_support() says 1);
 *   - MPI_Alloc_mem refuses a kind it does not know (MPI_ERR_INFO),
 *     MPI_Free_mem one not at the start of a block (MPI_ERR_BASE);
 *   - a send whose datatype runs past the end of a device block fails
 *     with MPI_ERR_BUFFER saying it is device memory, no crash;
 *   - messages to self between device and host buffers arrive intact;
 *     short, truncated and cancelled receives into device memory touch
 *     only the bytes they should. */
#include "emul_mem.h"

#include <signal.h>
#include <sys/wait.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

/* Forks a child that touches p (writes when `write`); its fate. */
static void child_faults(volatile char *p, int write)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        if (write) p[0] = 1;
        else (void)p[0];
        _exit(0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork/waitpid failed");
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
          "a %s of emulated device memory by the CPU did not fault (status 0x%x)",
          write ? "write" : "read", st);
}

static void check_kinds(void)
{
    MPI_Info info;
    MPI_CHK(MPI_Comm_get_info(MPI_COMM_WORLD, &info));
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_CHK(MPI_Info_get_string(info, "mpi_memory_alloc_kinds", &(int){sizeof v}, v, &flag));
    MPI_Info_free(&info);
    CHECK(flag, "MPI_COMM_WORLD's info has no mpi_memory_alloc_kinds");
    CHECK(strncmp(v, "system,mpi", 10) == 0, "mpi_memory_alloc_kinds is \"%s\"", v);
    const char *want = t_dev_cuda() ? "cuda:device" : "emul:device";
    CHECK(strstr(v, want) != NULL, "no %s in \"%s\"", want, v);
#ifdef MPIX_CUDA_AWARE_SUPPORT
    int cuda = MPIX_Query_cuda_support();
    CHECK(cuda == (strstr(v, "cuda:device") != NULL),
          "MPIX_Query_cuda_support() is %d but the kinds are \"%s\"", cuda, v);
#endif
}

static void check_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_memory_alloc_kinds", "quantum:device");
    void *p = NULL;
    CHECK_CLASS(MPI_Alloc_mem(64, info, &p), MPI_ERR_INFO);
    MPI_Info_free(&info);

    char *d = t_emul_alloc(4096);
    CHECK(d != NULL, "no emulated device memory");
    CHECK_CLASS(MPI_Free_mem(d + 8), MPI_ERR_BASE);
    if (t_dev_cuda()) { /* the driver's allocations are larger than asked: no overrun to see */
        MPI_CHK(MPI_Free_mem(d));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        return;
    }
    int rc = MPI_Send(d, 8192, MPI_BYTE, t_rank, 0, MPI_COMM_WORLD);
    CHECK(t_class(rc) == MPI_ERR_BUFFER, "a send past the end of a device block gave %s",
          t_errstr(rc));
    CHECK(strstr(t_errstr(rc), "device memory") != NULL, "the message says \"%s\"", t_errstr(rc));
    MPI_CHK(MPI_Free_mem(d));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void check_self(size_t n)
{
    for (int k = 0; k < 4; k++) {
        t_dbuf s = t_dbuf_new(n, k & 1), r = t_dbuf_new(n, k >> 1);
        for (size_t i = 0; i < n; i++) s.rw[i] = (char)(i * 3 + k);
        memset(r.rw, 0, n);
        t_dbuf_push(&s);
        t_dbuf_push(&r);
        MPI_Status st;
        MPI_CHK(MPI_Sendrecv(s.user, (int)n, MPI_BYTE, t_rank, 5, r.user, (int)n, MPI_BYTE, t_rank,
                             5, MPI_COMM_WORLD, &st));
        t_dbuf_pull(&r);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += r.rw[i] != (char)(i * 3 + k);
        CHECK(bad == 0, "self %zu bytes %s->%s: %zu wrong", n, k & 1 ? "dev" : "host",
              k >> 1 ? "dev" : "host", bad);
        t_dbuf_free(&s);
        t_dbuf_free(&r);
    }
}

/* Receives into device memory that do not fill it: a short message
 * leaves the rest of the buffer alone, a truncated one delivers what fits
 * (MPI_ERR_TRUNCATE), a cancelled receive changes nothing. */
static void check_partial(void)
{
    enum { N = 1000, SHORT = 100 };
    t_dbuf s = t_dbuf_new(N, 0), r = t_dbuf_new(N, 1);
    for (int i = 0; i < N; i++) s.rw[i] = (char)(i + 1);
    memset(r.rw, 0x77, N);
    t_dbuf_push(&r);
    MPI_Status st;
    MPI_CHK(MPI_Sendrecv(s.user, SHORT, MPI_BYTE, t_rank, 6, r.user, N, MPI_BYTE, t_rank, 6,
                         MPI_COMM_WORLD, &st));
    t_dbuf_pull(&r);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += r.rw[i] != (i < SHORT ? (char)(i + 1) : (char)0x77);
    CHECK(bad == 0, "a short message into device memory: %d bytes wrong", bad);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    memset(r.rw, 0x77, N);
    t_dbuf_push(&r);
    MPI_Request q;
    MPI_CHK(MPI_Isend(s.user, N, MPI_BYTE, t_rank, 7, MPI_COMM_WORLD, &q));
    int rc = MPI_Recv(r.user, SHORT, MPI_BYTE, t_rank, 7, MPI_COMM_WORLD, &st);
    CHECK(t_class(rc) == MPI_ERR_TRUNCATE, "truncation gave %s", t_errstr(rc));
    MPI_CHK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    t_dbuf_pull(&r);
    bad = 0;
    for (int i = 0; i < N; i++) bad += r.rw[i] != (i < SHORT ? (char)(i + 1) : (char)0x77);
    CHECK(bad == 0, "a truncated message into device memory: %d bytes wrong", bad);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    memset(r.rw, 0x55, N);
    t_dbuf_push(&r);
    MPI_CHK(MPI_Irecv(r.user, N, MPI_BYTE, t_rank, 8, MPI_COMM_WORLD, &q));
    MPI_CHK(MPI_Cancel(&q));
    MPI_CHK(MPI_Wait(&q, &st));
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "a receive nobody sends to was not cancelled");
    t_dbuf_pull(&r);
    bad = 0;
    for (int i = 0; i < N; i++) bad += r.rw[i] != (char)0x55;
    CHECK(bad == 0, "a cancelled receive changed %d bytes of device memory", bad);
    t_dbuf_free(&s);
    t_dbuf_free(&r);
}

int main(int argc, char **argv)
{
    t_emul_request();
    t_init(&argc, &argv);
    char *d = t_emul_alloc(1 << 16);
    CHECK(d != NULL, "MPI_Alloc_mem gave no device memory");
    if (d && t_dev_cuda()) {
        MPI_CHK(MPI_Free_mem(d));
    } else if (d) { /* the emulated device: the CPU really cannot touch it */
        child_faults(d, 0);
        child_faults(d + 4096, 1);
        MPI_CHK(MPI_Free_mem(d));
    }
    check_kinds();
    check_errors();
    check_self(8);
    check_self(1 << 20);
    check_partial();
    return t_finish();
}
