/* errors_table.c: bad input never crashes and gives the right error class
 * -- point-to-point, requests, statuses, communicators, groups, error
 * handlers, attributes, datatypes, packing, topologies, info objects, the
 * environment and error classes. The harness and the kinds of bad input
 * are described in errors_table.h; collectives are in errors_table_coll.c,
 * RMA in errors_table_rma.c. */
#include "errors_table.h"

/* ------------------------------------------------------- point-to-point */
typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int isend_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int send_c_fn(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm);
typedef int isend_c_fn(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
static const struct {
    const char *name;
    send_fn *b;
    isend_fn *nb;
    send_c_fn *bc;
    isend_c_fn *nbc;
} sends[] = {
    {"MPI_Send", MPI_Send, 0, 0, 0}, {"MPI_Bsend", MPI_Bsend, 0, 0, 0},
    {"MPI_Ssend", MPI_Ssend, 0, 0, 0}, {"MPI_Rsend", MPI_Rsend, 0, 0, 0},
    {"MPI_Isend", 0, MPI_Isend, 0, 0}, {"MPI_Ibsend", 0, MPI_Ibsend, 0, 0},
    {"MPI_Issend", 0, MPI_Issend, 0, 0}, {"MPI_Irsend", 0, MPI_Irsend, 0, 0},
    {"MPI_Send_init", 0, MPI_Send_init, 0, 0}, {"MPI_Bsend_init", 0, MPI_Bsend_init, 0, 0},
    {"MPI_Ssend_init", 0, MPI_Ssend_init, 0, 0}, {"MPI_Rsend_init", 0, MPI_Rsend_init, 0, 0},
    {"MPI_Send_c", 0, 0, MPI_Send_c, 0}, {"MPI_Bsend_c", 0, 0, MPI_Bsend_c, 0},
    {"MPI_Ssend_c", 0, 0, MPI_Ssend_c, 0}, {"MPI_Rsend_c", 0, 0, MPI_Rsend_c, 0},
    {"MPI_Isend_c", 0, 0, 0, MPI_Isend_c}, {"MPI_Ibsend_c", 0, 0, 0, MPI_Ibsend_c},
    {"MPI_Issend_c", 0, 0, 0, MPI_Issend_c}, {"MPI_Irsend_c", 0, 0, 0, MPI_Irsend_c},
    {"MPI_Send_init_c", 0, 0, 0, MPI_Send_init_c}, {"MPI_Bsend_init_c", 0, 0, 0, MPI_Bsend_init_c},
    {"MPI_Ssend_init_c", 0, 0, 0, MPI_Ssend_init_c}, {"MPI_Rsend_init_c", 0, 0, 0, MPI_Rsend_init_c},
};

static int do_send(int i, const void *buf, MPI_Count n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    if (sends[i].b) return sends[i].b(buf, (int)n, t, dest, tag, c);
    if (sends[i].nb) return sends[i].nb(buf, (int)n, t, dest, tag, c, &rq);
    if (sends[i].bc) return sends[i].bc(buf, n, t, dest, tag, c);
    return sends[i].nbc(buf, n, t, dest, tag, c, &rq);
}

static int do_recv(int i, void *buf, MPI_Count n, MPI_Datatype t, int src, int tag, MPI_Comm c)
{
    switch (i) {
    case 0: return MPI_Recv(buf, (int)n, t, src, tag, c, &st);
    case 1: return MPI_Irecv(buf, (int)n, t, src, tag, c, &rq);
    case 2: return MPI_Recv_init(buf, (int)n, t, src, tag, c, &rq);
    case 3: return MPI_Recv_c(buf, n, t, src, tag, c, &st);
    case 4: return MPI_Irecv_c(buf, n, t, src, tag, c, &rq);
    default: return MPI_Recv_init_c(buf, n, t, src, tag, c, &rq);
    }
}
static const char *const recv_names[] = {"MPI_Recv", "MPI_Irecv", "MPI_Recv_init",
                                         "MPI_Recv_c", "MPI_Irecv_c", "MPI_Recv_init_c"};

#define ES(want, i, call) chk(sends[i].name, line_, (call), (want), (want), (want))
static void test_p2p(void)
{
    MPI_Comm bc;
    MPI_Datatype bt;
    int line_ = __LINE__;
    for (int i = 0; i < (int)(sizeof sends / sizeof sends[0]); i++) {
        FOR_BAD(badcomm, bc) ES(MPI_ERR_COMM, i, do_send(i, ibuf, 1, MPI_INT, 0, 0, bc));
        FOR_BAD(badtype, bt) ES(MPI_ERR_TYPE, i, do_send(i, ibuf, 1, bt, 0, 0, W));
        bad_label = "uncommitted type"; ES(MPI_ERR_TYPE, i, do_send(i, ibuf, 1, uncommitted_t, 0, 0, W));
        bad_label = "count -1"; ES(MPI_ERR_COUNT, i, do_send(i, ibuf, -1, MPI_INT, 0, 0, W));
        bad_label = "dest = size"; ES(MPI_ERR_RANK, i, do_send(i, ibuf, 1, MPI_INT, t_size, 0, W));
        bad_label = "dest -7"; ES(MPI_ERR_RANK, i, do_send(i, ibuf, 1, MPI_INT, -7, 0, W));
        bad_label = "dest MPI_ANY_SOURCE"; ES(MPI_ERR_RANK, i, do_send(i, ibuf, 1, MPI_INT, MPI_ANY_SOURCE, 0, W));
        bad_label = "tag -5"; ES(MPI_ERR_TAG, i, do_send(i, ibuf, 1, MPI_INT, 0, -5, W));
        bad_label = "tag MPI_ANY_TAG"; ES(MPI_ERR_TAG, i, do_send(i, ibuf, 1, MPI_INT, 0, MPI_ANY_TAG, W));
        bad_label = "NULL buffer, count 1"; ES(MPI_ERR_BUFFER, i, do_send(i, NULL, 1, MPI_INT, 0, 0, W));
    }
    for (int i = 0; i < 6; i++) {
#define ER(want, call) chk(recv_names[i], line_, (call), (want), (want), (want))
        FOR_BAD(badcomm, bc) ER(MPI_ERR_COMM, do_recv(i, ibuf, 1, MPI_INT, 0, 0, bc));
        FOR_BAD(badtype, bt) ER(MPI_ERR_TYPE, do_recv(i, ibuf, 1, bt, 0, 0, W));
        bad_label = "uncommitted type"; ER(MPI_ERR_TYPE, do_recv(i, ibuf, 1, uncommitted_t, 0, 0, W));
        bad_label = "count -1"; ER(MPI_ERR_COUNT, do_recv(i, ibuf, -1, MPI_INT, 0, 0, W));
        bad_label = "source = size"; ER(MPI_ERR_RANK, do_recv(i, ibuf, 1, MPI_INT, t_size, 0, W));
        bad_label = "source -7"; ER(MPI_ERR_RANK, do_recv(i, ibuf, 1, MPI_INT, -7, 0, W));
        bad_label = "tag -5"; ER(MPI_ERR_TAG, do_recv(i, ibuf, 1, MPI_INT, 0, -5, W));
        bad_label = "NULL buffer, count 1"; ER(MPI_ERR_BUFFER, do_recv(i, NULL, 1, MPI_INT, 0, 0, W));
#undef ER
    }
    /* Sendrecv and friends */
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, bc, &st));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Sendrecv(ibuf, 1, bt, 0, 0, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, bt, 0, 0, W, &st));
    E(MPI_ERR_COUNT, MPI_Sendrecv(ibuf, -1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_COUNT, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, -1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_RANK, MPI_Sendrecv(ibuf, 1, MPI_INT, t_size, 0, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_RANK, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, t_size, 0, W, &st));
    E(MPI_ERR_TAG, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, -5, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_TAG, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, -5, W, &st));
    E(MPI_ERR_BUFFER, MPI_Sendrecv(NULL, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_BUFFER, MPI_Sendrecv(ibuf, 1, MPI_INT, 0, 0, NULL, 1, MPI_INT, 0, 0, W, &st));
    E(MPI_ERR_COUNT, MPI_Sendrecv_c(ibuf, -1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, W, &st));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Sendrecv_replace(ibuf, 1, MPI_INT, 0, 0, 0, 0, bc, &st));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Sendrecv_replace(ibuf, 1, bt, 0, 0, 0, 0, W, &st));
    E(MPI_ERR_COUNT, MPI_Sendrecv_replace(ibuf, -1, MPI_INT, 0, 0, 0, 0, W, &st));
    E(MPI_ERR_RANK, MPI_Sendrecv_replace(ibuf, 1, MPI_INT, t_size, 0, 0, 0, W, &st));
    E(MPI_ERR_TAG, MPI_Sendrecv_replace(ibuf, 1, MPI_INT, 0, 0, 0, -5, W, &st));
    E(MPI_ERR_BUFFER, MPI_Sendrecv_replace(NULL, 1, MPI_INT, 0, 0, 0, 0, W, &st));
    E(MPI_ERR_COUNT, MPI_Sendrecv_replace_c(ibuf, -1, MPI_INT, 0, 0, 0, 0, W, &st));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Isendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, bc, &rq));
    E(MPI_ERR_RANK, MPI_Isendrecv(ibuf, 1, MPI_INT, t_size, 0, ibuf2, 1, MPI_INT, 0, 0, W, &rq));
    E(MPI_ERR_TAG, MPI_Isendrecv(ibuf, 1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, -5, W, &rq));
    E(MPI_ERR_COUNT, MPI_Isendrecv_c(ibuf, -1, MPI_INT, 0, 0, ibuf2, 1, MPI_INT, 0, 0, W, &rq));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Isendrecv_replace(ibuf, 1, MPI_INT, 0, 0, 0, 0, bc, &rq));
    E(MPI_ERR_TYPE, MPI_Isendrecv_replace(ibuf, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, W, &rq));
    E(MPI_ERR_COUNT, MPI_Isendrecv_replace_c(ibuf, -1, MPI_INT, 0, 0, 0, 0, W, &rq));
    E(MPI_ERR_ARG, MPI_Isend(ibuf, 1, MPI_INT, 0, 0, W, NULL));
    E(MPI_ERR_ARG, MPI_Irecv(ibuf, 1, MPI_INT, 0, 0, W, NULL));

    /* probes and matched receives */
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Probe(0, 0, bc, &st));
    E(MPI_ERR_RANK, MPI_Probe(t_size, 0, W, &st));
    E(MPI_ERR_TAG, MPI_Probe(0, -5, W, &st));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Iprobe(0, 0, bc, &flag, &st));
    E(MPI_ERR_RANK, MPI_Iprobe(-7, 0, W, &flag, &st));
    E(MPI_ERR_TAG, MPI_Iprobe(0, -5, W, &flag, &st));
    E(MPI_ERR_ARG, MPI_Iprobe(0, 0, W, NULL, &st));
    MPI_Message msg;
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Mprobe(0, 0, bc, &msg, &st));
    E(MPI_ERR_RANK, MPI_Mprobe(t_size, 0, W, &msg, &st));
    E(MPI_ERR_TAG, MPI_Improbe(0, -5, W, &flag, &msg, &st));
    E(MPI_ERR_ARG, MPI_Improbe(0, 0, W, NULL, &msg, &st));
    msg = MPI_MESSAGE_NULL;
    E2(MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_Mrecv(ibuf, 1, MPI_INT, &msg, &st));
    msg = (MPI_Message)dupcomm;
    E2(MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_Mrecv(ibuf, 1, MPI_INT, &msg, &st));
    msg = (MPI_Message)MPI_INT;
    E2(MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_Imrecv(ibuf, 1, MPI_INT, &msg, &rq));
    msg = MPI_MESSAGE_NULL;
    E2(MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_Mrecv_c(ibuf, 1, MPI_INT, &msg, &st));
    E2(MPI_ERR_REQUEST, MPI_ERR_ARG, MPI_Imrecv_c(ibuf, 1, MPI_INT, &msg, &rq));
    msg = MPI_MESSAGE_NO_PROC;
    E(MPI_ERR_COUNT, MPI_Mrecv(ibuf, -1, MPI_INT, &msg, &st));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Mrecv(ibuf, 1, bt, &msg, &st));
    E(MPI_ERR_ARG, MPI_Mrecv(ibuf, 1, MPI_INT, NULL, &st));

    /* buffered mode */
    E(MPI_ERR_BUFFER, MPI_Buffer_attach(NULL, 1000));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Buffer_attach(ibuf, -1));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Buffer_attach_c(ibuf, -1));
    static char bbuf[4096];
    MPI_CHK(MPI_Buffer_attach(bbuf, sizeof bbuf));
    E(MPI_ERR_BUFFER, MPI_Buffer_attach(ibuf, sizeof ibuf)); /* one is attached */
    void *bp;
    int bsize;
    E(MPI_ERR_ARG, MPI_Buffer_detach(NULL, &bsize));
    MPI_CHK(MPI_Buffer_detach(&bp, &bsize));
    MPI_Count bsize_c;
    E(MPI_ERR_BUFFER, MPI_Buffer_detach_c(&bp, &bsize_c)); /* none attached */
    MPI_CHK(MPI_Buffer_flush());
}

