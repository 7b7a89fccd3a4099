/* dtype_elements.c: MPI_Get_elements (int, _x, _c) and MPI_Get_count on
 * messages that end in the middle of an element of a derived type: the
 * basic elements received are counted (MPI_Get_count gives MPI_UNDEFINED);
 * the sender uses a type whose signature is a prefix of the receiver's.
 * A byte count that ends inside a basic element gives MPI_UNDEFINED for
 * both. Mixed structs, vectors, the pair types, eager and rendezvous
 * sizes; MPI_Status_set_elements(_x/_c) with derived types; empty types. */
#include "common.h"

#include <stddef.h>

typedef struct { int i; double d; char c[3]; } rec; /* int, double, 3 chars */

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t;
    int bl[3] = {1, 1, 3};
    MPI_Aint d[3] = {offsetof(rec, i), offsetof(rec, d), offsetof(rec, c)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, d, ty, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Sends scount elements of stype (a prefix of the receive signature) and
 * receives them with count elements of t; checks Get_elements, Get_count. */
static void partial(const char *what, MPI_Datatype stype, int scount, MPI_Datatype t, int count,
                    long want_el, int want_count)
{
    int peer = t_partner();
    MPI_Aint lb, ext, slb, sext;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_extent(stype, &slb, &sext);
    char *src = t_malloc((size_t)(sext * scount) + 1), *dst = t_malloc((size_t)(ext * count) + 1);
    t_fill(src, (size_t)(sext * scount), 1);
    MPI_Status st;
    MPI_CHK(MPI_Sendrecv(src, scount, stype, peer, 4, dst, count, t, peer, 4, MPI_COMM_WORLD, &st));
    int el = -7, cnt = -7;
    MPI_Count elx = -7, elc = -7;
    MPI_CHK(MPI_Get_elements(&st, t, &el));
    MPI_CHK(MPI_Get_elements_x(&st, t, &elx));
    MPI_CHK(MPI_Get_elements_c(&st, t, &elc));
    MPI_CHK(MPI_Get_count(&st, t, &cnt));
    CHECK(el == want_el, "%s: Get_elements %d, want %ld", what, el, want_el);
    CHECK(elx == want_el && elc == want_el, "%s: Get_elements_x %lld _c %lld, want %ld", what,
          (long long)elx, (long long)elc, want_el);
    CHECK(cnt == want_count, "%s: Get_count %d, want %d", what, cnt, want_count);
    free(src);
    free(dst);
}

/* A send type: n whole recs followed by the first basic elements of one
 * more (k of int, double, char, char, char). */
static MPI_Datatype rec_prefix(MPI_Datatype r, int n, int k)
{
    int bl[4] = {n, 1, 1, k - 2};
    MPI_Aint base = (MPI_Aint)n * sizeof(rec);
    MPI_Aint d[4] = {0, base + offsetof(rec, i), base + offsetof(rec, d), base + offsetof(rec, c)};
    MPI_Datatype ty[4] = {r, MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    MPI_Type_create_struct(k < 2 ? 1 + k : 4, bl, d, ty, &t);
    MPI_Type_commit(&t);
    return t;
}

static void test_partial(void)
{
    MPI_Datatype r = rec_type(), s;
    /* rec packs as 4 + 8 + 3 = 15 bytes and 5 basic elements */
    partial("struct, whole", r, 3, r, 3, 15, 3);
    s = rec_prefix(r, 1, 2);
    partial("struct, ends after the double", s, 1, r, 3, 5 + 2, MPI_UNDEFINED);
    MPI_Type_free(&s);
    s = rec_prefix(r, 2, 3);
    partial("struct, ends after one char", s, 1, r, 3, 10 + 3, MPI_UNDEFINED);
    MPI_Type_free(&s);
    partial("struct, empty message", r, 0, r, 3, 0, 0);
    /* bytes ending inside a basic element */
    MPI_Status st;
    MPI_Status_set_elements(&st, MPI_BYTE, 15 + 6);
    int el = -7, cnt = -7;
    MPI_Get_elements(&st, r, &el);
    MPI_Get_count(&st, r, &cnt);
    CHECK(el == MPI_UNDEFINED && cnt == MPI_UNDEFINED,
          "21 bytes of struct (inside the double): Get_elements %d Get_count %d", el, cnt);
    MPI_Type_free(&r);

    MPI_Datatype v;
    MPI_Type_vector(4, 2, 3, MPI_INT, &v); /* 8 ints per element */
    MPI_Type_commit(&v);
    partial("vector, 11 ints", MPI_INT, 11, v, 2, 11, MPI_UNDEFINED);
    partial("vector, 16 ints", MPI_INT, 16, v, 2, 16, 2);
    MPI_Status_set_elements(&st, MPI_BYTE, 42);
    MPI_Get_elements(&st, v, &el);
    CHECK(el == MPI_UNDEFINED, "vector, 10.5 ints: Get_elements %d", el);
    /* large (rendezvous) message ending mid-element */
    MPI_Datatype big;
    MPI_Type_vector(1000, 3, 4, MPI_INT, &big); /* 3000 ints per element */
    MPI_Type_commit(&big);
    partial("big vector, 2.5 elements", MPI_INT, 7500, big, 3, 7500, MPI_UNDEFINED);
    MPI_Type_free(&big);
    MPI_Type_free(&v);

    /* pair types count as two basic elements */
    struct { double v; int i; } di;
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, sizeof di};
    MPI_Datatype ty[2] = {MPI_DOUBLE_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_commit(&s);
    partial("MPI_DOUBLE_INT, value only", s, 1, MPI_DOUBLE_INT, 2, 3, MPI_UNDEFINED);
    MPI_Type_free(&s);
    if (!T_MPICH_QUIRK("MPICH 5.0.2 asserts receiving half an MPI_2INT"))
        partial("MPI_2INT, one int", MPI_INT, 1, MPI_2INT, 2, 1, MPI_UNDEFINED);
    MPI_Datatype pv;
    MPI_Type_contiguous(3, MPI_SHORT_INT, &pv);
    MPI_Type_commit(&pv);
    struct { short v; int i; } si;
    d[1] = sizeof si;
    ty[0] = MPI_SHORT_INT;
    ty[1] = MPI_SHORT;
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_commit(&s);
    partial("contiguous(3, MPI_SHORT_INT)", s, 1, pv, 1, 3, MPI_UNDEFINED);
    MPI_Type_free(&s);
    MPI_Type_free(&pv);
}

static void set_get(const char *what, MPI_Datatype t, MPI_Count k, MPI_Count want_bytes,
                    int want_count)
{
    MPI_Status st;
    t_junk_status(&st);
    MPI_CHK(MPI_Status_set_elements_x(&st, t, k));
    MPI_Count el = -7, bytes = -7;
    int cnt = -7;
    MPI_CHK(MPI_Get_elements_x(&st, t, &el));
    MPI_CHK(MPI_Get_elements_x(&st, MPI_BYTE, &bytes));
    MPI_CHK(MPI_Get_count(&st, t, &cnt));
    CHECK(el == k, "%s: set %lld elements, got %lld", what, (long long)k, (long long)el);
    CHECK(bytes == want_bytes, "%s: %lld elements are %lld bytes, want %lld", what, (long long)k,
          (long long)bytes, (long long)want_bytes);
    CHECK(cnt == want_count, "%s: Get_count %d, want %d", what, cnt, want_count);
    int el2 = -7;
    MPI_CHK(MPI_Status_set_elements(&st, t, (int)k));
    MPI_CHK(MPI_Get_elements(&st, t, &el2));
    CHECK(el2 == k, "%s: int form: %d", what, el2);
    MPI_CHK(MPI_Status_set_elements_c(&st, t, k));
    MPI_CHK(MPI_Get_elements_c(&st, t, &el));
    CHECK(el == k, "%s: _c form: %lld", what, (long long)el);
}

static void test_set_elements(void)
{
    MPI_Datatype r = rec_type();
    set_get("struct, 7 elements", r, 7, 15 + 4 + 8, MPI_UNDEFINED);
    set_get("struct, 10 elements", r, 10, 30, 2);
    set_get("struct, 0 elements", r, 0, 0, 0);
    MPI_Type_free(&r);
    MPI_Datatype v;
    MPI_Type_vector(4, 2, 3, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    set_get("vector of double, 13", v, 13, 13 * 8, MPI_UNDEFINED);
    set_get("vector of double, 24", v, 24, 24 * 8, 3);
    MPI_Type_free(&v);
    set_get("MPI_DOUBLE_INT, 3", MPI_DOUBLE_INT, 3, 12 + 8, MPI_UNDEFINED);

    /* a type with no data */
    MPI_Datatype e;
    MPI_Type_contiguous(0, MPI_INT, &e);
    MPI_Type_commit(&e);
    MPI_Status st;
    MPI_Status_set_elements(&st, MPI_BYTE, 0);
    int el = -7, cnt = -7;
    MPI_Get_elements(&st, e, &el);
    MPI_Get_count(&st, e, &cnt);
    CHECK(el == 0 && cnt == 0, "empty type: Get_elements %d Get_count %d, want 0 0", el, cnt);
    MPI_Type_free(&e);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_partial();
    test_set_elements();
    return t_finish();
}
