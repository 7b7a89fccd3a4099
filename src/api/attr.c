/* MPI attribute entry points (MPI 4.1 section 7.7): keyvals and attributes
 * on communicators (with the deprecated MPI-1 names), datatypes and windows,
 * and the predefined communicator attributes. The lists and callbacks are
 * in core/attr.c. Window attributes work once the RMA layer defines the
 * hooks declared in core/attr.h; until then no window handle is valid. */
#include "api/api.h"
#include "core/attr.h"
#include "core/errclass.h"

#include <stdio.h>

/* Window hooks: weak, so the library links without the RMA layer. */
#pragma weak dmpi_win_attr_slot
#pragma weak dmpi_win_attr_predefined
#pragma weak dmpi_win_error

#define CHECK_ARG_NOOBJ(cond, fn, ...)                                              \
    do {                                                                            \
        if (__builtin_expect(!(cond), 0)) return dmpi_error_noobj(MPI_ERR_ARG, fn, __VA_ARGS__); \
    } while (0)

/* An error of an attribute call; cls MPI_ERR_KEYVAL etc. Raised on the
 * communicator c, or the window w, or no object. */
typedef struct {
    dmpi_comm *c;
    MPI_Win w;
    const char *fn;
} err_ctx;

static int attr_error(const err_ctx *e, int cls, const char *msg)
{
    if (e->w && dmpi_win_error) return dmpi_win_error(e->w, cls, e->fn, msg);
    return dmpi_error(e->c, cls, e->fn, "%s", msg);
}

/* A user callback (or the library) failed with rc: the error handler runs
 * and the callback's own code is returned when it is a valid one. */
static int failed(const err_ctx *e, int rc, const char *what)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s failed with error %d (%s)", what, rc,
             dmpi_error_class_name(dmpi_error_class_of(rc)));
    int code = attr_error(e, dmpi_error_class_of(rc), msg);
    return dmpi_error_known(rc) ? rc : code;
}

/* ------------------------------------------------------------- generic */
static int create_keyval(dmpi_attr_kind kind, void (*copy)(void), void (*del)(void),
                         int *keyval, void *extra, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    CHECK_ARG_NOOBJ(keyval, fn, "keyval is NULL");
    dmpi_lock();
    int rc = dmpi_keyval_create(kind, (dmpi_attr_copy_fn *)copy, (dmpi_attr_delete_fn *)del,
                                extra, keyval);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, fn, "out of memory (or keyvals)");
}

