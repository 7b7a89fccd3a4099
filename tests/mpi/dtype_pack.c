/* dtype_pack.c: MPI_Pack / MPI_Unpack / MPI_Pack_size (and _c) with
 * several types packed one after the other, what was packed sent as
 * MPI_PACKED and received with the type, size errors; and "external32":
 * the packed bytes of every kind of basic type checked against byte images
 * computed by hand (big-endian, long as 4 bytes, wchar_t as 2, long double
 * as an IEEE quad), derived types packed without their holes, the way back
 * with MPI_Unpack_external, MPI_Pack_external_size, and unknown data
 * representations refused. */
#include "common.h"

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

static void check_bytes(const char *what, const unsigned char *got, const unsigned char *want,
                        size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            CHECK(0, "%s: byte %zu is 0x%02x, want 0x%02x", what, i, got[i], want[i]);
            return;
        }
}

/* Packs count elements in external32, compares with the image, unpacks
 * into `back` (same size as the input) and compares with the input. */
static void ext32(const char *what, const void *in, int count, MPI_Datatype t,
                  const unsigned char *image, int n, void *back, size_t in_bytes)
{
    MPI_Aint size = -1, pos = 0;
    MPI_CHK(MPI_Pack_external_size("external32", count, t, &size));
    if (!T_MPICH_QUIRK("MPICH 5.0.2 gives 1 or 2 for the external size of MPI_LONG_INT and "
                       "MPI_LONG_DOUBLE_INT"))
        CHECK(size == n, "%s: external32 size %ld, want %d", what, (long)size, n);
    unsigned char buf[256];
    memset(buf, 0xee, sizeof buf);
    MPI_CHK(MPI_Pack_external("external32", in, count, t, buf, sizeof buf, &pos));
    CHECK(pos == n, "%s: position after packing %ld, want %d", what, (long)pos, n);
    check_bytes(what, buf, image, (size_t)n);
    if (back) {
        pos = 0;
        MPI_CHK(MPI_Unpack_external("external32", buf, n, &pos, back, count, t));
        CHECK(pos == n, "%s: position after unpacking %ld, want %d", what, (long)pos, n);
        CHECK(memcmp(back, in, in_bytes) == 0, "%s: unpacked value differs from the original", what);
    }
}

