/* Dynamic processes (core/dynproc.c, core/dynspawn.c): ports, connect and
 * accept, spawn, the parent intercommunicator, names, join. Processes of
 * the jobs of one mpiexec (its universe) reach each other over the network
 * transport once they are connected (transport.h: dmpi_tp_connect); the
 * handshakes run on a hidden communicator over the whole universe (rank =
 * universe index, context DMPI_CTX_UNIVERSE). Functions return MPI error
 * classes and put a one-line reason in err[DMPI_DYN_ERRLEN] on failure
 * (the same class at every member of a collective call). */
#ifndef DMPI_DYNPROC_H
#define DMPI_DYNPROC_H

#include "core/dmpi.h"

#define DMPI_DYN_ERRLEN 400
/* The context pair of the universe communicator (never allocated). */
#define DMPI_CTX_UNIVERSE 65534u

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
void dmpi_dyn_comm_freed(dmpi_comm *c); /* forget the parent once the user frees it */
int dmpi_dyn_publish(const char *service, const char *port, char *err);
int dmpi_dyn_unpublish(const char *service, char *err);
int dmpi_dyn_lookup(const char *service, char *port, char *err);
int dmpi_dyn_join(int fd, dmpi_comm **out, char *err);

/* dynproc.c, for dynspawn.c: the universe is open at every member of comm
 * (collective); a port of our own that nobody can see (for spawn). */
int dmpi_dyn_open_all(dmpi_comm *comm, char *err);
/* Agrees on root's status and message over comm. */
int dmpi_dyn_agree(dmpi_comm *comm, int root, int rc, char *err);

#endif
