/* dtype_random.c: randomly built datatypes (every constructor, nested up
 * to three levels, int and _c forms, negative strides and displacements,
 * empty blocks, resized bounds) checked against a reference typemap that
 * the test derives on its own from MPI_Type_get_envelope/contents: size
 * and true bounds, MPI_Pack / MPI_Unpack of several elements, the same
 * data sent to the partner with the type and received as MPI_PACKED (and
 * the other way round; messages of up to a few megabytes arrive in
 * pieces, so the type is entered at arbitrary byte offsets), and
 * MPI_Get_elements for byte counts that end anywhere in the message.
 * Every rank builds the same types (same seed; argv[1] sets the number of
 * types, argv[2] the seed). */
#include "common.h"

#include <stdbool.h>

/* ------------------------------------------------- reference typemaps */
typedef struct { long disp; int size; } ent;
typedef struct { ent *e; long n, cap; } tmap;

static void tm_add(tmap *m, long d, int size)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->e = realloc(m->e, m->cap * sizeof(ent));
        if (!m->e) MPI_Abort(MPI_COMM_WORLD, 2);
    }
    m->e[m->n++] = (ent){d, size};
}

static long extent_of(MPI_Datatype t)
{
    MPI_Count lb, e;
    MPI_Type_get_extent_c(t, &lb, &e);
    return (long)e;
}

static int combiner_of(MPI_Datatype t)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    return comb;
}

static void free_derived(MPI_Datatype *t)
{
    if (combiner_of(*t) != MPI_COMBINER_NAMED) MPI_Type_free(t);
}

/* Predefined types: their basic elements (pairs are value + int). */
static void named(MPI_Datatype t, long d, tmap *m)
{
    struct { double v; int i; } di;
    struct { float v; int i; } fi;
    struct { short v; int i; } si;
    struct { long double v; int i; } li;
    if (t == MPI_DOUBLE_INT) tm_add(m, d, 8), tm_add(m, d + ((char *)&di.i - (char *)&di), 4);
    else if (t == MPI_FLOAT_INT) tm_add(m, d, 4), tm_add(m, d + ((char *)&fi.i - (char *)&fi), 4);
    else if (t == MPI_SHORT_INT) tm_add(m, d, 2), tm_add(m, d + ((char *)&si.i - (char *)&si), 4);
    else if (t == MPI_LONG_DOUBLE_INT)
        tm_add(m, d, sizeof(long double)), tm_add(m, d + ((char *)&li.i - (char *)&li), 4);
    else if (t == MPI_2INT) tm_add(m, d, 4), tm_add(m, d + 4, 4);
    else {
        int s;
        MPI_Type_size(t, &s);
        tm_add(m, d, s);
    }
}

/* darray: the global indices coordinate c owns along one dimension. */
static long owned(int dist, int darg, long g, int p, int c, long *idx)
{
    long n = 0;
    for (long j = 0; j < g; j++) {
        long b = dist == MPI_DISTRIBUTE_BLOCK ? (darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg)
                 : dist == MPI_DISTRIBUTE_CYCLIC ? (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)
                                                 : g;
        int own = dist == MPI_DISTRIBUTE_CYCLIC ? (int)((j / b) % p) : (int)(j / b);
        if (own == c) idx[n++] = j;
    }
    return n;
}

static void flatten(MPI_Datatype t, long d, tmap *m)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        named(t, d, m);
        return;
    }
    int *I = t_malloc((ni + 1) * sizeof *I);
    MPI_Aint *A = t_malloc((na + 1) * sizeof *A);
    MPI_Count *C = t_malloc((nc + 1) * sizeof *C);
    MPI_Datatype *T = t_malloc((nd + 1) * sizeof *T);
    MPI_Type_get_contents_c(t, ni, na, nc, nd, I, A, C, T);
    int L = nc > 0;
