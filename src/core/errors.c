/* Errors: error codes that carry a message, user-added error classes and
 * codes, the error-handler dispatch, and job abort.
 *
 * Numbering:
 *   0 .. 62                  the standard's error classes (MPI_ERR_ABI = 62);
 *   128 .. 128*NSLOTS+127    a predefined class with a message: the code
 *                            names a slot in a small ring of recent messages
 *                            (code = 128 * (slot + 1) + class), so
 *                            MPI_Error_string can say exactly what was wrong
 *                            ("MPI_Send: invalid rank 5 (communicator size
 *                            4)") and MPI_Error_class still recovers the
 *                            class; all below MPI_ERR_LASTCODE (0x3fff);
 *   > MPI_ERR_LASTCODE       classes and codes added by the user
 *                            (MPI_Add_error_class/_code), as the standard
 *                            requires: each new value is one more than the
 *                            largest one in use, so every process that adds
 *                            in the same order gets the same values. */
#include "core/dmpi.h"
#include "core/errclass.h"
#include "pmi/pmi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSLOTS 126
static struct {
    int code;
    char msg[MPI_MAX_ERROR_STRING];
} slots[NSLOTS];
static int next_slot;

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: the receive buffer is too small",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_IN_STATUS] = "error code is in the status",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_NAME] = "service name not published",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments not the same on all processes",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "file is read-only",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached to the window",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_RANGE] = "access outside the window",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_SPAWN] = "cannot spawn processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_PROC_ABORTED] = "a process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    [MPI_ERR_ABI] = "ABI mismatch",
};
#define NCLASSES ((int)(sizeof class_text / sizeof class_text[0]))

/* ------------------------------------------------ user classes and codes
 * A table sorted by value (values only grow, except that removing the
 * largest lets it be handed out again), under its own lock so the calls
 * work from any thread and before MPI_Init. */
typedef struct user_err {
    int value;
    int cls;    /* == value for a class */
    int ncodes; /* classes: codes still attached */
    char *text; /* NULL: no string (MPI_Error_string gives "") */
} user_err;

static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;
static user_err *users;
static int nusers, users_cap;

static user_err *user_find(int value)
{
    int lo = 0, hi = nusers - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (users[mid].value == value) return &users[mid];
        if (users[mid].value < value) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

static int user_add(int cls, int *value)
{
    if (nusers == users_cap) {
        int cap = users_cap ? 2 * users_cap : 16;
        user_err *u = realloc(users, (size_t)cap * sizeof *u);
        if (!u) return MPI_ERR_NO_MEM;
        users = u;
        users_cap = cap;
    }
    int last = nusers ? users[nusers - 1].value : MPI_ERR_LASTCODE;
    if (last == 0x7fffffff) return MPI_ERR_OTHER;
    int v = last + 1;
    users[nusers++] = (user_err){v, cls < 0 ? v : cls, 0, NULL};
    *value = v;
    return MPI_SUCCESS;
}

static void user_remove(user_err *u)
{
    free(u->text);
    int i = (int)(u - users);
    memmove(u, u + 1, (size_t)(nusers - i - 1) * sizeof *u);
    nusers--;
}

/* Is cls a class a code may be added to (predefined other than
 * MPI_SUCCESS, or user-added)? Called with user_lock held. */
static bool valid_class(int cls)
{
    if (cls > 0 && cls < NCLASSES) return class_text[cls] != NULL;
    const user_err *u = cls > MPI_ERR_LASTCODE ? user_find(cls) : NULL;
    return u && u->cls == u->value;
}

int dmpi_error_add_class(int *errorclass)
{
    pthread_mutex_lock(&user_lock);
    int rc = user_add(-1, errorclass);
    pthread_mutex_unlock(&user_lock);
    return rc;
}

int dmpi_error_add_code(int errorclass, int *errorcode)
{
    pthread_mutex_lock(&user_lock);
    int rc = valid_class(errorclass) ? user_add(errorclass, errorcode) : MPI_ERR_ARG;
    if (rc == MPI_SUCCESS && errorclass > MPI_ERR_LASTCODE) user_find(errorclass)->ncodes++;
    pthread_mutex_unlock(&user_lock);
    return rc;
}

int dmpi_error_add_string(int code, const char *text)
{
    pthread_mutex_lock(&user_lock);
    user_err *u = code > MPI_ERR_LASTCODE ? user_find(code) : NULL;
    char *t = u ? strdup(text) : NULL;
    int rc = !u ? MPI_ERR_ARG : !t ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        free(u->text);
        u->text = t;
    }
    pthread_mutex_unlock(&user_lock);
    return rc;
}

