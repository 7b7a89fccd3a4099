/* MPI collective entry points of the reduction family and Barrier/Bcast:
 * Barrier, Bcast, Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan
 * in their blocking, nonblocking (MPI_I...) and persistent (..._init)
 * forms, each with its large-count _c form; MPI_Reduce_local and the
 * user-defined reduction ops (Op_create/_c, Op_free, Op_commutative).
 * Argument checks and the MPI_IN_PLACE rules (intra- and
 * intercommunicators) live here; the algorithms are in src/coll. */
#include "accel/accel.h"
#include "api/coll_api.h"
#include "core/op.h"

#define NOT_IN_PLACE(k, buf, what)                                                 \
    do {                                                                           \
        int rc_ = dmpi_coll_not_in_place((k).c, buf, what, (k).how.fn);            \
        if (rc_ != MPI_SUCCESS) return rc_;                                        \
    } while (0)
#define TRY(call)                                                                  \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_ != MPI_SUCCESS) return rc_;                                        \
    } while (0)

/* Send and receive buffers must not be the same memory (MPI_IN_PLACE is
 * the way to say that). */
#define NO_ALIAS(k, sbuf, rbuf, n)                                                 \
    DMPI_CHECK((k).c, (sbuf) != (rbuf) || (n) == 0 || (sbuf) == NULL, MPI_ERR_BUFFER, \
               (k).how.fn, "the send and receive buffers are the same; use MPI_IN_PLACE")

/* --------------------------------------------------------------- barrier */
static int barrier(MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    k.a.coll = DMPI_COLL_BARRIER;
    return dmpi_coll_go(&k);
}

int PMPI_Barrier(MPI_Comm comm) { return barrier(comm, DMPI_HOW_B("MPI_Barrier")); }
DMPI_ALIAS(Barrier)
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return barrier(comm, DMPI_HOW_I(request, "MPI_Ibarrier"));
}
DMPI_ALIAS(Ibarrier)
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return barrier(comm, DMPI_HOW_P(info, request, "MPI_Barrier_init"));
}
DMPI_ALIAS(Barrier_init)

/* ----------------------------------------------------------------- bcast */
static int bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    TRY(dmpi_coll_check_root(k.c, root, how.fn));
    k.a = (dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = buf, .rcount = count, .root = root};
    if (root != MPI_PROC_NULL) {
        TRY(dmpi_coll_check_side(k.c, buf, count, datatype, &k.a.rdt, how.fn));
        NOT_IN_PLACE(k, buf, "the buffer");
    } else {
        k.a.rdt = dmpi_coll_byte();
        k.a.rcount = 0;
    }
    return dmpi_coll_go(&k);
}

#define BCAST_ARGS(C, D) void *buffer, C count, MPI_Datatype datatype, int root, MPI_Comm comm
#define BCAST_PASS(W) buffer, count, datatype, root, comm
DMPI_COLL_ENTRIES(Bcast, Ibcast, BCAST_ARGS, BCAST_PASS, bcast)

/* ---------------------------------------------------------------- reduce */
/* Checks shared by the reductions: count, datatype, op. */
static int reduction_common(dmpi_coll_call *k, MPI_Count count, MPI_Datatype datatype,
                            MPI_Op op)
{
    DMPI_CHECK_COUNT(k->c, count, k->how.fn);
    TRY(dmpi_coll_check_type(k->c, datatype, &k->a.rdt, k->how.fn));
    k->a.sdt = k->a.rdt;
    return dmpi_coll_check_op(k->c, op, k->a.rdt, &k->a.op, k->how.fn);
}

static int reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    TRY(dmpi_coll_check_root(k.c, root, how.fn));
    k.a = (dmpi_coll_args){.coll = DMPI_COLL_REDUCE, .sbuf = sbuf, .rbuf = rbuf,
                           .rcount = count, .root = root};
    if (root == MPI_PROC_NULL) { /* intercommunicator: takes no part */
        k.a.rdt = k.a.sdt = dmpi_coll_byte();
        k.a.op = dmpi_op_builtin(MPI_SUM);
        k.a.rcount = 0;
        return dmpi_coll_go(&k);
    }
    TRY(reduction_common(&k, count, datatype, op));
    bool inter = k.c->remote_group != NULL;
    bool am_root = inter ? root == MPI_ROOT : k.c->rank == root;
    if (!am_root) {
        NOT_IN_PLACE(k, sbuf, inter ? "sendbuf" : "sendbuf except at the root");
        DMPI_CHECK_BUF(k.c, sbuf, count, k.a.rdt, how.fn);
    } else if (!inter && sbuf != MPI_IN_PLACE) { /* an intercommunicator root sends nothing */
        DMPI_CHECK_BUF(k.c, sbuf, count, k.a.rdt, how.fn);
    }
    if (am_root) {
        NOT_IN_PLACE(k, rbuf, "recvbuf");
        DMPI_CHECK_BUF(k.c, rbuf, count, k.a.rdt, how.fn);
        if (!inter) NO_ALIAS(k, sbuf, rbuf, count);
    }
    return dmpi_coll_go(&k);
}

