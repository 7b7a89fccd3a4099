/* stencil3d.c: demonstration program: a 3-D seven-point Jacobi stencil
 * (explicit heat diffusion) on an N^3 grid with fixed boundary values,
 * split into blocks over a 3-D grid of processes.  Each iteration
 * exchanges the six faces of every block with MPI_Isend/MPI_Irecv (faces
 * packed by hand into contiguous buffers), updates the interior while the
 * messages travel, then the shell once they arrived.  MPI_Allreduce gives
 * the residual and checksum; MPI_Gather brings the result to rank 0, which
 * repeats the same iterations serially and compares.
 *
 * usage: stencil3d [-n N] [-i iterations] [-r residual_every] [--no-check]
 * Prints "stencil3d: P ranks, grid N^3, I iterations, T us/iteration,
 * max error E: PASSED" (or FAILED, exit status 1). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 0.125 /* diffusion number: stable for <= 1/6 */
#define TOLERANCE 1e-12

/* One process's block: extents along x, y, z plus a one-point halo. */
struct block {
    int n;            /* global interior points per dimension */
    int pdim[3];      /* process grid */
    int coord[3];     /* this block's place in it */
    int lo[3];        /* global index of the first owned point */
    int len[3];       /* owned points per dimension */
    int nbr[6];       /* rank across face 2*axis+side (side 0 = low), or -1 */
    size_t stride[3]; /* index steps of the halo-padded local array */
    size_t cells;     /* (len+2) product */
    double *u, *unew;
    double *sbuf[6], *rbuf[6];
};

/* Split n points over p parts: part c gets its share, the first ones one more. */
static void split(int n, int p, int c, int *lo, int *len)
{
    int base = n / p, extra = n % p;
    *len = base + (c < extra);
    *lo = c * base + (c < extra ? c : extra);
}

/* Factor nranks into a 3-D process grid with the smallest total face area
 * per block (for a cube: the smallest p0+p1+p2), larger factors first. */
static void process_grid(int nranks, int pdim[3])
{
    int best = -1;
    for (int a = nranks; a >= 1; a--) {
        if (nranks % a)
            continue;
        for (int b = a; b >= 1; b--) {
            if ((nranks / a) % b)
                continue;
            int c = nranks / a / b;
            if (c > b)
                continue;
            if (best < 0 || a + b + c < best) {
                best = a + b + c;
                pdim[0] = a, pdim[1] = b, pdim[2] = c;
            }
        }
    }
}

static int rank_of(const struct block *b, const int c[3])
{
    return (c[0] * b->pdim[1] + c[1]) * b->pdim[2] + c[2];
}

static void coords_of(const int pdim[3], int rank, int c[3])
{
    c[2] = rank % pdim[2];
    c[1] = rank / pdim[2] % pdim[1];
    c[0] = rank / pdim[2] / pdim[1];
}

static size_t at(const struct block *b, int i, int j, int k)
{
    return (size_t)i * b->stride[0] + (size_t)j * b->stride[1] + (size_t)k;
}

/* Value outside the domain (the fixed boundary) and inside at start. */
static double boundary_value(int gx, int gy, int gz, int n)
{
    (void)gy;
    if (gx < 0)
        return 1.0; /* hot face */
    if (gz >= n)
        return 0.25;
    return 0.0;
}

static double initial_value(int gx, int gy, int gz, int n)
{
    double h = 1.0 / (n + 1);
    return 0.5 * sin(3.0 * (gx + 1) * h) * sin(5.0 * (gy + 1) * h) + 0.1 * cos(7.0 * (gz + 1) * h);
}

/* Set up the block of process `rank` in a grid pdim (nbr: -1 where none);
 * allocate=0 only computes extents. Returns -1 when memory is short. */
