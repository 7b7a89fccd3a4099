/* libdmpi_profile.so: the point-to-point calls that need more than the
 * generated wrappers give: blocking receives (bytes from the status, so
 * wildcard receives count what arrived), MPI_Sendrecv, and persistent
 * sends (counted at each MPI_Start, from a table of the requests). */
#include "prof.h"

#include <pthread.h>
#include <stdlib.h>

/* bytes a receive got, from its status (or st when the caller ignores it) */
static uint64_t got(const MPI_Status *st)
{
    MPI_Count n = 0;
    return PMPI_Get_count_c(st, MPI_BYTE, &n) == MPI_SUCCESS && n > 0 ? (uint64_t)n : 0;
}

#define RECV_BODY(id, call)                                  \
    MPI_Status mine;                                         \
    if (status == MPI_STATUS_IGNORE) status = &mine;         \
    uint64_t t0 = prof_start(id);                            \
    int rc = call;                                           \
    uint64_t t1 = prof_stop(t0);                             \
    prof_add(id, t0, t1, rc == MPI_SUCCESS ? got(status) : 0); \
    return rc;

PROF_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Status *status)
{
    RECV_BODY(P_MPI_Recv, PMPI_Recv(buf, count, datatype, source, tag, comm, status))
}

PROF_EXPORT int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, MPI_Status *status)
{
    RECV_BODY(P_MPI_Recv_c, PMPI_Recv_c(buf, count, datatype, source, tag, comm, status))
}

PROF_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Status *status)
{
    RECV_BODY(P_MPI_Mrecv, PMPI_Mrecv(buf, count, datatype, message, status))
}

#define SENDRECV_BODY(id, call, count, type)                                   \
    MPI_Status mine;                                                           \
    if (status == MPI_STATUS_IGNORE) status = &mine;                           \
    uint64_t t0 = prof_start(id);                                              \
    int rc = call;                                                             \
    uint64_t t1 = prof_stop(t0);                                               \
    prof_add(id, t0, t1, rc == MPI_SUCCESS ? prof_send(count, type, dest, comm) + got(status) : 0); \
    return rc;

PROF_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    SENDRECV_BODY(P_MPI_Sendrecv, PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                  recvcount, recvtype, source, recvtag, comm, status), sendcount, sendtype)
}

PROF_EXPORT int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                               int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    SENDRECV_BODY(P_MPI_Sendrecv_c, PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                  recvcount, recvtype, source, recvtag, comm, status), sendcount, sendtype)
}

PROF_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                     int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    SENDRECV_BODY(P_MPI_Sendrecv_replace, PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag,
                  source, recvtag, comm, status), count, datatype)
}

/* ---- persistent sends: request -> (world peer, bytes), open addressing */

struct persist { MPI_Request req; int peer; uint64_t n; };
static struct persist *tab;
static size_t cap, used;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot(MPI_Request r)
{
    size_t h = (size_t)(uintptr_t)r * 0x9e3779b97f4a7c15ull, i = (h >> 17) & (cap - 1);
    while (tab[i].req != MPI_REQUEST_NULL && tab[i].req != r) i = (i + 1) & (cap - 1);
    return i;
}

void prof_persist_add(MPI_Request req, int send, int peer, uint64_t n)
{
    pthread_mutex_lock(&tab_lock);
    if (2 * (used + 1) > cap) { /* grow (and drop the tombstones) */
        struct persist *old = tab;
        size_t ocap = cap;
        cap = cap ? 2 * cap : 64;
        tab = calloc(cap, sizeof *tab);
        for (size_t i = 0; tab && i < cap; i++) tab[i].req = MPI_REQUEST_NULL;
        used = 0;
        for (size_t i = 0; tab && i < ocap; i++)
            if (old[i].req != MPI_REQUEST_NULL && old[i].peer != -2) tab[slot(old[i].req)] = old[i], used++;
        free(old);
    }
    if (tab) {
        size_t i = slot(req);
        if (tab[i].req == MPI_REQUEST_NULL) used++;
        tab[i] = (struct persist){req, send ? peer : -2, n};
    }
    pthread_mutex_unlock(&tab_lock);
}

/* bytes of the persistent send req (0 if it is none), counted as sent */
static uint64_t persist_start(MPI_Request req)
{
    uint64_t n = 0;
    int peer = -2;
    pthread_mutex_lock(&tab_lock);
    if (tab && req != MPI_REQUEST_NULL) {
        size_t i = slot(req);
        if (tab[i].req == req) peer = tab[i].peer, n = tab[i].n;
    }
    pthread_mutex_unlock(&tab_lock);
    if (peer == -2) return 0; /* not a send, or dropped */
    prof_hist(PROF_P2P, n);
    prof_msg(PROF_P2P, peer, n);
    return n;
}

void prof_persist_start(MPI_Request req) { (void)persist_start(req); }

void prof_persist_drop(MPI_Request req)
{
    pthread_mutex_lock(&tab_lock);
    if (tab && req != MPI_REQUEST_NULL) {
        size_t i = slot(req);
        if (tab[i].req == req) tab[i].peer = -2; /* tombstone: keeps probe chains */
    }
    pthread_mutex_unlock(&tab_lock);
}

#define INIT_BODY(id, call)                                                     \
    uint64_t t0 = prof_start(id);                                               \
    int rc = call;                                                              \
    prof_add(id, t0, prof_stop(t0), 0);                                         \
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)                             \
        prof_persist_add(*request, 1, prof_peer(comm, dest), prof_bytes(count, datatype)); \
    return rc;

PROF_EXPORT int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    INIT_BODY(P_MPI_Send_init, PMPI_Send_init(buf, count, datatype, dest, tag, comm, request))
}

PROF_EXPORT int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request *request)
{
    INIT_BODY(P_MPI_Ssend_init, PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request))
}

PROF_EXPORT int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request *request)
{
    INIT_BODY(P_MPI_Bsend_init, PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request))
}

PROF_EXPORT int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request *request)
{
    INIT_BODY(P_MPI_Rsend_init, PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request))
}

/* the request a call names (a NULL pointer is the library's error to report) */
static MPI_Request req_of(const MPI_Request *request) { return request ? *request : MPI_REQUEST_NULL; }

PROF_EXPORT int MPI_Start(MPI_Request *request)
{
    MPI_Request r = req_of(request);
    uint64_t t0 = prof_start(P_MPI_Start);
    int rc = PMPI_Start(request);
    uint64_t t1 = prof_stop(t0);
    prof_add(P_MPI_Start, t0, t1, rc == MPI_SUCCESS && tab ? persist_start(r) : 0);
    return rc;
}

PROF_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    uint64_t t0 = prof_start(P_MPI_Startall);
    int rc = PMPI_Startall(count, array_of_requests);
    uint64_t t1 = prof_stop(t0), n = 0;
    for (int i = 0; rc == MPI_SUCCESS && tab && i < count; i++) n += persist_start(array_of_requests[i]);
    prof_add(P_MPI_Startall, t0, t1, n);
    return rc;
}

PROF_EXPORT int MPI_Request_free(MPI_Request *request)
{
    MPI_Request r = req_of(request);
    uint64_t t0 = prof_start(P_MPI_Request_free);
    int rc = PMPI_Request_free(request);
    prof_add(P_MPI_Request_free, t0, prof_stop(t0), 0);
    if (rc == MPI_SUCCESS && tab) prof_persist_drop(r);
    return rc;
}
