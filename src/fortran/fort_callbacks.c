/* Fortran procedures that take user procedures: MPI_Op_create, the
 * keyval constructors, the error-handler constructors, MPI_Grequest_start
 * and MPI_Register_datarep, plus the predefined attribute callbacks
 * (MPI_COMM_DUP_FN & co.) as Fortran-callable procedures.
 *
 * C calls a callback with C arguments (handles as pointers, values by
 * value); a Fortran procedure wants everything by reference, handles as
 * integers. Keyvals and generalized requests carry an extra_state, which
 * here points at a record of the Fortran procedures. Operations and error
 * handlers carry nothing, so each gets one of a fixed set of C trampolines
 * (DMPI_F_SLOTS of each), whose index finds the Fortran procedure. */
#include "fortran/fort_support.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Fortran procedure types (all arguments by reference). */
typedef void (*f_user_fn)(void *in, void *inout, MPI_Fint *len, MPI_Fint *type);
typedef void (*f_errh_fn)(MPI_Fint *obj, MPI_Fint *code);
typedef void (*f_copy_fn)(MPI_Fint *obj, MPI_Fint *keyval, void *extra, void *in, void *out,
                          MPI_Fint *flag, MPI_Fint *ierror);
typedef void (*f_delete_fn)(MPI_Fint *obj, MPI_Fint *keyval, void *value, void *extra,
                            MPI_Fint *ierror);

/* ---------------------------------------------------------- trampolines */

#define DMPI_F_SLOTS 64
/* 64 instances of M, numbered by octal literals 000..077. */
#define F_OCT8(M, d) M(d##0) M(d##1) M(d##2) M(d##3) M(d##4) M(d##5) M(d##6) M(d##7)
#define F_SLOTS64(M) F_OCT8(M, 00) F_OCT8(M, 01) F_OCT8(M, 02) F_OCT8(M, 03) \
    F_OCT8(M, 04) F_OCT8(M, 05) F_OCT8(M, 06) F_OCT8(M, 07)

static struct { f_user_fn fn; MPI_Op op; } op_slot[DMPI_F_SLOTS];
static struct { f_errh_fn fn; char kind; } errh_slot[DMPI_F_SLOTS];

static void call_op(int i, void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Fint t = MPI_Type_toint(*type), n = *len;
    op_slot[i].fn(in, inout, &n, &t);
}

static void call_errh(int i, void *obj, int *code)
{
    MPI_Fint h;
    switch (errh_slot[i].kind) {
    case 'c': h = MPI_Comm_toint(*(MPI_Comm *)obj); break;
    case 'w': h = MPI_Win_toint(*(MPI_Win *)obj); break;
    case 'f': h = MPI_File_toint(*(MPI_File *)obj); break;
    default: h = MPI_Session_toint(*(MPI_Session *)obj); break;
    }
    MPI_Fint c = *code;
    errh_slot[i].fn(&h, &c);
}

#define F_OP_TRAMP(n) \
    static void op_tramp_##n(void *a, void *b, int *len, MPI_Datatype *t) { call_op(0##n, a, b, len, t); }
#define F_ERRH_TRAMP(n) \
    static void errh_tramp_##n(void *obj, int *code, ...) { call_errh(0##n, obj, code); }
F_SLOTS64(F_OP_TRAMP)
F_SLOTS64(F_ERRH_TRAMP)
#define F_OP_ENTRY(n) op_tramp_##n,
#define F_ERRH_ENTRY(n) errh_tramp_##n,
static MPI_User_function *const op_tramp[DMPI_F_SLOTS] = {F_SLOTS64(F_OP_ENTRY)};
static void (*const errh_tramp[DMPI_F_SLOTS])(void *, int *, ...) = {F_SLOTS64(F_ERRH_ENTRY)};

/* ------------------------------------------------------------ operations */

void pmpi_op_create_(void *user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    pthread_mutex_lock(&mu);
    int i = 0;
    while (i < DMPI_F_SLOTS && op_slot[i].fn) i++;
    if (i < DMPI_F_SLOTS) op_slot[i].fn = (f_user_fn)user_fn;
    pthread_mutex_unlock(&mu);
    if (i == DMPI_F_SLOTS) {   /* more than DMPI_F_SLOTS Fortran operations alive */
        dmpi_f_set_ierror(ierror, MPI_ERR_INTERN);
        return;
    }
    MPI_Op c = MPI_OP_NULL;
    int rc = MPI_Op_create(op_tramp[i], *commute != 0, &c);
    pthread_mutex_lock(&mu);
    if (rc == MPI_SUCCESS) op_slot[i].op = c;
    else op_slot[i].fn = NULL;
    pthread_mutex_unlock(&mu);
    if (rc == MPI_SUCCESS) *op = MPI_Op_toint(c);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_op_create)

