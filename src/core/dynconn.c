/* Dynamic processes: MPI_Comm_accept and MPI_Comm_connect, within one
 * mpiexec run or between two (docs/dynproc.md). The roots meet on a TCP
 * connection to the port (dynport.c) and swap, in lines of text, their
 * run's universe id and their groups: each member's universe index, node
 * and network address. Between groups of one run, the remote group is
 * those indices and every member makes each remote member reachable
 * (dmpi_tp_connect). Between two runs, each root asks its mpiexec for a
 * block of indices that stand for the other group (dmpi_ualloc), the roots
 * swap the blocks' bases, and every member enters each remote member's
 * address under its alias, with the index the other run gave this member
 * (dmpi_tp_alias). The roots then say "ready" once their whole group can
 * reach the other, agree on the context ids over the same connection and,
 * between two runs, keep it as a watch (dynport.c). */
#include "core/dynproc.h"
#include "coll/coll.h"
#include "core/context.h"
#include "core/group.h"
#include "core/intercomm.h"
#include "pmi/pmi.h"
#include "pmi/pmi_wire.h"
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEX_MAX 1040
#define fail dmpi_dyn_fail

typedef struct member {
    int own, node;     /* universe index and node in its own run */
    uint32_t uh;       /* hash of its run's universe id */
    char hex[HEX_MAX]; /* network address */
} member;

/* What the root tells its group after the handshake. */
typedef struct shake {
    int rc, cross, nrem;
    int mybase, theirbase; /* alias blocks: ours for them, theirs for us */
    uint32_t their_uh;
} shake;

static uint64_t *alias_key; /* [alias]: the order key of the process it stands for, or 0 */

static uint32_t hash_uid(const char *u)
{
    uint32_t h = 2166136261u;
    for (; u && *u; u++) h = (h ^ (unsigned char)*u) * 16777619u;
    return h;
}

uint64_t dmpi_dyn_order_key(int world)
{
    if (alias_key && alias_key[world]) return alias_key[world];
    return (uint64_t)hash_uid(dmpi_dyn_uid()) << 32 | (uint32_t)world;
}

/* Every member's record, in comm rank order; NULL with *rc set. */
static member *gather(dmpi_comm *comm, int *rc, char *err)
{
    member me = {dmpi_rt.uni_rank, dmpi_rt.node_of[dmpi_rt.uni_rank], hash_uid(dmpi_dyn_uid()), ""};
    dmpi_ofi_uni_name(me.hex, sizeof me.hex);
    member *all = malloc((size_t)comm->size * sizeof *all);
    int ok = all != NULL, all_ok = 0;
    *rc = dmpi_coll_allreduce(&ok, &all_ok, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MIN), comm);
    if (*rc == MPI_SUCCESS && !all_ok) *rc = fail(err, MPI_ERR_NO_MEM, "%s", "out of memory");
    if (*rc == MPI_SUCCESS)
        *rc = dmpi_coll_allgather(&me, sizeof me, dmpi_coll_byte(), all, sizeof me, dmpi_coll_byte(), comm);
    for (int i = 0; *rc == MPI_SUCCESS && i < comm->size; i++)
        if (all[i].uh != me.uh)
            *rc = fail(err, MPI_ERR_OTHER, "%s", "the communicator holds processes of two mpiexec runs: "
                       "connect and accept take a communicator of one run (docs/dynproc.md)");
    if (*rc != MPI_SUCCESS) {
        free(all);
        return NULL;
    }
    return all;
}

/* ------------------------------------------------------- the roots */
/* head, then our universe id and group size, then a line per member. */
static int send_group(int fd, const char *head, const member *m, int n)
{
    char line[HEX_MAX + 300];
    snprintf(line, sizeof line, "%s %s %d %s\n", head, dmpi_dyn_uid(), n, dmpi_ofi_provider());
    int rc = dmpi_dyn_write(fd, line, strlen(line));
    for (int i = 0; rc == 0 && i < n; i++) {
        snprintf(line, sizeof line, "%d %d %s\n", m[i].own, m[i].node, m[i].hex);
        rc = dmpi_dyn_write(fd, line, strlen(line));
    }
    return rc;
}

