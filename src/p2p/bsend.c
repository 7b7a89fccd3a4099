/* Buffered sends: the process's buffer (MPI_Buffer_attach/detach/flush/
 * iflush) and MPI 4.1 per-communicator buffers (MPI_Comm_attach_buffer
 * and friends; a communicator's buffer takes precedence over the
 * process's). Each message takes its packed size plus a fixed overhead (at
 * most MPI_BSEND_OVERHEAD) from the buffer, found first-fit among the gaps
 * between the messages still in flight; the space returns when the
 * internal send completes. With MPI_BUFFER_AUTOMATIC, messages are copied
 * into malloc'ed memory. A session's buffer (MPI_Session_attach_buffer
 * and friends) serves the communicators derived from that session that
 * have none of their own; then comes the process's. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "core/session.h"
#include "p2p/p2p.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BSEND_OVERHEAD 64 /* bytes accounted per message, <= MPI_BSEND_OVERHEAD */

typedef struct bblock {
    struct bblock *next;
    size_t off, len;       /* region of the attached buffer */
    dmpi_request *send;
    void *heap;            /* automatic mode: malloc'ed copy */
} bblock;

typedef struct bbuf {
    char *base;
    size_t size;
    bool attached, automatic;
    bblock *inflight;      /* sorted by offset */
} bbuf;

/* The process's buffer, and the communicators' buffers by communicator. */
typedef struct comm_bbuf {
    struct comm_bbuf *next;
    const dmpi_comm *comm;
    bbuf b;
} comm_bbuf;

static bbuf process_buf;
static comm_bbuf *comm_bufs;

static size_t align8(size_t v) { return (v + 7) & ~(size_t)7; }

static comm_bbuf *comm_entry(const dmpi_comm *c)
{
    for (comm_bbuf *e = comm_bufs; e; e = e->next)
        if (e->comm == c) return e;
    return NULL;
}

/* The buffer a buffered send on c uses: its own, its session's, or the
 * process's. */
static bbuf *buffer_for(dmpi_comm *c)
{
    comm_bbuf *e = comm_entry(c);
    if (e && e->b.attached) return &e->b;
    dmpi_session *s = dmpi_comm_session(c);
    bbuf *sb = s ? s->bsend : NULL;
    return sb && sb->attached ? sb : &process_buf;
}

/* Releases the space of completed sends; true when nothing is in flight. */
static bool reap(bbuf *bb)
{
    for (bblock **pp = &bb->inflight; *pp;) {
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
    return bb->inflight == NULL;
}

static bool find_gap(bbuf *bb, size_t need, size_t *off, bblock ***insert_at)
{
    size_t pos = 0;
    bblock **pp = &bb->inflight;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - pos >= need) break;
        pos = (*pp)->off + (*pp)->len;
    }
    if (!*pp && bb->size - pos < need) return false;
    *off = pos;
    *insert_at = pp;
    return true;
}

/* Room for need bytes among the messages still in flight (the completed
 * ones reaped already). If there is none, progress passes may complete
 * more (a reply already in the ring), as long as they find work: MPI 4.1
 * sec. 3.6.2, the model implementation tests the pending sends before it
 * decides the buffer is full. */
static bool make_room(bbuf *bb, size_t need, size_t *off, bblock ***insert_at)
{
    while (!find_gap(bb, need, off, insert_at)) {
        if (!dmpi_progress()) return false;
        reap(bb);
    }
    return true;
}