static void test_external32(void)
{
    int i = 0x01020304;
    int ib;
    ext32("int", &i, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4, &ib, sizeof i);
    short s[2] = {-2, 0x1234}, sb[2];
    ext32("short", s, 2, MPI_SHORT, (const unsigned char[]){0xff, 0xfe, 0x12, 0x34}, 4, sb,
          sizeof s);
    long l = -2, lb;
    ext32("long", &l, 1, MPI_LONG, (const unsigned char[]){0xff, 0xff, 0xff, 0xfe}, 4, &lb,
          sizeof l);
    unsigned long ul = 0x89abcdefUL, ulb;
    ext32("unsigned long", &ul, 1, MPI_UNSIGNED_LONG,
          (const unsigned char[]){0x89, 0xab, 0xcd, 0xef}, 4, &ulb, sizeof ul);
    double d = 1.5, db;
    ext32("double", &d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf8, 0, 0, 0, 0, 0, 0}, 8,
          &db, sizeof d);
    float f = -2.0f, fb;
    ext32("float", &f, 1, MPI_FLOAT, (const unsigned char[]){0xc0, 0, 0, 0}, 4, &fb, sizeof f);
    long double ld[2] = {1.5L, -0.75L}, ldb[2];
    const unsigned char ldimg[32] = {0x3f, 0xff, 0x80, [16] = 0xbf, 0xfe, 0x80};
    ext32("long double", ld, 2, MPI_LONG_DOUBLE, ldimg, 32, NULL, 0);
    {   /* unpack compares values, not the padding bytes of an x87 long double */
        MPI_Aint pos = 0;
        ldb[0] = ldb[1] = 0;
        MPI_CHK(MPI_Unpack_external("external32", ldimg, 32, &pos, ldb, 2, MPI_LONG_DOUBLE));
        CHECK(ldb[0] == 1.5L && ldb[1] == -0.75L, "long double back as %Lg %Lg", ldb[0], ldb[1]);
    }
    char c = 'A', cb;
    ext32("char", &c, 1, MPI_CHAR, (const unsigned char[]){0x41}, 1, &cb, 1);
    bool mpich = T_MPICH_QUIRK("MPICH 5.0.2 aborts packing MPI_WCHAR and the pair types "
                               "(MPI_DOUBLE_INT ...) in external32");
    wchar_t w = L'Z', wb;
    if (!mpich)
        ext32("wchar", &w, 1, MPI_WCHAR, (const unsigned char[]){0x00, 0x5a}, 2, &wb, sizeof w);
    bool bo = true, bob;
    ext32("C bool", &bo, 1, MPI_C_BOOL, (const unsigned char[]){1}, 1, &bob, sizeof bo);
    int64_t i64 = 0x0102030405060708LL, i64b;
    ext32("int64", &i64, 1, MPI_INT64_T, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8, &i64b,
          8);
    MPI_Aint ai = 0x10, aib;
    ext32("aint", &ai, 1, MPI_AINT, (const unsigned char[]){0, 0, 0, 0, 0, 0, 0, 0x10}, 8, &aib,
          sizeof ai);
    double cx[2] = {1.0, -2.0}, cxb[2];
    ext32("double complex", cx, 1, MPI_C_DOUBLE_COMPLEX,
          (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0}, 16, cxb,
          sizeof cx);
    struct { double v; int i; } di = {2.0, 7}, dib;
    memset(&dib, 0, sizeof dib);
    if (!mpich) {
    ext32("double_int", &di, 1, MPI_DOUBLE_INT,
          (const unsigned char[]){0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, 12, NULL, 0);
    {
        MPI_Aint pos = 0;
        unsigned char img[12] = {0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
        MPI_CHK(MPI_Unpack_external("external32", img, 12, &pos, &dib, 1, MPI_DOUBLE_INT));
        CHECK(dib.v == 2.0 && dib.i == 7, "double_int back as %g %d", dib.v, dib.i);
    }
    struct { long v; int i; } li = {-1, 3};
    ext32("long_int", &li, 1, MPI_LONG_INT, (const unsigned char[]){0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3},
          8, NULL, 0);
    }

    /* only "external32" is a data representation here */
    if (!T_MPICH_QUIRK("MPICH 5.0.2 accepts other data representation names")) {
        const char *bad[] = {"native", "internal", "External32", "xdr"};
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            MPI_Aint pos = 0, size;
            unsigned char out[8];
            CHECK_CLASS(MPI_Pack_external(bad[k], &i, 1, MPI_INT, out, 8, &pos),
                        MPI_ERR_UNSUPPORTED_DATAREP);
            CHECK_CLASS(MPI_Pack_external_size(bad[k], 1, MPI_INT, &size),
                        MPI_ERR_UNSUPPORTED_DATAREP);
        }
    }

    /* a derived type: struct {int; (pad) double} x 2, then strided shorts */
    if (mpich) return; /* MPICH 5.0.2 crashes on external32 of derived types */
    struct { int a; double b; } sd[2] = {{1, 1.0}, {-1, -2.0}};
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(__typeof__(sd[0]), a), offsetof(__typeof__(sd[0]), b)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, st, vt;
    MPI_Type_create_struct(2, bl, disp, ty, &st);
    MPI_Type_commit(&st);
    const unsigned char simg[24] = {0, 0, 0, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
                                    0xff, 0xff, 0xff, 0xff, 0xc0, 0, 0, 0, 0, 0, 0, 0};
    __typeof__(sd[0]) sdb[2];
    memset(sdb, 0, sizeof sdb);
    ext32("struct{int,double}", sd, 2, st, simg, 24, NULL, 0);
    {
        MPI_Aint pos = 0;
        MPI_CHK(MPI_Unpack_external("external32", simg, 24, &pos, sdb, 2, st));
        CHECK(sdb[0].a == 1 && sdb[0].b == 1.0 && sdb[1].a == -1 && sdb[1].b == -2.0,
              "struct back as {%d %g} {%d %g}", sdb[0].a, sdb[0].b, sdb[1].a, sdb[1].b);
    }
    short sh[5] = {0x0102, 0, 0x0304, 0, 0x0506}, shb[5] = {0, 0, 0, 0, 0};
    MPI_Type_vector(3, 1, 2, MPI_SHORT, &vt);
    MPI_Type_commit(&vt);
    ext32("vector of short", sh, 1, vt, (const unsigned char[]){1, 2, 3, 4, 5, 6}, 6, shb,
          sizeof sh);
    MPI_Aint size;
    MPI_CHK(MPI_Pack_external_size("external32", 3, st, &size));
    CHECK(size == 36, "external32 size of 3 structs %ld, want 36", (long)size);
    MPI_Count sc = -1;
    MPI_CHK(MPI_Pack_external_size_c("external32", 4, vt, &sc));
    CHECK(sc == 24, "external32 size (_c) of 4 vectors %lld, want 24", (long long)sc);
    MPI_Type_free(&st);
    MPI_Type_free(&vt);
}

