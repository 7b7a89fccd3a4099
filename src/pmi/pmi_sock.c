/* Bounded, signal-safe socket I/O for the PMI backends (see pmi_sock.h). */
#include "pmi_sock.h"
#include "pmi_backend.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for ev on fd until the deadline (-1: none). 0 ready, -1 error or
 * timeout (reason set). */
static int wait_fd(const char *who, const char *what, int fd, short ev, long long deadline)
{
    struct pollfd p = {.fd = fd, .events = ev};
    for (;;) {
        int left = -1;
        if (deadline >= 0) {
            long long l = deadline - now_ms();
            left = l < 0 ? 0 : (int)(l > 1000000000 ? 1000000000 : l);
        }
        int r = poll(&p, 1, left);
        if (r > 0) return 0;
        if (r == 0) {
            dmpi_pmi_fail("%s: no %s from the launcher within %d s (DMPI_PMI_TIMEOUT)", who, what,
                          dmpi_pmi_timeout_ms() / 1000);
            return -1;
        }
        if (errno != EINTR) {
            dmpi_pmi_fail("%s: poll on the launcher socket: %s", who, strerror(errno));
            return -1;
        }
    }
}

static long long deadline_from_now(void)
{
    int t = dmpi_pmi_timeout_ms();
    return t < 0 ? -1 : now_ms() + t;
}

int dmpi_pmi_sock_send(const char *who, int fd, const char *buf, size_t n)
{
    bool use_write = false;
    long long deadline = deadline_from_now();
    while (n > 0) {
        ssize_t w = use_write ? write(fd, buf, n) : send(fd, buf, n, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(who, "room to send", fd, POLLOUT, deadline) != 0) return -1;
        } else if (w < 0 && errno == ENOTSOCK && !use_write) {
            use_write = true; /* a pipe from some other launcher */
        } else {
            dmpi_pmi_fail("%s: sending to the launcher: %s", who, w < 0 ? strerror(errno) : "nothing sent");
            return -1;
        }
    }
    return 0;
}

/* One read of up to n bytes, waiting until the deadline: >0 bytes, 0 when
 * the launcher closed the socket, -1 on error or timeout. */
static ssize_t read_some(const char *who, const char *what, int fd, char *buf, size_t n, long long deadline)
{
    for (;;) {
        /* poll first: the launcher's socket may be blocking, and a bare
         * read would then wait without bound */
        if (wait_fd(who, what, fd, POLLIN, deadline) != 0) return -1;
        ssize_t r = read(fd, buf, n);
        if (r >= 0) return r;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        dmpi_pmi_fail("%s: reading the %s: %s", who, what, strerror(errno));
        return -1;
    }
}

int dmpi_pmi_sock_read_exact(const char *who, const char *what, int fd, char *buf, size_t n)
{
    long long deadline = deadline_from_now();
    size_t got = 0;
    while (got < n) {
        ssize_t r = read_some(who, what, fd, buf + got, n - got, deadline);
        if (r < 0) return -1;
        if (r == 0) {
            if (got == 0)
                dmpi_pmi_fail("%s: the launcher closed the connection instead of sending the %s", who, what);
            else
                dmpi_pmi_fail("%s: the %s was cut short: %zu of %zu bytes, then the launcher closed the "
                              "connection", who, what, got, n);
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

int dmpi_pmi_sock_read_line(const char *who, const char *what, int fd, dmpi_pmi_reader *rd, char **line,
                            size_t *len)
{
    long long deadline = deadline_from_now();
    for (;;) {
        int r = dmpi_pmi_reader_next(rd, line, len);
        if (r == 1) return 0;
        if (r < 0) {
            dmpi_pmi_fail("%s: the %s is longer than %d bytes", who, what, DMPI_PMI_MAXLINE);
            return -1;
        }
        size_t room;
        char *space = dmpi_pmi_reader_space(rd, &room);
        if (room == 0) {
            dmpi_pmi_fail("%s: no room for the %s", who, what);
            return -1;
        }
        ssize_t n = read_some(who, what, fd, space, room, deadline);
        if (n < 0) return -1;
        if (n == 0) {
            dmpi_pmi_fail(dmpi_pmi_reader_partial(rd)
                              ? "%s: the %s was cut short: the launcher closed the connection mid-line"
                              : "%s: the launcher closed the connection instead of sending the %s",
                          who, what);
            return -1;
        }
        dmpi_pmi_reader_commit(rd, (size_t)n);
    }
}
