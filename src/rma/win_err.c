/* Errors raised on windows and the window info hints.
 *
 * Errors: the message is recorded by the core's dmpi_error (so
 * MPI_Error_string names the function and the problem) through a private
 * communicator whose handler returns, then the window's own handler is
 * applied: MPI_ERRORS_ARE_FATAL (the default for every window, whatever
 * the communicator had), MPI_ERRORS_ABORT, MPI_ERRORS_RETURN, or a
 * function from MPI_Win_create_errhandler (kind DMPI_ERRH_USER_WIN, kept
 * in comm_fn).
 *
 * Hints (MPI 4.1 section 12.2.1): no_locks, accumulate_ordering,
 * accumulate_ops, same_size, same_disp_unit, alloc_shared_noncontig. All
 * operations complete synchronously and in order, so the ordering and
 * same_op hints only change what MPI_Win_get_info reports. */
#include "rma/rma.h"
#include "core/attr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static dmpi_comm quiet; /* records messages; its handler returns */

static int record(int cls, const char *func, const char *detail)
{
    quiet.magic = DMPI_MAGIC_COMM;
    quiet.builtin = true;
    quiet.errh = &dmpi_errh_return;
    return dmpi_error(&quiet, cls, func, "%s", detail);
}

static int apply(dmpi_win *w, int code, bool user_raised)
{
    MPI_Win handle = dmpi_win_handle(w);
    return dmpi_errh_apply(w->errh, DMPI_ERRH_FATAL, DMPI_ERRH_USER_WIN, &handle, code,
                           user_raised ? "MPI_Win_call_errhandler: " : "");
}

int dmpi_win_err(dmpi_win *w, int cls, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (!w) return dmpi_error_noobj(cls, func, "%s", detail);
    return apply(w, record(cls, func, detail), false);
}

void dmpi_win_call_errhandler(dmpi_win *w, int code) { apply(w, code, true); }

/* Hook of core/attr.h: attribute errors on a window. */
int dmpi_win_error(MPI_Win h, int cls, const char *func, const char *msg)
{
    return dmpi_win_err(dmpi_win_get(h), cls, func, "%s", msg);
}

/* ------------------------------------------------------------------ hints */
static void bool_hint(const dmpi_info *info, const char *key, bool *out)
{
    const char *v = dmpi_info_lookup(info, key);
    if (!v) return;
    if (!strcasecmp(v, "true") || !strcmp(v, "1")) *out = true;
    else if (!strcasecmp(v, "false") || !strcmp(v, "0")) *out = false;
}

/* "none" or a comma-separated list of rar, raw, war, waw. */
static bool valid_ordering(const char *v)
{
    if (!strcmp(v, "none")) return true;
    if (!*v || strlen(v) >= sizeof(((dmpi_win_hints *)0)->acc_ordering)) return false;
    for (const char *p = v; *p;) {
        if (strncmp(p, "rar", 3) && strncmp(p, "raw", 3) && strncmp(p, "war", 3) &&
            strncmp(p, "waw", 3))
            return false;
        p += 3;
        if (*p == ',' && p[1]) p++;
        else if (*p) return false;
    }
    return true;
}

void dmpi_win_hints_parse(dmpi_win_hints *h, const dmpi_info *info, bool at_create)
{
    if (at_create) {
        memset(h, 0, sizeof *h);
        snprintf(h->acc_ordering, sizeof h->acc_ordering, "rar,raw,war,waw");
    }
    if (!info) return;
    bool_hint(info, "no_locks", &h->no_locks);
    const char *v = dmpi_info_lookup(info, "accumulate_ordering");
    if (v && valid_ordering(v)) snprintf(h->acc_ordering, sizeof h->acc_ordering, "%s", v);
    v = dmpi_info_lookup(info, "accumulate_ops");
    if (v && !strcmp(v, "same_op")) h->same_op = true;
    else if (v && !strcmp(v, "same_op_no_op")) h->same_op = false;
    if (at_create) {
        bool_hint(info, "same_size", &h->same_size);
        bool_hint(info, "same_disp_unit", &h->same_disp_unit);
        bool_hint(info, "alloc_shared_noncontig", &h->alloc_shared_noncontig);
    }
}

int dmpi_win_hints_fill(const dmpi_win *w, dmpi_info *info)
{
    const dmpi_win_hints *h = &w->hints;
    const char *t = "true", *f = "false";
    int rc = dmpi_info_set_kv(info, "no_locks", h->no_locks ? t : f);
    if (rc == MPI_SUCCESS) rc = dmpi_info_set_kv(info, "accumulate_ordering", h->acc_ordering);
    if (rc == MPI_SUCCESS)
        rc = dmpi_info_set_kv(info, "accumulate_ops", h->same_op ? "same_op" : "same_op_no_op");
    if (rc == MPI_SUCCESS) rc = dmpi_info_set_kv(info, "same_size", h->same_size ? t : f);
    if (rc == MPI_SUCCESS)
        rc = dmpi_info_set_kv(info, "same_disp_unit", h->same_disp_unit ? t : f);
    if (rc == MPI_SUCCESS && w->flavor == MPI_WIN_FLAVOR_SHARED)
        rc = dmpi_info_set_kv(info, "alloc_shared_noncontig", h->alloc_shared_noncontig ? t : f);
    return rc;
}
