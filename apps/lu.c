/* lu.c: application benchmark: dense LU factorisation (right-looking, no
 * pivoting, of a diagonally dominant matrix) of an N x N matrix in B x B
 * blocks distributed block-cyclically over a Pr x Pc process grid, all data
 * movement by MPI one-sided operations in one passive-target epoch
 * (MPI_Win_lock_all on two windows: the local blocks, and a B x B slot for
 * the diagonal block).  Step k:
 *   1. the owner of block (k,k) factors it and MPI_Puts it into the slot of
 *      every rank of its process row and column (flush, barrier);
 *   2. those ranks solve their panel blocks: L(i,k) = A(i,k) U(k,k)^-1 below,
 *      U(k,j) = L(k,k)^-1 A(k,j) to the right (BLAS dtrsm; win_sync, barrier);
 *   3. every rank MPI_Gets the L(i,k) and U(k,j) its trailing blocks need
 *      from their owners (flush) and updates A(i,j) -= L(i,k) U(k,j) (dgemm).
 * Blocks are stored column-major (BLAS layout).  The check gathers the
 * factors on rank 0 by MPI_Get and computes the scaled residual
 * ||A - LU||_inf / (||A||_inf N eps), which must be below 16 (as HPL).
 * Figure of merit: GFLOP/s = (2/3) N^3 / time / 1e9. */
#define _POSIX_C_SOURCE 200809L
#include "app_common.h"
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

#define APP "lu"

static void usage(void)
{
    printf("usage: lu [options]\n"
           "  -n, --size N          matrix order (default 1024); a multiple of B\n"
           "  -b, --block B         block order (default 64)\n"
           "  -g, --grid PRxPC      process grid (default: the squarest, PR <= PC);\n"
           "                        N/B must be at least PR and PC\n"
           "      --no-check        skip the residual check (which needs N^2 doubles on rank 0)\n");
}

/* OpenBLAS's own call, when the BLAS is OpenBLAS: ranks already fill the cores */
extern void openblas_set_num_threads(int) __attribute__((weak));

static int n, bs, nb, pr, pc, myr, myc, nlc_mine;
static MPI_Win wa, wd;
static double *mat, *diag;

static int nlocal(int nblocks, int p, int c) { return (nblocks - c + p - 1) / p; }
static int owner(int bi, int bj) { return (bi % pr) * pc + bj % pc; }

/* offset (doubles) of global block (bi, bj) in its owner's window */
static MPI_Aint offset(int bi, int bj)
{
    return ((MPI_Aint)(bi / pr) * nlocal(nb, pc, bj % pc) + bj / pc) * bs * bs;
}

static double *mine(int bi, int bj) { return mat + offset(bi, bj); }

/* A(i, j): uniform in [-0.5, 0.5) plus N on the diagonal */
static double element(long i, long j)
{
    uint64_t h = (uint64_t)(i * 2654435761L + j * 40503L + 17) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 33;
    h *= 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (double)(h >> 11) / 9007199254740992.0 - 0.5 + (i == j ? n : 0);
}

/* unblocked LU in place of a column-major B x B block, unit lower L */
static void factor_block(double *a)
{
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            double l = a[i + k * bs] /= a[k + k * bs];
            for (int j = k + 1; j < bs; j++)
                a[i + j * bs] -= l * a[k + j * bs];
        }
}

/* block (bi, bj) into buf: local blocks by pointer, remote by MPI_Get */
static double *fetch(int bi, int bj, double *buf)
{
    int o = owner(bi, bj);
    if (o == myr * pc + myc)
        return mine(bi, bj);
    MPI_Get(buf, bs * bs, MPI_DOUBLE, o, offset(bi, bj), bs * bs, MPI_DOUBLE, wa);
    return buf;
}

