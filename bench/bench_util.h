/* bench_util.h: helpers shared by the dmpi benchmark programs: message-size
 * lists, sample statistics (median, p99), buffer allocation and result
 * printing.  Plain C11 + MPI, so the benchmarks build with any MPI. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* Largest number of message sizes one run accepts. */
#define BENCH_MAX_SIZES 64

/* Parse a size such as "0", "4096", "4K", "16M" (K/M/G are powers of 1024).
 * Returns 0 on success, -1 on a malformed value. */
int bench_parse_size(const char *s, size_t *out);

/* Parse a size specification into sizes[] (ascending as given):
 *   "min:max"  0 (when min is 0), then min (or 1), doubling up to max
 *   "a,b,c"    exactly these sizes
 *   "n"        just n
 * Returns the number of sizes, or -1 on a malformed or too long list. */
int bench_parse_sizes(const char *spec, size_t *sizes, int max_sizes);

/* Sort samples[0..n) ascending and return the value at quantile q (0..1),
 * nearest-rank method: q = 0.5 is the median, q = 0.99 is p99. */
double bench_quantile(double *samples, int n, double q);

/* Page-aligned buffer of `bytes` (at least 1), filled with `fill`.
 * With use_mpi_alloc the memory comes from MPI_Alloc_mem.  Aborts the job
 * with a message when memory is short. */
void *bench_alloc(size_t bytes, int fill, int use_mpi_alloc);
void bench_free(void *p, int use_mpi_alloc);

/* First line of MPI_Get_library_version, for the header of the output. */
void bench_library_name(char *buf, size_t len);

/* Print one result line.  csv: "test,size,median_us,p99_us,mbps";
 * otherwise an aligned table row.  mbps = bytes_per_msg / median_us. */
void bench_print_result(int csv, const char *test, size_t size,
                        double median_us, double p99_us, double mbps);

/* Print the header of the result table (or the CSV header line). */
void bench_print_header(int csv, int raw);

/* Abort the whole job with a message on stderr. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
