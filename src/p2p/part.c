/* Partitioned point-to-point communication (MPI 4.1 chapter 4) on top of
 * the internal nonblocking sends and receives.
 *
 * Matching, once per pair of requests: MPI_Psend_init sends a handshake
 * (its total bytes, its partition count, a reply tag and whether it splits)
 * in the communicator's partitioned-matching context (context id +
 * DMPI_CTX_PART) with the user's tag, and MPI_Precv_init posts the receive
 * of one; the ordinary non-overtaking rule then pairs them in the order
 * they were initialized, as sec. 4.2 asks. The receiver answers with the
 * base of a range of tags, one per message of a round, that it takes from
 * its own counter: all data and replies travel in a second private context
 * (context id + DMPI_CTX_PART_DATA) under tags that only the process
 * receiving them hands out, so they never meet a user's message or another
 * pair's.
 *
 * Rounds (MPI_Start .. completion): a sender whose partitions are at least
 * DMPI_PART_SPLIT_MIN bytes (default 32 KiB) sends partition i as its own
 * message with tag base+i
 * as soon as MPI_Pready marks it (or when the reply arrives, for those
 * marked before). Smaller partitions go as one message of the whole buffer
 * once the last one is ready. bench/part_bench.c (2 ranks on one node, 8
 * partitions, 20-100 us of work before each is ready): sending as ready
 * was 5-8 % faster from 16-32 KiB partitions, 15-30 % from 64-128 KiB,
 * about equal below; with no work between partitions it lost up to half
 * below 32 KiB (8 messages instead of one) and won from 64 KiB. The
 * receiver posts the round's receives when
 * it starts (and knows the base): typed receives straight into its buffer
 * when both sides have the same partitioning, else byte ranges of its
 * packed stream (into the buffer for a contiguous type, through a staging
 * copy otherwise), so the two sides may count partitions differently.
 * MPI_Parrived maps a receive partition onto the messages that cover it.
 * Messages of round k+1 cannot overtake those of round k (same source,
 * context and tag), so rounds need no numbering.
 *
 * The request's state outlives the user's handle while internal requests
 * are in flight: a helper request registered with the progress engine
 * advances the handshake and the round and frees what is left. */
#include "p2p/part.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

enum { HS_BYTES, HS_PARTS, HS_REPLY_TAG, HS_SPLIT, HS_WORDS };
enum { NOT_READY = 0, READY = 1, SENT = 2 }; /* a sender's partition in a round */

typedef struct part_state {
    dmpi_request *user;       /* the user's request; NULL once it is freed */
    dmpi_request *helper;     /* registered with progress while work is pending */
    bool is_send, split, matched, active, posted, cancelled;
    int err;                  /* error of the round */
    int parts, peer, tag;
    MPI_Count count, bytes;   /* elements of one partition; packed bytes of all */
    dmpi_datatype *dt;
    void *buf;
    dmpi_comm *comm;
    /* matching */
    dmpi_request *hs, *reply; /* handshake and reply in flight */
    uint64_t hs_msg[HS_WORDS], reply_msg[1];
    int data_tag;             /* base tag of the round's messages */
    int peer_parts;
    MPI_Count peer_bytes;
    /* the round */
    int nmsg;                 /* messages of a round */
    dmpi_request **msg;       /* in flight per message, or NULL */
    unsigned char *flag;      /* sender: per partition NOT_READY/READY/SENT; receiver: arrived */
    int nflag, nsent, inflight;
    char *tmp;                /* receiver: staging of a non-contiguous type */
    bool direct;              /* receiver: one typed receive per partition */
} part_state;

static dmpi_datatype *u64(void) { return dmpi_dt_builtin(MPI_UINT64_T); }

/* Tags of the data context are handed out by the receiving process. */
static int alloc_tags(int n)
{
    static int next;
    if (next > 0x7fffffff - n) next = 0; /* wraps after 2^31 partitions */
    int t = next;
    next += n;
    return t;
}

static MPI_Count split_min(void)
{
    static long v = -1;
    if (v < 0) v = dmpi_knob(DMPI_KNOB_PART_SPLIT_MIN);
    return (MPI_Count)v;
}

static bool done(dmpi_request *q)
{
    return atomic_load_explicit(&q->complete, memory_order_acquire);
}

static void drop(dmpi_request **q)
{
    dmpi_request_free(*q);
    *q = NULL;
}

static void state_free(part_state *p)
{
    dmpi_dt_release(p->dt);
    dmpi_comm_release(p->comm);
    free(p->msg);
    free(p->flag);
    free(p->tmp);
    free(p);
}

