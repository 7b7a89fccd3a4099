/* Dynamic processes (core/dynproc.c ports, names, join; dynconn.c accept
 * and connect; dynport.c the TCP side; dynspawn.c spawn): the parent
 * intercommunicator too. Processes of the jobs of one mpiexec (its
 * universe) reach each other over the network transport once they are
 * connected (transport.h: dmpi_tp_connect); processes of another mpiexec
 * run get aliases, indices of our universe (dmpi_tp_alias). The roots'
 * handshake runs on a TCP connection to the port. Functions return MPI
 * error classes and put a one-line reason in err[DMPI_DYN_ERRLEN] on
 * failure (the same class at every member of a collective call). */
#ifndef DMPI_DYNPROC_H
#define DMPI_DYNPROC_H

#include "core/dmpi.h"

#define DMPI_DYN_ERRLEN 400

int dmpi_dyn_open_port(char *name, char *err);
int dmpi_dyn_close_port(const char *name, char *err);
/* Collective over comm; port matters at root only. */
int dmpi_dyn_accept(const char *port, int root, dmpi_comm *comm, dmpi_comm **out, char *err);
int dmpi_dyn_connect(const char *port, int root, dmpi_comm *comm, dmpi_comm **out, char *err);
/* Commands as MPI_Comm_spawn_multiple gives them (significant at root);
 * errcodes (may be NULL) gets one code per requested process. */
int dmpi_dyn_spawn(int count, char **cmds, char ***argvs, const int *maxprocs, const MPI_Info *infos,
                   int root, dmpi_comm *comm, dmpi_comm **out, int *errcodes, int *nerr, char *err);
/* MPI_Init of a spawned job: connects to the parents. */
int dmpi_dyn_init_child(char *err);
dmpi_comm *dmpi_dyn_parent(void);
/* The user frees (or disconnects) c: forget it as the parent, say bye on
 * its roots' connection. */
void dmpi_dyn_comm_freed(dmpi_comm *c);
int dmpi_dyn_publish(const char *service, const char *port, char *err);
int dmpi_dyn_unpublish(const char *service, char *err);
int dmpi_dyn_lookup(const char *service, char *port, char *err);
int dmpi_dyn_join(int fd, dmpi_comm **out, char *err);

/* dynproc.c, for dynspawn.c: the universe is open at every member of comm
 * (collective); a port of our own that nobody can see (for spawn). */
int dmpi_dyn_open_all(dmpi_comm *comm, char *err);
/* MPI_Intercomm_create: every member of local can reach every member of
 * the remote group rg (collective over local when rg holds another job's
 * processes). MPI_SUCCESS or MPI_ERR_OTHER. */
int dmpi_dyn_reach_group(dmpi_comm *local, const dmpi_group *rg);
/* Agrees on root's status and message over comm. */
int dmpi_dyn_agree(dmpi_comm *comm, int root, int rc, char *err);
/* MPI_Finalize: says bye to connected runs, closes the ports. */
void dmpi_dyn_finalize(void);
/* A key that orders processes the same way in every connected run (the
 * tie-break of MPI_Intercomm_merge): universe id hash, own index. */
uint64_t dmpi_dyn_order_key(int world);

/* dynproc.c, for dynconn.c */
typedef struct dmpi_dyn_port {
    char uid[64];
    int who, num, tcp;
    char addr[64]; /* the IPv4 address the port listens on */
} dmpi_dyn_port;
const char *dmpi_dyn_uid(void); /* this run's universe id, or NULL */
double dmpi_dyn_timeout(void);  /* DMPI_CONNECT_TIMEOUT */
/* snprintf(err, fmt, a); returns cls */
int dmpi_dyn_fail(char *err, int cls, const char *fmt, const char *a);
int dmpi_dyn_parse_port(const char *name, dmpi_dyn_port *p, char *err);
int dmpi_dyn_port_fd(const dmpi_dyn_port *p); /* its listening socket, if ours and open; -1 */

/* dynport.c: TCP on this host's address ($DMPI_PORT_ADDR, set by
 * mpiexec's agents across hosts; else loopback). Sockets: a listener
 * (addr: its address, *port: its number), a connection to one (-1 with
 * why), the next connection to a listener (progress goes on while
 * waiting). Lines: 0, -1 (closed, failed) or -2 (nothing within wait_s
 * seconds; < 0 for ever). */
int dmpi_dyn_listen(char *addr, size_t addrlen, int *port);
int dmpi_dyn_dial(const char *addr, int port, char *err);
int dmpi_dyn_wait_conn(int lfd);
int dmpi_dyn_write(int fd, const char *p, size_t n);
int dmpi_dyn_read_line(int fd, char *buf, size_t cap, double wait_s);
/* The roots' connection of an intercommunicator, kept as a watch: bye when
 * it is freed (drop) or at finalize (end); dmpi_dyn_watch aborts the job
 * when the other side ended without one (from dmpi_check_launcher). */
int dmpi_dyn_watch_add(int fd, const dmpi_comm *comm, const char *port);
void dmpi_dyn_watch_drop(const dmpi_comm *comm);
void dmpi_dyn_watch(void);
void dmpi_dyn_watch_end(void);

#endif
