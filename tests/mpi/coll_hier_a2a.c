/* coll_hier_a2a.c: MPI_Allgatherv, MPI_Alltoall and MPI_Alltoallv on
 * communicators that span simulated nodes, where dmpi runs them node-aware
 * (src/coll/hier.c): blocks combined through the node leaders, the rest
 * flat, chosen per pair of nodes by size. Run it with a placement, e.g.
 *   DMPI_PROCESS_MAPPING="(vector,(0,2,2))" mpiexec -n 4 coll_hier_a2a
 * or with args 2x2, rr3 or mixed (as coll_hier); "unit=N" sets
 * DMPI_COLL_HIER_ALLTOALL (bytes one saved message is worth) so that every
 * pair combines (large N), few do (small N) or the default choice runs.
 * Without a placement everything is on one node and the same checks hold.
 * On MPI_COMM_WORLD, a shuffled split and a part of the ranks: block sizes
 * from 0 to tens of KiB, per-rank and per-pair sizes with zeros,
 * displacements in reverse rank order with gaps, MPI_INT and a strided
 * type (2 ints of every 4), strided send against contiguous receive,
 * MPI_IN_PLACE. Each receive buffer is compared whole (data, holes and
 * gaps) with one built locally. */
#include "common.h"

#include "coll_hier.h"

static char ctx[256];

static int val(int src, int dst, long k, int s)
{
    return (int)((src * 7919L + (dst + 2) * 4001L + k * 13 + s * 101L) % 1000003) + 1;
}

/* n elements of t at base: the data of the block src -> dst */
static void put(int *base, const ty *t, long n, int src, int dst, int s)
{
    for (long i = 0; i < n; i++)
        for (int j = 0; j < t->per; j++)
            base[i * t->stride + off(t, j)] = val(src, dst, i * t->per + j, s);
}

static void compare(const int *got, const int *want, long n)
{
    for (long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            CHECK(got[i] == want[i], "%s: int %ld of %ld: got %d want %d", ctx, i, n, got[i],
                  want[i]);
            return;
        }
}

static pair pairs[3];

/* Displacements (elements) of p blocks of counts cnt in reverse rank order
 * with a gap of one element before each; returns the total extent. */
static long layout(const int *cnt, int p, int *disp)
{
    long at = 0;
    for (int j = p - 1; j >= 0; j--) {
        at += 1;
        disp[j] = (int)at;
        at += cnt[j];
    }
    return at + 1;
}

/* allgatherv: rank j contributes rc(j) elements, some zero */
static int ag_count(int j, int ci)
{
    static const int mult[] = {1, 3, 40, 3000};
    return (j * 3 + ci) % 4 == 1 ? 0 : (j % 3 + 1) * mult[ci];
}

static void test_allgatherv(MPI_Comm c, int me, int p, const char *cname)
{
    int *rc = t_malloc((size_t)p * sizeof(int)), *rd = t_malloc((size_t)p * sizeof(int));
    for (int pi = 0; pi < 3; pi++)
        for (int ci = 0; ci < 4; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const ty *st = pairs[pi].st, *rt = pairs[pi].rt;
                if (inplace && pi == 2) continue;
                int s = 3 + ci + 5 * pi;
                for (int j = 0; j < p; j++) rc[j] = ag_count(j, ci) * pairs[pi].rmul;
                long ext = layout(rc, p, rd) * rt->stride;
                int n = ag_count(me, ci);
                int *sb = alloc_ints((long)n * st->stride), *rb = alloc_ints(ext);
                int *want = alloc_ints(ext);
                for (int j = 0; j < p; j++)
                    put(want + (long)rd[j] * rt->stride, rt, rc[j], j, -1, s);
                if (inplace) put(rb + (long)rd[me] * rt->stride, rt, rc[me], me, -1, s);
                else put(sb, st, n, me, -1, s);
                snprintf(ctx, sizeof ctx, "%s allgatherv %s/%s sizes %d%s", cname, st->name,
                         rt->name, ci, inplace ? " in place" : "");
                MPI_CHK(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sb, n, st->dt, rb, rc, rd,
                                       rt->dt, c));
                compare(rb, want, ext);
                free(sb);
                free(rb);
                free(want);
            }
    free(rc);
    free(rd);
}

