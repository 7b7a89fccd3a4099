/* Which ranks share a node: the launcher's process mapping, in the vector
 * notation that MPICH's launchers (and ours, and Slurm's PMI) publish as
 * PMI_process_mapping: "(vector,(node,nodes,ranks),...)". Each triple says
 * that `nodes` nodes, numbered from `node`, hold `ranks` consecutive ranks
 * each; when the triples run out before the ranks do, they are applied
 * again from the start (cyclic placements). Without a mapping every rank
 * is on node 0, as for a singleton or a launcher that does not tell.
 * DMPI_PROCESS_MAPPING, when set, replaces the launcher's mapping (for
 * tests: ranks of one host then talk over the network transport). */
#include "pmi/pmi.h"
#include "pmi/pmi_backend.h"
#include "core/knob.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_spaces(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* Reads a non-negative integer; NULL when there is none. */
static const char *read_count(const char *s, long *v)
{
    s = skip_spaces(s);
    if (!isdigit((unsigned char)*s)) return NULL;
    char *end;
    *v = strtol(s, &end, 10);
    if (*v < 0 || *v > 1000000000L) return NULL;
    return skip_spaces(end);
}

static const char *expect_char(const char *s, char c)
{
    s = skip_spaces(s);
    return *s == c ? s + 1 : NULL;
}

int dmpi_pmi_parse_mapping(const char *text, int size, int *node_of)
{
    enum { MAX_BLOCKS = 1024 };
    long blk[MAX_BLOCKS][3];
    int nblk = 0;
    const char *s = expect_char(text, '(');
    if (!s) return -1;
    s = skip_spaces(s);
    if (strncmp(s, "vector", 6) != 0) return -1;
    s += 6;
    const char *comma;
    while ((comma = expect_char(s, ',')) != NULL) {
        s = comma;
        if (nblk == MAX_BLOCKS || !(s = expect_char(s, '('))) return -1;
        for (int k = 0; k < 3; k++) {
            if (k && !(s = expect_char(s, ','))) return -1;
            if (!(s = read_count(s, &blk[nblk][k]))) return -1;
        }
        if (!(s = expect_char(s, ')'))) return -1;
        nblk++;
    }
    if (!(s = expect_char(s, ')')) || *skip_spaces(s)) return -1;
    return dmpi_pmi_apply_mapping((const long (*)[3])blk, nblk, size, node_of);
}

int dmpi_pmi_apply_mapping(const long (*blk)[3], int nblk, int size, int *node_of)
{
    long per_round = 0;
    for (int b = 0; b < nblk; b++) per_round += blk[b][1] * blk[b][2];
    if (nblk == 0 || per_round == 0) return -1;
    int rank = 0;
    while (rank < size) {
        for (int b = 0; b < nblk && rank < size; b++)
            for (long n = 0; n < blk[b][1] && rank < size; n++)
                for (long r = 0; r < blk[b][2] && rank < size; r++)
                    node_of[rank++] = (int)(blk[b][0] + n);
    }
    return 0;
}

int dmpi_pmi_node_ids(int size, int *node_of)
{
    char text[8192];
    char kb[DMPI_KNOB_STR_MAX];
    const char *forced = dmpi_knob_str(DMPI_KNOB_PROCESS_MAPPING, kb);
    if (forced && *forced) {
        if (dmpi_pmi_parse_mapping(forced, size, node_of) == 0) return 0;
        dmpi_pmi_fail("DMPI_PROCESS_MAPPING='%.60s' is not a process mapping", forced);
        return -1;
    }
    for (int r = 0; r < size; r++) node_of[r] = 0;
    if (dmpi_pmi_is_singleton()) return 0;
    int own = dmpi_pmi_backend_node_ids(size, node_of);
    if (own <= 0) return own;
    if (dmpi_pmi_job_attr("PMI_process_mapping", text, sizeof text) != 0) return 0; /* not told */
    if (dmpi_pmi_parse_mapping(text, size, node_of) == 0) return 0;
    dmpi_pmi_fail("%s: the launcher's PMI_process_mapping '%.60s' is malformed", dmpi_pmi_launcher(), text);
    return -1;
}
