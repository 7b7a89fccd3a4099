/* Shared-memory transport of one node: the segment, the per-pair rings and
 * the receiver-first offer slots (see shm.c and ring.h). */
#ifndef DMPI_SHM_H
#define DMPI_SHM_H

#include "transport/shm/ring.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Receiver-first rendezvous: a receiver that posted a large receive which
 * must match the next message from a peer offers its buffer here (one slot
 * per ordered pair, written by the receiver). A sender whose next message
 * has that sequence number and matches takes the offer (CAS OFFERED->TAKEN)
 * and writes the data straight into the receiver's buffer; the receiver
 * withdraws it with CAS OFFERED->IDLE. */
enum { DMPI_OFFER_IDLE = 0, DMPI_OFFER_OFFERED = 1, DMPI_OFFER_TAKEN = 2 };
typedef struct dmpi_offer {
    _Alignas(64) _Atomic uint32_t state;
    uint32_t seq;  /* sequence number of the message it is for */
    uint32_t ctx;
    int32_t tag;   /* or MPI_ANY_TAG */
    int32_t src;   /* sender's rank in the communicator */
    uint32_t pad;
    uint64_t addr; /* receive buffer (contiguous) */
    uint64_t cap;  /* its capacity in bytes */
} dmpi_offer;

/* Cooperative ("synergistic") copy of a large rendezvous message: the
 * receiver that matched an RTS publishes its buffer here (one slot per
 * ordered pair, written by the receiver `recv` for sender `from`); both
 * processes then claim chunks with an atomic counter and copy them with
 * process_vm_readv (receiver) or process_vm_writev (sender) at once. */
enum { DMPI_COOP_IDLE = 0, DMPI_COOP_ACTIVE = 1 };
typedef struct dmpi_coop {
    _Alignas(64) _Atomic uint32_t state;
    uint32_t seq;            /* the message's sequence number */
    uint64_t cookie;         /* the sender's request (from the RTS) */
    uint64_t dst, src;       /* receiver buffer, sender data */
    uint64_t len, chunk;
    _Alignas(64) _Atomic uint64_t next;  /* next chunk to claim */
    _Atomic uint64_t done;               /* chunks copied */
} dmpi_coop;

typedef struct dmpi_pair_ctl {
    dmpi_offer offer;
    dmpi_coop coop;
} dmpi_pair_ctl;

typedef struct dmpi_shm_state {
    void *base;
    size_t bytes;
    int rank, size;     /* this rank's index among the node's ranks, their count */
    int node;           /* the node's id (from the launcher) */
    int *local_of;      /* local_of[world rank]: index on this node, or -1 */
    int *world_of;      /* world_of[local index]: world rank */
    bool cma_ok;        /* every rank may process_vm_readv/writev the others */
    int node_cpus;      /* processors in the union of the ranks' affinity masks */
    int own_cpus;       /* processors in this rank's mask */
    int sharing;        /* ranks whose masks meet this rank's (itself included) */
    pid_t *pids;        /* pids[world rank], 0 off the node */
    dmpi_pair_ctl *pairs; /* pairs[recv * size + sender] (local indices): written by recv */
} dmpi_shm_state;

extern dmpi_shm_state dmpi_shm;

/* Maps the node's segment (ranks world_of[0..size), this one world_of[rank])
 * and sets up the rings into dmpi_tp.out/in of the node's world ranks.
 * Every rank of the job calls it (its PMI barriers are global). */
int dmpi_shm_init(int rank, int size, const int *world_of, int node);
/* One copy from (from_peer) or to the address `remote` of world rank
 * `peer` (copy.c): a memcpy where it lies in the shared heap, else CMA. */
void dmpi_copy_with_peer(bool from_peer, int peer, void *local, uint64_t remote, uint64_t n);
void dmpi_shm_finalize(void);
/* Finalize rendezvous: count this rank in; true once every rank is in. */
void dmpi_shm_arrive_finalize(void);
bool dmpi_shm_all_finalized(void);
/* World rank of a node peer whose process is gone before every rank of
 * the node reached finalize (it died), or -1. A few kill(pid, 0) calls. */
int dmpi_shm_dead_peer(void);

/* The slots of an ordered pair of world ranks on this node. */
static inline dmpi_pair_ctl *dmpi_shm_pair(int recv, int sender)
{
    return &dmpi_shm.pairs[(size_t)dmpi_shm.local_of[recv] * dmpi_shm.size +
                           dmpi_shm.local_of[sender]];
}

/* The offer slot through which receiver `recv` offers buffers to `sender`. */
static inline dmpi_offer *dmpi_shm_offer(int recv, int sender)
{
    return &dmpi_shm_pair(recv, sender)->offer;
}

/* The slot through which receiver `recv` shares a copy with `sender`. */
static inline dmpi_coop *dmpi_shm_coop(int recv, int sender)
{
    return &dmpi_shm_pair(recv, sender)->coop;
}

#endif
