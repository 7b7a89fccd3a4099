/* bfs.c: application benchmark: Graph500 kernel 2 (breadth-first search)
 * over MPI-3 one-sided communication.
 *
 * Graph: the Graph500 Kronecker generator as its specification describes it:
 * 2^scale vertices, edgefactor x 2^scale undirected edges, each edge chosen
 * bit by bit among the four quadrants with probabilities A=0.57, B=0.19,
 * C=0.19, D=0.05, then vertex labels scrambled by a random permutation.
 * Random numbers come from a counter-based generator (a hash of seed, edge
 * and bit), so each rank generates its own share of the edge list and the
 * graph is the same at any rank count.  (The specification's shuffle of the
 * edge list is not needed: the edges are already independent draws.)
 * 1-D partition: vertex v belongs to rank v / ceil(N/P); edges go to the
 * owners of both ends (MPI_Alltoallv) and become local adjacency lists.
 *
 * BFS, level synchronous, all ranks inside one MPI_Win_lock_all epoch on a
 * window holding, for each local vertex, level << 40 | parent (unvisited:
 * INT64_MAX).  For each frontier vertex u and neighbour v, the rank sends
 * MPI_Accumulate(MPI_MIN) of (level+1) << 40 | u to v's owner: the minimum
 * keeps the earliest level, so a visited vertex is never overwritten and a
 * new one gets exactly one parent.  A rank sends at most once per vertex per
 * search.  Then MPI_Win_flush_all, MPI_Barrier, MPI_Win_sync, and each rank
 * scans its vertices for the new level; MPI_Allreduce of the frontier sizes
 * ends the search.
 * Validation (Graph500 rules), per root: the root is its own parent at level
 * 0; every other visited vertex's parent is one level above it and joined to
 * it by an input edge; every input edge joins two visited vertices whose
 * levels differ by at most one, or two unvisited ones (so the tree spans the
 * root's component).  TEPS = input edges in the component (self-loops left
 * out) / search time; reported as the harmonic mean over the roots. */
#define _POSIX_C_SOURCE 200809L
#include "app_common.h"
#include <stdint.h>

#define APP "bfs"
#define UNVISITED INT64_MAX
#define PBITS 40
#define PMASK ((INT64_C(1) << PBITS) - 1)

static void usage(void)
{
    printf("usage: bfs [options]\n"
           "  -s, --scale S         2^S vertices (default 16; 1..30)\n"
           "  -e, --edgefactor E    edges per vertex (default 16)\n"
           "  -r, --roots R         search roots (default 16; Graph500 uses 64)\n"
           "      --seed X          generator seed (default 1)\n");
}

static int64_t nv, nper, nloc, lo;
static int rank, size, scale;
static uint64_t seed = 1;

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double uniform(uint64_t e, int bit, int which)
{
    return (double)(mix(seed * 0x100000001B3ull ^ mix(e * 128 + (uint64_t)bit * 2 + which)) >> 11) /
           9007199254740992.0;
}

/* a bijection of [0, 2^scale): odd multiplications and xor-shifts mod 2^scale */
static int64_t permute(int64_t v)
{
    uint64_t x = (uint64_t)v, mask = ((uint64_t)1 << scale) - 1;
    for (int round = 0; round < 3; round++) {
        x = (x * (mix(seed + round) | 1) + mix(seed ^ (round + 7))) & mask;
        x ^= x >> (scale / 2 + 1);
    }
    return (int64_t)x;
}

/* edge e of the Kronecker graph */
static void kronecker_edge(uint64_t e, int64_t *u, int64_t *v)
{
    const double a = 0.57, b = 0.19, c = 0.19, ab = a + b, c_norm = c / (1 - ab), a_norm = a / ab;
    int64_t i = 0, j = 0;
    for (int bit = 0; bit < scale; bit++) {
        int ii = uniform(e, bit, 0) > ab;
        int jj = uniform(e, bit, 1) > (c_norm * ii + a_norm * !ii);
        i |= (int64_t)ii << bit;
        j |= (int64_t)jj << bit;
    }
    *u = permute(i);
    *v = permute(j);
}