int dmpi_error_remove(int value, int what, const char **why)
{
    pthread_mutex_lock(&user_lock);
    user_err *u = value > MPI_ERR_LASTCODE ? user_find(value) : NULL;
    bool is_class = u && u->cls == u->value;
    int rc = MPI_SUCCESS;
    *why = NULL;
    if (!u) {
        rc = MPI_ERR_ARG;
        *why = value <= MPI_ERR_LASTCODE ? "is predefined, not added by the user"
                                         : "was not added (or was removed already)";
    } else if (what == DMPI_ERR_REMOVE_STRING) {
        if (!u->text) {
            rc = MPI_ERR_ARG;
            *why = "has no string added by MPI_Add_error_string";
        } else {
            free(u->text);
            u->text = NULL;
        }
    } else if (is_class != (what == DMPI_ERR_REMOVE_CLASS)) {
        rc = MPI_ERR_ARG;
        *why = is_class ? "is an error class, not an error code"
                        : "is an error code, not an error class";
    } else if (is_class && u->ncodes > 0) {
        rc = MPI_ERR_ARG;
        *why = "still has error codes (remove them first)";
    } else if (u->text) { /* MPI 4.1: the string must be removed first */
        rc = MPI_ERR_ARG;
        *why = "still has an error string (remove it first with MPI_Remove_error_string)";
    } else {
        if (!is_class && u->cls > MPI_ERR_LASTCODE) user_find(u->cls)->ncodes--;
        user_remove(u);
    }
    pthread_mutex_unlock(&user_lock);
    return rc;
}

int dmpi_error_last_used_code(void)
{
    pthread_mutex_lock(&user_lock);
    int v = MPI_ERR_LASTCODE;
    for (int i = nusers - 1; i >= 0 && v == MPI_ERR_LASTCODE; i--)
        if (users[i].cls == users[i].value) v = users[i].value;
    pthread_mutex_unlock(&user_lock);
    return v;
}

/* --------------------------------------------------------------- lookup */
int dmpi_error_class_of(int code)
{
    if (code < 0) return MPI_ERR_UNKNOWN;
    if (code < 128) return code;
    if (code <= 128 * NSLOTS + 127) return code & 127;
    if (code <= MPI_ERR_LASTCODE) return MPI_ERR_UNKNOWN;
    pthread_mutex_lock(&user_lock);
    const user_err *u = user_find(code);
    int cls = u ? u->cls : MPI_ERR_UNKNOWN;
    pthread_mutex_unlock(&user_lock);
    return cls;
}

/* Text of code; user entries are read with user_lock held. */
static const char *text_locked(int code)
{
    if (code < 0) return NULL;
    if (code >= 128 && code <= 128 * NSLOTS + 127) {
        int slot = code / 128 - 1;
        if (slots[slot].code == code) return slots[slot].msg;
        code &= 127; /* an older message in that slot: the class's text */
    } else if (code > MPI_ERR_LASTCODE) {
        const user_err *u = user_find(code);
        return !u ? NULL : u->text ? u->text : "";
    }
    return code < NCLASSES ? class_text[code] : NULL;
}

const char *dmpi_error_text(int code)
{
    pthread_mutex_lock(&user_lock);
    const char *t = text_locked(code);
    pthread_mutex_unlock(&user_lock);
    return t;
}

bool dmpi_error_copy_text(int code, char *buf, int *len)
{
    pthread_mutex_lock(&user_lock); /* a user string may be replaced meanwhile */
    const char *t = text_locked(code);
    if (t) *len = snprintf(buf, MPI_MAX_ERROR_STRING, "%s", t);
    pthread_mutex_unlock(&user_lock);
    if (t && *len >= MPI_MAX_ERROR_STRING) *len = MPI_MAX_ERROR_STRING - 1;
    return t != NULL;
}

