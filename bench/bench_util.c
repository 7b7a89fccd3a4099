/* bench_util.c: helpers shared by the dmpi benchmark programs (see
 * bench_util.h): size lists, quantiles, buffers, output formatting. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <mpi.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dmpi_bench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached with a working MPI_Abort */
}

int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno != 0 || *s == '-')
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_range(const char *spec, size_t *sizes, int max_sizes)
{
    char lo_s[64], *colon;
    size_t lo, hi;
    int n = 0;

    if (strlen(spec) >= sizeof lo_s)
        return -1;
    strcpy(lo_s, spec);
    colon = strchr(lo_s, ':');
    *colon = '\0';
    if (bench_parse_size(lo_s, &lo) || bench_parse_size(colon + 1, &hi) || lo > hi)
        return -1;
    if (lo == 0) {
        sizes[n++] = 0;
        lo = 1;
    }
    for (size_t s = lo; s <= hi; s *= 2) {
        if (n == max_sizes)
            return -1;
        sizes[n++] = s;
        if (s > ((size_t)-1) / 2)
            break;
    }
    if (hi >= 1 && sizes[n - 1] != hi && n < max_sizes)
        sizes[n++] = hi; /* max that is not min * 2^k: measure it too */
    return n;
}

int bench_parse_sizes(const char *spec, size_t *sizes, int max_sizes)
{
    int n = 0;

    if (strchr(spec, ':')) {
        n = parse_range(spec, sizes, max_sizes);
    } else {
        char buf[1024];
        if (strlen(spec) >= sizeof buf) {
            n = -1;
        } else {
            strcpy(buf, spec);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                if (n == max_sizes || bench_parse_size(tok, &sizes[n])) {
                    n = -1;
                    break;
                }
                n++;
            }
        }
    }
    return n > 0 ? n : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(double *samples, int n, double q)
{
    if (n <= 0)
        return 0.0;
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    /* nearest rank: the smallest value with at least q*n samples <= it */
    int k = (int)(q * n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return samples[k - 1];
}

void *bench_alloc(size_t bytes, int fill, int use_mpi_alloc)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (use_mpi_alloc) {
        if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS)
            p = NULL;
    } else if (posix_memalign(&p, 4096, bytes) != 0) {
        p = NULL;
    }
    if (!p)
        bench_die("cannot allocate %zu bytes", bytes);
    memset(p, fill, bytes); /* touch every page before timing */
    return p;
}

void bench_free(void *p, int use_mpi_alloc)
{
    if (use_mpi_alloc)
        MPI_Free_mem(p);
    else
        free(p);
}

void bench_library_name(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    v[0] = '\0';
    MPI_Get_library_version(v, &n);
    v[sizeof v - 1] = '\0';
    /* keep the first line only, without trailing blanks */
    size_t i = strcspn(v, "\r\n");
    while (i > 0 && (v[i - 1] == ' ' || v[i - 1] == '\t' || v[i - 1] == ','))
        i--;
    v[i] = '\0';
    /* collapse runs of blanks ("MPICH Version:      5.0.2") */
    size_t o = 0;
    for (size_t k = 0; v[k] && o + 1 < len; k++)
        if (!((v[k] == ' ' || v[k] == '\t') && o > 0 && buf[o - 1] == ' '))
            buf[o++] = (v[k] == '\t') ? ' ' : v[k];
    if (len > 0)
        buf[o] = '\0';
}

void bench_print_header(int csv, int raw)
{
    if (raw)
        printf("test,size,sample,us\n");
    else if (csv)
        printf("test,size,median_us,p99_us,mbps\n");
    else
        printf("%-5s %10s %12s %12s %12s\n", "#test", "size", "median_us", "p99_us", "MB/s");
}

void bench_print_result(int csv, const char *test, size_t size,
                        double median_us, double p99_us, double mbps)
{
    if (csv)
        printf("%s,%zu,%.4f,%.4f,%.2f\n", test, size, median_us, p99_us, mbps);
    else
        printf("%-5s %10zu %12.3f %12.3f %12.1f\n", test, size, median_us, p99_us, mbps);
    fflush(stdout);
}
