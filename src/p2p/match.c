/* Message matching: posted receives and unexpected messages, indexed so
 * that a receive and its message find each other in one short hash
 * bucket whatever else is queued. Design and measurements:
 * docs/matching.md.
 *
 * Posted receives, each in one of four hash tables by what it names:
 *   exact[ctx, src, tag]    specific source and tag;
 *   anytag[ctx, src]        specific source, MPI_ANY_TAG;
 *   anysrc[ctx, tag]        MPI_ANY_SOURCE, specific tag;
 *   anyany[ctx]             MPI_ANY_SOURCE and MPI_ANY_TAG.
 * Each carries a posting stamp, and a bucket lists its receives in posting
 * order, so a bucket's first match is its earliest: an arriving message
 * takes the earliest of the (up to four) first matches, which is "the
 * first matching receive in posting order". A specific receive posted
 * while no wildcard receive that could take its messages is pending is
 * marked ALONE: any such wildcard is posted later, so when it is the first
 * match of its exact bucket it wins without a look at the wildcard tables
 * or a stamp comparison. Every receive on a communicator whose hints
 * mpi_assert_no_any_source and mpi_assert_no_any_tag rule wildcards out
 * (recv.c refuses them there) takes that path; so does every receive of a
 * program that has no wildcard pending on that context.
 *
 * Unexpected messages are on three lists at once, each in arrival order:
 * their exact bucket (specific receives), their (ctx, src) bucket
 * (MPI_ANY_TAG receives) and their context's bucket (MPI_ANY_SOURCE
 * receives, which filter by tag as they walk: a fourth (ctx, tag) list
 * would cost every unexpected message more than it saves the rare
 * MPI_ANY_SOURCE receive of one tag among many queued messages of
 * others). Messages from one peer are processed in sequence order, so the
 * non-overtaking rule holds on both sides.
 *
 * Hashing: the key's fields are combined linearly and the bucket is taken
 * from the top bits of a multiplication by 2^64/phi, which spreads runs of
 * consecutive tags or ranks over distinct buckets.
 *
 * Receive request fields used here while it is queued: proto_u64[0] the
 * posting stamp, proto_int[2] the context (cached: scans never follow
 * r->comm), proto_int[3] the table (Q_*), the ALONE flag and the bucket
 * index; an unexpected message keeps its three bucket indices. Removal
 * never hashes again. */
#include "p2p/p2p.h"

#include <stdlib.h>

#define LOG2_NBUCKETS 10
#define NBUCKETS (1u << LOG2_NBUCKETS)

enum { Q_NONE, Q_EXACT, Q_ANYTAG, Q_ANYSRC, Q_ANYANY, Q_MASK = 7, F_ALONE = 8, BUCKET_SHIFT = 4 };

typedef struct req_list { dmpi_request *head, *tail; } req_list;
typedef struct ux_list { dmpi_unexp *head, *tail; } ux_list;

static req_list exact[NBUCKETS], anytag[NBUCKETS], anysrc[NBUCKETS], anyany[NBUCKETS];
static req_list *const table[] = {[Q_EXACT] = exact, [Q_ANYTAG] = anytag, [Q_ANYSRC] = anysrc,
                                  [Q_ANYANY] = anyany};
static ux_list ux_exact[NBUCKETS], ux_src[NBUCKETS], ux_ctx[NBUCKETS];
static int nq[Q_ANYANY + 1]; /* receives in each table */
static int n_wild;           /* in the three wildcard tables */
#define n_exact nq[Q_EXACT]
#define n_anytag nq[Q_ANYTAG]
#define n_anysrc nq[Q_ANYSRC]
#define n_anyany nq[Q_ANYANY]
static uint64_t post_stamp;

/* ------------------------------------------------------------- hashing */
/* The key's fields side by side in 64 bits (they may overlap: only the
 * spread matters, entries are compared in full), times 2^64/phi, top bits.
 * The tables are separate, so their keys need not differ. */
static inline unsigned fib(uint64_t k)
{
    return (unsigned)((k * 0x9e3779b97f4a7c15ull) >> (64 - LOG2_NBUCKETS));
}
#define KCTX(ctx) ((uint64_t)(ctx) << 42)
#define KSRC(src) ((uint64_t)(uint32_t)(src) << 21)
#define KTAG(tag) ((uint64_t)(uint32_t)(tag))
static inline unsigned h_exact(uint32_t ctx, int src, int tag)
{
    return fib(KCTX(ctx) + KSRC(src) + KTAG(tag));
}
static inline unsigned h_src(uint32_t ctx, int src) { return fib(KCTX(ctx) + KSRC(src)); }
static inline unsigned h_tag(uint32_t ctx, int tag) { return fib(KCTX(ctx) + KTAG(tag)); }
static inline unsigned h_ctx(uint32_t ctx) { return fib(KCTX(ctx)); }

static inline uint32_t ctx_of(const dmpi_request *r) { return (uint32_t)r->proto_int[2]; }
static inline uint64_t stamp_of(const dmpi_request *r) { return r->proto_u64[0]; }

