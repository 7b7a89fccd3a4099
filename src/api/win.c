/* Window entry points (MPI 4.1 sections 12.2, 12.6 and 9.3): creation of
 * the four flavors and their _c forms, MPI_Win_free, shared_query,
 * attach/detach, group, info, name and the window error handlers. The
 * window machinery is in src/rma; window attributes (Win_set/get/
 * delete_attr) are in api/attr.c through the hooks of core/attr.h;
 * MPI_Alloc_mem is in api/mem.c.
 *
 * Errors before a window exists go to the communicator's handler, errors
 * on a window to the window's (MPI_ERRORS_ARE_FATAL unless set).
 *
 * Window memory in device memory is not supported yet (docs/accel.md): a
 * device base in MPI_Win_create or MPI_Win_attach, or MPI_Win_allocate(_
 * shared) asked for a device kind through mpi_memory_alloc_kinds, fails
 * with MPI_ERR_BUFFER (origin and result buffers in device memory are
 * staged by api/rma.c). */
#include "accel/accel.h"
#include "api/api.h"
#include "coll/coll.h"
#include "core/attr.h"
#include "core/group.h"
#include "core/info.h"
#include "rma/rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when this process's window memory would be device memory: a device
 * base, or an info asking for one device kind (the rule of MPI_Alloc_mem,
 * api/mem.c); 0 otherwise. */
static int device_memory(int flavor, const void *base, MPI_Aint size, const dmpi_info *inf)
{
    if (flavor == MPI_WIN_FLAVOR_CREATE) return size > 0 && dmpi_accel_needs_staging(base);
    char v[MPI_MAX_INFO_VAL + 1];
    int len = 0;
    if (!inf || !dmpi_info_copy_value(inf, "mpi_memory_alloc_kinds", v, sizeof v, &len)) return 0;
    int k = dmpi_mem_kind_from_name(v);
    return k >= 0 && dmpi_mem_kind_is_device((dmpi_mem_kind)k);
}

/* Refuses device window memory on every process when any has it: they
 * agree first (the creation is collective), so none is left waiting. */
static int refuse_device_memory(dmpi_comm *c, int flavor, const void *base, MPI_Aint size,
                                const dmpi_info *inf, const char *fn)
{
    int mine = device_memory(flavor, base, size, inf), any = mine;
    dmpi_lock();
    int rc = dmpi_coll_allreduce(MPI_IN_PLACE, &any, 1, dmpi_dt_builtin(MPI_INT),
                                 dmpi_op_builtin(MPI_MAX), c);
    dmpi_unlock();
    if (rc != MPI_SUCCESS) return dmpi_error(c, rc, fn, "cannot agree on the window memory");
    if (!any) return MPI_SUCCESS;
    return dmpi_error(c, MPI_ERR_BUFFER, fn, "%s: window memory in device memory is not "
                      "supported yet (docs/accel.md)",
                      !mine ? "another process's window memory is device memory"
                      : flavor == MPI_WIN_FLAVOR_CREATE ? "base is device memory"
                      : "mpi_memory_alloc_kinds asks for device memory");
}

