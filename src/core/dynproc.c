/* Dynamic processes, MPI 4.1 chapter 11: ports, MPI_Comm_accept and
 * MPI_Comm_connect, the name service, MPI_Comm_join (spawn is in
 * dynspawn.c). docs/dynproc.md has the design.
 *
 * A port is named "dmpi:<universe id>:<universe index>:<n>": the process
 * that opened it and its n-th port. Opening one publishes
 * "dmpi-port-<index>-<n>" in the universe key space (mpiexec), closing it
 * withdraws it, so that a connect to a port nobody opened fails at once
 * with MPI_ERR_PORT. The handshake runs on the universe communicator:
 * the connecting root sends its request to the accepting root (tag 3n+1),
 * which answers (3n+2); then the two groups build the intercommunicator as
 * MPI_Intercomm_create does, with the universe communicator as the peer
 * communicator (tag 3n+3), and every member makes every remote member
 * reachable (dmpi_tp_connect). */
#include "core/dynproc.h"
#include "coll/coll.h"
#include "core/intercomm.h"
#include "pmi/pmi.h"
#include "pmi/pmi_wire.h"
#include "transport/transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PORT_MAGIC 0x706f7274

static dmpi_comm *universe;   /* rank = universe index */
static int next_port = 1;

static const char *uid(void)
{
    const char *u = getenv("DMPI_UNIVERSE_ID");
    return u && *u ? u : NULL;
}

static int fail(char *err, int cls, const char *fmt, const char *a)
{
    snprintf(err, DMPI_DYN_ERRLEN, fmt, a);
    return cls;
}

static long connect_timeout(void) { return dmpi_knob_or(DMPI_KNOB_CONNECT_TIMEOUT, 60); }

/* The universe communicator, made on first use. */
static dmpi_comm *ucomm(void)
{
    if (universe) return universe;
    int n = dmpi_rt.uni_size;
    int *id = malloc((size_t)n * sizeof(int));
    if (!id) return NULL;
    for (int i = 0; i < n; i++) id[i] = i;
    dmpi_group *g = dmpi_group_new(n, id);
    free(id);
    if (!g) return NULL;
    universe = dmpi_comm_new(g, DMPI_CTX_UNIVERSE);
    dmpi_group_release(g);
    if (universe) snprintf(universe->name, sizeof universe->name, "dmpi universe");
    return universe;
}

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
    int rc = ucomm() ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && dmpi_tp_universe_open(mine, sizeof mine) != 0) rc = MPI_ERR_UNSUPPORTED_OPERATION;
    int worst = rc;
    int r = dmpi_coll_allreduce(&rc, &worst, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MAX), comm);
    if (r != MPI_SUCCESS) return fail(err, r, "%s", "cannot agree on the universe");
    if (worst == MPI_SUCCESS) return MPI_SUCCESS;
    if (rc != MPI_SUCCESS) snprintf(err, DMPI_DYN_ERRLEN, "%s", mine);
    else snprintf(err, DMPI_DYN_ERRLEN, "another member cannot reach other jobs");
    return worst;
}

/* ------------------------------------------------------------- ports */
static void port_key(char *key, size_t n, int who, int num)
{
    snprintf(key, n, "dmpi-port-%d-%d", who, num);
}

static int uput(const char *key, const char *val)
{
    const char *kv[] = {"key", key, "value", val, NULL};
    char buf[256];
    dmpi_pmi_msg m;
    return dmpi_pmi_call("dmpi_uput", kv, "dmpi_uput_result", buf, sizeof buf, &m);
}

/* 0 found, 1 not found, -1 error; value copied into val[cap] when given. */
static int uget(const char *cmd, const char *attr, const char *name, const char *key, char *val, size_t cap)
{
    const char *kv[] = {name, key, NULL};
    char buf[DMPI_PMI_MAXLINE];
    dmpi_pmi_msg m;
    char reply[64];
    snprintf(reply, sizeof reply, "%s_result", cmd);
    int rc = dmpi_pmi_call(cmd, kv, reply, buf, sizeof buf, &m);
    if (rc == 0 && val) snprintf(val, cap, "%s", dmpi_pmi_msg_str(&m, attr) ? dmpi_pmi_msg_str(&m, attr) : "");
    return rc;
}

int dmpi_dyn_open_port(char *name, char *err)
{
    if (!uid()) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s",
                            "ports need dmpi's mpiexec with the job on one host (this process has no universe)");
    if (!ucomm()) return fail(err, MPI_ERR_NO_MEM, "%s", "out of memory");
    char why[DMPI_DYN_ERRLEN];
    if (dmpi_tp_universe_open(why, sizeof why) != 0) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s", why);
    int num = next_port++;
    char key[64];
    port_key(key, sizeof key, dmpi_rt.uni_rank, num);
    if (uput(key, "1") != 0) return fail(err, MPI_ERR_INTERN, "%s", dmpi_pmi_error());
    snprintf(name, MPI_MAX_PORT_NAME, "dmpi:%s:%d:%d", uid(), dmpi_rt.uni_rank, num);
    return MPI_SUCCESS;
}

