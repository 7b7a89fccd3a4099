/* MPI communicator entry points: size, rank, dup (and idup, with_info),
 * split, split_type, create, create_group, free, compare, names, and the
 * intercommunicator queries. The collective work is in core/comm_ops.c.
 *
 * Hooks for the attribute and topology code (weak: called when linked in):
 * a duplicate gets the parent's attributes copied (MPI_Comm_dup) and its
 * topology; MPI_Comm_free runs the attribute delete callbacks first. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "core/group.h"

#include <stdio.h>
#include <string.h>

int dmpi_comm_attr_copy(dmpi_comm *from, dmpi_comm *to) __attribute__((weak));
int dmpi_comm_attr_delete_all(dmpi_comm *c) __attribute__((weak));
int dmpi_comm_topo_copy(dmpi_comm *from, dmpi_comm *to) __attribute__((weak));

#define CHECK_INTRA(c, fn)                                                        \
    DMPI_CHECK(c, !(c)->remote_group, MPI_ERR_COMM, fn,                           \
               "intercommunicators are not supported by this call yet")
#define CHECK_ARG(c, cond, fn, ...) DMPI_CHECK(c, cond, MPI_ERR_ARG, fn, __VA_ARGS__)

/* Error raised for a failed collective constructor. */
static int failed(dmpi_comm *c, int rc, const char *fn)
{
    int cls = dmpi_error_class_of(rc);
    return dmpi_error(c, cls, fn, "%s", cls == MPI_ERR_NO_MEM ? "out of memory"
                                        : cls == MPI_ERR_INTERN
                                            ? "no free context id (too many communicators)"
                                            : "communication with the other members failed");
}

static MPI_Comm handle_of(dmpi_comm *c) { return c ? c->handle : MPI_COMM_NULL; }

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    static const char *const FN = "MPI_Comm_size";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, size, FN, "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char *const FN = "MPI_Comm_rank";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, rank, FN, "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_rank)

/* ------------------------------------------------------------------- dup */
static int dup_common(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    CHECK_ARG(c, newcomm, fn, "newcomm is NULL");
    dmpi_lock();
    int rc = dmpi_comm_dup(c, &n);
    if (rc == MPI_SUCCESS && dmpi_comm_topo_copy) rc = dmpi_comm_topo_copy(c, n);
    if (rc == MPI_SUCCESS && dmpi_comm_attr_copy) rc = dmpi_comm_attr_copy(c, n);
    if (rc != MPI_SUCCESS && n) {
        dmpi_comm_release(n);
        n = NULL;
    }
    dmpi_request *r = NULL;
    if (rc == MPI_SUCCESS && request) { /* MPI_Comm_idup: done already */
        if (!(r = dmpi_request_alloc(DMPI_REQ_COLL))) {
            dmpi_comm_release(n);
            rc = MPI_ERR_NO_MEM;
        } else {
            r->comm = c;
            dmpi_request_complete(r);
            *request = dmpi_request_handle(r);
        }
    }
    dmpi_unlock();
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return failed(c, rc, fn);
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_common(comm, newcomm, NULL, "MPI_Comm_dup");
}
DMPI_ALIAS(Comm_dup)

/* The info hints are not used yet (none is required to be honoured). */
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    (void)info;
    return dup_common(comm, newcomm, NULL, "MPI_Comm_dup_with_info");
}
DMPI_ALIAS(Comm_dup_with_info)

/* Nonblocking dup, done at once: the duplicate is made collectively here
 * and the request returned is already complete. */
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Comm_idup", "request is NULL");
    return dup_common(comm, newcomm, request, "MPI_Comm_idup");
}
DMPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    (void)info;
    if (!request)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Comm_idup_with_info", "request is NULL");
    return dup_common(comm, newcomm, request, "MPI_Comm_idup_with_info");
}
DMPI_ALIAS(Comm_idup_with_info)

/* ----------------------------------------------------------------- split */
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Comm_split";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, newcomm, FN, "newcomm is NULL");
    CHECK_ARG(c, color >= 0 || color == MPI_UNDEFINED, FN,
              "color %d is negative (and not MPI_UNDEFINED)", color);
    dmpi_lock();
    int rc = dmpi_comm_split(c, color, key, &n);
    dmpi_unlock();
    *newcomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Comm_split)

/* Is the info value of key equal to want? Only asked of a real info object
 * (MPI_INFO_NULL has no keys), outside the lock. */
static bool info_says(MPI_Info info, const char *key, const char *want)
{
    if (info == MPI_INFO_NULL) return false;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof value, flag = 0;
    if (PMPI_Info_get_string(info, key, &len, value, &flag) != MPI_SUCCESS || !flag) return false;
    return strcmp(value, want) == 0;
}

