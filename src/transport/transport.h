/* The transport interface: how the protocol layers reach another rank.
 * Every peer is served by one transport, chosen at start-up from the
 * launcher's node map (a node id per rank, published through PMI): shm for
 * ranks on this node, ofi (libfabric) for ranks on other nodes; a rank
 * talks to itself without a transport (p2p's self path).
 *
 * What the protocol sees is a packet channel per peer, in one format (the
 * 64-byte cells of ring.h: a header cell with up to 16 payload bytes, then
 * payload cells) and three steps: reserve a packet, write its payload and
 * header, publish it. For shm the channel is the shared ring itself and
 * these steps are inline here (the intra-node fast path costs one test of
 * a field that reserve reads anyway). For a network peer the out ring is a
 * private linear view of one registered send buffer; publishing sends it.
 * Arriving network packets are handed to the protocol through the deliver
 * callback; shm packets are polled from dmpi_tp.in[peer].
 *
 * Large messages: the sender describes its buffer in the RTS (expose: an
 * address, and a key where the transport needs one), the receiver pulls it
 * with read (CMA for shm, fi_read for ofi), and answers DONE, after which
 * the sender lets the buffer go (unexpose). Receiver-first offers and
 * cooperative copies use slots in shared memory and exist for shm only
 * (caps.shared_slots). */
#ifndef DMPI_TRANSPORT_H
#define DMPI_TRANSPORT_H

#include "transport/shm/ring.h"

#include <stdbool.h>
#include <stdint.h>

struct dmpi_request;

enum { DMPI_TP_SELF = 0, DMPI_TP_SHM = 1, DMPI_TP_OFI = 2 };

/* Completion of a transport read or write: the caller's context (a
 * request for point-to-point, an operation for RMA; opaque to the
 * transport), and 0 or an error description. */
typedef void (*dmpi_tp_read_done_fn)(void *ctx, int peer, const char *err);

typedef struct dmpi_tp_ops {
    const char *name;
    int kind;
    bool shared_slots;      /* offers and cooperative copies through shared memory */
    bool push_by_write;     /* offers by RTR packet: a send after a write lands after it */
    bool write_then_send;   /* a packet sent after a write is handled after the write landed */
    uint64_t eager_max;     /* larger messages go by rendezvous */
    uint64_t frag_max;      /* payload bytes per packet */
    /* Network channels (NULL for shm, which is inline): */
    dmpi_pkt *(*reserve)(int peer, uint32_t cells);
    void (*publish)(int peer, dmpi_pkt *p, uint32_t cells);
    /* Rendezvous: fill the RTS description of [buf, buf+n); the buffer stays
     * readable by the peer until unexpose. 0, or -1 (cannot expose it). */
    int (*expose)(int peer, const void *buf, uint64_t n, dmpi_rts_info *info, void **handle);
    void (*unexpose)(void *handle);
    /* Pull n bytes described by info into local (contiguous); done is
     * called from progress (or at once) when they are there. */
    void (*read)(int peer, void *ctx, void *local, uint64_t n,
                 const dmpi_rts_info *info, dmpi_tp_read_done_fn done);
    /* Push n bytes from local (contiguous) into the remote buffer that
     * info describes; done is called from progress when local may be
     * reused. A packet published after this lands after the data. */
    void (*write)(int peer, void *ctx, const void *local, uint64_t n,
                  const dmpi_rts_info *info, dmpi_tp_read_done_fn done);
    int (*progress)(void);  /* completions; returns events handled */
    int (*wait)(int ms);    /* progress, sleeping up to ms until something happens */
    /* Finalize: tell every peer this rank is done sending (after all its
     * packets); then true once every peer said so and nothing of ours is
     * in flight, so that the endpoint may close. */
    void (*arrive_finalize)(void);
    bool (*all_finalized)(void);
    void (*finalize)(void);
    /* Memory [p, p+n) is going away: forget what was registered there. */
    void (*invalidate)(const void *p, uint64_t n);
    /* A peer on another node known to have died before this rank's
     * finalize, or -1 (only when the launcher needs us to watch). */
    int (*dead_peer)(void);
} dmpi_tp_ops;

