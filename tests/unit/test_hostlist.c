/* Unit test of mpiexec's Slurm host-list expander and per-node count
 * reader (tools/mpiexec/hostlist.c): the lists Slurm writes into
 * SLURM_JOB_NODELIST (zero padding, several ranges, several names), the
 * forms it also reads (several bracket groups, in Slurm's own order, which
 * these expectations copy from `scontrol show hostnames`), malformed lists
 * rejected with a reason, and SLURM_TASKS_PER_NODE-style counts.
 * Exits 0 when every check passes. */
#include "hostlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

/* list must expand to the blank-separated names in want (NULL: rejected) */
static void expect(const char *list, const char *want)
{
    char **names = NULL, err[256] = "";
    int n = mpx_hostlist_expand(list, &names, err, sizeof err);
    checks++;
    if (want == NULL) {
        if (n >= 0 || err[0] == '\0') {
            failures++;
            fprintf(stderr, "'%s': accepted (%d names) or no reason given\n", list, n);
        }
        mpx_hostlist_free(names, n < 0 ? 0 : n);
        return;
    }
    char got[4096] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof got - 64; i++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", i ? " " : "", names[i]);
    if (n < 0 || strcmp(got, want) != 0) {
        failures++;
        fprintf(stderr, "'%s': got '%s' (%d; %s), want '%s'\n", list, got, n, err, want);
    }
    mpx_hostlist_free(names, n < 0 ? 0 : n);
}

static void expect_counts(const char *spec, const char *want)
{
    int v[64];
    int n = mpx_hostlist_counts(spec, v, 64);
    checks++;
    char got[512] = "";
    size_t len = 0;
    for (int i = 0; i < n && i < 64; i++) len += (size_t)snprintf(got + len, sizeof got - len, "%s%d", i ? " " : "", v[i]);
    if (want == NULL ? n >= 0 : (n < 0 || strcmp(got, want) != 0)) {
        failures++;
        fprintf(stderr, "counts '%s': got %d '%s', want '%s'\n", spec, n, got, want ? want : "(rejected)");
    }
}

int main(void)
{
    /* what Slurm writes */
    expect("n01", "n01");
    expect("n[01-03,07],login1", "n01 n02 n03 n07 login1");
    expect("n[8-10]", "n8 n9 n10");
    expect("n[08-10]", "n08 n09 n10");
    expect("n[00-10]", "n00 n01 n02 n03 n04 n05 n06 n07 n08 n09 n10");
    expect("x[001-3]", "x001 x002 x003");
    expect("x[1-003]", "x1 x2 x3");
    expect("n[9-010]", "n9 n10");
    expect("n[7]", "n7");
    expect("n[1,2-3]", "n1 n2 n3");
    expect("rack1-node[1-2],gpu-a[7-8],c0.example.org", "rack1-node1 rack1-node2 gpu-a7 gpu-a8 c0.example.org");
    expect("dmpi-h[1-3]", "dmpi-h1 dmpi-h2 dmpi-h3");
    expect("[1-3]", "1 2 3");
    /* what Slurm reads as well */
    expect("r[1-2]n[08-10]", "r1n08 r1n09 r1n10 r2n08 r2n09 r2n10");
    expect("n[1-2][3-4]", "n13 n14 n23 n24");
    expect("n[1-2]-x[1-2]", "n1-x1 n1-x2 n2-x1 n2-x2");
    expect("a[1-2]b[3-4]c[5-6]", "a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6");
    expect("a[1-2]b[3-4]c[5-6]d[7-8]",
           "a1b3c5d7 a1b3c5d8 a2b3c5d7 a2b3c5d8 a1b4c5d7 a1b4c5d8 a2b4c5d7 a2b4c5d8 "
           "a1b3c6d7 a1b3c6d8 a2b3c6d7 a2b3c6d8 a1b4c6d7 a1b4c6d8 a2b4c6d7 a2b4c6d8");
    expect("n[1-3,2]", "n1 n2 n3 n2");
    expect("n1,n1", "n1 n1");
    expect("n1 n2", "n1 n2");
    expect(" n1,,n2, ", "n1 n2");
    expect("", "");
    /* a suffix after the group: Slurm refuses it, we take it */
    expect("gpu-a[1-2]x,login1", "gpu-a1x gpu-a2x login1");
    expect("n[01-03,07],gpu-a[1-2]x,login1", "n01 n02 n03 n07 gpu-a1x gpu-a2x login1");
    /* malformed */
    expect("n[1-2", NULL);
    expect("n[]", NULL);
    expect("n[a-b]", NULL);
    expect("n[3-1]", NULL);
    expect("n[1-2]]", NULL);
    expect("n1]", NULL);
    expect("n[1-]", NULL);
    expect("n[-1]", NULL);
    expect("n[1,,2]", NULL);
    expect("n[[1]]", NULL);
    expect("n[1-1000000]", NULL);
    expect("a[1-300]b[1-300]", NULL);
    expect("n[1234567890123456789]", NULL);
    /* a large list */
    {
        char **names = NULL, err[128];
        int n = mpx_hostlist_expand("n[00001-65536]", &names, err, sizeof err);
        checks++;
        if (n != 65536 || strcmp(names[0], "n00001") != 0 || strcmp(names[65535], "n65536") != 0) {
            failures++;
            fprintf(stderr, "n[00001-65536]: %d names\n", n);
        }
        mpx_hostlist_free(names, n < 0 ? 0 : n);
    }

    expect_counts("4", "4");
    expect_counts("2(x3),1", "2 2 2 1");
    expect_counts("72(x2),36", "72 72 36");
    expect_counts("1(x2),3(x1),5", "1 1 3 5");
    expect_counts("", NULL);
    expect_counts("0", NULL);
    expect_counts("2(x0)", NULL);
    expect_counts("2(x3", NULL);
    expect_counts("2x3", NULL);
    expect_counts("2,", NULL);
    expect_counts("-1", NULL);
    expect_counts("2(3)", NULL);
    {
        int v[2];
        checks++;
        if (mpx_hostlist_counts("4(x5)", v, 2) != 5 || v[0] != 4 || v[1] != 4) {
            failures++;
            fprintf(stderr, "counts beyond max not counted\n");
        }
    }

    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
