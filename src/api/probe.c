/* Probing: Probe/Iprobe look for a matching unexpected message and leave
 * it queued; Mprobe/Improbe take it out of the queue into an MPI_Message,
 * which only Mrecv/Imrecv can receive. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "p2p/p2p.h"

static int check_probe(const char *fn, int source, int tag, MPI_Comm comm, dmpi_comm **cp)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, fn);
    DMPI_CHECK_SRC(c, source, fn);
    DMPI_CHECK_RECV_TAG(c, tag, fn);
    if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) { /* the info hints may refuse */
        int cls;
        const char *why = dmpi_comm_wildcard_refused(c, source, tag, &cls);
        if (why) return dmpi_error(c, cls, fn, "%s", why);
    }
    *cp = c;
    return MPI_SUCCESS;
}

static void status_of(const dmpi_unexp *u, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    dmpi_status_empty_out(status);
    status->MPI_SOURCE = u->env.src;
    status->MPI_TAG = u->env.tag;
    dmpi_status_set_bytes(status, (MPI_Count)u->env.len);
}

static void proc_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    dmpi_status_empty_out(status);
    status->MPI_SOURCE = MPI_PROC_NULL;
}

/* Looks for a match once (after one progress pass), or until found. */
static dmpi_unexp *probe(dmpi_comm *c, int source, int tag, bool block, bool remove)
{
    uint32_t ctx = c->context_id + DMPI_CTX_P2P;
    unsigned idle = 0;
    for (;;) {
        int n = dmpi_progress();
        dmpi_unexp *u = dmpi_match_unexp(ctx, source, tag, remove);
        if (u || !block) return u;
        if (n) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

static int probe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                        MPI_Message *message, MPI_Status *status)
{
    dmpi_comm *c = NULL;
    int rc = check_probe(fn, source, tag, comm, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (source == MPI_PROC_NULL) {
        if (flag) *flag = 1;
        if (message) *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    dmpi_lock();
    dmpi_unexp *u = probe(c, source, tag, flag == NULL, message != NULL);
    if (flag) *flag = u != NULL;
    if (u) {
        status_of(u, status);
        if (message) {
            u->magic = DMPI_MAGIC_MSG;
            *message = (MPI_Message)(void *)u;
        }
    } else if (message) {
        *message = MPI_MESSAGE_NULL;
    }
    dmpi_unlock();
    if (flag) dmpi_poll_result(u != NULL);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe_common("MPI_Probe", source, tag, comm, NULL, NULL, status);
}
DMPI_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
    return probe_common("MPI_Iprobe", source, tag, comm, flag, NULL, status);
}
DMPI_ALIAS(Iprobe)

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (!message) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Mprobe", "message is NULL");
    return probe_common("MPI_Mprobe", source, tag, comm, NULL, message, status);
}
DMPI_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (!flag || !message) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Improbe", "NULL argument");
    return probe_common("MPI_Improbe", source, tag, comm, flag, message, status);
}
DMPI_ALIAS(Improbe)

static int mrecv_common(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                        MPI_Message *message, MPI_Status *status, MPI_Request *req)
{
    DMPI_CHECK_INIT(fn);
    if (!message) return dmpi_error_noobj(MPI_ERR_ARG, fn, "message is NULL");
    DMPI_CHECK(NULL, count >= 0, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    dmpi_datatype *dt;
    DMPI_GET_DTYPE(dt, NULL, type, fn);
    DMPI_CHECK_BUF(NULL, buf, count, dt, fn);
    if (*message == MPI_MESSAGE_NO_PROC) { /* a receive from MPI_PROC_NULL: done at once */
        *message = MPI_MESSAGE_NULL;
        if (!req) {
            proc_null_status(status);
            return MPI_SUCCESS;
        }
        dmpi_lock(); /* the requests' free list is shared by every thread */
        dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
        if (r) {
            r->status.MPI_SOURCE = MPI_PROC_NULL;
            dmpi_request_complete(r);
        }
        dmpi_unlock();
        if (!r) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
        *req = dmpi_request_handle(r);
        return MPI_SUCCESS;
    }
    dmpi_unexp *u = (dmpi_unexp *)(void *)*message;
    if (*message == MPI_MESSAGE_NULL || (uintptr_t)(void *)*message < 0x1000 ||
        u->magic != DMPI_MAGIC_MSG)
        return dmpi_error_noobj(MPI_ERR_REQUEST, fn, "invalid message handle");
    dmpi_lock();
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_RECV);
    if (!r) {
        dmpi_unlock();
        return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    dmpi_dt_retain(dt);
    r->comm = &dmpi_comm_self_obj;  /* only used for error reporting */
    *message = MPI_MESSAGE_NULL;
    dmpi_recv_from_unexp(r, u);
    int rc = MPI_SUCCESS;
    MPI_Status st;
    if (req) *req = dmpi_request_handle(r);
    else {
        rc = dmpi_wait(r, &st);
        if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    }
    dmpi_unlock();
    if (rc == MPI_ERR_TRUNCATE) return dmpi_error_noobj(rc, fn, "message truncated: the receive buffer is too small");
    return rc;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
    return mrecv_common("MPI_Mrecv", buf, count, type, message, status, NULL);
}
DMPI_ALIAS(Mrecv)

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                 MPI_Status *status)
{
    return mrecv_common("MPI_Mrecv_c", buf, count, type, message, status, NULL);
}
DMPI_ALIAS(Mrecv_c)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Imrecv", "request is NULL");
    return mrecv_common("MPI_Imrecv", buf, count, type, message, NULL, req);
}
DMPI_ALIAS(Imrecv)

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                  MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Imrecv_c", "request is NULL");
    return mrecv_common("MPI_Imrecv_c", buf, count, type, message, NULL, req);
}
DMPI_ALIAS(Imrecv_c)
