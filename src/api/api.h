/* Helpers shared by the MPI_* entry points in src/api: initialisation
 * checks, argument checks that raise the right error class, and the coarse
 * lock for MPI_THREAD_MULTIPLE. Each entry point is written as
 *
 *   int PMPI_Foo(args) {
 *       static const char *const FN = "MPI_Foo";
 *       DMPI_CHECK_INIT(FN);
 *       dmpi_comm *c; DMPI_GET_COMM(c, comm, FN);
 *       DMPI_CHECK(c, count >= 0, MPI_ERR_COUNT, FN, "negative count %d", count);
 *       dmpi_lock(); int rc = work(...); dmpi_unlock();
 *       return rc == MPI_SUCCESS ? rc : dmpi_error(c, rc, FN, "...");
 *   }
 *   DMPI_ALIAS(Foo)
 */
#ifndef DMPI_API_H
#define DMPI_API_H

#include "core/dmpi.h"
#include "core/info.h"

/* MPI calls need the runtime: between MPI_Init and MPI_Finalize, or while
 * a session is open (dmpi_rt.finalized: the last of them has ended). */
#define DMPI_CHECK_INIT(fn)                                                          \
    do {                                                                             \
        if (__builtin_expect(!dmpi_rt.initialized || dmpi_rt.finalized, 0))          \
            return dmpi_error_noobj(MPI_ERR_OTHER, fn, "called %s",                    \
                                    dmpi_rt.finalized ? "after MPI is finalized"       \
                                                      : "before MPI_Init or MPI_Session_init"); \
    } while (0)

/* Raise `cls` on comm `c` (may be NULL) unless `cond` holds. */
#define DMPI_CHECK(c, cond, cls, fn, ...)                                            \
    do {                                                                             \
        if (__builtin_expect(!(cond), 0)) return dmpi_error((c), (cls), (fn), __VA_ARGS__); \
    } while (0)

#define DMPI_GET_COMM(var, h, fn)                                                    \
    do {                                                                             \
        (var) = dmpi_comm_get(h);                                                    \
        if (__builtin_expect((var) == NULL, 0))                                      \
            return dmpi_error_noobj(MPI_ERR_COMM, (fn), "invalid communicator%s",    \
                                    (h) == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : ""); \
    } while (0)

/* Datatype must be valid and committed. */
#define DMPI_GET_DTYPE(var, c, h, fn)                                                \
    do {                                                                             \
        (var) = dmpi_dt_get(h);                                                      \
        if (__builtin_expect((var) == NULL, 0))                                      \
            return dmpi_error((c), MPI_ERR_TYPE, (fn), "invalid datatype%s",         \
                              (h) == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : ""); \
        if (__builtin_expect(!(var)->committed, 0))                                  \
            return dmpi_error((c), MPI_ERR_TYPE, (fn), "datatype not committed");    \
    } while (0)

/* An info argument: MPI_INFO_NULL or a valid info object. */
#define DMPI_CHECK_INFO(c, h, fn)                                                    \
    DMPI_CHECK(c, (h) == MPI_INFO_NULL || dmpi_info_get(h) != NULL, MPI_ERR_INFO, fn, \
               "invalid info object")

#define DMPI_CHECK_COUNT(c, n, fn)                                                   \
    DMPI_CHECK(c, (n) >= 0, MPI_ERR_COUNT, fn, "negative count %lld", (long long)(n))

/* A NULL buffer is fine for a zero count or MPI_BOTTOM with derived types. */
#define DMPI_CHECK_BUF(c, buf, n, dt, fn)                                            \
    DMPI_CHECK(c, (buf) != NULL || (n) == 0 || !(dt)->builtin, MPI_ERR_BUFFER, fn,   \
               "NULL buffer with count %lld", (long long)(n))

/* Destination rank: 0..size-1 or MPI_PROC_NULL. */
#define DMPI_CHECK_DEST(c, r, fn)                                                    \
    DMPI_CHECK(c, ((r) >= 0 && (r) < dmpi_comm_peer_size(c)) || (r) == MPI_PROC_NULL, \
               MPI_ERR_RANK, fn, "invalid rank %d (communicator size %d)", (r),      \
               dmpi_comm_peer_size(c))
/* Source rank: also MPI_ANY_SOURCE. */
#define DMPI_CHECK_SRC(c, r, fn)                                                     \
    DMPI_CHECK(c, ((r) >= 0 && (r) < dmpi_comm_peer_size(c)) || (r) == MPI_PROC_NULL || \
                      (r) == MPI_ANY_SOURCE,                                         \
               MPI_ERR_RANK, fn, "invalid source rank %d (communicator size %d)", (r), \
               dmpi_comm_peer_size(c))

#define DMPI_TAG_UB 0x7fffffff
#define DMPI_CHECK_SEND_TAG(c, t, fn)                                                \
    DMPI_CHECK(c, (t) >= 0 && (t) <= DMPI_TAG_UB, MPI_ERR_TAG, fn, "invalid tag %d", (t))
#define DMPI_CHECK_RECV_TAG(c, t, fn)                                                \
    DMPI_CHECK(c, ((t) >= 0 && (t) <= DMPI_TAG_UB) || (t) == MPI_ANY_TAG, MPI_ERR_TAG, \
               fn, "invalid tag %d", (t))

#define DMPI_CHECK_ROOT(c, r, fn)                                                    \
    DMPI_CHECK(c, (r) >= 0 && (r) < (c)->size, MPI_ERR_ROOT, fn,                     \
               "invalid root %d (communicator size %d)", (r), (c)->size)

/* Size of the group that point-to-point ranks refer to (remote group of an
 * intercommunicator). */
static inline int dmpi_comm_peer_size(const dmpi_comm *c)
{
    return c->remote_group ? c->remote_group->size : c->size;
}

/* The runtime's users (api/init.c): MPI_Init and each session acquire it
 * (the first starts it; a higher thread level than it has raises it;
 * *provided, if given, gets the level now), and release it at MPI_Finalize
 * and MPI_Session_finalize (the last one tears it down). Acquiring fails
 * with MPI_ERR_OTHER, not raised, once it is torn down (the message for it
 * is dmpi_runtime_gone). */
int dmpi_runtime_acquire(int required, int *provided, const char *fn);
extern const char *const dmpi_runtime_gone;
void dmpi_runtime_release(void);

/* A user error handler of the given kind (DMPI_ERRH_USER for
 * communicators, DMPI_ERRH_USER_WIN/FILE/SESSION), from the handler pool. */
int dmpi_errhandler_create(int kind, void (*fn)(void), MPI_Errhandler *errhandler,
                           const char *FN);

#endif