/* Splits a port name: 0, or an MPI_ERR_PORT with the reason. */
static int parse_port(const char *name, int *who, int *num, char *err)
{
    const char *u = uid();
    char other[64];
    if (!name || sscanf(name, "dmpi:%63[^:]:%d:%d", other, who, num) != 3 || *num < 1)
        return fail(err, MPI_ERR_PORT, "'%.200s' is not a port name (MPI_Open_port makes them)", name ? name : "");
    if (!u || strcmp(other, u) != 0)
        return fail(err, MPI_ERR_PORT, "port '%.200s' belongs to another mpiexec: dmpi connects the jobs of one "
                    "mpiexec only (docs/dynproc.md)", name);
    if (*who < 0 || *who >= dmpi_rt.uni_size) return fail(err, MPI_ERR_PORT, "port '%.200s' names no process", name);
    return MPI_SUCCESS;
}

static int port_exists(int who, int num)
{
    char key[64];
    port_key(key, sizeof key, who, num);
    return uget("dmpi_uget", "value", "key", key, NULL, 0);
}

int dmpi_dyn_close_port(const char *name, char *err)
{
    int who, num;
    int rc = parse_port(name, &who, &num, err);
    if (rc != MPI_SUCCESS) return rc;
    if (who != dmpi_rt.uni_rank || port_exists(who, num) != 0)
        return fail(err, MPI_ERR_PORT, "port '%.200s' is not open in this process", name);
    char key[64];
    port_key(key, sizeof key, who, num);
    if (uput(key, "") != 0) return fail(err, MPI_ERR_INTERN, "%s", dmpi_pmi_error());
    return MPI_SUCCESS;
}

/* ---------------------------------------------------- accept, connect */
/* The roots' handshake: at the accepting root, waits for a request on the
 * port and answers; at the connecting root, sends one and waits for the
 * answer. *peer: the other root's universe index. */
static int handshake(bool accepting, const char *port, int *peer, int *num, char *err)
{
    int who;
    int rc = parse_port(port, &who, num, err);
    if (rc != MPI_SUCCESS) return rc;
    dmpi_datatype *i32 = dmpi_dt_builtin(MPI_INT);
    int msg[2] = {PORT_MAGIC, dmpi_rt.uni_rank};
    if (accepting) {
        if (who != dmpi_rt.uni_rank || port_exists(who, *num) != 0)
            return fail(err, MPI_ERR_PORT, "port '%.200s' is not open in this process", port);
        MPI_Status st;
        int req[2] = {0, 0};
        rc = dmpi_recv(req, 2, i32, MPI_ANY_SOURCE, 3 * *num + 1, universe, DMPI_CTX_P2P, &st);
        if (rc == MPI_SUCCESS && req[0] != PORT_MAGIC) rc = MPI_ERR_INTERN;
        *peer = st.MPI_SOURCE;
        if (rc == MPI_SUCCESS) rc = dmpi_send(msg, 2, i32, *peer, 3 * *num + 2, universe, DMPI_CTX_P2P);
        if (rc != MPI_SUCCESS) return fail(err, rc, "%s", "the handshake with the connecting side failed");
        return MPI_SUCCESS;
    }
    int e = port_exists(who, *num);
    if (e != 0)
        return fail(err, MPI_ERR_PORT, e > 0 ? "port '%.200s' is not open (never opened, or closed)"
                                             : "cannot look port '%.200s' up", port);
    char why[DMPI_DYN_ERRLEN];
    if (dmpi_tp_connect(who, (double)connect_timeout(), why, sizeof why) != 0)
        return fail(err, MPI_ERR_PORT, "%s", why);
    *peer = who;
    int ack[2] = {0, 0};
    rc = dmpi_send(msg, 2, i32, who, 3 * *num + 1, universe, DMPI_CTX_P2P);
    if (rc == MPI_SUCCESS) rc = dmpi_recv(ack, 2, i32, who, 3 * *num + 2, universe, DMPI_CTX_P2P, NULL);
    if (rc == MPI_SUCCESS && ack[0] != PORT_MAGIC) rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS) return fail(err, rc, "%s", "the handshake with the accepting side failed");
    return MPI_SUCCESS;
}

