/* Dynamic processes, MPI 4.1 chapter 11: ports, the name service,
 * MPI_Comm_join (accept and connect are in dynconn.c, spawn in
 * dynspawn.c, the TCP side of ports in dynport.c). docs/dynproc.md has
 * the design.
 *
 * A port is named "dmpi:<universe id>:<universe index>:<n>:<address>:<tcp
 * port>": the mpiexec run and the process that opened it, its n-th port,
 * and the TCP address and port it listens on (a connect from the same run
 * or from another mpiexec run starts there; the address is loopback for a
 * job on one host, the host's address across hosts). Closing the port closes
 * the socket, so that a connect to a port nobody opened, or one of a run
 * that has ended, fails at once with MPI_ERR_PORT. */
#include "core/dynproc.h"
#include "coll/coll.h"
#include "pmi/pmi.h"
#include "pmi/pmi_wire.h"
#include "transport/transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct open_port {
    int num, fd, tcp; /* fd: the listening socket */
} open_port;

static open_port *ports;
static int nports, next_port = 1;

const char *dmpi_dyn_uid(void)
{
    const char *u = getenv("DMPI_UNIVERSE_ID");
    return u && *u ? u : NULL;
}

static const char *uid(void) { return dmpi_dyn_uid(); }

#define fail dmpi_dyn_fail

int dmpi_dyn_fail(char *err, int cls, const char *fmt, const char *a)
{
    snprintf(err, DMPI_DYN_ERRLEN, fmt, a);
    return cls;
}

double dmpi_dyn_timeout(void) { return (double)dmpi_knob_or(DMPI_KNOB_CONNECT_TIMEOUT, 60); }

int dmpi_dyn_agree(dmpi_comm *comm, int root, int rc, char *err)
{
    struct { int rc; char msg[DMPI_DYN_ERRLEN]; } v;
    v.rc = rc;
    snprintf(v.msg, sizeof v.msg, "%s", rc == MPI_SUCCESS ? "" : err);
    int r = dmpi_coll_bcast(&v, (MPI_Count)sizeof v, dmpi_coll_byte(), root, comm);
    if (r != MPI_SUCCESS) return fail(err, r, "%s", "cannot agree with the root");
    if (v.rc != MPI_SUCCESS) snprintf(err, DMPI_DYN_ERRLEN, "%s", v.msg);
    return v.rc;
}

int dmpi_dyn_open_all(dmpi_comm *comm, char *err)
{
    char mine[DMPI_DYN_ERRLEN] = "";
    int rc = MPI_SUCCESS;
    if (!uid()) {
        rc = MPI_ERR_UNSUPPORTED_OPERATION;
        snprintf(mine, sizeof mine, "dynamic processes need dmpi's mpiexec (this process has no universe: another launcher started it, or it is a singleton)");
    } else if (dmpi_tp_universe_open(mine, sizeof mine) != 0) {
        rc = MPI_ERR_UNSUPPORTED_OPERATION;
    }
    int worst = rc;
    int r = dmpi_coll_allreduce(&rc, &worst, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MAX), comm);
    if (r != MPI_SUCCESS) return fail(err, r, "%s", "cannot agree on the universe");
    if (worst == MPI_SUCCESS) return MPI_SUCCESS;
    if (rc != MPI_SUCCESS) snprintf(err, DMPI_DYN_ERRLEN, "%s", mine);
    else snprintf(err, DMPI_DYN_ERRLEN, "another member cannot reach other jobs");
    return worst;
}

/* MPI_Intercomm_create can join two jobs' groups whose members met only
 * through their leaders: a parent rank outside the spawning communicator
 * never connected to the children (MPICH's spaiccreate). Every member
 * publishes its own address and makes each remote member it cannot reach
 * yet reachable; dmpi_tp_connect waits for a remote member that has not
 * published yet, and each publishes before it waits, so nobody waits for
 * ever. Only when rg holds another job's processes, which every member
 * sees alike; collective over local then, so that all fail together. */