static int create_common(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                         MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                         const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, fn);
    DMPI_CHECK(c, !c->remote_group, MPI_ERR_COMM, fn, "windows need an intracommunicator");
    DMPI_CHECK(c, win, MPI_ERR_ARG, fn, "win is NULL");
    DMPI_CHECK(c, size >= 0, MPI_ERR_SIZE, fn, "negative size %lld", (long long)size);
    DMPI_CHECK(c, disp_unit > 0, MPI_ERR_DISP, fn, "displacement unit %lld is not positive",
               (long long)disp_unit);
    bool alloc = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
    DMPI_CHECK(c, !alloc || baseptr, MPI_ERR_ARG, fn, "baseptr is NULL");
    dmpi_info *inf = info == MPI_INFO_NULL ? NULL : dmpi_info_get(info);
    DMPI_CHECK(c, info == MPI_INFO_NULL || inf, MPI_ERR_INFO, fn, "invalid info object");
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        int rc = refuse_device_memory(c, flavor, base, size, inf, fn);
        if (rc != MPI_SUCCESS) return rc;
    }
    char why[256] = "";
    dmpi_win *w = NULL;
    dmpi_lock();
    int rc = dmpi_win_create(c, flavor, base, size, disp_unit, inf,
                             alloc ? (void **)baseptr : NULL, &w, why, sizeof why);
    dmpi_unlock();
    if (rc != MPI_SUCCESS)
        return dmpi_error(c, rc, fn, "%s", why[0] ? why : "cannot create the window");
    *win = dmpi_win_handle(w);
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win,
                         "MPI_Win_create");
}
DMPI_ALIAS(Win_create)

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win,
                         "MPI_Win_create_c");
}
DMPI_ALIAS(Win_create_c)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr,
                         win, "MPI_Win_allocate");
}
DMPI_ALIAS(Win_allocate)

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr,
                         win, "MPI_Win_allocate_c");
}
DMPI_ALIAS(Win_allocate_c)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr,
                         win, "MPI_Win_allocate_shared");
}
DMPI_ALIAS(Win_allocate_shared)

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                               MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr,
                         win, "MPI_Win_allocate_shared_c");
}
DMPI_ALIAS(Win_allocate_shared_c)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create_common(MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL, win,
                         "MPI_Win_create_dynamic");
}
DMPI_ALIAS(Win_create_dynamic)

int PMPI_Win_free(MPI_Win *win)
{
    static const char *const FN = "MPI_Win_free";
    DMPI_CHECK_INIT(FN);
    if (!win) return dmpi_error_noobj(MPI_ERR_ARG, FN, "win is NULL");
    dmpi_win *w;
    DMPI_GET_WIN(w, *win, FN);
    const char *why = NULL;
    dmpi_lock();
    int rc = dmpi_rma_free_ok(w, &why);
    if (rc == MPI_SUCCESS) {
        rc = dmpi_attr_delete_all(&w->attrs, (void *)*win);
        if (rc != MPI_SUCCESS) why = "an attribute's delete callback failed";
    }
    dmpi_unlock();
    if (rc != MPI_SUCCESS) return dmpi_win_err(w, dmpi_error_class_of(rc), FN, "%s", why);
    dmpi_lock();
    dmpi_errhandler_release(w->errh);
    dmpi_win_free(w);
    dmpi_unlock();
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_free)