/* ------------------------------------------------------ posted receives */
/* The bucket holding r (its table and index are kept in proto_int[3]). */
static inline req_list *list_of(const dmpi_request *r)
{
    unsigned w = (unsigned)r->proto_int[3];
    return &table[w & Q_MASK][w >> BUCKET_SHIFT];
}

/* First receive of the wildcard tables that takes (ctx, src, tag), among
 * those posted before `before` (0: any), earliest first. */
static dmpi_request *first_wildcard(uint32_t ctx, int src, int tag, uint64_t before)
{
    dmpi_request *best = NULL, *r;
    if (before == 0) before = UINT64_MAX;
    if (n_anytag) {
        for (r = anytag[h_src(ctx, src)].head; r && stamp_of(r) < before; r = r->next)
            if (ctx_of(r) == ctx && r->peer == src) break;
        if (r && stamp_of(r) < before) best = r;
    }
    if (n_anysrc) {
        for (r = anysrc[h_tag(ctx, tag)].head; r && stamp_of(r) < before; r = r->next)
            if (ctx_of(r) == ctx && r->tag == tag) break;
        if (r && stamp_of(r) < before && (!best || stamp_of(r) < stamp_of(best))) best = r;
    }
    if (n_anyany) {
        for (r = anyany[h_ctx(ctx)].head; r && stamp_of(r) < before; r = r->next)
            if (ctx_of(r) == ctx) break;
        if (r && stamp_of(r) < before && (!best || stamp_of(r) < stamp_of(best))) best = r;
    }
    return best;
}

void dmpi_posted_add(dmpi_request *r)
{
    uint32_t ctx = r->comm->context_id + (uint32_t)r->ctx_kind;
    int src = r->peer, tag = r->tag;
    unsigned q, b;
    if (__builtin_expect(src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG, 1)) {
        q = Q_EXACT;
        b = h_exact(ctx, src, tag);
        if (!(n_wild && first_wildcard(ctx, src, tag, 0))) q |= F_ALONE;
    } else {
        if (src != MPI_ANY_SOURCE) {
            q = Q_ANYTAG;
            b = h_src(ctx, src);
        } else if (tag != MPI_ANY_TAG) {
            q = Q_ANYSRC;
            b = h_tag(ctx, tag);
        } else {
            q = Q_ANYANY;
            b = h_ctx(ctx);
        }
        n_wild++;
    }
    nq[q & Q_MASK]++;
    r->proto_int[2] = (int)ctx;
    r->proto_int[3] = (int)(q | b << BUCKET_SHIFT);
    r->proto_u64[0] = ++post_stamp;
    req_list *l = &table[q & Q_MASK][b];
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail) l->tail->next = r;
    else l->head = r;
    l->tail = r;
}

bool dmpi_posted_remove(dmpi_request *r)
{
    int q = r->proto_int[3] & Q_MASK;
    if (q == Q_NONE) return false;
    req_list *l = list_of(r);
    if (r->prev) r->prev->next = r->next;
    else l->head = r->next;
    if (r->next) r->next->prev = r->prev;
    else l->tail = r->prev;
    r->next = r->prev = NULL;
    r->proto_int[3] = Q_NONE;
    nq[q]--;
    if (q != Q_EXACT) n_wild--;
    return true;
}

dmpi_request *dmpi_match_posted(const dmpi_env *env)
{
    uint32_t ctx = env->ctx;
    int src = env->src, tag = env->tag;
    dmpi_request *r;
    for (r = exact[h_exact(ctx, src, tag)].head; r; r = r->next)
        if (ctx_of(r) == ctx && r->peer == src && r->tag == tag) break;
    if (n_wild && !(r && (r->proto_int[3] & F_ALONE))) {
        dmpi_request *w = first_wildcard(ctx, src, tag, r ? stamp_of(r) : 0);
        if (w) r = w;
    }
    if (r) {
        dmpi_posted_remove(r);
        dmpi_pv_add(DMPI_PV_MATCH_POSTED, 1);
    }
    return r;
}

/* Does a walk over every receive of table t find one from (ctx, src)
 * posted before `before`? -1 when it gives up after `*budget` entries. */
static int table_has_earlier(const req_list *t, uint32_t ctx, int src, uint64_t before,
                             int *budget)
{
    for (unsigned b = 0; b < NBUCKETS; b++)
        for (const dmpi_request *p = t[b].head; p; p = p->next) {
            if (--*budget < 0) return -1;
            if (ctx_of(p) == ctx && (src == MPI_ANY_SOURCE || p->peer == src) &&
                stamp_of(p) < before)
                return 1;
        }
    return 0;
}

/* Is there a receive posted before r that could take a message r could?
 * Asked before offering r's buffer to its sender (offer.c), where "true"
 * only forgoes that optimisation; so it says true for wildcard-source
 * receives (never offered) and when an MPI_ANY_TAG receive would have to
 * be compared with many specific ones. */
