/* Sessions (MPI 4.1 sec. 11.3): MPI_Session_init/finalize, the process
 * sets and their info, MPI_Group_from_session_pset, the session's info
 * and its error handler. A session acquires the runtime, which MPI_Init
 * shares (api/init.c): sessions work without MPI_Init, and beside it.
 * Its buffered-send buffer (MPI_Session_attach_buffer and friends) is in
 * p2p/bsend.c with the other buffers. */
#include "accel/accel.h"
#include "api/api.h"
#include "core/group.h"
#include "core/session.h"

#include <stdio.h>
#include <string.h>

#define GET_SESSION(var, h, fn)                                                     \
    do {                                                                            \
        (var) = dmpi_session_get(h);                                                \
        if (__builtin_expect(!(var), 0))                                            \
            return dmpi_error_noobj(MPI_ERR_SESSION, (fn), "invalid session%s",     \
                                    (h) == MPI_SESSION_NULL ? " (MPI_SESSION_NULL)" : ""); \
    } while (0)

static const char *const level_names[] = {
    [MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
    [MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
    [MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
    [MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
};
#define NLEVELS ((int)(sizeof level_names / sizeof level_names[0]))

/* The "thread_level" key of MPI_Session_init's info: a level's name
 * (MPI_THREAD_SINGLE if absent); -1 for a value that names none. */
static int requested_level(dmpi_info *info)
{
    const char *v = info ? dmpi_info_lookup(info, "thread_level") : NULL;
    if (!v) return MPI_THREAD_SINGLE;
    for (int l = 0; l < NLEVELS; l++)
        if (level_names[l] && strcmp(v, level_names[l]) == 0) return l;
    return -1;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char *const FN = "MPI_Session_init";
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    DMPI_CHECK(NULL, e && (e->builtin || e->kind == DMPI_ERRH_USER_SESSION), MPI_ERR_ARG, FN,
               "invalid error handler for sessions%s",
               errhandler == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    /* the other errors go to that handler (sec. 11.3.1), as if on a session */
    dmpi_session none = {.errh = e};
    if (!session) return dmpi_session_error(&none, MPI_ERR_ARG, FN, "session is NULL");
    if (info != MPI_INFO_NULL && !dmpi_info_get(info))
        return dmpi_session_error(&none, MPI_ERR_INFO, FN, "invalid info object");
    int level = requested_level(info == MPI_INFO_NULL ? NULL : dmpi_info_get(info));
    if (level < 0)
        return dmpi_session_error(&none, MPI_ERR_INFO_VALUE, FN,
                                  "info key thread_level: not the name of a thread level");
    int provided;
    int rc = dmpi_runtime_acquire(level, &provided, FN);
    if (rc != MPI_SUCCESS) return dmpi_session_error(&none, rc, FN, "%s", dmpi_runtime_gone);
    dmpi_lock();
    dmpi_session *s = dmpi_session_new(e, provided);
    dmpi_unlock();
    if (!s) {
        dmpi_runtime_release();
        return dmpi_session_error(&none, MPI_ERR_NO_MEM, FN, "out of memory");
    }
    *session = dmpi_session_handle(s);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    static const char *const FN = "MPI_Session_finalize";
    DMPI_CHECK(NULL, session, MPI_ERR_ARG, FN, "session is NULL");
    dmpi_session *s;
    GET_SESSION(s, *session, FN);
    dmpi_lock();
    dmpi_session_close(s);
    dmpi_unlock();
    dmpi_runtime_release();
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_finalize)

/* ------------------------------------------------------------ process sets */

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char *const FN = "MPI_Session_get_num_psets";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    if (!npset_names) return dmpi_session_error(s, MPI_ERR_ARG, FN, "npset_names is NULL");
    *npset_names = DMPI_NPSETS;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_get_num_psets)

/* With *pset_len 0 only the length is asked for; otherwise the name is
 * copied, cut to *pset_len - 1 characters. Either way *pset_len becomes
 * the name's length with its terminating NUL. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    static const char *const FN = "MPI_Session_get_nth_pset";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    if (!pset_len || *pset_len < 0)
        return dmpi_session_error(s, MPI_ERR_ARG, FN, "invalid pset_len");
    const char *name = dmpi_pset_name(n);
    if (!name)
        return dmpi_session_error(s, MPI_ERR_ARG, FN, "no process set %d (there are %d)", n,
                                  DMPI_NPSETS);
    int len = (int)strlen(name) + 1;
    if (*pset_len > 0) {
        if (!pset_name) return dmpi_session_error(s, MPI_ERR_ARG, FN, "pset_name is NULL");
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    }
    *pset_len = len;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_get_nth_pset)

/* The process set named by a user string: its index, or an error raised. */
static int find_pset(dmpi_session *s, const char *name, const char *fn, int *idx)
{
    if (!name) return dmpi_session_error(s, MPI_ERR_ARG, fn, "pset_name is NULL");
    *idx = dmpi_pset_find(name);
    if (*idx < 0)
        return dmpi_session_error(s, MPI_ERR_ARG, fn,
                                  "no process set \"%.64s\" (there are mpi://WORLD and "
                                  "mpi://SELF)", name);
    return MPI_SUCCESS;
}

/* A new info object with one key, or an error raised on s. */
static int one_key_info(dmpi_session *s, const char *key, const char *value, MPI_Info *out,
                        const char *fn)
{
    dmpi_info *i = dmpi_info_new();
    if (!i || dmpi_info_set_kv(i, key, value) != MPI_SUCCESS) {
        if (i) dmpi_info_free(i);
        return dmpi_session_error(s, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *out = dmpi_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char *const FN = "MPI_Session_get_pset_info";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    if (!info) return dmpi_session_error(s, MPI_ERR_ARG, FN, "info is NULL");
    int idx;
    int rc = find_pset(s, pset_name, FN, &idx);
    if (rc != MPI_SUCCESS) return rc;
    char size[16];
    snprintf(size, sizeof size, "%d", idx == DMPI_PSET_WORLD ? dmpi_rt.world_size : 1);
    return one_key_info(s, "mpi_size", size, info, FN);
}
DMPI_ALIAS(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    static const char *const FN = "MPI_Group_from_session_pset";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    if (!newgroup) return dmpi_session_error(s, MPI_ERR_ARG, FN, "newgroup is NULL");
    int idx;
    int rc = find_pset(s, pset_name, FN, &idx);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_lock();
    dmpi_group *g = dmpi_pset_group(idx, s);
    dmpi_unlock();
    if (!g) return dmpi_session_error(s, MPI_ERR_NO_MEM, FN, "out of memory");
    *newgroup = dmpi_group_handle(g);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Group_from_session_pset)

/* The hints in use: the thread level the session got, and the memory
 * kinds the library supports (MPI 4.1 sec. 11.4.3, as on MPI_COMM_WORLD). */
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char *const FN = "MPI_Session_get_info";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    if (!info_used) return dmpi_session_error(s, MPI_ERR_ARG, FN, "info_used is NULL");
    dmpi_info *i = dmpi_info_new();
    int rc = i ? dmpi_info_set_kv(i, "thread_level", level_names[s->thread_level])
               : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = dmpi_info_set_kv(i, "mpi_memory_alloc_kinds", dmpi_accel_alloc_kinds());
    if (rc != MPI_SUCCESS) {
        if (i) dmpi_info_free(i);
        return dmpi_session_error(s, MPI_ERR_NO_MEM, FN, "out of memory");
    }
    *info_used = dmpi_info_handle(i);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_get_info)

/* ---------------------------------------------------------- error handlers */

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char *const FN = "MPI_Session_set_errhandler";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    if (!e || (!e->builtin && e->kind != DMPI_ERRH_USER_SESSION))
        return dmpi_session_error(s, MPI_ERR_ARG, FN, "invalid error handler for sessions");
    dmpi_lock();
    dmpi_errhandler_retain(e);
    dmpi_errhandler_release(s->errh);
    s->errh = e;
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_Session_get_errhandler";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    if (!errhandler) return dmpi_session_error(s, MPI_ERR_ARG, FN, "errhandler is NULL");
    dmpi_lock();
    dmpi_errhandler_retain(s->errh);
    *errhandler = dmpi_errhandler_handle(s->errh);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    static const char *const FN = "MPI_Session_call_errhandler";
    dmpi_session *s;
    GET_SESSION(s, session, FN);
    return dmpi_session_call_errhandler(s, errorcode);
}
DMPI_ALIAS(Session_call_errhandler)
