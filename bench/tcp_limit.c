/* tcp_limit.c: what one TCP connection between two hosts can do, no MPI:
 * the physical limit that inter-node latency and bandwidth figures are
 * measured against (as copy_limit is for intra-node bandwidth).
 *
 *   tcp_limit -s [-p PORT] [--once]              server
 *   tcp_limit -c HOST [-p PORT] [options]        client (prints the results)
 *
 * One connection with TCP_NODELAY; the client drives, the server follows
 * the client's commands. Tests (-t, default all):
 *   lat   ping-pong: the client sends SIZE bytes, the server echoes them;
 *         every round trip is timed alone, after warm-up; one-way time =
 *         half the round trip. Sizes -m (default 8,64K).
 *   bw    streaming one way: the client sends COUNT messages of SIZE bytes
 *         (default 4M; -b), the server acks the last with one byte; time
 *         per message = run time / COUNT, one value per run (-r runs,
 *         default 7, after one warm-up run).
 *   bibw  the same with both sides sending COUNT messages at once on the
 *         same connection (a sender thread on each side); MB/s counts both
 *         directions' bytes.
 * Output: the table of the MPI benchmarks in bench/ (test, size, median_us,
 * p99_us, MB/s; 1 MB = 10^6 bytes, MB/s = bytes per message / median
 * time), or with --csv "test,size,median_us,p99_us,mbps", --raw every
 * sample "test,size,sample,us". Lines starting with # describe the run.
 * p99 is nearest-rank: with 7 runs it is the slowest run. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64
#define DEFAULT_PORT 17471

enum { OP_LAT = 1, OP_BW = 2, OP_BIBW = 3, OP_END = 4 };

/* A command of the client: 24 bytes, big-endian. */
struct cmd {
    uint32_t op;
    uint32_t pad;
    uint64_t size;  /* bytes per message */
    uint64_t count; /* messages (lat: round trips) */
};

static struct {
    int server, once, csv, raw, wait_s;
    const char *host, *port, *tests;
    size_t lat_sizes[MAX_SIZES], bw_sizes[MAX_SIZES];
    int n_lat, n_bw, iters, warmup, runs;
    size_t run_bytes;
} o = {.port = NULL, .tests = "lat,bw,bibw", .iters = 10000, .warmup = 1000,
       .runs = 7, .run_bytes = 256u << 20, .wait_s = 10};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tcp_limit: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank quantile of v[0..n) (sorts v). */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int r = (int)(q * n + 0.999999999);
    if (r < 1) r = 1;
    if (r > n) r = n;
    return v[r - 1];
}

/* "8", "64K", "4M", "1G": powers of 1024. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    if (*end == 'K' || *end == 'k') v <<= 10, end++;
    else if (*end == 'M' || *end == 'm') v <<= 20, end++;
    else if (*end == 'G' || *end == 'g') v <<= 30, end++;
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_sizes(const char *spec, size_t *sizes)
{
    char buf[1024];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_SIZES || parse_size(t, &sizes[n]) != 0 || sizes[n] == 0) return -1;
        n++;
    }
    return n;
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("send: %s", w < 0 ? strerror(errno) : "connection closed");
        c += w;
        n -= (size_t)w;
    }
}

/* Returns 0, or -1 when the peer closed before the first byte. */
static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, c + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0 && got == 0) return -1;
        if (r <= 0) die("recv: %s", r < 0 ? strerror(errno) : "connection closed");
        got += (size_t)r;
    }
    return 0;
}

static uint64_t be64(uint64_t v)
{
    return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

static void send_cmd(int fd, uint32_t op, uint64_t size, uint64_t count)
{
    struct cmd c = {htonl(op), 0, be64(size), be64(count)};
    write_all(fd, &c, sizeof c);
}

static void set_nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        die("TCP_NODELAY: %s", strerror(errno));
}

static void *xmalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1) != 0) die("out of memory (%zu bytes)", n);
    memset(p, 0x5a, n);
    return p;
}

/* Sender thread of bw/bibw: count messages of size from buf. */
struct stream { int fd; const char *buf; size_t size; uint64_t count; };

