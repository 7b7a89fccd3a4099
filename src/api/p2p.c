/* MPI point-to-point entry points: every send mode (blocking, nonblocking,
 * persistent), receives, and the send-receive combinations, each in its
 * int and large-count (_c) form. The argument checks live here; the work
 * is done by the p2p layer. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

int dmpi_bsend_copy(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                    dmpi_comm *c, const char *fn);

/* Checks the common arguments of a send (is_recv false) or a receive;
 * fills c and dt. */
static int check_args(const char *fn, bool is_recv, const void *buf, MPI_Count count,
                      MPI_Datatype type, int peer, int tag, MPI_Comm comm, dmpi_comm **cp,
                      dmpi_datatype **dtp)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, fn);
    dmpi_datatype *dt;
    DMPI_CHECK_COUNT(c, count, fn);
    DMPI_GET_DTYPE(dt, c, type, fn);
    DMPI_CHECK_BUF(c, buf, count, dt, fn);
    if (is_recv) {
        DMPI_CHECK_SRC(c, peer, fn);
        DMPI_CHECK_RECV_TAG(c, tag, fn);
        if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) { /* the info hints may refuse */
            int cls;
            const char *why = dmpi_comm_wildcard_refused(c, peer, tag, &cls);
            if (why) return dmpi_error(c, cls, fn, "%s", why);
        }
    } else {
        DMPI_CHECK_DEST(c, peer, fn);
        DMPI_CHECK_SEND_TAG(c, tag, fn);
    }
    *cp = c;
    *dtp = dt;
    return MPI_SUCCESS;
}

#define check_send(fn, ...) check_args(fn, false, __VA_ARGS__)
#define check_recv(fn, ...) check_args(fn, true, __VA_ARGS__)

/* A receive's error (truncation) goes through the communicator's handler. */
static int recv_result(dmpi_comm *c, int err, const char *fn, const MPI_Status *st)
{
    if (err == MPI_SUCCESS) return MPI_SUCCESS;
    if (err == MPI_ERR_TRUNCATE)
        return dmpi_error(c, err, fn, "message of %lld bytes truncated: the receive buffer holds fewer",
                          st ? (long long)dmpi_status_bytes(st) : -1LL);
    return dmpi_error(c, err, fn, "receive failed");
}

static int send_common(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, int mode, MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *dt = NULL;
    int rc = check_send(fn, buf, count, type, dest, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (req == NULL && mode == DMPI_MODE_BUFFERED) {
        dmpi_lock();
        rc = dmpi_bsend_copy(buf, count, dt, dest, tag, c, fn);
        dmpi_unlock();
        return rc;
    }
    if (req && mode == DMPI_MODE_BUFFERED) {
        dmpi_lock();
        rc = dmpi_bsend_copy(buf, count, dt, dest, tag, c, fn);
        dmpi_request *r = rc == MPI_SUCCESS ? dmpi_request_alloc(DMPI_REQ_SEND) : NULL;
        if (r) dmpi_request_complete(r);
        dmpi_unlock();
        if (rc != MPI_SUCCESS) return rc;
        if (!r) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a request");
        *req = dmpi_request_handle(r);
        return MPI_SUCCESS;
    }
    dmpi_lock();
    if (mode != DMPI_MODE_SYNC && dmpi_send_immediate(buf, count, dt, dest, tag, c, DMPI_CTX_P2P)) {
        if (req) *req = dmpi_request_handle(dmpi_request_completed_send());
        dmpi_unlock();
        return MPI_SUCCESS;
    }
    dmpi_request *r;
    rc = dmpi_isend(buf, count, dt, dest, tag, c, DMPI_CTX_P2P, mode, &r);
    if (rc == MPI_SUCCESS) {
        if (req) *req = dmpi_request_handle(r);
        else rc = dmpi_wait(r, NULL);
    }
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error(c, rc, fn, "send failed");
}

static int recv_common(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                       int source, int tag, MPI_Comm comm, MPI_Status *status, MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *dt = NULL;
    int rc = check_recv(fn, buf, count, type, source, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_lock();
    MPI_Status st;
    if (req) {
        dmpi_request *r;
        rc = dmpi_irecv(buf, count, dt, source, tag, c, DMPI_CTX_P2P, &r);
        if (rc == MPI_SUCCESS) *req = dmpi_request_handle(r);
    } else {
        rc = dmpi_recv(buf, count, dt, source, tag, c, DMPI_CTX_P2P, &st);
        if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    }
    dmpi_unlock();
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    return recv_result(c, rc, fn, &st);
}

/* Defines MPI_<Name> and MPI_<Name>_c for a send mode. */
#define DEFINE_SEND(Name, mode)                                                                \
    int PMPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag,          \
                    MPI_Comm comm)                                                             \
    {                                                                                          \
        return send_common("MPI_" #Name, buf, count, type, dest, tag, comm, mode, NULL);       \
    }                                                                                          \
    DMPI_ALIAS(Name)                                                                           \
    int PMPI_##Name##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, \
                        MPI_Comm comm)                                                         \
    {                                                                                          \
        return send_common("MPI_" #Name "_c", buf, count, type, dest, tag, comm, mode, NULL);  \
    }                                                                                          \
    DMPI_ALIAS(Name##_c)

#define DEFINE_ISEND(Name, mode)                                                               \
    int PMPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag,          \
                    MPI_Comm comm, MPI_Request *req)                                           \
    {                                                                                          \
        if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_" #Name, "request is NULL");       \
        return send_common("MPI_" #Name, buf, count, type, dest, tag, comm, mode, req);        \
    }                                                                                          \
    DMPI_ALIAS(Name)                                                                           \
    int PMPI_##Name##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, \
                        MPI_Comm comm, MPI_Request *req)                                       \
    {                                                                                          \
        if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_" #Name "_c", "request is NULL");  \
        return send_common("MPI_" #Name "_c", buf, count, type, dest, tag, comm, mode, req);   \
    }                                                                                          \
    DMPI_ALIAS(Name##_c)

DEFINE_SEND(Send, DMPI_MODE_STD)
DEFINE_SEND(Ssend, DMPI_MODE_SYNC)
DEFINE_SEND(Rsend, DMPI_MODE_READY)
DEFINE_SEND(Bsend, DMPI_MODE_BUFFERED)
DEFINE_ISEND(Isend, DMPI_MODE_STD)
DEFINE_ISEND(Issend, DMPI_MODE_SYNC)
DEFINE_ISEND(Irsend, DMPI_MODE_READY)
DEFINE_ISEND(Ibsend, DMPI_MODE_BUFFERED)

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv_common("MPI_Recv", buf, count, type, source, tag, comm, status, NULL);
}
DMPI_ALIAS(Recv)

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv_common("MPI_Recv_c", buf, count, type, source, tag, comm, status, NULL);
}
DMPI_ALIAS(Recv_c)

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Irecv", "request is NULL");
    return recv_common("MPI_Irecv", buf, count, type, source, tag, comm, NULL, req);
}
DMPI_ALIAS(Irecv)

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                 MPI_Comm comm, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Irecv_c", "request is NULL");
    return recv_common("MPI_Irecv_c", buf, count, type, source, tag, comm, NULL, req);
}
DMPI_ALIAS(Irecv_c)

