/* Error reporting entry points: Error_string, Error_class, and the
 * communicator error handlers (create, set, get, call, free). */
#include "api/api.h"
#include "core/errclass.h"
#include "core/objpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both work for predefined classes, codes with a recorded message, and
 * user-added classes and codes (core/errclass.h); both may be called
 * before MPI_Init. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Error_string", "NULL argument");
    if (!dmpi_error_copy_text(errorcode, string, resultlen))
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Error_string", "unknown error code %d", errorcode);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Error_class", "NULL argument");
    if (!dmpi_error_known(errorcode))
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Error_class", "unknown error code %d", errorcode);
    *errorclass = dmpi_error_class_of(errorcode);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Error_class)

int dmpi_errhandler_create(int kind, void (*fn)(void), MPI_Errhandler *errhandler,
                           const char *FN)
{
    /* a session's handler is made before the session (and MPI) starts */
    if (kind != DMPI_ERRH_USER_SESSION) DMPI_CHECK_INIT(FN);
    if (!fn || !errhandler) return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
    dmpi_errhandler *e = dmpi_obj_alloc(&dmpi_errh_pool);
    if (!e) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    e->magic = DMPI_MAGIC_ERRH;
    e->refcount = 1;
    e->kind = kind;
    e->builtin = false;
    e->comm_fn = (MPI_Comm_errhandler_function *)fn;
    *errhandler = (MPI_Errhandler)(void *)e;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return dmpi_errhandler_create(DMPI_ERRH_USER, (void (*)(void))fn, errhandler,
                                  "MPI_Comm_create_errhandler");
}
DMPI_ALIAS(Comm_create_errhandler)


int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char *const FN = "MPI_Comm_set_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    dmpi_errhandler *e = dmpi_errhandler_get(errhandler);
    if (!e) return dmpi_error(c, MPI_ERR_ARG, FN, "invalid error handler");
    if (!e->builtin && e->kind != DMPI_ERRH_USER)
        return dmpi_error(c, MPI_ERR_ARG, FN, "error handler was not made for communicators");
    dmpi_lock();
    dmpi_errhandler_retain(e);
    dmpi_errhandler *old = c->errh;
    c->errh = e;
    if (old) dmpi_errhandler_release(old);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_Comm_get_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    if (!errhandler) return dmpi_error(c, MPI_ERR_ARG, FN, "errhandler is NULL");
    dmpi_errhandler_retain(c->errh);
    *errhandler = dmpi_errhandler_handle(c->errh);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_get_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char *const FN = "MPI_Errhandler_free";
    DMPI_CHECK_INIT(FN);
    if (!errhandler) return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
    dmpi_errhandler *e = dmpi_errhandler_get(*errhandler);
    if (!e) return dmpi_error_noobj(MPI_ERR_ARG, FN, "invalid error handler");
    dmpi_errhandler_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Errhandler_free)

/* A user handler gets errorcode exactly as given; MPI_ERRORS_RETURN does
 * nothing; the fatal handlers end the job, naming the code. */
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char *const FN = "MPI_Comm_call_errhandler";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    dmpi_lock();
    dmpi_errhandler *h = c->errh;
    dmpi_errhandler_retain(h); /* the handler may free it meanwhile */
    dmpi_unlock();
    int kind = h ? h->kind : DMPI_ERRH_FATAL;
    if (kind == DMPI_ERRH_USER && h->comm_fn) {
        MPI_Comm handle = c->handle;
        int code = errorcode;
        h->comm_fn(&handle, &code);
    } else if (kind != DMPI_ERRH_RETURN) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (!dmpi_error_copy_text(errorcode, text, &len)) snprintf(text, sizeof text, "unknown code");
        dmpi_error(c, dmpi_error_class_of(errorcode), FN, "user-raised error %d: %s", errorcode,
                   text);
    }
    dmpi_lock();
    dmpi_errhandler_release(h);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_call_errhandler)