static int recv_group(int fd, int n, member **rem)
{
    *rem = n > 0 && n <= (1 << 20) ? calloc((size_t)n, sizeof **rem) : NULL;
    if (!*rem) return -1;
    char line[HEX_MAX + 64];
    for (int i = 0; i < n; i++)
        if (dmpi_dyn_read_line(fd, line, sizeof line, dmpi_dyn_timeout()) != 0 ||
            sscanf(line, "%d %d %1039s", &(*rem)[i].own, &(*rem)[i].node, (*rem)[i].hex) != 3)
            return -1;
    return 0;
}

/* The accepting root: the next connection that names this port. */
static int meet_connector(const dmpi_dyn_port *p, const char *port, int *fd, char *other, int *nrem,
                          char *prov, member **rem, char *err)
{
    int lfd = dmpi_dyn_port_fd(p);
    if (lfd < 0) return fail(err, MPI_ERR_PORT, "port '%.200s' is not open in this process", port);
    char line[512];
    for (;;) {
        *fd = dmpi_dyn_wait_conn(lfd);
        if (*fd < 0) return fail(err, MPI_ERR_OTHER, "%s", "waiting for a connection to the port failed");
        dmpi_dyn_port q;
        if (dmpi_dyn_read_line(*fd, line, sizeof line, dmpi_dyn_timeout()) == 0 &&
            sscanf(line, "dmpi-connect %63s %d %d %d %63s %d %63s", q.uid, &q.who, &q.num, &q.tcp, other, nrem,
                   prov) == 7 &&
            dmpi_dyn_port_fd(&q) == lfd && recv_group(*fd, *nrem, rem) == 0)
            return MPI_SUCCESS;
        /* a stray connection, or a connecting root that went away: the next */
        dmpi_dyn_write(*fd, "dmpi-refuse not a connect to this port\n", 39);
        close(*fd);
        free(*rem);
        *rem = NULL;
    }
}

/* The connecting root: connect, send our group, read theirs. */
static int meet_acceptor(const dmpi_dyn_port *p, const char *port, const member *mine, int n, int *fd,
                         char *other, int *nrem, char *prov, member **rem, char *err)
{
    char why[DMPI_DYN_ERRLEN], line[512];
    *fd = dmpi_dyn_dial(p->addr, p->tcp, why);
    if (*fd < 0) {
        snprintf(line, sizeof line, "port '%.200s': %.250s", port, why);
        return fail(err, MPI_ERR_PORT, "%s", line);
    }
    snprintf(line, sizeof line, "dmpi-connect %s %d %d %d", p->uid, p->who, p->num, p->tcp);
    int r = send_group(*fd, line, mine, n);
    if (r == 0) r = dmpi_dyn_read_line(*fd, line, sizeof line, dmpi_dyn_timeout());
    if (r == 0 && sscanf(line, "dmpi-accept %63s %d %63s", other, nrem, prov) == 3 &&
        recv_group(*fd, *nrem, rem) == 0)
        return MPI_SUCCESS;
    if (r == -2)
        snprintf(why, sizeof why, "port '%.200s': no MPI_Comm_accept answered within DMPI_CONNECT_TIMEOUT "
                 "(%.0f s)", port, dmpi_dyn_timeout());
    else
        snprintf(why, sizeof why, "port '%.200s': the accepting side %s", port,
                 r == 0 ? "refused the connection (not its port)" : "closed the connection (it ended?)");
    return fail(err, MPI_ERR_PORT, "%s", why);
}

/* Between two runs: our block of aliases for their group, and theirs for ours. */
static int swap_bases(int fd, shake *h, char *err)
{
    char n[16], buf[1024], line[64];
    snprintf(n, sizeof n, "%d", h->nrem);
    const char *kv[] = {"n", n, NULL};
    dmpi_pmi_msg m;
    h->mybase = -1;
    if (dmpi_pmi_call("dmpi_ualloc", kv, "dmpi_ualloc_result", buf, sizeof buf, &m) != 0 ||
        dmpi_pmi_msg_int(&m, "base", &h->mybase) != 0)
        h->mybase = -1;
    char mine[DMPI_DYN_ERRLEN];
    snprintf(mine, sizeof mine, "%s", h->mybase < 0 ? dmpi_pmi_error() : "");
    snprintf(line, sizeof line, "base %d\n", h->mybase);
    if (dmpi_dyn_write(fd, line, strlen(line)) != 0 ||
        dmpi_dyn_read_line(fd, line, sizeof line, dmpi_dyn_timeout()) != 0 ||
        sscanf(line, "base %d", &h->theirbase) != 1)
        return fail(err, MPI_ERR_PORT, "%s", "the other side closed the connection during the handshake");
    if (h->mybase < 0) return fail(err, MPI_ERR_OTHER, "no room for the other run's processes: %.300s", mine);
    if (h->theirbase < 0) return fail(err, MPI_ERR_OTHER, "%s", "the other run has no room for our processes");
    return MPI_SUCCESS;
}