bool dmpi_posted_earlier_competitor(const dmpi_request *r)
{
    int q = r->proto_int[3] & Q_MASK;
    uint32_t ctx = ctx_of(r);
    uint64_t st = stamp_of(r);
    if (q != Q_EXACT && q != Q_ANYTAG) return true;
    for (const dmpi_request *p = list_of(r)->head; p && p != r; p = p->next)
        if (ctx_of(p) == ctx && p->peer == r->peer && (q == Q_ANYTAG || p->tag == r->tag))
            return true;
    if (q == Q_EXACT)
        return !(r->proto_int[3] & F_ALONE) && first_wildcard(ctx, r->peer, r->tag, st);
    /* MPI_ANY_TAG from r->peer: earlier receives of any tag compete. */
    if (n_anyany)
        for (const dmpi_request *p = anyany[h_ctx(ctx)].head; p && stamp_of(p) < st; p = p->next)
            if (ctx_of(p) == ctx) return true;
    int budget = 64;
    if (n_exact && table_has_earlier(exact, ctx, r->peer, st, &budget)) return true;
    if (n_anysrc && table_has_earlier(anysrc, ctx, MPI_ANY_SOURCE, st, &budget)) return true;
    return false;
}

/* -------------------------------------------------- unexpected messages */
dmpi_unexp *dmpi_match_unexp(uint32_t ctx, int src, int tag, bool remove)
{
    dmpi_unexp *u;
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG) {
        for (u = ux_exact[h_exact(ctx, src, tag)].head; u; u = u->enext)
            if (u->env.ctx == ctx && u->env.src == src && u->env.tag == tag) break;
    } else if (src != MPI_ANY_SOURCE) {
        for (u = ux_src[h_src(ctx, src)].head; u; u = u->bnext)
            if (u->env.ctx == ctx && u->env.src == src) break;
    } else {
        for (u = ux_ctx[h_ctx(ctx)].head; u; u = u->next)
            if (u->env.ctx == ctx && (tag == MPI_ANY_TAG || u->env.tag == tag)) break;
    }
    if (u && remove) {
        dmpi_unexp_remove(u);
        dmpi_pv_add(DMPI_PV_MATCH_UNEXP, 1);
    }
    return u;
}

/* Appends u to / unlinks u from one of its lists (link fields nx, pv);
 * an unlinked message's links are stale, never read. */
#define UX_APPEND(list, u, nx, pv)        \
    do {                                  \
        ux_list *l_ = (list);             \
        (u)->nx = NULL;                   \
        (u)->pv = l_->tail;               \
        if (l_->tail) l_->tail->nx = (u); \
        else l_->head = (u);              \
        l_->tail = (u);                   \
    } while (0)

#define UX_UNLINK(list, u, nx, pv)          \
    do {                                    \
        ux_list *l_ = (list);               \
        if ((u)->pv) (u)->pv->nx = (u)->nx; \
        else l_->head = (u)->nx;            \
        if ((u)->nx) (u)->nx->pv = (u)->pv; \
        else l_->tail = (u)->pv;            \
    } while (0)

void dmpi_unexp_add(dmpi_unexp *u)
{
    const dmpi_env *e = &u->env;
    u->bucket[0] = (uint16_t)h_exact(e->ctx, e->src, e->tag);
    u->bucket[1] = (uint16_t)h_src(e->ctx, e->src);
    u->bucket[2] = (uint16_t)h_ctx(e->ctx);
    UX_APPEND(&ux_exact[u->bucket[0]], u, enext, eprev);
    UX_APPEND(&ux_src[u->bucket[1]], u, bnext, bprev);
    UX_APPEND(&ux_ctx[u->bucket[2]], u, next, prev);
    dmpi_pv_unexp(1);
}

void dmpi_unexp_remove(dmpi_unexp *u)
{
    UX_UNLINK(&ux_exact[u->bucket[0]], u, enext, eprev);
    UX_UNLINK(&ux_src[u->bucket[1]], u, bnext, bprev);
    UX_UNLINK(&ux_ctx[u->bucket[2]], u, next, prev);
    dmpi_pv_unexp(-1);
}

/* Any queued unexpected message (MPI_Finalize drops them all: the scan
 * resumes where it last found one, so draining is linear). */
dmpi_unexp *dmpi_unexp_first(void)
{
    static unsigned from;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        unsigned b = (from + i) & (NBUCKETS - 1);
        if (ux_ctx[b].head) {
            from = b;
            return ux_ctx[b].head;
        }
    }
    return NULL;
}

/* The queued message that a sender's cancel names: from world rank peer,
 * sent by the request cookie and still waiting for the sender's answer (a
 * rendezvous RTS, a synchronous eager message, or a self send waiting for
 * its receive). A cancel is rare: the scan goes through every queue. */
dmpi_unexp *dmpi_unexp_find_sender(int peer, uint64_t cookie, const dmpi_request *self_sender)
{
    for (unsigned b = 0; b < NBUCKETS; b++)
        for (dmpi_unexp *u = ux_ctx[b].head; u; u = u->next) {
            if (u->peer != peer) continue;
            if (self_sender ? u->self_sender == self_sender
                            : u->cookie == cookie && (u->kind == DMPI_UX_RTS ||
                                                      (u->kind == DMPI_UX_EAGER && u->sync)))
                return u;
        }
    return NULL;
}