static bool pending(const part_state *p) { return p->hs || p->reply || p->active || p->inflight; }

static int helper_poll(dmpi_request *h);

/* Makes sure progress advances p while it has work. */
static void kick(part_state *p)
{
    if (p->helper || !pending(p)) return;
    dmpi_request *h = dmpi_request_alloc(DMPI_REQ_COLL);
    if (!h) dmpi_abort_job(1, "dmpi: out of memory for a partitioned request");
    h->ext = p;
    h->poll = helper_poll;
    p->helper = h;
    dmpi_progress_register(h);
}

/* ------------------------------------------------------------- messages */

static void *part_addr(const part_state *p, MPI_Count i)
{
    return (char *)p->buf + i * p->count * p->dt->extent;
}

static void send_one(part_state *p, int k)
{
    MPI_Count n = p->split ? p->count : p->count * p->parts;
    int rc = dmpi_isend(part_addr(p, p->split ? k : 0), n, p->dt, p->peer, p->data_tag + k,
                        p->comm, DMPI_CTX_PART_DATA, DMPI_MODE_STD, &p->msg[k]);
    if (rc != MPI_SUCCESS) {
        p->err = rc;
        p->msg[k] = NULL;
    } else {
        p->inflight++;
    }
    p->nsent++;
}

/* Sends what is ready and not sent (the receiver is known). */
static void send_ready(part_state *p)
{
    if (!p->matched || !p->active) return;
    if (!p->split) {
        if (p->nflag == p->parts && p->nsent == 0) send_one(p, 0);
        return;
    }
    for (int i = 0; i < p->parts; i++)
        if (p->flag[i] == READY) {
            p->flag[i] = SENT;
            send_one(p, i);
        }
}

/* Bytes of the packed stream that message k of a split round carries. */
static MPI_Count msg_bytes(const part_state *p) { return p->peer_bytes / p->peer_parts; }

static void post_receives(part_state *p)
{
    dmpi_datatype *byte = dmpi_dt_builtin(MPI_BYTE);
    for (int k = 0; k < p->nmsg; k++) {
        int rc;
        if (!p->split) {
            rc = dmpi_irecv(p->buf, p->count * p->parts, p->dt, p->peer, p->data_tag, p->comm,
                            DMPI_CTX_PART_DATA, &p->msg[k]);
        } else if (p->direct) {
            rc = dmpi_irecv(part_addr(p, k), p->count, p->dt, p->peer, p->data_tag + k, p->comm,
                            DMPI_CTX_PART_DATA, &p->msg[k]);
        } else {
            MPI_Count off = k * msg_bytes(p);
            char *at = p->tmp ? p->tmp + off : (char *)p->buf + p->dt->true_lb + off;
            rc = dmpi_irecv(at, msg_bytes(p), byte, p->peer, p->data_tag + k, p->comm,
                            DMPI_CTX_PART_DATA, &p->msg[k]);
        }
        if (rc != MPI_SUCCESS) {
            p->err = rc;
            p->msg[k] = NULL;
            p->flag[k] = 1;
            p->nflag++;
        } else {
            p->inflight++;
        }
    }
    p->posted = true;
}

/* The receiver learnt its sender: reply with the tags, plan the rounds. */
static void handshake_arrived(part_state *p)
{
    p->peer_bytes = (MPI_Count)p->hs_msg[HS_BYTES];
    p->peer_parts = (int)p->hs_msg[HS_PARTS];
    p->split = p->hs_msg[HS_SPLIT] != 0;
    p->nmsg = p->split ? p->peer_parts : 1;
    p->msg = calloc((size_t)p->nmsg, sizeof *p->msg);
    p->flag = calloc((size_t)p->nmsg, 1);
    if (!p->msg || !p->flag) dmpi_abort_job(1, "dmpi: out of memory for a partitioned request");
    p->direct = p->split && p->peer_parts == p->parts && p->peer_bytes == p->bytes;
    if (p->split && !p->direct && (!p->dt->contiguous || p->peer_bytes > p->bytes) &&
        !(p->tmp = malloc((size_t)p->peer_bytes + 1)))
        dmpi_abort_job(1, "dmpi: out of memory for a partitioned request");
    p->data_tag = alloc_tags(p->nmsg);
    p->reply_msg[0] = (uint64_t)p->data_tag;
    int rc = dmpi_isend(p->reply_msg, 1, u64(), p->peer, (int)p->hs_msg[HS_REPLY_TAG], p->comm,
                        DMPI_CTX_PART_DATA, DMPI_MODE_STD, &p->reply);
    if (rc != MPI_SUCCESS) {
        p->err = rc;
        p->reply = NULL;
    }
    p->matched = true;
}

