/* Point-to-point protocol layer, internal interface between its parts:
 * matching (posted and unexpected queues), the send side (per-peer ordered
 * send queues, eager/rendezvous choice), the receive side (packet handling)
 * and progress. Peers are reached through the transport interface
 * (transport/transport.h): one packet channel per peer, whatever moves it. */
#ifndef DMPI_P2P_H
#define DMPI_P2P_H

#include "core/dmpi.h"
#include "core/pvar.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* An envelope of an arriving message. */
typedef struct dmpi_env {
    uint32_t ctx;
    int src;  /* sender's rank in the communicator */
    int tag;
    uint64_t len;
} dmpi_env;

/* A message that arrived before its receive was posted. */
enum { DMPI_UX_EAGER = 1, DMPI_UX_RTS, DMPI_UX_SELF };
typedef struct dmpi_unexp {
    uint32_t magic;             /* DMPI_MAGIC_MSG while owned by an MPI_Message */
    /* Links of the matching index (match.c), each list in arrival order: */
    struct dmpi_unexp *next, *prev;   /* context bucket (MPI_ANY_SOURCE) */
    struct dmpi_unexp *bnext, *bprev; /* (context, source) bucket (MPI_ANY_TAG) */
    struct dmpi_unexp *enext, *eprev; /* (context, source, tag) bucket */
    uint16_t bucket[3];               /* their indices: exact, source, context */
    dmpi_env env;
    int kind;
    int peer;                   /* world rank of the sender */
    bool sync;                  /* sender waits for an ACK at match time */
    bool complete;              /* every byte of an eager message is here */
    uint64_t received;
    unsigned char *data;        /* eager: buffered payload */
    uint64_t cookie;            /* sender's request */
    uint64_t addr;              /* rendezvous: sender's data address */
    uint64_t key;               /* rendezvous: its key (network transports) */
    uint32_t seq;               /* rendezvous: the message's sequence number */
    dmpi_request *self_sender;  /* self rendezvous: the send request */
} dmpi_unexp;

/* Per-peer receive state. */
typedef struct dmpi_rx_peer {
    uint32_t expect_seq;
    dmpi_request *inprog_req;   /* message whose fragments are arriving */
    dmpi_unexp *inprog_ux;
    dmpi_request *offer_req;    /* receive that holds the offer slot (or sent an RTR) */
    void *offer_exposed;        /* network offer: the exposed receive buffer */
    uint32_t offer_seq;         /* network offer: the message it is for */
    bool offer_cancel;          /* network offer: its receive was cancelled */
} dmpi_rx_peer;

/* A network peer's offer (RTR) for the message with sequence number seq. */
typedef struct dmpi_rtr {
    bool valid;
    uint32_t seq, ctx;
    int32_t tag, src;
    uint64_t cap;
    dmpi_rts_info info;
} dmpi_rtr;

/* Control packet waiting for ring space. */
typedef struct dmpi_ctl_pkt {
    struct dmpi_ctl_pkt *next;
    uint8_t type;
    uint64_t cookie;
} dmpi_ctl_pkt;

/* Per-peer send state. */
typedef struct dmpi_tx_peer {
    uint32_t next_seq;
    uint32_t written;           /* sequence number of the next message to be written */
    dmpi_request *head, *tail;  /* sends not fully written, in order */
    dmpi_request *rts;          /* RTS sent, waiting for DONE (linked by next/prev) */
    dmpi_ctl_pkt *ctl_head, *ctl_tail;
    dmpi_rtr rtr;               /* the peer's latest network offer */
} dmpi_tx_peer;

