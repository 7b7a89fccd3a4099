/* From a call's description (dmpi_coll_args) to its schedule: picks the
 * intracommunicator, intercommunicator or neighbourhood builder and the
 * tag; and the blocking collectives the core calls (context agreement,
 * communicator constructors), each a schedule run to completion. */
#include "coll/coll.h"
#include "coll/shm_coll.h"
#include "coll/hier.h"

static dmpi_coll_builder *const intra[DMPI_COLL_NCOLLS] = {
    [DMPI_COLL_BARRIER] = dmpi_build_barrier,
    [DMPI_COLL_BCAST] = dmpi_build_bcast,
    [DMPI_COLL_REDUCE] = dmpi_build_reduce,
    [DMPI_COLL_ALLREDUCE] = dmpi_build_allreduce,
    [DMPI_COLL_GATHER] = dmpi_build_gather,
    [DMPI_COLL_SCATTER] = dmpi_build_scatter,
    [DMPI_COLL_ALLGATHER] = dmpi_build_allgather,
    [DMPI_COLL_ALLTOALL] = dmpi_build_alltoall,
    [DMPI_COLL_GATHERV] = dmpi_build_gatherv,
    [DMPI_COLL_SCATTERV] = dmpi_build_scatterv,
    [DMPI_COLL_ALLGATHERV] = dmpi_build_allgatherv,
    [DMPI_COLL_ALLTOALLV] = dmpi_build_alltoallv,
    [DMPI_COLL_ALLTOALLW] = dmpi_build_alltoallw,
    [DMPI_COLL_REDUCE_SCATTER] = dmpi_build_reduce_scatter,
    [DMPI_COLL_REDUCE_SCATTER_BLOCK] = dmpi_build_reduce_scatter_block,
    [DMPI_COLL_SCAN] = dmpi_build_scan,
    [DMPI_COLL_EXSCAN] = dmpi_build_exscan,
};

void dmpi_coll_sched(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    if (a->coll >= DMPI_COLL_NCOLLS) { /* neighbourhood collectives */
        dmpi_sched_use(s, c, dmpi_coll_tag(c));
        dmpi_build_neighbor(s, c, a);
    } else if (c->remote_group) {
        dmpi_build_inter(s, c, a);
    } else {
        dmpi_sched_use(s, c, dmpi_coll_tag(c));
        intra[a->coll](s, c, a);
    }
}

int dmpi_coll_run(dmpi_comm *c, const dmpi_coll_args *a)
{
    int rc;
    if (dmpi_coll_shm_try(c, a, &rc)) return rc;
    if (dmpi_coll_hier_try(c, a, &rc)) return rc; /* several nodes: in phases */
    return dmpi_coll_run_sched(c, a);
}

int dmpi_coll_run_sched(dmpi_comm *c, const dmpi_coll_args *a)
{
    dmpi_sched *s = dmpi_sched_new();
    if (!s) return MPI_ERR_NO_MEM;
    dmpi_coll_sched(s, c, a);
    return dmpi_sched_run(s);
}

/* ------------------------------------------------ blocking, for the core */
int dmpi_coll_barrier(dmpi_comm *c)
{
    return dmpi_coll_run(c, &(dmpi_coll_args){.coll = DMPI_COLL_BARRIER});
}

int dmpi_coll_bcast(void *buf, MPI_Count count, dmpi_datatype *dt, int root, dmpi_comm *c)
{
    return dmpi_coll_run(c, &(dmpi_coll_args){.coll = DMPI_COLL_BCAST, .rbuf = buf,
                                               .rcount = count, .rdt = dt, .root = root});
}

int dmpi_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                     dmpi_op *op, int root, dmpi_comm *c)
{
    return dmpi_coll_run(c, &(dmpi_coll_args){.coll = DMPI_COLL_REDUCE, .sbuf = sbuf,
                                               .rbuf = rbuf, .rcount = count, .rdt = dt,
                                               .op = op, .root = root});
}

int dmpi_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dmpi_datatype *dt,
                        dmpi_op *op, dmpi_comm *c)
{
    return dmpi_coll_run(c, &(dmpi_coll_args){.coll = DMPI_COLL_ALLREDUCE, .sbuf = sbuf,
                                               .rbuf = rbuf, .rcount = count, .rdt = dt,
                                               .op = op});
}

#define TWO_SIDED(kind, r)                                                                \
    dmpi_coll_run(c, &(dmpi_coll_args){.coll = kind, .sbuf = sbuf, .scount = scount,     \
                                       .sdt = sdt, .rbuf = rbuf, .rcount = rcount,       \
                                       .rdt = rdt, .root = r})

int dmpi_coll_gather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                     MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c)
{
    return TWO_SIDED(DMPI_COLL_GATHER, root);
}

int dmpi_coll_scatter(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                      MPI_Count rcount, dmpi_datatype *rdt, int root, dmpi_comm *c)
{
    return TWO_SIDED(DMPI_COLL_SCATTER, root);
}

int dmpi_coll_allgather(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                        MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c)
{
    return TWO_SIDED(DMPI_COLL_ALLGATHER, 0);
}

int dmpi_coll_alltoall(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, void *rbuf,
                       MPI_Count rcount, dmpi_datatype *rdt, dmpi_comm *c)
{
    return TWO_SIDED(DMPI_COLL_ALLTOALL, 0);
}
