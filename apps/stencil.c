/* stencil.c: application benchmark: 2-D (5-point) or 3-D (7-point) Jacobi
 * heat diffusion on an N^d grid with fixed boundary values, split into equal
 * blocks over a process grid, with OpenMP threads inside each rank.
 *
 * Every iteration posts the halo exchange (nonblocking, or persistent
 * requests with --persistent), updates the interior points that need no
 * halo while the messages travel, waits, and updates the shell of the block.
 * Two threading models:
 *   funneled  (MPI_THREAD_FUNNELED): the master thread posts and completes
 *             the messages, all threads update the interior and the shell;
 *   multiple  (MPI_THREAD_MULTIPLE): each thread packs, posts, waits for and
 *             unpacks its own faces, and updates its share of the interior.
 * After the timed loop the same halo exchange runs alone, without compute:
 * the share of that time which the overlapped loop did not spend waiting is
 * reported as the fraction of communication hidden behind compute.
 * The check gathers the grid on rank 0 and compares it bit for bit with the
 * same iterations run on the whole grid by one rank (the arithmetic of each
 * point is the same expression whatever the decomposition).
 *
 * One halo exchange without compute runs first, untimed (connections).
 * Figure of merit: Gpoints/s = N^d * iterations / time / 1e9. */
#define _POSIX_C_SOURCE 200809L
#include "app_common.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define APP "stencil"
#define ALPHA 0.1 /* diffusion number: stable for <= 1/(2d) */

static void usage(void)
{
    printf("usage: stencil [options]\n"
           "  -d, --dim 2|3         dimensions (default 3)\n"
           "  -n, --size N          grid points per dimension (default 3-D 64, 2-D 512);\n"
           "                        must divide by the process grid along every axis\n"
           "  -i, --iters I         iterations (default 50)\n"
           "  -g, --grid AxB[xC]    process grid (default: the most cubic factorisation)\n"
           "  -t, --threads MODE    funneled (default) or multiple\n"
           "  -p, --persistent      persistent halo requests (MPI_Send_init/Recv_init)\n"
           "      --no-check        skip the comparison with a one-rank run\n"
           "OpenMP threads: OMP_NUM_THREADS (default 1 per rank).\n");
}

/* One rank's block: owned points len[a] per axis, a halo of h[a] (1 on the
 * axes in use, 0 on the unused third axis of a 2-D run). */
struct block {
    int dim, n, pdim[3], coord[3], lo[3], len[3], h[3];
    int nbr[6];        /* rank across face 2*axis+side, MPI_PROC_NULL at the edge */
    size_t stride[3];  /* index steps of the padded array */
    size_t cells;
    double *u, *unew;
    double *sbuf[6], *rbuf[6];
    size_t flen[6];    /* points in face f */
};

static size_t idx(const struct block *b, int i, int j, int k)
{
    return (size_t)(i + b->h[0]) * b->stride[0] + (size_t)(j + b->h[1]) * b->stride[1] +
           (size_t)(k + b->h[2]);
}

/* Fixed boundary (outside the domain) and the initial field, by global index. */
static double boundary_value(int gx, int gy, int gz, int n)
{
    (void)gy;
    if (gx < 0)
        return 1.0;
    if (gz >= n)
        return 0.25;
    return 0.0;
}

static double initial_value(int gx, int gy, int gz, int n)
{
    double h = 1.0 / (n + 1);
    return 0.5 * sin(3.0 * (gx + 1) * h) * sin(5.0 * (gy + 1) * h) + 0.1 * cos(7.0 * (gz + 1) * h);
}

/* Factor p into d factors with the smallest sum, larger first. */
static void default_grid(int p, int d, int g[3])
{
    int best = -1;
    g[0] = p, g[1] = 1, g[2] = 1;
    for (int a = p; a >= 1; a--) {
        if (p % a)
            continue;
        for (int b = (d == 3 ? a : 1); b >= 1; b--) {
            if ((p / a) % b)
                continue;
            int c = p / a / b;
            if (d == 2 && (b != 1 || c > a))
                continue;
            if (d == 3 && c > b)
                continue;
            int s = a + b + c;
            if (best < 0 || s < best) {
                best = s;
                g[0] = a;
                g[1] = d == 3 ? b : c;
                g[2] = d == 3 ? c : 1;
            }
        }
    }
}

