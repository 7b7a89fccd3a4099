/* libFuzzer harness for the receive side of the shared-memory protocol
 * (src/p2p/recv.c: dmpi_rx_poll_peer and what it calls). It plays a
 * 2-rank job as rank 0: the fuzzer's bytes are a script of operations --
 * post a receive (exactly sized buffer, so an overflow is caught by ASan),
 * write an arbitrary packet (header cell + payload cells, every field as
 * given: type, flags, ncells, seq, ctx, tag, src, plen, len, cookie) into
 * rank 1's ring towards us at the consumer's position and poll it, poll
 * again, or post a wildcard receive that takes an unexpected message. A
 * packet the receiver must not trust ends in dmpi_protocol_error (which the
 * job would abort with); here it longjmps back and the state is reset.
 * Anything else -- a crash, an overflow, a hang -- is a bug.
 *
 * Linked with every source of the library (tests/fuzz/run_fuzz.sh builds
 * them with the same sanitizers) and -Wl,--wrap for the two exits. */
#include "p2p/p2p.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_CELLS 64 /* small: wrap-around is reached quickly */

static jmp_buf escape;

_Noreturn void __wrap_dmpi_protocol_error(int peer, const char *what);
_Noreturn void __wrap_dmpi_protocol_error(int peer, const char *what)
{
    (void)peer;
    (void)what;
    longjmp(escape, 1);
}

_Noreturn void __wrap_dmpi_abort_job(int code, const char *fmt, ...);
_Noreturn void __wrap_dmpi_abort_job(int code, const char *fmt, ...)
{
    (void)code;
    (void)fmt;
    longjmp(escape, 2);
}

static dmpi_group world_group;
static int world_ranks[2] = {0, 1};
static dmpi_ring rings[2][2]; /* [0]: out (to peer), [1]: in (from peer) */
static pid_t pids[2];

enum { MAXREQ = 64 };
static dmpi_request *reqs[MAXREQ];
static void *bufs[MAXREQ];
static int nreqs;

static void make_ring(dmpi_ring *r)
{
    size_t bytes = sizeof(dmpi_ring_ctl) + (size_t)RING_CELLS * DMPI_CELL;
    char *mem = aligned_alloc(64, bytes);
    if (!mem) abort();
    memset(mem, 0, bytes);
    r->ctl = (dmpi_ring_ctl *)(void *)mem;
    r->cells = (unsigned char *)mem + sizeof(dmpi_ring_ctl);
    r->ncells = RING_CELLS;
}

static void reset_ring(dmpi_ring *r)
{
    memset(r->ctl, 0, sizeof(dmpi_ring_ctl) + (size_t)RING_CELLS * DMPI_CELL);
    r->pos = r->tail_cache = 0;
}

static void setup_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    dmpi_rt.world_rank = 0;
    dmpi_rt.world_size = 2;
    dmpi_rt.uni_rank = 0; /* the universe is this job (core/dmpi.h) */
    dmpi_rt.uni_size = 2;
    dmpi_rt.initialized = true;
    dmpi_rt.thread_level = MPI_THREAD_SINGLE;
    dmpi_datatype_init();
    world_group = (dmpi_group){DMPI_MAGIC_GROUP, 1, 2, 0, world_ranks, true};
    dmpi_comm *c = &dmpi_comm_world_obj;
    memset(c, 0, sizeof *c);
    c->magic = DMPI_MAGIC_COMM;
    c->refcount = 1;
    c->group = &world_group;
    c->rank = 0;
    c->size = 2;
    c->builtin = true;
    c->handle = MPI_COMM_WORLD;
    c->errh = &dmpi_errh_return;
    make_ring(&rings[0][0]);
    make_ring(&rings[0][1]);
    make_ring(&rings[1][0]);
    make_ring(&rings[1][1]);
    static dmpi_ring out[2], in[2];
    dmpi_shm.rank = 0;
    dmpi_shm.size = 2;
    dmpi_shm.cma_ok = false; /* no offers, no cooperative copies */
    static const dmpi_tp_ops *ops[2] = {NULL, &dmpi_tp_shm_ops};
    static int shm_peers[1] = {1}, local_of[2] = {0, 1}, world_of[2] = {0, 1};
    dmpi_tp.me = 0;
    dmpi_tp.nprocs = 2;
    dmpi_tp.out = out;
    dmpi_tp.in = in;
    dmpi_tp.ops = ops;
    dmpi_tp.shm_peers = shm_peers;
    dmpi_tp.nshm = 1;
    dmpi_shm.local_of = local_of;
    dmpi_shm.world_of = world_of;
    pids[0] = getpid();
    pids[1] = -1; /* single-copy reads from "rank 1" fail cleanly */
    dmpi_shm.pids = pids;
    if (dmpi_p2p_init() != MPI_SUCCESS) abort();
    dmpi_p2p.coop_min = 0;
}

