/* MPI communicator entry points: size, rank, dup (and idup, with_info),
 * split, split_type, create, create_group, free, disconnect, compare,
 * names, info hints, and the intercommunicator calls (create, merge,
 * remote size and group). The collective work is in core/comm_ops.c and core/intercomm.c.
 *
 * Hooks for the attribute and topology code (weak: called when linked in):
 * a duplicate gets the parent's attributes copied (MPI_Comm_dup) and its
 * topology; MPI_Comm_free runs the attribute delete callbacks first.
 *
 * Info hints: the four mpi_assert_* keys are recognised (values "true" or
 * "false"); other keys are ignored, as the standard allows.
 * MPI_Comm_get_info returns the four with their current values. A
 * duplicate copies the hints (MPI_Comm_dup) or takes those of its info
 * argument (the _with_info forms); it never copies the name. */
#include "accel/accel.h"
#include "api/api.h"
#include "core/dynproc.h"
#include "core/comm_ops.h"
#include "core/group.h"
#include "core/hwtopo.h"
#include "core/info.h"
#include "core/intercomm.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int dmpi_comm_attr_copy(dmpi_comm *from, dmpi_comm *to) __attribute__((weak));
int dmpi_comm_attr_delete_all(dmpi_comm *c) __attribute__((weak));
int dmpi_comm_topo_copy(dmpi_comm *from, dmpi_comm *to) __attribute__((weak));

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

/* ------------------------------------------------------------ info hints */
/* Value of a boolean hint: 1 true, 0 false, -1 not a boolean. */
static int hint_bool(const char *v)
{
    while (*v == ' ') v++;
    size_t n = strlen(v);
    while (n > 0 && v[n - 1] == ' ') n--;
    if (n == 4 && !strncasecmp(v, "true", 4)) return 1;
    if (n == 5 && !strncasecmp(v, "false", 5)) return 0;
    return -1;
}

/* Sets the hints of c named in info (others keep their values). */
static void apply_hints(dmpi_comm *c, const dmpi_info *info)
{
    dmpi_comm_ext *e = dmpi_comm_ext_of(c);
    if (!e || !info) return;
    for (int i = 0; i < DMPI_NHINTS; i++) {
        const char *v = dmpi_info_lookup(info, dmpi_comm_hint_key(i));
        int b = v ? hint_bool(v) : -1;
        if (b >= 0) e->hints[i] = b;
    }
}

/* The info argument: MPI_INFO_NULL gives *out = NULL; false if invalid. */
static bool get_info_arg(MPI_Info h, dmpi_info **out)
{
    *out = h == MPI_INFO_NULL ? NULL : dmpi_info_get(h);
    return h == MPI_INFO_NULL || *out;
}

/* ------------------------------------------------------------------- dup */
/* with_info: the hints come from info (which may be NULL: none) instead of
 * the parent. request: MPI_Comm_idup (the attribute copy callbacks run
 * here, at the call, as the standard says). */
static int dup_common(MPI_Comm comm, bool with_info, MPI_Info info, MPI_Comm *newcomm,
                      MPI_Request *request, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_ARG(c, newcomm, fn, "newcomm is NULL");
    dmpi_info *inf = NULL;
    DMPI_CHECK(c, !with_info || get_info_arg(info, &inf), MPI_ERR_INFO, fn, "invalid info object");
    dmpi_lock();
    int rc = request ? dmpi_comm_dup_shell(c, &n) : dmpi_comm_dup(c, &n);
    if (rc == MPI_SUCCESS && dmpi_comm_topo_copy) rc = dmpi_comm_topo_copy(c, n);
    if (rc == MPI_SUCCESS && dmpi_comm_attr_copy) rc = dmpi_comm_attr_copy(c, n);
    if (rc == MPI_SUCCESS) {
        dmpi_comm_ext *from = dmpi_comm_ext_of(c), *to = dmpi_comm_ext_of(n);
        if (with_info) apply_hints(n, inf);
        else if (from && to) memcpy(to->hints, from->hints, sizeof to->hints);
    }
    dmpi_request *r = NULL;
    if (rc == MPI_SUCCESS && request) rc = dmpi_comm_idup_start(c, n, &r);
    if (rc != MPI_SUCCESS && n) {
        dmpi_comm_release(n);
        n = NULL;
    }
    dmpi_unlock();
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return failed(c, rc, fn);
    }
    if (request) *request = dmpi_request_handle(r);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_common(comm, false, MPI_INFO_NULL, newcomm, NULL, "MPI_Comm_dup");
}
DMPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common(comm, true, info, newcomm, NULL, "MPI_Comm_dup_with_info");
}
DMPI_ALIAS(Comm_dup_with_info)

