/* MPI 4.1 chapter 11, process creation and management: MPI_Comm_spawn,
 * MPI_Comm_spawn_multiple, MPI_Comm_get_parent, MPI_Open_port,
 * MPI_Close_port, MPI_Comm_accept, MPI_Comm_connect, MPI_Publish_name,
 * MPI_Unpublish_name, MPI_Lookup_name, MPI_Comm_join: argument checks,
 * then core/dynproc.c and core/dynspawn.c. */
#include "api/api.h"
#include "core/dynproc.h"

#include <string.h>

static MPI_Comm handle_of(dmpi_comm *c) { return c ? c->handle : MPI_COMM_NULL; }

/* An intracommunicator argument with a root in range. */
#define CHECK_INTRA_ROOT(c, root, fn)                                                        \
    do {                                                                                     \
        DMPI_CHECK(c, !(c)->remote_group, MPI_ERR_COMM, fn, "comm must be an intracommunicator"); \
        DMPI_CHECK(c, (root) >= 0 && (root) < (c)->size, MPI_ERR_ROOT, fn,                  \
                   "invalid root %d (comm size %d)", (root), (c)->size);                     \
    } while (0)

static int spawn_common(int count, char **cmds, char ***argvs, const int *maxprocs, const MPI_Info *infos,
                        int root, MPI_Comm comm, MPI_Comm *intercomm, int *errcodes, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA_ROOT(c, root, fn);
    DMPI_CHECK(c, intercomm, MPI_ERR_ARG, fn, "intercomm is NULL");
    if (c->rank == root) {
        DMPI_CHECK(c, count > 0, MPI_ERR_ARG, fn, "count %d: at least one command", count);
        for (int i = 0; i < count; i++) {
            DMPI_CHECK(c, cmds && cmds[i] && cmds[i][0], MPI_ERR_SPAWN, fn, "command %d is NULL or empty", i);
            DMPI_CHECK(c, maxprocs[i] >= 1, MPI_ERR_SPAWN, fn, "maxprocs %d for command %d", maxprocs[i], i);
            DMPI_CHECK_INFO(c, infos ? infos[i] : MPI_INFO_NULL, fn);
        }
    }
    char err[DMPI_DYN_ERRLEN] = "";
    int nerr = 0;
    dmpi_lock();
    int rc = dmpi_dyn_spawn(count, cmds, argvs, maxprocs, infos, root, c, &n, errcodes, &nerr, err);
    dmpi_unlock();
    *intercomm = handle_of(n);
    if (rc != MPI_SUCCESS) return dmpi_error(c, rc, fn, "%s", err);
    return MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmd = (char *)command;
    char **argvs[1] = {argv};
    return spawn_common(1, &cmd, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes,
                        "MPI_Comm_spawn");
}
DMPI_ALIAS(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                             MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return spawn_common(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm,
                        intercomm, array_of_errcodes, "MPI_Comm_spawn_multiple");
}
DMPI_ALIAS(Comm_spawn_multiple)

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char *const FN = "MPI_Comm_get_parent";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, parent, MPI_ERR_ARG, FN, "parent is NULL");
    *parent = handle_of(dmpi_dyn_parent());
    return MPI_SUCCESS;
}
DMPI_ALIAS(Comm_get_parent)

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char *const FN = "MPI_Open_port";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    DMPI_CHECK(NULL, port_name, MPI_ERR_ARG, FN, "port_name is NULL");
    char err[DMPI_DYN_ERRLEN];
    dmpi_lock();
    int rc = dmpi_dyn_open_port(port_name, err);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Open_port)

int PMPI_Close_port(const char *port_name)
{
    static const char *const FN = "MPI_Close_port";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, port_name, MPI_ERR_ARG, FN, "port_name is NULL");
    char err[DMPI_DYN_ERRLEN];
    dmpi_lock();
    int rc = dmpi_dyn_close_port(port_name, err);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Close_port)

static int accept_connect(bool accepting, const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                          MPI_Comm *newcomm, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_comm *c, *n = NULL;
    DMPI_GET_COMM(c, comm, fn);
    CHECK_INTRA_ROOT(c, root, fn);
    DMPI_CHECK(c, newcomm, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (c->rank == root) {
        DMPI_CHECK_INFO(c, info, fn);
        DMPI_CHECK(c, port_name, MPI_ERR_PORT, fn, "port_name is NULL");
    }
    char err[DMPI_DYN_ERRLEN] = "";
    dmpi_lock();
    int rc = accepting ? dmpi_dyn_accept(port_name, root, c, &n, err) : dmpi_dyn_connect(port_name, root, c, &n, err);
    dmpi_unlock();
    *newcomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : dmpi_error(c, rc, fn, "%s", err);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return accept_connect(true, port_name, info, root, comm, newcomm, "MPI_Comm_accept");
}
DMPI_ALIAS(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return accept_connect(false, port_name, info, root, comm, newcomm, "MPI_Comm_connect");
}
DMPI_ALIAS(Comm_connect)

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char *const FN = "MPI_Publish_name";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    DMPI_CHECK(NULL, service_name && port_name, MPI_ERR_ARG, FN, "service_name or port_name is NULL");
    char err[DMPI_DYN_ERRLEN];
    dmpi_lock();
    int rc = dmpi_dyn_publish(service_name, port_name, err);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Publish_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char *const FN = "MPI_Unpublish_name";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    DMPI_CHECK(NULL, service_name, MPI_ERR_ARG, FN, "service_name is NULL");
    (void)port_name;
    char err[DMPI_DYN_ERRLEN];
    dmpi_lock();
    int rc = dmpi_dyn_unpublish(service_name, err);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Unpublish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char *const FN = "MPI_Lookup_name";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK_INFO(NULL, info, FN);
    DMPI_CHECK(NULL, service_name && port_name, MPI_ERR_ARG, FN, "service_name or port_name is NULL");
    char err[DMPI_DYN_ERRLEN];
    dmpi_lock();
    int rc = dmpi_dyn_lookup(service_name, port_name, err);
    dmpi_unlock();
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Lookup_name)

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char *const FN = "MPI_Comm_join";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, intercomm, MPI_ERR_ARG, FN, "intercomm is NULL");
    DMPI_CHECK(NULL, fd >= 0, MPI_ERR_ARG, FN, "invalid socket %d", fd);
    char err[DMPI_DYN_ERRLEN];
    dmpi_comm *n = NULL;
    dmpi_lock();
    int rc = dmpi_dyn_join(fd, &n, err);
    dmpi_unlock();
    *intercomm = handle_of(n);
    return rc == MPI_SUCCESS ? rc : dmpi_error_noobj(rc, FN, "%s", err);
}
DMPI_ALIAS(Comm_join)
