/* attr_comm: attribute caching on communicators and datatypes.
 *   - copy callbacks on MPI_Comm_dup (user function, MPI_COMM_NULL_COPY_FN,
 *     MPI_COMM_DUP_FN, a copy that declines with flag = 0), with the right
 *     arguments (old communicator, keyval, extra_state, value);
 *   - delete callbacks on MPI_Comm_delete_attr, on setting over an existing
 *     value, and on MPI_Comm_free, each exactly once with the right value;
 *   - a keyval freed while attributes still use it keeps working for them;
 *   - callbacks that fail: the call returns their error (a user-added code
 *     comes back as is) and the attribute stays;
 *   - the deprecated MPI-1 names (Keyval_create, Attr_put, ...);
 *   - datatype attributes (on a predefined type and through MPI_Type_dup /
 *     MPI_Type_free);
 *   - error classes under MPI_ERRORS_RETURN. */
#include "common.h"

/* Event log of callbacks. */
#define MAXEV 64
static struct ev {
    char what;       /* 'c' copy, 'd' delete */
    int keyval;
    intptr_t value;
} evs[MAXEV];
static int nev;
static MPI_Comm expect_comm = MPI_COMM_NULL; /* the comm copy callbacks must see */
static int fail_code = MPI_SUCCESS;           /* what callbacks return when set */

static void log_ev(char what, int keyval, void *value)
{
    if (nev < MAXEV) evs[nev++] = (struct ev){what, keyval, (intptr_t)value};
}

/* Looks for an event; removes it so each is counted once. */
static int take(char what, int keyval, intptr_t value)
{
    for (int i = 0; i < nev; i++)
        if (evs[i].what == what && evs[i].keyval == keyval && evs[i].value == value) {
            evs[i] = evs[--nev];
            return 1;
        }
    return 0;
}

#define EXPECT_EV(what, kv, val)                                                          \
    CHECK(take(what, kv, val), "no %s callback for keyval %d value %ld",                 \
          (what) == 'c' ? "copy" : "delete", (kv), (long)(val))
#define EXPECT_NO_EVENTS()                                                                \
    do {                                                                                  \
        CHECK(nev == 0, "%d unexpected callbacks (first: %c keyval %d value %ld)", nev,  \
              nev ? evs[0].what : ' ', nev ? evs[0].keyval : 0, nev ? (long)evs[0].value : 0L); \
        nev = 0;                                                                          \
    } while (0)

static int extra_magic = 4242;

/* Copies value + 1000; checks its arguments. */
static int copy_plus(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    CHECK(extra == &extra_magic, "copy callback got extra_state %p", extra);
    CHECK(expect_comm == MPI_COMM_NULL || comm == expect_comm, "copy callback got another comm");
    log_ev('c', keyval, in);
    if (fail_code != MPI_SUCCESS) return fail_code;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

/* Declines to copy. */
static int copy_none(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)extra, (void)out;
    log_ev('c', keyval, in);
    *flag = 0;
    return MPI_SUCCESS;
}

static int del_log(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    CHECK(extra == &extra_magic, "delete callback got extra_state %p", extra);
    log_ev('d', keyval, value);
    return fail_code;
}

static void *V(intptr_t x) { return (void *)x; }

/* Reads keyval on comm: the value, or -1 when not set. */
static intptr_t get(MPI_Comm comm, int keyval)
{
    void *v = NULL;
    int flag = -1;
    MPI_CHK(MPI_Comm_get_attr(comm, keyval, &v, &flag));
    CHECK(flag == 0 || flag == 1, "flag %d", flag);
    return flag ? (intptr_t)v : -1;
}