static int root_shake(bool accepting, const char *port, const member *mine, int n, int *fd, shake *h,
                      member **rem, char *err)
{
    dmpi_dyn_port p;
    int rc = dmpi_dyn_parse_port(port, &p, err);
    if (rc != MPI_SUCCESS) return rc;
    char other[64], prov[64];
    if (accepting) {
        rc = meet_connector(&p, port, fd, other, &h->nrem, prov, rem, err);
        if (rc == MPI_SUCCESS && send_group(*fd, "dmpi-accept", mine, n) != 0)
            rc = fail(err, MPI_ERR_PORT, "%s", "the connecting side closed the connection");
    } else {
        rc = meet_acceptor(&p, port, mine, n, fd, other, &h->nrem, prov, rem, err);
    }
    if (rc != MPI_SUCCESS) return rc;
    if (strcmp(prov, dmpi_ofi_provider()) != 0) {
        snprintf(other, sizeof other, "%.60s", prov);
        char msg[DMPI_DYN_ERRLEN];
        snprintf(msg, sizeof msg, "the other side uses libfabric provider '%s', this one '%s': "
                 "set the same FI_PROVIDER in both", other, dmpi_ofi_provider());
        return fail(err, MPI_ERR_OTHER, "%s", msg);
    }
    h->cross = strcmp(other, dmpi_dyn_uid()) != 0;
    h->their_uh = hash_uid(other);
    if (h->cross) return swap_bases(*fd, h, err);
    for (int j = 0; j < h->nrem; j++)
        for (int i = 0; i < n; i++)
            if ((*rem)[j].own == mine[i].own)
                return fail(err, MPI_ERR_ARG, "%s", "the connecting and the accepting group overlap");
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- every member */
/* This member reaches every member of the other group. */
static int reach(dmpi_comm *comm, const shake *h, const member *rem, char *why)
{
    if (h->cross && !alias_key && !(alias_key = calloc((size_t)dmpi_rt.uni_size, sizeof *alias_key)))
        return fail(why, MPI_ERR_NO_MEM, "%s", "out of memory");
    for (int j = 0; j < h->nrem; j++) {
        if (!h->cross) {
            if (dmpi_tp_connect(rem[j].own, dmpi_dyn_timeout(), why, DMPI_DYN_ERRLEN) != 0) return MPI_ERR_OTHER;
            continue;
        }
        /* node ids: one per node of the other group, apart from ours */
        int k = 0;
        while (rem[k].node != rem[j].node) k++;
        int alias = h->mybase + j;
        if (dmpi_tp_alias(alias, rem[j].hex, (1 << 30) + h->mybase + k, h->theirbase + comm->rank, why,
                          DMPI_DYN_ERRLEN) != 0)
            return MPI_ERR_OTHER;
        alias_key[alias] = (uint64_t)h->their_uh << 32 | (uint32_t)rem[j].own;
    }
    return MPI_SUCCESS;
}

/* dmpi_ctx_xchg_fn over the roots' connection: one line of hex words. */
static int fd_and(void *arg, uint64_t *buf, int n)
{
    int fd = *(int *)arg;
    size_t cap = (size_t)n * 16 + 8;
    char *line = malloc(cap);
    if (!line) return MPI_ERR_NO_MEM;
    memcpy(line, "ctx ", 4);
    for (int i = 0; i < n; i++) snprintf(line + 4 + 16 * i, 17, "%016llx", (unsigned long long)buf[i]);
    strcpy(line + 4 + 16 * (size_t)n, "\n");
    int rc = dmpi_dyn_write(fd, line, strlen(line)) == 0 &&
                     dmpi_dyn_read_line(fd, line, cap, dmpi_dyn_timeout()) == 0 &&
                     strncmp(line, "ctx ", 4) == 0 && strlen(line) == 4 + 16 * (size_t)n
                 ? MPI_SUCCESS : MPI_ERR_OTHER;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        char w[17];
        memcpy(w, line + 4 + 16 * i, 16);
        w[16] = '\0';
        buf[i] &= strtoull(w, NULL, 16);
    }
    free(line);
    return rc;
}

