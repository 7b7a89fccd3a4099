/* The libfabric transport's shared state (ofi.c opens it, ofi_io.c moves
 * packets and rendezvous reads, ofi_mr.c caches memory registrations).
 * One FI_EP_RDM endpoint per rank, one completion queue, an address vector
 * of every rank. Packets are tagged messages whose tag is the sender's
 * index as the receiver knows it (its world rank; src_id for another
 * mpiexec run's processes: so the receiver knows who sent without FI_SOURCE); matching
 * by MPI envelope stays in the protocol layer. The protocol wants each
 * peer's packets in the order they were sent, as a ring keeps them; a
 * provider may complete receives out of that order (tcp;ofi_rxm finishes a
 * large message it moves by its own rendezvous after later small ones), so
 * the tag also carries a per-peer packet sequence number and early packets
 * wait until their turn. */
#ifndef DMPI_OFI_H
#define DMPI_OFI_H

#include "transport/transport.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "transport/ofi/ofi_dl.h"

/* GCC 12 warns, wrongly, of an uninitialised value inside libfabric's own
 * inline fi_mr_reg when it is inlined here. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

/* Kinds of operations whose completions arrive on the queue. */
enum { OFI_OP_RECV = 1, OFI_OP_SEND, OFI_OP_RMA };

/* What every operation's context starts with: the provider's scratch
 * space (FI_CONTEXT) and which kind of operation it is. */
typedef struct ofi_op {
    struct fi_context ctx;
    int kind;
} ofi_op;

/* A send or a piece of a rendezvous transfer that failed because the
 * provider dropped the connection it was queued on, to be posted again
 * (ofi_io.c: simultaneous first contact between two peers). */
typedef struct ofi_retry {
    struct ofi_retry *next;  /* the queue of operations waiting to go again */
    void *op;                /* the ofi_buf (OFI_OP_SEND) or ofi_read_op (OFI_OP_RMA) */
    int kind;
    double first_failure;    /* 0 while it has not failed */
    double next_try;
    double backoff;
} ofi_retry;

/* A packet buffer (receive or send). */
typedef struct ofi_buf {
    ofi_op op;
    struct ofi_buf *next;    /* a peer's early packets, by sequence */
    uint32_t seq;
    uint64_t len;
    struct fid_mr *mr;       /* its registration (FI_MR_LOCAL) */
    void *desc;
    unsigned char *mem;
    /* a send: where to and with which tag (to post it again) */
    int peer;
    uint64_t tag;
    bool retain;             /* kept after completion until the peer has it (ofi_contact.c) */
    bool control;            /* an ACK (ofi_contact.c) */
    ofi_retry retry;
} ofi_buf;

/* Tag bits (low word, above the sender's index): a control packet (no
 * sequence number of its own), a packet the sender wants acknowledged. */
#define OFI_CTRL 0x80000000u
#define OFI_WANT_ACK 0x40000000u

/* One registered region of the cache (ofi_mr.c). */
typedef struct ofi_mr {
    struct ofi_mr *next;
    uintptr_t lo, hi;        /* page-rounded range */
    uint64_t access;
    struct fid_mr *mr;
    int refs;
    uint64_t last_use;
} ofi_mr;

typedef struct ofi_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t *addr;         /* addr[world rank] */
    int me, nprocs, nremote;
    uint64_t mr_mode;
    size_t inject_max, msg_max;
    uint64_t buf_bytes;      /* packet buffers: a header cell + frag_max */
    ofi_buf **cur;           /* cur[peer]: reserved, not yet published */
    uint32_t *tx_seq;        /* tx_seq[peer]: sequence of the next packet to it */
    uint32_t *src_id;        /* src_id[peer]: the index peer knows us by (tags) */
    uint32_t *rx_seq;        /* rx_seq[peer]: sequence of the next packet to deliver */
    /* first contact (ofi_contact.c) */
    bool *confirmed;         /* confirmed[peer]: it acknowledged every packet sent before */
    uint32_t *acked_upto;    /* packets to peer it has acknowledged */
    ofi_buf **retained;      /* retained[peer]: sent, completed, not acknowledged */
    double *resend_at, *rto; /* when they go again; the pause */
    bool *ack_due;           /* ack_due[peer]: an ACK to send it (listed in due) */
    int *due, ndue;
    int *waiting, nwaiting;  /* peers with retained packets */
    ofi_buf **queue_head, **queue_tail; /* packets waiting for room in the window */
    int *queuing, nqueuing;  /* peers with queued packets */
    long nretained, nqueued, resent;
    ofi_retry *retry_head, **retry_tail; /* operations to post again */
    long retries;            /* operations posted again, for DMPI_OFI_STATS */
    ofi_buf **early;         /* early[peer]: packets that came before their turn */
    int nrecv;               /* receive buffers kept posted */
    int nrecv_made, recv_cap; /* all receive buffers (posted, early or spare) */
    int posted;              /* receive buffers posted now */
    ofi_buf *spare;          /* receive buffers not posted, free */
    ofi_buf **recv;
    long in_flight;          /* sends and reads not completed */
    int fins;                /* peers that finished */
    int hellos;              /* HELLOs received (wire-up, ofi_contact.c) */
    bool finalizing;         /* our FINs are going out */
    bool cq_waits;           /* the completion queue has a wait object */
    int nested;              /* inside a libfabric call that waits for room */
    int held;                /* packets held back while nested (in early[]) */
    /* registration cache */
    ofi_mr *mrs;
    int nmrs;
    uint64_t mr_clock, next_key; /* hits, misses, evictions: core/pvar.h */
    uint64_t reads, writes;  /* rendezvous transfers, for DMPI_OFI_STATS */
} ofi_state;

