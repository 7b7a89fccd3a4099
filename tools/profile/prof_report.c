/* libdmpi_profile.so: MPI_Finalize gathers every rank's counters (PMPI
 * calls on MPI_COMM_WORLD), rank 0 prints the report on stderr and writes
 * the traffic matrix as CSV (docs/profile.md explains both). */
#define _GNU_SOURCE
#include "prof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_name[PROF_NKIND] = {"p2p", "coll", "rma"};
enum { W_WALL, W_MPI, W_TOP, W_TOPNS, W_HEAD }; /* per-rank words before the matrix row */

static int skipped(int id) { return id == P_MPI_Init || id == P_MPI_Init_thread; }

static void human(char *b, size_t n, double v) /* 1.2 kB, 3.4 MB, ... */
{
    static const char *const u[] = {"B", "kB", "MB", "GB", "TB"};
    int i = 0;
    while (v >= 1000 && i < 4) v /= 1000, i++;
    snprintf(b, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static const char *bucket_name(int b)
{
    static const char *const n[PROF_NBUCKET] = {"0 B", "1-8 B", "9-64 B", "65-512 B", "513 B-4 KiB",
                                                "4-32 KiB", "32-256 KiB", "256 KiB-2 MiB", "2-16 MiB",
                                                "> 16 MiB"};
    return n[b];
}

/* the CSV file's name: DMPI_PROFILE_FILE (a directory gets the default name inside) */
static char *csv_path(void)
{
    const char *job = getenv("DMPI_JOBID"), *sj = getenv("SLURM_JOB_ID"), *ss = getenv("SLURM_STEP_ID");
    char id[128], name[160];
    if (job && *job) snprintf(id, sizeof id, "%s", job);
    else if (sj && *sj) snprintf(id, sizeof id, "%s.%s", sj, ss && *ss ? ss : "0");
    else snprintf(id, sizeof id, "%ld", (long)getpid());
    snprintf(name, sizeof name, "dmpi-profile.%s.csv", id);
    const char *f = getenv("DMPI_PROFILE_FILE");
    struct stat st;
    char *p = NULL;
    if (!f || !*f) p = strdup(name);
    else if ((stat(f, &st) == 0 && S_ISDIR(st.st_mode)) || f[strlen(f) - 1] == '/') {
        if (asprintf(&p, "%s%s%s", f, f[strlen(f) - 1] == '/' ? "" : "/", name) < 0) p = NULL;
    } else p = strdup(f);
    return p;
}

static void write_csv(const uint64_t *all, int P)
{
    char *path = csv_path();
    if (!path) return;
    FILE *f = fopen(path, "w");
    int err = f ? 0 : errno;
    if (f) {
        fprintf(f, "kind,from,to,messages,bytes\n");
        for (int k = 0; k < PROF_NKIND; k++)
            for (int r = 0; r < P; r++)
                for (int p = 0; p < P; p++) {
                    const uint64_t *e = all + (size_t)r * (W_HEAD + 6 * (size_t)P) + W_HEAD + ((size_t)k * P + p) * 2;
                    if (e[0] || e[1])
                        fprintf(f, "%s,%d,%d,%llu,%llu\n", kind_name[k], r, p, (unsigned long long)e[0],
                                (unsigned long long)e[1]);
                }
        if (ferror(f)) err = errno ? errno : EIO;
        if (fclose(f) != 0 && !err) err = errno;
        if (err) unlink(path);
    }
    if (err)
        fprintf(stderr, "dmpi profile: cannot write the traffic matrix to %s (DMPI_PROFILE_FILE): %s\n", path,
                strerror(err));
    else
        fprintf(stderr, "traffic matrix: %s (heat map: dmpi-profile-plot %s)\n", path, path);
    free(path);
}

static int by_time_desc(const void *a, const void *b, void *ctx)
{
    const uint64_t *ns = ctx;
    uint64_t x = ns[*(const int *)a], y = ns[*(const int *)b];
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

static void print_rank(const uint64_t *row, int r, const char *label)
{
    double wall = (double)row[W_WALL] / 1e9, mpi = (double)row[W_MPI] / 1e9;
    fprintf(stderr, "  %6d%-7s %9.3f %9.3f %6.1f  %s (%.3f s)\n", r, label, wall, mpi,
            wall > 0 ? 100 * mpi / wall : 0, row[W_TOPNS] ? prof_names[row[W_TOP]] : "-",
            (double)row[W_TOPNS] / 1e9);
}

static void report(const uint64_t *sum, const uint64_t *max, const uint64_t *all, int P, int pcontrol)
{
    const uint64_t *calls = sum, *ns = sum + PROF_NFUNC, *bytes = sum + 2 * PROF_NFUNC;
    const uint64_t *hist = sum + 3 * PROF_NFUNC, *sampled = hist + 2 * PROF_NBUCKET;
    int any_sampled = 0;
    size_t stride = W_HEAD + 6 * (size_t)P;
    double wall = 0, mpi = 0;
    for (int r = 0; r < P; r++) wall += (double)all[r * stride + W_WALL], mpi += (double)all[r * stride + W_MPI];
    fprintf(stderr, "==== dmpi profile: %s, %d rank%s ====\n", program_invocation_short_name, P, P == 1 ? "" : "s");
    uint64_t ncalls = 0;
    for (int i = 0; i < PROF_NFUNC; i++)
        if (!skipped(i)) ncalls += calls[i];
    fprintf(stderr, "time in MPI: %.3f s of %.3f s (%.1f %%) in %llu calls, all ranks, MPI_Init to MPI_Finalize%s\n",
            mpi / 1e9, wall / 1e9, wall > 0 ? 100 * mpi / wall : 0, (unsigned long long)ncalls,
            pcontrol ? ", only while profiling was on (MPI_Pcontrol)" : "");
    fprintf(stderr, "  %-13s %9s %9s %6s  %s\n", "rank", "wall s", "MPI s", "MPI %", "top call (time)");
    if (P <= 16) {
        for (int r = 0; r < P; r++) print_rank(all + r * stride, r, "");
    } else { /* the ranks with the least, the median and the most MPI share */
        int *o = malloc(sizeof(int) * (size_t)P);
        double *s = malloc(sizeof(double) * (size_t)P);
        for (int r = 0; o && s && r < P; r++) {
            const uint64_t *w = all + r * stride;
            s[r] = w[W_WALL] ? (double)w[W_MPI] / (double)w[W_WALL] : 0;
            int j = r;
            while (j > 0 && s[o[j - 1]] > s[r]) o[j] = o[j - 1], j--;
            o[j] = r;
        }
        if (o && s) {
            print_rank(all + o[0] * stride, o[0], " least");
            print_rank(all + o[P / 2] * stride, o[P / 2], " median");
            print_rank(all + o[P - 1] * stride, o[P - 1], " most");
        }
        free(o);
        free(s);
    }
    int order[PROF_NFUNC], n = 0;
    for (int i = 0; i < PROF_NFUNC; i++)
        if (calls[i] && !skipped(i)) order[n++] = i;
    qsort_r(order, (size_t)n, sizeof *order, by_time_desc, (void *)ns);
    fprintf(stderr, "top calls by time, all ranks:\n  %-24s %10s %10s %10s %6s %10s %10s\n", "call", "calls",
            "time s", "max rank s", "MPI %", "bytes", "avg bytes");
    const char *top_env = getenv("DMPI_PROFILE_TOP");
    int top = top_env && *top_env ? atoi(top_env) : 10;
    if (top <= 0) top = n; /* 0: every function called */
    for (int j = 0; j < n && j < top; j++) {
        int i = order[j];
        char b[32], a[32];
        human(b, sizeof b, (double)bytes[i]);
        human(a, sizeof a, (double)bytes[i] / (double)calls[i]);
        any_sampled |= sampled[i] != 0;
        fprintf(stderr, "  %-24s %10llu %9.3f%c %10.3f %6.1f %10s %10s\n", prof_names[i],
                (unsigned long long)calls[i], (double)ns[i] / 1e9, sampled[i] ? '~' : ' ', (double)max[i] / 1e9,
                mpi > 0 ? 100 * (double)ns[i] / mpi : 0, bytes[i] ? b : "-", bytes[i] ? a : "-");
    }
    if (n > top) fprintf(stderr, "  (%d more functions called; DMPI_PROFILE_TOP=0 lists all)\n", n - top);
    if (any_sampled) fprintf(stderr, "  (~: frequent short calls, timed one in %d at random and scaled)\n", PROF_SAMPLE_ONE_IN);
    fprintf(stderr, "message sizes: p2p messages sent, collective calls by the bytes the rank sends:\n"
                    "  %-15s %12s %12s\n", "size", "p2p", "coll");
    for (int b = 0; b < PROF_NBUCKET; b++)
        if (hist[b] || hist[PROF_NBUCKET + b])
            fprintf(stderr, "  %-15s %12llu %12llu\n", bucket_name(b), (unsigned long long)hist[b],
                    (unsigned long long)hist[PROF_NBUCKET + b]);
    fprintf(stderr, "traffic sent, all ranks:");
    for (int k = 0; k < PROF_NKIND; k++) {
        uint64_t m = 0, by = 0;
        for (int r = 0; r < P; r++)
            for (int p = 0; p < P; p++) {
                const uint64_t *e = all + r * stride + W_HEAD + ((size_t)k * P + p) * 2;
                m += e[0];
                by += e[1];
            }
        char b[32];
        human(b, sizeof b, (double)by);
        fprintf(stderr, "%s %s %llu messages %s", k ? ";" : "", kind_name[k], (unsigned long long)m, b);
    }
    fprintf(stderr, "\n");
}

PROF_EXPORT int MPI_Finalize(void)
{
    prof_t_fin = prof_now();
    prof_pause_end(prof_t_fin);
    const char *on = getenv("DMPI_PROFILE");
    int P = prof_g.nranks, me = 0;
    if (P == 0 || (on && !strcmp(on, "0"))) return PMPI_Finalize();
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    double tick = prof_ns_per_tick();
    /* the merged counters, 62 kB: on the heap, not on the caller's stack */
    struct prof_thr *m = aligned_alloc(64, (sizeof *m + 63) / 64 * 64);
    if (m) prof_merge(m);
    size_t nsum = 4 * PROF_NFUNC + 2 * PROF_NBUCKET, stride = W_HEAD + 6 * (size_t)P;
    uint64_t *mine = calloc(nsum + stride, sizeof *mine);
    uint64_t *sum = calloc(2 * nsum, sizeof *sum), *all = me == 0 ? calloc(stride * (size_t)P, sizeof *all) : NULL;
    int ok = m && m->mat && mine && sum && (me != 0 || all), okall = 0;
    if (ok) {
        uint64_t *row = mine + nsum;
        for (int i = 0; i < PROF_NFUNC; i++) {
            uint64_t ns = (uint64_t)((double)m->tm[i].ticks * tick);
            mine[i] = m->fn[i].calls;
            mine[PROF_NFUNC + i] = ns;
            mine[2 * PROF_NFUNC + i] = m->fn[i].bytes;
            if (skipped(i)) continue;
            row[W_MPI] += ns;
            if (ns > row[W_TOPNS]) row[W_TOPNS] = ns, row[W_TOP] = (uint64_t)i;
        }
        memcpy(mine + 3 * PROF_NFUNC, m->hist, sizeof m->hist);
        for (int i = 0; i < PROF_NFUNC; i++) mine[3 * PROF_NFUNC + 2 * PROF_NBUCKET + i] = m->tm[i].sampled;
        row[W_WALL] = (uint64_t)((double)(prof_t_fin - prof_t_init - prof_paused_ticks) * tick);
        memcpy(row + W_HEAD, m->mat, 6 * (size_t)P * sizeof *row);
    }
    int in[2] = {ok, !prof_pcontrol_used}, out[2] = {0, 0}, pcontrol;
    PMPI_Allreduce(in, out, 2, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    okall = out[0], pcontrol = !out[1];
    if (okall) {
        PMPI_Reduce(mine, sum, (int)nsum, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        PMPI_Reduce(mine + PROF_NFUNC, sum + nsum, PROF_NFUNC, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        PMPI_Gather(mine + nsum, (int)stride, MPI_UINT64_T, all, (int)stride, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (me == 0) {
            report(sum, sum + nsum, all, P, pcontrol);
            write_csv(all, P);
        }
    } else if (me == 0) {
        fprintf(stderr, "dmpi profile: out of memory at MPI_Finalize: no report\n");
    }
    free(mine);
    free(sum);
    free(all);
    if (m) free(m->mat);
    free(m);
    return PMPI_Finalize();
}
