/* coll_device: every collective with (emulated) device buffers.
 *
 * Under DMPI_ACCEL=emul (set here before MPI_Init unless the environment
 * says otherwise; DMPI_TEST_DEVICE=cuda uses a GPU) each collective runs
 * once on host buffers, the reference, and then again with the send
 * buffer, the receive buffer or both in device memory (and a mix where
 * even ranks use device memory for one side and odd ranks for the other).
 * Both buffers are filled with the same patterns before each run, and
 * after it every byte of both (read through the test's view of the device
 * memory, emul_mem.h) must equal the reference: results, holes of the
 * datatypes, blocks a collective does not write, and the untouched send
 * buffer.
 *
 * Covered: Bcast, Reduce, Allreduce, Reduce_scatter(_block), Allgather(v),
 * Alltoall(v,w), Gather(v), Scatter(v), Scan, Exscan, Barrier and the
 * neighbourhood collectives (a non-periodic ring: MPI_PROC_NULL neighbours
 * leave blocks alone), blocking, nonblocking and persistent (started
 * twice, the inputs changed in between), with MPI_IN_PLACE where the
 * standard allows it, on MPI_INT and on a vector type with holes, 1 and
 * 700 elements; the rooted and all-to-all families on an
 * intercommunicator; MPI_Reduce_local; a few results checked outright;
 * and a buffer that runs past its device block (MPI_ERR_BUFFER). Runs at
 * any size; prints a line and passes when the emulated device cannot be
 * had. */
#include "emul_mem.h"

enum { F_B, F_I, F_P, F_N };
static const char *const fname[F_N] = {"blocking", "nonblocking", "persistent"};

enum { C_BCAST, C_REDUCE, C_ALLREDUCE, C_RS, C_RSB, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL,
       C_ALLTOALLV, C_ALLTOALLW, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_SCAN,
       C_EXSCAN, C_BARRIER, C_NAG, C_NAGV, C_NA2A, C_NA2AV, C_NA2AW, C_N };
static const char *const cname[C_N] = {
    "Bcast", "Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block", "Allgather",
    "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Gather", "Gatherv", "Scatter",
    "Scatterv", "Scan", "Exscan", "Barrier", "Neighbor_allgather", "Neighbor_allgatherv",
    "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw"};

#define BUF (256 << 10)
#define MAXP 64

/* One call: the communicator and what every rank passes. */
typedef struct ctx {
    MPI_Comm comm;
    bool inter, topo;
    int me, np, nlocal; /* rank, peers (remote group / neighbours), local size */
    int root;           /* as this rank passes it */
    bool am_root;
    MPI_Datatype dt;
    MPI_Aint ext;
    int count;
    int cnt[MAXP], dsp[MAXP], wdsp[MAXP]; /* v counts, displs (elements), bytes */
    int rcnt[MAXP], rdsp[MAXP], rwdsp[MAXP];
    MPI_Aint awdsp[MAXP], arwdsp[MAXP];
    MPI_Datatype types[MAXP];
} ctx;

static MPI_Datatype t_vec; /* 2 ints at 0 and 8 in an extent of 16 */

/* Can the collective take MPI_IN_PLACE (intracommunicators)? */
static bool has_in_place(int c)
{
    return c != C_BCAST && c != C_BARRIER && c < C_NAG;
}

static bool is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_RS || c == C_RSB || c == C_SCAN ||
           c == C_EXSCAN;
}

/* Sets the per-peer counts and displacements of x for collective c. */
static void setup(ctx *x, int c)
{
    int n = x->count, gap = 3;
    for (int i = 0; i < x->np && i < MAXP; i++) {
        /* what I send to / receive from peer i; both ends agree */
        int s = n, r = n;
        if (c == C_ALLTOALLV || c == C_ALLTOALLW) s = r = n + (x->me + i) % 3;
        if (c == C_NA2AV || c == C_NA2AW) s = r = n + 1; /* ring: same rule both ways */
        if (c == C_GATHERV || c == C_ALLGATHERV || c == C_NAGV)
            r = n + (x->topo || x->inter ? 0 : i % 3);
        if (c == C_SCATTERV) s = n + i % 3;
        x->cnt[i] = s;
        x->rcnt[i] = r;
        x->dsp[i] = i * (n + gap + 3);
        x->rdsp[i] = (x->np - 1 - i) * (n + gap + 3); /* reversed: blocks out of order */
        x->wdsp[i] = x->dsp[i] * (int)x->ext;
        x->rwdsp[i] = x->rdsp[i] * (int)x->ext;
        x->awdsp[i] = x->wdsp[i];
        x->arwdsp[i] = x->rwdsp[i];
        x->types[i] = x->dt;
    }
    if (c == C_RS) /* recvcounts over the local group */
        for (int i = 0; i < x->nlocal && i < MAXP; i++) x->rcnt[i] = n + i % 2;
}