/* Notes the messages that completed (unpacking staged bytes). */
static void collect(part_state *p)
{
    if (!p->inflight) return;
    for (int k = 0; k < p->nmsg; k++) {
        dmpi_request *q = p->msg[k];
        if (!q || !done(q)) continue;
        if (q->status.MPI_ERROR != MPI_SUCCESS) p->err = q->status.MPI_ERROR;
        if (!p->is_send) {
            if (p->tmp && p->user) {
                MPI_Count off = k * msg_bytes(p), len = msg_bytes(p);
                if (off + len > p->bytes) len = off < p->bytes ? p->bytes - off : 0;
                if (len > 0)
                    dmpi_dt_unpack(p->buf, p->count * p->parts, p->dt, off, p->tmp + off, len);
            }
            p->flag[k] = 1;
            p->nflag++;
        }
        drop(&p->msg[k]);
        p->inflight--;
    }
}

static bool round_done(const part_state *p)
{
    if (p->cancelled) return true;
    /* matching failed for good (an internal send or receive could not
     * start): the round ends with that error instead of never */
    if (!p->matched && p->err != MPI_SUCCESS && !p->hs && !p->reply) return true;
    if (p->is_send) return p->nsent == p->nmsg && !p->inflight;
    return p->matched && p->posted && p->nflag == p->nmsg;
}

/* Ends an active round whose work is over: the user's request completes
 * (and may be freed then, if the user freed it while active). */
static void maybe_finish(part_state *p)
{
    if (!p->active || !round_done(p)) return;
    p->active = false;
    dmpi_request *r = p->user;
    if (!r) return;
    if (!p->is_send && !p->cancelled) {
        r->status.MPI_SOURCE = p->peer;
        r->status.MPI_TAG = p->tag;
        dmpi_status_set_bytes(&r->status, p->peer_bytes < p->bytes ? p->peer_bytes : p->bytes);
        if (p->peer_bytes > p->bytes && p->err == MPI_SUCCESS) p->err = MPI_ERR_TRUNCATE;
    }
    dmpi_status_set_cancelled(&r->status, p->cancelled);
    r->status.MPI_ERROR = p->cancelled ? MPI_SUCCESS : p->err;
    dmpi_request_complete(r);
}

static void advance(part_state *p)
{
    if (p->hs && done(p->hs)) {
        if (p->hs->status.MPI_ERROR != MPI_SUCCESS) p->err = p->hs->status.MPI_ERROR;
        else if (!p->is_send) handshake_arrived(p);
        drop(&p->hs);
    }
    if (p->reply && done(p->reply)) {
        if (p->is_send) {
            p->data_tag = (int)p->reply_msg[0];
            p->matched = true;
        }
        drop(&p->reply);
    }
    if (p->active && p->is_send) send_ready(p);
    if (p->active && !p->is_send && p->matched && !p->posted) post_receives(p);
    collect(p);
    maybe_finish(p);
}

static int helper_poll(dmpi_request *h)
{
    part_state *p = h->ext;
    advance(p);
    if (pending(p)) return 0;
    p->helper = NULL;
    atomic_store(&h->complete, 1);
    dmpi_request_free(h);
    if (!p->user) state_free(p);
    return 1;
}

/* The user's request is freed (inactive, or complete after MPI_Request_free). */
static void user_gone(dmpi_request *r)
{
    part_state *p = r->ext;
    r->ext = NULL;
    p->user = NULL;
    if (!p->helper) state_free(p);
}

/* ------------------------------------------------------------- interface */

