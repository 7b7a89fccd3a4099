/* Noticing a rank that died on another node, for launchers that do not end
 * a job when one of its processes dies (Slurm without KillOnBadExit: the
 * other ranks would wait for it for ever). On one node the ranks watch each
 * other's pids (shm.c); a rank alone on its node has nobody there, so the
 * first rank of every node also holds a TCP connection to the first rank
 * of the next node (a ring of nodes). The listening side never accepts and
 * nothing is ever sent: the kernel completes the connection, and resets it
 * when the listener's process exits, whatever killed it. Before this rank
 * reaches MPI_Finalize the watched rank cannot have finished (it waits for
 * our FIN), so a reset means it died; from finalize on we stop looking.
 * libfabric has no such signal: a send to a dead peer over tcp;ofi_rxm
 * neither completes nor fails (100 s tried). Any failure to set the
 * connection up (a firewall, no IP address) only turns the watch off. */
#include "transport/ofi/ofi.h"

#include "pmi/pmi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct {
    int listen_fd, fd, peer;
} watch = {-1, -1, -1};

/* The address to listen on: the endpoint's own when it is an IP one (the
 * tcp provider, on the interface it chose), else the first non-loopback
 * IPv4 interface that is up. */
static int local_address(struct sockaddr_storage *ss, socklen_t *len)
{
    const struct fi_info *i = dmpi_ofi.info;
    if (i && i->src_addr && i->src_addrlen <= sizeof *ss &&
        (i->addr_format == FI_SOCKADDR_IN || i->addr_format == FI_SOCKADDR_IN6 ||
         i->addr_format == FI_SOCKADDR)) {
        memcpy(ss, i->src_addr, i->src_addrlen);
        if (ss->ss_family == AF_INET || ss->ss_family == AF_INET6) {
            *len = (socklen_t)i->src_addrlen;
            if (ss->ss_family == AF_INET) ((struct sockaddr_in *)ss)->sin_port = 0;
            else ((struct sockaddr_in6 *)ss)->sin6_port = 0;
            return 0;
        }
    }
    struct ifaddrs *all, *a;
    if (getifaddrs(&all) != 0) return -1;
    int rc = -1;
    for (a = all; a && rc != 0; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK) ||
            !(a->ifa_flags & IFF_UP))
            continue;
        memset(ss, 0, sizeof *ss);
        memcpy(ss, a->ifa_addr, sizeof(struct sockaddr_in));
        *len = sizeof(struct sockaddr_in);
        rc = 0;
    }
    freeifaddrs(all);
    return rc;
}

/* The next node's first rank, when this rank is its node's first; -1. */
static int next_leader(int me, int nprocs, const int *node_of)
{
    for (int w = 0; w < me; w++)
        if (node_of[w] == node_of[me]) return -1;
    int first_other = -1;
    for (int w = 0; w < nprocs; w++) {
        bool first = true;
        for (int v = 0; v < w && first; v++) first = node_of[v] != node_of[w];
        if (!first || node_of[w] == node_of[me]) continue;
        if (first_other < 0) first_other = w;
        if (w > me) return w;
    }
    return first_other;
}

void dmpi_ofi_watch_publish(int me, const int *node_of)
{
    bool leader = true;
    for (int w = 0; w < me && leader; w++) leader = node_of[w] != node_of[me];
    if (!leader || !dmpi_pmi_peer_watch()) return;
    struct sockaddr_storage ss;
    socklen_t len;
    if (local_address(&ss, &len) != 0) return;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    char host[INET6_ADDRSTRLEN], val[INET6_ADDRSTRLEN + 16], key[32];
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        close(fd);
        return;
    }
    int port = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                       : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    const void *ip = ss.ss_family == AF_INET ? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
                                             : (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
    inet_ntop(ss.ss_family, ip, host, sizeof host);
    snprintf(val, sizeof val, "%s %d", host, port);
    snprintf(key, sizeof key, "dmpi-watch-%d", me);
    if (dmpi_pmi_put(key, val) != 0) {
        close(fd);
        return;
    }
    watch.listen_fd = fd;
}

/* Connects (non-blocking, at most 2 s) to the next node's first rank. */
void dmpi_ofi_watch_connect(int me, int nprocs, const int *node_of)
{
    int peer = watch.listen_fd >= 0 ? next_leader(me, nprocs, node_of) : -1;
    char key[32], val[INET6_ADDRSTRLEN + 16], host[INET6_ADDRSTRLEN];
    int port;
    snprintf(key, sizeof key, "dmpi-watch-%d", peer);
    if (peer < 0 || dmpi_pmi_get(peer, key, val, sizeof val) != 0 || sscanf(val, "%45s %d", host, &port) != 2)
        return;
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
        ss.ss_family = AF_INET;
        ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
        len = sizeof(struct sockaddr_in);
    } else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
        ss.ss_family = AF_INET6;
        ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
        len = sizeof(struct sockaddr_in6);
    } else {
        return;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return;
    int rc = connect(fd, (struct sockaddr *)&ss, len);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd p = {fd, POLLOUT, 0};
        int err = 0;
        socklen_t el = sizeof err;
        rc = poll(&p, 1, 2000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0 ? 0 : -1;
    }
    if (rc != 0) {
        close(fd);
        return;
    }
    watch.fd = fd;
    watch.peer = peer;
}

int dmpi_ofi_watch_dead(void)
{
    if (watch.fd < 0 || dmpi_ofi.finalizing) return -1;
    struct pollfd p = {watch.fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) != 1) return -1;
    char c;
    ssize_t n = recv(watch.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) return -1; /* nobody sends: not expected */
    return watch.peer;
}

void dmpi_ofi_watch_close(void)
{
    if (watch.fd >= 0) close(watch.fd);
    if (watch.listen_fd >= 0) close(watch.listen_fd);
    watch.fd = watch.listen_fd = watch.peer = -1;
}
