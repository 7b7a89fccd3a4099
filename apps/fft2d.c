/* fft2d.c: application benchmark: distributed 2-D complex FFT of an N x N
 * matrix split into N/P whole rows per rank.  A 2-D transform is: 1-D FFTs
 * of the local rows (FFTW), a global transpose, 1-D FFTs of the rows again
 * (the former columns), and a transpose back to the natural layout.
 * The transpose exchanges one (N/P) x (N/P) block with every rank, in one of
 * two variants:
 *   alltoall  MPI_Alltoall of the packed blocks;
 *   p2p       MPI_Irecv from every rank, MPI_Isend to every rank, MPI_Waitall.
 * Each timed iteration is a forward and an inverse transform (four
 * transposes).  Checks: the forward result against a one-rank 2-D FFTW
 * transform of the whole matrix on rank 0, and the round trip (inverse of
 * the forward, divided by N^2) against the input.
 *
 * Reports the application time and the time in the transposes (communication
 * with packing) separately; figure of merit GFLOP/s counted as
 * 2 x 5 N^2 log2(N^2) per iteration (forward + inverse). */
#define _POSIX_C_SOURCE 200809L
#include "app_common.h"
#include <fftw3.h> /* before complex.h: fftw_complex stays double[2] */
#include <complex.h>
#include <math.h>

#define APP "fft2d"

static void usage(void)
{
    printf("usage: fft2d [options]\n"
           "  -n, --size N          matrix is N x N complex doubles (default 1024);\n"
           "                        N must divide by the number of ranks\n"
           "  -i, --iters I         forward+inverse transforms timed (default 10)\n"
           "  -t, --transpose MODE  alltoall (default) or p2p (Isend/Irecv/Waitall)\n"
           "      --no-check        skip the comparison with one-rank FFTW\n");
}

static int n, m, nranks, rank, use_p2p;
static double t_mpi; /* time inside the MPI calls of the transposes */
static fftw_complex *sbuf, *rbuf;

/* Input element (i, j), the same on every decomposition. */
static double complex input(long i, long j)
{
    unsigned long long h = (unsigned long long)(i * 1000003L + j) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (double)(h & 0xFFFF) / 65536.0 - 0.5 + I * ((double)((h >> 16) & 0xFFFF) / 65536.0 - 0.5);
}

/* a (m x n, local rows) -> its transpose's local rows, in place via sbuf/rbuf. */
static void transpose(fftw_complex *a, double *comm)
{
    double t0 = MPI_Wtime();
    /* block for rank p: columns p*m .. p*m+m-1 of the local rows */
    for (int p = 0; p < nranks; p++)
        for (int i = 0; i < m; i++)
            memcpy(sbuf[((size_t)p * m + i) * m], a[(size_t)i * n + (size_t)p * m], m * sizeof(fftw_complex));
    int cnt = 2 * m * m; /* complex numbers as pairs of doubles */
    double t1 = MPI_Wtime();
    if (!use_p2p) {
        MPI_Alltoall(sbuf, cnt, MPI_DOUBLE, rbuf, cnt, MPI_DOUBLE, MPI_COMM_WORLD);
    } else {
        MPI_Request *req = malloc(2 * (size_t)nranks * sizeof(MPI_Request));
        for (int k = 0; k < nranks; k++) {
            int p = (rank + k) % nranks; /* start with the nearest partners */
            MPI_Irecv(rbuf[(size_t)p * m * m], cnt, MPI_DOUBLE, p, 7, MPI_COMM_WORLD, &req[k]);
        }
        for (int k = 0; k < nranks; k++) {
            int p = (rank - k + nranks) % nranks;
            MPI_Isend(sbuf[(size_t)p * m * m], cnt, MPI_DOUBLE, p, 7, MPI_COMM_WORLD, &req[nranks + k]);
        }
        MPI_Waitall(2 * nranks, req, MPI_STATUSES_IGNORE);
        free(req);
    }
    t_mpi += MPI_Wtime() - t1;
    /* rbuf block q holds (q*m+i, rank*m+j) for i, j < m: element (j, q*m+i) of the
     * transpose; in TILE x TILE tiles so that reads and writes both stay in cache */
    enum { TILE = 16 };
    for (int q = 0; q < nranks; q++)
        for (int i0 = 0; i0 < m; i0 += TILE)
            for (int j0 = 0; j0 < m; j0 += TILE)
                for (int j = j0; j < j0 + TILE && j < m; j++)
                    for (int i = i0; i < i0 + TILE && i < m; i++) {
                        const double *s = rbuf[((size_t)q * m + i) * m + j];
                        double *d = a[(size_t)j * n + (size_t)q * m + i];
                        d[0] = s[0], d[1] = s[1];
                    }
    *comm += MPI_Wtime() - t0;
}

static void fft2d(fftw_plan rows, fftw_complex *a, double *comm)
{
    fftw_execute_dft(rows, a, a);
    transpose(a, comm);
    fftw_execute_dft(rows, a, a);
    transpose(a, comm);
}