static void test_callbacks(void)
{
    int kplus, knull, kdup, knone;
    MPI_CHK(MPI_Comm_create_keyval(copy_plus, del_log, &kplus, &extra_magic));
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &knull, &extra_magic));
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &kdup, &extra_magic));
    MPI_CHK(MPI_Comm_create_keyval(copy_none, MPI_COMM_NULL_DELETE_FN, &knone, &extra_magic));
    CHECK(kplus != MPI_KEYVAL_INVALID && kplus != knull && knull != kdup && kdup != knone,
          "keyvals not distinct");

    MPI_Comm a, b;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK(get(a, kplus) == -1, "a fresh communicator has an attribute");
    MPI_CHK(MPI_Comm_set_attr(a, kplus, V(1)));
    MPI_CHK(MPI_Comm_set_attr(a, knull, V(2)));
    MPI_CHK(MPI_Comm_set_attr(a, kdup, V(3)));
    MPI_CHK(MPI_Comm_set_attr(a, knone, V(4)));
    EXPECT_NO_EVENTS();
    CHECK(get(a, kplus) == 1 && get(a, knull) == 2 && get(a, kdup) == 3 && get(a, knone) == 4,
          "values read back wrong");

    /* dup: plus and none are asked, null and dup copy without calls */
    expect_comm = a;
    MPI_CHK(MPI_Comm_dup(a, &b));
    expect_comm = MPI_COMM_NULL;
    EXPECT_EV('c', kplus, 1);
    EXPECT_EV('c', knone, 4);
    EXPECT_NO_EVENTS();
    CHECK(get(b, kplus) == 1001, "copied value %ld, want 1001", (long)get(b, kplus));
    CHECK(get(b, knull) == -1, "MPI_COMM_NULL_COPY_FN copied the attribute");
    CHECK(get(b, kdup) == 3, "MPI_COMM_DUP_FN gave %ld", (long)get(b, kdup));
    CHECK(get(b, knone) == -1, "a copy with flag 0 stored the attribute");
    CHECK(get(a, kplus) == 1, "the original changed");

    /* set over an existing value: the old one is deleted first */
    MPI_CHK(MPI_Comm_set_attr(b, kplus, V(50)));
    EXPECT_EV('d', kplus, 1001);
    EXPECT_NO_EVENTS();
    CHECK(get(b, kplus) == 50, "overwritten value %ld", (long)get(b, kplus));

    /* explicit delete */
    MPI_CHK(MPI_Comm_delete_attr(b, kdup));
    EXPECT_EV('d', kdup, 3);
    EXPECT_NO_EVENTS();
    CHECK(get(b, kdup) == -1, "deleted attribute still there");

    /* free: the delete callbacks of what is left, once each */
    MPI_CHK(MPI_Comm_free(&b));
    EXPECT_EV('d', kplus, 50);
    EXPECT_NO_EVENTS();
    MPI_CHK(MPI_Comm_free(&a));
    EXPECT_EV('d', kplus, 1);
    EXPECT_EV('d', knull, 2);
    EXPECT_EV('d', kdup, 3);
    EXPECT_NO_EVENTS(); /* knone has the null delete function */

    /* attributes on MPI_COMM_WORLD are copied by its dup too */
    MPI_CHK(MPI_Comm_set_attr(MPI_COMM_WORLD, kplus, V(7)));
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    EXPECT_EV('c', kplus, 7);
    CHECK(get(a, kplus) == 1007, "dup of MPI_COMM_WORLD: %ld", (long)get(a, kplus));
    MPI_CHK(MPI_Comm_free(&a));
    EXPECT_EV('d', kplus, 1007);
    MPI_CHK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kplus));
    EXPECT_EV('d', kplus, 7);
    EXPECT_NO_EVENTS();

    MPI_CHK(MPI_Comm_free_keyval(&kplus));
    CHECK(kplus == MPI_KEYVAL_INVALID, "Comm_free_keyval left %d", kplus);
    MPI_CHK(MPI_Comm_free_keyval(&knull));
    MPI_CHK(MPI_Comm_free_keyval(&kdup));
    MPI_CHK(MPI_Comm_free_keyval(&knone));
}