static void *stream_send(void *arg)
{
    struct stream *s = arg;
    for (uint64_t i = 0; i < s->count; i++) write_all(s->fd, s->buf, s->size);
    return NULL;
}

static void stream_recv(int fd, char *buf, size_t size, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++)
        if (read_all(fd, buf, size) != 0) die("recv: connection closed");
}

/* ---- server ---- */

static void serve(int fd)
{
    char *buf = NULL, *sbuf = NULL;
    size_t cap = 0;
    struct cmd c;
    set_nodelay(fd);
    while (read_all(fd, &c, sizeof c) == 0) {
        uint32_t op = ntohl(c.op);
        size_t size = (size_t)be64(c.size);
        uint64_t count = be64(c.count);
        if (op == OP_END) break;
        if (size > cap) {
            free(buf);
            free(sbuf);
            buf = xmalloc(size);
            sbuf = xmalloc(size);
            cap = size;
        }
        char ack = 1;
        if (op == OP_LAT) {
            for (uint64_t i = 0; i < count; i++) {
                if (read_all(fd, buf, size) != 0) die("recv: connection closed");
                write_all(fd, buf, size);
            }
        } else if (op == OP_BW) {
            stream_recv(fd, buf, size, count);
            write_all(fd, &ack, 1);
        } else if (op == OP_BIBW) {
            struct stream s = {fd, sbuf, size, count};
            pthread_t t;
            if (pthread_create(&t, NULL, stream_send, &s) != 0) die("pthread_create failed");
            stream_recv(fd, buf, size, count);
            pthread_join(t, NULL);
            write_all(fd, &ack, 1);
        } else {
            die("unknown command %u from the client", op);
        }
    }
    free(buf);
    free(sbuf);
}

static void run_server(void)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE}, *ai;
    int rc = getaddrinfo(o.host, o.port, &hints, &ai);
    if (rc != 0) die("%s: %s", o.host ? o.host : "*", gai_strerror(rc));
    /* The first address that binds (without --bind: the IPv4 or IPv6
     * wildcard, in the order getaddrinfo gives). */
    int ls = -1;
    for (struct addrinfo *a = ai; a && ls < 0; a = a->ai_next) {
        ls = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (ls < 0) continue;
        int one = 1;
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(ls, a->ai_addr, a->ai_addrlen) != 0 || listen(ls, 4) != 0) {
            close(ls);
            ls = -1;
        }
    }
    freeaddrinfo(ai);
    if (ls < 0) die("cannot listen on port %s: %s", o.port, strerror(errno));
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    char h[NI_MAXHOST], p[NI_MAXSERV];
    getsockname(ls, (struct sockaddr *)&sa, &sl);
    getnameinfo((struct sockaddr *)&sa, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
    printf("tcp_limit: listening on %s port %s\n", h, p);
    fflush(stdout);
    do {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR) continue;
            die("accept: %s", strerror(errno));
        }
        if (o.once) {
            serve(fd);
        } else { /* a child per client, one at a time: a client that breaks
                    off ends only its child */
            pid_t pid = fork();
            if (pid == 0) {
                close(ls);
                serve(fd);
                _exit(0);
            }
            if (pid < 0) die("fork: %s", strerror(errno));
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        }
        close(fd);
    } while (!o.once);
    close(ls);
}

/* ---- client ---- */

static int connect_to(void)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    int rc = getaddrinfo(o.host, o.port, &hints, &ai);
    if (rc != 0) die("%s: %s", o.host, gai_strerror(rc));
    double give_up = now() + o.wait_s;
    int err = 0;
    for (;;) { /* the server may still be starting: retry for --wait seconds */
        for (struct addrinfo *a = ai; a; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
            if (fd < 0) continue;
            if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
                char h[NI_MAXHOST];
                getnameinfo(a->ai_addr, a->ai_addrlen, h, sizeof h, NULL, 0, NI_NUMERICHOST);
                if (!o.csv && !o.raw)
                    printf("# tcp_limit: %s (%s) port %s\n", o.host, h, o.port);
                freeaddrinfo(ai);
                return fd;
            }
            err = errno;
            close(fd);
        }
        if (now() > give_up) break;
        usleep(100 * 1000);
    }
    freeaddrinfo(ai);
    die("cannot connect to %s port %s: %s", o.host, o.port, strerror(err));
}

