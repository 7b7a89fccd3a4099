/* Message matching: the queue of posted receives (in posting order) and the
 * queue of unexpected messages (in arrival order). Messages from one peer
 * are processed in sequence order, and each arriving message is matched
 * against the posted receives in posting order, so the non-overtaking rule
 * and wildcard receives (a wildcard posted first takes the message before a
 * later specific receive) follow from the order of processing. */
#include "p2p/p2p.h"

#include <stdlib.h>

static bool env_matches(uint32_t ctx, int src, int tag, const dmpi_env *e)
{
    return ctx == e->ctx && (src == MPI_ANY_SOURCE || src == e->src) &&
           (tag == MPI_ANY_TAG || tag == e->tag);
}

static uint32_t req_ctx(const dmpi_request *r)
{
    return r->comm->context_id + (uint32_t)r->ctx_kind;
}

dmpi_request *dmpi_match_posted(const dmpi_env *env)
{
    for (dmpi_request *r = dmpi_p2p.posted_head; r; r = r->next) {
        if (env_matches(req_ctx(r), r->peer, r->tag, env)) {
            dmpi_posted_remove(r);
            return r;
        }
    }
    return NULL;
}

void dmpi_posted_add(dmpi_request *r)
{
    r->next = NULL;
    r->prev = dmpi_p2p.posted_tail;
    if (dmpi_p2p.posted_tail) dmpi_p2p.posted_tail->next = r;
    else dmpi_p2p.posted_head = r;
    dmpi_p2p.posted_tail = r;
    r->proto_int[3] = 1; /* in the posted queue */
}

bool dmpi_posted_remove(dmpi_request *r)
{
    if (!r->proto_int[3]) return false;
    if (r->prev) r->prev->next = r->next;
    else dmpi_p2p.posted_head = r->next;
    if (r->next) r->next->prev = r->prev;
    else dmpi_p2p.posted_tail = r->prev;
    r->next = r->prev = NULL;
    r->proto_int[3] = 0;
    return true;
}

dmpi_unexp *dmpi_match_unexp(uint32_t ctx, int src, int tag, bool remove)
{
    for (dmpi_unexp *u = dmpi_p2p.ux_head; u; u = u->next) {
        if (env_matches(ctx, src, tag, &u->env)) {
            if (remove) dmpi_unexp_remove(u);
            return u;
        }
    }
    return NULL;
}

void dmpi_unexp_add(dmpi_unexp *u)
{
    u->next = NULL;
    u->prev = dmpi_p2p.ux_tail;
    if (dmpi_p2p.ux_tail) dmpi_p2p.ux_tail->next = u;
    else dmpi_p2p.ux_head = u;
    dmpi_p2p.ux_tail = u;
}

void dmpi_unexp_remove(dmpi_unexp *u)
{
    if (u->prev) u->prev->next = u->next;
    else dmpi_p2p.ux_head = u->next;
    if (u->next) u->next->prev = u->prev;
    else dmpi_p2p.ux_tail = u->prev;
    u->next = u->prev = NULL;
}