static int owner(int64_t v) { return (int)(v / nper); }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int edgefactor = 16, nroots = 16;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        }
    scale = 16;
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0); /* mpiexec --profile: profile only the timed part (docs/profile.md) */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-s") || !strcmp(a, "--scale"))
            scale = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-e") || !strcmp(a, "--edgefactor"))
            edgefactor = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "-r") || !strcmp(a, "--roots"))
            nroots = (int)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else if (!strcmp(a, "--seed"))
            seed = (uint64_t)app_posint(APP, a, app_arg(APP, argc, argv, &i));
        else
            app_refuse(APP, "unknown option '%s' (see --help)", a);
    }
    if (scale > 30)
        app_refuse(APP, "--scale %d is above 30 (vertex counts are gathered with int counts)", scale);
    nv = INT64_C(1) << scale;
    if (nv < size)
        app_refuse(APP, "--scale %d gives %lld vertices, fewer than the %d ranks", scale, (long long)nv, size);
    nper = (nv + size - 1) / size;
    lo = (int64_t)rank * nper;
    nloc = lo >= nv ? 0 : (nv - lo < nper ? nv - lo : nper);

    /* generate my share of the edges, send each to the owners of both ends */
    MPI_Barrier(MPI_COMM_WORLD);
    double tg = MPI_Wtime();
    uint64_t ne = (uint64_t)edgefactor * nv, e0 = ne * rank / size, e1 = ne * (rank + 1) / size;
    int64_t *edges = malloc((e1 - e0 + 1) * 2 * sizeof(int64_t));
    int *scount = calloc(size, sizeof(int)), *rcount = malloc(size * sizeof(int));
    int *sdisp = malloc((size + 1) * sizeof(int)), *rdisp = malloc((size + 1) * sizeof(int));
    for (uint64_t e = e0; e < e1; e++) {
        int64_t *uv = edges + 2 * (e - e0);
        kronecker_edge(e, &uv[0], &uv[1]);
        if (uv[0] != uv[1])
            scount[owner(uv[0])] += 2, scount[owner(uv[1])] += 2;
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    sdisp[0] = rdisp[0] = 0;
    for (int p = 0; p < size; p++)
        sdisp[p + 1] = sdisp[p] + scount[p], rdisp[p + 1] = rdisp[p] + rcount[p];
    int64_t *sbuf = malloc((sdisp[size] + 1) * sizeof(int64_t)), *rbuf = malloc((rdisp[size] + 1) * sizeof(int64_t));
    int *fill = calloc(size, sizeof(int));
    for (uint64_t e = e0; e < e1; e++) {
        int64_t u = edges[2 * (e - e0)], v = edges[2 * (e - e0) + 1];
        if (u == v)
            continue;
        int64_t *d = sbuf + sdisp[owner(u)] + fill[owner(u)];
        d[0] = u, d[1] = v, fill[owner(u)] += 2;
        d = sbuf + sdisp[owner(v)] + fill[owner(v)];
        d[0] = v, d[1] = u, fill[owner(v)] += 2;
    }
    MPI_Alltoallv(sbuf, scount, sdisp, MPI_INT64_T, rbuf, rcount, rdisp, MPI_INT64_T, MPI_COMM_WORLD);
    free(sbuf), free(edges);
    /* adjacency lists (CSR) of my vertices */
    int64_t nadj = rdisp[size] / 2, *xoff = calloc(nloc + 1, sizeof(int64_t)), *adj = malloc((nadj + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < nadj; k++)
        xoff[rbuf[2 * k] - lo + 1]++;
    for (int64_t v = 0; v < nloc; v++)
        xoff[v + 1] += xoff[v];
    int64_t *pos = malloc((nloc + 1) * sizeof(int64_t));
    memcpy(pos, xoff, (nloc + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < nadj; k++)
        adj[pos[rbuf[2 * k] - lo]++] = rbuf[2 * k + 1];
    for (int64_t v = 0; v < nloc; v++) /* sorted lists: parent edges by bsearch */
        qsort(adj + xoff[v], xoff[v + 1] - xoff[v], sizeof(int64_t), cmp_i64);
    free(rbuf), free(pos);
    double t_gen = MPI_Wtime() - tg;

    /* roots: pseudo-random vertices with at least one edge, the same on all ranks */
    int *vcount = malloc(size * sizeof(int)), *vdisp = malloc(size * sizeof(int));
    for (int p = 0; p < size; p++) {
        int64_t plo = (int64_t)p * nper;
        vcount[p] = (int)(plo >= nv ? 0 : (nv - plo < nper ? nv - plo : nper));
        vdisp[p] = (int)(plo >= nv ? nv : plo);
    }
    char *hasedge = malloc(nv), *mine = malloc(nloc + 1);
    for (int64_t v = 0; v < nloc; v++)
        mine[v] = xoff[v + 1] > xoff[v];
    MPI_Allgatherv(mine, (int)nloc, MPI_CHAR, hasedge, vcount, vdisp, MPI_CHAR, MPI_COMM_WORLD);
    int64_t *roots = malloc(nroots * sizeof(int64_t));
    int found = 0;
    for (uint64_t t = 0; found < nroots && t < 64 * (uint64_t)nv; t++) {
        int64_t c = (int64_t)(mix(seed * 31 + t) % (uint64_t)nv);
        int dup = !hasedge[c];
        for (int k = 0; k < found && !dup; k++)
            dup = roots[k] == c;
        if (!dup)
            roots[found++] = c;
    }
    if (found == 0)
        app_refuse(APP, "the graph of --scale %d has no edges to search", scale);

    /* the window: level << 40 | parent for each of my vertices */
    int64_t *enc, *vals = malloc((nv + 1) * sizeof(int64_t)), *frontier = malloc((nloc + 1) * sizeof(int64_t));
    int32_t *mylev = malloc((nloc + 1) * sizeof(int32_t)), *level = malloc(nv * sizeof(int32_t));
    unsigned char *seen = malloc((size_t)(nv + 7) / 8);
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(nloc * sizeof(int64_t)), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &enc, &win);
    MPI_Win_lock_all(0, win);
    double inv_teps = 0, t_total = 0;
    long errors = 0;
    for (int r = -1; r < found; r++) { /* r = -1: an untimed warm-up search from the first root */
        int64_t root = roots[r < 0 ? 0 : r], nf = 0, gnf = 1;
        for (int64_t v = 0; v < nloc; v++)
            enc[v] = UNVISITED;
        memset(seen, 0, (size_t)(nv + 7) / 8);
        seen[root / 8] |= 1 << (root % 8);
        if (owner(root) == rank)
            enc[root - lo] = root, frontier[nf++] = root - lo;
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Pcontrol(1);
        double t0 = MPI_Wtime();
        for (int64_t cur = 0; gnf > 0; cur++) {
            int64_t nops = 0;
            for (int64_t f = 0; f < nf; f++) {
                int64_t u = frontier[f];
                for (int64_t k = xoff[u]; k < xoff[u + 1]; k++) {
                    int64_t v = adj[k];
                    if (seen[v / 8] & (1 << (v % 8)))
                        continue;
                    seen[v / 8] |= 1 << (v % 8);
                    vals[nops] = (cur + 1) << PBITS | (u + lo);
                    MPI_Accumulate(&vals[nops], 1, MPI_INT64_T, owner(v), v - (int64_t)owner(v) * nper, 1,
                                   MPI_INT64_T, MPI_MIN, win);
                    nops++;
                }
            }
            MPI_Win_flush_all(win);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Win_sync(win);
            nf = 0;
            for (int64_t v = 0; v < nloc; v++)
                if (enc[v] != UNVISITED && enc[v] >> PBITS == cur + 1)
                    frontier[nf++] = v;
            MPI_Allreduce(&nf, &gnf, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        }
        double t = MPI_Wtime() - t0, tmax;
        MPI_Pcontrol(0);
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r < 0)
            continue;

        /* validation: levels of all vertices on every rank, then local checks */
        long err = 0;
        int64_t half_edges = 0, gedges;
        for (int64_t v = 0; v < nloc; v++)
            mylev[v] = enc[v] == UNVISITED ? -1 : (int32_t)(enc[v] >> PBITS);
        MPI_Allgatherv(mylev, (int)nloc, MPI_INT32_T, level, vcount, vdisp, MPI_INT32_T, MPI_COMM_WORLD);
        if (level[root] != 0)
            err++;
        for (int64_t v = 0; v < nloc; v++) {
            int64_t g = v + lo, p = enc[v] & PMASK;
            if (enc[v] == UNVISITED)
                ;
            else if (g == root) {
                if (p != root || mylev[v] != 0)
                    err++;
            } else if (mylev[v] < 1 || p < 0 || p >= nv || level[p] != mylev[v] - 1 ||
                       !bsearch(&p, adj + xoff[v], xoff[v + 1] - xoff[v], sizeof(int64_t), cmp_i64))
                err++; /* parent not one level up, or not a neighbour */
            for (int64_t k = xoff[v]; k < xoff[v + 1]; k++) {
                int lw = level[adj[k]], lv = mylev[v];
                if ((lv < 0) != (lw < 0) || (lv >= 0 && (lv - lw > 1 || lw - lv > 1)))
                    err++; /* edge leaves the tree, or skips a level */
                if (lv >= 0)
                    half_edges++;
            }
        }
        if (err && errors == 0)
            fprintf(stderr, "bfs: rank %d: root %lld: %ld violations of the Graph500 rules\n", rank,
                    (long long)root, err);
        errors += err;
        MPI_Allreduce(&half_edges, &gedges, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        double teps = (double)(gedges / 2) / tmax;
        inv_teps += 1.0 / teps;
        t_total += tmax;
    }
    MPI_Win_unlock_all(win);
    long gerr;
    MPI_Allreduce(&errors, &gerr, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double hmean = found / inv_teps;
    if (rank == 0)
        printf("bfs: scale %d, edgefactor %d, %d ranks, %d roots: generation %.3f s, search %.4f s in all, "
               "harmonic mean %.4g TEPS, validation %s\n",
               scale, edgefactor, size, found, t_gen, t_total, hmean, gerr ? "FAILED" : "passed");
    app_result("bfs", size, 1, gerr == 0, t_total, hmean / 1e6, "MTEPS");
    MPI_Win_free(&win);
    free(xoff), free(adj), free(vcount), free(vdisp), free(hasedge), free(mine), free(roots);
    free(vals), free(frontier), free(mylev), free(level), free(seen);
    free(scount), free(rcount), free(sdisp), free(rdisp), free(fill);
    MPI_Finalize();
    return gerr == 0 ? 0 : 1;
}
