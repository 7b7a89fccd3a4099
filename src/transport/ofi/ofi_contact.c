/* First contact between two peers over libfabric.
 *
 * Connection-based providers connect on the first operation to a peer.
 * When two peers start at once, libfabric 1.17's TCP provider (net)
 * resolves the collision by closing connections, and a packet queued on
 * one may be lost: an injected one silently, a send with a "not connected"
 * error (ofi_io.c posts those again), and, seen with spawned jobs, a send
 * whose completion said it had left (libfabric issue 9052 describes the
 * race). Within one job it lost the FIN of two ranks on different hosts
 * that had never talked before MPI_Finalize, and even packets sent after
 * a first one had been acknowledged.
 *
 * This job's peers: with such a provider the connections are made at
 * start-up, each by the lower-ranked of the two only (wire-up: a HELLO
 * packet to every higher rank on another node, and no packet to a lower
 * one before its HELLO is in), so two connections never cross; those
 * peers start confirmed.
 *
 * Processes of other jobs (spawned, connected, joined): until such a peer
 * is confirmed,
 *  - no packet to it is injected; each one asks for an acknowledgement
 *    (tag bit OFI_WANT_ACK) and is kept after its completion (retained)
 *    instead of going back to the pool;
 *  - at most OFI_WINDOW of them are out unacknowledged; later ones wait,
 *    in order, in the peer's queue (a flood at the start never piles up
 *    thousands of kept packets to send again);
 *  - the peer answers such a packet, new or a copy it had already, with
 *    an ACK: a control packet (tag bit OFI_CTRL, no sequence number of its
 *    own) carrying the number of packets it has delivered;
 *  - an ACK frees the retained packets it covers; one covering every
 *    packet sent (none queued) confirms the peer;
 *  - retained packets go again after a pause (OFI_RTO_FIRST, doubling up
 *    to OFI_RTO_MAX) without an ACK; the receiver drops the copies it has
 *    by sequence number and answers them with an ACK.
 * A confirmed peer costs nothing more. An ACK lost is made good by the
 * next resend. MPI_Finalize waits until nothing is retained or queued. */
#include "transport/ofi/ofi.h"

#include "core/dmpi.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define OFI_RTO_FIRST 0.02
#define OFI_RTO_MAX 1.0
#define OFI_WINDOW 64

int dmpi_ofi_contact_init(void)
{
    ofi_state *o = &dmpi_ofi;
    size_t n = (size_t)o->nprocs;
    o->confirmed = calloc(n, sizeof *o->confirmed);
    o->acked_upto = calloc(n, sizeof *o->acked_upto);
    o->retained = calloc(n, sizeof *o->retained);
    o->resend_at = calloc(n, sizeof *o->resend_at);
    o->rto = calloc(n, sizeof *o->rto);
    o->ack_due = calloc(n, sizeof *o->ack_due);
    o->due = malloc(n * sizeof *o->due);
    o->waiting = malloc(n * sizeof *o->waiting);
    o->queue_head = calloc(n, sizeof *o->queue_head);
    o->queue_tail = calloc(n, sizeof *o->queue_tail);
    o->queuing = malloc(n * sizeof *o->queuing);
    if (!o->confirmed || !o->acked_upto || !o->retained || !o->resend_at || !o->rto || !o->ack_due || !o->due ||
        !o->waiting || !o->queue_head || !o->queue_tail || !o->queuing)
        return -FI_ENOMEM;
    /* This job's own peers start confirmed: their connections are made
     * at start-up (dmpi_ofi_contact_wireup) where the provider needs it,
     * and the acknowledgements would cost on every first packet. Processes
     * of other jobs (spawned, connected, joined) start unconfirmed. */
    for (int w = dmpi_tp.job_lo; w < dmpi_tp.job_hi; w++) o->confirmed[w] = true;
    o->ndue = o->nwaiting = o->nqueuing = 0;
    o->nqueued = 0;
    o->nretained = 0;
    return 0;
}

void dmpi_ofi_contact_finalize(void)
{
    ofi_state *o = &dmpi_ofi;
    /* (retained buffers are among all the send buffers, freed by ofi_io.c) */
    free(o->confirmed);
    free(o->acked_upto);
    free(o->retained);
    free(o->resend_at);
    free(o->rto);
    free(o->ack_due);
    free(o->due);
    free(o->waiting);
    free(o->queue_head);
    free(o->queue_tail);
    free(o->queuing);
}

/* The providers that speak reliable datagrams over TCP themselves: "net"
 * in libfabric 1.17, "tcp" from 1.18 (rxm has its own connection
 * handshake and is not one of them). */
static bool crossing_connections_lose(void)
{
    const char *p = dmpi_ofi.info->fabric_attr->prov_name;
    return p && (strcmp(p, "net") == 0 || strcmp(p, "tcp") == 0);
}

bool dmpi_ofi_contact_wireup(const int *node_of)
{
    ofi_state *o = &dmpi_ofi;
    if (!dmpi_knob_or(DMPI_KNOB_OFI_WIREUP, crossing_connections_lose())) return false;
    int expect = 0;
    for (int w = dmpi_tp.job_lo; w < dmpi_tp.job_hi; w++) {
        if (w == o->me || node_of[w] == node_of[o->me]) continue;
        if (w < o->me) expect++;
        else dmpi_ofi_send_hello(w);
    }
    /* Our HELLOs must have left (manual progress: the provider connects
     * and sends only while called), and the lower ranks' be in. */
    while (o->hellos < expect || o->in_flight > 0)
        if (dmpi_ofi_progress() == 0) {
            sched_yield();
            dmpi_check_launcher();
        }
    return true;
}

