/* dtype_envelope.c: MPI_Type_get_envelope / MPI_Type_get_contents (and the
 * _c forms) for every combiner, made with the int and the large-count
 * constructors: the combiner, the argument counts and the arguments come
 * back exactly as given; a type rebuilt from its contents has the same
 * size, extent and packed bytes; predefined types are MPI_COMBINER_NAMED
 * (and have no contents); the int forms refuse a type made with large
 * counts; derived inner types come back as handles the caller frees, and
 * stay usable after the user freed the original inner handle. */
#include "common.h"

static MPI_Datatype vec; /* an inner derived type */

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static void free_if_derived(MPI_Datatype *t)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(*t, &ni, &na, &nc, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED && comb != MPI_COMBINER_F90_REAL &&
        comb != MPI_COMBINER_F90_COMPLEX && comb != MPI_COMBINER_F90_INTEGER)
        MPI_Type_free(t);
}

/* Two types are alike: same size, extent, true extent and packed form of
 * a patterned buffer. */
static void check_alike(const char *what, MPI_Datatype a, MPI_Datatype b)
{
    MPI_Count sa, sb, la, ea, lb, eb, tla, tea, tlb, teb;
    MPI_Type_size_c(a, &sa);
    MPI_Type_size_c(b, &sb);
    MPI_Type_get_extent_c(a, &la, &ea);
    MPI_Type_get_extent_c(b, &lb, &eb);
    MPI_Type_get_true_extent_c(a, &tla, &tea);
    MPI_Type_get_true_extent_c(b, &tlb, &teb);
    CHECK(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
          "%s: rebuilt type differs: size %lld/%lld lb %lld/%lld extent %lld/%lld", what,
          (long long)sa, (long long)sb, (long long)la, (long long)lb, (long long)ea, (long long)eb);
    if (sa != sb || tea > 100000 || tea < 0) return;
    char *buf = t_malloc((size_t)tea + 1);
    t_fill(buf, (size_t)tea + 1, 3);
    char *base = buf - tla;
    char *pa = t_malloc((size_t)sa + 1), *pb = t_malloc((size_t)sa + 1);
    MPI_Datatype ca = a, cb = b;
    MPI_Type_dup(a, &ca);
    MPI_Type_dup(b, &cb);
    MPI_Type_commit(&ca);
    MPI_Type_commit(&cb);
    int pos = 0;
    MPI_CHK(MPI_Pack(base, 1, ca, pa, (int)sa, &pos, MPI_COMM_WORLD));
    pos = 0;
    MPI_CHK(MPI_Pack(base, 1, cb, pb, (int)sa, &pos, MPI_COMM_WORLD));
    CHECK(memcmp(pa, pb, (size_t)sa) == 0, "%s: rebuilt type packs different bytes", what);
    MPI_Type_free(&ca);
    MPI_Type_free(&cb);
    free(buf);
    free(pa);
    free(pb);
}

/* Checks the envelope (both forms) and returns the contents, rebuilding
 * the type from them with the same constructor. */
