/* Message matching: posted receives and unexpected messages, indexed so
 * the common case (a specific source) never scans other peers' entries.
 *
 * Posted receives with a specific source live in a hash bucket keyed by
 * (context, source); MPI_ANY_SOURCE receives live in one wildcard list.
 * Every posted receive carries a posting stamp: an arriving message takes
 * the earliest-posted of the first match in its bucket and the first match
 * in the wildcard list, which is exactly "the first matching receive in
 * posting order". Unexpected messages are on one list in arrival order
 * (for MPI_ANY_SOURCE receives) and also on their (context, source)
 * bucket's list (for specific receives). Messages from one peer are
 * processed in sequence order, so the non-overtaking rule holds, and a
 * wildcard posted first takes a message before a later specific receive. */
#include "p2p/p2p.h"

#include <stdlib.h>

#define NBUCKETS 256

typedef struct req_list { dmpi_request *head, *tail; } req_list;
typedef struct ux_list { dmpi_unexp *head, *tail; } ux_list;

static req_list posted[NBUCKETS], posted_wild;
static ux_list ux_bucket[NBUCKETS], ux_all;
static uint64_t post_stamp;

static unsigned bucket(uint32_t ctx, int src)
{
    uint32_t h = ctx * 0x9e3779b1u ^ (uint32_t)src * 0x85ebca6bu;
    return (h ^ (h >> 15)) & (NBUCKETS - 1);
}

static bool env_matches(uint32_t ctx, int src, int tag, const dmpi_env *e)
{
    return ctx == e->ctx && (src == MPI_ANY_SOURCE || src == e->src) &&
           (tag == MPI_ANY_TAG || tag == e->tag);
}

static uint32_t req_ctx(const dmpi_request *r)
{
    return r->comm->context_id + (uint32_t)r->ctx_kind;
}

static req_list *list_of(const dmpi_request *r)
{
    return r->peer == MPI_ANY_SOURCE ? &posted_wild : &posted[bucket(req_ctx(r), r->peer)];
}

static dmpi_request *first_match(const req_list *l, const dmpi_env *env)
{
    for (dmpi_request *r = l->head; r; r = r->next)
        if (env_matches(req_ctx(r), r->peer, r->tag, env)) return r;
    return NULL;
}

dmpi_request *dmpi_match_posted(const dmpi_env *env)
{
    dmpi_request *s = first_match(&posted[bucket(env->ctx, env->src)], env);
    dmpi_request *w = posted_wild.head ? first_match(&posted_wild, env) : NULL;
    dmpi_request *r = !w ? s : !s ? w : (s->proto_u64[0] < w->proto_u64[0] ? s : w);
    if (r) dmpi_posted_remove(r);
    return r;
}

void dmpi_posted_add(dmpi_request *r)
{
    req_list *l = list_of(r);
    r->proto_u64[0] = ++post_stamp;
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail) l->tail->next = r;
    else l->head = r;
    l->tail = r;
    r->proto_int[3] = 1; /* in a posted queue */
}

bool dmpi_posted_remove(dmpi_request *r)
{
    if (!r->proto_int[3]) return false;
    req_list *l = list_of(r);
    if (r->prev) r->prev->next = r->next;
    else l->head = r->next;
    if (r->next) r->next->prev = r->prev;
    else l->tail = r->prev;
    r->next = r->prev = NULL;
    r->proto_int[3] = 0;
    return true;
}

/* Is there a receive posted before r that could take a message r could? */
bool dmpi_posted_earlier_competitor(const dmpi_request *r)
{
    uint32_t ctx = req_ctx(r);
    for (const dmpi_request *q = list_of(r)->head; q && q != r; q = q->next)
        if (req_ctx(q) == ctx && q->peer == r->peer &&
            (q->tag == MPI_ANY_TAG || r->tag == MPI_ANY_TAG || q->tag == r->tag))
            return true;
    for (const dmpi_request *q = posted_wild.head; q && q->proto_u64[0] < r->proto_u64[0];
         q = q->next)
        if (req_ctx(q) == ctx &&
            (q->tag == MPI_ANY_TAG || r->tag == MPI_ANY_TAG || q->tag == r->tag))
            return true;
    return false;
}

dmpi_unexp *dmpi_match_unexp(uint32_t ctx, int src, int tag, bool remove)
{
    dmpi_unexp *u;
    if (src == MPI_ANY_SOURCE) {
        for (u = ux_all.head; u; u = u->next)
            if (env_matches(ctx, src, tag, &u->env)) break;
    } else {
        for (u = ux_bucket[bucket(ctx, src)].head; u; u = u->bnext)
            if (env_matches(ctx, src, tag, &u->env)) break;
    }
    if (u && remove) dmpi_unexp_remove(u);
    return u;
}

void dmpi_unexp_add(dmpi_unexp *u)
{
    u->next = NULL;
    u->prev = ux_all.tail;
    if (ux_all.tail) ux_all.tail->next = u;
    else ux_all.head = u;
    ux_all.tail = u;
    ux_list *b = &ux_bucket[bucket(u->env.ctx, u->env.src)];
    u->bnext = NULL;
    u->bprev = b->tail;
    if (b->tail) b->tail->bnext = u;
    else b->head = u;
    b->tail = u;
}

void dmpi_unexp_remove(dmpi_unexp *u)
{
    if (u->prev) u->prev->next = u->next;
    else ux_all.head = u->next;
    if (u->next) u->next->prev = u->prev;
    else ux_all.tail = u->prev;
    ux_list *b = &ux_bucket[bucket(u->env.ctx, u->env.src)];
    if (u->bprev) u->bprev->bnext = u->bnext;
    else b->head = u->bnext;
    if (u->bnext) u->bnext->bprev = u->bprev;
    else b->tail = u->bprev;
    u->next = u->prev = u->bnext = u->bprev = NULL;
}

dmpi_unexp *dmpi_unexp_first(void)
{
    return ux_all.head;
}
