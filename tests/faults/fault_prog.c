/* fault_prog.c: the MPI program of the fault-injection matrix
 * (tests/faults/run_faults.sh). Every rank keeps communicating until a
 * fault ends the job; the script injects the fault from outside (kill of a
 * rank or of mpiexec) or the victim rank causes it itself.
 *
 * Usage: fault_prog MODE VICTIM DIR DELAY_MS [nopdeath]
 *   MODE   recv   the victim ping-pongs with every other rank in turn (8 B,
 *                 4 KiB and 100 KiB messages); the others block in MPI_Recv
 *                 from it most of the time
 *          coll   all ranks loop over Allreduce, Bcast (rotating root, up to
 *                 100 KiB) and Barrier
 *          rma    all ranks loop over Win_fence + Put/Get epochs on a window
 *          exit0, exit3   like recv; after DELAY_MS the victim calls exit()
 *                 with that code without MPI_Finalize
 *          abort  like recv; after DELAY_MS the victim calls MPI_Abort(7)
 *          probe-rma  exits 0 printing "rma ok" if windows work, else
 *                 "rma unsupported" (and still exits 0)
 *   VICTIM the rank that fails (or is killed by the script)
 *   DIR    each rank writes DIR/rank.R ("pid jobid") after MPI_Init; rank 0
 *          writes DIR/ready once every rank has; a victim that faults by
 *          itself writes DIR/fault (CLOCK_REALTIME, ns) just before it does
 *   nopdeath  clear PR_SET_PDEATHSIG, so that only the library's own check
 *          of the launcher link can end a rank whose mpiexec is gone
 * The program never finishes by itself (except probe-rma). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int rank, size, victim;
static const char *dir;
static long delay_ms;
static double t_start;
static enum { NONE, EXIT0, EXIT3, ABORT } self_fault = NONE;

static void write_file(const char *name, const char *text)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    rename(tmp, path); /* appears complete or not at all */
}

static long long realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The victim's own fault, once DELAY_MS have passed. */
static void maybe_fault(void)
{
    if (self_fault == NONE || rank != victim || MPI_Wtime() - t_start < delay_ms / 1000.0) return;
    char buf[64];
    snprintf(buf, sizeof buf, "%lld\n", realtime_ns());
    write_file("fault", buf);
    if (self_fault == EXIT0) exit(0);
    if (self_fault == EXIT3) exit(3);
    MPI_Abort(MPI_COMM_WORLD, 7);
    fprintf(stderr, "fault_prog: MPI_Abort returned\n");
    exit(99);
}

static char *buf_a, *buf_b;
enum { BIG = 100 * 1024 };

static void loop_recv(void)
{
    static const int sizes[] = {8, 4096, BIG};
    for (unsigned it = 0;; it++) {
        int n = sizes[it % 3];
        if (rank == victim) {
            for (int r = 0; r < size; r++) {
                if (r == victim) continue;
                maybe_fault();
                MPI_Send(buf_a, n, MPI_CHAR, r, 1, MPI_COMM_WORLD);
                MPI_Recv(buf_b, n, MPI_CHAR, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            if (size == 1) maybe_fault();
        } else {
            MPI_Recv(buf_b, n, MPI_CHAR, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf_b, n, MPI_CHAR, victim, 2, MPI_COMM_WORLD);
        }
    }
}

static void loop_coll(void)
{
    for (unsigned it = 0;; it++) {
        int in = rank + (int)it, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(buf_a, it % 2 ? BIG : 64, MPI_CHAR, (int)(it % (unsigned)size), MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static int make_window(MPI_Win *win)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Win_create(buf_b, BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return rc;
}

static void loop_rma(MPI_Win win)
{
    int right = (rank + 1) % size;
    for (unsigned it = 0;; it++) {
        MPI_Win_fence(0, win);
        int n = it % 2 ? BIG / 2 : 16;
        MPI_Put(buf_a, n, MPI_CHAR, right, 0, n, MPI_CHAR, win);
        MPI_Win_fence(0, win);
        MPI_Get(buf_a + BIG / 2, n, MPI_CHAR, right, BIG / 2, n, MPI_CHAR, win);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: fault_prog MODE VICTIM DIR DELAY_MS [nopdeath]\n");
        return 2;
    }
    const char *mode = argv[1];
    victim = atoi(argv[2]);
    dir = argv[3];
    delay_ms = atol(argv[4]);
    if (argc > 5 && strcmp(argv[5], "nopdeath") == 0) prctl(PR_SET_PDEATHSIG, 0);
    if (!strcmp(mode, "exit0")) self_fault = EXIT0;
    else if (!strcmp(mode, "exit3")) self_fault = EXIT3;
    else if (!strcmp(mode, "abort")) self_fault = ABORT;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf_a = calloc(BIG, 1);
    buf_b = calloc(BIG, 1);
    if (!buf_a || !buf_b) MPI_Abort(MPI_COMM_WORLD, 2);

    if (!strcmp(mode, "probe-rma")) {
        MPI_Win win;
        int rc = make_window(&win);
        if (rank == 0) printf("rma %s\n", rc == MPI_SUCCESS ? "ok" : "unsupported");
        if (rc == MPI_SUCCESS) MPI_Win_free(&win);
        MPI_Finalize();
        return 0;
    }
    MPI_Win win = MPI_WIN_NULL;
    if (!strcmp(mode, "rma") && make_window(&win) != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "fault_prog: windows are not supported\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }

    char text[128];
    const char *jobid = getenv("DMPI_JOBID");
    snprintf(text, sizeof text, "%d %s\n", (int)getpid(), jobid ? jobid : "-");
    char name[32];
    snprintf(name, sizeof name, "rank.%d", rank);
    write_file(name, text);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) write_file("ready", "ready\n");
    t_start = MPI_Wtime();

    if (!strcmp(mode, "coll")) loop_coll();
    else if (!strcmp(mode, "rma")) loop_rma(win);
    else loop_recv(); /* recv, exit0, exit3, abort */
    return 0;
}