/* A keyval freed while attributes use it: they keep their callbacks. */
static void test_keyval_in_use(void)
{
    int k, kept;
    MPI_CHK(MPI_Comm_create_keyval(copy_plus, del_log, &k, &extra_magic));
    kept = k;
    MPI_Comm a, b;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CHK(MPI_Comm_set_attr(a, k, V(5)));
    MPI_CHK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "Comm_free_keyval left %d", k);
    EXPECT_NO_EVENTS();
    MPI_CHK(MPI_Comm_dup(a, &b)); /* the copy callback still runs */
    EXPECT_EV('c', kept, 5);
    MPI_CHK(MPI_Comm_free(&a));
    EXPECT_EV('d', kept, 5);
    MPI_CHK(MPI_Comm_free(&b));
    EXPECT_EV('d', kept, 1005);
    EXPECT_NO_EVENTS();
}

static void test_failing_callbacks(void)
{
    int k;
    MPI_CHK(MPI_Comm_create_keyval(copy_plus, del_log, &k, &extra_magic));
    MPI_Comm a, b = MPI_COMM_WORLD;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_CHK(MPI_Comm_set_attr(a, k, V(9)));

    fail_code = MPI_ERR_OTHER;
    CHECK_CLASS(MPI_Comm_delete_attr(a, k), MPI_ERR_OTHER);
    EXPECT_EV('d', k, 9);
    CHECK(get(a, k) == 9, "attribute gone after a failed delete");
    CHECK_CLASS(MPI_Comm_set_attr(a, k, V(10)), MPI_ERR_OTHER);
    EXPECT_EV('d', k, 9);
    CHECK(get(a, k) == 9, "old value replaced after a failed delete");
    CHECK_CLASS(MPI_Comm_dup(a, &b), MPI_ERR_OTHER);
    EXPECT_EV('c', k, 9);
    CHECK(b == MPI_COMM_NULL, "a failed dup did not give MPI_COMM_NULL");

    /* a user-added error code comes back as it is */
    int cls, code;
    MPI_CHK(MPI_Add_error_class(&cls));
    MPI_CHK(MPI_Add_error_code(cls, &code));
    fail_code = code;
    int rc = MPI_Comm_delete_attr(a, k);
    CHECK(t_class(rc) == cls, "user error: class %d, want %d", t_class(rc), cls);
    EXPECT_EV('d', k, 9);

    /* A failed free leaves the communicator and its attribute (MPICH drops
     * the attributes anyway). */
    if (!T_MPICH_QUIRK("MPICH deletes the attributes of a failed free")) {
        fail_code = MPI_ERR_OTHER;
        CHECK_CLASS(MPI_Comm_free(&a), MPI_ERR_OTHER);
        EXPECT_EV('d', k, 9);
        CHECK(a != MPI_COMM_NULL, "a failed free cleared the handle");
    }
    fail_code = MPI_SUCCESS;
    MPI_CHK(MPI_Comm_free(&a));
    EXPECT_EV('d', k, 9);
    EXPECT_NO_EVENTS();
    MPI_CHK(MPI_Comm_free_keyval(&k));
}

/* The MPI-1 names, deprecated but still in the standard. */
static int old_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy_plus(comm, keyval, extra, in, out, flag);
}

static void test_deprecated(void)
{
    int k, kd;
    MPI_CHK(MPI_Keyval_create(old_copy, del_log, &k, &extra_magic));
    MPI_CHK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kd, NULL));
    MPI_Comm a, b;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CHK(MPI_Attr_put(a, k, V(11)));
    MPI_CHK(MPI_Attr_put(a, kd, V(12)));
    void *v = NULL;
    int flag = 0;
    MPI_CHK(MPI_Attr_get(a, k, &v, &flag));
    CHECK(flag && (intptr_t)v == 11, "Attr_get: flag %d value %ld", flag, (long)(intptr_t)v);
    MPI_CHK(MPI_Comm_dup(a, &b));
    EXPECT_EV('c', k, 11);
    MPI_CHK(MPI_Attr_get(b, kd, &v, &flag));
    CHECK(flag && (intptr_t)v == 12, "MPI_DUP_FN: flag %d value %ld", flag, (long)(intptr_t)v);
    MPI_CHK(MPI_Attr_delete(b, k));
    EXPECT_EV('d', k, 1011);
    MPI_CHK(MPI_Attr_get(b, k, &v, &flag));
    CHECK(!flag, "Attr_delete left the attribute");
    MPI_CHK(MPI_Comm_free(&b));
    MPI_CHK(MPI_Comm_free(&a));
    EXPECT_EV('d', k, 11);
    EXPECT_NO_EVENTS();
    MPI_CHK(MPI_Keyval_free(&k));
    MPI_CHK(MPI_Keyval_free(&kd));
    CHECK(k == MPI_KEYVAL_INVALID && kd == MPI_KEYVAL_INVALID, "Keyval_free left the keyvals");
}

