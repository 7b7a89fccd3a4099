/* mpiexec helpers: clock, fd flags, random job ids, signal names, checked
 * allocation, and log lines written to stderr in one piece. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

double mpx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int mpx_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) return -1;
    return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void mpx_random_hex(char *out, size_t nhex)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[64];
    size_t need = (nhex + 1) / 2, got = 0;
    if (need > sizeof b) need = sizeof b;
    while (got < need) {
        ssize_t r = getrandom(b + got, need - got, 0);
        if (r > 0) got += (size_t)r;
        else if (r < 0 && errno == EINTR) continue;
        else break;
    }
    if (got < need) { /* no getrandom: fall back to /dev/urandom, then time */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        while (fd >= 0 && got < need) {
            size_t room = sizeof b - got, want = need - got < room ? need - got : room;
            ssize_t r = read(fd, b + got, want);
            if (r > 0) got += (size_t)r;
            else if (!(r < 0 && errno == EINTR)) break;
        }
        if (fd >= 0) close(fd);
    }
    if (got < need) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec * 6364136223846793005ull ^
                               (unsigned long long)ts.tv_sec ^ ((unsigned long long)getpid() << 32);
        for (size_t i = got; i < need; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < nhex; i++) out[i] = hex[(b[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    out[nhex] = '\0';
}

const char *mpx_signame(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGCHLD: return "SIGCHLD";
    case SIGCONT: return "SIGCONT";
    case SIGSTOP: return "SIGSTOP";
    case SIGTSTP: return "SIGTSTP";
    case SIGTTIN: return "SIGTTIN";
    case SIGTTOU: return "SIGTTOU";
    case SIGURG: return "SIGURG";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGPROF: return "SIGPROF";
    case SIGWINCH: return "SIGWINCH";
    case SIGIO: return "SIGIO";
    case SIGSYS: return "SIGSYS";
    default: return "unknown signal";
    }
}

void *mpx_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        mpx_log("out of memory");
        exit(1); /* ranks die with us: PR_SET_PDEATHSIG */
    }
    return p;
}

void *mpx_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) {
        mpx_log("out of memory");
        exit(1);
    }
    return q;
}

void mpx_log(const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "mpiexec: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    if (mpx_log_agent) { /* an agent's messages go to mpiexec */
        buf[len] = '\0';
        mpx_agent_log(buf + n, len - (size_t)n);
        return;
    }
    buf[len++] = '\n';
    const char *p = buf;
    while (len > 0) { /* one write in practice: lines from ranks never interleave with it */
        ssize_t w = write(2, p, len);
        if (w > 0) { p += w; len -= (size_t)w; }
        else if (w < 0 && errno == EINTR) continue;
        else break;
    }
}

const char *mpx_rank_label(const mpx_rank *r)
{
    static char buf[64];
    if (r->sub > 0) snprintf(buf, sizeof buf, "rank %d of spawned job %d", r->rank, r->sub);
    else snprintf(buf, sizeof buf, "rank %d", r->rank);
    return buf;
}