/* Native packing: three types one after the other. */
static void test_native(void)
{
    int ints[6] = {1, 2, 3, 4, 5, 6};
    double dbl[9];
    for (int k = 0; k < 9; k++) dbl[k] = k + 0.25;
    struct { char c; double d; } sc = {'x', 3.5};
    MPI_Datatype vec, st;
    MPI_Type_vector(3, 1, 3, MPI_DOUBLE, &vec); /* dbl[0], dbl[3], dbl[6] */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(__typeof__(sc), c), offsetof(__typeof__(sc), d)};
    MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, ty, &st);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&st);
    int s1, s2, s3;
    MPI_CHK(MPI_Pack_size(6, MPI_INT, MPI_COMM_WORLD, &s1));
    MPI_CHK(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &s2));
    MPI_CHK(MPI_Pack_size(1, st, MPI_COMM_WORLD, &s3));
    CHECK(s1 >= 24 && s2 >= 24 && s3 >= 9, "Pack_size %d %d %d too small", s1, s2, s3);
    int total = s1 + s2 + s3, pos = 0;
    char *buf = t_malloc((size_t)total);
    MPI_CHK(MPI_Pack(ints, 6, MPI_INT, buf, total, &pos, MPI_COMM_WORLD));
    MPI_CHK(MPI_Pack(dbl, 1, vec, buf, total, &pos, MPI_COMM_WORLD));
    MPI_CHK(MPI_Pack(&sc, 1, st, buf, total, &pos, MPI_COMM_WORLD));
    CHECK(pos == 24 + 24 + 9 || T_MPICH_QUIRK("packed size is implementation-defined"),
          "packed %d bytes, want 57", pos);
    int packed = pos;
    /* unpack the same sequence with other layouts */
    int ints2[6] = {0};
    double dbl2[3] = {0};
    struct { char c; double d; } sc2 = {0, 0};
    pos = 0;
    MPI_CHK(MPI_Unpack(buf, packed, &pos, ints2, 6, MPI_INT, MPI_COMM_WORLD));
    MPI_CHK(MPI_Unpack(buf, packed, &pos, dbl2, 3, MPI_DOUBLE, MPI_COMM_WORLD));
    MPI_CHK(MPI_Unpack(buf, packed, &pos, &sc2, 1, st, MPI_COMM_WORLD));
    CHECK(pos == packed, "unpacked %d of %d bytes", pos, packed);
    CHECK(memcmp(ints, ints2, sizeof ints) == 0, "ints differ after pack/unpack");
    CHECK(dbl2[0] == 0.25 && dbl2[1] == 3.25 && dbl2[2] == 6.25, "vector unpacked as %g %g %g",
          dbl2[0], dbl2[1], dbl2[2]);
    CHECK(sc2.c == 'x' && sc2.d == 3.5, "struct unpacked as {%c %g}", sc2.c, sc2.d);

    /* _c forms */
    MPI_Count cpos = 0, csize = -1;
    MPI_CHK(MPI_Pack_size_c(2, vec, MPI_COMM_WORLD, &csize));
    CHECK(csize >= 48, "Pack_size_c %lld", (long long)csize);
    char cbuf[128];
    double two[18];
    for (int k = 0; k < 18; k++) two[k] = -k;
    MPI_CHK(MPI_Pack_c(two, 2, vec, cbuf, sizeof cbuf, &cpos, MPI_COMM_WORLD));
    double out[6];
    MPI_Count upos = 0;
    MPI_CHK(MPI_Unpack_c(cbuf, cpos, &upos, out, 6, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(out[0] == 0 && out[1] == -3 && out[2] == -6 && out[3] == -7 && out[4] == -10 &&
              out[5] == -13, "two vectors (extent 7 doubles) unpacked as %g %g %g %g %g %g", out[0], out[1], out[2],
          out[3], out[4], out[5]);

    /* packed data travels as MPI_PACKED and is received with the type */
    int peer = t_partner();
    double rv[9];
    for (int k = 0; k < 9; k++) rv[k] = -1;
    pos = 0;
    char pbuf[64];
    MPI_CHK(MPI_Pack(dbl, 1, vec, pbuf, sizeof pbuf, &pos, MPI_COMM_WORLD));
    MPI_CHK(MPI_Sendrecv(pbuf, pos, MPI_PACKED, peer, 3, rv, 1, vec, peer, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    CHECK(rv[0] == 0.25 && rv[3] == 3.25 && rv[6] == 6.25 && rv[1] == -1 && rv[8] == -1,
          "MPI_PACKED received as vector: %g %g %g", rv[0], rv[3], rv[6]);

    /* errors */
    if (!T_MPICH_QUIRK("MPICH 5.0.2 does not check buffer sizes in MPI_Pack/MPI_Unpack")) {
        pos = 0;
        CHECK_CLASS(MPI_Pack(ints, 6, MPI_INT, buf, 20, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
        pos = 0;
        CHECK_CLASS(MPI_Unpack(buf, 20, &pos, ints2, 6, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    }
    pos = 0;
    CHECK_CLASS(MPI_Pack(ints, -1, MPI_INT, buf, total, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    pos = 0;
    CHECK_CLASS(MPI_Pack(ints, 1, unc, buf, total, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_free(&unc);
    free(buf);
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_external32();
    test_native();
    return t_finish();
}