/* My own count in the v forms where everybody sends one block. */
static int my_vcount(const ctx *x, int c)
{
    if (c == C_GATHERV || c == C_ALLGATHERV) return x->count + (x->inter ? 0 : x->me % 3);
    if (c == C_SCATTERV) return x->count + x->me % 3;
    return x->count;
}

#define GO(Name, IName, ...)                                                                 \
    (form == F_B   ? MPI_##Name(__VA_ARGS__)                                                 \
     : form == F_I ? MPI_##IName(__VA_ARGS__, req)                                           \
                   : MPI_##Name##_init(__VA_ARGS__, MPI_INFO_NULL, req))

/* Issues collective c in form `form` (req: nonblocking and persistent). */
static int issue(const ctx *x, int c, int form, void *sb, void *rb, MPI_Request *req)
{
    MPI_Comm k = x->comm;
    MPI_Datatype t = x->dt;
    int n = x->count, root = x->root;
    switch (c) {
    case C_BCAST: return GO(Bcast, Ibcast, rb, n, t, root, k);
    case C_REDUCE: return GO(Reduce, Ireduce, sb, rb, n, t, MPI_SUM, root, k);
    case C_ALLREDUCE: return GO(Allreduce, Iallreduce, sb, rb, n, t, MPI_SUM, k);
    case C_RS: return GO(Reduce_scatter, Ireduce_scatter, sb, rb, x->rcnt, t, MPI_SUM, k);
    case C_RSB: /* intercommunicator: both groups reduce the same number of elements */
        return GO(Reduce_scatter_block, Ireduce_scatter_block, sb, rb, x->inter ? n * x->np : n,
                  t, MPI_SUM, k);
    case C_ALLGATHER: return GO(Allgather, Iallgather, sb, n, t, rb, n, t, k);
    case C_ALLGATHERV:
        return GO(Allgatherv, Iallgatherv, sb, my_vcount(x, c), t, rb, x->rcnt, x->rdsp, t, k);
    case C_ALLTOALL: return GO(Alltoall, Ialltoall, sb, n, t, rb, n, t, k);
    case C_ALLTOALLV:
        return GO(Alltoallv, Ialltoallv, sb, x->cnt, x->dsp, t, rb, x->rcnt, x->rdsp, t, k);
    case C_ALLTOALLW:
        return GO(Alltoallw, Ialltoallw, sb, x->cnt, x->wdsp, x->types, rb, x->rcnt, x->rwdsp,
                  x->types, k);
    case C_GATHER: return GO(Gather, Igather, sb, n, t, rb, n, t, root, k);
    case C_GATHERV:
        return GO(Gatherv, Igatherv, sb, my_vcount(x, c), t, rb, x->rcnt, x->rdsp, t, root, k);
    case C_SCATTER: return GO(Scatter, Iscatter, sb, n, t, rb, n, t, root, k);
    case C_SCATTERV:
        return GO(Scatterv, Iscatterv, sb, x->cnt, x->dsp, t, rb, my_vcount(x, c), t, root, k);
    case C_SCAN: return GO(Scan, Iscan, sb, rb, n, t, MPI_SUM, k);
    case C_EXSCAN: return GO(Exscan, Iexscan, sb, rb, n, t, MPI_SUM, k);
    case C_BARRIER: return GO(Barrier, Ibarrier, k);
    case C_NAG: return GO(Neighbor_allgather, Ineighbor_allgather, sb, n, t, rb, n, t, k);
    case C_NAGV:
        return GO(Neighbor_allgatherv, Ineighbor_allgatherv, sb, n, t, rb, x->rcnt, x->rdsp, t,
                  k);
    case C_NA2A: return GO(Neighbor_alltoall, Ineighbor_alltoall, sb, n, t, rb, n, t, k);
    case C_NA2AV:
        return GO(Neighbor_alltoallv, Ineighbor_alltoallv, sb, x->cnt, x->dsp, t, rb, x->rcnt,
                  x->rdsp, t, k);
    case C_NA2AW:
        return GO(Neighbor_alltoallw, Ineighbor_alltoallw, sb, x->cnt, x->awdsp, x->types, rb,
                  x->rcnt, x->arwdsp, x->types, k);
    }
    return MPI_ERR_ARG;
}

/* Fills n bytes of p with ints small enough that sums never overflow. */
static void fill(char *p, size_t n, int seed, int rank)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        int v = (int)((seed * 131 + (int)(i / 4) * 7 + rank * 1000) % 100000);
        memcpy(p + i, &v, 4);
    }
}

