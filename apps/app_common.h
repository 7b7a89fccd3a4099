/* app_common.h: the few helpers the apps/ programs share: sizes with K/M/G
 * suffixes, the one-line refusal of bad input (printed once, every rank
 * exits with status 2, nothing hangs because every rank reaches the same
 * verdict from the same arguments), and the result line that make demo and
 * apps/run.sh read:
 *   RESULT app=NAME ranks=P threads=T check=PASSED|FAILED time_s=S fom=F unit=U
 * followed by " No Errors" when the check passed (the tests/run_tests.sh
 * convention), so that the test list can run the apps as they are. */
#ifndef DMPI_APP_COMMON_H
#define DMPI_APP_COMMON_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "64", "8K", "4M", "1G" -> bytes/count; -1 when not a number. */
static inline long long app_size(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    return *end ? -1 : v;
}

/* Bad input: one line on rank 0's stderr, then every rank leaves with 2.
 * Call it on every rank with the same arguments (the checks are on values
 * every rank knows). */
static inline void app_refuse(const char *app, const char *fmt, ...)
{
    int rank = 0, init = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", app);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    if (init)
        MPI_Finalize();
    exit(2);
}

/* Value of option argv[*i] (advances *i); refuses when it is missing. */
static inline const char *app_arg(const char *app, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        app_refuse(app, "option %s needs a value (see --help)", argv[*i]);
    return argv[++*i];
}

/* A positive integer option value, or a refusal naming the flag. */
static inline long long app_posint(const char *app, const char *flag, const char *v)
{
    long long x = app_size(v);
    if (x <= 0)
        app_refuse(app, "%s wants a positive number, got '%s'", flag, v);
    return x;
}

/* Rank 0 prints the result line (and " No Errors" when ok). */
static inline void app_result(const char *name, int ranks, int threads, int ok,
                              double secs, double fom, const char *unit)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        return;
    printf("RESULT app=%s ranks=%d threads=%d check=%s time_s=%.6f fom=%.6g unit=%s\n",
           name, ranks, threads, ok ? "PASSED" : "FAILED", secs, fom, unit);
    printf(ok ? " No Errors\n" : " Found 1 errors\n");
    fflush(stdout);
}

#endif
