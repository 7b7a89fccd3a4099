/* Sessions (MPI 4.1 sec. 11.3): the session object, its process sets and
 * the errors raised on it. A session holds the runtime (acquired by the
 * api layer at MPI_Session_init, released at MPI_Session_finalize); the
 * groups made from its process sets and the communicators made from those
 * groups (and derived from them) hold a reference on it, so the object
 * outlives MPI_Session_finalize while they exist. Implemented in
 * core/session.c; the entry points are in api/session.c. */
#ifndef DMPI_SESSION_H
#define DMPI_SESSION_H

#include "core/dmpi.h"

typedef struct dmpi_session {
    uint32_t magic;           /* DMPI_MAGIC_SESSION; DMPI_MAGIC_FREED once finalized */
    int refcount;             /* the user's handle, groups, communicators */
    dmpi_errhandler *errh;
    int thread_level;         /* what MPI_Session_init provided */
    void *bsend;              /* its buffered-send buffer, owned by p2p/bsend.c */
} dmpi_session;

/* A new session with handler e (retained) and the given thread level;
 * NULL when out of memory. */
dmpi_session *dmpi_session_new(dmpi_errhandler *e, int thread_level);
/* The live (not finalized) session behind h, or NULL. */
dmpi_session *dmpi_session_get(MPI_Session h);
static inline MPI_Session dmpi_session_handle(dmpi_session *s) { return (MPI_Session)(void *)s; }
void dmpi_session_retain(dmpi_session *s);           /* s may be NULL */
void dmpi_session_release(dmpi_session *s);          /* s may be NULL */
/* MPI_Session_finalize's part on the object: the handle becomes invalid
 * and the user's reference goes. */
void dmpi_session_close(dmpi_session *s);

/* The process sets every session offers. */
enum { DMPI_PSET_WORLD, DMPI_PSET_SELF, DMPI_NPSETS };
const char *dmpi_pset_name(int i);
/* Index of a process set name, or -1 when there is none of that name. */
int dmpi_pset_find(const char *name);
/* The group of process set i (retained, tied to session s), or NULL when
 * out of memory. */
dmpi_group *dmpi_pset_group(int i, dmpi_session *s);

/* Raises class cls on session s (NULL: on no object) and applies its error
 * handler; returns the code for the caller to return. s may be a zeroed
 * stand-in with only errh set (a user handler then gets MPI_SESSION_NULL). */
int dmpi_session_error(dmpi_session *s, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* MPI_Session_call_errhandler: applies s's handler to code. */
int dmpi_session_call_errhandler(dmpi_session *s, int code);

/* Buffered sends (p2p/bsend.c): the session is going; deliver what its
 * buffer holds and drop the buffer. */
void dmpi_bsend_session_gone(dmpi_session *s);

#endif