int dmpi_dyn_reach_group(dmpi_comm *local, const dmpi_group *rg)
{
    bool other = false;
    for (int i = 0; i < rg->size && !other; i++)
        other = rg->world[i] < dmpi_tp.job_lo || rg->world[i] >= dmpi_tp.job_hi;
    if (!other) return MPI_SUCCESS;
    char why[DMPI_DYN_ERRLEN];
    int rc = MPI_SUCCESS;
    if (!uid() || dmpi_tp_universe_open(why, sizeof why) != 0) rc = MPI_ERR_OTHER;
    for (int i = 0; i < rg->size && rc == MPI_SUCCESS; i++)
        if (dmpi_tp_connect(rg->world[i], dmpi_dyn_timeout(), why, sizeof why) != 0) rc = MPI_ERR_OTHER;
    int worst = rc;
    int r = dmpi_coll_allreduce(&rc, &worst, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MAX), local);
    return r != MPI_SUCCESS ? r : worst;
}

/* ------------------------------------------------------------- ports */
int dmpi_dyn_open_port(char *name, char *err)
{
    if (!uid()) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s",
                            "ports need dmpi's mpiexec (this process has no universe: another launcher started it, or it is a singleton)");
    char why[DMPI_DYN_ERRLEN];
    if (dmpi_tp_universe_open(why, sizeof why) != 0) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
    open_port *p = realloc(ports, ((size_t)nports + 1) * sizeof *p);
    if (!p) return fail(err, MPI_ERR_NO_MEM, "%s", "out of memory");
    ports = p;
    open_port *o = &ports[nports];
    o->num = next_port;
    char addr[64];
    o->fd = dmpi_dyn_listen(addr, sizeof addr, &o->tcp);
    if (o->fd < 0) return fail(err, MPI_ERR_OTHER, "cannot listen on a TCP socket: %s", strerror(errno));
    nports++;
    next_port++;
    snprintf(name, MPI_MAX_PORT_NAME, "dmpi:%s:%d:%d:%s:%d", uid(), dmpi_rt.uni_rank, o->num, addr, o->tcp);
    return MPI_SUCCESS;
}

int dmpi_dyn_parse_port(const char *name, dmpi_dyn_port *p, char *err)
{
    char end;
    if (!name ||
        sscanf(name, "dmpi:%63[^:]:%d:%d:%63[0-9.]:%d%c", p->uid, &p->who, &p->num, p->addr, &p->tcp, &end) != 5 ||
        p->num < 1 || p->who < 0 || p->tcp < 1 || p->tcp > 65535)
        return fail(err, MPI_ERR_PORT, "'%.200s' is not a port name (MPI_Open_port makes them)", name ? name : "");
    return MPI_SUCCESS;
}

int dmpi_dyn_port_fd(const dmpi_dyn_port *p)
{
    if (!uid() || strcmp(p->uid, uid()) != 0 || p->who != dmpi_rt.uni_rank) return -1;
    for (int i = 0; i < nports; i++)
        if (ports[i].num == p->num && ports[i].tcp == p->tcp) return ports[i].fd;
    return -1;
}

int dmpi_dyn_close_port(const char *name, char *err)
{
    dmpi_dyn_port p;
    int rc = dmpi_dyn_parse_port(name, &p, err);
    if (rc != MPI_SUCCESS) return rc;
    int fd = dmpi_dyn_port_fd(&p);
    if (fd < 0) return fail(err, MPI_ERR_PORT, "port '%.200s' is not open in this process", name);
    for (int i = 0; i < nports; i++)
        if (ports[i].fd == fd) ports[i] = ports[--nports];
    close(fd);
    return MPI_SUCCESS;
}

void dmpi_dyn_finalize(void)
{
    dmpi_dyn_watch_end();
    for (int i = 0; i < nports; i++) close(ports[i].fd);
    free(ports);
    ports = NULL;
    nports = 0;
}

