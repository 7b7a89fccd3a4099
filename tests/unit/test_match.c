/* Unit test of the matching engine (src/p2p/match.c): posted receives are
 * matched in posting order (a wildcard posted first wins over a later
 * specific receive), envelopes must agree on context, source and tag,
 * MPI_ANY_SOURCE / MPI_ANY_TAG match anything, unexpected messages are
 * found in arrival order, and removal keeps both queues consistent, also
 * with 100000 entries. */
#include "p2p/p2p.h"

#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c, what)                                           \
    do {                                                         \
        if (!(c)) {                                              \
            fprintf(stderr, "FAIL line %d: %s\n", __LINE__, what); \
            failures++;                                          \
        }                                                        \
    } while (0)

static dmpi_comm comm_a, comm_b;
/* posted receives need a communicator with a context id */

static dmpi_request *post(dmpi_comm *c, int src, int tag)
{
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
    r->comm = c;
    r->peer = src;
    r->tag = tag;
    r->ctx_kind = DMPI_CTX_P2P;
    dmpi_posted_add(r);
    return r;
}

static dmpi_env env(dmpi_comm *c, int src, int tag)
{
    dmpi_env e = {c->context_id, src, tag, 0};
    return e;
}

static dmpi_unexp *arrive(dmpi_comm *c, int src, int tag)
{
    dmpi_unexp *u = calloc(1, sizeof *u);
    u->env = env(c, src, tag);
    dmpi_unexp_add(u);
    return u;
}

int main(void)
{
    comm_a.context_id = 4;
    comm_b.context_id = 6;

    /* Posting order decides: wildcard first takes the message. */
    dmpi_request *w = post(&comm_a, MPI_ANY_SOURCE, 5);
    dmpi_request *s = post(&comm_a, 1, 5);
    dmpi_env e = env(&comm_a, 1, 5);
    CHECK(dmpi_match_posted(&e) == w, "earlier wildcard receive must match first");
    CHECK(dmpi_match_posted(&e) == s, "then the specific receive");
    CHECK(dmpi_match_posted(&e) == NULL, "queue empty now");

    /* A specific receive posted before a wildcard wins for its source; the
     * wildcard takes other sources. */
    s = post(&comm_a, 1, 9);
    w = post(&comm_a, MPI_ANY_SOURCE, 9);
    e = env(&comm_a, 2, 9);
    CHECK(dmpi_match_posted(&e) == w, "wildcard takes a message from another source");
    w = post(&comm_a, MPI_ANY_SOURCE, 9);
    e = env(&comm_a, 1, 9);
    CHECK(dmpi_match_posted(&e) == s, "earlier specific receive wins over a later wildcard");
    CHECK(dmpi_match_posted(&e) == w, "then the wildcard");

    /* Context, source and tag must agree. */
    dmpi_request *r1 = post(&comm_a, 2, 7);
    dmpi_request *r2 = post(&comm_b, 2, 7);
    dmpi_request *r3 = post(&comm_b, 3, MPI_ANY_TAG);
    e = env(&comm_b, 2, 7);
    CHECK(dmpi_match_posted(&e) == r2, "context selects the communicator");
    e = env(&comm_b, 3, 12345);
    CHECK(dmpi_match_posted(&e) == r3, "MPI_ANY_TAG matches any tag");
    e = env(&comm_a, 2, 8);
    CHECK(dmpi_match_posted(&e) == NULL, "tag mismatch must not match");
    e = env(&comm_a, 3, 7);
    CHECK(dmpi_match_posted(&e) == NULL, "source mismatch must not match");
    CHECK(dmpi_posted_remove(r1), "remove a posted receive (cancel)");
    CHECK(!dmpi_posted_remove(r1), "second removal reports not queued");
    e = env(&comm_a, 2, 7);
    CHECK(dmpi_match_posted(&e) == NULL, "removed receive no longer matches");

    /* Unexpected queue: arrival order, wildcards on the receive side. */
    dmpi_unexp *u1 = arrive(&comm_a, 0, 1);
    dmpi_unexp *u2 = arrive(&comm_a, 1, 1);
    dmpi_unexp *u3 = arrive(&comm_a, 0, 2);
    CHECK(dmpi_match_unexp(comm_a.context_id, MPI_ANY_SOURCE, MPI_ANY_TAG, false) == u1,
          "oldest message first");
    CHECK(dmpi_match_unexp(comm_a.context_id, 0, 2, true) == u3, "specific match skips others");
    CHECK(dmpi_match_unexp(comm_a.context_id, 1, MPI_ANY_TAG, true) == u2, "any tag from 1");
    CHECK(dmpi_match_unexp(comm_b.context_id, 0, 1, false) == NULL, "other context");
    CHECK(dmpi_match_unexp(comm_a.context_id, 0, MPI_ANY_TAG, true) == u1, "then u1");
    CHECK(dmpi_match_unexp(comm_a.context_id, MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL,
          "unexpected queue empty");
    free(u1);
    free(u2);
    free(u3);

    /* Many unexpected messages: found in order, none lost. */
    enum { N = 100000 };
    for (int i = 0; i < N; i++) arrive(&comm_a, i % 4, i);
    int ok = 1;
    for (int i = 0; i < N && ok; i++) {
        dmpi_unexp *u = dmpi_match_unexp(comm_a.context_id, i % 4, MPI_ANY_TAG, true);
        ok = u && u->env.tag == i;
        free(u);
    }
    CHECK(ok, "100000 unexpected messages come out in order");
    CHECK(dmpi_match_unexp(comm_a.context_id, MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL,
          "all consumed");

    printf("match: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