/* alltoallv: elements i sends to j; symmetric for in place (the send
 * layout is the receive layout) */
static int a2a_count(int i, int j, int ci, bool sym)
{
    static const int mult[] = {1, 5, 60, 2500};
    int a = sym ? i + j : i + 2 * j, b = sym ? i + j : 2 * i + j;
    return (a + ci) % 5 == 2 ? 0 : (b % 4 + 1) * mult[ci];
}

static void test_alltoall(MPI_Comm c, int me, int p, const char *cname, bool v)
{
    static const int uni[] = {0, 1, 7, 300, 5000};
    int nsizes = v ? 4 : 5;
    int *sc = t_malloc((size_t)p * sizeof(int)), *sd = t_malloc((size_t)p * sizeof(int));
    int *rc = t_malloc((size_t)p * sizeof(int)), *rd = t_malloc((size_t)p * sizeof(int));
    for (int pi = 0; pi < 3; pi++)
        for (int ci = 0; ci < nsizes; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const ty *st = pairs[pi].st, *rt = pairs[pi].rt;
                int mul = pairs[pi].rmul;
                if (inplace && pi == 2) continue;
                int s = 7 + ci + 3 * pi + 11 * inplace;
                long sext, rext;
                for (int j = 0; j < p; j++) {
                    sc[j] = v ? a2a_count(me, j, ci, inplace) : uni[ci];
                    rc[j] = (v ? a2a_count(j, me, ci, inplace) : uni[ci]) * mul;
                }
                if (v) {
                    sext = layout(sc, p, sd) * st->stride;
                    rext = layout(rc, p, rd) * rt->stride;
                } else {
                    sext = (long)p * uni[ci] * st->stride;
                    rext = (long)p * uni[ci] * mul * rt->stride;
                    for (int j = 0; j < p; j++) {
                        sd[j] = j * sc[j];
                        rd[j] = j * rc[j];
                    }
                }
                int *sb = alloc_ints(sext), *rb = alloc_ints(rext), *want = alloc_ints(rext);
                for (int j = 0; j < p; j++) {
                    put(want + (long)rd[j] * rt->stride, rt, rc[j], j, me, s);
                    if (inplace) put(rb + (long)rd[j] * rt->stride, rt, rc[j], me, j, s);
                    else put(sb + (long)sd[j] * st->stride, st, sc[j], me, j, s);
                }
                snprintf(ctx, sizeof ctx, "%s %s %s/%s size %d%s", cname,
                         v ? "alltoallv" : "alltoall", st->name, rt->name, ci,
                         inplace ? " in place" : "");
                const void *sbuf = inplace ? MPI_IN_PLACE : (const void *)sb;
                if (v)
                    MPI_CHK(MPI_Alltoallv(sbuf, sc, sd, st->dt, rb, rc, rd, rt->dt, c));
                else
                    MPI_CHK(MPI_Alltoall(sbuf, uni[ci], st->dt, rb, uni[ci] * mul, rt->dt, c));
                compare(rb, want, rext);
                free(sb);
                free(rb);
                free(want);
            }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static void test_comm(MPI_Comm c, const char *cname)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    test_allgatherv(c, me, p, cname);
    test_alltoall(c, me, p, cname, false);
    test_alltoall(c, me, p, cname, true);
    MPI_CHK(MPI_Barrier(c));
}

int main(int argc, char **argv)
{
    hier_settings(argc, argv);
    t_init(&argc, &argv);
    hier_types();
    pairs[0] = (pair){&t_int, &t_int, 1};
    pairs[1] = (pair){&t_vec, &t_vec, 1};
    pairs[2] = (pair){&t_vec, &t_int, 2};

    hier_comms(test_comm);

    MPI_Type_free(&t_vec.dt);
    return t_finish();
}