static void roundtrip(const char *what, MPI_Datatype t, int comb, int ni, int na, int nc, int nd,
                      const int *ints, const MPI_Aint *addrs, const MPI_Count *counts,
                      const MPI_Datatype *types)
{
    MPI_Count cni = -1, cna = -1, cnc = -1, cnd = -1;
    int ccomb = -1;
    MPI_CHK(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &ccomb));
    CHECK(ccomb == comb && cni == ni && cna == na && cnc == nc && cnd == nd,
          "%s: envelope_c combiner %d (%lld ints, %lld addresses, %lld counts, %lld types), want "
          "%d (%d, %d, %d, %d)", what, ccomb, (long long)cni, (long long)cna, (long long)cnc,
          (long long)cnd, comb, ni, na, nc, nd);
    int ini = -1, ina = -1, ind = -1, icomb = -1;
    int rc = MPI_Type_get_envelope(t, &ini, &ina, &ind, &icomb);
    if (nc == 0) {
        CHECK(rc == MPI_SUCCESS && icomb == comb && ini == ni && ina == na && ind == nd,
              "%s: envelope rc %d combiner %d (%d, %d, %d)", what, rc, icomb, ini, ina, ind);
    } else {
        CHECK(rc != MPI_SUCCESS, "%s: MPI_Type_get_envelope accepted a large-count type", what);
    }
    int gi[64];
    MPI_Aint ga[64];
    MPI_Count gc[64];
    MPI_Datatype gt[64];
    MPI_CHK(MPI_Type_get_contents_c(t, 64, 64, 64, 64, gi, ga, gc, gt));
    for (int i = 0; i < ni; i++)
        CHECK(gi[i] == ints[i], "%s: integer %d is %d, want %d", what, i, gi[i], ints[i]);
    for (int i = 0; i < na; i++)
        CHECK(ga[i] == addrs[i], "%s: address %d is %ld, want %ld", what, i, (long)ga[i],
              (long)addrs[i]);
    for (int i = 0; i < nc; i++)
        CHECK(gc[i] == counts[i], "%s: large count %d is %lld, want %lld", what, i,
              (long long)gc[i], (long long)counts[i]);
    for (int i = 0; i < nd; i++) {
        if (is_named(types[i]))
            CHECK(gt[i] == types[i], "%s: datatype %d is not the predefined handle given", what, i);
        else
            check_alike(what, gt[i], types[i]);
    }
    if (nc == 0) { /* the int form gives the same */
        int hi[64];
        MPI_Aint ha[64];
        MPI_Datatype ht[64];
        MPI_CHK(MPI_Type_get_contents(t, 64, 64, 64, hi, ha, ht));
        CHECK(ni == 0 || memcmp(hi, gi, ni * sizeof(int)) == 0, "%s: int contents differ", what);
        for (int i = 0; i < nd; i++) free_if_derived(&ht[i]);
    }
    /* rebuild with the same constructor */
    MPI_Datatype r = MPI_DATATYPE_NULL;
    switch (comb) {
    case MPI_COMBINER_DUP: MPI_Type_dup(gt[0], &r); break;
    case MPI_COMBINER_CONTIGUOUS:
        if (nc) MPI_Type_contiguous_c(gc[0], gt[0], &r);
        else MPI_Type_contiguous(gi[0], gt[0], &r);
        break;
    case MPI_COMBINER_VECTOR:
        if (nc) MPI_Type_vector_c(gc[0], gc[1], gc[2], gt[0], &r);
        else MPI_Type_vector(gi[0], gi[1], gi[2], gt[0], &r);
        break;
    case MPI_COMBINER_HVECTOR:
        if (nc) MPI_Type_create_hvector_c(gc[0], gc[1], gc[2], gt[0], &r);
        else MPI_Type_create_hvector(gi[0], gi[1], ga[0], gt[0], &r);
        break;
    case MPI_COMBINER_INDEXED:
        if (nc) MPI_Type_indexed_c(gc[0], gc + 1, gc + 1 + gc[0], gt[0], &r);
        else MPI_Type_indexed(gi[0], gi + 1, gi + 1 + gi[0], gt[0], &r);
        break;
    case MPI_COMBINER_HINDEXED:
        if (nc) MPI_Type_create_hindexed_c(gc[0], gc + 1, gc + 1 + gc[0], gt[0], &r);
        else MPI_Type_create_hindexed(gi[0], gi + 1, ga, gt[0], &r);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        if (nc) MPI_Type_create_indexed_block_c(gc[0], gc[1], gc + 2, gt[0], &r);
        else MPI_Type_create_indexed_block(gi[0], gi[1], gi + 2, gt[0], &r);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (nc) MPI_Type_create_hindexed_block_c(gc[0], gc[1], gc + 2, gt[0], &r);
        else MPI_Type_create_hindexed_block(gi[0], gi[1], ga, gt[0], &r);
        break;
    case MPI_COMBINER_STRUCT:
        if (nc) MPI_Type_create_struct_c(gc[0], gc + 1, gc + 1 + gc[0], gt, &r);
        else MPI_Type_create_struct(gi[0], gi + 1, ga, gt, &r);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = gi[0];
        if (nc) MPI_Type_create_subarray_c(n, gc, gc + n, gc + 2 * n, gi[1], gt[0], &r);
        else MPI_Type_create_subarray(n, gi + 1, gi + 1 + n, gi + 1 + 2 * n, gi[1 + 3 * n], gt[0], &r);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = gi[2];
        if (nc)
            MPI_Type_create_darray_c(gi[0], gi[1], n, gc, gi + 3, gi + 3 + n, gi + 3 + 2 * n,
                                     gi[3 + 3 * n], gt[0], &r);
        else
            MPI_Type_create_darray(gi[0], gi[1], n, gi + 3, gi + 3 + n, gi + 3 + 2 * n,
                                   gi + 3 + 3 * n, gi[3 + 4 * n], gt[0], &r);
        break;
    }
    case MPI_COMBINER_RESIZED:
        if (nc) MPI_Type_create_resized_c(gt[0], gc[0], gc[1], &r);
        else MPI_Type_create_resized(gt[0], ga[0], ga[1], &r);
        break;
    default: /* f90 types: nothing to rebuild */
        for (int i = 0; i < nd; i++) free_if_derived(&gt[i]);
        return;
    }
    CHECK(r != MPI_DATATYPE_NULL, "%s: could not rebuild the type", what);
    if (r != MPI_DATATYPE_NULL) {
        check_alike(what, t, r);
        MPI_Type_free(&r);
    }
    for (int i = 0; i < nd; i++) free_if_derived(&gt[i]);
}