static int rank_at(const int pdim[3], const int c[3])
{
    return (c[0] * pdim[1] + c[1]) * pdim[2] + c[2];
}

static void block_init(struct block *b, int dim, int n, const int pdim[3], int rank)
{
    memset(b, 0, sizeof *b);
    b->dim = dim, b->n = n;
    memcpy(b->pdim, pdim, sizeof b->pdim);
    b->coord[2] = rank % pdim[2];
    b->coord[1] = rank / pdim[2] % pdim[1];
    b->coord[0] = rank / pdim[2] / pdim[1];
    for (int a = 0; a < 3; a++) {
        int used = a < dim;
        b->len[a] = used ? n / pdim[a] : 1;
        b->lo[a] = used ? b->coord[a] * b->len[a] : 0;
        b->h[a] = used;
        for (int s = 0; s < 2; s++) {
            int c[3] = {b->coord[0], b->coord[1], b->coord[2]};
            c[a] += s ? 1 : -1;
            b->nbr[2 * a + s] = used && c[a] >= 0 && c[a] < pdim[a] ? rank_at(pdim, c) : MPI_PROC_NULL;
        }
    }
    b->stride[2] = 1;
    b->stride[1] = (size_t)(b->len[2] + 2 * b->h[2]);
    b->stride[0] = b->stride[1] * (size_t)(b->len[1] + 2 * b->h[1]);
    b->cells = b->stride[0] * (size_t)(b->len[0] + 2 * b->h[0]);
    b->u = calloc(b->cells, sizeof(double));
    b->unew = calloc(b->cells, sizeof(double));
    for (int f = 0; f < 6; f++) {
        int a = f / 2;
        b->flen[f] = (size_t)b->len[0] * b->len[1] * b->len[2] / b->len[a];
        b->sbuf[f] = malloc(b->flen[f] * sizeof(double));
        b->rbuf[f] = malloc(b->flen[f] * sizeof(double));
    }
    if (!b->u || !b->unew)
        app_refuse(APP, "out of memory for a %d^%d block", b->len[0], dim);
    /* every padded point: initial value inside, boundary value outside */
    int h0 = b->h[0], h1 = b->h[1], h2 = b->h[2];
    for (int i = -h0; i < b->len[0] + h0; i++)
        for (int j = -h1; j < b->len[1] + h1; j++)
            for (int k = -h2; k < b->len[2] + h2; k++) {
                int g[3] = {b->lo[0] + i, b->lo[1] + j, b->lo[2] + k};
                int out = 0;
                for (int a = 0; a < dim; a++)
                    out |= g[a] < 0 || g[a] >= n;
                double v = out ? boundary_value(g[0], g[1], g[2], n) : initial_value(g[0], g[1], g[2], n);
                b->u[idx(b, i, j, k)] = b->unew[idx(b, i, j, k)] = v;
            }
}

static void block_free(struct block *b)
{
    free(b->u), free(b->unew);
    for (int f = 0; f < 6; f++)
        free(b->sbuf[f]), free(b->rbuf[f]);
}

/* Index range of face f: owned layer (pack) or halo layer (unpack). */
static void face_range(const struct block *b, int f, int halo, int lo[3], int hi[3])
{
    int a = f / 2, s = f % 2;
    for (int x = 0; x < 3; x++)
        lo[x] = 0, hi[x] = b->len[x];
    lo[a] = s ? (halo ? b->len[a] : b->len[a] - 1) : (halo ? -1 : 0);
    hi[a] = lo[a] + 1;
}

static void pack(struct block *b, int f)
{
    int lo[3], hi[3];
    size_t m = 0;
    face_range(b, f, 0, lo, hi);
    for (int i = lo[0]; i < hi[0]; i++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int k = lo[2]; k < hi[2]; k++)
                b->sbuf[f][m++] = b->u[idx(b, i, j, k)];
}

static void unpack(struct block *b, int f)
{
    int lo[3], hi[3];
    size_t m = 0;
    face_range(b, f, 1, lo, hi);
    for (int i = lo[0]; i < hi[0]; i++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int k = lo[2]; k < hi[2]; k++)
                b->u[idx(b, i, j, k)] = b->rbuf[f][m++];
}