/* Nonblocking dup: the duplicate is made here with its attributes and
 * hints as they are now; its context ids are agreed by the request
 * (core/comm_idup.c). The new handle is valid at once, but the
 * communicator may be used only once the request has completed. */
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    if (!request) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Comm_idup", "request is NULL");
    return dup_common(comm, false, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}
DMPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    if (!request)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Comm_idup_with_info", "request is NULL");
    return dup_common(comm, true, info, newcomm, request, "MPI_Comm_idup_with_info");
}
DMPI_ALIAS(Comm_idup_with_info)

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char *const FN = "MPI_Comm_set_info";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    dmpi_info *inf;
    DMPI_CHECK(c, get_info_arg(info, &inf), MPI_ERR_INFO, FN, "invalid info object");
    dmpi_lock();
    apply_hints(c, inf);
    dmpi_unlock();
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char *const FN = "MPI_Comm_get_info";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, info_used, FN, "info_used is NULL");
    dmpi_info *out = dmpi_info_new();
    if (!out) return dmpi_error(c, MPI_ERR_NO_MEM, FN, "out of memory");
    dmpi_lock();
    dmpi_comm_ext *e = dmpi_comm_ext_of(c);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < DMPI_NHINTS && rc == MPI_SUCCESS; i++)
        rc = dmpi_info_set_kv(out, dmpi_comm_hint_key(i), e && e->hints[i] ? "true" : "false");
    /* MPI 4.1 sec. 11.4.3: the memory kinds the library supports */
    if (rc == MPI_SUCCESS && (c == &dmpi_comm_world_obj || c == &dmpi_comm_self_obj))
        rc = dmpi_info_set_kv(out, "mpi_memory_alloc_kinds", dmpi_accel_alloc_kinds());
    dmpi_unlock();
    if (rc != MPI_SUCCESS) {
        dmpi_info_free(out);
        return dmpi_error(c, rc, FN, "cannot fill the info object");
    }
    *info_used = dmpi_info_handle(out);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_get_info)

/* ----------------------------------------------------------------- split */
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Comm_split";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, comm, FN);
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

