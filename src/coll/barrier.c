/* MPI_Barrier: dissemination algorithm. In round k (k = 1, 2, 4, ...) each
 * process signals rank+k and waits for rank-k; after ceil(log2 p) rounds
 * every process has heard, directly or not, from every other one. */
#include "coll/coll.h"

int dmpi_coll_barrier(dmpi_comm *c)
{
    int p = c->size, r = c->rank, tag = dmpi_coll_tag(c);
    dmpi_datatype *byte = dmpi_coll_byte();
    for (int k = 1; k < p; k <<= 1) {
        int rc = dmpi_coll_sendrecv(NULL, 0, byte, (r + k) % p, NULL, 0, byte,
                                    (r - k + p) % p, tag, c);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
