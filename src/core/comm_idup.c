/* MPI_Comm_idup: a duplicate whose context ids are agreed without
 * blocking. The call makes the new communicator at once (same groups,
 * attributes, topology and hints copied by api/comm.c as at the time of
 * the call, MPI 4.1 sec. 7.4.2) with no context yet (DMPI_CTX_PENDING),
 * and returns a request whose poll hook runs the agreement of
 * core/context.c round by round, each AND as a schedule (coll/sched.h):
 *
 *   map:     AND of the members' free maps, then pick and claim locally;
 *   confirm: AND of the members' "claimed" flags; all claimed: done,
 *            else give the claim back and run map again.
 *
 * On an intracommunicator the ANDs are allreduces over the parent. On an
 * intercommunicator the first id must be free in both groups: an
 * allreduce over the local intracommunicator, the two ranks 0 swap and
 * AND their maps over the intercommunicator, and a broadcast in each
 * group; then a second id, for the duplicate's local intracommunicator,
 * is agreed over the local intracommunicator alone.
 *
 * Every message of one idup carries the tag(s) taken from the parent (and
 * its local intracommunicator) when MPI_Comm_idup is called, so the
 * collectives started before and after it on the parent, on every member
 * in the same order (the standard's rule), never meet its messages
 * whatever the order in which they complete. Rounds of one idup follow
 * each other on every member, so reusing its tag is safe (messages
 * between two processes with one tag match in order). */
#include "coll/coll.h"
#include "core/comm_ops.h"
#include "core/context.h"
#include "core/intercomm.h"

#include <stdlib.h>

enum { PH_MAP, PH_CONFIRM };

typedef struct idup {
    dmpi_comm *parent, *out;
    dmpi_comm *inter;   /* the parent when it is an intercommunicator */
    dmpi_comm *group;   /* where the ANDs run: parent or its local intracommunicator */
    int tag, itag;      /* on group; on inter (ranks 0 only) */
    int stage, nstages; /* context being agreed: 0 the communicator's, 1 its local one */
    int phase, pick, err, words;
    bool claimed, busy;
    uint32_t ctx[2];
    dmpi_sched *s;
    uint64_t *buf;      /* words of the map (or flag), then the other group's */
} idup;

/* Starts the AND over buf[0..n-1] for the current stage. */
static int start_and(idup *d, int n)
{
    dmpi_sched *s = dmpi_sched_new();
    if (!s) return MPI_ERR_NO_MEM;
    dmpi_datatype *u64 = dmpi_dt_builtin(MPI_UINT64_T);
    dmpi_op *band = dmpi_op_builtin(MPI_BAND);
    dmpi_coll_args a = {.coll = DMPI_COLL_ALLREDUCE, .sbuf = MPI_IN_PLACE, .rbuf = d->buf,
                        .rcount = n, .rdt = u64, .op = band};
    dmpi_sched_use(s, d->group, d->tag);
    dmpi_build_allreduce(s, d->group, &a);
    if (d->inter && d->stage == 0) { /* both groups */
        dmpi_sched_fence(s);
        if (d->group->rank == 0) {
            uint64_t *theirs = d->buf + d->words;
            dmpi_sched_use(s, d->inter, d->itag);
            dmpi_sched_send(s, d->buf, n, u64, 0);
            dmpi_sched_recv(s, theirs, n, u64, 0);
            dmpi_sched_fence(s);
            dmpi_sched_reduce(s, band, theirs, d->buf, n, u64);
            dmpi_sched_fence(s);
        }
        dmpi_sched_use(s, d->group, d->tag);
        a = (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = d->buf, .rcount = n, .rdt = u64};
        dmpi_build_bcast(s, d->group, &a);
    }
    int rc = dmpi_sched_begin(s);
    if (rc != MPI_SUCCESS) {
        dmpi_sched_free(s);
        return rc;
    }
    d->s = s;
    return MPI_SUCCESS;
}

static int start_map(idup *d)
{
    d->phase = PH_MAP;
    dmpi_context_free_map(d->buf);
    return start_and(d, d->words);
}

/* After an AND has ended: the next round, or MPI_SUCCESS with d->stage ==
 * d->nstages when every id is agreed. */