int dmpi_bsend_copy(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest, int tag,
                    dmpi_comm *c, const char *fn)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    bbuf *bb = buffer_for(c);
    if (!bb->attached)
        return dmpi_error(c, MPI_ERR_BUFFER, fn, "no buffer attached for a buffered send");
    reap(bb);
    size_t bytes = (size_t)(count * dt->size);
    size_t need = align8(bytes) + BSEND_OVERHEAD;
    bblock *b = calloc(1, sizeof *b);
    if (!b) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
    char *copy;
    bblock **at = &bb->inflight;
    if (bb->automatic) {
        copy = b->heap = malloc(bytes ? bytes : 1);
        if (!copy) {
            free(b);
            return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory for a buffered send");
        }
        while (*at) at = &(*at)->next;
    } else {
        size_t off;
        if (!make_room(bb, need, &off, &at)) {
            free(b);
            return dmpi_error(c, MPI_ERR_BUFFER, fn,
                              "attached buffer (%zu bytes) too small for this %zu-byte message "
                              "and those in flight",
                              bb->size, bytes);
        }
        b->off = off;
        b->len = need;
        copy = bb->base + off;
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

/* Waits until every buffered message of bb has left the buffer. */
static void flush_all(bbuf *bb)
{
    unsigned idle = 0;
    while (!reap(bb)) {
        if (!dmpi_progress()) dmpi_progress_idle(&idle);
    }
}

/* Who a buffer call's errors are raised on: a communicator (NULL: no
 * object, for the process's buffer) or a session. */
typedef struct { dmpi_comm *c; dmpi_session *s; } owner;

static int raise_on(owner o, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int raise_on(owner o, int cls, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return o.s ? dmpi_session_error(o.s, cls, fn, "%s", msg) : dmpi_error(o.c, cls, fn, "%s", msg);
}

static int attach(bbuf *bb, owner o, const char *fn, void *buffer, MPI_Count size)
{
    if (bb->attached) return raise_on(o, MPI_ERR_BUFFER, fn, "a buffer is already attached");
    bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && (size < 0 || (!buffer && size > 0)))
        return raise_on(o, size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER, fn,
                        "invalid buffer (%p, %lld bytes)", buffer, (long long)size);
    bb->base = automatic ? NULL : buffer;
    bb->size = automatic ? 0 : (size_t)size;
    bb->automatic = automatic;
    bb->attached = true;
    return MPI_SUCCESS;
}

static int detach(bbuf *bb, owner o, const char *fn, void *buffer_addr, MPI_Count *size)
{
    if (!buffer_addr || !size) return raise_on(o, MPI_ERR_ARG, fn, "NULL argument");
    if (!bb->attached) return raise_on(o, MPI_ERR_BUFFER, fn, "no buffer is attached");
    flush_all(bb);
    *(void **)buffer_addr = bb->automatic ? MPI_BUFFER_AUTOMATIC : bb->base;
    *size = (MPI_Count)bb->size;
    memset(bb, 0, sizeof *bb);
    return MPI_SUCCESS;
}

/* A request completing when bb has no message in flight. */
static int iflush_poll(dmpi_request *r)
{
    if (!reap(r->ext)) return 0;
    dmpi_request_complete(r);
    return 1;
}

static int iflush(bbuf *bb, MPI_Request *request, const char *fn)
{
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, fn, "request is NULL");
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_COLL);
    if (!r) return dmpi_error_noobj(MPI_ERR_NO_MEM, fn, "out of memory");
    r->ext = bb;
    r->poll = iflush_poll;
    if (!iflush_poll(r)) dmpi_progress_register(r);
    *request = dmpi_request_handle(r);
    return MPI_SUCCESS;
}

#define NOBODY ((owner){NULL, NULL})

/* Runs op on the process buffer under the lock. */
#define ON_PROCESS(fn, call)         \
    do {                             \
        DMPI_CHECK_INIT(fn);         \
        dmpi_lock();                 \
        int rc_ = (call);            \
        dmpi_unlock();               \
        return rc_;                  \
    } while (0)

