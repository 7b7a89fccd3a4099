/* MPI collective entry points (Barrier, Bcast, Reduce, Allreduce, Gather,
 * Scatter, Allgather, Alltoall, each with its large-count _c form),
 * MPI_Reduce_local and the user-defined reduction ops (Op_create/_c,
 * Op_free, Op_commutative). Argument checks and MPI_IN_PLACE rules live
 * here; the algorithms are in src/coll. The int and _c forms share one
 * function taking MPI_Count. */
#include "api/api.h"
#include "coll/coll.h"
#include "core/intercomm.h"
#include "core/op.h"

/* Intercommunicator collectives are not implemented yet. */
#define CHECK_INTRA(c, fn)                                                        \
    DMPI_CHECK(c, !(c)->remote_group, MPI_ERR_COMM, fn,                           \
               "intercommunicator collectives are not supported yet")

/* Datatype + count + buffer of one side of a collective. */
#define CHECK_SIDE(c, dtvar, h, buf, n, fn) \
    do {                                    \
        DMPI_CHECK_COUNT(c, n, fn);         \
        DMPI_GET_DTYPE(dtvar, c, h, fn);    \
        DMPI_CHECK_BUF(c, buf, n, dtvar, fn); \
    } while (0)

#define CHECK_NOT_IN_PLACE(c, buf, what, fn) \
    DMPI_CHECK(c, (buf) != MPI_IN_PLACE, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed as %s", what)

/* Send and receive buffers must not be the same memory (MPI_IN_PLACE is
 * the way to say that). */
#define CHECK_NO_ALIAS(c, sbuf, rbuf, n, fn)                                      \
    DMPI_CHECK(c, (sbuf) != (rbuf) || (n) == 0 || (sbuf) == NULL, MPI_ERR_BUFFER, fn, \
               "the send and receive buffers are the same; use MPI_IN_PLACE")

static int op_lookup(dmpi_comm *c, MPI_Op h, dmpi_datatype *dt, dmpi_op **out, const char *fn)
{
    dmpi_op *op = dmpi_op_get(h);
    if (!op)
        return dmpi_error(c, MPI_ERR_OP, fn, "invalid op%s", h == MPI_OP_NULL ? " (MPI_OP_NULL)" : "");
    if (dmpi_op_check(op, dt, false) != MPI_SUCCESS)
        return dmpi_error(c, MPI_ERR_OP, fn, "%s is not defined on datatype %s", dmpi_op_name(op),
                          dt->name[0] ? dt->name : "(unnamed derived type)");
    *out = op;
    return MPI_SUCCESS;
}

/* Runs a collective under the lock and reports its failure. */
#define RUN(c, call, fn)                                                          \
    do {                                                                          \
        dmpi_lock();                                                              \
        int rc_ = (call);                                                         \
        dmpi_unlock();                                                            \
        return rc_ == MPI_SUCCESS ? rc_ : coll_failed(c, rc_, fn);                \
    } while (0)

static int coll_failed(dmpi_comm *c, int rc, const char *fn)
{
    int cls = dmpi_error_class_of(rc);
    const char *why = cls == MPI_ERR_TRUNCATE ? "a message was longer than its receive buffer: "
                                                "counts or datatypes differ between processes"
                      : cls == MPI_ERR_NO_MEM ? "out of memory for temporary buffers"
                      : cls == MPI_ERR_OP     ? "the op failed on this datatype"
                                              : "communication with another member failed";
    return dmpi_error(c, cls, fn, "%s", why);
}

/* --------------------------------------------------------------- barrier */
int PMPI_Barrier(MPI_Comm comm)
{
    static const char *const FN = "MPI_Barrier";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    if (c->remote_group) RUN(c, dmpi_intercomm_barrier(c), FN);
    RUN(c, dmpi_coll_barrier(c), FN);
}
DMPI_ALIAS(Barrier)

/* ----------------------------------------------------------------- bcast */
static int bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    dmpi_datatype *dt;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    DMPI_CHECK_ROOT(c, root, fn);
    CHECK_SIDE(c, dt, datatype, buf, count, fn);
    CHECK_NOT_IN_PLACE(c, buf, "the buffer", fn);
    RUN(c, dmpi_coll_bcast(buf, count, dt, root, c), fn);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast(buffer, count, datatype, root, comm, "MPI_Bcast");
}
DMPI_ALIAS(Bcast)

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast(buffer, count, datatype, root, comm, "MPI_Bcast_c");
}
DMPI_ALIAS(Bcast_c)

/* ---------------------------------------------------------------- reduce */
/* Reduce and (all = true) Allreduce. */
static int reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op oph, int root, MPI_Comm comm, bool all, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    dmpi_datatype *dt;
    dmpi_op *op;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    bool am_root = all || c->rank == root;
    if (!all) DMPI_CHECK_ROOT(c, root, fn);
    DMPI_CHECK_COUNT(c, count, fn);
    DMPI_GET_DTYPE(dt, c, datatype, fn);
    int rc = op_lookup(c, oph, dt, &op, fn);
    if (rc != MPI_SUCCESS) return rc;
    if (!am_root) CHECK_NOT_IN_PLACE(c, sbuf, "sendbuf except at the root", fn);
    if (sbuf != MPI_IN_PLACE) DMPI_CHECK_BUF(c, sbuf, count, dt, fn);
    if (am_root) {
        CHECK_NOT_IN_PLACE(c, rbuf, "recvbuf", fn);
        DMPI_CHECK_BUF(c, rbuf, count, dt, fn);
        CHECK_NO_ALIAS(c, sbuf, rbuf, count, fn);
    }
    if (all) RUN(c, dmpi_coll_allreduce(sbuf, rbuf, count, dt, op, c), fn);
    RUN(c, dmpi_coll_reduce(sbuf, rbuf, count, dt, op, root, c), fn);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, false, "MPI_Reduce");
}
DMPI_ALIAS(Reduce)

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, false, "MPI_Reduce_c");
}
DMPI_ALIAS(Reduce_c)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, comm, true, "MPI_Allreduce");
}
DMPI_ALIAS(Allreduce)

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, comm, true, "MPI_Allreduce_c");
}
DMPI_ALIAS(Allreduce_c)