void pmpi_op_free_(MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c = MPI_Op_fromint(*op), old = c;
    int rc = MPI_Op_free(&c);
    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&mu);
        for (int i = 0; i < DMPI_F_SLOTS; i++)
            if (op_slot[i].fn && op_slot[i].op == old) op_slot[i].fn = NULL;
        pthread_mutex_unlock(&mu);
        *op = MPI_Op_toint(c);
    }
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_op_free)

/* -------------------------------------------------------- error handlers */

static int errh_slot_take(f_errh_fn fn, char kind)
{
    pthread_mutex_lock(&mu);
    int i = 0;
    /* the same procedure for the same kind of object shares a trampoline */
    while (i < DMPI_F_SLOTS && errh_slot[i].fn && !(errh_slot[i].fn == fn && errh_slot[i].kind == kind))
        i++;
    if (i < DMPI_F_SLOTS) {
        errh_slot[i].fn = fn;
        errh_slot[i].kind = kind;
    }
    pthread_mutex_unlock(&mu);
    return i < DMPI_F_SLOTS ? i : -1;
}

static void errh_create(char kind, void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    int i = errh_slot_take((f_errh_fn)fn, kind);
    if (i < 0) {   /* more than DMPI_F_SLOTS Fortran error handlers alive */
        dmpi_f_set_ierror(ierror, MPI_ERR_INTERN);
        return;
    }
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc;
    switch (kind) {
    case 'c': rc = MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)errh_tramp[i], &eh); break;
    case 'w': rc = MPI_Win_create_errhandler((MPI_Win_errhandler_function *)errh_tramp[i], &eh); break;
    case 'f': rc = MPI_File_create_errhandler((MPI_File_errhandler_function *)errh_tramp[i], &eh); break;
    default:
        rc = MPI_Session_create_errhandler((MPI_Session_errhandler_function *)errh_tramp[i], &eh);
        break;
    }
    if (rc == MPI_SUCCESS) *errhandler = MPI_Errhandler_toint(eh);
    dmpi_f_set_ierror(ierror, rc);
}

#define F_ERRH_CREATE(obj, kind)                                                         \
    void pmpi_##obj##_create_errhandler_(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror) \
    {                                                                                   \
        errh_create(kind, fn, errhandler, ierror);                                      \
    }                                                                                   \
    DMPI_F_ALIASES(mpi_##obj##_create_errhandler)
F_ERRH_CREATE(comm, 'c')
F_ERRH_CREATE(win, 'w')
F_ERRH_CREATE(file, 'f')
F_ERRH_CREATE(session, 's')

/* A trampoline stays reserved while objects may still use the handler
 * (freeing the handle does not end that, and C does not say when it
 * ends), so error-handler slots are kept until MPI_Finalize; creating a
 * handler again from the same procedure reuses its slot. */
void pmpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler c = MPI_Errhandler_fromint(*errhandler);
    int rc = MPI_Errhandler_free(&c);
    if (rc == MPI_SUCCESS) *errhandler = MPI_Errhandler_toint(c);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_errhandler_free)

/* ------------------------------------------------------------- keyvals */

/* What a Fortran keyval's extra_state points at. Kept until MPI_Finalize:
 * attributes may outlive their keyval. */
struct f_keyval {
    f_copy_fn copy;
    f_delete_fn del;
    MPI_Aint extra;      /* the user's extra_state */
    char kind;           /* 'c' comm, 't' type, 'w' win */
    bool mpi1;           /* MPI_Keyval_create: INTEGER values and state */
    struct f_keyval *next;
};
static struct f_keyval *keyvals;

static MPI_Fint obj_toint(char kind, void *obj)
{
    switch (kind) {
    case 'c': return MPI_Comm_toint((MPI_Comm)obj);
    case 't': return MPI_Type_toint((MPI_Datatype)obj);
    default: return MPI_Win_toint((MPI_Win)obj);
    }
}

static int copy_tramp(void *obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_keyval *k = extra;
    MPI_Fint h = obj_toint(k->kind, obj), kv = keyval, f = 0, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
        k->copy(&h, &kv, &e, &vin, &vout, &f, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint vin = (MPI_Aint)(intptr_t)in, vout = 0;
        k->copy(&h, &kv, &k->extra, &vin, &vout, &f, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    }
    *flag = f != 0;
    return ierr;
}

static int delete_tramp(void *obj, int keyval, void *value, void *extra)
{
    struct f_keyval *k = extra;
    MPI_Fint h = obj_toint(k->kind, obj), kv = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)value;
        k->del(&h, &kv, &v, &e, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)(intptr_t)value;
        k->del(&h, &kv, &v, &k->extra, &ierr);
    }
    return ierr;
}

