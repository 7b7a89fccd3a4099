/* dynproc_tworuns: MPI_Comm_accept / MPI_Comm_connect and MPI_Comm_join
 * between two separately started mpiexec runs (docs/dynproc.md), driven by
 * tests/dynproc/test_two_runs.sh, which starts both runs and passes the
 * port through a file.
 *   dynproc_tworuns server FILE RSIZE [MODE]   open a port, write it to FILE,
 *                                              accept over MPI_COMM_WORLD
 *   dynproc_tworuns client FILE RSIZE [MODE]   read FILE, connect
 * (the root is the last rank on both sides; only it knows the port)
 * RSIZE: the other run's size. MODE: "" (full exercise, then disconnect),
 * "nodisc" (exercise, free the intercommunicator and finalize without
 * disconnecting), "hang" (server: wait
 * for a message that never comes; the test aborts the client), "abort"
 * (client: MPI_Abort after connecting), "noaccept" (server: never accept),
 * "porterror" (client: the connect must fail with MPI_ERR_PORT), "twice"
 * (server: accept two clients one after the other), "join"
 * (1+1: MPI_Comm_join over a TCP socket whose port is in FILE). A window
 * over the merged communicator, and MPI_Intercomm_create between the two
 * roots over it, must fail with MPI_ERR_UNSUPPORTED_OPERATION (not
 * supported across runs). */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static int server; /* this run's side */

static void write_file(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    if (!f) return;
    fprintf(f, "%s\n", text);
    fclose(f);
    CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
}

/* Rank 0 waits (up to 60 s) for the file and reads its line. */
static void read_file(const char *path, char *text, int cap)
{
    text[0] = '\0';
    for (int i = 0; i < 6000; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(text, cap, f)) text[strcspn(text, "\n")] = '\0';
            fclose(f);
            return;
        }
        usleep(10000);
    }
    CHECK(0, "no file %s", path);
}

/* Both sides: point-to-point both ways (small and 1 MiB), collectives on
 * the intercommunicator, two merges. */
static void exercise(MPI_Comm inter, int rsize_want)
{
    int lsize = -1, rsize = -1, rank = -1, flag = 0;
    MPI_CHK(MPI_Comm_size(inter, &lsize));
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    MPI_CHK(MPI_Comm_rank(inter, &rank));
    MPI_CHK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag && lsize == t_size && rsize == rsize_want, "inter %d sizes %d/%d, want %d/%d", flag, lsize, rsize,
          t_size, rsize_want);
    if (rsize != rsize_want) return;
    /* every local rank with every remote rank, both ways */
    int *in = calloc((size_t)rsize, sizeof(int)), *out = calloc((size_t)rsize, sizeof(int));
    MPI_Request *rq = calloc(2 * (size_t)rsize, sizeof(MPI_Request));
    for (int j = 0; j < rsize; j++) {
        out[j] = (server ? 1000 : 2000) + 100 * rank + j;
        MPI_CHK(MPI_Irecv(&in[j], 1, MPI_INT, j, 7, inter, &rq[j]));
        MPI_CHK(MPI_Isend(&out[j], 1, MPI_INT, j, 7, inter, &rq[rsize + j]));
    }
    MPI_CHK(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++)
        CHECK(in[j] == (server ? 2000 : 1000) + 100 * j + rank, "from remote %d: %d", j, in[j]);
    free(in);
    free(out);
    free(rq);
    /* 1 MiB between the roots (rendezvous across the runs) */
    if (rank == 0) {
        enum { N = 1 << 18 };
        int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++) a[i] = i ^ (server ? 0x5555 : 0x3333);
        MPI_CHK(MPI_Sendrecv(a, N, MPI_INT, 0, 8, b, N, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < N; i++) bad += b[i] != (i ^ (server ? 0x3333 : 0x5555));
        CHECK(bad == 0, "%d words of the 1 MiB message wrong", bad);
        free(a);
        free(b);
    }
    /* collectives: bcast from the server's root, allreduce, barrier */
    int v = server ? 4242 : -1;
    MPI_CHK(MPI_Bcast(&v, 1, MPI_INT, server ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter));
    if (!server) CHECK(v == 4242, "bcast gave %d", v);
    int mine = server ? 1 : 10, sum = -1;
    MPI_CHK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    CHECK(sum == rsize * (server ? 10 : 1), "inter allreduce %d", sum);
    MPI_CHK(MPI_Barrier(inter));
    /* merges: the server first (high flags), then the same flag on both
     * sides (the order must still be the same in both runs) */
    for (int same = 0; same < 2; same++) {
        MPI_Comm merged;
        MPI_CHK(MPI_Intercomm_merge(inter, same ? 0 : !server, &merged));
        int msize = -1, mrank = -1;
        MPI_CHK(MPI_Comm_size(merged, &msize));
        MPI_CHK(MPI_Comm_rank(merged, &mrank));
        CHECK(msize == lsize + rsize, "merged size %d", msize);
        int me = (server ? 100 : 200) + rank, *all = calloc((size_t)msize, sizeof(int));
        MPI_CHK(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, merged));
        CHECK(all[mrank] == me, "merged rank %d holds %d, not me (%d)", mrank, all[mrank], me);
        int first = all[0] / 100, firstn = first == 1 ? (server ? lsize : rsize) : (server ? rsize : lsize);
        if (!same) CHECK(first == 1, "the client came first in the merge");
        for (int i = 0; i < msize; i++) {
            int want = i < firstn ? first * 100 + i : (3 - first) * 100 + i - firstn;
            CHECK(all[i] == want, "merged rank %d is %d, want %d", i, all[i], want);
        }
        int s = -1;
        MPI_CHK(MPI_Allreduce(&mrank, &s, 1, MPI_INT, MPI_SUM, merged));
        CHECK(s == msize * (msize - 1) / 2, "merged allreduce %d", s);
        if (!same && rank == 0) { /* MPI_Intercomm_create with leaders in two runs: a clear error */
            int other = -1;
            for (int i = 0; i < msize; i++)
                if (all[i] == (server ? 200 : 100)) other = i;
            MPI_Comm ic = MPI_COMM_NULL;
            int cls = -1;
            MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
            MPI_Error_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, merged, other, 9, &ic), &cls);
            CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION && ic == MPI_COMM_NULL,
                  "MPI_Intercomm_create across runs: class %d", cls);
        }
        if (!same) { /* windows across two runs: a clear error, at every member */
            MPI_Win win = MPI_WIN_NULL;
            int cls = -1;
            MPI_CHK(MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN));
            MPI_Error_class(MPI_Win_create(&s, sizeof s, 1, MPI_INFO_NULL, merged, &win), &cls);
            CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION && win == MPI_WIN_NULL, "window across runs: class %d", cls);
        }
        free(all);
        MPI_CHK(MPI_Comm_free(&merged));
    }
}

