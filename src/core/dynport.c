/* Dynamic processes: the TCP side of ports (docs/dynproc.md). Every open
 * port listens on a TCP socket whose address and number end the port name
 * (this host's address when mpiexec's agents give one, for jobs across
 * hosts; else loopback);
 * the connecting root connects to it, and the two roots run the handshake
 * of dynproc.c on that connection, in lines of text, whether the two
 * groups belong to one mpiexec run or to two. Afterwards the roots keep
 * the connection as a watch: a side sends "bye" when it disconnects the
 * intercommunicator or finalizes; a connection that ends without one means
 * that the other run died or aborted, and this job is aborted with a
 * message rather than left waiting for it for ever (dmpi_dyn_watch, from
 * dmpi_check_launcher). */
#include "core/dynproc.h"
#include "pmi/pmi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ------------------------------------------------------- sockets */
/* The address ports listen on: $DMPI_PORT_ADDR when it is an IPv4
 * address, else loopback. */
static void own_address(struct sockaddr_in *a)
{
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    const char *e = getenv("DMPI_PORT_ADDR");
    if (!e || inet_pton(AF_INET, e, &a->sin_addr) != 1) a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

int dmpi_dyn_listen(char *addr, size_t addrlen, int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a;
    own_address(&a);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
        !inet_ntop(AF_INET, &a.sin_addr, addr, (socklen_t)addrlen)) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int dmpi_dyn_dial(const char *addr, int port, char *err)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
        snprintf(err, DMPI_DYN_ERRLEN, "'%.64s' is not an IPv4 address", addr);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, DMPI_DYN_ERRLEN, "cannot make a socket: %s", strerror(errno));
        return -1;
    }
    int rc;
    while ((rc = connect(fd, (struct sockaddr *)&a, sizeof a)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        snprintf(err, DMPI_DYN_ERRLEN, "nobody listens on the port (%s): it was closed, or its process "
                 "or mpiexec run has ended", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Waits until fd is readable, keeping MPI progress going (and, threaded,
 * letting other threads in while idle, as every blocking call does); until
 * is an absolute dmpi_now() time (< 0: for ever). 0, or -1 on timeout. */
static int wait_readable(int fd, double until)
{
    unsigned idle = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) return 0;
        if (until >= 0 && dmpi_now() > until) return -1;
        if (dmpi_progress()) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

int dmpi_dyn_wait_conn(int lfd)
{
    for (;;) {
        wait_readable(lfd, -1);
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) return -1;
    }
}

int dmpi_dyn_write(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == ENOTSOCK) w = write(fd, p, n); /* a pipe given to MPI_Comm_join */
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int dmpi_dyn_read_line(int fd, char *buf, size_t cap, double wait_s)
{
    double until = wait_s < 0 ? -1 : dmpi_now() + wait_s;
    size_t n = 0;
    while (n + 1 < cap) {
        if (wait_readable(fd, until) != 0) return -2;
        ssize_t r = read(fd, buf + n, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = '\0';
    return 0;
}

/* --------------------------------------------------------- watches */
typedef struct watch {
    int fd;
    const dmpi_comm *comm;
    char port[80];
} watch;

static watch *watches;
static int nwatch;

int dmpi_dyn_watch_add(int fd, const dmpi_comm *comm, const char *port)
{
    watch *w = realloc(watches, ((size_t)nwatch + 1) * sizeof *w);
    if (!w) return -1;
    watches = w;
    watches[nwatch] = (watch){fd, comm, ""};
    snprintf(watches[nwatch].port, sizeof watches[nwatch].port, "%s", port);
    nwatch++;
    return 0;
}

static void drop(int i, bool bye)
{
    if (bye) dmpi_dyn_write(watches[i].fd, "bye\n", 4);
    close(watches[i].fd);
    watches[i] = watches[--nwatch];
}

void dmpi_dyn_watch_drop(const dmpi_comm *comm)
{
    for (int i = nwatch - 1; i >= 0; i--)
        if (watches[i].comm == comm) drop(i, true);
}

void dmpi_dyn_watch(void)
{
    for (int i = nwatch - 1; i >= 0; i--) {
        struct pollfd p = {watches[i].fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) continue;
        char buf[8];
        ssize_t r = recv(watches[i].fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r > 0) { /* "bye" (nothing else follows the handshake): disconnected or finalized */
            drop(i, false);
            continue;
        }
        char msg[200];
        snprintf(msg, sizeof msg, "rank %d: the processes connected through port %.80s ended without "
                 "disconnecting (one died or aborted); aborting the job", dmpi_rt.world_rank, watches[i].port);
        fprintf(stderr, "dmpi: %s\n", msg);
        dmpi_pmi_abort(1, msg);
        _exit(1);
    }
}

void dmpi_dyn_watch_end(void)
{
    while (nwatch > 0) drop(nwatch - 1, true);
    free(watches);
    watches = NULL;
}