bool dmpi_error_known(int code)
{
    if (code < 0) return false;
    if (code < NCLASSES) return class_text[code] != NULL;
    return dmpi_error_text(code) != NULL;
}

const char *dmpi_error_class_name(int cls)
{
    if (cls >= 0 && cls < NCLASSES && class_text[cls]) return class_text[cls];
    return cls > MPI_ERR_LASTCODE ? "user-defined error class" : "unknown error class";
}

static int record(int cls, const char *msg)
{
    if (cls < 0 || cls >= 128) return cls; /* user classes carry no message */
    int slot = next_slot;
    next_slot = (next_slot + 1) % NSLOTS;
    int code = 128 * (slot + 1) + (cls & 127);
    slots[slot].code = code;
    snprintf(slots[slot].msg, sizeof slots[slot].msg, "%s", msg);
    return code;
}

static dmpi_errhandler *handler_for(dmpi_comm *comm)
{
    if (comm) return comm->errh;
    /* Errors tied to no object: the world's handler unless it is fatal and
     * MPI_COMM_SELF's handler asks for a return. */
    dmpi_errhandler *w = dmpi_comm_world_obj.errh, *s = dmpi_comm_self_obj.errh;
    if (w && w->kind != DMPI_ERRH_FATAL) return w;
    return s ? s : w;
}

int dmpi_error(dmpi_comm *comm, int cls, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING - 64], msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const char *earlier = NULL;
    if (cls >= 128 && cls <= MPI_ERR_LASTCODE) {
        /* A code recorded before (a request's failure): its class, and its
         * text after ours. */
        earlier = dmpi_error_text(cls);
        cls = dmpi_error_class_of(cls);
    }
    int n = snprintf(msg, sizeof msg, "%s: %s", func, detail);
    if (earlier && *earlier && n >= 0 && (size_t)n + 3 < sizeof msg) {
        size_t room = sizeof msg - (size_t)n - 3, len = strlen(earlier);
        memcpy(msg + n, ": ", 2);
        memcpy(msg + n + 2, earlier, len < room ? len : room);
        msg[(size_t)n + 2 + (len < room ? len : room)] = 0;
    }
    int code = record(cls, msg);
    MPI_Comm handle = comm ? comm->handle : MPI_COMM_WORLD;
    return dmpi_errh_apply(handler_for(comm), DMPI_ERRH_FATAL, DMPI_ERRH_USER, &handle, code, "");
}

int dmpi_errh_apply(const dmpi_errhandler *h, int default_kind, int user_kind, void *handle,
                    int code, const char *prefix)
{
    int kind = h ? h->kind : default_kind;
    if (kind == DMPI_ERRH_RETURN) return code;
    if (kind == user_kind && h->comm_fn) {
        /* every errhandler function takes (handle *, int *, ...) */
        int c = code;
        ((void (*)(void *, int *, ...))(void (*)(void))h->comm_fn)(handle, &c);
        return code;
    }
    const char *text = dmpi_error_text(code);
    dmpi_abort_job(1, "dmpi: rank %d: %s%s (%s)%s", dmpi_rt.world_rank, prefix,
                   text ? text : "error", dmpi_error_class_name(dmpi_error_class_of(code)),
                   kind == DMPI_ERRH_FATAL ? "; MPI_ERRORS_ARE_FATAL ends the job" : "");
}

int dmpi_unimplemented(const char *func)
{
    return dmpi_error_noobj(MPI_ERR_UNSUPPORTED_OPERATION, func, "not implemented yet in dmpi");
}

void dmpi_abort_job(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    dmpi_pmi_abort(code, NULL); /* the message is printed above */
    _exit(code);
}

void dmpi_protocol_error(int peer, const char *what)
{
    dmpi_abort_job(1, "dmpi: rank %d: protocol failure with rank %d: %s", dmpi_rt.world_rank,
                   peer, what);
}
