/* coll_algos.h: argument handling shared by the collective tests that run
 * in several forms and under several algorithm choices:
 *   b | i | p      blocking, nonblocking, persistent form (default b)
 *   alt1 .. alt4   a set of dmpi algorithm choices (DMPI_COLL_<NAME>_ALGO
 *                  environment variables, put in place before MPI_Init so
 *                  that the testlist can cover every algorithm; other MPIs
 *                  ignore them)
 *   NAME=VALUE     one more environment variable */
#ifndef DMPI_TEST_COLL_ALGOS_H
#define DMPI_TEST_COLL_ALGOS_H

#include <stdlib.h>
#include <string.h>

static const char *const t_alt_sets[4][16] = {
    { "BARRIER=tree", "BCAST=scatter_ring", "ALLREDUCE=rabenseifner", "GATHER=linear",
      "SCATTER=linear", "ALLGATHER=bruck", "ALLTOALL=pairwise", "ALLGATHERV=ring",
      "ALLTOALLV=pairwise", "ALLTOALLW=pairwise", "REDUCE_SCATTER=pairwise",
      "REDUCE_SCATTER_BLOCK=pairwise", "REDUCE=rabenseifner" },
    { "BCAST=binomial", "ALLREDUCE=ring", "GATHER=binomial", "SCATTER=binomial",
      "ALLGATHER=ring", "ALLTOALL=bruck", "ALLGATHERV=linear", "ALLTOALLV=linear",
      "ALLTOALLW=linear", "REDUCE_SCATTER=reduce_scatterv",
      "REDUCE_SCATTER_BLOCK=reduce_scatterv", "REDUCE=binomial" },
    { "BARRIER=dissemination", "ALLREDUCE=recursive_doubling", "ALLGATHER=recursive_doubling",
      "ALLTOALL=linear" },
    { "BCAST=direct", "REDUCE=direct", "ALLREDUCE=direct", "GATHER=direct", "SCATTER=direct",
      "ALLGATHER=direct", "ALLTOALL=direct", "ALLGATHERV=direct" },
};

static void t_coll_args(int argc, char **argv, char *mode)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "alt", 3) && a[3] >= '1' && a[3] <= '4' && !a[4]) {
            for (int k = 0; k < 16 && t_alt_sets[a[3] - '1'][k]; k++) {
                char var[96];
                const char *s = t_alt_sets[a[3] - '1'][k], *eq = strchr(s, '=');
                snprintf(var, sizeof var, "DMPI_COLL_%.*s_ALGO", (int)(eq - s), s);
                setenv(var, eq + 1, 1);
            }
        } else if (strchr(a, '=')) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", a);
            char *eq = strchr(buf, '=');
            *eq = 0;
            setenv(buf, eq + 1, 1);
        } else if (strlen(a) == 1) {
            *mode = a[0];
        }
    }
}

#endif