/* ------------------------------------------------------------ persistent */

static int persistent_init(const char *fn, bool is_send, const void *buf, MPI_Count count,
                           MPI_Datatype type, int peer, int tag, MPI_Comm comm, int mode,
                           MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, fn, "request is NULL");
    dmpi_comm *c;
    dmpi_datatype *dt;
    int rc = is_send ? check_send(fn, buf, count, type, peer, tag, comm, &c, &dt)
                     : check_recv(fn, buf, count, type, peer, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_lock();
    dmpi_request *r = dmpi_request_alloc(is_send ? DMPI_REQ_PSEND : DMPI_REQ_PRECV);
    dmpi_unlock();
    if (!r) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a request");
    r->persistent = true;
    r->active = false;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    dmpi_dt_retain(dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = c;
    dmpi_comm_retain(c);
    r->comm_ref = true;
    r->mode = mode;
    r->ctx_kind = DMPI_CTX_P2P;
    atomic_store(&r->complete, 1);
    *req = dmpi_request_handle(r);
    return MPI_SUCCESS;
}

#define DEFINE_SEND_INIT(Name, mode)                                                            \
    int PMPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag,           \
                    MPI_Comm comm, MPI_Request *req)                                            \
    {                                                                                           \
        return persistent_init("MPI_" #Name, true, buf, count, type, dest, tag, comm, mode, req); \
    }                                                                                           \
    DMPI_ALIAS(Name)                                                                            \
    int PMPI_##Name##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,  \
                        MPI_Comm comm, MPI_Request *req)                                        \
    {                                                                                           \
        return persistent_init("MPI_" #Name "_c", true, buf, count, type, dest, tag, comm, mode, \
                               req);                                                            \
    }                                                                                           \
    DMPI_ALIAS(Name##_c)

DEFINE_SEND_INIT(Send_init, DMPI_MODE_STD)
DEFINE_SEND_INIT(Ssend_init, DMPI_MODE_SYNC)
DEFINE_SEND_INIT(Rsend_init, DMPI_MODE_READY)
DEFINE_SEND_INIT(Bsend_init, DMPI_MODE_BUFFERED)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   MPI_Request *req)
{
    return persistent_init("MPI_Recv_init", false, buf, count, type, source, tag, comm, 0, req);
}
DMPI_ALIAS(Recv_init)

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Request *req)
{
    return persistent_init("MPI_Recv_init_c", false, buf, count, type, source, tag, comm, 0, req);
}
DMPI_ALIAS(Recv_init_c)

