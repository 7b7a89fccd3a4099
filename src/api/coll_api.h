/* Shared machinery of the collective entry points (api/coll*.c): every
 * collective has up to six entry points (MPI_X, MPI_X_c, MPI_IX, MPI_IX_c,
 * MPI_X_init, MPI_X_init_c) that share one checking function taking the
 * arguments with MPI_Count counts, int-or-Count arrays (dmpi_arr), and a
 * dmpi_how saying which form was called. The checking function fills a
 * dmpi_coll_call and hands it to dmpi_coll_go, which builds the schedule
 * and runs it (blocking), starts it (nonblocking) or wraps it in an
 * inactive persistent request. */
#ifndef DMPI_API_COLL_H
#define DMPI_API_COLL_H

#include "api/api.h"
#include "coll/coll.h"

/* Which form of a collective was called. */
enum { DMPI_HOW_BLOCKING, DMPI_HOW_NONBLOCKING, DMPI_HOW_PERSISTENT };
typedef struct dmpi_how {
    int mode;
    MPI_Request *req; /* nonblocking and persistent forms */
    MPI_Info info;    /* persistent forms */
    const char *fn;   /* "MPI_Igatherv_c" ... for error messages */
} dmpi_how;

/* An array argument of the int form (int elements) or of the _c form
 * (MPI_Count counts, MPI_Aint displacements). */
typedef struct dmpi_arr {
    const void *p;
    bool wide;
} dmpi_arr;
#define DMPI_ARR(p, wide) ((dmpi_arr){(p), (wide)})

/* A call being checked: its description, and arrays converted for it
 * (freed by dmpi_coll_go or dmpi_coll_drop). */
typedef struct dmpi_coll_call {
    dmpi_comm *c;
    dmpi_how how;
    dmpi_coll_args a;
    void *owned[8];
    int nowned;
    bool oom;
    dmpi_datatype *const *tarr[2]; /* alltoallw type arrays and their lengths */
    int tlen[2], ntarr;
} dmpi_coll_call;

/* Common start of every entry point: MPI initialised, a valid
 * communicator, a request pointer (nonblocking, persistent) and a valid
 * info (persistent). Returns from the calling function on error. */
#define DMPI_COLL_BEGIN(k, comm, how)                                                 \
    do {                                                                              \
        DMPI_CHECK_INIT((how).fn);                                                    \
        DMPI_GET_COMM((k).c, comm, (how).fn);                                         \
        (k).how = (how);                                                              \
        int rc_b_ = dmpi_coll_check_how((k).c, &(how));                               \
        if (rc_b_ != MPI_SUCCESS) return rc_b_;                                       \
    } while (0)
int dmpi_coll_check_how(dmpi_comm *c, const dmpi_how *how);

/* Checks of one side of a call; each returns MPI_SUCCESS or the error
 * already raised on c. */
int dmpi_coll_check_side(dmpi_comm *c, const void *buf, MPI_Count n, MPI_Datatype h,
                         dmpi_datatype **dt, const char *fn);
/* Datatype only (valid and committed). */
int dmpi_coll_check_type(dmpi_comm *c, MPI_Datatype h, dmpi_datatype **dt, const char *fn);
/* op valid and defined on dt. */
int dmpi_coll_check_op(dmpi_comm *c, MPI_Op h, const dmpi_datatype *dt, dmpi_op **op,
                       const char *fn);
/* A count array of n entries: not NULL (MPI_ERR_ARG) and no negative entry
 * (MPI_ERR_COUNT). A displacement array: not NULL. */
int dmpi_coll_check_counts(dmpi_comm *c, dmpi_arr a, int n, const char *what, const char *fn);
int dmpi_coll_check_displs(dmpi_comm *c, dmpi_arr a, int n, const char *what, const char *fn);
/* A NULL buffer of a predefined type with a nonzero count among counts
 * (checked counts): MPI_ERR_BUFFER. */
int dmpi_coll_check_vbuf(dmpi_comm *c, const void *buf, dmpi_arr counts, int n,
                         const dmpi_datatype *dt, const char *what, const char *fn);
/* A datatype array of n entries (alltoallw): not NULL; the types of
 * entries with a nonzero count valid and committed. */
int dmpi_coll_check_types(dmpi_comm *c, const MPI_Datatype *h, dmpi_arr counts, int n,
                          const char *what, const char *fn);
/* Root: a rank of c, or for an intercommunicator MPI_ROOT, MPI_PROC_NULL
 * or a rank of the remote group (MPI_ERR_ROOT). */
int dmpi_coll_check_root(dmpi_comm *c, int root, const char *fn);
/* MPI_IN_PLACE not allowed for this buffer (MPI_ERR_BUFFER). */
int dmpi_coll_not_in_place(dmpi_comm *c, const void *buf, const char *what, const char *fn);
/* Intracommunicator required (MPI_ERR_COMM), e.g. Scan. */
int dmpi_coll_check_intra(dmpi_comm *c, const char *fn);

/* Converted arrays for k->a (owned by k; NULL for a NULL input). */
const MPI_Count *dmpi_coll_counts(dmpi_coll_call *k, dmpi_arr a, int n);
const MPI_Aint *dmpi_coll_displs(dmpi_coll_call *k, dmpi_arr a, int n);
/* Datatype objects for an alltoallw array (MPI_BYTE where the count is 0). */
dmpi_datatype *const *dmpi_coll_types(dmpi_coll_call *k, const MPI_Datatype *h, dmpi_arr counts,
                                      int n);