#define REDUCE_ARGS(C, D)                                                                 \
    const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op, int root, \
        MPI_Comm comm
#define REDUCE_PASS(W) sendbuf, recvbuf, count, datatype, op, root, comm
DMPI_COLL_ENTRIES(Reduce, Ireduce, REDUCE_ARGS, REDUCE_PASS, reduce)

/* Allreduce, Scan and Exscan: everybody gives and gets count elements. */
static int all_reduce(int coll, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    if (coll != DMPI_COLL_ALLREDUCE) TRY(dmpi_coll_check_intra(k.c, how.fn));
    TRY(reduction_common(&k, count, datatype, op));
    k.a.coll = coll;
    k.a.sbuf = sbuf;
    k.a.rbuf = rbuf;
    k.a.rcount = count;
    if (k.c->remote_group) NOT_IN_PLACE(k, sbuf, "sendbuf");
    if (sbuf != MPI_IN_PLACE) DMPI_CHECK_BUF(k.c, sbuf, count, k.a.rdt, how.fn);
    NOT_IN_PLACE(k, rbuf, "recvbuf");
    DMPI_CHECK_BUF(k.c, rbuf, count, k.a.rdt, how.fn);
    NO_ALIAS(k, sbuf, rbuf, count);
    return dmpi_coll_go(&k);
}

static int allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    return all_reduce(DMPI_COLL_ALLREDUCE, sbuf, rbuf, count, datatype, op, comm, how);
}
static int scan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    return all_reduce(DMPI_COLL_SCAN, sbuf, rbuf, count, datatype, op, comm, how);
}
static int exscan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    return all_reduce(DMPI_COLL_EXSCAN, sbuf, rbuf, count, datatype, op, comm, how);
}

#define ALLRED_ARGS(C, D) \
    const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define ALLRED_PASS(W) sendbuf, recvbuf, count, datatype, op, comm
DMPI_COLL_ENTRIES(Allreduce, Iallreduce, ALLRED_ARGS, ALLRED_PASS, allreduce)
DMPI_COLL_ENTRIES(Scan, Iscan, ALLRED_ARGS, ALLRED_PASS, scan)
DMPI_COLL_ENTRIES(Exscan, Iexscan, ALLRED_ARGS, ALLRED_PASS, exscan)

/* -------------------------------------------------------- reduce_scatter */
/* Reduce_scatter (counts given) and Reduce_scatter_block (one count). */
static int reduce_scatter(bool block, const void *sbuf, void *rbuf, dmpi_arr counts,
                          MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          dmpi_how how)
{
    dmpi_coll_call k = {0};
    DMPI_COLL_BEGIN(k, comm, how);
    int p = k.c->size; /* the local group, intercommunicators too */
    if (!block) {
        TRY(dmpi_coll_check_counts(k.c, counts, p, "recvcounts", how.fn));
        count = 0;
    }
    TRY(reduction_common(&k, count, datatype, op));
    k.a.coll = block ? DMPI_COLL_REDUCE_SCATTER_BLOCK : DMPI_COLL_REDUCE_SCATTER;
    k.a.sbuf = sbuf;
    k.a.rbuf = rbuf;
    k.a.rcount = count;
    if (k.c->remote_group) NOT_IN_PLACE(k, sbuf, "sendbuf");
    NOT_IN_PLACE(k, rbuf, "recvbuf");
    if (!block) k.a.rcounts = dmpi_coll_counts(&k, counts, p);
    else NO_ALIAS(k, sbuf, rbuf, count);
    return dmpi_coll_go(&k);
}

static int reduce_scatter_v(const void *sbuf, void *rbuf, dmpi_arr counts,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    return reduce_scatter(false, sbuf, rbuf, counts, 0, datatype, op, comm, how);
}
static int reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, dmpi_how how)
{
    return reduce_scatter(true, sbuf, rbuf, DMPI_ARR(NULL, false), count, datatype, op, comm,
                          how);
}

#define REDSCAT_ARGS(C, D)                                                                \
    const void *sendbuf, void *recvbuf, const C recvcounts[], MPI_Datatype datatype,      \
        MPI_Op op, MPI_Comm comm