/* --------------------------------------------------------- gather/scatter */
/* Gather (scatter = false) and Scatter: the root's side is the receive side
 * of a gather and the send side of a scatter; MPI_IN_PLACE is allowed for
 * the root's other side only. */
static int rooted(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                  MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm, bool scatter,
                  const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    dmpi_datatype *sdt = NULL, *rdt = NULL;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    DMPI_CHECK_ROOT(c, root, fn);
    bool am_root = c->rank == root;
    if (!scatter) { /* gather */
        if (am_root) {
            CHECK_SIDE(c, rdt, rtype, rbuf, rcount, fn);
            CHECK_NOT_IN_PLACE(c, rbuf, "recvbuf", fn);
        }
        if (!am_root || sbuf != MPI_IN_PLACE) {
            CHECK_NOT_IN_PLACE(c, sbuf, "sendbuf except at the root", fn);
            CHECK_SIDE(c, sdt, stype, sbuf, scount, fn);
        }
        if (am_root) CHECK_NO_ALIAS(c, sbuf, rbuf, scount, fn);
        RUN(c, dmpi_coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, c), fn);
    }
    if (am_root) {
        CHECK_SIDE(c, sdt, stype, sbuf, scount, fn);
        CHECK_NOT_IN_PLACE(c, sbuf, "sendbuf", fn);
    }
    if (!am_root || rbuf != MPI_IN_PLACE) {
        CHECK_NOT_IN_PLACE(c, rbuf, "recvbuf except at the root", fn);
        CHECK_SIDE(c, rdt, rtype, rbuf, rcount, fn);
    }
    if (am_root) CHECK_NO_ALIAS(c, sbuf, rbuf, rcount, fn);
    RUN(c, dmpi_coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, c), fn);
}

#define GATHER_ARGS(C)                                                             \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount, \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define PASS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm

int PMPI_Gather(GATHER_ARGS(int)) { return rooted(PASS, false, "MPI_Gather"); }
DMPI_ALIAS(Gather)
int PMPI_Gather_c(GATHER_ARGS(MPI_Count)) { return rooted(PASS, false, "MPI_Gather_c"); }
DMPI_ALIAS(Gather_c)
int PMPI_Scatter(GATHER_ARGS(int)) { return rooted(PASS, true, "MPI_Scatter"); }
DMPI_ALIAS(Scatter)
int PMPI_Scatter_c(GATHER_ARGS(MPI_Count)) { return rooted(PASS, true, "MPI_Scatter_c"); }
DMPI_ALIAS(Scatter_c)
#undef PASS

/* ---------------------------------------------------- allgather/alltoall */
static int all_to(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                  MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, bool alltoall,
                  const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c;
    dmpi_datatype *sdt = NULL, *rdt;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    CHECK_SIDE(c, rdt, rtype, rbuf, rcount, fn);
    CHECK_NOT_IN_PLACE(c, rbuf, "recvbuf", fn);
    if (sbuf != MPI_IN_PLACE) {
        CHECK_SIDE(c, sdt, stype, sbuf, scount, fn);
        CHECK_NO_ALIAS(c, sbuf, rbuf, scount, fn);
    }
    if (alltoall) RUN(c, dmpi_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, c), fn);
    RUN(c, dmpi_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, c), fn);
}

#define ALL_ARGS(C)                                                                \
    const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount, \
        MPI_Datatype recvtype, MPI_Comm comm
#define PASS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm

int PMPI_Allgather(ALL_ARGS(int)) { return all_to(PASS, false, "MPI_Allgather"); }
DMPI_ALIAS(Allgather)
int PMPI_Allgather_c(ALL_ARGS(MPI_Count)) { return all_to(PASS, false, "MPI_Allgather_c"); }
DMPI_ALIAS(Allgather_c)
int PMPI_Alltoall(ALL_ARGS(int)) { return all_to(PASS, true, "MPI_Alltoall"); }
DMPI_ALIAS(Alltoall)
int PMPI_Alltoall_c(ALL_ARGS(MPI_Count)) { return all_to(PASS, true, "MPI_Alltoall_c"); }
DMPI_ALIAS(Alltoall_c)
#undef PASS

/* ---------------------------------------------------------- reduce_local */
static int reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op oph, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_datatype *dt;
    dmpi_op *op;
    DMPI_CHECK_COUNT(NULL, count, fn);
    DMPI_GET_DTYPE(dt, NULL, datatype, fn);
    int rc = op_lookup(NULL, oph, dt, &op, fn);
    if (rc != MPI_SUCCESS) return rc;
    DMPI_CHECK_BUF(NULL, inbuf, count, dt, fn);
    DMPI_CHECK_BUF(NULL, inoutbuf, count, dt, fn);
    CHECK_NOT_IN_PLACE(NULL, inbuf, "inbuf", fn);
    CHECK_NOT_IN_PLACE(NULL, inoutbuf, "inoutbuf", fn);
    dmpi_lock();
    rc = dmpi_op_apply(op, inbuf, inoutbuf, count, dt);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : coll_failed(NULL, rc, fn);
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