static uint32_t seq_of(const ofi_buf *b) { return (uint32_t)(b->tag >> 32); }

/* b's sequence number is below upto (modulo 2^32). */
static bool covered(const ofi_buf *b, uint32_t upto) { return (int32_t)(seq_of(b) - upto) < 0; }

bool dmpi_ofi_contact_keep(ofi_buf *b)
{
    ofi_state *o = &dmpi_ofi;
    int peer = b->peer;
    if (!b->retain || o->confirmed[peer] || covered(b, o->acked_upto[peer])) return false;
    b->next = o->retained[peer];
    o->retained[peer] = b;
    o->nretained++;
    if (o->rto[peer] == 0) o->rto[peer] = OFI_RTO_FIRST;
    if (o->resend_at[peer] == 0) {
        o->resend_at[peer] = dmpi_now() + o->rto[peer];
        o->waiting[o->nwaiting++] = peer;
    }
    return true;
}

/* The window is full before b: the queue holds the newest packets of a
 * peer, so every packet sequenced before b (or before the head of the
 * queue) is posted, and those not acknowledged are out. */
static bool window_full(const ofi_buf *b)
{
    return seq_of(b) - dmpi_ofi.acked_upto[b->peer] >= OFI_WINDOW;
}

/* Packets queue behind others already queued (order kept), or when the
 * window is full. */
bool dmpi_ofi_contact_queue(ofi_buf *b)
{
    ofi_state *o = &dmpi_ofi;
    int peer = b->peer;
    if (!o->queue_head[peer] && !window_full(b)) return false;
    b->next = NULL;
    if (o->queue_head[peer]) o->queue_tail[peer]->next = b;
    else {
        o->queue_head[peer] = b;
        o->queuing[o->nqueuing++] = peer;
    }
    o->queue_tail[peer] = b;
    o->nqueued++;
    return true;
}

void dmpi_ofi_contact_ack(int peer, uint32_t upto)
{
    ofi_state *o = &dmpi_ofi;
    if ((int32_t)(upto - o->acked_upto[peer]) > 0) o->acked_upto[peer] = upto;
    upto = o->acked_upto[peer];
    for (ofi_buf **pp = &o->retained[peer]; *pp;) {
        ofi_buf *b = *pp;
        if (!covered(b, upto)) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        o->nretained--;
        dmpi_ofi_put_send_buf(b);
    }
    if (upto == o->tx_seq[peer]) o->confirmed[peer] = true; /* (nothing queued either) */
}

void dmpi_ofi_contact_received(int peer)
{
    ofi_state *o = &dmpi_ofi;
    if (!o->ack_due[peer]) {
        o->ack_due[peer] = true;
        o->due[o->ndue++] = peer;
    }
}

static void post(ofi_buf *b, const char *what)
{
    b->retry.first_failure = 0;
    while (dmpi_ofi_again(dmpi_ofi_post_send(b), what))
        ;
    dmpi_ofi.in_flight++;
}

/* The ACK: sent with a completion (ofi_io.c counts it in flight), so that
 * a peer finalizing closes its endpoint only once its ACKs have left. */
static void send_ack(int peer)
{
    ofi_state *o = &dmpi_ofi;
    ofi_buf *b = dmpi_ofi_get_send_buf();
    b->peer = peer;
    b->tag = (uint64_t)o->rx_seq[peer] << 32 | o->src_id[peer] | OFI_CTRL;
    b->len = 8;
    memset(b->mem, 0, 8);
    b->retain = false;
    b->control = true;
    post(b, "sending an acknowledgement");
}

/* The queued packets of peer that the window lets go now (retained, like
 * every packet to a peer not confirmed). False while some stay queued. */
static bool send_queued(int peer)
{
    ofi_state *o = &dmpi_ofi;
    ofi_buf *b;
    while ((b = o->queue_head[peer])) {
        if (window_full(b)) return false;
        o->queue_head[peer] = b->next;
        o->nqueued--;
        post(b, "sending a queued packet");
    }
    return true;
}

/* The retained packets of peer go again. */
static void resend(int peer)
{
    ofi_state *o = &dmpi_ofi;
    ofi_buf *b = o->retained[peer];
    o->retained[peer] = NULL;
    o->resend_at[peer] = 0;
    if (o->rto[peer] < OFI_RTO_MAX) o->rto[peer] *= 2;
    while (b) {
        ofi_buf *next = b->next;
        o->nretained--;
        post(b, "sending again");
        o->resent++;
        b = next;
    }
}

void dmpi_ofi_contact_tick(void)
{
    ofi_state *o = &dmpi_ofi;
    static bool busy;
    if (busy || o->nested || (!o->ndue && !o->nwaiting && !o->nqueuing)) return;
    busy = true;
    while (o->ndue) {
        int peer = o->due[--o->ndue];
        o->ack_due[peer] = false;
        send_ack(peer);
    }
    if (o->nwaiting) {
        double now = dmpi_now();
        for (int i = 0; i < o->nwaiting;) {
            int peer = o->waiting[i];
            if (o->retained[peer] && now < o->resend_at[peer]) {
                i++;
                continue;
            }
            o->waiting[i] = o->waiting[--o->nwaiting];
            if (o->retained[peer]) resend(peer);
            else o->resend_at[peer] = 0;
        }
    }
    for (int i = 0; i < o->nqueuing;) {
        if (send_queued(o->queuing[i])) o->queuing[i] = o->queuing[--o->nqueuing];
        else i++;
    }
    busy = false;
}