extern ofi_state dmpi_ofi;

/* ofi_contact.c */
int dmpi_ofi_contact_init(void);
void dmpi_ofi_contact_finalize(void);
/* Before posting a packet to a peer not confirmed (a confirmed peer has
 * nothing queued: confirmation needs every packet acknowledged): true if
 * b waits in the peer's queue instead. */
bool dmpi_ofi_contact_queue(ofi_buf *b);
/* With a provider whose simultaneous connections lose packets (or
 * DMPI_OFI_WIREUP=1): connects every pair of this job's ranks on
 * different nodes at start-up, from the lower rank only; true if it did
 * (every rank then waits in a barrier before sending anything else). */
bool dmpi_ofi_contact_wireup(const int *node_of);
/* At a send's completion: true if b is kept for the peer's ACK. */
bool dmpi_ofi_contact_keep(ofi_buf *b);
void dmpi_ofi_contact_ack(int peer, uint32_t upto);
/* A packet of peer that wants an acknowledgement arrived. */
void dmpi_ofi_contact_received(int peer);
/* ACKs due, resends whose time has come and queued packets that may go
 * (never while nested). */
void dmpi_ofi_contact_tick(void);

/* ofi_io.c */
ofi_buf *dmpi_ofi_get_send_buf(void);
void dmpi_ofi_put_send_buf(ofi_buf *b);
ssize_t dmpi_ofi_post_send(ofi_buf *b);
bool dmpi_ofi_again(ssize_t rc, const char *what);
int dmpi_ofi_io_init(void);
void dmpi_ofi_io_finalize(void);
dmpi_pkt *dmpi_ofi_reserve(int peer, uint32_t cells);
void dmpi_ofi_publish(int peer, dmpi_pkt *p, uint32_t cells);
void dmpi_ofi_read(int peer, void *ctx, void *local, uint64_t n,
                   const dmpi_rts_info *info, dmpi_tp_read_done_fn done);
void dmpi_ofi_write(int peer, void *ctx, const void *local, uint64_t n,
                    const dmpi_rts_info *info, dmpi_tp_read_done_fn done);
int dmpi_ofi_progress(void);
int dmpi_ofi_wait(int ms);
void dmpi_ofi_arrive_finalize(void);
void dmpi_ofi_send_hello(int peer);
bool dmpi_ofi_all_finalized(void);
/* ofi_watch.c: the first rank of each node watches the next node's */
void dmpi_ofi_watch_publish(int me, const int *node_of); /* before a fence */
void dmpi_ofi_watch_connect(int me, int nprocs, const int *node_of); /* after it */
int dmpi_ofi_watch_dead(void); /* the watched rank, when it died; -1 */
void dmpi_ofi_watch_close(void);
/* Ends the job: a libfabric call failed. */
_Noreturn void dmpi_ofi_fail(const char *what, int rc);

/* ofi_mr.c: a registration of [p, p+n) with at least `access`, from the
 * cache (counted as a hit) or new (a miss); release when done with it. */
ofi_mr *dmpi_ofi_mr_get(const void *p, uint64_t n, uint64_t access);
void dmpi_ofi_mr_put(ofi_mr *m);
/* Drops cached registrations that overlap [p, p+n) (memory going away). */
void dmpi_ofi_mr_invalidate(const void *p, uint64_t n);
void dmpi_ofi_mr_finalize(void);
int dmpi_ofi_expose(int peer, const void *buf, uint64_t n, dmpi_rts_info *info, void **handle);
void dmpi_ofi_unexpose(void *handle);

#endif