static void report(const char *test, size_t size, double *us, int n, double bytes)
{
    if (o.raw) {
        for (int i = 0; i < n; i++) printf("%s,%zu,%d,%.4f\n", test, size, i, us[i]);
        fflush(stdout);
        return;
    }
    double med = quantile(us, n, 0.5), p99 = quantile(us, n, 0.99);
    double mbps = med > 0 ? bytes / med : 0.0;
    if (o.csv)
        printf("%s,%zu,%.4f,%.4f,%.2f\n", test, size, med, p99, mbps);
    else
        printf("%-5s %10zu %12.3f %12.3f %12.1f\n", test, size, med, p99, mbps);
    fflush(stdout);
}

static void client_lat(int fd, size_t size)
{
    /* Large messages get fewer round trips: at most run_bytes each way,
     * at least 20. */
    uint64_t iters = (uint64_t)o.iters, warm = (uint64_t)o.warmup;
    if (iters * size > o.run_bytes) iters = o.run_bytes / size;
    if (iters < 20) iters = 20;
    if (warm > iters / 10 + 1) warm = iters / 10 + 1;
    char *sbuf = xmalloc(size), *rbuf = xmalloc(size);
    double *us = malloc(iters * sizeof *us);
    if (!us) die("out of memory");
    send_cmd(fd, OP_LAT, size, warm + iters);
    for (uint64_t i = 0; i < warm + iters; i++) {
        double t0 = now();
        write_all(fd, sbuf, size);
        if (read_all(fd, rbuf, size) != 0) die("recv: connection closed");
        if (i >= warm) us[i - warm] = (now() - t0) * 1e6 / 2;
    }
    report("lat", size, us, (int)iters, (double)size);
    free(us);
    free(sbuf);
    free(rbuf);
}

static void client_stream(int fd, int bidir, size_t size)
{
    uint64_t count = o.run_bytes / size;
    if (count < 4) count = 4;
    char *sbuf = xmalloc(size), *rbuf = xmalloc(size);
    double *us = malloc((size_t)o.runs * sizeof *us);
    if (!us) die("out of memory");
    for (int r = -1; r < o.runs; r++) { /* run -1: warm-up */
        char ack;
        double t0 = now();
        send_cmd(fd, bidir ? OP_BIBW : OP_BW, size, count);
        if (bidir) {
            struct stream s = {fd, sbuf, size, count};
            pthread_t t;
            if (pthread_create(&t, NULL, stream_send, &s) != 0) die("pthread_create failed");
            stream_recv(fd, rbuf, size, count);
            pthread_join(t, NULL);
        } else {
            stream_send(&(struct stream){fd, sbuf, size, count});
        }
        if (read_all(fd, &ack, 1) != 0) die("recv: connection closed");
        if (r >= 0) us[r] = (now() - t0) * 1e6 / (double)count;
    }
    report(bidir ? "bibw" : "bw", size, us, o.runs, (double)size * (bidir ? 2 : 1));
    free(us);
    free(sbuf);
    free(rbuf);
}

static int want(const char *test)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o.tests);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, test)) return 1;
    return 0;
}

static void run_client(void)
{
    int fd = connect_to();
    set_nodelay(fd);
    int mss = 0, sb = 0, rb = 0;
    socklen_t l = sizeof mss;
    getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l);
    l = sizeof sb;
    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, &l);
    l = sizeof rb;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, &l);
    if (o.raw) {
        printf("test,size,sample,us\n");
    } else if (o.csv) {
        printf("test,size,median_us,p99_us,mbps\n");
    } else {
        printf("# one connection, TCP_NODELAY, MSS %d, initial SO_SNDBUF %d, SO_RCVBUF %d\n",
               mss, sb, rb);
        printf("# lat: half round trip of every one of up to %d iterations (after"
               " warm-up); bw, bibw: time per message over %d runs of %zu MiB each way\n",
               o.iters, o.runs, o.run_bytes >> 20);
        printf("%-5s %10s %12s %12s %12s\n", "#test", "size", "median_us", "p99_us", "MB/s");
    }
    for (int i = 0; i < o.n_lat && want("lat"); i++) client_lat(fd, o.lat_sizes[i]);
    for (int i = 0; i < o.n_bw && want("bw"); i++) client_stream(fd, 0, o.bw_sizes[i]);
    for (int i = 0; i < o.n_bw && want("bibw"); i++) client_stream(fd, 1, o.bw_sizes[i]);
    send_cmd(fd, OP_END, 0, 0);
    close(fd);
}

