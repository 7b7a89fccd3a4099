/* Built instead of the libfabric transport when libfabric was not found
 * at build time: single-node jobs run as ever; a job whose ranks the
 * launcher placed on several hosts stops at start-up with this message. */
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