/* ------------------------------------------------------------- requests */
static void test_requests(void)
{
    MPI_Request r, arr[2];
    MPI_Status sts[2];
    int idx, outc, idxs[2];
    MPI_Request br;
    FOR_BAD(badreq, br) { r = br; E(MPI_ERR_REQUEST, MPI_Wait(&r, &st)); }
    r = stale_request(); bad_label = "freed request"; E(MPI_ERR_REQUEST, MPI_Wait(&r, &st));
    r = stale_request(); bad_label = "freed request"; E(MPI_ERR_REQUEST, MPI_Test(&r, &flag, &st));
    FOR_BAD(badreq, br) { r = br; E(MPI_ERR_REQUEST, MPI_Test(&r, &flag, &st)); }
    r = MPI_REQUEST_NULL;
    E(MPI_ERR_ARG, MPI_Test(&r, NULL, &st));
    E2(MPI_ERR_ARG, MPI_ERR_REQUEST, MPI_Wait(NULL, &st));
    arr[0] = MPI_REQUEST_NULL;
    arr[1] = stale_request();
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Waitall(2, arr, sts));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Testall(2, arr, &flag, sts));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E(MPI_ERR_REQUEST, MPI_Waitany(2, arr, &idx, &st));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E(MPI_ERR_REQUEST, MPI_Testany(2, arr, &idx, &flag, &st));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Waitsome(2, arr, &outc, idxs, sts));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Testsome(2, arr, &outc, idxs, sts));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Waitall(-1, arr, sts));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Testall(-1, arr, &flag, sts));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Waitany(-1, arr, &idx, &st));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Testany(-1, arr, &idx, &flag, &st));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Waitsome(-1, arr, &outc, idxs, sts));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Testsome(-1, arr, &outc, idxs, sts));
    E(MPI_ERR_ARG, MPI_Waitall(1, NULL, sts));
    E(MPI_ERR_ARG, MPI_Testany(1, arr, NULL, &flag, &st));
    E(MPI_ERR_ARG, MPI_Waitsome(1, arr, NULL, idxs, sts));
    FOR_BAD(badreq, br) E(MPI_ERR_REQUEST, MPI_Request_get_status(br, &flag, &st));
    E(MPI_ERR_ARG, MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
    arr[0] = MPI_REQUEST_NULL; arr[1] = stale_request();
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Request_get_status_all(2, arr, &flag, sts));
    E(MPI_ERR_REQUEST, MPI_Request_get_status_any(2, arr, &idx, &flag, &st));
    E2(MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_Request_get_status_some(2, arr, &outc, idxs, sts));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Request_get_status_all(-1, arr, &flag, sts));
    r = MPI_REQUEST_NULL; E(MPI_ERR_REQUEST, MPI_Request_free(&r));
    r = stale_request(); bad_label = "freed request"; E(MPI_ERR_REQUEST, MPI_Request_free(&r));
    E(MPI_ERR_ARG, MPI_Request_free(NULL));
    r = MPI_REQUEST_NULL; E(MPI_ERR_REQUEST, MPI_Start(&r));
    r = stale_request(); bad_label = "freed request"; E(MPI_ERR_REQUEST, MPI_Start(&r));
    FOR_BAD(badreq, br) { r = br; E(MPI_ERR_REQUEST, MPI_Start(&r)); }
    E2(MPI_ERR_ARG, MPI_ERR_REQUEST, MPI_Start(NULL));
    /* a nonpersistent request cannot be started */
    MPI_CHK(MPI_Irecv(ibuf, 1, MPI_INT, 0, 77, S, &r));
    MPI_Request keep = r;
    E(MPI_ERR_REQUEST, MPI_Start(&r));
    arr[0] = keep;
    E(MPI_ERR_REQUEST, MPI_Startall(1, arr));
    E(MPI_ERR_REQUEST, MPI_Grequest_complete(keep)); /* not a generalized request */
    MPI_CHK(MPI_Cancel(&keep));
    MPI_CHK(MPI_Wait(&keep, &st));
    arr[0] = stale_request();
    E(MPI_ERR_REQUEST, MPI_Startall(1, arr));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Startall(-1, arr));
    r = MPI_REQUEST_NULL; E(MPI_ERR_REQUEST, MPI_Cancel(&r));
    r = stale_request(); bad_label = "freed request"; E(MPI_ERR_REQUEST, MPI_Cancel(&r));
    E2(MPI_ERR_ARG, MPI_ERR_REQUEST, MPI_Cancel(NULL));
    E(MPI_ERR_ARG, MPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, NULL));
    FOR_BAD(badreq, br) E(MPI_ERR_REQUEST, MPI_Grequest_complete(br));
    E(MPI_ERR_REQUEST, MPI_Grequest_complete(MPI_REQUEST_NULL));

    /* statuses */
    MPI_Datatype bt;
    MPI_Status s0;
    memset(&s0, 0, sizeof s0);
    MPI_CHK(MPI_Status_set_elements(&s0, MPI_INT, 1));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Get_count(&s0, bt, &ival));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Get_elements(&s0, bt, &ival));
    E(MPI_ERR_TYPE, MPI_Get_elements_x(&s0, MPI_DATATYPE_NULL, &cnt));
    E(MPI_ERR_TYPE, MPI_Get_count_c(&s0, MPI_DATATYPE_NULL, &cnt));
    E(MPI_ERR_TYPE, MPI_Get_elements_c(&s0, MPI_DATATYPE_NULL, &cnt));
    E(MPI_ERR_ARG, MPI_Get_count(NULL, MPI_INT, &ival));
    E(MPI_ERR_ARG, MPI_Get_count(&s0, MPI_INT, NULL));
    E(MPI_ERR_ARG, MPI_Get_elements(&s0, MPI_INT, NULL));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Status_set_elements(&s0, bt, 1));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Status_set_elements(&s0, MPI_INT, -1));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Status_set_elements_x(&s0, MPI_INT, -1));
    E2(MPI_ERR_COUNT, MPI_ERR_ARG, MPI_Status_set_elements_c(&s0, MPI_INT, -1));
    E(MPI_ERR_ARG, MPI_Status_set_elements(NULL, MPI_INT, 1));
    E(MPI_ERR_ARG, MPI_Status_set_cancelled(NULL, 1));
    E(MPI_ERR_ARG, MPI_Test_cancelled(NULL, &flag));
    E(MPI_ERR_ARG, MPI_Test_cancelled(&s0, NULL));
    E(MPI_ERR_ARG, MPI_Status_set_error(NULL, 0));
    E(MPI_ERR_ARG, MPI_Status_set_source(NULL, 0));
    E(MPI_ERR_ARG, MPI_Status_set_tag(NULL, 0));
    E(MPI_ERR_ARG, MPI_Status_get_error(NULL, &ival));
    E(MPI_ERR_ARG, MPI_Status_get_source(&s0, NULL));
    E(MPI_ERR_ARG, MPI_Status_get_tag(NULL, &ival));
}

