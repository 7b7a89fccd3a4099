/* Unit test of the knob table (src/core/knob.c) without MPI_Init:
 *   - integers from the environment with k/m suffixes, defaults from the
 *     table or from the caller (dmpi_knob_or), dmpi_env_long by name;
 *   - enumerations accept item names; string knobs give NULL when unset;
 *   - MPI_T writes: an INIT knob until it is read, then SET_NEVER; a NEVER
 *     knob never; a LIVE knob at any time, its watcher called after the
 *     write once it has been read; the enumerations' readers see names;
 *   - dmpi_knob_read gives the settled value (set_effective) once read. */
#include "core/dmpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(c, ...)                                            \
    do {                                                         \
        if (!(c)) {                                              \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
            failures++;                                          \
        }                                                        \
    } while (0)

static int watched = -1;
static long seen;
static void watcher(int id)
{
    watched = id;
    seen = dmpi_knob(id);
}

int main(void)
{
    /* every table entry is well formed */
    for (int i = 0; i < DMPI_NKNOBS; i++) {
        const dmpi_knob_desc *d = &dmpi_knob_descs[i];
        CHECK(!strncmp(d->name, "DMPI_", 5) && d->desc && *d->desc, "knob %d", i);
        CHECK(d->category >= 0 && d->category < DMPI_NKCATS, "%s: category", d->name);
        for (int j = 0; j < i; j++) CHECK(strcmp(d->name, dmpi_knob_descs[j].name), "%s twice", d->name);
    }
    /* environment, suffixes, defaults */
    setenv("DMPI_EAGER_MAX", "16k", 1);
    CHECK(dmpi_knob(DMPI_KNOB_EAGER_MAX) == 16384, "16k");
    setenv("DMPI_SHM_HEAP_MB", "2m", 1);
    CHECK(dmpi_knob(DMPI_KNOB_SHM_HEAP_MB) == 2 << 20, "2m");
    unsetenv("DMPI_COOP_MIN");
    CHECK(dmpi_knob(DMPI_KNOB_COOP_MIN) == 262144, "table default");
    unsetenv("DMPI_SPIN");
    CHECK(dmpi_knob_or(DMPI_KNOB_SPIN, 7) == 7, "caller's default");
    setenv("DMPI_YIELD", "", 1);
    CHECK(dmpi_knob(DMPI_KNOB_YIELD) == 1000, "empty is unset");
    setenv("DMPI_SELF_EAGER_MAX", "4k", 1);
    CHECK(dmpi_env_long("DMPI_SELF_EAGER_MAX", 1) == 4096, "dmpi_env_long through the table");
    CHECK(dmpi_env_long("DMPI_NOT_A_KNOB", 5) == 5, "dmpi_env_long of an unknown name");
    setenv("DMPI_BIND", "round_robin", 1);
    CHECK(dmpi_knob(DMPI_KNOB_BIND) == 2, "enumeration by name");
    char buf[DMPI_KNOB_STR_MAX];
    unsetenv("DMPI_ACCEL");
    CHECK(dmpi_knob_str(DMPI_KNOB_ACCEL, buf) == NULL, "unset string");
    int v = -1;
    dmpi_knob_read(DMPI_KNOB_ACCEL, &v, buf);
    CHECK(!strcmp(buf, "auto"), "string default text '%s'", buf);

    /* writes */
    unsetenv("DMPI_LOCAL_MAX");
    CHECK(dmpi_knob_write(DMPI_KNOB_LOCAL_MAX, 1234, NULL) == MPI_SUCCESS, "INIT before read");
    dmpi_knob_read(DMPI_KNOB_LOCAL_MAX, &v, buf);
    CHECK(v == 1234, "read back %d", v);
    CHECK(dmpi_knob(DMPI_KNOB_LOCAL_MAX) == 1234, "the library reads the written value");
    CHECK(dmpi_knob_write(DMPI_KNOB_LOCAL_MAX, 1, NULL) == MPI_T_ERR_CVAR_SET_NEVER, "INIT after read");
    CHECK(dmpi_knob_write(DMPI_KNOB_LAUNCHER, 1, NULL) == MPI_T_ERR_CVAR_SET_NEVER, "NEVER");
    dmpi_knob_watch(DMPI_KNOB_SPIN, watcher);
    CHECK(dmpi_knob_write(DMPI_KNOB_SPIN, 55, NULL) == MPI_SUCCESS, "LIVE after read");
    CHECK(watched == DMPI_KNOB_SPIN && seen == 55, "watcher saw %ld", seen);
    dmpi_knob_read(DMPI_KNOB_SPIN, &v, buf);
    CHECK(v == 55, "LIVE read back %d", v);
    CHECK(dmpi_knob_write(DMPI_KNOB_PMI, 3, NULL) == MPI_SUCCESS, "PMI before read");
    CHECK(dmpi_knob_str(DMPI_KNOB_PMI, buf) && !strcmp(buf, "pmi1"), "PMI reads '%s'", buf);
    CHECK(dmpi_knob_write(DMPI_KNOB_COLL_BCAST_ALGO, 0, "binomial") == MPI_SUCCESS, "string LIVE");
    CHECK(dmpi_knob_str(DMPI_KNOB_COLL_BCAST_ALGO, buf) && !strcmp(buf, "binomial"), "'%s'", buf);
    /* the settled value */
    setenv("DMPI_FRAG_MAX", "100", 1);
    CHECK(dmpi_knob(DMPI_KNOB_FRAG_MAX) == 100, "frag");
    dmpi_knob_set_effective(DMPI_KNOB_FRAG_MAX, 1024);
    dmpi_knob_read(DMPI_KNOB_FRAG_MAX, &v, buf);
    CHECK(v == 1024, "effective %d", v);

    if (failures) fprintf(stderr, "test_knob: %d failures\n", failures);
    else printf("test_knob: ok\n");
    return failures != 0;
}