/* Starts an inactive persistent point-to-point request (lock held). */
int dmpi_start_persistent(dmpi_request *r, const char *fn)
{
    if (r->kind == DMPI_REQ_PSEND && r->mode == DMPI_MODE_BUFFERED) {
        int rc = dmpi_bsend_copy(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, fn);
        if (rc != MPI_SUCCESS) return rc;
        r->active = true;
        dmpi_status_empty(&r->status);
        dmpi_request_complete(r);
        return MPI_SUCCESS;
    }
    r->active = true;
    if (r->kind == DMPI_REQ_PSEND) dmpi_send_start(r);
    else dmpi_recv_start(r);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------- send-receive */

static int sendrecv_common(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                           int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                           int source, int rtag, MPI_Comm comm, MPI_Status *status,
                           MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *sdt = NULL, *rdt = NULL;
    int rc = check_send(fn, sbuf, scount, stype, dest, stag, comm, &c, &sdt);
    if (rc == MPI_SUCCESS) rc = check_recv(fn, rbuf, rcount, rtype, source, rtag, comm, &c, &rdt);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_lock();
    MPI_Status st;
    dmpi_status_empty(&st);
    if (req) {
        dmpi_request *rr, *sr;
        rc = dmpi_irecv(rbuf, rcount, rdt, source, rtag, c, DMPI_CTX_P2P, &rr);
        if (rc == MPI_SUCCESS)
            rc = dmpi_isend(sbuf, scount, sdt, dest, stag, c, DMPI_CTX_P2P, DMPI_MODE_STD, &sr);
        if (rc == MPI_SUCCESS) *req = dmpi_request_handle(dmpi_pair_request(rr, sr, NULL));
    } else {
        rc = dmpi_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, c,
                           DMPI_CTX_P2P, &st);
        if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    }
    dmpi_unlock();
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    return recv_result(c, rc, fn, &st);
}

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                  MPI_Status *status)
{
    return sendrecv_common("MPI_Sendrecv", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                           source, rtag, comm, status, NULL);
}
DMPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                    MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_common("MPI_Sendrecv_c", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                           source, rtag, comm, status, NULL);
}
DMPI_ALIAS(Sendrecv_c)

int PMPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                   void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Isendrecv", "request is NULL");
    return sendrecv_common("MPI_Isendrecv", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                           source, rtag, comm, NULL, req);
}
DMPI_ALIAS(Isendrecv)

int PMPI_Isendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                     MPI_Comm comm, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Isendrecv_c", "request is NULL");
    return sendrecv_common("MPI_Isendrecv_c", sbuf, scount, stype, dest, stag, rbuf, rcount,
                           rtype, source, rtag, comm, NULL, req);
}
DMPI_ALIAS(Isendrecv_c)

/* Sendrecv_replace: the outgoing data is packed into a temporary first,
 * so the receive can land in the same buffer. */
static int replace_common(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int dest,
                          int stag, int source, int rtag, MPI_Comm comm, MPI_Status *status,
                          MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *dt = NULL;
    int rc = check_send(fn, buf, count, type, dest, stag, comm, &c, &dt);
    if (rc == MPI_SUCCESS) rc = check_recv(fn, buf, count, type, source, rtag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Count bytes = count * dt->size;
    void *tmp = malloc(bytes ? (size_t)bytes : 1);
    if (!tmp) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for %lld bytes", (long long)bytes);
    dmpi_datatype *byte = dmpi_dt_builtin(MPI_BYTE);
    dmpi_lock();
    dmpi_dt_pack(buf, count, dt, 0, tmp, bytes);
    dmpi_request *rr, *sr;
    MPI_Status st;
    dmpi_status_empty(&st);
    rc = dmpi_irecv(buf, count, dt, source, rtag, c, DMPI_CTX_P2P, &rr);
    if (rc == MPI_SUCCESS) rc = dmpi_isend(tmp, bytes, byte, dest, stag, c, DMPI_CTX_P2P,
                                           DMPI_MODE_STD, &sr);
    if (rc == MPI_SUCCESS) {
        if (req) {
            *req = dmpi_request_handle(dmpi_pair_request(rr, sr, tmp));
            tmp = NULL;
        } else {
            dmpi_wait(sr, NULL);
            rc = dmpi_wait(rr, &st);
            if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
        }
    }
    dmpi_unlock();
    free(tmp);
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    return recv_result(c, rc, fn, &st);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                          int rtag, MPI_Comm comm, MPI_Status *status)
{
    return replace_common("MPI_Sendrecv_replace", buf, count, type, dest, stag, source, rtag, comm,
                          status, NULL);
}
DMPI_ALIAS(Sendrecv_replace)

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                            int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    return replace_common("MPI_Sendrecv_replace_c", buf, count, type, dest, stag, source, rtag,
                          comm, status, NULL);
}
DMPI_ALIAS(Sendrecv_replace_c)

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
                           int source, int rtag, MPI_Comm comm, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Isendrecv_replace", "request is NULL");
    return replace_common("MPI_Isendrecv_replace", buf, count, type, dest, stag, source, rtag,
                          comm, NULL, req);
}
DMPI_ALIAS(Isendrecv_replace)

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                             int source, int rtag, MPI_Comm comm, MPI_Request *req)
{
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Isendrecv_replace_c", "request is NULL");
    return replace_common("MPI_Isendrecv_replace_c", buf, count, type, dest, stag, source, rtag,
                          comm, NULL, req);
}
DMPI_ALIAS(Isendrecv_replace_c)
