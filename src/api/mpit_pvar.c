/* MPI_T performance variables (MPI 4.1 section 15.3.7): dmpi's per-process
 * counters (core/pvar_list.h), read through sessions and handles.
 * Counters are not continuous: a handle starts stopped, counts only while
 * started, and keeps its own value (what the counter moved while started,
 * or what was written), so handles and sessions never disturb one another
 * and the counting paths stay a plain add. The unexpected-queue level and
 * high-water mark are continuous and read-only. Sessions and handles are
 * checked by looking them up, never by reading through them. */
#include "api/mpit.h"

#include <stdlib.h>
#include <string.h>

struct MPI_T_pvar_handle_t {
    struct MPI_T_pvar_handle_t *next;
    int id;
    bool started;
    uint64_t base;  /* the counter when last started or reset */
    uint64_t accum; /* the handle's value up to then */
};

struct MPI_T_pvar_session_t {
    struct MPI_T_pvar_session_t *next;
    struct MPI_T_pvar_handle_t *handles;
};

static struct MPI_T_pvar_session_t *sessions; /* all live ones (dmpi_mpit_lock) */

static bool continuous(int id) { return dmpi_pvar_descs[id].var_class != MPI_T_PVAR_CLASS_COUNTER; }

int PMPI_T_pvar_get_num(int *num_pvar)
{
    DMPI_T_CHECK_INIT();
    if (!num_pvar) return MPI_T_ERR_INVALID;
    *num_pvar = DMPI_NPVARS;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *readonly, int *is_continuous, int *atomic)
{
    DMPI_T_CHECK_INIT();
    if (pvar_index < 0 || pvar_index >= DMPI_NPVARS) return MPI_T_ERR_INVALID_INDEX;
    const dmpi_pvar_desc *d = &dmpi_pvar_descs[pvar_index];
    bool cont = continuous(pvar_index);
    dmpi_mpit_str(d->name, name, name_len);
    if (verbosity) *verbosity = d->verbosity;
    if (var_class) *var_class = d->var_class;
    if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    dmpi_mpit_str(d->desc, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = cont;
    if (is_continuous) *is_continuous = cont;
    if (atomic) *atomic = !cont;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    DMPI_T_CHECK_INIT();
    if (!name || !pvar_index) return MPI_T_ERR_INVALID;
    for (int i = 0; i < DMPI_NPVARS; i++)
        if (dmpi_pvar_descs[i].var_class == var_class && !strcmp(name, dmpi_pvar_descs[i].name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
DMPI_ALIAS(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    DMPI_T_CHECK_INIT();
    if (!session) return MPI_T_ERR_INVALID;
    struct MPI_T_pvar_session_t *s = calloc(1, sizeof *s);
    if (!s) return MPI_T_ERR_MEMORY;
    pthread_mutex_lock(&dmpi_mpit_lock);
    s->next = sessions;
    sessions = s;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    *session = s;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_session_create)

/* The live session s, or NULL; lock held. */
static struct MPI_T_pvar_session_t *find_session(MPI_T_pvar_session s)
{
    for (struct MPI_T_pvar_session_t *p = sessions; p; p = p->next)
        if (p == s) return p;
    return NULL;
}

static void free_handles(struct MPI_T_pvar_handle_t *h)
{
    while (h) {
        struct MPI_T_pvar_handle_t *next = h->next;
        free(h);
        h = next;
    }
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    DMPI_T_CHECK_INIT();
    if (!session) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&dmpi_mpit_lock);
    struct MPI_T_pvar_session_t **link = &sessions;
    while (*link && *link != *session) link = &(*link)->next;
    struct MPI_T_pvar_session_t *s = *link;
    if (s) *link = s->next;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    free_handles(s->handles);
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* bound to no object */
    DMPI_T_CHECK_INIT();
    if (pvar_index < 0 || pvar_index >= DMPI_NPVARS) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    struct MPI_T_pvar_handle_t *h = calloc(1, sizeof *h);
    if (!h) return MPI_T_ERR_MEMORY;
    h->id = pvar_index;
    h->started = continuous(pvar_index);
    pthread_mutex_lock(&dmpi_mpit_lock);
    struct MPI_T_pvar_session_t *s = find_session(session);
    if (s) {
        h->next = s->handles;
        s->handles = h;
    }
    pthread_mutex_unlock(&dmpi_mpit_lock);
    if (!s) {
        free(h);
        return MPI_T_ERR_INVALID_SESSION;
    }
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    DMPI_T_CHECK_INIT();
    if (!handle) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&dmpi_mpit_lock);
    struct MPI_T_pvar_session_t *s = find_session(session);
    struct MPI_T_pvar_handle_t *h = NULL;
    if (s) {
        struct MPI_T_pvar_handle_t **link = &s->handles;
        while (*link && *link != *handle) link = &(*link)->next;
        h = *link;
        if (h) *link = h->next;
    }
    pthread_mutex_unlock(&dmpi_mpit_lock);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_pvar_handle_free)

/* ---------------------------------------------------- operations on handles */

enum { OP_START, OP_STOP, OP_READ, OP_WRITE, OP_RESET, OP_READRESET };

static uint64_t value(const struct MPI_T_pvar_handle_t *h)
{
    if (continuous(h->id)) return dmpi_pv_get(h->id);
    return h->accum + (h->started ? dmpi_pv_get(h->id) - h->base : 0);
}

/* One operation on one handle; lock held. */
static int apply(struct MPI_T_pvar_handle_t *h, int op, void *buf)
{
    bool cont = continuous(h->id); /* continuous ones are the read-only ones */
    switch (op) {
    case OP_START:
        if (cont) return MPI_T_ERR_PVAR_NO_STARTSTOP;
        if (!h->started) h->base = dmpi_pv_get(h->id);
        h->started = true;
        return MPI_SUCCESS;
    case OP_STOP:
        if (cont) return MPI_T_ERR_PVAR_NO_STARTSTOP;
        h->accum = value(h);
        h->started = false;
        return MPI_SUCCESS;
    case OP_READ: {
        unsigned long long v = value(h);
        memcpy(buf, &v, sizeof v);
        return MPI_SUCCESS;
    }
    case OP_WRITE: {
        if (cont) return MPI_T_ERR_PVAR_NO_WRITE;
        unsigned long long v;
        memcpy(&v, buf, sizeof v);
        h->accum = v;
        h->base = dmpi_pv_get(h->id);
        return MPI_SUCCESS;
    }
    case OP_READRESET:
        if (cont) return MPI_T_ERR_PVAR_NO_WRITE;
        apply(h, OP_READ, buf);
        /* fall through */
    case OP_RESET:
        if (cont) return MPI_T_ERR_PVAR_NO_WRITE;
        h->accum = 0;
        h->base = dmpi_pv_get(h->id);
        return MPI_SUCCESS;
    }
    return MPI_T_ERR_INVALID;
}

/* op on handle (or, for start, stop and reset, on MPI_T_PVAR_ALL_HANDLES
 * of the session: those it applies to). */
static int handle_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op, void *buf)
{
    DMPI_T_CHECK_INIT();
    bool all = handle == MPI_T_PVAR_ALL_HANDLES;
    bool needs_buf = op == OP_READ || op == OP_WRITE || op == OP_READRESET;
    if (all && needs_buf) return MPI_T_ERR_INVALID_HANDLE;
    pthread_mutex_lock(&dmpi_mpit_lock);
    struct MPI_T_pvar_session_t *s = find_session(session);
    int rc = s ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_INVALID_SESSION;
    if (s && all) {
        rc = MPI_SUCCESS;
        for (struct MPI_T_pvar_handle_t *h = s->handles; h; h = h->next)
            if (!continuous(h->id)) apply(h, op, NULL);
    } else if (s) {
        for (struct MPI_T_pvar_handle_t *h = s->handles; h; h = h->next)
            if (h == handle) rc = needs_buf && !buf ? MPI_T_ERR_INVALID : apply(h, op, buf);
    }
    pthread_mutex_unlock(&dmpi_mpit_lock);
    return rc;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_START, NULL);
}
DMPI_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_STOP, NULL);
}
DMPI_ALIAS(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return handle_op(session, handle, OP_READ, buf);
}
DMPI_ALIAS(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    return handle_op(session, handle, OP_WRITE, (void *)(uintptr_t)buf);
}
DMPI_ALIAS(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_RESET, NULL);
}
DMPI_ALIAS(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return handle_op(session, handle, OP_READRESET, buf);
}
DMPI_ALIAS(T_pvar_readreset)
