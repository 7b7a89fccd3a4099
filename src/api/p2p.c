/* MPI point-to-point entry points: every send mode (blocking, nonblocking,
 * persistent), receives, and the send-receive combinations, each in its
 * int and large-count (_c) form. The argument checks live here; the work
 * is done by the p2p layer. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "accel/stage.h"
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

/* The host path of a send. With staging (sp non-NULL: buf is the host
 * copy *sp of device memory) a request made here takes *sp over (and sets
 * it NULL); the caller frees what is left. Inlined into send_common with
 * sp NULL, so host sends pay nothing for it. */
static inline __attribute__((always_inline)) int
send_body(const char *fn, const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
          dmpi_comm *c, int mode, MPI_Request *req, dmpi_stage **sp)
{
    int rc;
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
        if (sp) {
            dmpi_stage_attach(r, *sp);
            *sp = NULL;
        }
        if (req) *req = dmpi_request_handle(r);
        else rc = dmpi_wait(r, NULL);
    }
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error(c, rc, fn, "send failed");
}

/* A send from device memory: through a host copy. */
static int send_staged(const char *fn, const void *buf, MPI_Count count, dmpi_datatype *dt,
                       int dest, int tag, dmpi_comm *c, int mode, MPI_Request *req)
{
    int rc;
    void *h;
    dmpi_stage *s = dmpi_stage_new(false, buf, count, dt, &h, &rc);
    if (!s) return dmpi_stage_error(c, rc, fn, "send buffer");
    rc = send_body(fn, h, count, dt, dest, tag, c, mode, req, &s);
    dmpi_stage_free(s);
    return rc;
}