/* New value of one point: the same expression on every decomposition. */
static inline double point(const struct block *b, size_t c)
{
    const double *u = b->u;
    double s = u[c - b->stride[0]] + u[c + b->stride[0]] + u[c - b->stride[1]] + u[c + b->stride[1]];
    if (b->dim == 3)
        return u[c] + ALPHA * (s + u[c - 1] + u[c + 1] - 6.0 * u[c]);
    return u[c] + ALPHA * (s - 4.0 * u[c]);
}

/* Is (i, j, k) on the shell, i.e. next to a halo on some axis in use? */
static int on_shell(const struct block *b, int i, int j, int k)
{
    int c[3] = {i, j, k};
    for (int a = 0; a < b->dim; a++)
        if (c[a] == 0 || c[a] == b->len[a] - 1)
            return 1;
    return 0;
}

/* Interior update, rows i (outermost axis) shared out among the threads. */
static void update_interior(struct block *b)
{
    int klo = b->dim == 3 ? 1 : 0, khi = b->dim == 3 ? b->len[2] - 1 : 1;
#pragma omp for schedule(static)
    for (int i = 1; i < b->len[0] - 1; i++)
        for (int j = 1; j < b->len[1] - 1; j++)
            for (int k = klo; k < khi; k++) {
                size_t c = idx(b, i, j, k);
                b->unew[c] = point(b, c);
            }
}

static void update_shell(struct block *b)
{
#pragma omp for schedule(static)
    for (int i = 0; i < b->len[0]; i++)
        for (int j = 0; j < b->len[1]; j++)
            for (int k = 0; k < b->len[2]; k++) {
                if (!(i == 0 || i == b->len[0] - 1 || on_shell(b, i, j, k)))
                    continue;
                size_t c = idx(b, i, j, k);
                b->unew[c] = point(b, c);
            }
}

struct halo {
    MPI_Request req[12]; /* recv f at 2f, send f at 2f+1 */
    int persistent;
};

static void halo_init(struct block *b, struct halo *x, int persistent)
{
    x->persistent = persistent;
    for (int f = 0; f < 12; f++)
        x->req[f] = MPI_REQUEST_NULL;
    if (!persistent)
        return;
    for (int f = 0; f < 2 * b->dim; f++) {
        /* the message across face f travels with tag f of the sender */
        MPI_Recv_init(b->rbuf[f], (int)b->flen[f], MPI_DOUBLE, b->nbr[f], f ^ 1, MPI_COMM_WORLD, &x->req[2 * f]);
        MPI_Send_init(b->sbuf[f], (int)b->flen[f], MPI_DOUBLE, b->nbr[f], f, MPI_COMM_WORLD, &x->req[2 * f + 1]);
    }
}

/* Post face f's receive and send (pack first). */
static void face_post(struct block *b, struct halo *x, int f)
{
    if (b->nbr[f] == MPI_PROC_NULL)
        return;
    pack(b, f);
    if (x->persistent) {
        MPI_Startall(2, &x->req[2 * f]);
        return;
    }
    MPI_Irecv(b->rbuf[f], (int)b->flen[f], MPI_DOUBLE, b->nbr[f], f ^ 1, MPI_COMM_WORLD, &x->req[2 * f]);
    MPI_Isend(b->sbuf[f], (int)b->flen[f], MPI_DOUBLE, b->nbr[f], f, MPI_COMM_WORLD, &x->req[2 * f + 1]);
}

static void face_finish(struct block *b, struct halo *x, int f)
{
    if (b->nbr[f] == MPI_PROC_NULL)
        return;
    MPI_Waitall(2, &x->req[2 * f], MPI_STATUSES_IGNORE);
    unpack(b, f);
}

static void halo_free(struct halo *x)
{
    for (int f = 0; f < 12; f++)
        if (x->persistent && x->req[f] != MPI_REQUEST_NULL)
            MPI_Request_free(&x->req[f]);
}

static int nthreads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* `iters` iterations; `compute`=0 runs the halo exchange alone.  Adds the
 * time spent waiting for messages (master thread / thread 0) to *wait. */
static double t_compute; /* time in the updates (master thread / thread 0) */

