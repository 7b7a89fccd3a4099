/* The communicator constructors of MPI 4.0 that need no parent
 * communicator (MPI 4.1 sec. 7.4.2 and 7.6.2): MPI_Comm_create_from_group
 * and MPI_Intercomm_create_from_groups, on groups from communicators or
 * from a session's process sets (api/session.c). Every process of a job
 * is in the runtime's world communicator, which exists from the first of
 * MPI_Init and MPI_Session_init on (there are no spawned processes yet),
 * so the members agree on their context ids in its collective context,
 * with a tag made from the string tag (core/comm_ops.c). Errors found
 * before the new communicator exists go to the error handler of no
 * object; the new communicator gets the errhandler argument, and the
 * session of the group it was made from. */
#include "api/api.h"
#include "core/comm_ops.h"
#include "core/group.h"

/* The group argument: valid and containing the caller. */
static int get_member_group(MPI_Group h, const char *what, const char *fn, dmpi_group **out)
{
    dmpi_group *g = dmpi_group_get(h);
    if (!g)
        return dmpi_error_noobj(MPI_ERR_GROUP, fn, "invalid %s%s", what,
                                h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    if (g->rank == MPI_UNDEFINED)
        return dmpi_error_noobj(MPI_ERR_GROUP, fn, "the calling process is not in %s", what);
    *out = g;
    return MPI_SUCCESS;
}

/* The arguments every from-group call has. */
static int check_common(const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                        const void *out, const char *fn, dmpi_errhandler **e)
{
    DMPI_CHECK_INIT(fn);
    DMPI_CHECK(NULL, stringtag, MPI_ERR_ARG, fn, "stringtag is NULL");
    DMPI_CHECK(NULL, out, MPI_ERR_ARG, fn, "the output communicator is NULL");
    DMPI_CHECK_INFO(NULL, info, fn);
    *e = dmpi_errhandler_get(errhandler);
    DMPI_CHECK(NULL, *e, MPI_ERR_ARG, fn, "invalid errhandler%s",
               errhandler == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    return MPI_SUCCESS;
}

static int done(int rc, dmpi_comm *n, MPI_Comm *out, const char *fn)
{
    *out = n ? n->handle : MPI_COMM_NULL;
    if (rc == MPI_SUCCESS) return rc;
    return dmpi_error_noobj(dmpi_error_class_of(rc), fn, "%s",
                            rc == MPI_ERR_ARG ? "the local and remote groups overlap"
                                              : "communication with the other members failed");
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char *const FN = "MPI_Comm_create_from_group";
    dmpi_errhandler *e;
    dmpi_group *g;
    int rc = check_common(stringtag, info, errhandler, newcomm, FN, &e);
    if (rc == MPI_SUCCESS) rc = get_member_group(group, "group", FN, &g);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_comm *n;
    dmpi_lock();
    rc = dmpi_comm_from_group(g, stringtag, e, &n);
    dmpi_unlock();
    return done(rc, n, newcomm, FN);
}
DMPI_ALIAS(Comm_create_from_group)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char *const FN = "MPI_Intercomm_create_from_groups";
    dmpi_errhandler *e;
    dmpi_group *lg, *rg;
    int rc = check_common(stringtag, info, errhandler, newintercomm, FN, &e);
    if (rc == MPI_SUCCESS) rc = get_member_group(local_group, "local_group", FN, &lg);
    if (rc != MPI_SUCCESS) return rc;
    rg = dmpi_group_get(remote_group);
    DMPI_CHECK(NULL, rg, MPI_ERR_GROUP, FN, "invalid remote_group");
    DMPI_CHECK(NULL, local_leader >= 0 && local_leader < lg->size, MPI_ERR_RANK, FN,
               "invalid local_leader %d (local_group size %d)", local_leader, lg->size);
    DMPI_CHECK(NULL, lg->rank != local_leader || (remote_leader >= 0 && remote_leader < rg->size),
               MPI_ERR_RANK, FN, "invalid remote_leader %d (remote_group size %d)",
               remote_leader, rg->size);
    dmpi_comm *n;
    dmpi_lock();
    rc = dmpi_intercomm_from_groups(lg, local_leader, rg, remote_leader, stringtag, e, &n);
    dmpi_unlock();
    return done(rc, n, newintercomm, FN);
}
DMPI_ALIAS(Intercomm_create_from_groups)
