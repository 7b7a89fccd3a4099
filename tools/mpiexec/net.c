/* TCP framing between mpiexec and its agents (see net.h for the format),
 * nonblocking socket reads and writes into growable buffers, the listening
 * socket, the agent's connect, and the choice of the call-back address. */
#include "net.h"
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ------------------------------------------------------------ buffers */

void mpx_buf_put(mpx_buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        if (b->off > 0) { /* compact */
            memmove(b->p, b->p + b->off, b->len - b->off);
            b->len -= b->off;
            b->fstart -= b->off;
            b->off = 0;
        }
        if (b->len + n > b->cap) {
            b->cap = (b->len + n) * 2 + 256;
            b->p = mpx_xrealloc(b->p, b->cap);
        }
    }
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
}

void mpx_buf_free(mpx_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void mpx_buf_consume(mpx_buf *b, size_t n)
{
    b->off += n;
    if (b->off == b->len) b->off = b->len = b->fstart = 0;
}

static void put_be32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
}

static uint32_t get_be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

void mpx_frame_begin(mpx_buf *b, int type)
{
    b->fstart = b->len;
    char h[5] = {0, 0, 0, 0, (char)type};
    mpx_buf_put(b, h, 5);
    b->fstart = b->len - 5; /* mpx_buf_put may have compacted */
}

void mpx_frame_u32(mpx_buf *b, uint32_t v)
{
    char p[4];
    put_be32(p, v);
    mpx_buf_put(b, p, 4);
}

void mpx_frame_str(mpx_buf *b, const char *s)
{
    size_t n = strlen(s) + 1;
    mpx_frame_u32(b, (uint32_t)n);
    mpx_buf_put(b, s, n);
}

void mpx_frame_bytes(mpx_buf *b, const void *d, size_t n)
{
    mpx_buf_put(b, d, n);
}

void mpx_frame_end(mpx_buf *b)
{
    put_be32(b->p + b->fstart, (uint32_t)(b->len - b->fstart - 4));
    b->fstart = b->len;
}

int mpx_frame_next(mpx_buf *b, mpx_frame *f, size_t *size)
{
    size_t avail = b->len - b->off;
    if (avail < 4) return 0;
    uint32_t L = get_be32(b->p + b->off);
    if (L < 1 || L > MPX_FRAME_MAX) return -1;
    if (avail < 4 + (size_t)L) return 0;
    f->type = (unsigned char)b->p[b->off + 4];
    f->p = b->p + b->off + 5;
    f->len = L - 1;
    f->bad = false;
    *size = 4 + (size_t)L;
    return 1;
}

uint32_t mpx_frame_get_u32(mpx_frame *f)
{
    if (f->bad || f->len < 4) {
        f->bad = true;
        return 0;
    }
    uint32_t v = get_be32(f->p);
    f->p += 4;
    f->len -= 4;
    return v;
}

const char *mpx_frame_get_str(mpx_frame *f)
{
    uint32_t n = mpx_frame_get_u32(f);
    if (f->bad || n < 1 || n > f->len || f->p[n - 1] != '\0' || memchr(f->p, '\0', n) != f->p + n - 1) {
        f->bad = true;
        return NULL;
    }
    const char *s = f->p;
    f->p += n;
    f->len -= n;
    return s;
}

/* ------------------------------------------------------------ sockets */

