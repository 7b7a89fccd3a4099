/* Choosing each peer's transport (see transport.h): ranks that the
 * launcher put on this node get shm, ranks on other nodes the network
 * transport (ofi), this rank none. A job that spans nodes in a build
 * without libfabric fails here with a message that says so. */
#include "transport/transport.h"
#include "transport/shm/shm.h"

#include "core/dmpi.h"

#include <stdio.h>
#include <stdlib.h>

dmpi_tp_state dmpi_tp;

/* The shm channel is inline in transport.h; its large-message primitives
 * (dmpi_copy_with_peer, the offer and coop slots) are in shm.h. */
const dmpi_tp_ops dmpi_tp_shm_ops = {
    .name = "shm",
    .kind = DMPI_TP_SHM,
    .shared_slots = true,
};

int dmpi_tp_init(int me, int nprocs, const int *node_of)
{
    dmpi_tp.me = me;
    dmpi_tp.nprocs = nprocs;
    dmpi_tp.out = calloc((size_t)nprocs, sizeof(dmpi_ring));
    dmpi_tp.in = calloc((size_t)nprocs, sizeof(dmpi_ring));
    dmpi_tp.ops = calloc((size_t)nprocs, sizeof(dmpi_tp_ops *));
    dmpi_tp.shm_peers = malloc((size_t)nprocs * sizeof(int));
    int *local = malloc((size_t)nprocs * sizeof(int));
    if (!dmpi_tp.out || !dmpi_tp.in || !dmpi_tp.ops || !dmpi_tp.shm_peers || !local) {
        fprintf(stderr, "dmpi: rank %d: out of memory choosing transports\n", me);
        free(local);
        return -1;
    }
    int nlocal = 0, my_local = 0;
    for (int w = 0; w < nprocs; w++) {
        if (node_of[w] != node_of[me]) {
            dmpi_tp.nnet++;
            continue;
        }
        if (w == me) my_local = nlocal;
        else dmpi_tp.shm_peers[dmpi_tp.nshm++] = w;
        local[nlocal++] = w;
    }
    /* Every rank takes part: the segment's set-up has global PMI fences. */
    int rc = nprocs > 1 ? dmpi_shm_init(my_local, nlocal, local, node_of[me]) : 0;
    free(local);
    if (rc != 0) return -1;
    for (int i = 0; i < dmpi_tp.nshm; i++) dmpi_tp.ops[dmpi_tp.shm_peers[i]] = &dmpi_tp_shm_ops;
    if (dmpi_tp.nnet == 0) return 0;
    dmpi_tp.net = dmpi_ofi_open(me, nprocs, node_of);
    if (!dmpi_tp.net) return -1;
    for (int w = 0; w < nprocs; w++)
        if (node_of[w] != node_of[me]) dmpi_tp.ops[w] = dmpi_tp.net;
    return 0;
}

void dmpi_tp_memory_released(const void *p, uint64_t n)
{
    if (dmpi_tp.net && dmpi_tp.net->invalidate) dmpi_tp.net->invalidate(p, n);
}

int dmpi_tp_dead_peer(void)
{
    int dead = dmpi_shm_dead_peer();
    if (dead < 0 && dmpi_tp.net && dmpi_tp.net->dead_peer) dead = dmpi_tp.net->dead_peer();
    return dead;
}

void dmpi_tp_finalize(void)
{
    if (dmpi_tp.net) dmpi_tp.net->finalize();
    dmpi_shm_finalize();
    free(dmpi_tp.out);
    free(dmpi_tp.in);
    free(dmpi_tp.ops);
    free(dmpi_tp.shm_peers);
    dmpi_tp = (dmpi_tp_state){0};
}