int PMPI_Buffer_attach(void *buffer, int size)
{
    ON_PROCESS("MPI_Buffer_attach",
               attach(&process_buf, NOBODY, "MPI_Buffer_attach", buffer, size));
}
DMPI_ALIAS(Buffer_attach)

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    ON_PROCESS("MPI_Buffer_attach_c",
               attach(&process_buf, NOBODY, "MPI_Buffer_attach_c", buffer, size));
}
DMPI_ALIAS(Buffer_attach_c)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    DMPI_CHECK_INIT("MPI_Buffer_detach");
    if (!size) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Buffer_detach", "size is NULL");
    dmpi_lock();
    int rc = detach(&process_buf, NOBODY, "MPI_Buffer_detach", buffer_addr, &n);
    dmpi_unlock();
    if (rc == MPI_SUCCESS) *size = (int)n;
    return rc;
}
DMPI_ALIAS(Buffer_detach)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    ON_PROCESS("MPI_Buffer_detach_c",
               detach(&process_buf, NOBODY, "MPI_Buffer_detach_c", buffer_addr, size));
}
DMPI_ALIAS(Buffer_detach_c)

int PMPI_Buffer_flush(void)
{
    ON_PROCESS("MPI_Buffer_flush", (flush_all(&process_buf), MPI_SUCCESS));
}
DMPI_ALIAS(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request *request)
{
    ON_PROCESS("MPI_Buffer_iflush", iflush(&process_buf, request, "MPI_Buffer_iflush"));
}
DMPI_ALIAS(Buffer_iflush)

/* ------------------------------------------------ communicator buffers */

/* The buffer record of communicator handle h (created on demand). */
static int comm_buf(MPI_Comm h, const char *fn, dmpi_comm **cp, bbuf **bp)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    DMPI_GET_COMM(c, h, fn);
    comm_bbuf *e = comm_entry(c);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) return dmpi_error(c, MPI_ERR_NO_MEM, fn, "out of memory");
        e->comm = c;
        e->next = comm_bufs;
        comm_bufs = e;
    }
    *cp = c;
    *bp = &e->b;
    return MPI_SUCCESS;
}

#define ON_COMM(comm, fn, call)                          \
    do {                                                 \
        dmpi_comm *c;                                    \
        bbuf *bb;                                        \
        dmpi_lock();                                     \
        int rc_ = comm_buf(comm, fn, &c, &bb);           \
        if (rc_ == MPI_SUCCESS) rc_ = (call);            \
        dmpi_unlock();                                   \
        return rc_;                                      \
    } while (0)

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    ON_COMM(comm, "MPI_Comm_attach_buffer",
            attach(bb, (owner){c, NULL}, "MPI_Comm_attach_buffer", buffer, size));
}
DMPI_ALIAS(Comm_attach_buffer)

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    ON_COMM(comm, "MPI_Comm_attach_buffer_c",
            attach(bb, (owner){c, NULL}, "MPI_Comm_attach_buffer_c", buffer, size));
}
DMPI_ALIAS(Comm_attach_buffer_c)

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    if (!size) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Comm_detach_buffer", "size is NULL");
    dmpi_comm *c;
    bbuf *bb;
    dmpi_lock();
    int rc = comm_buf(comm, "MPI_Comm_detach_buffer", &c, &bb);
    if (rc == MPI_SUCCESS)
        rc = detach(bb, (owner){c, NULL}, "MPI_Comm_detach_buffer", buffer_addr, &n);
    dmpi_unlock();
    if (rc == MPI_SUCCESS) *size = (int)n;
    return rc;
}
DMPI_ALIAS(Comm_detach_buffer)

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    ON_COMM(comm, "MPI_Comm_detach_buffer_c",
            detach(bb, (owner){c, NULL}, "MPI_Comm_detach_buffer_c", buffer_addr, size));
}
DMPI_ALIAS(Comm_detach_buffer_c)

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    ON_COMM(comm, "MPI_Comm_flush_buffer", (flush_all(bb), (void)c, MPI_SUCCESS));
}
DMPI_ALIAS(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    ON_COMM(comm, "MPI_Comm_iflush_buffer", ((void)c, iflush(bb, request, "MPI_Comm_iflush_buffer")));
}
DMPI_ALIAS(Comm_iflush_buffer)