static int nchecked;

/* One run of c on buffers s and r: fill, call, (persistent: refill and
 * start again), wait. The buffers' CPU views are s->rw and r->rw. */
static void run(const ctx *x, int c, int form, bool in_place, t_dbuf *s, t_dbuf *r, size_t used,
                int seed)
{
    fill(s->rw, used, seed, x->me);
    fill(r->rw, used, seed + 50, x->me);
    t_dbuf_push(s);
    t_dbuf_push(r);
    void *sb = s->user, *rb = r->user;
    if (in_place) {
        if (c == C_SCATTER || c == C_SCATTERV) {
            if (x->am_root) rb = MPI_IN_PLACE;
        } else if (c == C_REDUCE || c == C_GATHER || c == C_GATHERV) {
            if (x->am_root) sb = MPI_IN_PLACE;
        } else {
            sb = MPI_IN_PLACE;
        }
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = issue(x, c, form, sb, rb, &req);
    CHECK(rc == MPI_SUCCESS, "%s %s returned %d", cname[c], fname[form], rc);
    if (rc != MPI_SUCCESS) return;
    if (form == F_I) MPI_CHK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (form == F_P) {
        MPI_CHK(MPI_Start(&req));
        MPI_CHK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        t_dbuf_pull(s);
        t_dbuf_pull(r);
        fill(s->rw, used, seed + 1, x->me); /* new inputs for the second start */
        fill(r->rw, used / 2, seed + 51, x->me);
        t_dbuf_push(s);
        t_dbuf_push(r);
        MPI_CHK(MPI_Start(&req));
        MPI_CHK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Request_free(&req));
    }
    t_dbuf_pull(s);
    t_dbuf_pull(r);
}

/* The bytes a call of c on x can touch, bounded by BUF. */
static size_t used_bytes(const ctx *x)
{
    size_t p = (size_t)(x->np > x->nlocal ? x->np : x->nlocal);
    size_t n = (p + 1) * ((size_t)x->count + 12) * 16 * 2;
    return n < BUF ? n : BUF;
}

static t_dbuf hs, hr, ds, dr, refs, refr;

/* c on x in every form and memory-kind mix, against the host reference. */
static void compare_all(ctx *x, int c, bool in_place)
{
    setup(x, c);
    size_t used = used_bytes(x);
    for (int form = 0; form < F_N; form++) {
        int seed = c * 17 + form * 5 + x->count;
        run(x, c, form, in_place, &refs, &refr, used, seed);
        for (int mix = 0; mix < 4; mix++) {
            bool sdev = mix == 0 || mix == 1 || (mix == 3 && x->me % 2 == 0);
            bool rdev = mix == 0 || mix == 2 || (mix == 3 && x->me % 2 == 1);
            t_dbuf *s = sdev ? &ds : &hs, *r = rdev ? &dr : &hr;
            run(x, c, form, in_place, s, r, used, seed);
            size_t bad_s = 0, bad_r = 0, first = (size_t)-1;
            for (size_t i = 0; i < used; i++) {
                if (s->rw[i] != refs.rw[i]) bad_s++;
                if (r->rw[i] != refr.rw[i]) {
                    if (!bad_r) first = i;
                    bad_r++;
                }
            }
            CHECK(bad_s == 0 && bad_r == 0,
                  "%s%s %s%s, %s count %d, send %s, recv %s: %zu send and %zu receive bytes "
                  "differ from host buffers (first receive byte %zd)",
                  x->inter ? "intercomm " : "", cname[c], fname[form],
                  in_place ? " in place" : "", x->dt == MPI_INT ? "int" : "vector", x->count,
                  sdev ? "device" : "host", rdev ? "device" : "host", bad_s, bad_r,
                  (ssize_t)(bad_r ? first : 0));
            nchecked++;
        }
    }
}

