/* Helper for tests/launcher/test_launcher.sh: a "rank" that uses only the
 * PMI client (src/pmi), built with cc directly. Usage: pmi_prog MODE [ARGS]
 *   ok            init, put a long key, fence, get every rank's key, finalize
 *   exit3         rank 1 exits with code 3 (no finalize); others sleep
 *   kill          rank 1 sends itself SIGKILL; others sleep
 *   segv          rank 1 raises SIGSEGV; others sleep
 *   nofin         rank 1 exits 0 without finalize; others sleep
 *   abort         rank 1 calls abort with code 5; others sleep
 *   closefd       rank 1 closes its PMI fd and sleeps; others sleep
 *   sleep         every rank sleeps forever after init
 *   finbar        rank 0 finalizes and exits; rank 1 then enters a fence
 *   spam N        print N lines of varying length to stdout and stderr
 *   stdin         rank 0 counts the bytes and lines of stdin; others too
 *   env NAME...   print NAME=value for each NAME
 *   garbage       send malformed PMI lines first, then run like ok
 *   shm           create /dev/shm/dmpi-$DMPI_JOBID-test, then like ok
 *   map           print "map RANK MAPPING LOCAL_RANK LOCAL_SIZE", then like ok
 * In the failure modes the failing rank is $FAIL_RANK (default 1).
 * Every rank first prints "pid RANK PID JOBID" to stderr. */
#include "pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char *what)
{
    fprintf(stderr, "rank %d: %s failed\n", rank, what);
    exit(10);
}

static void sleep_forever(void)
{
    for (;;) pause();
}

static void make_value(char *buf, size_t n, int r)
{
    /* long, with spaces and backslashes to exercise escaping */
    size_t o = (size_t)snprintf(buf, n, "rank %d says \\hello\\ ", r);
    while (o < n - 1) {
        buf[o] = (char)('a' + (o + (size_t)r) % 26);
        if (o % 97 == 0) buf[o] = ' ';
        o++;
    }
    buf[n - 1] = '\0';
}

static void exchange(void)
{
    char key[32], val[1100], got[1100];
    snprintf(key, sizeof key, "key-%d", rank);
    make_value(val, sizeof val, rank);
    if (dmpi_pmi_put(key, val) != 0) die("put");
    if (dmpi_pmi_barrier() != 0) die("barrier");
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "key-%d", r);
        make_value(val, sizeof val, r);
        if (dmpi_pmi_get(r, key, got, sizeof got) != 0) die("get");
        if (strcmp(val, got) != 0) die("value check");
    }
    if (dmpi_pmi_get(-1, "no-such-key", got, sizeof got) == 0) die("get of a missing key");
    if (dmpi_pmi_barrier() != 0) die("second barrier");
}

static void finish(void)
{
    if (dmpi_pmi_finalize() != 0) die("finalize");
    printf("rank %d of %d ok\n", rank, size);
    exit(0);
}

static void spam(int lines)
{
    /* "RANK IDX LEN PAYLOAD": PAYLOAD is LEN copies of one letter */
    static char payload[5000];
    for (int i = 0; i < lines; i++) {
        int len = 1 + (i * 7919 + rank * 104729) % 3000;
        char c = (char)('A' + (rank + i) % 26);
        memset(payload, c, (size_t)len);
        payload[len] = '\0';
        FILE *f = i % 5 == 4 ? stderr : stdout;
        fprintf(f, "%d %d %d %s\n", rank, i, len, payload);
    }
}

static void count_stdin(void)
{
    char buf[65536];
    long long bytes = 0, lines = 0;
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes += n;
        for (ssize_t i = 0; i < n; i++) lines += buf[i] == '\n';
    }
    printf("rank %d stdin %lld bytes %lld lines\n", rank, bytes, lines);
}

static void send_garbage(void)
{
    int fd = dmpi_pmi_fd();
    const char *bad = "hello\ncmd=\ncmd=get key\\\n=x\ncmd=put key=a key=b\ncmd=frobnicate\n";
    if (write(fd, bad, strlen(bad)) < 0) die("write");
    static char huge[20000];
    memset(huge, 'x', sizeof huge - 1);
    huge[sizeof huge - 2] = '\n';
    if (write(fd, huge, sizeof huge - 1) < 0) die("write");
    /* read the error replies: one per bad line (6) and one for the long line */
    int nl = 0;
    char c;
    while (nl < 7 && read(fd, &c, 1) == 1) nl += c == '\n';
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int appnum;
    if (strcmp(mode, "garbage") == 0) {
        /* needs the fd before init: use the environment directly */
        if (dmpi_pmi_init(&rank, &size, &appnum) != 0) die("init");
        send_garbage();
    } else if (dmpi_pmi_init(&rank, &size, &appnum) != 0) {
        die("init");
    }
    fprintf(stderr, "pid %d %d %s\n", rank, (int)getpid(), dmpi_pmi_jobid());

    if (strcmp(mode, "ok") == 0 || strcmp(mode, "garbage") == 0) {
        exchange();
        finish();
    } else if (strcmp(mode, "shm") == 0) {
        char path[256];
        snprintf(path, sizeof path, "/dev/shm/dmpi-%s-test%d", dmpi_pmi_jobid(), rank);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        if (fd < 0) die("create shm file");
        close(fd);
        exchange();
        if (argc > 2 && rank == 1) raise(SIGKILL);
        finish();
    } else if (strcmp(mode, "map") == 0) {
        char map[1024];
        if (dmpi_pmi_job_attr("PMI_process_mapping", map, sizeof map) != 0) die("get PMI_process_mapping");
        const char *lr = getenv("DMPI_LOCAL_RANK"), *ls = getenv("DMPI_LOCAL_SIZE");
        printf("map %d %s %s %s\n", rank, map, lr ? lr : "-", ls ? ls : "-");
        exchange();
        finish();
    } else if (strcmp(mode, "sleep") == 0) {
        sleep_forever();
    } else if (strcmp(mode, "finbar") == 0) {
        if (rank == 0) finish();
        usleep(300000);
        if (dmpi_pmi_barrier() == 0) die("barrier after a finalized rank succeeded:");
        fprintf(stderr, "rank %d: barrier failed as expected\n", rank);
        exit(4);
    } else if (strcmp(mode, "spam") == 0) {
        spam(argc > 2 ? atoi(argv[2]) : 100);
        finish();
    } else if (strcmp(mode, "stdin") == 0) {
        count_stdin();
        finish();
    } else if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("%s=%s\n", argv[i], v ? v : "(unset)");
        }
        finish();
    }
    /* failure modes: rank 1 fails, the others wait to be killed */
    if (dmpi_pmi_barrier() != 0) die("barrier");
    const char *fr = getenv("FAIL_RANK");
    if (rank != (fr ? atoi(fr) : 1)) sleep_forever();
    usleep(100000);
    if (strcmp(mode, "exit3") == 0) exit(3);
    if (strcmp(mode, "kill") == 0) raise(SIGKILL);
    if (strcmp(mode, "segv") == 0) raise(SIGSEGV);
    if (strcmp(mode, "nofin") == 0) exit(0);
    if (strcmp(mode, "abort") == 0) {
        dmpi_pmi_abort(5, "test abort: bye");
        sleep_forever();
    }
    if (strcmp(mode, "closefd") == 0) {
        close(dmpi_pmi_fd());
        sleep_forever();
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
