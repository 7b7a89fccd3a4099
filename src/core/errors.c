/* Errors: error codes that carry a message, the error-handler dispatch, and
 * job abort. An error code below 128 is a bare class; a larger code names a
 * slot in a small ring of recent messages (code = 128 * (slot + 1) + class),
 * so MPI_Error_string can say exactly what was wrong ("MPI_Send: invalid
 * rank 5 (communicator size 4)") and MPI_Error_class still recovers the
 * class. User-added classes/codes (object-model issue) use the range below
 * 128 not taken by the standard's classes. */
#include "core/dmpi.h"
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

int dmpi_error_class_of(int code)
{
    if (code < 0) return MPI_ERR_UNKNOWN;
    if (code < 128) return code;
    if (code <= 128 * NSLOTS + 127) return code & 127;
    return MPI_ERR_UNKNOWN;
}

const char *dmpi_error_text(int code)
{
    if (code >= 128 && code <= 128 * NSLOTS + 127) {
        int slot = code / 128 - 1;
        if (slots[slot].code == code) return slots[slot].msg;
    }
    int cls = dmpi_error_class_of(code);
    if (cls >= 0 && cls < NCLASSES && class_text[cls]) return class_text[cls];
    return NULL;
}

const char *dmpi_error_class_name(int cls)
{
    return cls >= 0 && cls < NCLASSES && class_text[cls] ? class_text[cls] : "unknown error class";
}

static int record(int cls, const char *msg)
{
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
    snprintf(msg, sizeof msg, "%s: %s", func, detail);
    int code = record(cls, msg);
    dmpi_errhandler *h = handler_for(comm);
    int kind = h ? h->kind : DMPI_ERRH_FATAL;
    if (kind == DMPI_ERRH_RETURN) return code;
    if (kind == DMPI_ERRH_USER && h->comm_fn) {
        MPI_Comm handle = comm ? comm->handle : MPI_COMM_WORLD;
        h->comm_fn(&handle, &code);
        return code;
    }
    dmpi_abort_job(1, "dmpi: rank %d: %s (%s)%s", dmpi_rt.world_rank, msg,
                   dmpi_error_class_name(cls),
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
