/* Buffered sends: MPI_Buffer_attach/detach/flush and the copy of a
 * buffered message into the attached buffer. Each message takes its packed
 * size plus a fixed overhead (at most MPI_BSEND_OVERHEAD) from the buffer,
 * found first-fit among the gaps between the messages still in flight; the
 * space returns when the internal send completes. With
 * MPI_BUFFER_AUTOMATIC, messages are copied into malloc'ed memory. */
#include "api/api.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

#define BSEND_OVERHEAD 64 /* bytes accounted per message, <= MPI_BSEND_OVERHEAD */

typedef struct bblock {
    struct bblock *next;
    size_t off, len;       /* region of the attached buffer */
    dmpi_request *send;
    void *heap;            /* automatic mode: malloc'ed copy */
} bblock;

static struct {
    char *base;
    size_t size;
    bool attached, automatic;
    bblock *inflight;      /* sorted by offset */
} bb;

static size_t align8(size_t v) { return (v + 7) & ~(size_t)7; }

/* Releases the space of completed sends. */
static void reap(void)
{
    for (bblock **pp = &bb.inflight; *pp;) {
        bblock *b = *pp;
        if (atomic_load(&b->send->complete)) {
            dmpi_request_free(b->send);
            free(b->heap);
            *pp = b->next;
            free(b);
        } else {
            pp = &b->next;
        }
    }
}

static bool find_gap(size_t need, size_t *off, bblock ***insert_at)
{
    size_t pos = 0;
    bblock **pp = &bb.inflight;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - pos >= need) break;
        pos = (*pp)->off + (*pp)->len;
    }
    if (!*pp && bb.size - pos < need) return false;
    *off = pos;
    *insert_at = pp;
    return true;
}

int dmpi_bsend_copy(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                    dmpi_comm *c, const char *fn)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!bb.attached)
        return dmpi_error(c, MPI_ERR_BUFFER, fn, "no buffer attached for a buffered send");
    reap();
    size_t bytes = (size_t)(count * dt->size);
    size_t need = align8(bytes) + BSEND_OVERHEAD;
    bblock *b = calloc(1, sizeof *b);
    if (!b) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    char *copy;
    bblock **at = &bb.inflight;
    if (bb.automatic) {
        copy = b->heap = malloc(bytes ? bytes : 1);
        if (!copy) {
            free(b);
            return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a buffered send");
        }
        while (*at) at = &(*at)->next;
    } else {
        size_t off;
        if (!find_gap(need, &off, &at)) {
            free(b);
            return dmpi_error(c, MPI_ERR_BUFFER, fn,
                              "attached buffer (%zu bytes) too small for this %zu-byte message "
                              "and those in flight",
                              bb.size, bytes);
        }
        b->off = off;
        b->len = need;
        copy = bb.base + off;
    }
    dmpi_dt_pack(buf, count, dt, 0, copy, (MPI_Count)bytes);
    int rc = dmpi_isend(copy, (MPI_Count)bytes, dmpi_dt_builtin(MPI_BYTE), dest, tag, c,
                        DMPI_CTX_P2P, DMPI_MODE_STD, &b->send);
    if (rc != MPI_SUCCESS) {
        free(b->heap);
        free(b);
        return dmpi_error(c, rc, fn, "buffered send failed");
    }
    b->next = *at;
    *at = b;
    return MPI_SUCCESS;
}

/* Waits until every buffered message has left the buffer. */
static void flush_all(void)
{
    unsigned idle = 0;
    for (reap(); bb.inflight; reap()) {
        if (!dmpi_progress()) dmpi_progress_idle(&idle);
    }
}

static int attach(const char *fn, void *buffer, MPI_Count size)
{
    DMPI_CHECK_INIT(fn);
    if (bb.attached) return dmpi_error_noobj(MPI_ERR_BUFFER, fn, "a buffer is already attached");
    bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && (size < 0 || (!buffer && size > 0)))
        return dmpi_error_noobj(size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER, fn,
                                "invalid buffer (%p, %lld bytes)", buffer, (long long)size);
    dmpi_lock();
    bb.base = automatic ? NULL : buffer;
    bb.size = automatic ? 0 : (size_t)size;
    bb.automatic = automatic;
    bb.attached = true;
    dmpi_unlock();
    return MPI_SUCCESS;
}

static int detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    DMPI_CHECK_INIT(fn);
    if (!buffer_addr || !size) return dmpi_error_noobj(MPI_ERR_ARG, fn, "NULL argument");
    if (!bb.attached) return dmpi_error_noobj(MPI_ERR_BUFFER, fn, "no buffer is attached");
    dmpi_lock();
    flush_all();
    *(void **)buffer_addr = bb.automatic ? MPI_BUFFER_AUTOMATIC : bb.base;
    *size = (MPI_Count)bb.size;
    memset(&bb, 0, sizeof bb);
    dmpi_unlock();
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach("MPI_Buffer_attach", buffer, size);
}
DMPI_ALIAS(Buffer_attach)

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach("MPI_Buffer_attach_c", buffer, size);
}
DMPI_ALIAS(Buffer_attach_c)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = detach("MPI_Buffer_detach", buffer_addr, &n);
    if (rc == MPI_SUCCESS) *size = (int)n;
    return rc;
}
DMPI_ALIAS(Buffer_detach)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return detach("MPI_Buffer_detach_c", buffer_addr, size);
}
DMPI_ALIAS(Buffer_detach_c)

int PMPI_Buffer_flush(void)
{
    DMPI_CHECK_INIT("MPI_Buffer_flush");
    dmpi_lock();
    flush_all();
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Buffer_flush)

void dmpi_bsend_finalize(void)
{
    flush_all();
}