typedef struct dmpi_p2p_state {
    int me, nprocs;
    dmpi_rx_peer *rx;
    dmpi_tx_peer *tx;
    uint64_t eager_max;    /* larger messages use rendezvous (when CMA works) */
    uint64_t heap_eager_max; /* the same for send buffers in the shared heap */
    uint64_t frag_max;     /* payload bytes per ring packet */
    uint64_t offer_min;    /* receives this large offer their buffer */
    uint64_t self_eager_max;
    uint64_t local_max;    /* standard sends this large complete without the receiver */
    int64_t late_ns;       /* ... once they have waited this long for it (late.c) */
    uint64_t coop_min, coop_chunk; /* cooperative copy of large rendezvous messages */
    int rts_waiting;       /* RTS requests awaiting DONE, all peers */
    int pending_sends;     /* requests awaiting ring space or replies */
    dmpi_request *orphans; /* user-freed or internal requests to reap */
} dmpi_p2p_state;

extern dmpi_p2p_state dmpi_p2p;

/* Senders not held up by late receivers (late.c). A send's proto_int[3]:
 * DMPI_SEND_LOCAL (eager: copied aside if it waits for ring space too
 * long), DMPI_SEND_MOVABLE (rendezvous through a descriptor, below),
 * DMPI_SEND_MOVED (an internal request holding a moved copy). */
enum { DMPI_SEND_LOCAL = 1, DMPI_SEND_MOVABLE, DMPI_SEND_MOVED };
/* The RTS of a movable send names this, in the shared heap: the receiver
 * claims it (then reads src) unless the sender moved the data first
 * (then it reads moved, a copy the sender keeps until DONE). */
typedef struct dmpi_movable {
    _Atomic uint32_t state; /* DMPI_MV_* */
    uint64_t src, moved;
} dmpi_movable;
enum { DMPI_MV_AT_SENDER, DMPI_MV_CLAIMED, DMPI_MV_MOVED };
#define DMPI_RTS_MOVABLE (1ull << 63) /* in dmpi_rts_info.key between ranks of a node */
/* Sender: gives r (about to be queued) a descriptor; false if none. */
bool dmpi_late_movable(dmpi_request *r);
/* Sender: r no longer needs its descriptor (DONE arrived, or the data
 * went straight into the receiver's offer): frees it. */
void dmpi_late_done(dmpi_request *r);
/* Receiver: the address to read a movable message's data from. */
uint64_t dmpi_late_claim(uint64_t descriptor);
/* Progress: sends waiting too long for their receiver hand their place to
 * internal copies and complete. Returns how many did. */
int dmpi_late_scan(void);

/* Send-request wait flags (proto_int[1]). */
enum { DMPI_TXW_DATA = 1, DMPI_TXW_ACK = 2, DMPI_TXW_DONE = 4 };

int dmpi_p2p_init(void);
void dmpi_p2p_finalize(void);

/* matching (match.c): the posted-receive and unexpected-message index.
 * dmpi_match_posted takes (removes) the receive env matches first in
 * posting order; dmpi_match_unexp finds the oldest unexpected message a
 * receive (ctx, src, tag) matches, src/tag may be wildcards. A posted
 * receive's proto_u64[0], proto_int[2] and proto_int[3] belong to match.c
 * while it is queued. */
dmpi_request *dmpi_match_posted(const dmpi_env *env);
dmpi_unexp *dmpi_match_unexp(uint32_t ctx, int src, int tag, bool remove);
void dmpi_posted_add(dmpi_request *r);
bool dmpi_posted_remove(dmpi_request *r);
void dmpi_unexp_add(dmpi_unexp *u);
void dmpi_unexp_remove(dmpi_unexp *u);
dmpi_unexp *dmpi_unexp_first(void);
dmpi_unexp *dmpi_unexp_find_sender(int peer, uint64_t cookie, const dmpi_request *self_sender);
bool dmpi_posted_earlier_competitor(const dmpi_request *r);
/* Receives an unexpected message into r (removes nothing; frees u when done). */
void dmpi_recv_from_unexp(dmpi_request *r, dmpi_unexp *u);

/* receive side */
void dmpi_recv_start(dmpi_request *r);
/* Record envelope and truncation in r's status; returns bytes to deliver. */
uint64_t dmpi_recv_set_envelope(dmpi_request *r, const dmpi_env *env);
void dmpi_recv_deliver(dmpi_request *r, uint64_t off, const void *data, uint64_t n);
int dmpi_rx_poll_peer(int peer);
void dmpi_rndv_pull(dmpi_request *r, int peer, const dmpi_rts_info *info, uint64_t cookie,
                    uint32_t seq, dmpi_request *self_sender);