static void run(struct block *b, struct halo *x, int iters, int multiple, int compute, double *wait)
{
    int nf = 2 * b->dim;
    for (int it = 0; it < iters; it++) {
        if (!multiple) {
            for (int f = 0; f < nf; f++)
                face_post(b, x, f);
            double t0 = MPI_Wtime();
#pragma omp parallel if (compute)
            {
                if (compute)
                    update_interior(b);
            }
            double t1 = MPI_Wtime();
            for (int f = 0; f < nf; f++)
                face_finish(b, x, f);
            double t2 = MPI_Wtime();
#pragma omp parallel if (compute)
            {
                if (compute)
                    update_shell(b);
            }
            *wait += t2 - t1;
            t_compute += (t1 - t0) + (MPI_Wtime() - t2);
        } else {
#pragma omp parallel
            {
                int t = thread_id(), nt = nthreads();
                for (int f = t % nt; f < nf; f += nt)
                    face_post(b, x, f);
                double t0 = MPI_Wtime();
                if (compute)
                    update_interior(b); /* implicit barrier at the end */
                double t1 = MPI_Wtime();
                for (int f = t % nt; f < nf; f += nt)
                    face_finish(b, x, f);
                double t2 = MPI_Wtime();
#pragma omp barrier
                double t3 = MPI_Wtime();
                if (compute)
                    update_shell(b);
                if (t == 0) {
                    *wait += t2 - t1;
                    t_compute += (t1 - t0) + (MPI_Wtime() - t3);
                }
            }
        }
        if (compute) {
            double *tmp = b->u;
            b->u = b->unew;
            b->unew = tmp;
        }
    }
}

int main(int argc, char **argv)
{
    int dim = 3, n = -1, iters = 50, multiple = 0, persistent = 0, check = 1, grid[3] = {0, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        }
    }
    int want = MPI_THREAD_FUNNELED;
    for (int i = 1; i < argc; i++)
        if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--threads")) && i + 1 < argc &&
            !strcmp(argv[i + 1], "multiple"))
            want = MPI_THREAD_MULTIPLE;
#ifdef _OPENMP
    if (!getenv("OMP_NUM_THREADS")) /* ranks already fill the cores: one thread unless asked */
        omp_set_num_threads(1);