/* Datatype attributes. */
static int type_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)extra;
    log_ev('c', keyval, in);
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t, (void)extra;
    log_ev('d', keyval, value);
    return MPI_SUCCESS;
}

static void test_types(void)
{
    int k;
    MPI_CHK(MPI_Type_create_keyval(type_copy, type_del, &k, NULL));
    void *v = NULL;
    int flag = -1;
    MPI_CHK(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    CHECK(flag == 0, "MPI_INT has an attribute");
    MPI_CHK(MPI_Type_set_attr(MPI_INT, k, V(21)));
    MPI_CHK(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 21, "MPI_INT attribute: flag %d value %ld", flag,
          (long)(intptr_t)v);
    MPI_CHK(MPI_Type_set_attr(MPI_INT, k, V(22)));
    EXPECT_EV('d', k, 21);
    MPI_CHK(MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag));
    CHECK(flag == 0, "MPI_DOUBLE shares MPI_INT's attribute");

    MPI_Datatype d1, d2;
    MPI_CHK(MPI_Type_dup(MPI_INT, &d1));
    EXPECT_EV('c', k, 22);
    MPI_CHK(MPI_Type_get_attr(d1, k, &v, &flag));
    CHECK(flag == 1 && (intptr_t)v == 1022, "Type_dup copy: flag %d value %ld", flag,
          (long)(intptr_t)v);
    MPI_CHK(MPI_Type_dup(d1, &d2));
    EXPECT_EV('c', k, 1022);
    MPI_CHK(MPI_Type_delete_attr(d2, k));
    EXPECT_EV('d', k, 2022);
    MPI_CHK(MPI_Type_free(&d2));
    EXPECT_NO_EVENTS();
    MPI_CHK(MPI_Type_free(&d1));
    EXPECT_EV('d', k, 1022);
    MPI_CHK(MPI_Type_delete_attr(MPI_INT, k));
    EXPECT_EV('d', k, 22);
    EXPECT_NO_EVENTS();

    /* a communicator keyval is not a datatype keyval, and back */
    int kc;
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    CHECK_CLASS(MPI_Type_set_attr(MPI_INT, kc, V(1)), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(1)), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_free_keyval(&kc), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_DATATYPE_NULL, k, &v, &flag), MPI_ERR_TYPE);
    MPI_CHK(MPI_Comm_free_keyval(&kc));
    MPI_CHK(MPI_Type_free_keyval(&k));
}

static void test_errors(void)
{
    void *v;
    int flag, k, copy;
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1)), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag), MPI_ERR_KEYVAL);
    copy = MPI_TAG_UB;
    CHECK_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL);
    /* freed twice: the second call sees MPI_KEYVAL_INVALID */
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    MPI_CHK(MPI_Comm_free_keyval(&k));
    CHECK_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    /* window keyvals belong to windows */
    int kw;
    MPI_CHK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kw, NULL));
    CHECK(kw != MPI_KEYVAL_INVALID, "Win_create_keyval gave MPI_KEYVAL_INVALID");
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, kw, V(1)), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, kw, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&kw), MPI_ERR_KEYVAL);
    MPI_CHK(MPI_Win_free_keyval(&kw));
    CHECK(kw == MPI_KEYVAL_INVALID, "Win_free_keyval left %d", kw);
    CHECK_CLASS(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL,
                                       NULL),
                MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_callbacks();
    test_keyval_in_use();
    test_failing_callbacks();
    test_deprecated();
    test_types();
    test_errors();
    return t_finish();
}
