/* Built instead of the libfabric transport when libfabric was not found
 * at build time: single-node jobs run as ever; a job whose ranks the
 * launcher placed on several hosts stops at start-up with this message,
 * and dynamic processes (which reach other jobs over libfabric) fail. */
#include "transport/transport.h"

#include <stdio.h>

const dmpi_tp_ops *dmpi_ofi_open(int me, int nprocs, const int *node_of)
{
    (void)nprocs;
    (void)node_of;
    fprintf(stderr,
            "dmpi: rank %d: this job spans several hosts, but this dmpi was built without "
            "libfabric support (install libfabric-dev and rebuild)\n",
            me);
    return NULL;
}

/* Dynamic processes reach other jobs through libfabric: without it they fail. */
const dmpi_tp_ops *dmpi_ofi_open_alone(int me, int nprocs, char *err, int errlen)
{
    (void)me;
    (void)nprocs;
    snprintf(err, (size_t)errlen, "this dmpi was built without libfabric, which carries the traffic "
             "between jobs (install libfabric-dev and rebuild)");
    return NULL;
}

int dmpi_ofi_uni_name(char *hex, int cap)
{
    (void)hex;
    (void)cap;
    return -1;
}

int dmpi_ofi_uni_insert(int peer, const char *hex)
{
    (void)peer;
    (void)hex;
    return -1;
}

void dmpi_ofi_src_id(int peer, int id)
{
    (void)peer;
    (void)id;
}

const char *dmpi_ofi_provider(void) { return ""; }