#endif
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Pcontrol(0); /* mpiexec --profile: profile only the timed part (docs/profile.md) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-d") || !strcmp(a, "--dim")) {
            dim = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
            if (dim != 2 && dim != 3)
                app_refuse(APP, "--dim wants 2 or 3, got %d", dim);
        } else if (!strcmp(a, "-n") || !strcmp(a, "--size"))
            n = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-i") || !strcmp(a, "--iters"))
            iters = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-g") || !strcmp(a, "--grid")) {
            const char *v = app_arg(APP, argc, argv, &i);
            int k = sscanf(v, "%dx%dx%d", &grid[0], &grid[1], &grid[2]);
            if (k < 2 || grid[0] <= 0 || grid[1] <= 0 || (k == 3 && grid[2] <= 0))
                app_refuse(APP, "--grid wants AxB or AxBxC, got '%s'", v);
            if (k == 2)
                grid[2] = 1;
        } else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) {
            const char *v = app_arg(APP, argc, argv, &i);
            if (strcmp(v, "funneled") && strcmp(v, "multiple"))
                app_refuse(APP, "--threads wants funneled or multiple, got '%s'", v);
            multiple = !strcmp(v, "multiple");
        } else if (!strcmp(a, "-p") || !strcmp(a, "--persistent"))
            persistent = 1;
        else if (!strcmp(a, "--no-check"))
            check = 0;
        else
            app_refuse(APP, "unknown option '%s' (see --help)", a);
    }
    if (provided < want)
        app_refuse(APP, "--threads %s needs MPI_THREAD_%s, the library provides level %d",
                   multiple ? "multiple" : "funneled", multiple ? "MULTIPLE" : "FUNNELED", provided);
    if (n < 0)
        n = dim == 3 ? 64 : 512;
    if (grid[0] == 0)
        default_grid(size, dim, grid);
    else if (dim == 2 && grid[2] != 1)
        app_refuse(APP, "--grid %dx%dx%d has three axes but --dim is 2", grid[0], grid[1], grid[2]);
    if (grid[0] * grid[1] * grid[2] != size)
        app_refuse(APP, "--grid %dx%dx%d needs %d ranks, the job has %d", grid[0], grid[1], grid[2],
                   grid[0] * grid[1] * grid[2], size);
    for (int a = 0; a < dim; a++) {
        if (n % grid[a])
            app_refuse(APP, "-n %d does not divide among %d ranks along axis %c (process grid %dx%dx%d)",
                       n, grid[a], "xyz"[a], grid[0], grid[1], grid[2]);
        if (n / grid[a] < 3)
            app_refuse(APP, "-n %d leaves fewer than 3 points per rank along axis %c (process grid %dx%dx%d)",
                       n, "xyz"[a], grid[0], grid[1], grid[2]);
    }

    struct block b;
    struct halo x;
    block_init(&b, dim, n, grid, rank);
    halo_init(&b, &x, persistent);
    double wait = 0, wait_alone = 0;
    run(&b, &x, 1, multiple, 0, &wait); /* warm-up: one exchange (same halo values), untimed */
    wait = 0, t_compute = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    double t0 = MPI_Wtime();
    run(&b, &x, iters, multiple, 1, &wait);
    double t_loop = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    /* the halo exchange alone: what the loop would have waited without overlap */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    run(&b, &x, iters, multiple, 0, &wait_alone);
    double t_comm = MPI_Wtime() - t0, maxes[4] = {t_loop, t_comm, wait, t_compute}, g[4];
    MPI_Reduce(maxes, g, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double hidden = g[1] > 0 ? 1.0 - g[2] / g[1] : 1.0;
    hidden = hidden < 0 ? 0 : hidden > 1 ? 1 : hidden;

    /* check: gather the blocks on rank 0, compare with one rank's run */
    int ok = 1;
    if (check) {
        size_t own = (size_t)b.len[0] * b.len[1] * b.len[2];
        double *mine = malloc(own * sizeof(double)), *all = NULL;
        size_t m = 0;
        for (int i = 0; i < b.len[0]; i++)
            for (int j = 0; j < b.len[1]; j++)
                for (int k = 0; k < b.len[2]; k++)
                    mine[m++] = b.u[idx(&b, i, j, k)];
        if (rank == 0)
            all = malloc(own * size * sizeof(double));
        MPI_Gather(mine, (int)own, MPI_DOUBLE, all, (int)own, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            int one[3] = {1, 1, 1};
            struct block s;
            struct halo sx;
            double w = 0;
            block_init(&s, dim, n, one, 0);
            halo_init(&s, &sx, 0);
            run(&s, &sx, iters, 0, 1, &w);
            long bad = 0;
            for (int r = 0; r < size; r++) {
                struct block o;
                memset(&o, 0, sizeof o);
                o.dim = dim;
                o.coord[2] = r % grid[2], o.coord[1] = r / grid[2] % grid[1], o.coord[0] = r / grid[2] / grid[1];
                m = 0;
                for (int i = 0; i < b.len[0]; i++)
                    for (int j = 0; j < b.len[1]; j++)
                        for (int k = 0; k < b.len[2]; k++) {
                            double v = all[(size_t)r * own + m++];
                            double ref = s.u[idx(&s, o.coord[0] * b.len[0] + i,
                                                 dim > 1 ? o.coord[1] * b.len[1] + j : j,
                                                 dim > 2 ? o.coord[2] * b.len[2] + k : k)];
                            if (memcmp(&v, &ref, sizeof v) && bad++ < 5)
                                fprintf(stderr, "stencil: rank %d point (%d,%d,%d): %.17g, one rank: %.17g\n",
                                        r, i, j, k, v, ref);
                        }
            }
            ok = bad == 0;
            block_free(&s);
            if (!ok)
                fprintf(stderr, "stencil: %ld points differ from the one-rank run\n", bad);
            free(all);
        }
        free(mine);
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    double gpts = pow((double)n, dim) * iters / g[0] / 1e9;
    if (rank == 0)
        printf("stencil: %d-D, grid %d^%d, %d iterations, process grid %dx%dx%d, %d thread(s) %s%s: "
               "%.3f s, %.3f Gpoints/s, compute %.3f s, waiting %.3f s, halo exchange alone %.3f s, "
               "%.0f %% of it hidden\n",
               dim, n, dim, iters, grid[0], grid[1], grid[2], nthreads(), multiple ? "multiple" : "funneled",
               persistent ? ", persistent" : "", g[0], gpts, g[3], g[2], g[1], 100 * hidden);
    char name[64];
    snprintf(name, sizeof name, "stencil%dd-%s%s", dim, multiple ? "multiple" : "funneled", persistent ? "-pers" : "");
    app_result(name, size, nthreads(), ok, g[0], gpts, "Gpoints/s");
    halo_free(&x);
    block_free(&b);
    MPI_Finalize();
    return ok ? 0 : 1;
}