/* ------------------------------------------------------------- queries */
static int shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                        void *baseptr, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, fn);
    DMPI_WCHECK(w, size && disp_unit && baseptr, MPI_ERR_ARG, fn, "NULL argument");
    DMPI_WCHECK(w, w->flavor != MPI_WIN_FLAVOR_DYNAMIC, MPI_ERR_RMA_FLAVOR, fn,
                "dynamic windows have no memory of their own to query");
    DMPI_WCHECK(w, rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size), MPI_ERR_RANK, fn,
                "invalid rank %d (window of %d processes)", rank, w->size);
    if (rank == MPI_PROC_NULL) { /* the lowest rank with memory */
        rank = 0;
        for (int r = 0; r < w->size; r++)
            if (w->tgt[r].qsize > 0) {
                rank = r;
                break;
            }
    }
    const dmpi_win_target *tg = &w->tgt[rank];
    *size = tg->qsize;
    *disp_unit = tg->disp_unit;
    *(void **)baseptr = tg->qbase;
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int rc = shared_query(win, rank, size, disp_unit ? &du : NULL, baseptr,
                          "MPI_Win_shared_query");
    if (rc == MPI_SUCCESS) *disp_unit = (int)du;
    return rc;
}
DMPI_ALIAS(Win_shared_query)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return shared_query(win, rank, size, disp_unit, baseptr, "MPI_Win_shared_query_c");
}
DMPI_ALIAS(Win_shared_query_c)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char *const FN = "MPI_Win_attach";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC, MPI_ERR_RMA_FLAVOR, FN,
                "memory can only be attached to windows of MPI_Win_create_dynamic");
    DMPI_WCHECK(w, size >= 0, MPI_ERR_SIZE, FN, "negative size %lld", (long long)size);
    DMPI_WCHECK(w, base || size == 0, MPI_ERR_ARG, FN, "base is NULL");
    DMPI_WCHECK(w, size == 0 || !dmpi_accel_needs_staging(base), MPI_ERR_BUFFER, FN,
                "base is device memory: window memory in device memory is not supported yet "
                "(docs/accel.md)");
    const char *why = "";
    dmpi_lock();
    int rc = dmpi_win_attach(w, base, size, &why);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_win_err(w, rc, FN, "%s", why);
}
DMPI_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char *const FN = "MPI_Win_detach";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC, MPI_ERR_RMA_FLAVOR, FN,
                "memory can only be detached from windows of MPI_Win_create_dynamic");
    dmpi_lock();
    int rc = dmpi_win_detach(w, base);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_win_err(w, rc, FN, "no memory at %p is attached", base);
}
DMPI_ALIAS(Win_detach)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char *const FN = "MPI_Win_get_group";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, group, MPI_ERR_ARG, FN, "group is NULL");
    dmpi_lock();
    dmpi_group_retain(w->comm->group);
    *group = dmpi_group_handle(w->comm->group);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_get_group)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char *const FN = "MPI_Win_set_info";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    dmpi_info *inf = info == MPI_INFO_NULL ? NULL : dmpi_info_get(info);
    DMPI_WCHECK(w, info == MPI_INFO_NULL || inf, MPI_ERR_INFO, FN, "invalid info object");
    dmpi_lock();
    dmpi_win_hints_parse(&w->hints, inf, false);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char *const FN = "MPI_Win_get_info";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, info_used, MPI_ERR_ARG, FN, "info_used is NULL");
    dmpi_info *out = dmpi_info_new();
    DMPI_WCHECK(w, out, MPI_ERR_NO_MEM, FN, "out of memory");
    dmpi_lock();
    int rc = dmpi_win_hints_fill(w, out);
    dmpi_unlock();
    if (rc != MPI_SUCCESS) {
        dmpi_info_free(out);
        return dmpi_win_err(w, rc, FN, "cannot fill the info object");
    }
    *info_used = dmpi_info_handle(out);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_get_info)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char *const FN = "MPI_Win_set_name";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, win_name, MPI_ERR_ARG, FN, "win_name is NULL");
    dmpi_lock();
    snprintf(w->name, sizeof w->name, "%s", win_name); /* longer names are cut */
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char *const FN = "MPI_Win_get_name";
    DMPI_CHECK_INIT(FN);
    if (win == MPI_WIN_NULL && win_name && resultlen) { /* MPI 4.1 allows it */
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, win_name && resultlen, MPI_ERR_ARG, FN, "NULL argument");
    dmpi_lock();
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_get_name)

/* -------------------------------------------------------- error handlers */
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return dmpi_errhandler_create(DMPI_ERRH_USER_WIN, (void (*)(void))fn, errhandler,
                                  "MPI_Win_create_errhandler");
}
DMPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char *const FN = "MPI_Win_set_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    DMPI_WCHECK(w, e, MPI_ERR_ARG, FN, "invalid error handler");
    DMPI_WCHECK(w, e->builtin || e->kind == DMPI_ERRH_USER_WIN, MPI_ERR_ARG, FN,
                "the error handler was not made by MPI_Win_create_errhandler");
    dmpi_lock();
    dmpi_errhandler_retain(e);
    dmpi_errhandler *old = w->errh;
    w->errh = e;
    dmpi_errhandler_release(old);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_Win_get_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    DMPI_WCHECK(w, errhandler, MPI_ERR_ARG, FN, "errhandler is NULL");
    dmpi_lock();
    dmpi_errhandler_retain(w->errh);
    *errhandler = dmpi_errhandler_handle(w->errh);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char *const FN = "MPI_Win_call_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_win *w;
    DMPI_GET_WIN(w, win, FN);
    dmpi_lock();
    dmpi_errhandler *h = w->errh;
    dmpi_errhandler_retain(h); /* the handler may replace it meanwhile */
    dmpi_unlock();
    dmpi_win_call_errhandler(w, errorcode);
    dmpi_lock();
    dmpi_errhandler_release(h);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Win_call_errhandler)