int mpx_sock_read(int fd, mpx_buf *b)
{
    if (b->cap - b->len < 65536) {
        if (b->off > 0) {
            memmove(b->p, b->p + b->off, b->len - b->off);
            b->len -= b->off;
            b->off = 0;
            b->fstart = b->len;
        }
        if (b->cap - b->len < 65536) {
            b->cap = b->len + 2 * 65536;
            b->p = mpx_xrealloc(b->p, b->cap);
        }
    }
    for (;;) {
        ssize_t n = read(fd, b->p + b->len, b->cap - b->len);
        if (n > 0) {
            b->len += (size_t)n;
            b->fstart = b->len;
            return (int)(n > 0x7fffffff ? 0x7fffffff : n);
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return -2;
        return -1;
    }
}

int mpx_sock_flush(int fd, mpx_buf *b)
{
    while (b->off < b->fstart) { /* only whole frames */
        ssize_t w = send(fd, b->p + b->off, b->fstart - b->off, MSG_NOSIGNAL);
        if (w > 0) {
            b->off += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    if (b->off == b->len) b->off = b->len = b->fstart = 0;
    return 0;
}

int mpx_tcp_listen(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

int mpx_tcp_connect(const char *addr_port, double timeout)
{
    char host[256];
    const char *colon = strrchr(addr_port, ':');
    if (colon == NULL || (size_t)(colon - addr_port) >= sizeof host) {
        errno = EINVAL;
        return -1;
    }
    memcpy(host, addr_port, (size_t)(colon - addr_port));
    host[colon - addr_port] = '\0';
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || res == NULL) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rc = fd < 0 ? -1 : connect(fd, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (fd < 0) return -1;
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int pr;
        do {
            pr = poll(&p, 1, (int)(timeout * 1000));
        } while (pr < 0 && errno == EINTR);
        int err = 0;
        socklen_t el = sizeof err;
        if (pr == 0) err = ETIMEDOUT;
        else if (pr < 0) err = errno;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) err = errno;
        rc = err ? -1 : 0;
        errno = err;
    }
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    return fd;
}

/* ---------------------------------------------------------- addresses */

bool mpx_host_is_local(const char *name)
{
    return strcmp(name, "localhost") == 0 || strncmp(name, "127.", 4) == 0 ||
           strcmp(name, "::1") == 0;
}

static bool is_loopback(const struct sockaddr_in *sa)
{
    return (ntohl(sa->sin_addr.s_addr) >> 24) == 127;
}

int mpx_pick_addr(const char *iface, bool local_only, char *out, size_t outlen)
{
    struct ifaddrs *ifs = NULL, *i;
    if (iface == NULL && local_only) {
        snprintf(out, outlen, "127.0.0.1");
        return 0;
    }
    if (iface == NULL) { /* the host name's address, if it is not a loopback one */
        char hn[256];
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_INET;
        hints.ai_socktype = SOCK_STREAM;
        if (gethostname(hn, sizeof hn) == 0 && (hn[sizeof hn - 1] = '\0', 1) &&
            getaddrinfo(hn, NULL, &hints, &res) == 0) {
            for (struct addrinfo *a = res; a; a = a->ai_next) {
                const struct sockaddr_in *sa = (const struct sockaddr_in *)a->ai_addr;
                if (!is_loopback(sa) && inet_ntop(AF_INET, &sa->sin_addr, out, (socklen_t)outlen)) {
                    freeaddrinfo(res);
                    return 0;
                }
            }
        }
        if (res) freeaddrinfo(res);
    }
    if (getifaddrs(&ifs) != 0) {
        mpx_log("cannot list the network interfaces: %s", strerror(errno));
        return -1;
    }
    bool found_iface = false;
    for (i = ifs; i; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET) {
            if (iface && strcmp(i->ifa_name, iface) == 0) found_iface = true;
            continue;
        }
        const struct sockaddr_in *sa = (const struct sockaddr_in *)i->ifa_addr;
        if (iface) {
            if (strcmp(i->ifa_name, iface) != 0) continue;
        } else if (is_loopback(sa) || !(i->ifa_flags & IFF_UP)) {
            continue;
        }
        if (inet_ntop(AF_INET, &sa->sin_addr, out, (socklen_t)outlen)) {
            freeifaddrs(ifs);
            return 0;
        }
    }
    freeifaddrs(ifs);
    if (iface) {
        mpx_log(found_iface ? "interface %s has no IPv4 address" : "no network interface named %s", iface);
        return -1;
    }
    snprintf(out, outlen, "127.0.0.1");
    return 0;
}
