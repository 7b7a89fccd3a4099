/* Partitioned communication entry points (MPI 4.1 chapter 4):
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready,
 * MPI_Pready_range, MPI_Pready_list and MPI_Parrived. The argument checks
 * live here, the protocol in p2p/part.c; MPI_Start, the completion calls,
 * MPI_Cancel and MPI_Request_free treat partitioned requests as persistent
 * ones (api/request.c). Wildcards are not allowed (sec. 4.2). Errors:
 * MPI_ERR_REQUEST for a request that is not a partitioned send (receive,
 * for MPI_Parrived), MPI_ERR_ARG for an inactive request, a partition out
 * of range or one marked ready twice in a round. */
#include "api/api.h"
#include "p2p/part.h"

static int part_init(const char *fn, bool is_send, void *buf, int partitions, MPI_Count count,
                     MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{
    DMPI_CHECK_INIT(fn);
    if (!req) return dmpi_error_noobj(MPI_ERR_ARG, fn, "request is NULL");
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, fn);
    DMPI_CHECK(c, partitions >= 1, MPI_ERR_ARG, fn, "invalid partition count %d", partitions);
    DMPI_CHECK_COUNT(c, count, fn);
    dmpi_datatype *dt;
    DMPI_GET_DTYPE(dt, c, type, fn);
    DMPI_CHECK_BUF(c, buf, count, dt, fn);
    DMPI_CHECK_DEST(c, peer, fn); /* no MPI_ANY_SOURCE for a receive either */
    DMPI_CHECK_SEND_TAG(c, tag, fn); /* nor MPI_ANY_TAG */
    DMPI_CHECK_INFO(c, info, fn);
    dmpi_request *r;
    dmpi_lock();
    int rc = dmpi_part_init(is_send, buf, partitions, count, dt, peer, tag, c, &r);
    dmpi_unlock();
    if (rc != MPI_SUCCESS) return dmpi_error(c, rc, fn, "cannot make the request");
    *req = dmpi_request_handle(r);
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", true, (void *)buf, partitions, count, datatype, dest, tag,
                     comm, info, request);
}
DMPI_ALIAS(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm,
                     info, request);
}
DMPI_ALIAS(Precv_init)

/* The partitioned request of the given direction behind h, active. */
static int get_part(MPI_Request h, bool want_send, const char *fn, dmpi_request **out,
                    int *partitions)
{
    DMPI_CHECK_INIT(fn);
    dmpi_request *r = dmpi_request_get(h);
    bool is_send;
    if (!r || !dmpi_part_query(r, &is_send, partitions) || is_send != want_send)
        return dmpi_error_noobj(MPI_ERR_REQUEST, fn, "not a partitioned %s request",
                                want_send ? "send" : "receive");
    if (!r->active)
        return dmpi_error(r->comm, MPI_ERR_ARG, fn, "the request is not active (MPI_Start it)");
    *out = r;
    return MPI_SUCCESS;
}

/* Marks partitions lo..hi (or the n of list) ready. */
static int ready(MPI_Request h, int lo, int hi, int n, const int *list, const char *fn)
{
    dmpi_request *r;
    int parts;
    int rc = get_part(h, true, fn, &r, &parts);
    if (rc != MPI_SUCCESS) return rc;
    if (list) {
        DMPI_CHECK(r->comm, n >= 0, MPI_ERR_ARG, fn, "negative length %d", n);
        for (int k = 0; k < n; k++)
            DMPI_CHECK(r->comm, list[k] >= 0 && list[k] < parts, MPI_ERR_ARG, fn,
                       "partition %d out of range (%d partitions)", list[k], parts);
    } else {
        DMPI_CHECK(r->comm, lo >= 0 && hi < parts && lo <= hi, MPI_ERR_ARG, fn,
                   "invalid partition range %d..%d (%d partitions)", lo, hi, parts);
        n = hi - lo + 1;
    }
    dmpi_lock();
    int bad = -1;
    for (int k = 0; k < n && bad < 0; k++) {
        int i = list ? list[k] : lo + k;
        if (dmpi_part_ready(r, i) != MPI_SUCCESS) bad = i;
    }
    dmpi_unlock();
    if (bad >= 0)
        return dmpi_error(r->comm, MPI_ERR_ARG, fn, "partition %d is already ready in this round",
                          bad);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    return ready(request, partition, partition, 0, NULL, "MPI_Pready");
}
DMPI_ALIAS(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    return ready(request, partition_low, partition_high, 0, NULL, "MPI_Pready_range");
}
DMPI_ALIAS(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    static const char *const FN = "MPI_Pready_list";
    if (length > 0 && !array_of_partitions)
        return dmpi_error_noobj(MPI_ERR_ARG, FN, "array_of_partitions is NULL");
    static const int none[1];
    return ready(request, 0, 0, length, length > 0 ? array_of_partitions : none, FN);
}
DMPI_ALIAS(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char *const FN = "MPI_Parrived";
    DMPI_CHECK_INIT(FN);
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, FN, "flag is NULL");
    dmpi_request *r = dmpi_request_get(request);
    bool is_send;
    int parts;
    if (!r || !dmpi_part_query(r, &is_send, &parts) || is_send)
        return dmpi_error_noobj(MPI_ERR_REQUEST, FN, "not a partitioned receive request");
    DMPI_CHECK(r->comm, partition >= 0 && partition < parts, MPI_ERR_ARG, FN,
               "partition %d out of range (%d partitions)", partition, parts);
    dmpi_lock();
    *flag = dmpi_part_arrived(r, partition); /* true for an inactive request */
    dmpi_unlock();
    dmpi_poll_result(*flag);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Parrived)