/* Every process is on one node today, and shared memory is the only
 * hardware level we know, so:
 *   MPI_COMM_TYPE_SHARED          node communicator;
 *   MPI_COMM_TYPE_HW_GUIDED       node communicator if info has
 *                                 mpi_hw_resource_type = mpi_shared_memory,
 *                                 else MPI_COMM_NULL;
 *   MPI_COMM_TYPE_HW_UNGUIDED     the node communicator if it is a strict
 *                                 subset of comm, else MPI_COMM_NULL;
 *   MPI_COMM_TYPE_RESOURCE_GUIDED MPI_COMM_NULL (no resource sets known);
 *   MPI_UNDEFINED                 MPI_COMM_NULL.
 * Every process takes part in the split whatever it gets. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Comm_split_type";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_INTRA(c, FN);
    CHECK_ARG(c, newcomm, FN, "newcomm is NULL");
    bool null_result;
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED: null_result = false; break;
    case MPI_COMM_TYPE_HW_UNGUIDED: null_result = false; break;
    case MPI_COMM_TYPE_HW_GUIDED:
        null_result = !info_says(info, "mpi_hw_resource_type", "mpi_shared_memory");
        break;
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
    case MPI_UNDEFINED: null_result = true; break;
    default: return dmpi_error(c, MPI_ERR_ARG, FN, "unknown split_type %d", split_type);
    }
    dmpi_lock();
    int rc = dmpi_comm_split_node(c, null_result, key, &n);
    if (rc == MPI_SUCCESS && n && split_type == MPI_COMM_TYPE_HW_UNGUIDED && n->size == c->size) {
        dmpi_comm_release(n); /* not a strict subset: nothing finer exists */
        n = NULL;
    }
    dmpi_unlock();
    *newcomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Comm_split_type)

/* ---------------------------------------------------------------- create */
static int create_common(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm,
                         bool by_group, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA(c, fn);
    CHECK_ARG(c, newcomm, fn, "newcomm is NULL");
    dmpi_group *g = dmpi_group_get(group);
    DMPI_CHECK(c, g, MPI_ERR_GROUP, fn, "invalid group%s",
               group == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    if (by_group) DMPI_CHECK_SEND_TAG(c, tag, fn);
    dmpi_lock();
    bool subset = dmpi_group_subset_of(g, c->group);
    int rc = !subset ? MPI_ERR_GROUP
             : by_group ? dmpi_comm_create_group(c, g, tag, &n)
                        : dmpi_comm_create(c, g, &n);
    dmpi_unlock();
    if (!subset)
        return dmpi_error(c, MPI_ERR_GROUP, fn, "the group is not a subset of the communicator's group");
    *newcomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, fn);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return create_common(comm, group, 0, newcomm, false, "MPI_Comm_create");
}
DMPI_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return create_common(comm, group, tag, newcomm, true, "MPI_Comm_create_group");
}
DMPI_ALIAS(Comm_create_group)

/* ------------------------------------------------------------------ free */
int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char *const FN = "MPI_Comm_free";
    DMPI_CHECK_INIT(FN);
    if (!comm) return dmpi_error_noobj(MPI_ERR_ARG, FN, "comm is NULL");
    dmpi_comm *c;
    DMPI_GET_COMM(c, *comm, FN);
    DMPI_CHECK(c, !c->builtin, MPI_ERR_COMM, FN, "%s cannot be freed", c->name);
    dmpi_lock();
    int rc = dmpi_comm_attr_delete_all ? dmpi_comm_attr_delete_all(c) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) dmpi_comm_release(c);
    dmpi_unlock();
    if (rc != MPI_SUCCESS)
        return dmpi_error(c, dmpi_error_class_of(rc), FN, "an attribute delete callback failed");
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_free)

/* --------------------------------------------------------------- queries */
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char *const FN = "MPI_Comm_compare";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *a, *b;
    DMPI_GET_COMM(a, comm1, FN);
    DMPI_GET_COMM(b, comm2, FN);
    CHECK_ARG(a, result, FN, "result is NULL");
    dmpi_lock();
    *result = dmpi_comm_compare(a, b);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char *const FN = "MPI_Comm_set_name";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, comm_name, FN, "comm_name is NULL");
    dmpi_lock();
    snprintf(c->name, sizeof c->name, "%s", comm_name); /* longer names are cut */
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char *const FN = "MPI_Comm_get_name";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, comm_name && resultlen, FN, "NULL argument");
    dmpi_lock();
    *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_get_name)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char *const FN = "MPI_Comm_test_inter";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, flag, FN, "flag is NULL");
    *flag = c->remote_group != NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_test_inter)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char *const FN = "MPI_Comm_remote_size";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, size, FN, "size is NULL");
    DMPI_CHECK(c, c->remote_group, MPI_ERR_COMM, FN, "%s is not an intercommunicator",
               c->name[0] ? c->name : "the communicator");
    *size = c->remote_group->size;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *const FN = "MPI_Comm_remote_group";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, group, FN, "group is NULL");
    DMPI_CHECK(c, c->remote_group, MPI_ERR_COMM, FN, "%s is not an intercommunicator",
               c->name[0] ? c->name : "the communicator");
    dmpi_lock();
    dmpi_group_retain(c->remote_group);
    *group = dmpi_group_handle(c->remote_group);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_remote_group)