/* ------------------------------------------------ communicators, groups */
static void test_comm(void)
{
    MPI_Comm bc;
    MPI_Group bg;
    MPI_Info bi;
    MPI_Errhandler be;
    int bk;
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_size(bc, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_rank(bc, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_remote_size(bc, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_test_inter(bc, &flag));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_group(bc, &newgroup));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_remote_group(bc, &newgroup));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_dup(bc, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_dup_with_info(bc, info, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_idup(bc, &newcomm, &rq));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_idup_with_info(bc, info, &newcomm, &rq));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_split(bc, 0, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_split_type(bc, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_create(bc, wgroup, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_create_group(bc, wgroup, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_compare(W, bc, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_compare(bc, W, &ival));
    FOR_BAD(badcomm, bc) { newcomm = bc; E(MPI_ERR_COMM, MPI_Comm_free(&newcomm)); }
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_set_name(bc, "x"));
    char name[MPI_MAX_OBJECT_NAME];
    FOR_BAD(badcomm, bc) /* MPI 4.1 names MPI_COMM_NULL */
        if (bc != MPI_COMM_NULL) E(MPI_ERR_COMM, MPI_Comm_get_name(bc, name, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_set_info(bc, info));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_get_info(bc, &newinfo));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_set_errhandler(bc, MPI_ERRORS_RETURN));
    MPI_Errhandler eh;
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_get_errhandler(bc, &eh));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_call_errhandler(bc, MPI_ERR_OTHER));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Intercomm_merge(bc, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Intercomm_create(bc, 0, W, 0, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Intercomm_create(S, 0, bc, 0, 0, &newcomm));
    E(MPI_ERR_ARG, MPI_Comm_size(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_rank(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_test_inter(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_group(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_dup(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_compare(W, W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_set_name(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_get_name(W, NULL, &ival));
    E(MPI_ERR_ARG, MPI_Comm_get_info(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_get_errhandler(W, NULL));
    E(MPI_ERR_ARG, MPI_Comm_free(NULL));
    E(MPI_ERR_COMM, MPI_Comm_remote_size(W, &ival)); /* not an intercommunicator */
    E(MPI_ERR_COMM, MPI_Comm_remote_group(W, &newgroup));
    E(MPI_ERR_COMM, MPI_Intercomm_merge(W, 0, &newcomm));
    newcomm = MPI_COMM_WORLD; E2(MPI_ERR_COMM, MPI_ERR_ARG, MPI_Comm_free(&newcomm));
    newcomm = MPI_COMM_SELF; E2(MPI_ERR_COMM, MPI_ERR_ARG, MPI_Comm_free(&newcomm));
    E(MPI_ERR_ARG, MPI_Comm_split(W, -5, 0, &newcomm)); /* color neither >= 0 nor MPI_UNDEFINED */
    E(MPI_ERR_ARG, MPI_Comm_split_type(W, 12345, 0, MPI_INFO_NULL, &newcomm));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, bi, &newcomm));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Comm_dup_with_info(W, bi, &newcomm));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Comm_idup_with_info(W, bi, &newcomm, &rq));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Comm_set_info(dupcomm, bi));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Comm_create(W, bg, &newcomm));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Comm_create_group(W, bg, 0, &newcomm));
    E(MPI_ERR_TAG, MPI_Comm_create_group(W, wgroup, -5, &newcomm));
    E(MPI_ERR_RANK, MPI_Intercomm_create(S, 1, W, 0, 0, &newcomm));   /* local leader */
    E(MPI_ERR_RANK, MPI_Intercomm_create(S, 0, W, t_size, 0, &newcomm)); /* remote leader */
    E(MPI_ERR_TAG, MPI_Intercomm_create(S, 0, W, 0, -5, &newcomm));

    /* error handlers */
    FOR_BAD(baderrh, be) E2(MPI_ERR_ERRHANDLER, MPI_ERR_ARG, MPI_Comm_set_errhandler(dupcomm, be));
    FOR_BAD(baderrh, be) { MPI_Errhandler e = be; E2(MPI_ERR_ERRHANDLER, MPI_ERR_ARG, MPI_Errhandler_free(&e)); }
    E(MPI_ERR_ARG, MPI_Errhandler_free(NULL));
    E(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, &eh));
    E(MPI_ERR_ARG, MPI_Comm_create_errhandler(errh_fn, NULL));

    /* attributes */
    void *val;
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_set_attr(bc, comm_key, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_get_attr(bc, comm_key, &val, &flag));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Comm_delete_attr(bc, comm_key));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Comm_set_attr(W, bk, &ival));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Comm_get_attr(W, bk, &val, &flag));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(W, bk));
    FOR_BAD(badkey, bk) { int k = bk; E(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&k)); }
    E(MPI_ERR_ARG, MPI_Comm_get_attr(W, comm_key, &val, NULL));
    E(MPI_ERR_ARG, MPI_Comm_get_attr(W, comm_key, NULL, &flag));
    E(MPI_ERR_ARG, MPI_Comm_free_keyval(NULL));
    E(MPI_ERR_ARG, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
    E2(MPI_ERR_KEYVAL, MPI_ERR_ARG, MPI_Comm_set_attr(W, MPI_TAG_UB, &ival)); /* predefined */
    E2(MPI_ERR_KEYVAL, MPI_ERR_ARG, MPI_Comm_delete_attr(W, MPI_TAG_UB));
    int k = MPI_TAG_UB;
    E2(MPI_ERR_KEYVAL, MPI_ERR_ARG, MPI_Comm_free_keyval(&k));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Attr_put(bc, comm_key, &ival));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Attr_put(W, bk, &ival));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Attr_get(W, bk, &val, &flag));
    FOR_BAD(badkey, bk) E(MPI_ERR_KEYVAL, MPI_Attr_delete(W, bk));
    FOR_BAD(badkey, bk) { k = bk; E(MPI_ERR_KEYVAL, MPI_Keyval_free(&k)); }
    E(MPI_ERR_ARG, MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL));
    E(MPI_ERR_ARG, MPI_Keyval_free(NULL));

    /* groups */
    int r1[2] = {0, 0}, rsz[1] = {t_size}, rneg[1] = {-7}, out[2];
    int ranges[1][3] = {{0, t_size, 1}}, zstride[1][3] = {{0, 0, 0}};
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_size(bg, &ival));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_rank(bg, &ival));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_compare(bg, wgroup, &ival));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_compare(wgroup, bg, &ival));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_union(bg, wgroup, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_intersection(wgroup, bg, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_difference(bg, wgroup, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_incl(bg, 1, r1, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_excl(bg, 1, r1, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_range_incl(bg, 1, ranges, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_range_excl(bg, 1, ranges, &newgroup));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_translate_ranks(bg, 1, r1, wgroup, out));
    FOR_BAD(badgroup, bg) E(MPI_ERR_GROUP, MPI_Group_translate_ranks(wgroup, 1, r1, bg, out));
    FOR_BAD(badgroup, bg) { newgroup = bg; E(MPI_ERR_GROUP, MPI_Group_free(&newgroup)); }
    E(MPI_ERR_ARG, MPI_Group_free(NULL));
    E(MPI_ERR_ARG, MPI_Group_size(wgroup, NULL));
    E(MPI_ERR_ARG, MPI_Group_rank(wgroup, NULL));
    E(MPI_ERR_ARG, MPI_Group_union(wgroup, wgroup, NULL));
    E(MPI_ERR_RANK, MPI_Group_incl(wgroup, 1, rsz, &newgroup));
    E(MPI_ERR_RANK, MPI_Group_incl(wgroup, 1, rneg, &newgroup));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Group_incl(wgroup, 2, r1, &newgroup)); /* rank twice (n > size on 1 rank) */
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Group_incl(wgroup, -1, r1, &newgroup));
    E2(MPI_ERR_ARG, MPI_ERR_RANK, MPI_Group_incl(wgroup, t_size + 1, r1, &newgroup));
    E(MPI_ERR_RANK, MPI_Group_excl(wgroup, 1, rsz, &newgroup));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Group_excl(wgroup, 2, r1, &newgroup));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Group_excl(wgroup, -1, r1, &newgroup));
    E(MPI_ERR_RANK, MPI_Group_range_incl(wgroup, 1, ranges, &newgroup));
    E2(MPI_ERR_ARG, MPI_ERR_RANK, MPI_Group_range_incl(wgroup, 1, zstride, &newgroup));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Group_range_incl(wgroup, -1, ranges, &newgroup));
    E(MPI_ERR_RANK, MPI_Group_range_excl(wgroup, 1, ranges, &newgroup));
    E2(MPI_ERR_ARG, MPI_ERR_RANK, MPI_Group_range_excl(wgroup, 1, zstride, &newgroup));
    E(MPI_ERR_RANK, MPI_Group_translate_ranks(wgroup, 1, rsz, wgroup, out));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Group_translate_ranks(wgroup, -1, r1, wgroup, out));
}