#define V(k) (L ? (long)C[k] : (long)I[k])
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: flatten(T[0], d, m); break;
    case MPI_COMBINER_CONTIGUOUS:
        for (long i = 0; i < V(0); i++) flatten(T[0], d + i * extent_of(T[0]), m);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        long e = extent_of(T[0]);
        long st = comb == MPI_COMBINER_VECTOR ? V(2) * e : (L ? (long)C[2] : (long)A[0]);
        for (long i = 0; i < V(0); i++)
            for (long j = 0; j < V(1); j++) flatten(T[0], d + i * st + j * e, m);
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT: {
        long cnt = V(0);
        int block = comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
        int bytes = comb != MPI_COMBINER_INDEXED && comb != MPI_COMBINER_INDEXED_BLOCK;
        long nbl = block ? 1 : cnt;
        for (long i = 0; i < cnt; i++) {
            MPI_Datatype ti = comb == MPI_COMBINER_STRUCT ? T[i] : T[0];
            long e = extent_of(ti), bl = V(1 + (block ? 0 : i));
            long dd = L ? (long)C[1 + nbl + i] : bytes ? (long)A[i] : (long)I[1 + nbl + i];
            if (!bytes) dd *= e;
            for (long j = 0; j < bl; j++) flatten(ti, d + dd + j * e, m);
        }
        break;
    }
    case MPI_COMBINER_SUBARRAY: {
        int n = I[0], order = L ? I[1] : I[3 * n + 1];
        long sz[8], sub[8], st[8], idx[8] = {0}, total = 1;
        for (int k = 0; k < n; k++) {
            sz[k] = L ? (long)C[k] : I[1 + k];
            sub[k] = L ? (long)C[n + k] : I[1 + n + k];
            st[k] = L ? (long)C[2 * n + k] : I[1 + 2 * n + k];
            total *= sub[k];
        }
        long e = extent_of(T[0]);
        for (long q = 0; q < total; q++) {
            long off = 0, mul = e;
            for (int k = 0; k < n; k++) {
                int dim = order == MPI_ORDER_C ? n - 1 - k : k;
                off += (st[dim] + idx[dim]) * mul;
                mul *= sz[dim];
            }
            flatten(T[0], d + off, m);
            for (int k = 0; k < n; k++) {
                int dim = order == MPI_ORDER_C ? n - 1 - k : k;
                if (++idx[dim] < sub[dim]) break;
                idx[dim] = 0;
            }
        }
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int rank = I[1], n = I[2], order, *dist, *darg, *ps;
        long g[8];
        if (L) {
            for (int k = 0; k < n; k++) g[k] = (long)C[k];
            dist = I + 3, darg = I + 3 + n, ps = I + 3 + 2 * n, order = I[3 + 3 * n];
        } else {
            for (int k = 0; k < n; k++) g[k] = I[3 + k];
            dist = I + 3 + n, darg = I + 3 + 2 * n, ps = I + 3 + 3 * n, order = I[3 + 4 * n];
        }
        int coord[8];
        for (int k = n - 1, r = rank; k >= 0; k--) coord[k] = r % ps[k], r /= ps[k];
        long *ix[8], cnt[8], pos[8] = {0}, total = 1;
        for (int k = 0; k < n; k++) {
            ix[k] = t_malloc((g[k] + 1) * sizeof(long));
            cnt[k] = owned(dist[k], darg[k], g[k], ps[k], coord[k], ix[k]);
            total *= cnt[k];
        }
        long e = extent_of(T[0]);
        for (long q = 0; q < total; q++) {
            long off = 0, mul = e;
            for (int k = 0; k < n; k++) {
                int dim = order == MPI_ORDER_C ? n - 1 - k : k;
                off += ix[dim][pos[dim]] * mul;
                mul *= g[dim];
            }
            flatten(T[0], d + off, m);
            for (int k = 0; k < n; k++) {
                int dim = order == MPI_ORDER_C ? n - 1 - k : k;
                if (++pos[dim] < cnt[dim]) break;
                pos[dim] = 0;
            }
        }
        for (int k = 0; k < n; k++) free(ix[k]);
        break;
    }
    default: CHECK(0, "unexpected combiner %d", comb);
    }
#undef V
    for (long i = 0; i < nd; i++) free_derived(&T[i]);
    free(I);
    free(A);
    free(C);
    free(T);
}

/* ------------------------------------------------------ random types */
static unsigned long long rng = 88172645463325252ull;
static int R(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)((rng >> 11) % (unsigned long long)n);
}

