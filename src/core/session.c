/* Sessions (MPI 4.1 sec. 11.3): the session object with its reference
 * count, the two process sets every session offers ("mpi://WORLD": every
 * process of the job, "mpi://SELF": the calling process alone) and the
 * errors raised on a session. A finalized session's handle is invalid at
 * once; the memory stays while groups or communicators made from it hold
 * references, and then goes to a quarantine pool so that a stale handle
 * reads as freed. */
#include "core/session.h"
#include "core/group.h"
#include "core/objpool.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static dmpi_objpool session_pool = DMPI_OBJPOOL_INIT(sizeof(dmpi_session));

dmpi_session *dmpi_session_new(dmpi_errhandler *e, int thread_level)
{
    dmpi_session *s = dmpi_obj_alloc(&session_pool);
    if (!s) return NULL;
    s->magic = DMPI_MAGIC_SESSION;
    s->refcount = 1;
    s->errh = e;
    dmpi_errhandler_retain(e);
    s->thread_level = thread_level;
    return s;
}

dmpi_session *dmpi_session_get(MPI_Session h)
{
    if ((uintptr_t)(void *)h < 0x1000) return NULL; /* MPI_SESSION_NULL and other constants */
    dmpi_session *s = (dmpi_session *)(void *)h;
    return s->magic == DMPI_MAGIC_SESSION ? s : NULL;
}

void dmpi_session_retain(dmpi_session *s)
{
    if (s) s->refcount++;
}

void dmpi_session_release(dmpi_session *s)
{
    if (!s || --s->refcount > 0) return;
    dmpi_bsend_session_gone(s);
    dmpi_errhandler_release(s->errh);
    dmpi_obj_free(&session_pool, s);
}

void dmpi_session_close(dmpi_session *s)
{
    dmpi_bsend_session_gone(s); /* deliver what its buffer holds now */
    s->magic = DMPI_MAGIC_FREED;
    dmpi_session_release(s);
}

/* ------------------------------------------------------------ process sets */
static const char *const pset_names[DMPI_NPSETS] = {"mpi://WORLD", "mpi://SELF"};

const char *dmpi_pset_name(int i) { return i >= 0 && i < DMPI_NPSETS ? pset_names[i] : NULL; }

/* Case-insensitive, as MPICH and Open MPI match them: programs written for
 * either ask for "mpi://world" (MPICH's own session tests do), and a URI's
 * scheme is case-insensitive anyway. The names listed keep the standard's
 * spelling. */
int dmpi_pset_find(const char *name)
{
    for (int i = 0; i < DMPI_NPSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0) return i;
    return -1;
}

dmpi_group *dmpi_pset_group(int i, dmpi_session *s)
{
    const dmpi_group *base = i == DMPI_PSET_WORLD ? dmpi_group_world() : NULL;
    int me = dmpi_rt.uni_rank;
    dmpi_group *g = base ? dmpi_group_new(base->size, base->world) : dmpi_group_new(1, &me);
    if (!g) return NULL;
    g->session = s;
    dmpi_session_retain(s);
    return g;
}

/* ------------------------------------------------------------------ errors */
/* Records the message through a private communicator whose handler
 * returns (so MPI_Error_string names the function and the problem), then
 * applies the session's own handler. */
static int record(int cls, const char *func, const char *detail)
{
    static dmpi_comm quiet;
    quiet.magic = DMPI_MAGIC_COMM;
    quiet.builtin = true;
    quiet.errh = &dmpi_errh_return;
    return dmpi_error(&quiet, cls, func, "%s", detail);
}

static int apply(dmpi_session *s, int code, const char *what)
{
    /* a stand-in (MPI_Session_init's failures) has no handle yet */
    MPI_Session handle = s->magic == DMPI_MAGIC_SESSION ? dmpi_session_handle(s) : MPI_SESSION_NULL;
    return dmpi_errh_apply(s->errh, DMPI_ERRH_FATAL, DMPI_ERRH_USER_SESSION, &handle, code, what);
}

int dmpi_session_error(dmpi_session *s, int cls, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (!s) return dmpi_error_noobj(cls, func, "%s", detail);
    return apply(s, record(cls, func, detail), "");
}

int dmpi_session_call_errhandler(dmpi_session *s, int code)
{
    apply(s, code, "MPI_Session_call_errhandler: ");
    return MPI_SUCCESS;
}
