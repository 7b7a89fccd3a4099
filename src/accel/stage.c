/* Staging of device buffers through host blocks for point-to-point calls
 * (see stage.h). First correct version: one host block per call holding
 * every byte the datatype spans (true extent), copied in one piece;
 * pipelining in pinned blocks is left for later (docs/accel.md). */
#include "accel/stage.h"

#include <stdlib.h>
#include <string.h>

/* The bytes count elements of dt span, as [lo, lo + span) from buf. */
static void span_of(MPI_Count count, const dmpi_datatype *dt, MPI_Aint *lo, size_t *span)
{
    if (count <= 0 || dt->size == 0) {
        *lo = 0;
        *span = 0;
        return;
    }
    MPI_Aint reach = (MPI_Aint)(count - 1) * dt->extent;
    *lo = dt->true_lb + (reach < 0 ? reach : 0);
    *span = (size_t)(dt->true_extent + (reach < 0 ? -reach : reach));
}

bool dmpi_stage_wanted_slow(const void *buf, MPI_Count count, const dmpi_datatype *dt)
{
    MPI_Aint lo;
    size_t span;
    span_of(count, dt, &lo, &span);
    return span && dmpi_mem_kind_is_device(dmpi_accel_classify((const char *)buf + lo, NULL));
}

dmpi_stage *dmpi_stage_new(bool recv, const void *buf, MPI_Count count, const dmpi_datatype *dt,
                           void **hbuf, int *rc)
{
    dmpi_stage *s = calloc(1, sizeof *s);
    if (!s) {
        dmpi_accel_set_error("no memory for the staging state");
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    span_of(count, dt, &s->lo, &s->span);
    s->dev = (char *)buf + s->lo;
    s->kind = dmpi_accel_classify(s->dev, NULL);
    s->recv = recv;
    s->contig = dt->contiguous;
    s->host = s->span ? dmpi_accel_pinned_alloc(s->span) : NULL;
    if (s->span && !s->host) {
        dmpi_accel_set_error("no memory for a %zu-byte host staging block", s->span);
        free(s);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    *rc = !recv || !s->contig ? dmpi_stage_refresh(s) : MPI_SUCCESS;
    if (*rc != MPI_SUCCESS) {
        dmpi_stage_free(s);
        return NULL;
    }
    *hbuf = s->host ? s->host - s->lo : (void *)buf;
    return s;
}

int dmpi_stage_refresh(dmpi_stage *s)
{
    if (!s->host) return MPI_SUCCESS;
    return dmpi_accel_copy(s->host, DMPI_MEM_HOST, s->dev, s->kind, s->span);
}

int dmpi_stage_finish(dmpi_stage *s, MPI_Count bytes)
{
    if (!s->host || !s->recv) return MPI_SUCCESS;
    size_t n = s->contig ? (size_t)(bytes < 0 ? 0 : bytes) : s->span;
    if (n > s->span) n = s->span;
    return dmpi_accel_copy(s->dev, s->kind, s->host, DMPI_MEM_HOST, n);
}

void dmpi_stage_free(dmpi_stage *s)
{
    if (!s) return;
    dmpi_accel_pinned_free(s->host, s->span);
    free(s);
}

/* on_complete of a staged receive: the device gets the received bytes. */
static void recv_done(dmpi_request *r)
{
    int rc = dmpi_stage_finish(r->stage, dmpi_status_bytes(&r->status));
    if (rc != MPI_SUCCESS && r->status.MPI_ERROR == MPI_SUCCESS) r->status.MPI_ERROR = rc;
}

/* on_free: the host block and the state go with the request. */
static void stage_on_free(dmpi_request *r)
{
    dmpi_stage_free(r->stage);
    r->stage = NULL;
    r->on_complete = NULL;
}

void dmpi_stage_attach(dmpi_request *r, dmpi_stage *s)
{
    r->stage = s;
    r->on_free = stage_on_free;
    if (!s->recv) return;
    r->on_complete = recv_done;
    if (atomic_load_explicit(&r->complete, memory_order_acquire)) recv_done(r);
}

void dmpi_stage_recv_request(dmpi_request *r)
{
    if (r->stage || !dmpi_stage_wanted(r->buf, r->count, r->dt)) return;
    int rc;
    void *h;
    dmpi_stage *s = dmpi_stage_new(true, r->buf, r->count, r->dt, &h, &rc);
    if (!s) {
        r->buf = NULL;
        r->count = 0;
        return;
    }
    r->buf = h;
    dmpi_stage_attach(r, s);
}

int dmpi_stage_error(dmpi_comm *c, int rc, const char *fn, const char *which)
{
    return dmpi_error(c, rc, fn, "the %s is device memory and cannot be staged: %s", which,
                      dmpi_accel_error());
}
