/* Hardware splits of an intracommunicator (MPI_Comm_split_type with
 * MPI_COMM_TYPE_HW_GUIDED / RESOURCE_GUIDED naming an hwloc resource type,
 * and MPI_COMM_TYPE_HW_UNGUIDED; MPI 4.1 sec. 7.4.2): the processes that
 * share an instance of a resource are those on one node (the launcher's
 * node map, as for MPI_COMM_TYPE_SHARED) whose bindings lie within the
 * same instance (core/hwtopo.c). */
#include "core/comm_ops.h"
#include "coll/coll.h"
#include "core/hwtopo.h"

int dmpi_comm_split_hw(dmpi_comm *parent, int type, int key, dmpi_comm **out)
{
    *out = NULL;
    dmpi_comm *node;
    int rc = dmpi_comm_split_node(parent, false, key, &node);
    if (rc != MPI_SUCCESS) return rc;
    int instance = 0;
    int color = dmpi_hw_instance(type, &instance) == 1 ? instance : MPI_UNDEFINED;
    rc = dmpi_comm_split(node, color, key, out); /* ordered by key, then rank in parent */
    dmpi_comm_release(node);
    return rc;
}

/* Level by level, coarse to fine (the node, then each resource type),
 * each process takes the first communicator that is a strict subset of
 * parent; one that got one sits out the finer splits (MPI_UNDEFINED), and
 * the splitting ends when every process has one or no level is left
 * (MPI_COMM_NULL for the others). *type: the level's mpi_hw_resource_type
 * value. */
int dmpi_comm_split_unguided(dmpi_comm *parent, int key, dmpi_comm **out, const char **type)
{
    *out = NULL;
    *type = NULL;
    for (int level = -1; level < DMPI_HW_NTYPES; level++) {
        bool mine = *out != NULL;
        dmpi_comm *c = NULL;
        int rc = level < 0 ? dmpi_comm_split_node(parent, mine, key, &c)
                 : mine    ? dmpi_comm_split(parent, MPI_UNDEFINED, key, &c)
                           : dmpi_comm_split_hw(parent, level, key, &c);
        if (rc != MPI_SUCCESS) return rc;
        if (c && c->size < parent->size) {
            *out = c;
            *type = level < 0 ? "mpi_shared_memory" : dmpi_hw_type_name(level);
        } else if (c) {
            dmpi_comm_release(c);
        }
        int done = *out != NULL, all = 0;
        rc = dmpi_coll_allreduce(&done, &all, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_LAND), parent);
        if (rc != MPI_SUCCESS) return rc;
        if (all) break;
    }
    return MPI_SUCCESS;
}