/* Every intracommunicator case on comm (topo: the neighbourhood ones). */
static void intra_cases(MPI_Comm comm, MPI_Comm ring)
{
    ctx x = {0};
    MPI_Comm_rank(comm, &x.me);
    MPI_Comm_size(comm, &x.nlocal);
    for (int t = 0; t < 2; t++)
        for (int ci = 0; ci < 2; ci++)
            for (int c = 0; c < C_N; c++)
                for (int ip = 0; ip < 2; ip++) {
                    if (ip && !has_in_place(c)) continue;
                    bool topo = c >= C_NAG;
                    x.comm = topo ? ring : comm;
                    x.topo = topo;
                    x.np = topo ? 2 : x.nlocal;
                    x.dt = t ? t_vec : MPI_INT;
                    x.ext = t ? 16 : 4;
                    x.count = ci ? 700 : 1;
                    x.root = x.nlocal - 1;
                    x.am_root = x.me == x.root;
                    /* the vector type in the reductions only at the small size */
                    if (t && ci && is_reduction(c)) continue;
                    compare_all(&x, c, ip);
                }
}

/* The rooted and all-to-all families on an intercommunicator: group 0
 * (even world ranks) holds the root. */
static void inter_cases(void)
{
    if (t_size < 2) return;
    MPI_Comm local, inter;
    int color = t_rank % 2;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &local));
    MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter));
    ctx x = {.comm = inter, .inter = true, .dt = MPI_INT, .ext = 4};
    MPI_Comm_rank(inter, &x.me);
    MPI_Comm_size(inter, &x.nlocal);
    MPI_Comm_remote_size(inter, &x.np);
    x.root = color ? 0 : x.me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    x.am_root = x.root == MPI_ROOT;
    static const int colls[] = {C_BCAST, C_REDUCE, C_ALLREDUCE, C_RSB, C_ALLGATHER,
                                C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_GATHER, C_GATHERV,
                                C_SCATTER, C_SCATTERV};
    for (int ci = 0; ci < 2; ci++)
        for (size_t i = 0; i < sizeof colls / sizeof *colls; i++) {
            x.count = ci ? 300 : 2;
            compare_all(&x, colls[i], false);
        }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* Results checked outright, not only against host buffers. */