int main(int argc, char **argv)
{
    int iters = 10, check = 1;
    n = 1024;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        }
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0); /* mpiexec --profile: profile only the timed part (docs/profile.md) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-n") || !strcmp(a, "--size"))
            n = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-i") || !strcmp(a, "--iters"))
            iters = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-t") || !strcmp(a, "--transpose")) {
            const char *v = app_arg(APP, argc, argv, &i);
            if (strcmp(v, "alltoall") && strcmp(v, "p2p"))
                app_refuse(APP, "--transpose wants alltoall or p2p, got '%s'", v);
            use_p2p = !strcmp(v, "p2p");
        } else if (!strcmp(a, "--no-check"))
            check = 0;
        else
            app_refuse(APP, "unknown option '%s' (see --help)", a);
    }
    if (n % nranks)
        app_refuse(APP, "-n %d does not divide among %d ranks (N must be a multiple of the rank count)", n, nranks);
    m = n / nranks;
    size_t local = (size_t)m * n;
    fftw_complex *a = fftw_alloc_complex(local), *orig = fftw_alloc_complex(local);
    sbuf = fftw_alloc_complex(local);
    rbuf = fftw_alloc_complex(local);
    if (!a || !orig || !sbuf || !rbuf)
        app_refuse(APP, "out of memory for %d x %d local rows", m, n);
    /* m transforms of length n over contiguous rows; forward and backward */
    fftw_plan fwd = fftw_plan_many_dft(1, &n, m, a, NULL, 1, n, a, NULL, 1, n, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_many_dft(1, &n, m, a, NULL, 1, n, a, NULL, 1, n, FFTW_BACKWARD, FFTW_ESTIMATE);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double complex v = input((long)rank * m + i, j);
            orig[(size_t)i * n + j][0] = creal(v);
            orig[(size_t)i * n + j][1] = cimag(v);
        }

    int ok = 1;
    double comm_dummy = 0;
    if (check) { /* forward once, compare with FFTW on the whole matrix */
        memcpy(a, orig, local * sizeof(fftw_complex));
        fft2d(fwd, a, &comm_dummy);
        fftw_complex *all = NULL;
        if (rank == 0)
            all = fftw_alloc_complex((size_t)n * n);
        MPI_Gather(a, (int)(2 * local), MPI_DOUBLE, all, (int)(2 * local), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            fftw_complex *ref = fftw_alloc_complex((size_t)n * n);
            fftw_plan p = fftw_plan_dft_2d(n, n, ref, ref, FFTW_FORWARD, FFTW_ESTIMATE);
            for (long i = 0; i < n; i++)
                for (long j = 0; j < n; j++) {
                    double complex v = input(i, j);
                    ref[i * n + j][0] = creal(v), ref[i * n + j][1] = cimag(v);
                }
            fftw_execute(p);
            double err = 0, mag = 0;
            for (size_t k = 0; k < (size_t)n * n; k++) {
                err = fmax(err, cabs((all[k][0] - ref[k][0]) + I * (all[k][1] - ref[k][1])));
                mag = fmax(mag, cabs(ref[k][0] + I * ref[k][1]));
            }
            double rel = err / (mag > 0 ? mag : 1), tol = 1e-14 * log2((double)n * n) * 10;
            if (rel > tol) {
                ok = 0;
                fprintf(stderr, "fft2d: forward transform differs from one-rank FFTW: relative error %.3g > %.3g\n",
                        rel, tol);
            }
            fftw_destroy_plan(p);
            fftw_free(ref);
            fftw_free(all);
        }
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    /* warm-up (connections, caches): one untimed forward + inverse */
    fft2d(fwd, a, &comm_dummy);
    fft2d(bwd, a, &comm_dummy);
    /* timed: forward + inverse, iters times */
    memcpy(a, orig, local * sizeof(fftw_complex));
    double comm = 0;
    t_mpi = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        fft2d(fwd, a, &comm);
        fft2d(bwd, a, &comm);
        double scale = 1.0 / ((double)n * n);
        for (size_t k = 0; k < local; k++)
            a[k][0] *= scale, a[k][1] *= scale;
    }
    double t = MPI_Wtime() - t0, in[3] = {t, comm, t_mpi}, out[3];
    MPI_Pcontrol(0);
    MPI_Reduce(in, out, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    if (check) { /* round trip: back to the input */
        double err = 0, gerr;
        for (size_t k = 0; k < local; k++)
            err = fmax(err, fabs(a[k][0] - orig[k][0]) + fabs(a[k][1] - orig[k][1]));
        MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (gerr > 1e-12 * iters * log2((double)n)) {
            ok = 0;
            if (rank == 0)
                fprintf(stderr, "fft2d: forward+inverse round trip error %.3g\n", gerr);
        }
    }
    double gflops = iters * 2 * 5.0 * n * n * log2((double)n * n) / out[0] / 1e9;
    if (rank == 0)
        printf("fft2d: %d x %d, %d ranks, %s transpose, %d forward+inverse: %.4f s (%.4f s in transposes, "
               "%.0f %%, of which %.4f s in MPI calls), %.3f GFLOP/s\n",
               n, n, nranks, use_p2p ? "p2p" : "alltoall", iters, out[0], out[1], 100 * out[1] / out[0], out[2],
               gflops);
    app_result(use_p2p ? "fft2d-p2p" : "fft2d-alltoall", nranks, 1, ok, out[0], gflops, "GFLOP/s");
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(a), fftw_free(orig), fftw_free(sbuf), fftw_free(rbuf);
    MPI_Finalize();
    return ok ? 0 : 1;
}