static int block_init(struct block *b, int n, const int pdim[3], int rank, int allocate)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    memcpy(b->pdim, pdim, sizeof b->pdim);
    coords_of(pdim, rank, b->coord);
    for (int a = 0; a < 3; a++) {
        split(n, pdim[a], b->coord[a], &b->lo[a], &b->len[a]);
        for (int side = 0; side < 2; side++) {
            int c[3] = { b->coord[0], b->coord[1], b->coord[2] };
            c[a] += side ? 1 : -1;
            b->nbr[2 * a + side] = (c[a] < 0 || c[a] >= pdim[a]) ? -1 : rank_of(b, c);
        }
    }
    b->stride[2] = 1;
    b->stride[1] = (size_t)b->len[2] + 2;
    b->stride[0] = b->stride[1] * ((size_t)b->len[1] + 2);
    b->cells = b->stride[0] * ((size_t)b->len[0] + 2);
    if (!allocate)
        return 0;

    b->u = malloc(b->cells * sizeof(double));
    b->unew = malloc(b->cells * sizeof(double));
    if (!b->u || !b->unew)
        return -1;
    for (int d = 0; d < 6; d++) {
        int a = d / 2, p = (a + 1) % 3, q = (a + 2) % 3;
        size_t face = (size_t)b->len[p] * b->len[q];
        b->sbuf[d] = malloc(face * sizeof(double));
        b->rbuf[d] = malloc(face * sizeof(double));
        if (!b->sbuf[d] || !b->rbuf[d])
            return -1;
    }
    /* every cell, halo included: halo cells on the domain edge keep the
     * boundary value for good; those between blocks are overwritten */
    for (int i = 0; i < b->len[0] + 2; i++)
        for (int j = 0; j < b->len[1] + 2; j++)
            for (int k = 0; k < b->len[2] + 2; k++) {
                int gx = b->lo[0] + i - 1, gy = b->lo[1] + j - 1, gz = b->lo[2] + k - 1;
                int inside = gx >= 0 && gx < n && gy >= 0 && gy < n && gz >= 0 && gz < n;
                double v = inside ? initial_value(gx, gy, gz, n) : boundary_value(gx, gy, gz, n);
                b->u[at(b, i, j, k)] = b->unew[at(b, i, j, k)] = v;
            }
    return 0;
}

static void block_free(struct block *b)
{
    free(b->u);
    free(b->unew);
    for (int d = 0; d < 6; d++) {
        free(b->sbuf[d]);
        free(b->rbuf[d]);
    }
}

/* Copy the layer `layer` of axis a (all owned points of the two other
 * axes) between u and buf: to_buf packs, otherwise unpacks. */
static void face_copy(struct block *b, int a, int layer, double *buf, int to_buf)
{
    int p = (a + 1) % 3, q = (a + 2) % 3;
    size_t n = 0;
    for (int x = 1; x <= b->len[p]; x++)
        for (int y = 1; y <= b->len[q]; y++) {
            size_t idx = (size_t)layer * b->stride[a] + (size_t)x * b->stride[p] +
                         (size_t)y * b->stride[q];
            if (to_buf)
                buf[n++] = b->u[idx];
            else
                b->u[idx] = buf[n++];
        }
}

/* Jacobi update of local points i0..i1, j0..j1, k0..k1 (inclusive). */
static void update_box(struct block *b, int i0, int i1, int j0, int j1, int k0, int k1)
{
    const double *u = b->u;
    const size_t sx = b->stride[0], sy = b->stride[1];
    for (int i = i0; i <= i1; i++)
        for (int j = j0; j <= j1; j++)
            for (int k = k0; k <= k1; k++) {
                size_t c = at(b, i, j, k);
                double nb = u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - 1] + u[c + 1];
                b->unew[c] = u[c] + ALPHA * (nb - 6.0 * u[c]);
            }
}

/* Owned points next to the halo: the six faces of the block, each point once. */
static void update_shell(struct block *b)
{
    const int X = b->len[0], Y = b->len[1], Z = b->len[2];
    update_box(b, 1, 1, 1, Y, 1, Z);
    if (X > 1)
        update_box(b, X, X, 1, Y, 1, Z);
    update_box(b, 2, X - 1, 1, 1, 1, Z);
    if (Y > 1)
        update_box(b, 2, X - 1, Y, Y, 1, Z);
    update_box(b, 2, X - 1, 2, Y - 1, 1, 1);
    if (Z > 1)
        update_box(b, 2, X - 1, 2, Y - 1, Z, Z);
}

/* Sums over owned points: squared change of the last step, and values. */
static void local_sums(const struct block *b, double *change2, double *sum)
{
    double c2 = 0.0, s = 0.0;
    for (int i = 1; i <= b->len[0]; i++)
        for (int j = 1; j <= b->len[1]; j++)
            for (int k = 1; k <= b->len[2]; k++) {
                size_t c = at(b, i, j, k);
                double d = b->u[c] - b->unew[c];
                c2 += d * d;
                s += b->u[c];
            }
    *change2 = c2;
    *sum = s;
}