static void absolute_checks(void)
{
    enum { N = 1000 };
    int *v = (int *)ds.rw, *w = (int *)dr.rw;
    for (int i = 0; i < N; i++) v[i] = i + t_rank;
    t_dbuf_push(&ds);
    MPI_CHK(MPI_Allreduce(ds.user, dr.user, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    t_dbuf_pull(&dr);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += w[i] != t_size * i + t_size * (t_size - 1) / 2;
    CHECK(bad == 0, "Allreduce on device buffers: %d wrong sums", bad);
    /* in place, nonblocking */
    for (int i = 0; i < N; i++) w[i] = 2 * i + t_rank;
    t_dbuf_push(&dr);
    MPI_Request rq;
    MPI_CHK(MPI_Iallreduce(MPI_IN_PLACE, dr.user, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq));
    MPI_CHK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    t_dbuf_pull(&dr);
    bad = 0;
    for (int i = 0; i < N; i++) bad += w[i] != 2 * i + t_size - 1;
    CHECK(bad == 0, "Iallreduce in place on a device buffer: %d wrong maxima", bad);
    /* Bcast from the last rank */
    for (int i = 0; i < N; i++) v[i] = t_rank == t_size - 1 ? 3 * i + 1 : -1;
    t_dbuf_push(&ds);
    MPI_CHK(MPI_Bcast(ds.user, N, MPI_INT, t_size - 1, MPI_COMM_WORLD));
    t_dbuf_pull(&ds);
    bad = 0;
    for (int i = 0; i < N; i++) bad += v[i] != 3 * i + 1;
    CHECK(bad == 0, "Bcast into a device buffer: %d wrong elements", bad);
    nchecked += 3;
}

/* MPI_Reduce_local with device buffers on either side. */
static void reduce_local(void)
{
    enum { N = 500 };
    for (int mix = 0; mix < 4; mix++) {
        t_dbuf *a = mix & 1 ? &ds : &hs, *b = mix & 2 ? &dr : &hr;
        int *in = (int *)a->rw, *io = (int *)b->rw;
        for (int i = 0; i < N; i++) {
            in[i] = i;
            io[i] = 5 * i;
        }
        t_dbuf_push(a);
        t_dbuf_push(b);
        MPI_CHK(MPI_Reduce_local(a->user, b->user, N, MPI_INT, MPI_SUM));
        t_dbuf_pull(a);
        t_dbuf_pull(b);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += io[i] != 6 * i || in[i] != i;
        CHECK(bad == 0, "Reduce_local (in %s, inout %s): %d wrong elements",
              mix & 1 ? "device" : "host", mix & 2 ? "device" : "host", bad);
        /* a vector type: the holes of inoutbuf stay */
        memset(b->rw, 0x33, 64);
        for (int i = 0; i < 4; i++) in[i] = 10 + i;
        t_dbuf_push(a);
        t_dbuf_push(b);
        MPI_CHK(MPI_Reduce_local(a->user, b->user, 2, t_vec, MPI_BAND));
        t_dbuf_pull(b);
        bad = 0;
        for (int i = 0; i < 32; i++) bad += (unsigned char)b->rw[i] != 0x33 && (i % 8) >= 4;
        CHECK(bad == 0, "Reduce_local on a vector type: %d hole bytes changed", bad);
        nchecked++;
    }
}

/* A device buffer shorter than the data: MPI_ERR_BUFFER on every rank,
 * never a fault (in place: every rank reads it first). */
static void bad_buffer(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t_dbuf small = t_dbuf_new(64, 1);
    int rc = MPI_Allreduce(MPI_IN_PLACE, small.user, 100000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Allreduce past the end of a device block: class %d", cls);
    t_dbuf_free(&small);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_emul_request();
    t_init(&argc, &argv);
    /* the device first: every rank must have it, else all skip */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *probe = t_emul_alloc(4096);
    int have = probe != NULL, all = 0;
    if (probe) MPI_Free_mem(probe);
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (!all) {
        if (t_rank == 0)
            printf("coll_device: no %s device memory here (DMPI_ACCEL=%s): skipped\n",
                   t_dev_cuda() ? "CUDA" : "emulated", getenv("DMPI_ACCEL"));
        return t_finish();
    }
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 16, &t_vec);
    MPI_Type_free(&v);
    MPI_Type_commit(&t_vec);
    hs = t_dbuf_new(BUF, 0);
    hr = t_dbuf_new(BUF, 0);
    refs = t_dbuf_new(BUF, 0);
    refr = t_dbuf_new(BUF, 0);
    ds = t_dbuf_new(BUF, 1);
    dr = t_dbuf_new(BUF, 1);

    MPI_Comm ring;
    int dims[1] = {t_size}, periods[1] = {0};
    MPI_CHK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    intra_cases(MPI_COMM_WORLD, ring);
    MPI_Comm_free(&ring);
    inter_cases();
    absolute_checks();
    reduce_local();
    bad_buffer();

    t_dbuf_free(&hs);
    t_dbuf_free(&hr);
    t_dbuf_free(&refs);
    t_dbuf_free(&refr);
    t_dbuf_free(&ds);
    t_dbuf_free(&dr);
    MPI_Type_free(&t_vec);
    CHECK(nchecked > 0, "nothing was checked");
    return t_finish();
}
