/* dmpi process-management client: what the core calls to learn its rank and
 * size, exchange addresses (key/value space), synchronise (fence), and tell
 * the launcher about MPI_Abort and MPI_Finalize. It speaks the PMI-1 "simple"
 * wire protocol over the socket named by $PMI_FD, so it works under dmpi's
 * mpiexec and under other launchers that offer PMI-1 (MPICH's hydra, ...).
 * Without $PMI_FD the process is a singleton: rank 0 of 1, puts and gets go
 * to a private table, fences return at once.
 *
 * Every call is thread-safe (one lock) and never prints. All return 0 on
 * success and -1 on failure unless said otherwise. */
#ifndef DMPI_PMI_H
#define DMPI_PMI_H

#include <stdbool.h>

/* Connects to the launcher; fills rank, size and appnum (each may be NULL).
 * Calling it again after success returns the same values. */
int dmpi_pmi_init(int *rank, int *size, int *appnum);

/* Publishes key=val. Keys: 1..63 bytes; values: 0..2047 bytes; neither may
 * hold a newline. A key put twice keeps the last value. */
int dmpi_pmi_put(const char *key, const char *val);

/* Looks key up; copies the value (NUL-terminated) into val[maxlen].
 * 0 found, -1 not found, value longer than maxlen-1, or error. */
int dmpi_pmi_get(const char *key, char *val, int maxlen);

/* Fence over all ranks: every put made before it, by any rank, is visible
 * to every get made after it. */
int dmpi_pmi_barrier(void);

/* Asks the launcher to kill the whole job with this exit code; msg (may be
 * NULL) is shown by the launcher. Returns after the request is sent: the
 * caller should then exit. */
int dmpi_pmi_abort(int code, const char *msg);

/* Tells the launcher this rank finished cleanly (MPI_Finalize). */
int dmpi_pmi_finalize(void);

/* The job id (letters and digits, at most 32): $DMPI_JOBID when set, else
 * derived from the launcher's KVS name, else random hex for a singleton.
 * Valid after dmpi_pmi_init; "" before. */
const char *dmpi_pmi_jobid(void);

/* The PMI socket, or -1 (singleton / not initialised). The core may poll it
 * for POLLHUP to notice a dead launcher; it must not read or write it. */
int dmpi_pmi_fd(void);

bool dmpi_pmi_is_singleton(void);

/* Node of every rank (node_of[size]) from the launcher's process mapping
 * (pmi_mapping.c); without one, every rank is on node 0 and -1 is
 * returned. Node numbers need not be dense. */
int dmpi_pmi_node_ids(int size, int *node_of);
/* The parser alone: "(vector,(node,nodes,ranks),...)" -> node_of. */
int dmpi_pmi_parse_mapping(const char *text, int size, int *node_of);
int dmpi_pmi_apply_mapping(const long (*blk)[3], int nblk, int size, int *node_of);

#endif