/* ------------------------------------------------------------- names */
static int name_call(const char *cmd, const char *service, const char *port, char *val, char *err, int cls)
{
    if (!service || !*service) return fail(err, MPI_ERR_ARG, "%s", "the service name is empty");
    const char *kv[] = {"service", service, port ? "port" : NULL, port, NULL};
    char buf[DMPI_PMI_MAXLINE], reply[64];
    dmpi_pmi_msg m;
    snprintf(reply, sizeof reply, "%s_result", cmd);
    int rc = dmpi_pmi_call(cmd, kv, reply, buf, sizeof buf, &m);
    if (rc < 0) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s", dmpi_pmi_error());
    if (rc > 0) {
        char msg[DMPI_DYN_ERRLEN];
        const char *nf = "no such name is published in this mpiexec run (names do not cross runs: "
                         "pass the port name)";
        snprintf(msg, sizeof msg, "service '%.100s': %.200s", service,
                 strcmp(cmd, "dmpi_lookup") == 0 ? nf : dmpi_pmi_error());
        return fail(err, cls, "%s", msg);
    }
    if (val) snprintf(val, MPI_MAX_PORT_NAME, "%s", dmpi_pmi_msg_str(&m, "port") ? dmpi_pmi_msg_str(&m, "port") : "");
    return MPI_SUCCESS;
}

int dmpi_dyn_publish(const char *service, const char *port, char *err)
{
    if (!port || !*port) return fail(err, MPI_ERR_ARG, "%s", "the port name is empty");
    return name_call("dmpi_publish", service, port, NULL, err, MPI_ERR_SERVICE);
}

int dmpi_dyn_unpublish(const char *service, char *err)
{
    return name_call("dmpi_unpublish", service, NULL, NULL, err, MPI_ERR_SERVICE);
}

int dmpi_dyn_lookup(const char *service, char *port, char *err)
{
    return name_call("dmpi_lookup", service, NULL, port, err, MPI_ERR_NAME);
}

/* -------------------------------------------------------------- join
 * Each side writes "<universe id> <universe index>\n" on the socket and
 * reads the other's; the lower (universe id, index) pair opens a port,
 * sends its name (one line) and accepts; the other connects. Two
 * processes of different mpiexec runs join as those of one run do. */
int dmpi_dyn_join(int fd, dmpi_comm **out, char *err)
{
    *out = NULL;
    if (!uid()) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s",
                            "MPI_Comm_join needs dmpi's mpiexec (this process has no universe)");
    char line[MPI_MAX_PORT_NAME + 8], other[64];
    int peer;
    double wait_s = dmpi_dyn_timeout();
    snprintf(line, sizeof line, "%s %d\n", uid(), dmpi_rt.uni_rank);
    if (dmpi_dyn_write(fd, line, strlen(line)) != 0 || dmpi_dyn_read_line(fd, line, sizeof line, wait_s) != 0 ||
        sscanf(line, "%63s %d", other, &peer) != 2)
        return fail(err, MPI_ERR_OTHER, "%s", "the socket failed before the other side answered");
    int order = strcmp(uid(), other);
    if (order == 0) order = (dmpi_rt.uni_rank > peer) - (dmpi_rt.uni_rank < peer);
    if (order == 0) return fail(err, MPI_ERR_ARG, "%s", "the socket leads back to this process");
    int rc;
    char ignored[DMPI_DYN_ERRLEN];
    if (order < 0) {
        char port[MPI_MAX_PORT_NAME];
        rc = dmpi_dyn_open_port(port, err);
        if (rc != MPI_SUCCESS) return rc;
        snprintf(line, sizeof line, "%s\n", port);
        if (dmpi_dyn_write(fd, line, strlen(line)) != 0) {
            dmpi_dyn_close_port(port, ignored);
            return fail(err, MPI_ERR_OTHER, "%s", "the socket failed");
        }
        rc = dmpi_dyn_accept(port, 0, &dmpi_comm_self_obj, out, err);
        dmpi_dyn_close_port(port, ignored);
        return rc;
    }
    if (dmpi_dyn_read_line(fd, line, sizeof line, wait_s) != 0)
        return fail(err, MPI_ERR_OTHER, "%s", "the socket failed");
    return dmpi_dyn_connect(line, 0, &dmpi_comm_self_obj, out, err);
}