/* A packet from a network transport, linear in buf (len bytes). */
void dmpi_rx_packet_linear(int peer, void *buf, uint64_t len);

/* Peer w is on this node (its channel is a shared ring). */
static inline bool dmpi_p2p_on_node(int w) { return dmpi_tp.out[w].ctl != NULL; }
/* Payload bytes per packet, and the eager limit, towards peer w. */
static inline uint64_t dmpi_p2p_frag_max(int w)
{
    return dmpi_p2p_on_node(w) ? dmpi_p2p.frag_max : dmpi_tp_of(w)->frag_max;
}
/* cooperative copy (coop.c) */
bool dmpi_coop_pull(dmpi_request *r, int peer, uint64_t src, uint64_t cookie, uint32_t seq,
                    uint64_t n);
int dmpi_coop_help(void);
/* Our send whose RTS (sequence number seq) went to peer with this cookie
 * and that still waits for DONE, or NULL. */
dmpi_request *dmpi_p2p_pending_rts(int peer, uint64_t cookie, uint32_t seq);
dmpi_request *dmpi_p2p_take_rts(int peer, uint64_t cookie);
/* receiver-first offers (offer.c) */
void dmpi_offer_maybe(dmpi_request *r);
bool dmpi_offer_withdraw(int peer);          /* false if already taken */
bool dmpi_offer_withdraw_req(dmpi_request *r);
void dmpi_offer_complete(int peer, const dmpi_env *env);
bool dmpi_offer_take(dmpi_request *r, int world_peer);
/* the same by packets, for network peers (offer_net.c) */
void dmpi_offer_net(dmpi_request *r, int world_peer, uint64_t cap);
void dmpi_offer_net_release(int peer);
bool dmpi_offer_net_take(dmpi_request *r, int world_peer);
void dmpi_offer_rtr_arrived(int peer, const dmpi_pkt *p);
bool dmpi_offer_net_cancel(int peer);
void dmpi_offer_net_revoke(int peer, uint32_t seq);
void dmpi_offer_net_revoked(int peer, uint32_t seq);

/* send side */
/* A point-to-point request's buffer, envelope and context, holding
 * references on dt and comm. */
void dmpi_p2p_fill(dmpi_request *r, const void *buf, MPI_Count count, dmpi_datatype *dt,
                   int peer, int tag, dmpi_comm *comm, int ctx_kind);
void dmpi_send_start(dmpi_request *r);
bool dmpi_send_immediate(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                         dmpi_comm *comm, int ctx_kind);
void dmpi_tx_push(int peer);
void dmpi_tx_ctl(int peer, uint8_t type, uint64_t cookie);
void dmpi_send_reply(dmpi_request *sreq, int what);  /* ACK/DONE arrived */
void dmpi_self_send(dmpi_request *r, const void *data);
/* MPI_Cancel of a send (lock held): see send.c */
void dmpi_send_cancel(dmpi_request *r);
void dmpi_send_cancel_arrived(int peer, uint64_t cookie);  /* CANCEL from a sender */
void dmpi_send_cancelled(int peer, uint64_t cookie);       /* CANCELLED from the receiver */

/* requests */
dmpi_request *dmpi_pair_request(dmpi_request *recv, dmpi_request *send, void *tmp);
/* The receive and send of a pair request that has not completed yet
 * (MPI_Cancel cancels both); false for any other request. */
bool dmpi_pair_parts(dmpi_request *r, dmpi_request **recv, dmpi_request **send);
int dmpi_start_persistent(dmpi_request *r, const char *fn);
int dmpi_bsend_copy(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                    dmpi_comm *c, const char *fn);
void dmpi_request_complete(dmpi_request *r);
uint64_t dmpi_recv_capacity(const dmpi_request *r);

#endif