static int next_round(idup *d)
{
    if (d->phase == PH_MAP) {
        d->pick = dmpi_context_claim(d->buf, &d->claimed);
        if (d->pick < 0) return MPI_ERR_INTERN; /* every member saw the same map */
        d->phase = PH_CONFIRM;
        d->buf[0] = d->claimed;
        return start_and(d, 1);
    }
    if (d->buf[0]) {
        d->ctx[d->stage++] = (uint32_t)d->pick * 2;
        d->claimed = false;
        if (d->stage == d->nstages) return MPI_SUCCESS;
    } else if (d->claimed) {
        dmpi_context_unclaim(d->pick);
        d->claimed = false;
    }
    return start_map(d);
}

/* Advances d; true when it has ended (d->err says how). */
static bool advance(idup *d)
{
    for (;;) {
        int err;
        if (!dmpi_sched_test(d->s, &err)) return false;
        dmpi_sched_free(d->s);
        d->s = NULL;
        if (err == MPI_SUCCESS) err = next_round(d);
        if (err != MPI_SUCCESS || d->stage == d->nstages) {
            d->err = err;
            return true;
        }
    }
}

/* Gives back what an agreement that did not end well holds. */
static void drop_claims(idup *d)
{
    if (d->claimed) dmpi_context_unclaim(d->pick);
    d->claimed = false;
    for (int i = 0; i < d->stage; i++) dmpi_context_free(d->ctx[i]);
    d->stage = 0;
}

static void finish(idup *d)
{
    if (d->err != MPI_SUCCESS) {
        drop_claims(d);
        return;
    }
    d->out->context_id = d->ctx[0];
    if (d->inter) dmpi_intercomm_local(d->out)->context_id = d->ctx[1];
}

static int idup_poll(dmpi_request *r)
{
    idup *d = r->ext;
    if (d->busy) return 0;
    d->busy = true;
    bool ended = advance(d);
    d->busy = false;
    if (!ended) return 0;
    finish(d);
    r->status.MPI_ERROR = d->err;
    dmpi_request_complete(r); /* may reap r (and d) if the user freed it */
    return 1;
}

static void idup_free(idup *d)
{
    if (d->s) { /* torn down mid-run (finalize) */
        dmpi_sched_free(d->s);
        drop_claims(d);
    }
    dmpi_comm_release(d->out);
    free(d->buf);
    free(d);
}

static void idup_on_free(dmpi_request *r)
{
    idup_free(r->ext);
    r->ext = NULL;
}

int dmpi_comm_dup_shell(dmpi_comm *parent, dmpi_comm **out)
{
    *out = NULL;
    if (!parent->remote_group)
        return dmpi_comm_make(parent, parent->group, DMPI_CTX_PENDING, out);
    return dmpi_intercomm_new(parent, parent->group, parent->remote_group, DMPI_CTX_PENDING,
                              DMPI_CTX_PENDING, out);
}

int dmpi_comm_idup_start(dmpi_comm *parent, dmpi_comm *shell, dmpi_request **out)
{
    idup *d = calloc(1, sizeof *d);
    int words = dmpi_context_map_words();
    if (d) d->buf = malloc(2 * (size_t)words * sizeof *d->buf);
    dmpi_request *r = d && d->buf ? dmpi_coll_hooked_request(parent, d, idup_poll, idup_on_free)
                                  : NULL;
    if (!r) {
        if (d) free(d->buf);
        free(d);
        return MPI_ERR_NO_MEM;
    }
    d->parent = parent;
    d->out = shell;
    dmpi_comm_retain(shell); /* kept until the request is freed */
    d->words = words;
    d->inter = parent->remote_group ? parent : NULL;
    d->group = d->inter ? dmpi_intercomm_local(parent) : parent;
    d->nstages = d->inter ? 2 : 1;
    if (d->inter) d->itag = dmpi_coll_tag(d->inter);
    d->tag = dmpi_coll_tag(d->group);
    r->active = true;
    int rc = start_map(d);
    if (rc != MPI_SUCCESS) {
        dmpi_request_free(r);
        return rc;
    }
    *out = r;
    if (!idup_poll(r)) dmpi_progress_register(r);
    return MPI_SUCCESS;
}
