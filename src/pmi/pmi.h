/* dmpi process-management client: what the core calls to learn its rank and
 * size, exchange addresses (key/value space), synchronise (fence), and tell
 * the launcher about MPI_Abort and MPI_Finalize. Behind it (pmi.c) sit the
 * backends of pmi_backend.h: PMI-1 and PMI-2 over the socket named by
 * $PMI_FD (dmpi's mpiexec, hydra, `srun --mpi=pmi2`) and PMIx
 * (`srun --mpi=pmix`). Without a launcher the process is a singleton: rank
 * 0 of 1, puts and gets go to a private table, fences return at once.
 *
 * Every call is thread-safe (one lock) and never prints. All return 0 on
 * success and -1 on failure unless said otherwise; after a failure
 * dmpi_pmi_error() says why in one line that names the backend. */
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
 * owner is the rank that put the key (-1 when not known; PMIx needs it).
 * 0 found, -1 not found, value longer than maxlen-1, or error. */
int dmpi_pmi_get(int owner, const char *key, char *val, int maxlen);

/* A job attribute the launcher provides (PMI_process_mapping, ...). */
int dmpi_pmi_job_attr(const char *key, char *val, int maxlen);

/* Why the last call failed, in one line ("PMI-2: ..."). */
const char *dmpi_pmi_error(void);

/* The backend in use: "PMI-1", "PMI-2", "PMIx", "singleton" or "none". */
const char *dmpi_pmi_launcher(void);

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

/* The universe size the launcher tells (PMI-1 get_universe_size), -1 none. */
int dmpi_pmi_universe_size(void);

/* dmpi mpiexec's universe commands (dynamic processes): see
 * dmpi_pmi1_call in pmi_backend.h. -1 with a reason when the launcher is
 * not dmpi's mpiexec on one host ($DMPI_UNIVERSE_ID unset). */
struct dmpi_pmi_msg;
int dmpi_pmi_call(const char *cmd, const char *const *kv, const char *expect, char *buf, unsigned cap,
                  struct dmpi_pmi_msg *m);

/* Whether the ranks must watch each other and end the job when one dies:
 * the launcher does not (PMI-2 and PMIx launchers: Slurm without
 * KillOnBadExit); dmpi's mpiexec and hydra (PMI-1) do. DMPI_PEER_WATCH=0|1
 * overrides. */
bool dmpi_pmi_peer_watch(void);

/* Node of every rank (node_of[size]) from the launcher (pmi_mapping.c):
 * the backend's own node ids (PMIx) or the PMI_process_mapping attribute;
 * a launcher that tells nothing puts every rank on node 0. Node numbers
 * need not be dense. -1 (reason in dmpi_pmi_error) when the launcher's
 * answer is malformed or does not cover this job. */
int dmpi_pmi_node_ids(int size, int *node_of);
/* The backend's own node ids: 0, -1 on error, 1 when it has none. */
int dmpi_pmi_backend_node_ids(int size, int *node_of);
/* The parser alone: "(vector,(node,nodes,ranks),...)" -> node_of. */
int dmpi_pmi_parse_mapping(const char *text, int size, int *node_of);
int dmpi_pmi_apply_mapping(const long (*blk)[3], int nblk, int size, int *node_of);

#endif