/* The predefined callbacks, callable from Fortran (and recognised below). */
void pmpi_comm_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                             MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    *ierror = MPI_SUCCESS;
}
void pmpi_comm_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                       MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}
void pmpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value,
                               MPI_Aint *extra, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)value, (void)extra;
    *ierror = MPI_SUCCESS;
}
void pmpi_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                  MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}
#define F_PREDEF(impl, name) DMPI_F_ALIAS(impl, name##_) DMPI_F_ALIAS(impl, p##name##_)
DMPI_F_ALIAS(pmpi_comm_null_copy_fn_, mpi_comm_null_copy_fn_)
DMPI_F_ALIAS(pmpi_comm_dup_fn_, mpi_comm_dup_fn_)
DMPI_F_ALIAS(pmpi_comm_null_delete_fn_, mpi_comm_null_delete_fn_)
DMPI_F_ALIAS(pmpi_dup_fn_, mpi_dup_fn_)
F_PREDEF(pmpi_comm_null_copy_fn_, mpi_type_null_copy_fn)
F_PREDEF(pmpi_comm_null_copy_fn_, mpi_win_null_copy_fn)
F_PREDEF(pmpi_comm_null_copy_fn_, mpi_null_copy_fn)
F_PREDEF(pmpi_comm_dup_fn_, mpi_type_dup_fn)
F_PREDEF(pmpi_comm_dup_fn_, mpi_win_dup_fn)
F_PREDEF(pmpi_comm_null_delete_fn_, mpi_type_null_delete_fn)
F_PREDEF(pmpi_comm_null_delete_fn_, mpi_win_null_delete_fn)
F_PREDEF(pmpi_comm_null_delete_fn_, mpi_null_delete_fn)

static bool is_null_copy(void *fn)
{
    return fn == (void *)pmpi_comm_null_copy_fn_;
}
static bool is_dup(void *fn)
{
    return fn == (void *)pmpi_comm_dup_fn_ || fn == (void *)pmpi_dup_fn_;
}
static bool is_null_delete(void *fn)
{
    return fn == (void *)pmpi_comm_null_delete_fn_;
}

static void keyval_create(char kind, bool mpi1, void *copy, void *del, MPI_Aint extra,
                          MPI_Fint *keyval, MPI_Fint *ierror)
{
    struct f_keyval *k = malloc(sizeof *k);
    if (!k) {
        dmpi_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *k = (struct f_keyval){(f_copy_fn)copy, (f_delete_fn)del, extra, kind, mpi1, NULL};
    /* predefined callbacks are the C ones (0 = null, 1 = dup in the ABI) */
    void *c_copy = is_null_copy(copy) ? (void *)0 : is_dup(copy) ? (void *)1 : (void *)copy_tramp;
    void *c_del = is_null_delete(del) ? (void *)0 : (void *)delete_tramp;
    int kv = MPI_KEYVAL_INVALID, rc;
    switch (kind) {
    case 'c':
        rc = MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)c_copy,
                                    (MPI_Comm_delete_attr_function *)c_del, &kv, k);
        break;
    case 't':
        rc = MPI_Type_create_keyval((MPI_Type_copy_attr_function *)c_copy,
                                    (MPI_Type_delete_attr_function *)c_del, &kv, k);
        break;
    default:
        rc = MPI_Win_create_keyval((MPI_Win_copy_attr_function *)c_copy,
                                   (MPI_Win_delete_attr_function *)c_del, &kv, k);
        break;
    }
    if (rc != MPI_SUCCESS) {
        free(k);
    } else {
        pthread_mutex_lock(&mu);
        k->next = keyvals;
        keyvals = k;
        pthread_mutex_unlock(&mu);
        *keyval = kv;
    }
    dmpi_f_set_ierror(ierror, rc);
}

#define F_KEYVAL_CREATE(obj, kind)                                                      \
    void pmpi_##obj##_create_keyval_(void *copy, void *del, MPI_Fint *keyval,            \
                                     MPI_Aint *extra, MPI_Fint *ierror)                  \
    {                                                                                   \
        keyval_create(kind, false, copy, del, *extra, keyval, ierror);                  \
    }                                                                                   \
    DMPI_F_ALIASES(mpi_##obj##_create_keyval)
F_KEYVAL_CREATE(comm, 'c')
F_KEYVAL_CREATE(type, 't')
F_KEYVAL_CREATE(win, 'w')

void pmpi_keyval_create_(void *copy, void *del, MPI_Fint *keyval, MPI_Fint *extra,
                         MPI_Fint *ierror)
{
    keyval_create('c', true, copy, del, *extra, keyval, ierror);
}
DMPI_F_ALIASES(mpi_keyval_create)

/* -------------------------------------------------- generalized requests */

typedef void (*f_query_fn)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void (*f_free_fn)(MPI_Aint *extra, MPI_Fint *ierror);
typedef void (*f_cancel_fn)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

struct f_grequest {
    f_query_fn query;
    f_free_fn free;
    f_cancel_fn cancel;
    MPI_Aint extra;
};

static int greq_query(void *extra, MPI_Status *status)
{
    struct f_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)(void *)status, &ierr);
    return ierr;
}