static int free_keyval(dmpi_attr_kind kind, int *keyval, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    CHECK_ARG_NOOBJ(keyval, fn, "keyval is NULL");
    char buf[160];
    dmpi_lock();
    const char *why = dmpi_keyval_free_problem(kind, *keyval, buf, sizeof buf);
    if (!why) dmpi_keyval_free(kind, *keyval);
    dmpi_unlock();
    if (why) return dmpi_error_noobj(MPI_ERR_KEYVAL, fn, "%s", why);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* Sets, reads or deletes keyval on the object whose list is *list. The
 * predefined keys are read through `predef` (NULL: none). */
enum { OP_SET, OP_GET, OP_DELETE };
typedef bool predef_fn(void *obj, int keyval, void **value);

static int attr_op(const err_ctx *e, dmpi_attr_kind kind, void **list, void *handle,
                   int op, int keyval, void *in, void *out, int *flag, predef_fn *predef,
                   void *obj)
{
    if (op == OP_GET && (!out || !flag))
        return attr_error(e, MPI_ERR_ARG, !out ? "attribute_val is NULL" : "flag is NULL");
    char buf[160];
    dmpi_lock();
    const char *why = dmpi_keyval_problem(kind, keyval, op != OP_GET, buf, sizeof buf);
    int rc = MPI_SUCCESS;
    if (!why) {
        if (op == OP_SET) {
            rc = dmpi_attr_set(list, handle, keyval, in);
        } else if (op == OP_DELETE) {
            rc = dmpi_attr_delete(list, handle, keyval);
        } else if (dmpi_keyval_predefined(kind, keyval)) {
            void *v = NULL;
            *flag = predef && predef(obj, keyval, &v);
            if (*flag) *(void **)out = v;
        } else {
            void *v = NULL;
            dmpi_attr_get(list, keyval, &v, flag);
            if (*flag) *(void **)out = v;
        }
    }
    dmpi_unlock();
    if (why) return attr_error(e, MPI_ERR_KEYVAL, why);
    if (rc != MPI_SUCCESS)
        return failed(e, rc, op == OP_SET ? "the delete callback of the old value"
                                          : "the attribute's delete callback");
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- communicators */
/* MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE,
 * MPI_APPNUM and MPI_LASTUSEDCODE: the standard attaches them to
 * MPI_COMM_WORLD; they are process-wide constants, so dmpi answers them on
 * every communicator (as libraries that ask their own communicator for
 * MPI_TAG_UB expect). The value is a pointer to an int. */
int dmpi_error_last_used_code(void) __attribute__((weak));

static bool comm_predefined(void *obj, int keyval, void **value)
{
    static int tag_ub = DMPI_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE,
               wtime_global = 0, universe, appnum, lastused;
    (void)obj;
    int *p;
    switch (keyval) {
    case MPI_TAG_UB: p = &tag_ub; break;
    case MPI_HOST: p = &host; break;            /* no host process */
    case MPI_IO: p = &io; break;                /* every process can do I/O */
    case MPI_WTIME_IS_GLOBAL: p = &wtime_global; break;
    case MPI_UNIVERSE_SIZE: p = &universe; *p = dmpi_rt.uni_attr; break;
    case MPI_APPNUM:
        if (dmpi_rt.appnum < 0) return false;
        p = &appnum;
        *p = dmpi_rt.appnum;
        break;
    case MPI_LASTUSEDCODE:
        /* the largest error class, user-added ones included (never below
         * MPI_ERR_LASTCODE) */
        p = &lastused;
        *p = MPI_ERR_LASTCODE;
        if (dmpi_error_last_used_code && dmpi_error_last_used_code() > *p)
            *p = dmpi_error_last_used_code();
        break;
    default: return false;
    }
    *value = p;
    return true;
}

static int comm_attr(MPI_Comm comm, int op, int keyval, void *in, void *out, int *flag,
                     const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, fn);
    err_ctx e = {c, NULL, fn};
    return attr_op(&e, DMPI_ATTR_COMM, &c->attrs, (void *)c->handle, op, keyval, in, out, flag,
                   comm_predefined, c);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    return create_keyval(DMPI_ATTR_COMM, (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                         keyval, extra_state, "MPI_Comm_create_keyval");
}
DMPI_ALIAS(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *keyval)
{
    return free_keyval(DMPI_ATTR_COMM, keyval, "MPI_Comm_free_keyval");
}
DMPI_ALIAS(Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_attr(comm, OP_SET, keyval, attribute_val, NULL, NULL, "MPI_Comm_set_attr");
}
DMPI_ALIAS(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_attr(comm, OP_GET, keyval, NULL, attribute_val, flag, "MPI_Comm_get_attr");
}
DMPI_ALIAS(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    return comm_attr(comm, OP_DELETE, keyval, NULL, NULL, NULL, "MPI_Comm_delete_attr");
}
DMPI_ALIAS(Comm_delete_attr)

/* The deprecated MPI-1 names: the same calls on communicators. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                       int *keyval, void *extra_state)
{
    return create_keyval(DMPI_ATTR_COMM, (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                         keyval, extra_state, "MPI_Keyval_create");
}
DMPI_ALIAS(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return free_keyval(DMPI_ATTR_COMM, keyval, "MPI_Keyval_free");
}
DMPI_ALIAS(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_attr(comm, OP_SET, keyval, attribute_val, NULL, NULL, "MPI_Attr_put");
}
DMPI_ALIAS(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_attr(comm, OP_GET, keyval, NULL, attribute_val, flag, "MPI_Attr_get");
}
DMPI_ALIAS(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_attr(comm, OP_DELETE, keyval, NULL, NULL, NULL, "MPI_Attr_delete");
}
DMPI_ALIAS(Attr_delete)

/* ------------------------------------------------------------ datatypes */
static int type_attr(MPI_Datatype type, int op, int keyval, void *in, void *out, int *flag,
                     const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_datatype *dt = dmpi_dt_get(type);
    if (!dt)
        return dmpi_error_noobj(MPI_ERR_TYPE, fn, "invalid datatype%s",
                                type == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    err_ctx e = {NULL, NULL, fn};
    return attr_op(&e, DMPI_ATTR_TYPE, dmpi_type_attr_slot(dt, true), (void *)dt->handle, op,
                   keyval, in, out, flag, NULL, NULL);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    return create_keyval(DMPI_ATTR_TYPE, (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                         keyval, extra_state, "MPI_Type_create_keyval");
}
DMPI_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int *keyval)
{
    return free_keyval(DMPI_ATTR_TYPE, keyval, "MPI_Type_free_keyval");
}
DMPI_ALIAS(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *attribute_val)
{
    return type_attr(type, OP_SET, keyval, attribute_val, NULL, NULL, "MPI_Type_set_attr");
}
DMPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag)
{
    return type_attr(type, OP_GET, keyval, NULL, attribute_val, flag, "MPI_Type_get_attr");
}
DMPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    return type_attr(type, OP_DELETE, keyval, NULL, NULL, NULL, "MPI_Type_delete_attr");
}
DMPI_ALIAS(Type_delete_attr)

/* -------------------------------------------------------------- windows */
static bool win_predefined(void *obj, int keyval, void **value)
{
    return dmpi_win_attr_predefined && dmpi_win_attr_predefined((MPI_Win)obj, keyval, value);
}

static int win_attr(MPI_Win win, int op, int keyval, void *in, void *out, int *flag,
                    const char *fn)
{
    DMPI_CHECK_INIT(fn);
    void **list = dmpi_win_attr_slot ? dmpi_win_attr_slot(win) : NULL;
    if (!list)
        return dmpi_error_noobj(MPI_ERR_WIN, fn, "invalid window%s",
                                win == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
    err_ctx e = {NULL, win, fn};
    return attr_op(&e, DMPI_ATTR_WIN, list, (void *)win, op, keyval, in, out, flag,
                   win_predefined, (void *)win);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
    return create_keyval(DMPI_ATTR_WIN, (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                         keyval, extra_state, "MPI_Win_create_keyval");
}
DMPI_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int *keyval)
{
    return free_keyval(DMPI_ATTR_WIN, keyval, "MPI_Win_free_keyval");
}
DMPI_ALIAS(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    return win_attr(win, OP_SET, keyval, attribute_val, NULL, NULL, "MPI_Win_set_attr");
}
DMPI_ALIAS(Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    return win_attr(win, OP_GET, keyval, NULL, attribute_val, flag, "MPI_Win_get_attr");
}
DMPI_ALIAS(Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    return win_attr(win, OP_DELETE, keyval, NULL, NULL, NULL, "MPI_Win_delete_attr");
}
DMPI_ALIAS(Win_delete_attr)
