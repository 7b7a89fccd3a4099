/* Slurm's compressed host lists and per-node counts, as mpiexec reads them
 * from an allocation's environment (tools/mpiexec/hostlist.c). Plain C,
 * libc only, so that tests/unit/test_hostlist.c can build it alone. */
#ifndef MPX_HOSTLIST_H
#define MPX_HOSTLIST_H

#include <stddef.h>

#define MPX_HOSTLIST_MAX 65536 /* names one list may expand to */

/* Expands a host list such as "n[01-03,07],login1" or "r[1-2]n[08-10]"
 * into *names (a malloc'ed array of malloc'ed strings, in Slurm's order)
 * and returns how many there are. On a malformed list returns -1 with
 * *names NULL and the reason in err. */
int mpx_hostlist_expand(const char *list, char ***names, char *err, size_t errlen);
void mpx_hostlist_free(char **names, int n);

/* Reads a per-node count list as in SLURM_TASKS_PER_NODE or
 * SLURM_JOB_CPUS_PER_NODE: "2(x3),1" is 2, 2, 2, 1. Stores the first max
 * counts in out and returns how many the text describes (possibly more
 * than max), or -1 when it is malformed or a count is not in 1..1000000. */
int mpx_hostlist_counts(const char *spec, int *out, int max);

#endif
