/* The process-management backends behind pmi.h: one small ops table per
 * way of reaching a launcher. pmi.c picks one at dmpi_pmi_init, holds the
 * lock around every call into it, and keeps the singleton table itself.
 *
 *   PMI-1 (pmi1.c)  the "simple" line protocol over $PMI_FD: dmpi's
 *                   mpiexec, MPICH's hydra, Slurm's mpi/pmi2 plugin.
 *   PMI-2 (pmi2.c)  length-framed "cmd=...;key=val;" messages over $PMI_FD:
 *                   Slurm's `srun --mpi=pmi2`, hydra.
 *   PMIx  (pmix.c)  libpmix, loaded with dlopen only when the process was
 *                   started by a PMIx server (`srun --mpi=pmix`, prterun).
 *
 * A backend's functions return 0 on success and -1 on failure, having
 * written a one-line reason with dmpi_pmi_fail(). None prints, and none
 * waits without bound: a launcher that stops answering mid-reply ends the
 * wait after dmpi_pmi_timeout_ms() with an error. */
#ifndef DMPI_PMI_BACKEND_H
#define DMPI_PMI_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

/* What a backend learns when it connects. */
typedef struct dmpi_pmi_job {
    int rank, size, appnum;
    int universe;    /* the launcher's universe size (MPI_UNIVERSE_SIZE), -1 not told */
    char jobid[257]; /* the launcher's name for the job (may hold any bytes but NUL) */
    int fd;          /* the launcher socket, or -1 (PMIx) */
} dmpi_pmi_job;

typedef struct dmpi_pmi_backend {
    const char *name; /* "PMI-1", "PMI-2", "PMIx": for messages */
    int keylen_max, vallen_max;
    int (*put)(const char *key, const char *val);
    /* owner: the rank that put key, or -1 when the caller does not know */
    int (*get)(int owner, const char *key, char *val, int maxlen);
    int (*fence)(void);
    /* A job attribute the launcher provides (PMI_process_mapping, ...):
     * 0 found, -1 absent or error. */
    int (*job_attr)(const char *key, char *val, int maxlen);
    /* Node of every rank, when the backend knows it directly (PMIx);
     * NULL: pmi.c derives it from the PMI_process_mapping attribute. */
    int (*node_ids)(int size, int *node_of);
    /* Called without the lock (abort must not wait behind a fence). */
    int (*abort)(int code, const char *msg);
    int (*finalize)(void);
} dmpi_pmi_backend;

/* Connects; on success fills job and returns the ops. On failure returns
 * NULL with the reason set by dmpi_pmi_fail. pmi1/pmi2 share the socket:
 * dmpi_pmi_fd_connect offers PMI-2 first and falls back to PMI-1 when
 * the launcher declines (DMPI_PMI=pmi1|pmi2 forces one). */
const dmpi_pmi_backend *dmpi_pmi_fd_connect(int fd, dmpi_pmi_job *job);
/* After pmi1.c's init exchange agreed on version 2 (pmi2.c). */
const dmpi_pmi_backend *dmpi_pmi2_start(int fd, dmpi_pmi_job *job);
/* Only when built with PMIx support (DMPI_HAVE_PMIX); NULL otherwise, with
 * a reason saying support is not built. */
const dmpi_pmi_backend *dmpi_pmix_connect(dmpi_pmi_job *job);
/* True when the environment says a PMIx server started this process. */
bool dmpi_pmix_in_env(void);

/* dmpi's own PMI-1 commands (dynamic processes, tools/mpiexec/spawn.c):
 * sends cmd with the name/value pairs kv (NULL-terminated list), reads the
 * reply, which must be `expect`, into buf[cap] and parses it into m. 0
 * (rc=0), 1 (the launcher refused: reason in dmpi_pmi_error), -1 error. */
struct dmpi_pmi_msg;
int dmpi_pmi1_call(const char *cmd, const char *const *kv, const char *expect, char *buf, size_t cap,
                   struct dmpi_pmi_msg *m);

/* Records why the last call failed (printf format); kept until the next
 * failure. Thread-safe enough for its use: failures are rare and the text
 * is read only after a call returned -1. */
void dmpi_pmi_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies a looked-up value out for a backend's get: 0, or -1 with the
 * reason set when it was not found or does not fit val[maxlen]. */
int dmpi_pmi_copy_found(const char *who, const char *key, bool found, const char *v, char *val, int maxlen);

/* How long one reply may take: $DMPI_PMI_TIMEOUT seconds (default 300;
 * 0 waits forever), in milliseconds (-1 for forever, as poll takes). */
int dmpi_pmi_timeout_ms(void);

#endif