static int greq_free(void *extra)
{
    struct f_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *extra, int complete)
{
    struct f_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS, c = complete != 0;
    g->cancel(&g->extra, &c, &ierr);
    return ierr;
}

void pmpi_grequest_start_(void *query, void *freefn, void *cancel, MPI_Aint *extra,
                          MPI_Fint *request, MPI_Fint *ierror)
{
    struct f_grequest *g = malloc(sizeof *g);
    if (!g) {
        dmpi_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *g = (struct f_grequest){(f_query_fn)query, (f_free_fn)freefn, (f_cancel_fn)cancel, *extra};
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r);
    if (rc == MPI_SUCCESS) *request = MPI_Request_toint(r);
    else free(g);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_grequest_start)

/* ---------------------------------------------- user data representations */

typedef void (*f_conv_fn)(void *userbuf, MPI_Fint *type, MPI_Fint *count, void *filebuf,
                          MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
typedef void (*f_extent_fn)(MPI_Fint *type, MPI_Aint *extent, MPI_Aint *extra,
                            MPI_Fint *ierror);

/* What a Fortran data representation's extra_state points at; kept until
 * MPI_Finalize (a representation cannot be unregistered). */
struct f_datarep {
    f_conv_fn read, write;
    f_extent_fn extent;
    MPI_Aint extra;
    struct f_datarep *next;
};
static struct f_datarep *datareps;

/* MPI_CONVERSION_FN_NULL: recognised by address, never called by dmpi. */
void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *type, MPI_Fint *count, void *filebuf,
                              MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror)
{
    (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position, (void)extra;
    *ierror = MPI_SUCCESS;
}
DMPI_F_ALIAS(pmpi_conversion_fn_null_, mpi_conversion_fn_null_)

static int convert(f_conv_fn fn, void *userbuf, MPI_Datatype type, int count, void *filebuf,
                   MPI_Offset position, struct f_datarep *d)
{
    MPI_Fint t = MPI_Type_toint(type), n = count, ierr = MPI_SUCCESS;
    fn(userbuf, &t, &n, filebuf, &position, &d->extra, &ierr);
    return ierr;
}

static int read_tramp(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    struct f_datarep *d = extra;
    return convert(d->read, userbuf, type, count, filebuf, position, d);
}

static int write_tramp(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                       MPI_Offset position, void *extra)
{
    struct f_datarep *d = extra;
    return convert(d->write, userbuf, type, count, filebuf, position, d);
}

static int extent_tramp(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    struct f_datarep *d = extra;
    MPI_Fint t = MPI_Type_toint(type), ierr = MPI_SUCCESS;
    d->extent(&t, extent, &d->extra, &ierr);
    return ierr;
}

void pmpi_register_datarep_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                            MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len)
{
    struct f_datarep *d = malloc(sizeof *d);
    char *name = dmpi_f_str_in(datarep, datarep_len, false);
    if (!d || !name) {
        free(d);
        free(name);
        dmpi_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *d = (struct f_datarep){(f_conv_fn)read_fn, (f_conv_fn)write_fn, (f_extent_fn)extent_fn,
                            *extra, NULL};
    void *null_fn = (void *)pmpi_conversion_fn_null_;
    int rc = MPI_Register_datarep(name, read_fn == null_fn ? MPI_CONVERSION_FN_NULL : read_tramp,
                                  write_fn == null_fn ? MPI_CONVERSION_FN_NULL : write_tramp,
                                  extent_tramp, d);
    free(name);
    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&mu);
        d->next = datareps;
        datareps = d;
        pthread_mutex_unlock(&mu);
    } else {
        free(d);
    }
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_register_datarep)

/* ------------------------------------------------------------- cleanup */

void dmpi_f_callbacks_finalize(void)
{
    pthread_mutex_lock(&mu);
    while (datareps) {
        struct f_datarep *d = datareps;
        datareps = d->next;
        free(d);
    }
    while (keyvals) {
        struct f_keyval *k = keyvals;
        keyvals = k->next;
        free(k);
    }
    for (int i = 0; i < DMPI_F_SLOTS; i++) {
        op_slot[i].fn = NULL;
        errh_slot[i].fn = NULL;
    }
    pthread_mutex_unlock(&mu);
}