/* The roots swap their groups' status once every member is done. */
static int ready(bool at_root, int fd, int rc, dmpi_comm *comm, int root, char *err)
{
    int worst = rc;
    int r = dmpi_coll_allreduce(&rc, &worst, 1, dmpi_dt_builtin(MPI_INT), dmpi_op_builtin(MPI_MAX), comm);
    if (r != MPI_SUCCESS) worst = r;
    if (at_root) {
        char line[64];
        snprintf(line, sizeof line, "ready %d\n", worst);
        int theirs = MPI_ERR_PORT;
        if (dmpi_dyn_write(fd, line, strlen(line)) != 0 ||
            dmpi_dyn_read_line(fd, line, sizeof line, dmpi_dyn_timeout()) != 0 || sscanf(line, "ready %d", &theirs) != 1)
            theirs = MPI_ERR_PORT;
        if (rc == MPI_SUCCESS && worst != MPI_SUCCESS)
            fail(err, worst, "%s", "a member cannot reach the other group");
        else if (worst == MPI_SUCCESS && theirs != MPI_SUCCESS)
            fail(err, worst = theirs, "%s", "the other group failed to reach this one");
    }
    return dmpi_dyn_agree(comm, root, worst, err);
}

static int accept_or_connect(bool accepting, const char *port, int root, dmpi_comm *comm, dmpi_comm **out,
                             char *err)
{
    *out = NULL;
    bool at_root = comm->rank == root;
    int rc = dmpi_dyn_open_all(comm, err);
    if (rc != MPI_SUCCESS) return rc;
    member *mine = gather(comm, &rc, err), *rem = NULL;
    if (!mine) return rc;
    int fd = -1;
    shake h = {0};
    if (at_root) h.rc = root_shake(accepting, port, mine, comm->size, &fd, &h, &rem, err);
    free(mine);
    h.rc = dmpi_dyn_agree(comm, root, h.rc, err);
    rc = h.rc == MPI_SUCCESS ? dmpi_coll_bcast(&h, sizeof h, dmpi_coll_byte(), root, comm) : h.rc;
    if (rc == MPI_SUCCESS && !at_root && !(rem = calloc((size_t)h.nrem, sizeof *rem))) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = dmpi_coll_bcast(rem, (MPI_Count)h.nrem * (MPI_Count)sizeof *rem, dmpi_coll_byte(), root, comm);
    char why[DMPI_DYN_ERRLEN] = "";
    if (rc == MPI_SUCCESS) rc = reach(comm, &h, rem, why);
    if (h.rc == MPI_SUCCESS) {
        if (rc != MPI_SUCCESS) snprintf(err, DMPI_DYN_ERRLEN, "%s", why);
        rc = ready(at_root, fd, rc, comm, root, err);
    }
    int *world = rc == MPI_SUCCESS ? malloc((size_t)h.nrem * sizeof(int)) : NULL;
    for (int j = 0; world && j < h.nrem; j++) world[j] = h.cross ? h.mybase + j : rem[j].own;
    free(rem);
    dmpi_group *rg = world ? dmpi_group_new(h.nrem, world) : NULL;
    free(world);
    if (rc == MPI_SUCCESS && !rg) rc = MPI_ERR_NO_MEM; /* (all members fail alike only by luck) */
    if (rc == MPI_SUCCESS) {
        rc = dmpi_intercomm_with(comm, root, rg, fd_and, &fd, out);
        if (rc != MPI_SUCCESS) fail(err, rc, "%s", "building the intercommunicator failed");
    }
    if (rg) dmpi_group_release(rg);
    /* (within one run, mpiexec ends the whole run when a process dies) */
    if (at_root && fd >= 0 && (rc != MPI_SUCCESS || !h.cross || dmpi_dyn_watch_add(fd, *out, port) != 0))
        close(fd);
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