static void test_combiners(void)
{
    MPI_Datatype t;
    MPI_Datatype tv[1] = {vec}, ti[1] = {MPI_INT};

    MPI_Type_dup(vec, &t);
    roundtrip("dup", t, MPI_COMBINER_DUP, 0, 0, 0, 1, NULL, NULL, NULL, tv);
    MPI_Type_free(&t);

    MPI_Type_contiguous(3, vec, &t);
    roundtrip("contiguous", t, MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1, (int[]){3}, NULL, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_contiguous_c(4, MPI_INT, &t);
    roundtrip("contiguous_c", t, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, NULL, NULL,
              (MPI_Count[]){4}, ti);
    MPI_Type_free(&t);

    MPI_Type_vector(3, 2, -4, vec, &t);
    roundtrip("vector", t, MPI_COMBINER_VECTOR, 3, 0, 0, 1, (int[]){3, 2, -4}, NULL, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_vector_c(5, 1, 3, MPI_INT, &t);
    roundtrip("vector_c", t, MPI_COMBINER_VECTOR, 0, 0, 3, 1, NULL, NULL,
              (MPI_Count[]){5, 1, 3}, ti);
    MPI_Type_free(&t);

    MPI_Type_create_hvector(2, 3, 100, vec, &t);
    roundtrip("hvector", t, MPI_COMBINER_HVECTOR, 2, 1, 0, 1, (int[]){2, 3}, (MPI_Aint[]){100},
              NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_hvector_c(2, 3, -20, MPI_INT, &t);
    roundtrip("hvector_c", t, MPI_COMBINER_HVECTOR, 0, 0, 3, 1, NULL, NULL,
              (MPI_Count[]){2, 3, -20}, ti);
    MPI_Type_free(&t);

    MPI_Type_indexed(3, (int[]){1, 0, 2}, (int[]){5, 1, -2}, vec, &t);
    roundtrip("indexed", t, MPI_COMBINER_INDEXED, 7, 0, 0, 1, (int[]){3, 1, 0, 2, 5, 1, -2}, NULL,
              NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_indexed_c(2, (MPI_Count[]){2, 3}, (MPI_Count[]){7, 0}, MPI_INT, &t);
    roundtrip("indexed_c", t, MPI_COMBINER_INDEXED, 0, 0, 5, 1, NULL, NULL,
              (MPI_Count[]){2, 2, 3, 7, 0}, ti);
    MPI_Type_free(&t);

    MPI_Type_create_hindexed(2, (int[]){2, 1}, (MPI_Aint[]){64, -8}, vec, &t);
    roundtrip("hindexed", t, MPI_COMBINER_HINDEXED, 3, 2, 0, 1, (int[]){2, 2, 1},
              (MPI_Aint[]){64, -8}, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_c(2, (MPI_Count[]){1, 4}, (MPI_Count[]){40, 0}, MPI_INT, &t);
    roundtrip("hindexed_c", t, MPI_COMBINER_HINDEXED, 0, 0, 5, 1, NULL, NULL,
              (MPI_Count[]){2, 1, 4, 40, 0}, ti);
    MPI_Type_free(&t);

    MPI_Type_create_indexed_block(3, 2, (int[]){0, 9, 4}, vec, &t);
    roundtrip("indexed_block", t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 0, 1, (int[]){3, 2, 0, 9, 4},
              NULL, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_indexed_block_c(2, 3, (MPI_Count[]){6, 0}, MPI_INT, &t);
    roundtrip("indexed_block_c", t, MPI_COMBINER_INDEXED_BLOCK, 0, 0, 4, 1, NULL, NULL,
              (MPI_Count[]){2, 3, 6, 0}, ti);
    MPI_Type_free(&t);

    MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){48, 0}, vec, &t);
    roundtrip("hindexed_block", t, MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 0, 1, (int[]){2, 1},
              (MPI_Aint[]){48, 0}, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_block_c(3, 2, (MPI_Count[]){0, 16, 32}, MPI_INT, &t);
    roundtrip("hindexed_block_c", t, MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, NULL, NULL,
              (MPI_Count[]){3, 2, 0, 16, 32}, ti);
    MPI_Type_free(&t);

    MPI_Datatype st[3] = {MPI_INT, vec, MPI_DOUBLE};
    MPI_Type_create_struct(3, (int[]){1, 2, 3}, (MPI_Aint[]){0, 8, 200}, st, &t);
    roundtrip("struct", t, MPI_COMBINER_STRUCT, 4, 3, 0, 3, (int[]){3, 1, 2, 3},
              (MPI_Aint[]){0, 8, 200}, NULL, st);
    MPI_Type_free(&t);
    MPI_Type_create_struct_c(3, (MPI_Count[]){2, 1, 1}, (MPI_Count[]){16, 0, 48}, st, &t);
    roundtrip("struct_c", t, MPI_COMBINER_STRUCT, 0, 0, 7, 3, NULL, NULL,
              (MPI_Count[]){3, 2, 1, 1, 16, 0, 48}, st);
    MPI_Type_free(&t);

    MPI_Type_create_subarray(2, (int[]){5, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                             vec, &t);
    roundtrip("subarray", t, MPI_COMBINER_SUBARRAY, 8, 0, 0, 1,
              (int[]){2, 5, 6, 2, 3, 1, 2, MPI_ORDER_FORTRAN}, NULL, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_subarray_c(2, (MPI_Count[]){4, 5}, (MPI_Count[]){2, 3}, (MPI_Count[]){1, 1},
                               MPI_ORDER_C, MPI_INT, &t);
    roundtrip("subarray_c", t, MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, (int[]){2, MPI_ORDER_C}, NULL,
              (MPI_Count[]){4, 5, 2, 3, 1, 1}, ti);
    MPI_Type_free(&t);

    int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    MPI_Type_create_darray(4, 3, 2, (int[]){9, 10}, dist, darg, (int[]){2, 2}, MPI_ORDER_C, vec, &t);
    roundtrip("darray", t, MPI_COMBINER_DARRAY, 12, 0, 0, 1,
              (int[]){4, 3, 2, 9, 10, dist[0], dist[1], darg[0], darg[1], 2, 2, MPI_ORDER_C}, NULL,
              NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_darray_c(4, 1, 2, (MPI_Count[]){9, 10}, dist, darg, (int[]){2, 2},
                             MPI_ORDER_FORTRAN, MPI_INT, &t);
    roundtrip("darray_c", t, MPI_COMBINER_DARRAY, 10, 0, 2, 1,
              (int[]){4, 1, 2, dist[0], dist[1], darg[0], darg[1], 2, 2, MPI_ORDER_FORTRAN}, NULL,
              (MPI_Count[]){9, 10}, ti);
    MPI_Type_free(&t);

    MPI_Type_create_resized(vec, -4, 40, &t);
    roundtrip("resized", t, MPI_COMBINER_RESIZED, 0, 2, 0, 1, NULL, (MPI_Aint[]){-4, 40}, NULL, tv);
    MPI_Type_free(&t);
    MPI_Type_create_resized_c(MPI_INT, 2, 6, &t);
    roundtrip("resized_c", t, MPI_COMBINER_RESIZED, 0, 0, 2, 1, NULL, NULL, (MPI_Count[]){2, 6}, ti);
    MPI_Type_free(&t);
}

static void test_named(void)
{
    static const MPI_Datatype named[] = {
        MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_BYTE, MPI_PACKED, MPI_DOUBLE_INT, MPI_2INT,
        MPI_LONG_DOUBLE_INT, MPI_C_DOUBLE_COMPLEX, MPI_INTEGER, MPI_REAL8, MPI_AINT, MPI_COUNT,
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        int ni = -1, na = -1, nd = -1, comb = -1;
        MPI_CHK(MPI_Type_get_envelope(named[i], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "predefined type %zu: combiner %d (%d, %d, %d)", i, comb, ni, na, nd);
        int gi[4];
        MPI_Aint ga[4];
        MPI_Datatype gt[4];
        int rc = MPI_Type_get_contents(named[i], 4, 4, 4, gi, ga, gt);
        CHECK(rc != MPI_SUCCESS, "MPI_Type_get_contents accepted a predefined type");
    }
    /* f90 types: their own combiners, p and r as given */
    MPI_Datatype t;
    MPI_CHK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &t));
    roundtrip("f90_real", t, MPI_COMBINER_F90_REAL, 2, 0, 0, 0, (int[]){10, MPI_UNDEFINED}, NULL,
              NULL, NULL);
    MPI_CHK(MPI_Type_create_f90_complex(MPI_UNDEFINED, 100, &t));
    roundtrip("f90_complex", t, MPI_COMBINER_F90_COMPLEX, 2, 0, 0, 0, (int[]){MPI_UNDEFINED, 100},
              NULL, NULL, NULL);
    MPI_CHK(MPI_Type_create_f90_integer(5, &t));
    roundtrip("f90_integer", t, MPI_COMBINER_F90_INTEGER, 1, 0, 0, 0, (int[]){5}, NULL, NULL, NULL);
}

/* Handles given out by get_contents: the inner type stays valid after the
 * user freed its own handle, and each returned handle is freed once. */
static void test_inner_handles(void)
{
    MPI_Datatype inner, outer, got[2];
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &inner);
    MPI_Type_contiguous(2, inner, &outer);
    MPI_Type_free(&inner);
    CHECK(inner == MPI_DATATYPE_NULL, "MPI_Type_free did not set the handle to MPI_DATATYPE_NULL");
    int i1[4];
    MPI_Aint a1[4];
    MPI_CHK(MPI_Type_get_contents(outer, 4, 4, 4, i1, a1, &got[0]));
    MPI_CHK(MPI_Type_get_contents(outer, 4, 4, 4, i1, a1, &got[1]));
    int size = 0;
    MPI_CHK(MPI_Type_size(got[0], &size));
    CHECK(size == 16, "inner type size %d, want 16", size);
    MPI_CHK(MPI_Type_free(&got[0]));
    MPI_CHK(MPI_Type_size(got[1], &size)); /* the second handle still works */
    MPI_CHK(MPI_Type_commit(&got[1]));
    double src[6] = {1, 2, 3, 4, 5, 6}, dst[2] = {0, 0};
    MPI_CHK(MPI_Sendrecv(src, 1, got[1], 0, 5, dst, 2, MPI_DOUBLE, 0, 5, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE));
    CHECK(dst[0] == 1 && dst[1] == 4, "inner type moved %g %g, want 1 4", dst[0], dst[1]);
    MPI_CHK(MPI_Type_free(&got[1]));
    MPI_CHK(MPI_Type_size(outer, &size));
    CHECK(size == 32, "outer type size %d, want 32", size);
    MPI_Type_free(&outer);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    test_combiners();
    test_named();
    test_inner_handles();
    MPI_Type_free(&vec);
    return t_finish();
}