int main(int argc, char **argv)
{
    int check = 1, rank, size;
    n = 1024, bs = 64, pr = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        }
    if (openblas_set_num_threads && !getenv("OPENBLAS_NUM_THREADS"))
        openblas_set_num_threads(1); /* one BLAS thread per rank unless asked */
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0); /* mpiexec --profile: profile only the timed part (docs/profile.md) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-n") || !strcmp(a, "--size"))
            n = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-b") || !strcmp(a, "--block"))
            bs = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-g") || !strcmp(a, "--grid")) {
            const char *v = app_arg(APP, argc, argv, &i);
            if (sscanf(v, "%dx%d", &pr, &pc) != 2 || pr <= 0 || pc <= 0)
                app_refuse(APP, "--grid wants PRxPC, got '%s'", v);
        } else if (!strcmp(a, "--no-check"))
            check = 0;
        else
            app_refuse(APP, "unknown option '%s' (see --help)", a);
    }
    if (pr == 0) {
        for (pr = 1; (pr + 1) * (pr + 1) <= size; pr++)
            ;
        while (size % pr)
            pr--;
        pc = size / pr;
    }
    if (pr * pc != size)
        app_refuse(APP, "--grid %dx%d needs %d ranks, the job has %d", pr, pc, pr * pc, size);
    if (n % bs)
        app_refuse(APP, "-n %d is not a multiple of the block order -b %d", n, bs);
    nb = n / bs;
    if (nb < pr || nb < pc)
        app_refuse(APP, "-n %d / -b %d = %d blocks per dimension cannot spread over a %dx%d process grid "
                   "(every rank needs a block)", n, bs, nb, pr, pc);
    myr = rank / pc, myc = rank % pc;
    int nlr = nlocal(nb, pr, myr);
    nlc_mine = nlocal(nb, pc, myc);
    size_t bb = (size_t)bs * bs, nloc = (size_t)nlr * nlc_mine * bb;
    MPI_Win_allocate((MPI_Aint)(nloc * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mat, &wa);
    MPI_Win_allocate((MPI_Aint)(bb * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &diag, &wd);
    double *lbuf = malloc(nlr * bb * sizeof(double)), *ubuf = malloc(nlc_mine * bb * sizeof(double));
    double **lp = malloc(nlr * sizeof(double *)), **up = malloc(nlc_mine * sizeof(double *));
    if (!lbuf || !ubuf || !lp || !up)
        app_refuse(APP, "out of memory for the panel buffers");

    for (int li = 0; li < nlr; li++)
        for (int lj = 0; lj < nlc_mine; lj++) {
            int bi = li * pr + myr, bj = lj * pc + myc;
            double *blk = mine(bi, bj);
            for (int c = 0; c < bs; c++)
                for (int r = 0; r < bs; r++)
                    blk[r + c * bs] = element((long)bi * bs + r, (long)bj * bs + c);
        }

    MPI_Win_lock_all(0, wa);
    MPI_Win_lock_all(0, wd);
    double warm[2]; /* warm-up, untimed: one Get from each rank's windows */
    for (int r = 0; r < size; r++) {
        MPI_Get(&warm[0], 1, MPI_DOUBLE, r, 0, 1, MPI_DOUBLE, wa);
        MPI_Get(&warm[1], 1, MPI_DOUBLE, r, 0, 1, MPI_DOUBLE, wd);
        MPI_Win_flush(r, wa);
        MPI_Win_flush(r, wd);
    }
    MPI_Win_sync(wa);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    double t0 = MPI_Wtime(), t_comm = 0;
    for (int k = 0; k < nb; k++) {
        int kr = k % pr, kc = k % pc;
        double tc = MPI_Wtime();
        /* 1. factor the diagonal block, put it to its process row and column */
        if (myr == kr && myc == kc) {
            double *d = mine(k, k);
            factor_block(d);
            for (int r = 0; r < size; r++)
                if (r / pc == kr || r % pc == kc)
                    MPI_Put(d, (int)bb, MPI_DOUBLE, r, 0, (int)bb, MPI_DOUBLE, wd);
            MPI_Win_flush_all(wd);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(wd);
        t_comm += MPI_Wtime() - tc;
        /* 2. panels: column k below the diagonal, row k right of it */
        if (myc == kc)
            for (int bi = k + 1; bi < nb; bi++)
                if (bi % pr == myr)
                    cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, bs, bs, 1.0,
                                diag, bs, mine(bi, k), bs);
        if (myr == kr)
            for (int bj = k + 1; bj < nb; bj++)
                if (bj % pc == myc)
                    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, bs, bs, 1.0, diag,
                                bs, mine(k, bj), bs);
        tc = MPI_Wtime();
        MPI_Win_sync(wa);
        MPI_Barrier(MPI_COMM_WORLD);
        /* 3. fetch the L(i,k) and U(k,j) of my trailing blocks, update them */
        int have = 0;
        for (int li = 0; li < nlr; li++) {
            int bi = li * pr + myr;
            lp[li] = bi > k ? fetch(bi, k, lbuf + li * bb) : NULL;
            have |= bi > k;
        }
        for (int lj = 0; lj < nlc_mine; lj++) {
            int bj = lj * pc + myc;
            up[lj] = bj > k ? fetch(k, bj, ubuf + lj * bb) : NULL;
        }
        if (have)
            MPI_Win_flush_all(wa);
        t_comm += MPI_Wtime() - tc;
        for (int li = 0; li < nlr; li++)
            for (int lj = 0; lj < nlc_mine; lj++)
                if (lp[li] && up[lj])
                    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, bs, bs, bs, -1.0, lp[li], bs, up[lj],
                                bs, 1.0, mine(li * pr + myr, lj * pc + myc), bs);
    }
    MPI_Win_sync(wa);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, in[2] = {t, t_comm}, out[2];
    MPI_Pcontrol(0);
    MPI_Reduce(in, out, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (check && rank == 0) {
        size_t nn = (size_t)n * n;
        double *f = malloc(nn * sizeof(double)), *l = calloc(nn, sizeof(double)), *u = calloc(nn, sizeof(double));
        double *blk = malloc(bb * sizeof(double));
        if (!f || !l || !u || !blk) {
            fprintf(stderr, "lu: out of memory for the check (N^2 doubles on rank 0; try --no-check)\n");
            ok = 0;
        } else {
            for (int bi = 0; bi < nb; bi++)
                for (int bj = 0; bj < nb; bj++) {
                    double *src = fetch(bi, bj, blk);
                    MPI_Win_flush_all(wa);
                    for (int c = 0; c < bs; c++)
                        memcpy(f + (size_t)(bj * bs + c) * n + (size_t)bi * bs, src + (size_t)c * bs,
                               bs * sizeof(double));
                }
            for (long j = 0; j < n; j++)
                for (long i = 0; i < n; i++) {
                    if (i > j)
                        l[i + j * n] = f[i + j * n];
                    else
                        u[i + j * n] = f[i + j * n];
                    if (i == j)
                        l[i + j * n] = 1.0;
                }
            for (long j = 0; j < n; j++) /* f = A */
                for (long i = 0; i < n; i++)
                    f[i + j * n] = element(i, j);
            double anorm = 0, rnorm = 0;
            for (long i = 0; i < n; i++) {
                double s = 0;
                for (long j = 0; j < n; j++)
                    s += fabs(f[i + j * n]);
                anorm = fmax(anorm, s);
            }
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1.0, l, n, u, n, 1.0, f, n);
            for (long i = 0; i < n; i++) {
                double s = 0;
                for (long j = 0; j < n; j++)
                    s += fabs(f[i + j * n]);
                rnorm = fmax(rnorm, s);
            }
            double resid = rnorm / (anorm * n * DBL_EPSILON);
            ok = resid < 16.0 && isfinite(resid);
            printf("lu: scaled residual ||A-LU||/(||A|| N eps) = %.4g (%s, limit 16)\n", resid,
                   ok ? "passed" : "FAILED");
            if (!ok)
                fprintf(stderr, "lu: scaled residual %.4g is not below 16\n", resid);
        }
        free(f), free(l), free(u), free(blk);
    }
    MPI_Win_unlock_all(wd);
    MPI_Win_unlock_all(wa);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double gflops = 2.0 / 3.0 * (double)n * n * n / out[0] / 1e9;
    if (rank == 0)
        printf("lu: N %d, B %d, %dx%d process grid: %.4f s (%.4f s in one-sided transfers and their "
               "synchronisation), %.3f GFLOP/s\n", n, bs, pr, pc, out[0], out[1], gflops);
    app_result("lu", size, 1, ok, out[0], gflops, "GFLOP/s");
    MPI_Win_free(&wd);
    MPI_Win_free(&wa);
    free(lbuf), free(ubuf), free(lp), free(up);
    MPI_Finalize();
    return ok ? 0 : 1;
}
