/* The internal point-to-point operations used by the api layer and the
 * collectives: start a send or receive on a request, wait for requests. */
#include "p2p/p2p.h"

#include <stdlib.h>

void dmpi_p2p_fill(dmpi_request *r, const void *buf, MPI_Count count, dmpi_datatype *dt,
                     int peer, int tag, dmpi_comm *comm, int ctx_kind)
{
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    dmpi_dt_retain(dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    dmpi_comm_retain(comm);
    r->comm_ref = true;
    r->ctx_kind = ctx_kind;
}

static dmpi_request *new_p2p(dmpi_req_kind kind, const void *buf, MPI_Count count,
                             dmpi_datatype *dt, int peer, int tag, dmpi_comm *comm,
                             int ctx_kind)
{
    dmpi_request *r = dmpi_request_alloc(kind);
    if (r) dmpi_p2p_fill(r, buf, count, dt, peer, tag, comm, ctx_kind);
    return r;
}

int dmpi_isend(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
               dmpi_comm *comm, int ctx_kind, int mode, dmpi_request **req)
{
    dmpi_request *r = new_p2p(DMPI_REQ_SEND, buf, count, dt, dest, tag, comm, ctx_kind);
    if (!r) return MPI_ERR_NO_MEM;
    r->mode = mode;
    dmpi_send_start(r);
    *req = r;
    return MPI_SUCCESS;
}

int dmpi_irecv(void *buf, MPI_Count count, dmpi_datatype *dt, int source, int tag,
               dmpi_comm *comm, int ctx_kind, dmpi_request **req)
{
    dmpi_request *r = new_p2p(DMPI_REQ_RECV, buf, count, dt, source, tag, comm, ctx_kind);
    if (!r) return MPI_ERR_NO_MEM;
    dmpi_recv_start(r);
    *req = r;
    return MPI_SUCCESS;
}

void dmpi_wait_complete(dmpi_request *r)
{
    unsigned idle = 0;
    while (!atomic_load_explicit(&r->complete, memory_order_acquire)) {
        if (dmpi_progress()) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

int dmpi_wait(dmpi_request *r, MPI_Status *status)
{
    dmpi_wait_complete(r);
    int err = r->status.MPI_ERROR;
    if (status) *status = r->status;
    if (!r->persistent) dmpi_request_free(r);
    else r->active = false;
    return err;
}

int dmpi_waitall(int n, dmpi_request **reqs)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        int e = dmpi_wait(reqs[i], NULL);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS) err = e;
        reqs[i] = NULL;
    }
    return err;
}

int dmpi_send(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
              dmpi_comm *comm, int ctx_kind)
{
    if (dmpi_send_immediate(buf, count, dt, dest, tag, comm, ctx_kind)) return MPI_SUCCESS;
    dmpi_request *r;
    int rc = dmpi_isend(buf, count, dt, dest, tag, comm, ctx_kind, DMPI_MODE_STD, &r);
    return rc != MPI_SUCCESS ? rc : dmpi_wait(r, NULL);
}

/* The request of a blocking receive lives on the stack: nothing refers to
 * it once it is complete (the posted queue, an offer or a message in
 * pieces let go of it first), and it saves the allocation, the release and
 * the trip through the reuse queue of a heap request. */
static void start_stack_recv(dmpi_request *r, void *buf, MPI_Count count, dmpi_datatype *dt,
                             int source, int tag, dmpi_comm *comm, int ctx_kind)
{
    dmpi_request_init(r, DMPI_REQ_RECV);
    dmpi_p2p_fill(r, buf, count, dt, source, tag, comm, ctx_kind);
    dmpi_recv_start(r);
}

static int finish_stack_recv(dmpi_request *r, MPI_Status *status)
{
    dmpi_wait_complete(r);
    int err = r->status.MPI_ERROR;
    if (status) *status = r->status;
    dmpi_request_teardown(r);
    return err;
}

int dmpi_recv(void *buf, MPI_Count count, dmpi_datatype *dt, int source, int tag,
              dmpi_comm *comm, int ctx_kind, MPI_Status *status)
{
    dmpi_request r;
    start_stack_recv(&r, buf, count, dt, source, tag, comm, ctx_kind);
    return finish_stack_recv(&r, status);
}

/* The send starts first (straight into the ring when it can, else on a
 * heap request, whose address a rendezvous reply must be able to name), so
 * that a failure to start it leaves no receive posted. */
int dmpi_sendrecv(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, int dest, int stag,
                  void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, int src, int rtag,
                  dmpi_comm *comm, int ctx_kind, MPI_Status *status)
{
    dmpi_request *sr = NULL;
    if (!dmpi_send_immediate(sbuf, scount, sdt, dest, stag, comm, ctx_kind)) {
        int rc = dmpi_isend(sbuf, scount, sdt, dest, stag, comm, ctx_kind, DMPI_MODE_STD, &sr);
        if (rc != MPI_SUCCESS) return rc;
    }
    dmpi_request rr;
    start_stack_recv(&rr, rbuf, rcount, rdt, src, rtag, comm, ctx_kind);
    int e1 = sr ? dmpi_wait(sr, NULL) : MPI_SUCCESS;
    int e2 = finish_stack_recv(&rr, status);
    return e2 != MPI_SUCCESS ? e2 : e1;
}

/* A request made of a receive and a send (Isendrecv): completes when both
 * have, with the receive's status; owns an optional temporary buffer. */
typedef struct pair_ext {
    dmpi_request *recv, *send;
    void *tmp;
} pair_ext;

static int pair_poll(dmpi_request *r)
{
    pair_ext *e = r->ext;
    if (!atomic_load(&e->recv->complete) || !atomic_load(&e->send->complete)) return 0;
    r->status = e->recv->status;
    /* cancelled if either half was (MPI_Cancel of the pair cancels both) */
    if (dmpi_status_cancelled(&e->send->status)) dmpi_status_set_cancelled(&r->status, 1);
    dmpi_request_free(e->recv);
    dmpi_request_free(e->send);
    free(e->tmp);
    free(e);
    r->ext = NULL;
    dmpi_request_complete(r);
    return 1;
}

bool dmpi_pair_parts(dmpi_request *r, dmpi_request **recv, dmpi_request **send)
{
    if (r->poll != pair_poll || !r->ext) return false;
    pair_ext *e = r->ext;
    *recv = e->recv;
    *send = e->send;
    return true;
}

dmpi_request *dmpi_pair_request(dmpi_request *recv, dmpi_request *send, void *tmp)
{
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_COLL);
    pair_ext *e = malloc(sizeof *e);
    if (!r || !e) dmpi_abort_job(1, "dmpi: out of memory for a request");
    e->recv = recv;
    e->send = send;
    e->tmp = tmp;
    r->ext = e;
    r->poll = pair_poll;
    if (!pair_poll(r)) dmpi_progress_register(r);
    return r;
}