int dmpi_part_init(bool is_send, void *buf, int partitions, MPI_Count count, dmpi_datatype *dt,
                   int peer, int tag, dmpi_comm *c, dmpi_request **out)
{
    part_state *p = calloc(1, sizeof *p);
    dmpi_request *r = p ? dmpi_request_alloc(DMPI_REQ_PART) : NULL;
    if (p && is_send) {
        p->msg = calloc((size_t)partitions, sizeof *p->msg);
        p->flag = calloc((size_t)partitions, 1);
    }
    if (!r || (is_send && (!p->msg || !p->flag))) {
        if (p) {
            free(p->msg);
            free(p->flag);
        }
        free(p);
        if (r) dmpi_request_free(r);
        return MPI_ERR_NO_MEM;
    }
    p->user = r;
    p->is_send = is_send;
    p->parts = partitions;
    p->count = count;
    p->bytes = count * partitions * dt->size;
    p->dt = dt;
    dmpi_dt_retain(dt);
    p->buf = buf;
    p->peer = peer;
    p->tag = tag;
    p->comm = c;
    dmpi_comm_retain(c);
    p->split = is_send && partitions > 1 && count * dt->size >= split_min();
    p->nmsg = p->split ? partitions : 1;

    r->persistent = true;
    dmpi_p2p_fill(r, buf, count * partitions, dt, peer, tag, c, DMPI_CTX_P2P);
    r->ext = p;
    r->on_free = user_gone;
    atomic_store(&r->complete, 1);
    *out = r;

    if (peer == MPI_PROC_NULL) {
        p->matched = true;
        return MPI_SUCCESS;
    }
    int rc;
    if (is_send) {
        int reply_tag = alloc_tags(1);
        p->hs_msg[HS_BYTES] = (uint64_t)p->bytes;
        p->hs_msg[HS_PARTS] = (uint64_t)partitions;
        p->hs_msg[HS_REPLY_TAG] = (uint64_t)reply_tag;
        p->hs_msg[HS_SPLIT] = p->split;
        rc = dmpi_isend(p->hs_msg, HS_WORDS, u64(), peer, tag, c, DMPI_CTX_PART,
                        DMPI_MODE_STD, &p->hs);
        if (rc == MPI_SUCCESS)
            rc = dmpi_irecv(p->reply_msg, 1, u64(), peer, reply_tag, c, DMPI_CTX_PART_DATA,
                            &p->reply);
    } else {
        rc = dmpi_irecv(p->hs_msg, HS_WORDS, u64(), peer, tag, c, DMPI_CTX_PART, &p->hs);
    }
    if (rc != MPI_SUCCESS) p->err = rc;
    kick(p);
    return MPI_SUCCESS;
}

int dmpi_part_start(dmpi_request *r)
{
    part_state *p = r->ext;
    r->active = true;
    atomic_store(&r->complete, 0);
    dmpi_status_empty(&r->status);
    if (p->peer == MPI_PROC_NULL) {
        if (p->is_send) memset(p->flag, NOT_READY, (size_t)p->parts);
        p->nflag = 0;
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        dmpi_request_complete(r);
        return MPI_SUCCESS;
    }
    p->active = true;
    p->posted = p->cancelled = false;
    p->nflag = p->nsent = 0;
    if (p->flag) memset(p->flag, 0, (size_t)(p->is_send ? p->parts : p->nmsg));
    advance(p);
    kick(p);
    return MPI_SUCCESS;
}

bool dmpi_part_query(const dmpi_request *r, bool *is_send, int *partitions)
{
    if (r->kind != DMPI_REQ_PART || !r->ext) return false;
    const part_state *p = r->ext;
    if (is_send) *is_send = p->is_send;
    if (partitions) *partitions = p->parts;
    return true;
}

int dmpi_part_ready(dmpi_request *r, int i)
{
    part_state *p = r->ext;
    if (p->flag[i] != NOT_READY) return MPI_ERR_ARG;
    p->flag[i] = READY;
    p->nflag++;
    if (p->peer == MPI_PROC_NULL || !p->active) return MPI_SUCCESS;
    if (p->matched) {
        if (p->split) {
            p->flag[i] = SENT;
            send_one(p, i);
        } else {
            send_ready(p);
        }
    }
    maybe_finish(p);
    kick(p);
    return MPI_SUCCESS;
}

bool dmpi_part_arrived(dmpi_request *r, int j)
{
    part_state *p = r->ext;
    if (!r->active || p->peer == MPI_PROC_NULL) return true;
    if (p->active) dmpi_progress();
    if (!p->active) return true;
    if (!p->posted) return false;
    if (!p->split || p->direct) return p->flag[p->split ? j : 0] != 0;
    MPI_Count rb = p->bytes / p->parts, sb = msg_bytes(p);
    if (rb == 0 || sb == 0) return p->nflag == p->nmsg;
    MPI_Count first = j * rb / sb, last = ((j + 1) * rb - 1) / sb;
    if (last >= p->nmsg) last = p->nmsg - 1;
    for (MPI_Count k = first; k <= last; k++)
        if (!p->flag[k]) return false;
    return true;
}

void dmpi_part_cancel(dmpi_request *r)
{
    part_state *p = r->ext;
    if (!p->active) return;
    /* nothing of the round has moved: a sender has sent nothing, a
     * receiver has posted nothing (it has not heard from its sender) */
    if (p->is_send ? p->nsent == 0 : !p->posted) {
        p->cancelled = true;
        maybe_finish(p);
    }
}