typedef struct dmpi_tp_state {
    int me, nprocs;             /* universe index and size (core/dmpi.h) */
    int job_lo, job_hi;         /* this job's processes: job_lo .. job_hi */
    bool uni_open;              /* our address is in the universe key space */
    dmpi_ring *out;             /* out[w]: packets towards world rank w */
    dmpi_ring *in;              /* in[w]: packets from w (shm peers) */
    const dmpi_tp_ops **ops;    /* ops[w]: w's transport (NULL for me) */
    int *shm_peers, nshm;       /* world ranks on this node, me excluded */
    int nnet;                   /* peers on other nodes */
    const dmpi_tp_ops *net;     /* the network transport, when nnet > 0 */
    /* Called by a network transport for each packet that arrives (the
     * packet lies in buf, linear, len bytes); set by the protocol layer. */
    void (*deliver)(int peer, void *buf, uint64_t len);
} dmpi_tp_state;

extern dmpi_tp_state dmpi_tp;
extern const dmpi_tp_ops dmpi_tp_shm_ops;

/* Chooses every peer's transport and starts them (shm when the node has
 * other ranks, ofi when other nodes do). Peers are universe indices
 * 0..nprocs; this job's are job_lo..job_lo+job_n, whose nodes node_of[w]
 * gives (node_of[w] for others is -1). 0, or -1 after printing why. */
int dmpi_tp_init(int me, int nprocs, int job_lo, int job_n, int *node_of);
/* Dynamic processes: publishes this process's network address in the
 * universe key space, opening the network transport if the job did not
 * (every member of a spawn, connect or accept calls it first). 0 or -1
 * (why in *err). */
int dmpi_tp_universe_open(char *err, int errlen);
/* Makes peer (a process of another job of the universe) reachable: its
 * published address into the network transport. wait_s: how long to wait
 * for it to be published (0: it must be there). 0, or -1 (why in *err). */
int dmpi_tp_connect(int peer, double wait_s, char *err, int errlen);
/* Makes a process of another mpiexec run reachable under alias (an index
 * of our universe that our mpiexec set aside for it): its network address
 * (hex, as dmpi_ofi_uni_name gives it), the node id we give it, and the
 * index that run gave us (which our packets to it carry). 0, or -1. */
int dmpi_tp_alias(int alias, const char *hex, int node, int as_seen, char *err, int errlen);
/* Network transport (ofi.c, ofi_io.c): open without the job-wide exchange;
 * publish our address; insert a peer's; the index a peer knows us by. */
const dmpi_tp_ops *dmpi_ofi_open_alone(int me, int nprocs, char *err, int errlen);
int dmpi_ofi_uni_name(char *hex, int cap);
int dmpi_ofi_uni_insert(int peer, const char *hex);
void dmpi_ofi_src_id(int peer, int id);
const char *dmpi_ofi_provider(void); /* the provider's name ("" when closed) */
void dmpi_tp_finalize(void);
/* Memory [p, p+n) is about to be freed (MPI_Free_mem): transports that
 * cache registrations drop those that overlap it. */
void dmpi_tp_memory_released(const void *p, uint64_t n);
/* World rank of a peer known to have died (on this node: its process is
 * gone before finalize; on the next node: its first rank's watch
 * connection was reset), or -1. */
int dmpi_tp_dead_peer(void);
/* The network transport, when built (NULL otherwise). */
const dmpi_tp_ops *dmpi_ofi_open(int me, int nprocs, const int *node_of);

static inline const dmpi_tp_ops *dmpi_tp_of(int peer) { return dmpi_tp.ops[peer]; }

static inline dmpi_pkt *dmpi_tp_reserve(int peer, uint32_t cells)
{
    dmpi_ring *r = &dmpi_tp.out[peer];
    if (__builtin_expect(r->ctl != NULL, 1)) return dmpi_ring_reserve(r, cells);
    return dmpi_tp.ops[peer]->reserve(peer, cells);
}

static inline void dmpi_tp_write_payload(int peer, dmpi_pkt *p, const void *src, uint64_t n)
{
    dmpi_ring_write_payload(&dmpi_tp.out[peer], p, src, n);
}

static inline void dmpi_tp_publish(int peer, dmpi_pkt *p, uint32_t cells)
{
    dmpi_ring *r = &dmpi_tp.out[peer];
    if (__builtin_expect(r->ctl != NULL, 1)) dmpi_ring_publish(r, p, cells);
    else dmpi_tp.ops[peer]->publish(peer, p, cells);
}

/* Payload bytes per packet towards peer. */
static inline uint64_t dmpi_tp_frag_max(int peer) { return dmpi_tp.ops[peer]->frag_max; }

#endif