/* ----------------------------------------------------------- datatypes */
static void test_types(void)
{
    MPI_Datatype bt;
    MPI_Comm bc;
    int bl[2] = {1, 1}, dsp[2] = {0, 4}, negbl[1] = {-1};
    MPI_Aint adsp[2] = {0, 8};
    MPI_Count cbl[1] = {1}, cdsp[1] = {0};
    MPI_Datatype types[2] = {MPI_INT, MPI_DATATYPE_NULL};
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_contiguous(2, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_contiguous(2, MPI_INT, NULL));
    E(MPI_ERR_COUNT, MPI_Type_contiguous_c(-1, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_vector(2, 1, 2, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_vector(-1, 1, 2, MPI_INT, &newtype));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Type_vector(2, -1, 2, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_vector_c(-1, 1, 2, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_hvector(2, 1, 8, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hvector_c(-1, 1, 8, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_indexed(2, bl, dsp, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_indexed(-1, bl, dsp, MPI_INT, &newtype));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Type_indexed(1, negbl, dsp, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_indexed(2, NULL, dsp, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_indexed_c(-1, cbl, cdsp, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_hindexed(2, bl, adsp, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hindexed(-1, bl, adsp, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_hindexed(2, bl, NULL, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hindexed_c(-1, cbl, cdsp, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_indexed_block(2, 1, dsp, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_indexed_block(-1, 1, dsp, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_indexed_block_c(-1, 1, cdsp, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_hindexed_block(2, 1, adsp, bt, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hindexed_block(-1, 1, adsp, MPI_INT, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_hindexed_block_c(-1, 1, cdsp, MPI_INT, &newtype));
    E(MPI_ERR_TYPE, MPI_Type_create_struct(2, bl, adsp, types, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_struct(-1, bl, adsp, types, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_struct(2, bl, adsp, NULL, &newtype));
    E(MPI_ERR_COUNT, MPI_Type_create_struct_c(-1, cbl, cdsp, types, &newtype));
    int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {0, 0}, bigsub[2] = {5, 2}, badst[2] = {3, 0};
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, bt, &newtype));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Type_create_subarray(0, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &newtype));
    MPI_Count csizes[2] = {4, 4}, csubs[2] = {5, 2}, cstarts[2] = {0, 0};
    E(MPI_ERR_ARG, MPI_Type_create_subarray_c(2, csizes, csubs, cstarts, MPI_ORDER_C, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, bigsub, starts, MPI_ORDER_C, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subs, badst, MPI_ORDER_C, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subs, starts, 12345, MPI_INT, &newtype));
    int gs[1] = {8}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {1};
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_darray(1, 0, 1, gs, dist, darg, ps, MPI_ORDER_C, bt, &newtype));
    E2(MPI_ERR_ARG, MPI_ERR_RANK, MPI_Type_create_darray(1, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_darray(0, 0, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &newtype));
    MPI_Count cgs[1] = {8};
    E(MPI_ERR_ARG, MPI_Type_create_darray_c(0, 0, 1, cgs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_darray(1, 0, 1, gs, dist, darg, ps, 12345, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_create_resized(bt, 0, 8, &newtype));
    E(MPI_ERR_TYPE, MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 8, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_dup(bt, &newtype));
    E(MPI_ERR_ARG, MPI_Type_dup(MPI_INT, NULL));
    FOR_BAD(badtype, bt) { newtype = bt; E(MPI_ERR_TYPE, MPI_Type_commit(&newtype)); }
    E(MPI_ERR_ARG, MPI_Type_commit(NULL));
    FOR_BAD(badtype, bt) { newtype = bt; E(MPI_ERR_TYPE, MPI_Type_free(&newtype)); }
    newtype = MPI_INT; E(MPI_ERR_TYPE, MPI_Type_free(&newtype)); /* predefined */
    E(MPI_ERR_ARG, MPI_Type_free(NULL));

    MPI_Aint lb, ext;
    MPI_Count clb, cext;
    char name[MPI_MAX_OBJECT_NAME];
    int ni, na, nd, comb;
    MPI_Count cni, cna, cnl, cnd;
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_size(bt, &ival));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_size_x(bt, &cnt));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_size_c(bt, &cnt));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_extent(bt, &lb, &ext));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_extent_x(bt, &clb, &cext));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_extent_c(bt, &clb, &cext));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_true_extent(bt, &lb, &ext));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_true_extent_x(bt, &clb, &cext));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_true_extent_c(bt, &clb, &cext));
    FOR_BAD(badtype, bt) /* MPI 4.1 names MPI_DATATYPE_NULL */
        if (bt != MPI_DATATYPE_NULL) E(MPI_ERR_TYPE, MPI_Type_get_name(bt, name, &ival));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_set_name(bt, "x"));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_envelope(bt, &ni, &na, &nd, &comb));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_envelope_c(bt, &cni, &cna, &cnl, &cnd, &comb));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_contents(bt, 0, 0, 0, NULL, NULL, NULL));
    E(MPI_ERR_TYPE, MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL)); /* named type */
    E(MPI_ERR_TYPE, MPI_Type_get_contents_c(MPI_INT, 0, 0, 0, 0, NULL, NULL, NULL, NULL));
    E(MPI_ERR_ARG, MPI_Type_size(MPI_INT, NULL));
    E(MPI_ERR_ARG, MPI_Type_get_extent(MPI_INT, NULL, &ext));
    E(MPI_ERR_ARG, MPI_Type_set_name(vec_t, NULL));
    E(MPI_ERR_ARG, MPI_Type_get_name(MPI_INT, NULL, &ival));
    E(MPI_ERR_ARG, MPI_Type_match_size(12345, 4, &newtype));
    E(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &newtype));
    E(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL));
    E(MPI_ERR_ARG, MPI_Type_create_f90_integer(1000, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_f90_real(1000, MPI_UNDEFINED, &newtype));
    E(MPI_ERR_ARG, MPI_Type_create_f90_complex(MPI_UNDEFINED, 100000, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_value_index(bt, MPI_INT, &newtype));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_value_index(MPI_INT, bt, &newtype));
    E(MPI_ERR_ARG, MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL));
    E(MPI_ERR_ARG, MPI_Get_address(ibuf, NULL));

    /* type attributes */
    void *val;
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_set_attr(bt, type_key, &ival));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_get_attr(bt, type_key, &val, &flag));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Type_delete_attr(bt, type_key));
    E(MPI_ERR_KEYVAL, MPI_Type_set_attr(vec_t, comm_key, &ival)); /* a comm keyval */
    E(MPI_ERR_KEYVAL, MPI_Type_get_attr(vec_t, MPI_KEYVAL_INVALID, &val, &flag));
    E(MPI_ERR_KEYVAL, MPI_Type_delete_attr(vec_t, 987654));
    int k = comm_key;
    E(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&k));
    k = MPI_KEYVAL_INVALID;
    E(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&k));
    E(MPI_ERR_ARG, MPI_Type_free_keyval(NULL));
    E(MPI_ERR_ARG, MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL));

    /* pack / unpack */
    char pbuf[64];
    int pos = 0;
    FOR_BAD(badtype, bt) { pos = 0; E(MPI_ERR_TYPE, MPI_Pack(ibuf, 1, bt, pbuf, 64, &pos, W)); }
    FOR_BAD(badcomm, bc) { pos = 0; E(MPI_ERR_COMM, MPI_Pack(ibuf, 1, MPI_INT, pbuf, 64, &pos, bc)); }
    pos = 0; E(MPI_ERR_COUNT, MPI_Pack(ibuf, -1, MPI_INT, pbuf, 64, &pos, W));
    pos = 0; E(MPI_ERR_TRUNCATE, MPI_Pack(ibuf, 32, MPI_INT, pbuf, 64, &pos, W)); /* no room */
    pos = 60; E(MPI_ERR_TRUNCATE, MPI_Pack(ibuf, 2, MPI_INT, pbuf, 64, &pos, W));
    pos = -1; E2(MPI_ERR_ARG, MPI_ERR_TRUNCATE, MPI_Pack(ibuf, 1, MPI_INT, pbuf, 64, &pos, W));
    E(MPI_ERR_ARG, MPI_Pack(ibuf, 1, MPI_INT, pbuf, 64, NULL, W));
    pos = 0; E(MPI_ERR_BUFFER, MPI_Pack(NULL, 1, MPI_INT, pbuf, 64, &pos, W));
    pos = 0; E(MPI_ERR_COUNT, MPI_Pack_c(ibuf, -1, MPI_INT, pbuf, 64, &cnt, W));
    FOR_BAD(badtype, bt) { pos = 0; E(MPI_ERR_TYPE, MPI_Unpack(pbuf, 64, &pos, ibuf, 1, bt, W)); }
    FOR_BAD(badcomm, bc) { pos = 0; E(MPI_ERR_COMM, MPI_Unpack(pbuf, 64, &pos, ibuf, 1, MPI_INT, bc)); }
    pos = 0; E(MPI_ERR_COUNT, MPI_Unpack(pbuf, 64, &pos, ibuf, -1, MPI_INT, W));
    MPI_Count cpos = 0;
    E(MPI_ERR_COUNT, MPI_Unpack_c(pbuf, 64, &cpos, ibuf, -1, MPI_INT, W));
    pos = 0; E(MPI_ERR_TRUNCATE, MPI_Unpack(pbuf, 64, &pos, ibuf, 32, MPI_INT, W)); /* past the end */
    pos = 0; E(MPI_ERR_BUFFER, MPI_Unpack(pbuf, 64, &pos, NULL, 1, MPI_INT, W));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Pack_size(1, bt, W, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Pack_size(1, MPI_INT, bc, &ival));
    E(MPI_ERR_COUNT, MPI_Pack_size(-1, MPI_INT, W, &ival));
    E(MPI_ERR_ARG, MPI_Pack_size(1, MPI_INT, W, NULL));
    E(MPI_ERR_COUNT, MPI_Pack_size_c(-1, MPI_INT, W, &cnt));
    MPI_Aint apos = 0;
    E2(MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG, MPI_Pack_external("bogus", ibuf, 1, MPI_INT, pbuf, 64, &apos));
    FOR_BAD(badtype, bt) { apos = 0; E(MPI_ERR_TYPE, MPI_Pack_external("external32", ibuf, 1, bt, pbuf, 64, &apos)); }
    apos = 0; E(MPI_ERR_COUNT, MPI_Pack_external("external32", ibuf, -1, MPI_INT, pbuf, 64, &apos));
    apos = 0; E(MPI_ERR_TRUNCATE, MPI_Pack_external("external32", ibuf, 32, MPI_INT, pbuf, 64, &apos));
    apos = 0; E(MPI_ERR_COUNT, MPI_Pack_external_c("external32", ibuf, -1, MPI_INT, pbuf, 64, &cnt));
    E2(MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG, MPI_Pack_external_size("bogus", 1, MPI_INT, &aint));
    FOR_BAD(badtype, bt) E(MPI_ERR_TYPE, MPI_Pack_external_size("external32", 1, bt, &aint));
    E(MPI_ERR_COUNT, MPI_Pack_external_size("external32", -1, MPI_INT, &aint));
    E(MPI_ERR_COUNT, MPI_Pack_external_size_c("external32", -1, MPI_INT, &cnt));
    apos = 0;
    E2(MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_ARG, MPI_Unpack_external("bogus", pbuf, 64, &apos, ibuf, 1, MPI_INT));
    FOR_BAD(badtype, bt) { apos = 0; E(MPI_ERR_TYPE, MPI_Unpack_external("external32", pbuf, 64, &apos, ibuf, 1, bt)); }
    apos = 0; E(MPI_ERR_TRUNCATE, MPI_Unpack_external("external32", pbuf, 64, &apos, ibuf, 32, MPI_INT));
    apos = 0; E(MPI_ERR_COUNT, MPI_Unpack_external_c("external32", pbuf, 64, &cnt, ibuf, -1, MPI_INT));
}

