/* host_address.h: an IPv4 address of this host that another host can
 * reach, for the tests whose processes may run on different hosts
 * (dynproc_port's MPI_Comm_join socket, dynproc_where's placement report):
 * the first interface's address that is not loopback, else loopback. */
#ifndef DMPI_TEST_HOST_ADDRESS_H
#define DMPI_TEST_HOST_ADDRESS_H

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

static inline in_addr_t t_host_address(void)
{
    in_addr_t addr = htonl(INADDR_LOOPBACK);
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) return addr;
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK)) continue;
        addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        break;
    }
    freeifaddrs(list);
    return addr;
}

#endif
