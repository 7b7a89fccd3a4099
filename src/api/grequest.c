/* Generalized requests (MPI_Grequest_start/complete): operations the
 * application completes itself. The query function fills the status when
 * the request is waited on or tested; the free function runs when the
 * request is freed; the cancel function when it is cancelled. An error
 * code a callback returns is returned by the MPI call that ran it. */
#include "api/api.h"

#include <stdlib.h>

typedef struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *state;
} greq;

/* Runs the free function (the request is about to be freed) and returns
 * its error code, which the MPI call that frees the request returns. */
int dmpi_greq_release(dmpi_request *r)
{
    greq *g = r->ext;
    if (!g) return MPI_SUCCESS;
    int rc = g->free_fn ? g->free_fn(g->state) : MPI_SUCCESS;
    free(g);
    r->ext = NULL;
    return rc;
}

static void greq_free(dmpi_request *r)
{
    (void)dmpi_greq_release(r); /* freed after completion: nobody to tell */
}

void dmpi_greq_query(dmpi_request *r)
{
    greq *g = r->ext;
    if (!g || !g->query) return;
    MPI_Status st;
    dmpi_status_empty(&st);
    st.MPI_ERROR = MPI_SUCCESS;
    int rc = g->query(g->state, &st);
    if (rc != MPI_SUCCESS) st.MPI_ERROR = rc;
    r->status = st;
}

int dmpi_greq_cancel(dmpi_request *r)
{
    greq *g = r->ext;
    if (g && g->cancel) return g->cancel(g->state, atomic_load(&r->complete));
    return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char *const FN = "MPI_Grequest_start";
    DMPI_CHECK_INIT(FN);
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, FN, "request is NULL");
    greq *g = malloc(sizeof *g);
    dmpi_lock();
    dmpi_request *r = g ? dmpi_request_alloc(DMPI_REQ_GREQ) : NULL;
    dmpi_unlock();
    if (!r) {
        free(g);
        return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    }
    *g = (greq){query_fn, free_fn, cancel_fn, extra_state};
    r->ext = g;
    r->on_free = greq_free;
    *request = dmpi_request_handle(r);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    static const char *const FN = "MPI_Grequest_complete";
    DMPI_CHECK_INIT(FN);
    dmpi_request *r = dmpi_request_get(request);
    if (!r || r->kind != DMPI_REQ_GREQ)
        return dmpi_error_noobj(MPI_ERR_REQUEST, FN, "not a generalized request");
    dmpi_lock();
    dmpi_request_complete(r);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Grequest_complete)