/* ---------------------------------------------------------- topologies */
static void test_topo(void)
{
    MPI_Comm bc;
    MPI_Info bi;
    int n = t_size, dims[2] = {n, 1}, periods[2] = {0, 0}, coords[2], negd[1] = {-1}, bigd[1] = {n + 1};
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Cart_create(bc, 1, dims, periods, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Cart_create(W, -1, dims, periods, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Cart_create(W, 1, negd, periods, 0, &newcomm));
    E3(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_ERR_TOPOLOGY, MPI_Cart_create(W, 1, bigd, periods, 0, &newcomm));
    E(MPI_ERR_ARG, MPI_Cart_create(W, 1, NULL, periods, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Cart_map(bc, 1, dims, periods, &ival));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Cart_map(W, -1, dims, periods, &ival));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Dims_create(-1, 1, dims));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Dims_create(4, -1, dims));
    int d3[1] = {3};
    E2(MPI_ERR_DIMS, MPI_ERR_ARG, MPI_Dims_create(4, 1, d3)); /* 3 does not divide 4 */
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Topo_test(bc, &ival));
    E(MPI_ERR_ARG, MPI_Topo_test(W, NULL));
    E(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(W, &ival));
    E(MPI_ERR_TOPOLOGY, MPI_Cart_get(W, 1, dims, periods, coords));
    E(MPI_ERR_TOPOLOGY, MPI_Cart_rank(W, coords, &ival));
    E(MPI_ERR_TOPOLOGY, MPI_Cart_coords(W, 0, 1, coords));
    E(MPI_ERR_TOPOLOGY, MPI_Cart_shift(W, 0, 1, &ival, &flag));
    int keep[1] = {1};
    E(MPI_ERR_TOPOLOGY, MPI_Cart_sub(W, keep, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Cartdim_get(bc, &ival));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Cart_coords(bc, 0, 1, coords));
    E(MPI_ERR_RANK, MPI_Cart_coords(cartcomm, n, 1, coords));
    E(MPI_ERR_RANK, MPI_Cart_coords(cartcomm, -7, 1, coords));
    int outc[1] = {n};
    E2(MPI_ERR_ARG, MPI_ERR_RANK, MPI_Cart_rank(cartcomm, outc, &ival)); /* not periodic */
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Cart_shift(cartcomm, 5, 1, &ival, &flag));
    E2(MPI_ERR_ARG, MPI_ERR_DIMS, MPI_Cart_shift(cartcomm, -1, 1, &ival, &flag));
    E(MPI_ERR_ARG, MPI_Cart_sub(cartcomm, NULL, &newcomm));
    E(MPI_ERR_ARG, MPI_Cartdim_get(cartcomm, NULL));

    int index[2] = {1, 2}, edges[2] = {1, 0}, badedge[2] = {n + 3, 0}, negidx[2] = {-1, 2};
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Graph_create(bc, 1, index, edges, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Graph_create(W, -1, index, edges, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_TOPOLOGY, MPI_Graph_create(W, n + 1, index, edges, 0, &newcomm));
    if (n >= 2) {
        E3(MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_TOPOLOGY, MPI_Graph_create(W, 2, index, badedge, 0, &newcomm));
        E2(MPI_ERR_ARG, MPI_ERR_TOPOLOGY, MPI_Graph_create(W, 2, negidx, edges, 0, &newcomm));
    }
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Graph_map(bc, 1, index, edges, &ival));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Graph_map(W, -1, index, edges, &ival));
    E(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(W, &ival, &flag));
    E(MPI_ERR_TOPOLOGY, MPI_Graph_get(W, 1, 1, index, edges));
    E(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(W, 0, &ival));
    E(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors(W, 0, 1, edges));
    E(MPI_ERR_TOPOLOGY, MPI_Graph_get(cartcomm, 1, 1, index, edges));
    E(MPI_ERR_RANK, MPI_Graph_neighbors_count(graphcomm, 1, &ival));
    E(MPI_ERR_RANK, MPI_Graph_neighbors(graphcomm, -7, 1, edges));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Graphdims_get(bc, &ival, &flag));

    int srcs[1] = {0}, dsts[1] = {0}, badr[1] = {n}, degs[1] = {1};
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Dist_graph_create_adjacent(bc, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Dist_graph_create_adjacent(W, -1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(W, 1, badr, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(W, 1, srcs, MPI_UNWEIGHTED, 1, badr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Dist_graph_create_adjacent(W, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, bi, 0, &newcomm));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Dist_graph_create(bc, 1, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_ARG, MPI_ERR_COUNT, MPI_Dist_graph_create(W, -1, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Dist_graph_create(W, 1, badr, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    E2(MPI_ERR_RANK, MPI_ERR_ARG, MPI_Dist_graph_create(W, 1, srcs, degs, badr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &newcomm));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Dist_graph_create(W, 1, srcs, degs, dsts, MPI_UNWEIGHTED, bi, 0, &newcomm));
    int indeg, outdeg;
    E(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(W, &indeg, &outdeg, &flag));
    E(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(W, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED));
    FOR_BAD(badcomm, bc) E(MPI_ERR_COMM, MPI_Dist_graph_neighbors_count(bc, &indeg, &outdeg, &flag));
}

/* ------------------------------------------------- info, env, errors, misc */
static void test_misc(void)
{
    MPI_Info bi;
    char key[MPI_MAX_INFO_KEY + 8], longval[MPI_MAX_INFO_VAL + 8], val[64];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = 0;
    memset(longval, 'v', sizeof longval - 1);
    longval[sizeof longval - 1] = 0;
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_set(bi, "k", "v"));
    E(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "k", "v"));
    E(MPI_ERR_INFO_KEY, MPI_Info_set(info, NULL, "v"));
    E(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));
    E(MPI_ERR_INFO_KEY, MPI_Info_set(info, key, "v"));
    E(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", NULL));
    E(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", longval));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_delete(bi, "key"));
    E(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "nosuchkey"));
    E(MPI_ERR_INFO_KEY, MPI_Info_delete(info, NULL));
    E(MPI_ERR_INFO_KEY, MPI_Info_delete(info, key));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_get(bi, "key", 10, val, &flag));
    E(MPI_ERR_ARG, MPI_Info_get(info, "key", -1, val, &flag));
    E(MPI_ERR_INFO_KEY, MPI_Info_get(info, key, 10, val, &flag));
    E(MPI_ERR_ARG, MPI_Info_get(info, "key", 10, val, NULL));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_get_nkeys(bi, &ival));
    E(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_get_nthkey(bi, 0, val));
    E(MPI_ERR_ARG, MPI_Info_get_nthkey(info, -1, val));
    E(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 1, val)); /* only one key */
    FOR_BAD(badinfo, bi) { ival = 10; E(MPI_ERR_INFO, MPI_Info_get_string(bi, "key", &ival, val, &flag)); }
    E(MPI_ERR_ARG, MPI_Info_get_string(info, "key", NULL, val, &flag));
    ival = 10; E(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, NULL, &ival, val, &flag));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_get_valuelen(bi, "key", &ival, &flag));
    E(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(info, NULL, &ival, &flag));
    E(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "key", NULL, &flag));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Info_dup(bi, &newinfo));
    E(MPI_ERR_ARG, MPI_Info_dup(info, NULL));
    FOR_BAD(badinfo, bi) { newinfo = bi; E(MPI_ERR_INFO, MPI_Info_free(&newinfo)); }
    newinfo = MPI_INFO_NULL; E(MPI_ERR_INFO, MPI_Info_free(&newinfo));
    newinfo = MPI_INFO_ENV; E2(MPI_ERR_INFO, MPI_ERR_ARG, MPI_Info_free(&newinfo));
    E(MPI_ERR_ARG, MPI_Info_free(NULL));
    E(MPI_ERR_ARG, MPI_Info_create(NULL));
    E(MPI_ERR_ARG, MPI_Info_create_env(0, NULL, NULL));

    /* environment */
    int a, b;
    E(MPI_ERR_ARG, MPI_Get_version(NULL, &b));
    E(MPI_ERR_ARG, MPI_Get_version(&a, NULL));
    E(MPI_ERR_ARG, MPI_Get_library_version(NULL, &a));
    E(MPI_ERR_ARG, MPI_Get_processor_name(NULL, &a));
    E(MPI_ERR_ARG, MPI_Get_processor_name(val, NULL));
    E(MPI_ERR_ARG, MPI_Initialized(NULL));
    E(MPI_ERR_ARG, MPI_Finalized(NULL));
    E(MPI_ERR_ARG, MPI_Query_thread(NULL));
    E(MPI_ERR_ARG, MPI_Is_thread_main(NULL));
    E(MPI_ERR_ARG, MPI_Abi_get_version(NULL, &a));
    E(MPI_ERR_ARG, MPI_Abi_get_info(NULL));
    E(MPI_ERR_ARG, MPI_Abi_get_fortran_info(NULL));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Abi_set_fortran_info(bi));
    int lt, lf;
    E(MPI_ERR_ARG, MPI_Abi_get_fortran_booleans(-1, &lt, &lf, &a));
    E(MPI_ERR_ARG, MPI_Abi_get_fortran_booleans(4, NULL, &lf, &a));
    E(MPI_ERR_ARG, MPI_Abi_set_fortran_booleans(-1, &lt, &lf));
    E(MPI_ERR_ARG, MPI_Abi_set_fortran_booleans(4, NULL, &lf));
    int argc = 0;
    char **argv = NULL;
    E2(MPI_ERR_OTHER, MPI_ERR_ARG, MPI_Init(&argc, &argv)); /* twice */
    E2(MPI_ERR_OTHER, MPI_ERR_ARG, MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &a));

    /* error classes, codes and strings */
    char msg[MPI_MAX_ERROR_STRING];
    E(MPI_ERR_ARG, MPI_Error_class(-5, &a));
    E(MPI_ERR_ARG, MPI_Error_class(1 << 24, &a));
    E(MPI_ERR_ARG, MPI_Error_class(MPI_ERR_COMM, NULL));
    E(MPI_ERR_ARG, MPI_Error_string(-5, msg, &a));
    E(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_COMM, NULL, &a));
    E(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_COMM, msg, NULL));
    E(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    E(MPI_ERR_ARG, MPI_Add_error_code(-1, &a));
    E(MPI_ERR_ARG, MPI_Add_error_code(123456, &a));
    E(MPI_ERR_ARG, MPI_Add_error_string(-1, "x"));
    E(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_COMM, "x")); /* predefined */
    E(MPI_ERR_ARG, MPI_Remove_error_class(MPI_ERR_COMM));
    E(MPI_ERR_ARG, MPI_Remove_error_class(-1));
    E(MPI_ERR_ARG, MPI_Remove_error_code(MPI_ERR_COMM));
    E(MPI_ERR_ARG, MPI_Remove_error_string(MPI_ERR_COMM));
    int ucls;
    MPI_CHK(MPI_Add_error_class(&ucls));
    E(MPI_ERR_ARG, MPI_Add_error_code(ucls, NULL));
    E(MPI_ERR_ARG, MPI_Add_error_string(ucls, NULL));
    MPI_CHK(MPI_Remove_error_class(ucls));

    /* memory */
    void *mem;
    E2(MPI_ERR_SIZE, MPI_ERR_ARG, MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem));
    E(MPI_ERR_ARG, MPI_Alloc_mem(16, MPI_INFO_NULL, NULL));
    FOR_BAD(badinfo, bi) E(MPI_ERR_INFO, MPI_Alloc_mem(16, bi, &mem));

    /* windows: keyvals and attributes with bad windows (no window needed) */
    MPI_Win bw;
    void *v;
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_set_attr(bw, win_key, &ival));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_get_attr(bw, win_key, &v, &flag));
    FOR_BAD(badwin, bw) E(MPI_ERR_WIN, MPI_Win_delete_attr(bw, win_key));
    int k = comm_key;
    E(MPI_ERR_KEYVAL, MPI_Win_free_keyval(&k));
    E(MPI_ERR_ARG, MPI_Win_free_keyval(NULL));
    E(MPI_ERR_ARG, MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL));

    /* handle conversions with bad values: no crash, null handles back */
    CHECK(MPI_Comm_fromint(-12345) == MPI_COMM_NULL, "Comm_fromint(-12345) is not MPI_COMM_NULL");
    CHECK(MPI_Type_fromint(0x7fffff00) == MPI_DATATYPE_NULL, "Type_fromint(junk) is not MPI_DATATYPE_NULL");
    CHECK(MPI_Group_fromint(-3) == MPI_GROUP_NULL, "Group_fromint(-3) is not MPI_GROUP_NULL");
    CHECK(MPI_Op_fromint(99999999) == MPI_OP_NULL, "Op_fromint(junk) is not MPI_OP_NULL");
    CHECK(MPI_Info_fromint(-1) == MPI_INFO_NULL, "Info_fromint(-1) is not MPI_INFO_NULL");
    CHECK(MPI_Request_fromint(-77) == MPI_REQUEST_NULL, "Request_fromint(junk) is not MPI_REQUEST_NULL");
    CHECK(MPI_Errhandler_fromint(-77) == MPI_ERRHANDLER_NULL, "Errhandler_fromint(junk)");
    CHECK(MPI_Message_fromint(-77) == MPI_MESSAGE_NULL, "Message_fromint(junk)");
    CHECK(MPI_Win_fromint(-77) == MPI_WIN_NULL, "Win_fromint(junk)");
    CHECK(MPI_File_fromint(-77) == MPI_FILE_NULL, "File_fromint(junk)");
    CHECK(MPI_Session_fromint(-77) == MPI_SESSION_NULL, "Session_fromint(junk)");
    (void)MPI_Comm_toint(badcomm.h[1]);
    (void)MPI_Type_toint(badtype.h[1]);
    (void)MPI_Group_toint(badgroup.h[1]);
    (void)MPI_Op_toint(badop.h[1]);
    (void)MPI_Info_toint(badinfo.h[0]);
    (void)MPI_Errhandler_toint(baderrh.h[1]);
    (void)MPI_Request_toint(MPI_REQUEST_NULL);
    (void)MPI_Message_toint(MPI_MESSAGE_NULL);
    (void)MPI_Win_toint(MPI_WIN_NULL);
    (void)MPI_File_toint(MPI_FILE_NULL);
    (void)MPI_Session_toint(MPI_SESSION_NULL);
    MPI_Pcontrol(0);
    CHECK(MPI_Wtick() > 0, "MPI_Wtick");
    CHECK(MPI_Wtime() > 0, "MPI_Wtime");
    CHECK(MPI_Aint_add(16, -8) == 8 && MPI_Aint_diff(16, 8) == 8, "MPI_Aint_add/diff");
    MPI_CHK(MPI_Free_mem(NULL)); /* nothing to free */
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    setup();
    test_p2p();
    test_requests();
    test_comm();
    test_types();
    test_topo();
    test_misc();
    return et_finish("errors_table");
}