/* Drops the buffer record of a communicator being destroyed (its messages
 * are flushed first). */
void dmpi_bsend_comm_gone(const dmpi_comm *c)
{
    for (comm_bbuf **pp = &comm_bufs; *pp; pp = &(*pp)->next) {
        if ((*pp)->comm != c) continue;
        comm_bbuf *e = *pp;
        flush_all(&e->b);
        *pp = e->next;
        free(e);
        return;
    }
}

/* ------------------------------------------------------ session buffers */

/* The buffer record of session handle h (created on demand). */
static int session_buf(MPI_Session h, const char *fn, dmpi_session **sp, bbuf **bp)
{
    dmpi_session *s = *sp = dmpi_session_get(h);
    if (!s)
        return dmpi_error_noobj(MPI_ERR_SESSION, fn, "invalid session%s",
                                h == MPI_SESSION_NULL ? " (MPI_SESSION_NULL)" : "");
    if (!s->bsend && !(s->bsend = calloc(1, sizeof(bbuf))))
        return dmpi_session_error(s, MPI_ERR_NO_MEM, fn, "out of memory");
    *bp = s->bsend;
    return MPI_SUCCESS;
}

#define ON_SESSION(session, fn, call)                    \
    do {                                                 \
        dmpi_session *s;                                 \
        bbuf *bb;                                        \
        dmpi_lock();                                     \
        int rc_ = session_buf(session, fn, &s, &bb);     \
        if (rc_ == MPI_SUCCESS) rc_ = (call);            \
        dmpi_unlock();                                   \
        return rc_;                                      \
    } while (0)

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    ON_SESSION(session, "MPI_Session_attach_buffer",
               attach(bb, (owner){NULL, s}, "MPI_Session_attach_buffer", buffer, size));
}
DMPI_ALIAS(Session_attach_buffer)

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    ON_SESSION(session, "MPI_Session_attach_buffer_c",
               attach(bb, (owner){NULL, s}, "MPI_Session_attach_buffer_c", buffer, size));
}
DMPI_ALIAS(Session_attach_buffer_c)

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    if (!size) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Session_detach_buffer", "size is NULL");
    dmpi_session *s;
    bbuf *bb;
    dmpi_lock();
    int rc = session_buf(session, "MPI_Session_detach_buffer", &s, &bb);
    if (rc == MPI_SUCCESS)
        rc = detach(bb, (owner){NULL, s}, "MPI_Session_detach_buffer", buffer_addr, &n);
    dmpi_unlock();
    if (rc == MPI_SUCCESS) *size = (int)n;
    return rc;
}
DMPI_ALIAS(Session_detach_buffer)

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    ON_SESSION(session, "MPI_Session_detach_buffer_c",
               detach(bb, (owner){NULL, s}, "MPI_Session_detach_buffer_c", buffer_addr, size));
}
DMPI_ALIAS(Session_detach_buffer_c)

int PMPI_Session_flush_buffer(MPI_Session session)
{
    ON_SESSION(session, "MPI_Session_flush_buffer", ((void)s, flush_all(bb), MPI_SUCCESS));
}
DMPI_ALIAS(Session_flush_buffer)

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    ON_SESSION(session, "MPI_Session_iflush_buffer",
               ((void)s, iflush(bb, request, "MPI_Session_iflush_buffer")));
}
DMPI_ALIAS(Session_iflush_buffer)

/* A finalized or freed session: its messages are delivered, its buffer
 * record dropped (the user's memory stays the user's). */
void dmpi_bsend_session_gone(dmpi_session *s)
{
    bbuf *bb = s->bsend;
    if (!bb) return;
    flush_all(bb);
    free(bb);
    s->bsend = NULL;
}

void dmpi_bsend_finalize(void)
{
    flush_all(&process_buf);
    for (comm_bbuf *e = comm_bufs; e; e = e->next) flush_all(&e->b);
}