/* Start the halo exchange: post receives, pack and send faces. */
static int exchange_start(struct block *b, MPI_Request reqs[12])
{
    int nreq = 0;
    for (int d = 0; d < 6; d++) {
        int a = d / 2, side = d % 2;
        int count = b->len[(a + 1) % 3] * b->len[(a + 2) % 3];
        if (b->nbr[d] < 0)
            continue;
        /* a face arriving across my side s was sent across the peer's side 1-s */
        MPI_Irecv(b->rbuf[d], count, MPI_DOUBLE, b->nbr[d], 2 * a + 1 - side, MPI_COMM_WORLD,
                  &reqs[nreq++]);
        face_copy(b, a, side ? b->len[a] : 1, b->sbuf[d], 1);
        MPI_Isend(b->sbuf[d], count, MPI_DOUBLE, b->nbr[d], d, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    return nreq;
}

static void exchange_finish(struct block *b, MPI_Request reqs[12], int nreq)
{
    MPI_Status stats[12];
    MPI_Waitall(nreq, reqs, stats);
    for (int d = 0; d < 6; d++)
        if (b->nbr[d] >= 0)
            face_copy(b, d / 2, d % 2 ? b->len[d / 2] + 1 : 0, b->rbuf[d], 0);
}

/* Run `iters` Jacobi steps; parallel=0 is the serial reference (one block,
 * no MPI calls).  every > 0: global residual each `every` steps and at the
 * end, printed by rank 0 when verbose.  Returns the global value sum. */
static double solve(struct block *b, int iters, int every, int parallel, int verbose)
{
    MPI_Request reqs[12];
    double sums[2] = { 0.0, 0.0 };
    for (int it = 1; it <= iters; it++) {
        int nreq = parallel ? exchange_start(b, reqs) : 0;
        update_box(b, 2, b->len[0] - 1, 2, b->len[1] - 1, 2, b->len[2] - 1);
        if (parallel)
            exchange_finish(b, reqs, nreq);
        update_shell(b);
        double *t = b->u;
        b->u = b->unew;
        b->unew = t;
        if (every > 0 && (it % every == 0 || it == iters)) {
            double local[2];
            local_sums(b, &local[0], &local[1]);
            if (parallel)
                MPI_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else
                memcpy(sums, local, sizeof sums);
            if (verbose)
                printf("stencil3d: iteration %4d: residual %.6e, checksum %.12e\n", it,
                       sqrt(sums[0]), sums[1]);
        }
    }
    return sums[1];
}

static void usage(void)
{
    printf("usage: stencil3d [-n N] [-i iterations] [-r residual_every] [--no-check]\n"
           "  -n N       global grid N^3 (default 96)\n"
           "  -i iters   Jacobi iterations (default 100)\n"
           "  -r every   print the global residual every that many iterations\n"
           "             (default 0: only at the end)\n"
           "  --no-check skip the serial reference on rank 0\n");
}

/* Gather all blocks on rank 0 and compare with a serial run there.
 * Returns the largest absolute difference (rank 0), or -1 on failure. */
static double verify(struct block *b, int nranks, int rank, int iters, double checksum)
{
    int maxlen[3];
    for (int a = 0; a < 3; a++)
        maxlen[a] = (b->n + b->pdim[a] - 1) / b->pdim[a];
    size_t slot = (size_t)maxlen[0] * maxlen[1] * maxlen[2];
    if (slot > 0x7fffffff)
        return -1.0;

    double *mine = calloc(slot, sizeof(double));
    double *all = rank == 0 ? malloc(slot * nranks * sizeof(double)) : NULL;
    int ok = mine && (rank != 0 || all);
    size_t n = 0;
    for (int i = 1; ok && i <= b->len[0]; i++)
        for (int j = 1; j <= b->len[1]; j++)
            for (int k = 1; k <= b->len[2]; k++)
                mine[n++] = b->u[at(b, i, j, k)];
    if (!ok) {
        fprintf(stderr, "stencil3d: rank %d: out of memory for the check\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(mine, (int)slot, MPI_DOUBLE, all, (int)slot, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(mine);
    if (rank != 0)
        return 0.0;

    struct block ref;
    int one[3] = { 1, 1, 1 };
    if (block_init(&ref, b->n, one, 0, 1) != 0) {
        fprintf(stderr, "stencil3d: out of memory for the serial reference\n");
        return -1.0;
    }
    double t0 = MPI_Wtime();
    double ref_sum = solve(&ref, iters, iters, 0, 0);
    double t_ref = MPI_Wtime() - t0;

    double maxerr = 0.0;
    for (int r = 0; r < nranks; r++) {
        struct block o;
        block_init(&o, b->n, b->pdim, r, 0);
        const double *v = all + slot * r;
        for (int i = 0; i < o.len[0]; i++)
            for (int j = 0; j < o.len[1]; j++)
                for (int k = 0; k < o.len[2]; k++) {
                    double e = fabs(*v++ - ref.u[at(&ref, o.lo[0] + i + 1, o.lo[1] + j + 1,
                                                    o.lo[2] + k + 1)]);
                    if (!(e <= maxerr)) /* also catches NaN */
                        maxerr = isnan(e) ? INFINITY : e;
                }
    }
    printf("stencil3d: serial reference %.1f us/iteration, checksum %.12e (parallel %.12e)\n",
           t_ref * 1e6 / (iters > 0 ? iters : 1), ref_sum, checksum);
    if (!(fabs(ref_sum - checksum) <= 1e-9 * (fabs(ref_sum) + 1.0))) {
        printf("stencil3d: checksum differs from the serial reference\n");
        maxerr = fmax(maxerr, fabs(ref_sum - checksum)); /* fails the run too */
    }
    block_free(&ref);
    free(all);
    return maxerr;
}

int main(int argc, char **argv)
{
    int n = 96, iters = 100, every = 0, check = 1;
    int rank, nranks, pdim[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *dst = !strcmp(a, "-n") ? &n : !strcmp(a, "-i") ? &iters : !strcmp(a, "-r") ? &every : NULL;
        char *end = NULL;
        if (!strcmp(a, "--no-check")) {
            check = 0;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 0;
        }
        long v = (dst && i + 1 < argc) ? strtol(argv[i + 1], &end, 10) : -1;
        if (!dst || !end || *end != '\0' || v < 0 || v > 100000000L || (dst == &n && v < 1)) {
            if (rank == 0)
                fprintf(stderr, "stencil3d: bad option or value: %s (-h for help)\n", a);
            MPI_Finalize();
            return 2;
        }
        *dst = (int)v;
        i++;
    }

    process_grid(nranks, pdim);
    if (pdim[0] > n) {
        if (rank == 0)
            fprintf(stderr, "stencil3d: grid %d^3 is too small for a %dx%dx%d process grid\n",
                    n, pdim[0], pdim[1], pdim[2]);
        MPI_Finalize();
        return 2;
    }
    struct block b;
    if (block_init(&b, n, pdim, rank, 1) != 0) {
        fprintf(stderr, "stencil3d: rank %d: out of memory for a %dx%dx%d block\n", rank,
                b.len[0], b.len[1], b.len[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("stencil3d: process grid %dx%dx%d, block of rank 0 %dx%dx%d\n", pdim[0], pdim[1],
               pdim[2], b.len[0], b.len[1], b.len[2]);

    double t0 = MPI_Wtime();
    double checksum = solve(&b, iters, every > 0 ? every : iters, 1, rank == 0);
    double elapsed = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    double maxerr = check ? verify(&b, nranks, rank, iters, checksum) : 0.0;
    int failed = maxerr < 0.0 || maxerr >= TOLERANCE;
    if (rank == 0) {
        char err[32];
        if (check)
            snprintf(err, sizeof err, "%.3g", maxerr);
        else
            snprintf(err, sizeof err, "not checked");
        printf("stencil3d: %d ranks, grid %d^3, %d iterations, %.1f us/iteration, max error %s: %s\n",
               nranks, n, iters, slowest * 1e6 / (iters > 0 ? iters : 1), err,
               failed ? "FAILED" : "PASSED");
        fflush(stdout);
    }
    block_free(&b);
    MPI_Finalize();
    return rank == 0 && failed ? 1 : 0;
}