/* MPI_Comm_join: rank 0 of the server listens, the client's connects. */
static void join(const char *file)
{
    int fd = -1;
    if (server) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
                  getsockname(l, (struct sockaddr *)&a, &len) == 0, "cannot listen");
        char text[32];
        snprintf(text, sizeof text, "%d", ntohs(a.sin_port));
        write_file(file, text);
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        char text[64];
        read_file(file, text, sizeof text);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(text)),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "cannot connect to %s", text);
    }
    MPI_Comm inter;
    MPI_CHK(MPI_Comm_join(fd, &inter));
    exercise(inter, 1);
    MPI_CHK(MPI_Comm_disconnect(&inter));
    close(fd);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s server|client FILE RSIZE [MODE]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    server = strcmp(argv[1], "server") == 0;
    const char *file = argv[2], *mode = argc > 4 ? argv[4] : "";
    int rsize = atoi(argv[3]);
    if (strcmp(mode, "join") == 0) {
        join(file);
        return t_finish();
    }
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter = MPI_COMM_NULL;
    int root = t_size - 1; /* the last rank: a root other than 0 where there are several */
    if (server) {
        if (t_rank == root) {
            MPI_CHK(MPI_Open_port(MPI_INFO_NULL, port));
            write_file(file, port);
        }
        if (strcmp(mode, "noaccept") == 0) {
            sleep(4);
            if (t_rank == root) MPI_CHK(MPI_Close_port(port));
            return t_finish();
        }
        if (strcmp(mode, "twice") == 0) { /* a first client (of two connecting at once) */
            MPI_CHK(MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter));
            exercise(inter, rsize);
            MPI_CHK(MPI_Comm_disconnect(&inter));
        }
        MPI_CHK(MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter));
        if (t_rank == root) MPI_CHK(MPI_Close_port(port));
    } else {
        if (t_rank == root) read_file(file, port, sizeof port);
        if (strcmp(mode, "porterror") == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int rc = MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter), cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_PORT, "connect to '%s' gave class %d, not MPI_ERR_PORT", port, cls);
            CHECK(inter == MPI_COMM_NULL, "a failed connect returned a communicator");
            return t_finish();
        }
        MPI_CHK(MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter));
    }
    if (strcmp(mode, "abort") == 0 && !server) MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(mode, "hang") == 0 && server) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 99, inter, MPI_STATUS_IGNORE); /* the client aborts */
        CHECK(0, "a message came from a client that aborted");
    }
    exercise(inter, rsize);
    if (strcmp(mode, "nodisc") != 0) MPI_CHK(MPI_Comm_disconnect(&inter));
    else MPI_CHK(MPI_Comm_free(&inter)); /* freed, not disconnected */
    return t_finish();
}