/* Split types (MPI 4.1 sec. 7.4.2):
 *   MPI_COMM_TYPE_SHARED          the node communicator;
 *   MPI_COMM_TYPE_HW_GUIDED and   by the info key mpi_hw_resource_type:
 *   MPI_COMM_TYPE_RESOURCE_GUIDED "mpi_shared_memory" the node, an hwloc
 *                                 type ("hwloc://NUMANode", ...: the
 *                                 keys of MPI_Get_hw_resource_info) the
 *                                 processes bound within this process's
 *                                 instance of it (MPI_COMM_NULL for one
 *                                 that is not), anything else
 *                                 MPI_COMM_NULL;
 *   MPI_COMM_TYPE_HW_UNGUIDED     the coarsest of those that is a strict
 *                                 subset of comm, else MPI_COMM_NULL; a
 *                                 given info gets its level as the value
 *                                 of mpi_hw_resource_type;
 *   MPI_UNDEFINED                 MPI_COMM_NULL.
 * Every process takes part in the split whatever it gets. On an
 * intercommunicator (which MPICH and Open MPI accept too) only the node
 * level exists, and the result is that of MPI_Comm_split with one color
 * for the processes that get a communicator: an intercommunicator between
 * the two sides' parts. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Comm_split_type";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm, FN);
    CHECK_ARG(c, newcomm, FN, "newcomm is NULL");
    DMPI_CHECK_INFO(c, info, FN);
    bool null_result = false;
    int hw_type = -1;          /* a resource finer than the node */
    const char *level = NULL;  /* HW_UNGUIDED: the level of the result */
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED: break;
    case MPI_COMM_TYPE_HW_UNGUIDED: break;
    case MPI_COMM_TYPE_HW_GUIDED:
    case MPI_COMM_TYPE_RESOURCE_GUIDED: {
        char value[MPI_MAX_INFO_VAL + 1] = "";
        int len = (int)sizeof value, flag = 0;
        if (info != MPI_INFO_NULL &&
            PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, value, &flag) != MPI_SUCCESS)
            flag = 0;
        hw_type = flag ? dmpi_hw_type_of(value) : -1;
        null_result = !flag || (hw_type < 0 && strcmp(value, "mpi_shared_memory") != 0);
        break;
    }
    case MPI_UNDEFINED: null_result = true; break;
    default: return dmpi_error(c, MPI_ERR_ARG, FN, "unknown split_type %d", split_type);
    }
    dmpi_lock();
    int rc;
    if (c->remote_group) { /* as MPI_Comm_split: both groups are on this node */
        if (split_type == MPI_COMM_TYPE_HW_UNGUIDED || hw_type >= 0) null_result = true; /* no finer level */
        rc = dmpi_comm_split(c, null_result ? MPI_UNDEFINED : 0, key, &n);
    } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        rc = dmpi_comm_split_unguided(c, key, &n, &level);
    } else if (hw_type >= 0) {
        rc = dmpi_comm_split_hw(c, hw_type, key, &n);
    } else {
        rc = dmpi_comm_split_node(c, null_result, key, &n);
    }
    dmpi_unlock();
    *newcomm = handle_of(n);
    if (rc == MPI_SUCCESS && level && info != MPI_INFO_NULL) /* which level it was (sec. 7.4.2) */
        rc = PMPI_Info_set(info, "mpi_hw_resource_type", level);
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
    DMPI_CHECK(c, !by_group || !c->remote_group, MPI_ERR_COMM, fn,
               "comm must be an intracommunicator (MPI 4.1 sec. 7.4.2)");
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
        return dmpi_error(c, MPI_ERR_GROUP, fn, "the group is not a subset of the communicator's %s",
                          c->remote_group ? "local group" : "group");
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
/* MPI_Comm_free, and MPI_Comm_disconnect (MPI 4.1 sec. 11.10.4, wait:
 * collective, first waits for the communication pending on comm). */