static int send_common(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, int mode, MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *dt = NULL;
    int rc = check_send(fn, buf, count, type, dest, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (__builtin_expect(dmpi_stage_wanted(buf, count, dt), 0))
        return send_staged(fn, buf, count, dt, dest, tag, c, mode, req);
    return send_body(fn, buf, count, dt, dest, tag, c, mode, req, NULL);
}

/* The host path of a receive; sp as for send_body (a blocking receive
 * copies back here, a request made here takes *sp over). */
static inline __attribute__((always_inline)) int
recv_body(const char *fn, void *buf, MPI_Count count, dmpi_datatype *dt, int source, int tag,
          dmpi_comm *c, MPI_Status *status, MPI_Request *req, dmpi_stage **sp)
{
    int rc;
    dmpi_lock();
    MPI_Status st;
    if (req) {
        dmpi_request *r;
        rc = dmpi_irecv(buf, count, dt, source, tag, c, DMPI_CTX_P2P, &r);
        if (rc == MPI_SUCCESS) {
            if (sp) {
                dmpi_stage_attach(r, *sp);
                *sp = NULL;
            }
            *req = dmpi_request_handle(r);
        }
    } else {
        rc = dmpi_recv(buf, count, dt, source, tag, c, DMPI_CTX_P2P, &st);
        if (sp) { /* also the part of a truncated message that fits */
            int e = dmpi_stage_finish(*sp, dmpi_status_bytes(&st));
            if (rc == MPI_SUCCESS) rc = e;
        }
        if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    }
    dmpi_unlock();
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    if (sp && rc == MPI_ERR_BUFFER) return dmpi_stage_error(c, rc, fn, "receive buffer");
    return recv_result(c, rc, fn, &st);
}

static int recv_common(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                       int source, int tag, MPI_Comm comm, MPI_Status *status, MPI_Request *req)
{
    dmpi_comm *c = NULL;
    dmpi_datatype *dt = NULL;
    int rc = check_recv(fn, buf, count, type, source, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) return rc;
    if (__builtin_expect(!dmpi_stage_wanted(buf, count, dt), 1))
        return recv_body(fn, buf, count, dt, source, tag, c, status, req, NULL);
    void *h;
    dmpi_stage *s = dmpi_stage_new(true, buf, count, dt, &h, &rc);
    if (!s) return dmpi_stage_error(c, rc, fn, "receive buffer");
    rc = recv_body(fn, h, count, dt, source, tag, c, status, req, &s);
    dmpi_stage_free(s);
    return rc;
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
    if (__builtin_expect(dmpi_stage_wanted(buf, count, dt), 0)) {
        /* device memory: the request keeps one host block for all its starts */
        void *h;
        dmpi_stage *s = dmpi_stage_new(!is_send, buf, count, dt, &h, &rc);
        if (!s) {
            dmpi_lock();
            dmpi_request_free(r);
            dmpi_unlock();
            return dmpi_stage_error(c, rc, fn, is_send ? "send buffer" : "receive buffer");
        }
        r->buf = h;
        dmpi_stage_attach(r, s);
    }
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
    if (__builtin_expect(r->stage != NULL, 0) && r->kind == DMPI_REQ_PSEND) {
        int rc = dmpi_stage_refresh(r->stage); /* the device bytes as they are now */
        if (rc != MPI_SUCCESS) return dmpi_stage_error(r->comm, rc, fn, "send buffer");
    }
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

/* The host path of the send-receive combinations; ssp/rsp as for
 * send_body (NULL, constant, for host buffers). */
static inline __attribute__((always_inline)) int
sendrecv_body(const char *fn, const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, int dest,
              int stag, void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, int source, int rtag,
              dmpi_comm *c, MPI_Status *status, MPI_Request *req, dmpi_stage **ssp,
              dmpi_stage **rsp)
{
    int rc;
    dmpi_lock();
    MPI_Status st;
    dmpi_status_empty(&st);
    if (req) {
        dmpi_request *rr, *sr;
        rc = dmpi_irecv(rbuf, rcount, rdt, source, rtag, c, DMPI_CTX_P2P, &rr);
        if (rc == MPI_SUCCESS && rsp && *rsp) {
            dmpi_stage_attach(rr, *rsp);
            *rsp = NULL;
        }
        if (rc == MPI_SUCCESS)
            rc = dmpi_isend(sbuf, scount, sdt, dest, stag, c, DMPI_CTX_P2P, DMPI_MODE_STD, &sr);
        if (rc == MPI_SUCCESS && ssp && *ssp) {
            dmpi_stage_attach(sr, *ssp);
            *ssp = NULL;
        }
        if (rc == MPI_SUCCESS) *req = dmpi_request_handle(dmpi_pair_request(rr, sr, NULL));
    } else {
        rc = dmpi_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, c,
                           DMPI_CTX_P2P, &st);
        if (rsp && *rsp) {
            int e = dmpi_stage_finish(*rsp, dmpi_status_bytes(&st));
            if (rc == MPI_SUCCESS) rc = e;
        }
        if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    }
    dmpi_unlock();
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    if (rsp && rc == MPI_ERR_BUFFER) return dmpi_stage_error(c, rc, fn, "receive buffer");
    return recv_result(c, rc, fn, &st);
}

/* Send-receive with device memory on either side (or both). */
static int sendrecv_staged(const char *fn, const void *sbuf, MPI_Count scount,
                           dmpi_datatype *sdt, int dest, int stag, void *rbuf, MPI_Count rcount,
                           dmpi_datatype *rdt, int source, int rtag, dmpi_comm *c,
                           MPI_Status *status, MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    void *sh = (void *)sbuf, *rh = rbuf;
    dmpi_stage *ss = NULL, *rs = NULL;
    if (dmpi_stage_wanted(sbuf, scount, sdt) &&
        !(ss = dmpi_stage_new(false, sbuf, scount, sdt, &sh, &rc)))
        return dmpi_stage_error(c, rc, fn, "send buffer");
    if (dmpi_stage_wanted(rbuf, rcount, rdt) &&
        !(rs = dmpi_stage_new(true, rbuf, rcount, rdt, &rh, &rc))) {
        dmpi_stage_free(ss);
        return dmpi_stage_error(c, rc, fn, "receive buffer");
    }
    rc = sendrecv_body(fn, sh, scount, sdt, dest, stag, rh, rcount, rdt, source, rtag, c, status,
                       req, &ss, &rs);
    dmpi_stage_free(ss);
    dmpi_stage_free(rs);
    return rc;
}

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
    if (__builtin_expect(dmpi_accel_on, 0))
        return sendrecv_staged(fn, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                               rtag, c, status, req);
    return sendrecv_body(fn, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, c,
                         status, req, NULL, NULL);
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
    dmpi_stage *stage = NULL; /* device memory: both directions through one host copy */
    bool staged = dmpi_stage_wanted(buf, count, dt);
    if (__builtin_expect(staged, 0)) {
        stage = dmpi_stage_new(true, buf, count, dt, &buf, &rc);
        if (stage && dt->contiguous) rc = dmpi_stage_refresh(stage);
        if (rc != MPI_SUCCESS) {
            dmpi_stage_free(stage);
            return dmpi_stage_error(c, rc, fn, "buffer");
        }
    }
    MPI_Count bytes = count * dt->size;
    void *tmp = malloc(bytes ? (size_t)bytes : 1);
    if (!tmp) {
        dmpi_stage_free(stage);
        return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for %lld bytes", (long long)bytes);
    }
    dmpi_datatype *byte = dmpi_dt_builtin(MPI_BYTE);
    dmpi_lock();
    dmpi_dt_pack(buf, count, dt, 0, tmp, bytes);
    dmpi_request *rr, *sr;
    MPI_Status st;
    dmpi_status_empty(&st);
    rc = dmpi_irecv(buf, count, dt, source, rtag, c, DMPI_CTX_P2P, &rr);
    if (rc == MPI_SUCCESS && stage) { /* copied back when rr completes, freed with rr */
        dmpi_stage_attach(rr, stage);
        stage = NULL;
    }
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
    dmpi_stage_free(stage);
    if (rc == MPI_ERR_NO_MEM) return dmpi_error(c, rc, fn, "out of memory for a request");
    if (staged && rc == MPI_ERR_BUFFER) return dmpi_stage_error(c, rc, fn, "buffer");
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
