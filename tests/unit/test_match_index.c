/* Randomised unit test of the indexed matching engine (src/p2p/match.c)
 * against a reference model that keeps plain lists: receives in posting
 * order, unexpected messages in arrival order. Random posts (specific or
 * wildcard source and tag, two contexts), arrivals and cancels; after
 * every step the engine must pick exactly the receive or message the
 * reference picks. Also checks dmpi_posted_earlier_competitor: it may
 * answer "true" conservatively, but never "false" when an earlier pending
 * receive competes, and for specific receives it must be exact. */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c, ...)                                         \
    do {                                                      \
        if (!(c) && failures++ < 20) {                        \
            fprintf(stderr, "FAIL line %d: ", __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                     \
            fprintf(stderr, "\n");                            \
        }                                                     \
    } while (0)

enum { MAXQ = 4096 };
static dmpi_comm comms[2];
static dmpi_request *posted[MAXQ]; /* reference: posting order */
static int nposted;
static dmpi_unexp *unexp[MAXQ];    /* reference: arrival order */
static int nunexp;

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static uint32_t ctx_of(const dmpi_request *r) { return r->comm->context_id; }

static bool takes(const dmpi_request *r, uint32_t ctx, int src, int tag)
{
    return ctx_of(r) == ctx && (r->peer == MPI_ANY_SOURCE || r->peer == src) &&
           (r->tag == MPI_ANY_TAG || r->tag == tag);
}

static int pick_src(void) { return rnd(5) == 0 ? MPI_ANY_SOURCE : (int)rnd(4); }
static int pick_tag(void) { return rnd(5) == 0 ? MPI_ANY_TAG : (int)rnd(4); }

static void drop_posted(int i)
{
    for (; i + 1 < nposted; i++) posted[i] = posted[i + 1];
    nposted--;
}

static void drop_unexp(int i)
{
    for (; i + 1 < nunexp; i++) unexp[i] = unexp[i + 1];
    nunexp--;
}

/* A receive is posted: it first looks at the unexpected messages. */
static void step_post(void)
{
    dmpi_comm *c = &comms[rnd(2)];
    int src = pick_src(), tag = pick_tag();
    int want = -1;
    for (int i = 0; i < nunexp && want < 0; i++) {
        const dmpi_env *e = &unexp[i]->env;
        if (e->ctx == c->context_id && (src == MPI_ANY_SOURCE || src == e->src) &&
            (tag == MPI_ANY_TAG || tag == e->tag))
            want = i;
    }
    dmpi_unexp *u = dmpi_match_unexp(c->context_id, src, tag, true);
    CHECK(u == (want >= 0 ? unexp[want] : NULL), "receive (%u, %d, %d) found the wrong message",
          c->context_id, src, tag);
    if (want >= 0) {
        free(unexp[want]);
        drop_unexp(want);
        return;
    }
    if (nposted == MAXQ) return;
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
    r->comm = c;
    r->peer = src;
    r->tag = tag;
    r->ctx_kind = DMPI_CTX_P2P;
    dmpi_posted_add(r);
    posted[nposted++] = r;
}

/* A message arrives: it takes the first matching receive, or waits. */
static void step_arrive(void)
{
    dmpi_comm *c = &comms[rnd(2)];
    dmpi_env env = {c->context_id, (int)rnd(4), (int)rnd(4), 0};
    int want = -1;
    for (int i = 0; i < nposted && want < 0; i++)
        if (takes(posted[i], env.ctx, env.src, env.tag)) want = i;
    dmpi_request *r = dmpi_match_posted(&env);
    CHECK(r == (want >= 0 ? posted[want] : NULL), "message (%u, %d, %d) took the wrong receive",
          env.ctx, env.src, env.tag);
    if (want >= 0) {
        dmpi_request_free(posted[want]);
        drop_posted(want);
        return;
    }
    if (nunexp == MAXQ) return;
    dmpi_unexp *u = calloc(1, sizeof *u);
    u->env = env;
    dmpi_unexp_add(u);
    unexp[nunexp++] = u;
}

static void step_cancel(void)
{
    if (!nposted) return;
    int i = (int)rnd((unsigned)nposted);
    CHECK(dmpi_posted_remove(posted[i]), "a pending receive was not queued");
    CHECK(!dmpi_posted_remove(posted[i]), "a removed receive was still queued");
    dmpi_request_free(posted[i]);
    drop_posted(i);
}

static void check_competitor(void)
{
    if (!nposted) return;
    int i = (int)rnd((unsigned)nposted);
    const dmpi_request *r = posted[i];
    bool ref = false;
    for (int j = 0; j < i && !ref; j++) {
        const dmpi_request *q = posted[j];
        ref = ctx_of(q) == ctx_of(r) &&
              (q->peer == MPI_ANY_SOURCE || r->peer == MPI_ANY_SOURCE || q->peer == r->peer) &&
              (q->tag == MPI_ANY_TAG || r->tag == MPI_ANY_TAG || q->tag == r->tag);
    }
    bool got = dmpi_posted_earlier_competitor(r);
    CHECK(got || !ref, "competitor missed for receive (%d, %d)", r->peer, r->tag);
    if (r->peer != MPI_ANY_SOURCE && r->tag != MPI_ANY_TAG)
        CHECK(got == ref, "competitor answer %d, want %d for receive (%d, %d)", got, ref,
              r->peer, r->tag);
}

int main(void)
{
    comms[0].context_id = 4;
    comms[1].context_id = 6;
    for (int round = 0; round < 3; round++) {
        /* round 0: balanced; 1: many receives pending; 2: many messages */
        for (int step = 0; step < 200000 && failures == 0; step++) {
            unsigned k = rnd(100);
            int post_share = round == 1 ? 60 : round == 2 ? 30 : 45;
            if (k < (unsigned)post_share) step_post();
            else if (k < 90) step_arrive();
            else step_cancel();
            if (step % 7 == 0) check_competitor();
        }
        while (nposted) step_cancel();
        while (nunexp) {
            dmpi_unexp *u = dmpi_match_unexp(unexp[0]->env.ctx, MPI_ANY_SOURCE, MPI_ANY_TAG, true);
            CHECK(u == unexp[0], "draining: oldest message first");
            free(unexp[0]);
            drop_unexp(0);
        }
        CHECK(dmpi_unexp_first() == NULL, "queues empty after draining");
    }
    printf("match_index: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