/* Back to a fresh job: empty rings, queues and per-peer state. */
static void reset(void)
{
    for (int i = 0; i < nreqs; i++) {
        dmpi_posted_remove(reqs[i]);
        reqs[i]->freed_by_user = false;
        dmpi_request_free(reqs[i]);
        free(bufs[i]);
    }
    nreqs = 0;
    dmpi_unexp *u;
    while ((u = dmpi_unexp_first()) != NULL) {
        dmpi_unexp_remove(u);
        free(u->data);
        free(u);
    }
    for (int p = 0; p < 2; p++) {
        memset(&dmpi_p2p.rx[p], 0, sizeof dmpi_p2p.rx[p]); /* inprog_ux was on the list */
        dmpi_tx_peer *tx = &dmpi_p2p.tx[p];
        while (tx->ctl_head) {
            dmpi_ctl_pkt *c = tx->ctl_head;
            tx->ctl_head = c->next;
            free(c);
        }
        memset(tx, 0, sizeof *tx);
        reset_ring(&rings[p][0]);
        reset_ring(&rings[p][1]);
        dmpi_tp.out[p] = rings[p][0];
        dmpi_tp.in[p] = rings[p][1];
    }
    dmpi_p2p.pending_sends = 0;
    dmpi_p2p.rts_waiting = 0;
}

static void post_recv(size_t bytes, int src, int tag)
{
    if (nreqs == MAXREQ) return;
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
    if (!r) abort();
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf) abort();
    r->buf = buf;
    r->count = (MPI_Count)bytes;
    r->dt = dmpi_dt_builtin(MPI_BYTE);
    r->peer = src;
    r->tag = tag;
    r->comm = &dmpi_comm_world_obj;
    r->ctx_kind = DMPI_CTX_P2P;
    reqs[nreqs] = r;
    bufs[nreqs++] = buf;
    dmpi_recv_start(r);
}

/* A completed receive must never claim more bytes than it holds. */
static void check_requests(void)
{
    for (int i = 0; i < nreqs; i++) {
        dmpi_request *r = reqs[i];
        if (r->complete && (uint64_t)dmpi_status_bytes(&r->status) > (uint64_t)r->count) abort();
    }
}

/* Writes a packet at the consumer's position of rank 1's ring to us: the
 * 64-byte header as given (stamp replaced so that it is published), then
 * the following cells from the input. Returns input bytes used. */
static size_t put_packet(const uint8_t *d, size_t n)
{
    dmpi_ring *in = &dmpi_tp.in[1];
    dmpi_pkt hdr;
    memset(&hdr, 0, sizeof hdr);
    memcpy((char *)&hdr + sizeof(uint64_t), d, n < DMPI_CELL - 8 ? n : DMPI_CELL - 8);
    size_t used = n < DMPI_CELL - 8 ? n : DMPI_CELL - 8;
    uint32_t extra = hdr.ncells > 1 ? hdr.ncells - 1u : 0u;
    if (extra > RING_CELLS - 1) extra = RING_CELLS - 1;
    for (uint32_t i = 0; i < extra && used < n; i++) {
        unsigned char *cell = (unsigned char *)dmpi_ring_cell(in, in->pos + 1 + i);
        size_t c = n - used < DMPI_CELL ? n - used : DMPI_CELL;
        memset(cell, 0, DMPI_CELL);
        memcpy(cell, d + used, c);
        used += c;
    }
    dmpi_pkt *p = dmpi_ring_cell(in, in->pos);
    memcpy((char *)p + sizeof(uint64_t), (char *)&hdr + sizeof(uint64_t), DMPI_CELL - 8);
    atomic_store_explicit(&p->stamp, in->pos + 1, memory_order_release);
    return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    reset();
    if (setjmp(escape) == 0) {
        size_t i = 0;
        while (i < size) {
            uint8_t op = data[i++];
            switch (op % 4) {
            case 0: /* post a receive: size (2 bytes), tag byte, source */
            case 3: { /* a wildcard receive: may take an unexpected message */
                if (size - i < 3) return 0;
                size_t bytes = (size_t)data[i] | (size_t)data[i + 1] << 8;
                int tag = data[i + 2] == 0xff ? MPI_ANY_TAG : data[i + 2];
                i += 3;
                post_recv(bytes, op % 4 == 3 || (op & 0x80) ? MPI_ANY_SOURCE : 1,
                          op % 4 == 3 ? MPI_ANY_TAG : tag);
                break;
            }
            case 1: /* a packet, then poll */
                i += put_packet(data + i, size - i);
                dmpi_rx_poll_peer(1);
                break;
            case 2:
                dmpi_rx_poll_peer(1);
                break;
            }
            check_requests();
        }
    }
    /* a protocol error ends here too: the job would have been aborted */
    return 0;
}