/* Every member reaches every member of the other group. */
static int reach_remote(dmpi_comm *inter, char *err)
{
    char why[DMPI_DYN_ERRLEN] = "";
    int rc = MPI_SUCCESS;
    const dmpi_group *rg = inter->remote_group;
    for (int i = 0; i < rg->size && rc == MPI_SUCCESS; i++)
        if (dmpi_tp_connect(rg->world[i], (double)connect_timeout(), why, sizeof why) != 0) rc = MPI_ERR_INTERN;
    dmpi_comm *l = dmpi_intercomm_local(inter);
    int worst = rc;
    int r = dmpi_coll_allreduce(&rc, &worst, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MAX), l);
    if (r == MPI_SUCCESS && worst == MPI_SUCCESS) return MPI_SUCCESS;
    return fail(err, MPI_ERR_INTERN, "%s", rc != MPI_SUCCESS ? why : "a member cannot reach the other group");
}

static int accept_or_connect(bool accepting, const char *port, int root, dmpi_comm *comm, dmpi_comm **out,
                             char *err)
{
    *out = NULL;
    int rc = dmpi_dyn_open_all(comm, err);
    if (rc != MPI_SUCCESS) return rc;
    int pv[2] = {-1, 0}; /* the other root, the port number */
    if (comm->rank == root) rc = handshake(accepting, port, &pv[0], &pv[1], err);
    rc = dmpi_dyn_agree(comm, root, rc, err);
    if (rc != MPI_SUCCESS) return rc;
    rc = dmpi_coll_bcast(pv, 2, dmpi_dt_builtin(MPI_INT), root, comm);
    if (rc == MPI_SUCCESS)
        rc = dmpi_intercomm_create(comm, root, universe, pv[0], 3 * pv[1] + 3, DMPI_CTX_P2P, MPI_SUCCESS, out);
    if (rc != MPI_SUCCESS) return fail(err, rc, "%s", "building the intercommunicator failed");
    rc = reach_remote(*out, err);
    if (rc != MPI_SUCCESS) {
        dmpi_comm_release(*out);
        *out = NULL;
    }
    return rc;
}

int dmpi_dyn_accept(const char *port, int root, dmpi_comm *comm, dmpi_comm **out, char *err)
{
    return accept_or_connect(true, port, root, comm, out, err);
}

int dmpi_dyn_connect(const char *port, int root, dmpi_comm *comm, dmpi_comm **out, char *err)
{
    return accept_or_connect(false, port, root, comm, out, err);
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
        snprintf(msg, sizeof msg, "service '%.100s': %.200s", service,
                 strcmp(cmd, "dmpi_lookup") == 0 ? "no such name is published" : dmpi_pmi_error());
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
 * reads the other's; the lower index opens a port, sends its name (one
 * line) and accepts; the other connects. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = '\0';
    return 0;
}

int dmpi_dyn_join(int fd, dmpi_comm **out, char *err)
{
    *out = NULL;
    if (!uid()) return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s",
                            "MPI_Comm_join needs dmpi's mpiexec with the job on one host");
    char line[MPI_MAX_PORT_NAME + 8], other[64];
    int peer;
    snprintf(line, sizeof line, "%s %d\n", uid(), dmpi_rt.uni_rank);
    if (write_all(fd, line, strlen(line)) != 0 || read_line(fd, line, sizeof line) != 0 ||
        sscanf(line, "%63s %d", other, &peer) != 2)
        return fail(err, MPI_ERR_OTHER, "%s", "the socket failed before the other side answered");
    if (strcmp(other, uid()) != 0)
        return fail(err, MPI_ERR_UNSUPPORTED_OPERATION, "%s",
                    "the other side belongs to another mpiexec: dmpi joins processes of one mpiexec only");
    if (peer == dmpi_rt.uni_rank) return fail(err, MPI_ERR_ARG, "%s", "the socket leads back to this process");
    int rc;
    if (dmpi_rt.uni_rank < peer) {
        char port[MPI_MAX_PORT_NAME];
        rc = dmpi_dyn_open_port(port, err);
        if (rc != MPI_SUCCESS) return rc;
        snprintf(line, sizeof line, "%s\n", port);
        if (write_all(fd, line, strlen(line)) != 0) {
            char ignored[DMPI_DYN_ERRLEN];
            dmpi_dyn_close_port(port, ignored);
            return fail(err, MPI_ERR_OTHER, "%s", "the socket failed");
        }
        rc = dmpi_dyn_accept(port, 0, &dmpi_comm_self_obj, out, err);
        char ignored[DMPI_DYN_ERRLEN];
        dmpi_dyn_close_port(port, ignored);
        return rc;
    }
    if (read_line(fd, line, sizeof line) != 0) return fail(err, MPI_ERR_OTHER, "%s", "the socket failed");
    return dmpi_dyn_connect(line, 0, &dmpi_comm_self_obj, out, err);
}
