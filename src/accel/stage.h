/* Staging of device buffers through host memory at the API boundary:
 * point-to-point calls hand the p2p layer a host copy of the bytes a
 * datatype spans, so nothing below the API ever sees a device address.
 * A send copies device -> host before the host path runs; a receive lands
 * in a host block that is copied host -> device when the request
 * completes (the request's on_complete hook). Everything here runs only
 * when dmpi_accel_on (callers test dmpi_stage_wanted first). */
#ifndef DMPI_ACCEL_STAGE_H
#define DMPI_ACCEL_STAGE_H

#include "accel/accel.h"
#include "core/dmpi.h"

typedef struct dmpi_stage {
    char *dev;                /* start of the device bytes the datatype spans */
    char *host;               /* host block of span bytes (NULL: not staged) */
    size_t span;
    MPI_Aint lo;              /* dev = user buffer + lo */
    dmpi_mem_kind kind;
    bool recv, contig;
} dmpi_stage;

/* True when count elements of dt at buf lie in device memory that needs
 * staging: one predictable branch on dmpi_accel_on for host buffers. */
bool dmpi_stage_wanted_slow(const void *buf, MPI_Count count, const dmpi_datatype *dt);
static inline bool dmpi_stage_wanted(const void *buf, MPI_Count count, const dmpi_datatype *dt)
{
    if (__builtin_expect(!dmpi_accel_on, 1)) return false;
    return dmpi_stage_wanted_slow(buf, count, dt);
}

/* Makes the host copy of count elements of dt at buf and points *hbuf at
 * it (a send copies the device bytes in; a receive of a type with holes
 * too, so the holes survive the copy back). Returns NULL on failure with
 * *rc set (MPI_ERR_BUFFER, MPI_ERR_NO_MEM) and dmpi_accel_error() saying
 * why. */
dmpi_stage *dmpi_stage_new(bool recv, const void *buf, MPI_Count count, const dmpi_datatype *dt,
                           void **hbuf, int *rc);
/* A receive copies the `bytes` received (all of the span for a type with
 * holes) back to the device; a send does nothing. */
int dmpi_stage_finish(dmpi_stage *s, MPI_Count bytes);
/* Copies the device bytes into the host block again (persistent sends at
 * each start, Sendrecv_replace's outgoing data). */
int dmpi_stage_refresh(dmpi_stage *s);
void dmpi_stage_free(dmpi_stage *s);

/* Hands s over to request r (lock held): a receive copies back when r
 * completes (now, if r already has), s goes when r is freed. */
void dmpi_stage_attach(dmpi_request *r, dmpi_stage *s);

/* For a receive request made below the API (MPI_Mrecv's): stages r->buf
 * when it is device memory. If staging fails the message is received into
 * nothing (r->count 0: truncated), never into device memory. */
void dmpi_stage_recv_request(dmpi_request *r);

/* Raises the error for a buffer staging refused (rc from dmpi_stage_new);
 * which: "send buffer", "receive buffer". */
int dmpi_stage_error(dmpi_comm *c, int rc, const char *fn, const char *which);

#endif