static void usage(int rc)
{
    fprintf(rc ? stderr : stdout,
            "usage: tcp_limit -s [-p PORT] [--bind ADDR] [--once]\n"
            "       tcp_limit -c HOST [-p PORT] [options]\n"
            "  -p, --port PORT     TCP port (default %d; -s -p 0: any free port, printed)\n"
            "  -t, --tests LIST    lat,bw,bibw (default all)\n"
            "  -m, --sizes LIST    lat message sizes, K/M/G suffixes (default 8,64K)\n"
            "  -b, --bw-sizes LIST bw and bibw message sizes (default 4M)\n"
            "  -i, --iters N       lat round trips per size (default 10000; fewer when\n"
            "                      they would move more than -B bytes, at least 20)\n"
            "  -x, --warmup N      lat warm-up round trips (default 1000, at most a tenth)\n"
            "  -r, --runs N        bw, bibw runs per size (default 7, plus one warm-up)\n"
            "  -B, --run-bytes N   bytes one way per bw/bibw run (default 256M)\n"
            "  -w, --wait SECS     client: keep retrying the connection (default 10)\n"
            "  --csv, --raw        output formats of the bench/ programs\n"
            "  --once              server: exit after the first client\n",
            DEFAULT_PORT);
    exit(rc);
}

int main(int argc, char **argv)
{
    static char port[16];
    snprintf(port, sizeof port, "%d", DEFAULT_PORT);
    o.port = port;
    o.n_lat = parse_sizes("8,64K", o.lat_sizes);
    o.n_bw = parse_sizes("4M", o.bw_sizes);
    int mode = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(s, l) (!strcmp(a, s) || !strcmp(a, l))
#define NEED() do { if (!v) usage(2); i++; } while (0)
        if (ARG("-s", "--server")) mode = 's';
        else if (ARG("-c", "--client")) { NEED(); mode = 'c'; o.host = v; }
        else if (ARG("-p", "--port")) { NEED(); o.port = v; }
        else if (!strcmp(a, "--bind")) { NEED(); o.host = v; }
        else if (ARG("-t", "--tests")) { NEED(); o.tests = v; }
        else if (ARG("-m", "--sizes")) { NEED(); if ((o.n_lat = parse_sizes(v, o.lat_sizes)) < 0) usage(2); }
        else if (ARG("-b", "--bw-sizes")) { NEED(); if ((o.n_bw = parse_sizes(v, o.bw_sizes)) < 0) usage(2); }
        else if (ARG("-i", "--iters")) { NEED(); o.iters = atoi(v); }
        else if (ARG("-x", "--warmup")) { NEED(); o.warmup = atoi(v); }
        else if (ARG("-r", "--runs")) { NEED(); o.runs = atoi(v); }
        else if (ARG("-B", "--run-bytes")) { NEED(); if (parse_size(v, &o.run_bytes) != 0) usage(2); }
        else if (ARG("-w", "--wait")) { NEED(); o.wait_s = atoi(v); }
        else if (!strcmp(a, "--csv")) o.csv = 1;
        else if (!strcmp(a, "--raw")) o.raw = 1;
        else if (!strcmp(a, "--once")) o.once = 1;
        else if (ARG("-h", "--help")) usage(0);
        else { fprintf(stderr, "tcp_limit: bad option: %s\n", a); usage(2); }
    }
    if (!mode || o.iters < 1 || o.warmup < 0 || o.runs < 1 || o.run_bytes < 1) usage(2);
    signal(SIGPIPE, SIG_IGN);
    if (mode == 's') run_server();
    else run_client();
    return 0;
}