static const MPI_Datatype leaves[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_SHORT, MPI_DOUBLE_INT,
                                      MPI_2INT, MPI_FLOAT_INT, MPI_SHORT_INT, MPI_BYTE, MPI_FLOAT};

static MPI_Datatype random_type(int depth)
{
    if (depth == 0 || R(6) == 0) return leaves[R(sizeof leaves / sizeof leaves[0])];
    MPI_Datatype old = random_type(depth - 1), t = MPI_DATATYPE_NULL;
    int c = R(2), k = R(13), cnt = 1 + R(5), bl = R(4), st = R(9) - 3;
    if (R(5) == 0) cnt = 20 + R(300);
    long e = extent_of(old);
    switch (k) {
    case 0:
        if (c) MPI_Type_contiguous_c(cnt, old, &t);
        else MPI_Type_contiguous(cnt, old, &t);
        break;
    case 1:
        if (c) MPI_Type_vector_c(cnt, bl, st, old, &t);
        else MPI_Type_vector(cnt, bl, st, old, &t);
        break;
    case 2: {
        MPI_Aint s = st * e + R(5) - 2;
        if (c) MPI_Type_create_hvector_c(cnt, bl, s, old, &t);
        else MPI_Type_create_hvector(cnt, bl, s, old, &t);
        break;
    }
    case 3: case 4: case 5: case 6: case 7: {
        int n = 1 + R(5), bls[6], ds[6];
        MPI_Aint ad[6];
        MPI_Count bc[6], dc[6];
        MPI_Datatype ts[6];
        for (int i = 0; i < n; i++) {
            bls[i] = R(4);
            ds[i] = R(20) - 5;
            ad[i] = ds[i] * e + (R(3) == 0 ? R(7) - 3 : 0);
            bc[i] = bls[i];
            ts[i] = R(2) ? old : random_type(depth - 1);
        }
        for (int i = 0; i < n; i++) dc[i] = (k == 3 || k == 5) ? ds[i] : ad[i];
        if (k == 3) {
            if (c) MPI_Type_indexed_c(n, bc, dc, old, &t);
            else MPI_Type_indexed(n, bls, ds, old, &t);
        } else if (k == 4) {
            if (c) MPI_Type_create_hindexed_c(n, bc, dc, old, &t);
            else MPI_Type_create_hindexed(n, bls, ad, old, &t);
        } else if (k == 5) {
            if (c) MPI_Type_create_indexed_block_c(n, bl, dc, old, &t);
            else MPI_Type_create_indexed_block(n, bl, ds, old, &t);
        } else if (k == 6) {
            if (c) MPI_Type_create_hindexed_block_c(n, bl, dc, old, &t);
            else MPI_Type_create_hindexed_block(n, bl, ad, old, &t);
        } else {
            if (c) MPI_Type_create_struct_c(n, bc, dc, ts, &t);
            else MPI_Type_create_struct(n, bls, ad, ts, &t);
        }
        for (int i = 0; i < n; i++)
            if (ts[i] != old) free_derived(&ts[i]);
        break;
    }
    case 8: case 9: {
        int n = 1 + R(3), sz[3], sub[3], s0[3], order = R(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        MPI_Count a[3], b[3], cc[3];
        for (int i = 0; i < n; i++) {
            sz[i] = 1 + R(6);
            sub[i] = 1 + R(sz[i]);
            s0[i] = R(sz[i] - sub[i] + 1);
            a[i] = sz[i], b[i] = sub[i], cc[i] = s0[i];
        }
        if (c) MPI_Type_create_subarray_c(n, a, b, cc, order, old, &t);
        else MPI_Type_create_subarray(n, sz, sub, s0, order, old, &t);
        break;
    }
    case 10:
        if (c) MPI_Type_create_resized_c(old, R(9) - 4, e + R(9) - 2, &t);
        else MPI_Type_create_resized(old, R(9) - 4, e + R(9) - 2, &t);
        break;
    case 11: MPI_Type_dup(old, &t); break;
    case 12: {
        int n = 1 + R(2), size = 1, g[2], dist[2], darg[2], ps[2];
        for (int i = 0; i < n; i++) {
            g[i] = 1 + R(9);
            int d = R(3);
            dist[i] = d == 0 ? MPI_DISTRIBUTE_BLOCK : d == 1 ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_NONE;
            ps[i] = dist[i] == MPI_DISTRIBUTE_NONE ? 1 : 1 + R(3);
            size *= ps[i];
            darg[i] = R(2) ? MPI_DISTRIBUTE_DFLT_DARG : 1 + R(3);
            if (dist[i] == MPI_DISTRIBUTE_BLOCK && darg[i] * ps[i] < g[i]) darg[i] = MPI_DISTRIBUTE_DFLT_DARG;
        }
        int order = R(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        if (c) {
            MPI_Count gc[2] = {g[0], g[1]};
            MPI_Type_create_darray_c(size, R(size), n, gc, dist, darg, ps, order, old, &t);
        } else {
            MPI_Type_create_darray(size, R(size), n, g, dist, darg, ps, order, old, &t);
        }
        break;
    }
    }
    free_derived(&old);
    CHECK(t != MPI_DATATYPE_NULL, "constructor %d failed", k);
    return t == MPI_DATATYPE_NULL ? MPI_INT : t;
}

/* ------------------------------------------------------------- checks */
/* The buffers are addressed as mem + shift + displacement, the offset
 * summed first: shift may be negative, and a pointer formed before the
 * start of mem would be undefined (_FORTIFY_SOURCE=3 rejects the copies). */
static void pack_ref(const tmap *m, const char *mem, long shift, long count, long ext,
                     unsigned char *out)
{
    long pos = 0;
    for (long c = 0; c < count; c++)
        for (long i = 0; i < m->n; i++) {
            memcpy(out + pos, mem + (shift + c * ext + m->e[i].disp), m->e[i].size);
            pos += m->e[i].size;
        }
}

static void unpack_ref(const tmap *m, char *mem, long shift, long count, long ext,
                       const unsigned char *in)
{
    long pos = 0;
    for (long c = 0; c < count; c++)
        for (long i = 0; i < m->n; i++) {
            memcpy(mem + (shift + c * ext + m->e[i].disp), in + pos, m->e[i].size);
            pos += m->e[i].size;
        }
}

static int cmp_disp(const void *a, const void *b)
{
    long x = ((const ent *)a)->disp, y = ((const ent *)b)->disp;
    return x < y ? -1 : x > y;
}

/* Do the entries of count elements overlap (then it cannot be received)? */
static int overlaps(const tmap *m, long count, long ext)
{
    long n = m->n * count;
    ent *all = t_malloc((n + 1) * sizeof *all);
    for (long c = 0; c < count; c++)
        for (long i = 0; i < m->n; i++) all[c * m->n + i] = (ent){m->e[i].disp + c * ext, m->e[i].size};
    qsort(all, n, sizeof *all, cmp_disp);
    int ov = 0;
    for (long i = 1; i < n && !ov; i++) ov = all[i].disp < all[i - 1].disp + all[i - 1].size;
    free(all);
    return ov;
}

static void check_type(int it, MPI_Datatype t)
{
    MPI_CHK(MPI_Type_commit(&t));
    tmap m = {0};
    flatten(t, 0, &m);
    MPI_Count size, lb, ext, tlb, text;
    MPI_Type_size_c(t, &size);
    MPI_Type_get_extent_c(t, &lb, &ext);
    MPI_Type_get_true_extent_c(t, &tlb, &text);
    long rsize = 0, lo = 0, hi = 0;
    for (long i = 0; i < m.n; i++) {
        rsize += m.e[i].size;
        if (i == 0 || m.e[i].disp < lo) lo = m.e[i].disp;
        if (i == 0 || m.e[i].disp + m.e[i].size > hi) hi = m.e[i].disp + m.e[i].size;
    }
    CHECK(rsize == size, "type %d: size %lld, typemap says %ld", it, (long long)size, rsize);
    if (m.n && !T_MPICH_QUIRK("MPICH 5.0.2 counts members without data in the true bounds"))
        CHECK(lo == tlb && hi - lo == text, "type %d: true lb/extent %lld/%lld, typemap %ld/%ld", it,
              (long long)tlb, (long long)text, lo, hi - lo);
    int count = 1 + R(3);
    if (R(3) == 0 && size > 0 && size * 200 < (4 << 20)) count = 20 + R(180); /* long messages */
    long span_lo = lo + (ext < 0 ? (count - 1) * ext : 0), span_hi = hi + (ext > 0 ? (count - 1) * ext : 0);
    long blen = span_hi - span_lo + 64, tot = rsize * count;
    char *mem = t_malloc(blen), *mem2 = t_malloc(blen), *mem3 = t_malloc(blen);
    char *base = mem + 32 - span_lo, *base2 = mem2 + 32 - span_lo;
    unsigned char *ref = t_malloc(tot + 1), *out = t_malloc(tot + 1);
    t_fill(mem, blen, (unsigned)it);
    pack_ref(&m, mem, 32 - span_lo, count, ext, ref);
    /* MPI_Pack */
    int pos = 0;
    MPI_CHK(MPI_Pack(base, count, t, out, (int)tot, &pos, MPI_COMM_WORLD));
    CHECK(pos == tot && memcmp(out, ref, tot) == 0, "type %d: MPI_Pack differs from the typemap", it);
    /* sent with the type, received as MPI_PACKED */
    int peer = t_partner();
    MPI_Status st;
    memset(out, 0, tot + 1);
    MPI_CHK(MPI_Sendrecv(base, count, t, peer, it, out, (int)tot, MPI_PACKED, peer, it,
                         MPI_COMM_WORLD, &st));
    CHECK(memcmp(out, ref, tot) == 0, "type %d: sent %ld bytes differ from the typemap", it, tot);
    /* received with the type, from MPI_PACKED and through MPI_Unpack */
    if (!overlaps(&m, count, ext)) {
        for (long i = 0; i < tot; i++) ref[i] = (unsigned char)(i * 31 + it);
        t_fill(mem2, blen, 9);
        t_fill(mem3, blen, 9);
        unpack_ref(&m, mem3, 32 - span_lo, count, ext, ref);
        if (peer != t_rank || !T_MPICH_QUIRK("MPICH 5.0.2 refuses MPI_PACKED data sent to self "
                                             "and received with a derived type")) {
            MPI_CHK(MPI_Sendrecv(ref, (int)tot, MPI_PACKED, peer, it, base2, count, t, peer, it,
                                 MPI_COMM_WORLD, &st));
            CHECK(memcmp(mem2, mem3, blen) == 0, "type %d: received data differs from the typemap",
                  it);
        }
        t_fill(mem2, blen, 9);
        pos = 0;
        MPI_CHK(MPI_Unpack(ref, (int)tot, &pos, base2, count, t, MPI_COMM_WORLD));
        CHECK(memcmp(mem2, mem3, blen) == 0, "type %d: MPI_Unpack differs from the typemap", it);
    }
    /* basic elements in a prefix of the message */
    bool skip = T_MPICH_QUIRK("MPICH 5.0.2 asserts in MPI_Get_elements_x on some derived types");
    for (int q = 0; q < 6 && tot > 0 && !skip; q++) {
        long nb = R((int)tot + 1), acc = 0, ne = 0;
        int inside = 0;
        for (long c = 0; c < count && acc < nb; c++)
            for (long i = 0; i < m.n && acc < nb; i++) {
                acc += m.e[i].size;
                if (acc <= nb) ne++;
                else inside = 1;
            }
        MPI_Status_set_elements_x(&st, MPI_BYTE, nb);
        MPI_Count ge = -7;
        MPI_Get_elements_x(&st, t, &ge);
        CHECK(ge == (inside ? MPI_UNDEFINED : ne), "type %d: Get_elements(%ld bytes) %lld, want %ld",
              it, nb, (long long)ge, inside ? (long)MPI_UNDEFINED : ne);
    }
    free(mem);
    free(mem2);
    free(mem3);
    free(ref);
    free(out);
    free(m.e);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int ntypes = argc > 1 ? atoi(argv[1]) : 300;
    if (argc > 2) rng = strtoull(argv[2], NULL, 10);
    for (int it = 0; it < ntypes && t_errs == 0; it++) {
        MPI_Datatype t = random_type(3);
        MPI_Count size;
        MPI_Type_size_c(t, &size);
        if (size <= 1 << 20) check_type(it, t);
        free_derived(&t);
    }
    return t_finish();
}
