/* Unit test of the process-mapping parser (src/pmi/pmi_mapping.c), which
 * tells every rank which ranks share its node: MPICH's vector notation in
 * the forms launchers publish (blocks, several blocks, cyclic repetition,
 * spaces), and malformed texts rejected without touching the result.
 * Exits 0 when every check passes. */
#include "pmi/pmi.h"

#include <stdio.h>
#include <string.h>

static int failures, checks;

/* Parses text for size ranks and compares with want[] (or expects failure
 * when want is NULL). */
static void expect(const char *text, int size, const int *want)
{
    int got[64];
    for (int i = 0; i < 64; i++) got[i] = -7;
    int rc = dmpi_pmi_parse_mapping(text, size, got);
    checks++;
    if (!want) {
        if (rc == 0) {
            failures++;
            fprintf(stderr, "accepted malformed mapping \"%s\"\n", text);
        }
        return;
    }
    bool same = rc == 0;
    for (int i = 0; same && i < size; i++) same = got[i] == want[i];
    if (!same) {
        failures++;
        fprintf(stderr, "mapping \"%s\" for %d ranks: rc %d, got", text, size, rc);
        for (int i = 0; i < size; i++) fprintf(stderr, " %d", got[i]);
        fprintf(stderr, "\n");
    }
}

int main(void)
{
    expect("(vector,(0,1,4))", 4, (int[]){0, 0, 0, 0});
    expect("(vector,(0,2,2))", 4, (int[]){0, 0, 1, 1});
    expect("(vector,(0,1,3),(1,1,2))", 5, (int[]){0, 0, 0, 1, 1});
    /* cyclic: the triples apply again until every rank has a node */
    expect("(vector,(0,3,1))", 7, (int[]){0, 1, 2, 0, 1, 2, 0});
    expect("(vector,(0,2,2))", 6, (int[]){0, 0, 1, 1, 0, 0});
    /* node numbers need not start at 0 or be dense; spaces are allowed */
    expect(" ( vector , (5, 1, 2) , (9,1,1) )", 3, (int[]){5, 5, 9});
    /* fewer ranks than the mapping describes */
    expect("(vector,(0,4,4))", 2, (int[]){0, 0});
    const char *bad[] = {"", "vector,(0,1,2)", "(vec,(0,1,2))", "(vector)", "(vector,(0,1))",
                         "(vector,(0,1,-2))", "(vector,(0,0,0))", "(vector,(a,1,2))",
                         "(vector,(0,1,2)", "(vector,(0,1,2,3))"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect(bad[i], 4, NULL);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