static int free_common(MPI_Comm *comm, bool wait, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    if (!comm) return dmpi_error_noobj(MPI_ERR_ARG, fn, "comm is NULL");
    dmpi_comm *c;
    DMPI_GET_COMM(c, *comm, fn);
    DMPI_CHECK(c, !c->builtin, MPI_ERR_COMM, fn, "%s cannot be freed", c->name);
    dmpi_lock();
    int rc = wait ? dmpi_comm_quiesce(c) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        dmpi_unlock();
        return failed(c, rc, fn);
    }
    rc = dmpi_comm_attr_delete_all ? dmpi_comm_attr_delete_all(c) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        dmpi_dyn_comm_freed(c); /* MPI_Comm_get_parent answers MPI_COMM_NULL after this */
        dmpi_comm_release(c);
    }
    dmpi_unlock();
    if (rc != MPI_SUCCESS)
        return dmpi_error(c, dmpi_error_class_of(rc), fn, "an attribute delete callback failed");
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm) { return free_common(comm, false, "MPI_Comm_free"); }
DMPI_ALIAS(Comm_free)

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    return free_common(comm, true, "MPI_Comm_disconnect");
}
DMPI_ALIAS(Comm_disconnect)

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
    if (comm == MPI_COMM_NULL) { /* allowed since MPI 4.1: names the null handle */
        if (!comm_name || !resultlen) return dmpi_error_noobj(MPI_ERR_ARG, FN, "NULL argument");
        *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
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

/* ------------------------------------------------------ intercommunicators */
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char *const FN = "MPI_Intercomm_create";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n, *peer = NULL;
    DMPI_GET_COMM(c, local_comm, FN);
    DMPI_CHECK(c, !c->remote_group, MPI_ERR_COMM, FN,
               "local_comm must be an intracommunicator");
    CHECK_ARG(c, newintercomm, FN, "newintercomm is NULL");
    DMPI_CHECK(c, local_leader >= 0 && local_leader < c->size, MPI_ERR_RANK, FN,
               "invalid local_leader %d (local_comm size %d)", local_leader, c->size);
    /* Arguments that matter at the leader only: a problem there is passed
     * to the whole local group, so nobody waits for the leader forever. */
    int leader_status = MPI_SUCCESS;
    char why[160] = "";
    if (c->rank == local_leader) {
        peer = dmpi_comm_get(peer_comm);
        if (!peer) {
            leader_status = MPI_ERR_COMM;
            snprintf(why, sizeof why, "invalid peer_comm%s",
                     peer_comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
        } else if (remote_leader < 0 || remote_leader >= dmpi_comm_peer_size(peer)) {
            leader_status = MPI_ERR_RANK;
            snprintf(why, sizeof why, "invalid remote_leader %d (peer_comm size %d)",
                     remote_leader, dmpi_comm_peer_size(peer));
        } else if (tag < 0 || tag > DMPI_TAG_UB) {
            leader_status = MPI_ERR_TAG;
            snprintf(why, sizeof why, "invalid tag %d", tag);
        }
    }
    dmpi_lock();
    int rc = dmpi_intercomm_create(c, local_leader, peer, remote_leader, tag, DMPI_CTX_P2P,
                                   leader_status, &n);
    dmpi_unlock();
    *newintercomm = handle_of(n);
    if (rc == MPI_SUCCESS) return rc;
    if (why[0]) return dmpi_error(c, rc, FN, "%s", why);
    if (rc == MPI_ERR_ARG)
        return dmpi_error(c, rc, FN, "the local and remote groups overlap");
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return dmpi_error(c, rc, FN, "the two leaders belong to two mpiexec runs: not supported "
                          "(docs/dynproc.md)");
    if (rc == MPI_ERR_COMM || rc == MPI_ERR_RANK || rc == MPI_ERR_TAG)
        return dmpi_error(c, rc, FN, "the local leader (rank %d) was given an invalid %s",
                          local_leader, rc == MPI_ERR_COMM   ? "peer_comm"
                                        : rc == MPI_ERR_RANK ? "remote_leader"
                                                             : "tag");
    return failed(c, rc, FN);
}
DMPI_ALIAS(Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char *const FN = "MPI_Intercomm_merge";
    DMPI_CHECK_INIT(FN);
    dmpi_comm *c, *n;
    DMPI_GET_COMM(c, intercomm, FN);
    DMPI_CHECK(c, c->remote_group, MPI_ERR_COMM, FN, "%s is not an intercommunicator",
               c->name[0] ? c->name : "the communicator");
    CHECK_ARG(c, newintracomm, FN, "newintracomm is NULL");
    dmpi_lock();
    int rc = dmpi_intercomm_merge(c, high != 0, &n);
    dmpi_unlock();
    *newintracomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : failed(c, rc, FN);
}
DMPI_ALIAS(Intercomm_merge)