#define REDSCAT_PASS(W) sendbuf, recvbuf, DMPI_ARR(recvcounts, W), datatype, op, comm
DMPI_COLL_ENTRIES(Reduce_scatter, Ireduce_scatter, REDSCAT_ARGS, REDSCAT_PASS, reduce_scatter_v)

#define REDSCATB_ARGS(C, D)                                                               \
    const void *sendbuf, void *recvbuf, C recvcount, MPI_Datatype datatype, MPI_Op op,    \
        MPI_Comm comm
#define REDSCATB_PASS(W) sendbuf, recvbuf, recvcount, datatype, op, comm
DMPI_COLL_ENTRIES(Reduce_scatter_block, Ireduce_scatter_block, REDSCATB_ARGS, REDSCATB_PASS,
                  reduce_scatter_block)

/* ---------------------------------------------------------- reduce_local */
/* A device backend is on: device buffers are reduced in host copies. */
__attribute__((noinline)) static int reduce_local_staged(const void *inbuf, void *inoutbuf,
                                                         MPI_Count count, dmpi_datatype *dt,
                                                         dmpi_op *op, const char *fn)
{
    dmpi_coll_stage *st = NULL;
    int rc = dmpi_reduce_local_staged(&inbuf, &inoutbuf, count, dt, &st);
    if (rc != MPI_SUCCESS) return dmpi_coll_stage_error(NULL, rc, fn);
    dmpi_lock();
    rc = dmpi_op_apply(op, inbuf, inoutbuf, count, dt);
    dmpi_unlock();
    if (st) {
        int src = rc == MPI_SUCCESS ? dmpi_coll_stage_end(st) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) dmpi_coll_stage_free(st);
        if (src != MPI_SUCCESS) return dmpi_coll_stage_error(NULL, src, fn);
    }
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, fn, "the op failed on this datatype");
}

static int reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op oph, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_datatype *dt;
    dmpi_op *op;
    DMPI_CHECK_COUNT(NULL, count, fn);
    DMPI_GET_DTYPE(dt, NULL, datatype, fn);
    TRY(dmpi_coll_check_op(NULL, oph, dt, &op, fn));
    DMPI_CHECK_BUF(NULL, inbuf, count, dt, fn);
    DMPI_CHECK_BUF(NULL, inoutbuf, count, dt, fn);
    TRY(dmpi_coll_not_in_place(NULL, inbuf, "inbuf", fn));
    TRY(dmpi_coll_not_in_place(NULL, inoutbuf, "inoutbuf", fn));
    if (__builtin_expect(dmpi_accel_on, 0))
        return reduce_local_staged(inbuf, inoutbuf, count, dt, op, fn);
    dmpi_lock();
    int rc = dmpi_op_apply(op, inbuf, inoutbuf, count, dt);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, fn, "the op failed on this datatype");
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local");
}
DMPI_ALIAS(Reduce_local)

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local_c");
}
DMPI_ALIAS(Reduce_local_c)

/* ------------------------------------------------------------ user ops */
static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op,
                     const char *name)
{
    DMPI_CHECK_INIT(name);
    DMPI_CHECK(NULL, fn || fn_c, MPI_ERR_ARG, name, "user function is NULL");
    DMPI_CHECK(NULL, op, MPI_ERR_ARG, name, "op is NULL");
    dmpi_op *o = dmpi_op_create(fn, fn_c, commute != 0);
    if (!o) return dmpi_error_noobj(MPI_ERR_NO_MEM, name, "out of memory");
    *op = o->handle;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create(user_fn, NULL, commute, op, "MPI_Op_create");
}
DMPI_ALIAS(Op_create)

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create(NULL, user_fn, commute, op, "MPI_Op_create_c");
}
DMPI_ALIAS(Op_create_c)

int PMPI_Op_free(MPI_Op *op)
{
    static const char *const FN = "MPI_Op_free";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, op, MPI_ERR_ARG, FN, "op is NULL");
    dmpi_op *o = dmpi_op_get(*op);
    DMPI_CHECK(NULL, o, MPI_ERR_OP, FN, "invalid op%s", *op == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
    DMPI_CHECK(NULL, !o->builtin, MPI_ERR_OP, FN, "%s is predefined and cannot be freed",
               dmpi_op_name(o));
    dmpi_lock();
    dmpi_op_release(o);
    dmpi_unlock();
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char *const FN = "MPI_Op_commutative";
    DMPI_CHECK_INIT(FN);
    dmpi_op *o = dmpi_op_get(op);
    DMPI_CHECK(NULL, o, MPI_ERR_OP, FN, "invalid op%s", op == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
    DMPI_CHECK(NULL, commute, MPI_ERR_ARG, FN, "commute is NULL");
    *commute = o->commutative;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Op_commutative)