/* Runs / starts / wraps k (see the top of this file), frees what k owns,
 * and raises a run-time error on k->c. */
int dmpi_coll_go(dmpi_coll_call *k);
/* Gives up on k (a check failed with rc, already raised): frees what k
 * owns and returns rc. */
int dmpi_coll_drop(dmpi_coll_call *k, int rc);
/* The send and receive buffers must not be the same memory unless empty
 * (MPI_IN_PLACE is the way to say that): MPI_ERR_BUFFER. */
int dmpi_coll_no_alias(dmpi_comm *c, const void *sbuf, const void *rbuf, MPI_Count n,
                       const char *fn);
/* ------------------------------------------- device buffers (coll_stage.c)
 * Only while a device backend is active (dmpi_accel_on): the buffers of a
 * call that lie in device memory get host blocks (dmpi_coll_stage_begin
 * points k->a at them and fills them, except for persistent calls, which
 * fill them at each MPI_Start through dmpi_coll_stage_restart). The
 * outputs are copied back by dmpi_coll_stage_end (blocking: copy back and
 * free) or, for a request, by the completion hook dmpi_coll_stage_attach
 * installs (the blocks go with the request). *st stays NULL when nothing
 * needs staging. Errors: MPI_ERR_BUFFER, MPI_ERR_NO_MEM, with
 * dmpi_accel_error() saying why; dmpi_coll_stage_error raises them. */
typedef struct dmpi_coll_stage dmpi_coll_stage;
int dmpi_coll_stage_begin(dmpi_coll_call *k, dmpi_coll_stage **st);
int dmpi_coll_stage_end(dmpi_coll_stage *st);
void dmpi_coll_stage_free(dmpi_coll_stage *st);
void dmpi_coll_stage_attach(dmpi_request *r, dmpi_coll_stage *st); /* lock held */
int dmpi_coll_stage_restart(dmpi_request *r);                      /* r->stage set */
int dmpi_coll_stage_error(dmpi_comm *c, int rc, const char *fn);
/* MPI_Reduce_local: the same for its two buffers (both pointers updated). */
int dmpi_reduce_local_staged(const void **inbuf, void **inoutbuf, MPI_Count count,
                             const dmpi_datatype *dt, dmpi_coll_stage **st);

/* Returns from the calling checker, giving up on k, if call fails. */
#define DMPI_KTRY(k, call)                                                            \
    do {                                                                              \
        int rc_k_ = (call);                                                           \
        if (rc_k_ != MPI_SUCCESS) return dmpi_coll_drop(&(k), rc_k_);                 \
    } while (0)

/* Rank count that the count arrays of a (non-neighbour) collective on c
 * cover: the remote group of an intercommunicator, else c's size. */
static inline int dmpi_coll_peers(const dmpi_comm *c) { return dmpi_comm_peer_size(c); }

/* ------------------------------------------------------- entry points
 * ARGS(C, D): the parameter list with count type C and displacement type
 * D; PASS(W): the arguments for the checking function impl, W = 1 in the
 * _c forms (for DMPI_ARR). impl takes them followed by a dmpi_how. */
#define DMPI_HOW_B(fn) ((dmpi_how){DMPI_HOW_BLOCKING, NULL, MPI_INFO_NULL, fn})
#define DMPI_HOW_I(r, fn) ((dmpi_how){DMPI_HOW_NONBLOCKING, r, MPI_INFO_NULL, fn})
#define DMPI_HOW_P(i, r, fn) ((dmpi_how){DMPI_HOW_PERSISTENT, r, i, fn})

#define DMPI_COLL_ENTRIES(Name, IName, ARGS, PASS, impl)                                   \
    int PMPI_##Name(ARGS(int, int)) { return impl(PASS(0), DMPI_HOW_B("MPI_" #Name)); }     \
    DMPI_ALIAS(Name)                                                                        \
    int PMPI_##Name##_c(ARGS(MPI_Count, MPI_Aint))                                          \
    {                                                                                       \
        return impl(PASS(1), DMPI_HOW_B("MPI_" #Name "_c"));                                \
    }                                                                                       \
    DMPI_ALIAS(Name##_c)                                                                    \
    int PMPI_##IName(ARGS(int, int), MPI_Request *request)                                  \
    {                                                                                       \
        return impl(PASS(0), DMPI_HOW_I(request, "MPI_" #IName));                           \
    }                                                                                       \
    DMPI_ALIAS(IName)                                                                       \
    int PMPI_##IName##_c(ARGS(MPI_Count, MPI_Aint), MPI_Request *request)                   \
    {                                                                                       \
        return impl(PASS(1), DMPI_HOW_I(request, "MPI_" #IName "_c"));                      \
    }                                                                                       \
    DMPI_ALIAS(IName##_c)                                                                   \
    int PMPI_##Name##_init(ARGS(int, int), MPI_Info info, MPI_Request *request)             \
    {                                                                                       \
        return impl(PASS(0), DMPI_HOW_P(info, request, "MPI_" #Name "_init"));              \
    }                                                                                       \
    DMPI_ALIAS(Name##_init)                                                                 \
    int PMPI_##Name##_init_c(ARGS(MPI_Count, MPI_Aint), MPI_Info info, MPI_Request *request) \
    {                                                                                       \
        return impl(PASS(1), DMPI_HOW_P(info, request, "MPI_" #Name "_init_c"));            \
    }                                                                                       \
    DMPI_ALIAS(Name##_init_c)

#endif
