/* attr_keyval_freed: a keyval freed while attributes still use it (MPI 4.1
 * section 7.7.2). Freeing it is not erroneous: MPI_*_free_keyval sets the
 * handle to MPI_KEYVAL_INVALID, but the key stays valid for the attributes
 * that hold it until the last of them is deleted. Through a copy of the key
 * number, those attributes can still be read and deleted; their copy
 * callbacks still run on dup and their delete callbacks on delete and on
 * object free. Once the last attribute is gone the key is gone too.
 * Checked for communicators, datatypes and windows. */
#include "common.h"

#include <stdint.h>

#define V(x) ((void *)(intptr_t)(x))

static int ncopy, ndel;
static intptr_t last_del;
static int extra_magic = 42;

static int ccopy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k;
    CHECK(extra == &extra_magic, "comm copy callback: wrong extra_state");
    ncopy++;
    *(void **)out = V((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}
static int cdel(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c, (void)k;
    CHECK(extra == &extra_magic, "comm delete callback: wrong extra_state");
    ndel++;
    last_del = (intptr_t)v;
    return MPI_SUCCESS;
}
static int tcopy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    ncopy++;
    *(void **)out = V((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}
static int tdel(MPI_Datatype t, int k, void *v, void *extra)
{
    (void)t, (void)k, (void)extra;
    ndel++;
    last_del = (intptr_t)v;
    return MPI_SUCCESS;
}
static int wdel(MPI_Win w, int k, void *v, void *extra)
{
    (void)w, (void)k, (void)extra;
    ndel++;
    last_del = (intptr_t)v;
    return MPI_SUCCESS;
}

static void reset(void) { ncopy = ndel = 0, last_del = -1; }

static void comm_case(void)
{
    int k, kept, flag = 0;
    void *v = NULL;
    MPI_Comm a, b, c;
    reset();
    MPI_CHK(MPI_Comm_create_keyval(ccopy, cdel, &k, &extra_magic));
    kept = k;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_CHK(MPI_Comm_set_attr(a, k, V(7)));
    MPI_CHK(MPI_Comm_set_attr(c, k, V(9)));
    MPI_CHK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "Comm_free_keyval left the handle %d", k);
    CHECK(ndel == 0, "freeing the keyval ran %d delete callbacks", ndel);
    /* freed twice: the handle is MPI_KEYVAL_INVALID, and the saved number
     * names a key already freed by the user */
    CHECK_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    int again = kept;
    CHECK_CLASS(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL);
    /* the attributes still work through the key number */
    MPI_CHK(MPI_Comm_get_attr(a, kept, &v, &flag));
    CHECK(flag && v == V(7), "get after free_keyval: flag %d value %p", flag, v);
    MPI_CHK(MPI_Comm_get_attr(MPI_COMM_WORLD, kept, &v, &flag));
    CHECK(!flag, "an attribute appeared on MPI_COMM_WORLD");
    /* the copy callback still runs on dup */
    MPI_CHK(MPI_Comm_dup(a, &b));
    CHECK(ncopy == 1, "dup ran %d copy callbacks, want 1", ncopy);
    MPI_CHK(MPI_Comm_get_attr(b, kept, &v, &flag));
    CHECK(flag && v == V(1007), "the dup's attribute: flag %d value %p", flag, v);
    /* explicit delete runs the delete callback */
    MPI_CHK(MPI_Comm_delete_attr(a, kept));
    CHECK(ndel == 1 && last_del == 7, "delete_attr: %d callbacks, value %ld", ndel, (long)last_del);
    MPI_CHK(MPI_Comm_get_attr(a, kept, &v, &flag));
    CHECK(!flag, "the attribute survived its delete");
    /* object free runs the others */
    MPI_CHK(MPI_Comm_free(&b));
    CHECK(ndel == 2 && last_del == 1007, "Comm_free of the dup: %d callbacks, value %ld", ndel,
          (long)last_del);
    MPI_CHK(MPI_Comm_free(&c));
    CHECK(ndel == 3 && last_del == 9, "Comm_free: %d callbacks, value %ld", ndel, (long)last_del);
    /* the last attribute is gone: so is the key */
    CHECK_CLASS(MPI_Comm_get_attr(a, kept, &v, &flag), MPI_ERR_KEYVAL);
    MPI_CHK(MPI_Comm_free(&a));
    CHECK(ndel == 3, "a communicator without the attribute ran a callback");
}

static void type_case(void)
{
    int k, kept, flag = 0;
    void *v = NULL;
    MPI_Datatype t, d;
    reset();
    MPI_CHK(MPI_Type_create_keyval(tcopy, tdel, &k, NULL));
    kept = k;
    MPI_CHK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_CHK(MPI_Type_set_attr(t, k, V(5)));
    MPI_CHK(MPI_Type_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "Type_free_keyval left the handle %d", k);
    MPI_CHK(MPI_Type_get_attr(t, kept, &v, &flag));
    CHECK(flag && v == V(5), "type get after free_keyval: flag %d value %p", flag, v);
    MPI_CHK(MPI_Type_dup(t, &d));
    CHECK(ncopy == 1, "Type_dup ran %d copy callbacks, want 1", ncopy);
    MPI_CHK(MPI_Type_get_attr(d, kept, &v, &flag));
    CHECK(flag && v == V(1005), "the dup's attribute: flag %d value %p", flag, v);
    /* replacing the value runs the delete callback of the old one */
    MPI_CHK(MPI_Type_set_attr(t, kept, V(6)));
    CHECK(ndel == 1 && last_del == 5, "replace: %d callbacks, value %ld", ndel, (long)last_del);
    MPI_CHK(MPI_Type_free(&t));
    CHECK(ndel == 2 && last_del == 6, "Type_free: %d callbacks, value %ld", ndel, (long)last_del);
    MPI_CHK(MPI_Type_delete_attr(d, kept));
    CHECK(ndel == 3 && last_del == 1005, "Type_delete_attr: %d callbacks, value %ld", ndel,
          (long)last_del);
    CHECK_CLASS(MPI_Type_get_attr(d, kept, &v, &flag), MPI_ERR_KEYVAL);
    MPI_CHK(MPI_Type_free(&d));
    CHECK(ndel == 3, "a type without the attribute ran a callback");
}

static void win_case(void)
{
    int k, kept, flag = 0;
    void *v = NULL, *base = NULL;
    MPI_Win w1, w2;
    reset();
    MPI_CHK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, wdel, &k, NULL));
    kept = k;
    /* the ranks of one node: the keyvals are the point here, and windows
     * across nodes are not there yet (the suite also runs over the network) */
    MPI_Comm node;
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_CHK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, node, &base, &w1));
    MPI_CHK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, node, &base, &w2));
    MPI_Win_set_errhandler(w1, MPI_ERRORS_RETURN);
    MPI_CHK(MPI_Win_set_attr(w1, k, V(3)));
    MPI_CHK(MPI_Win_set_attr(w2, k, V(4)));
    MPI_CHK(MPI_Win_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "Win_free_keyval left the handle %d", k);
    MPI_CHK(MPI_Win_get_attr(w1, kept, &v, &flag));
    CHECK(flag && v == V(3), "win get after free_keyval: flag %d value %p", flag, v);
    MPI_CHK(MPI_Win_delete_attr(w1, kept));
    CHECK(ndel == 1 && last_del == 3, "Win_delete_attr: %d callbacks, value %ld", ndel,
          (long)last_del);
    MPI_CHK(MPI_Win_free(&w2));
    CHECK(ndel == 2 && last_del == 4, "Win_free: %d callbacks, value %ld", ndel, (long)last_del);
    CHECK_CLASS(MPI_Win_get_attr(w1, kept, &v, &flag), MPI_ERR_KEYVAL);
    MPI_CHK(MPI_Win_free(&w1));
    CHECK(ndel == 2, "a window without the attribute ran a callback");
    MPI_CHK(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int round = 0; round < 3; round++) { /* reused table slots, too */
        comm_case();
        type_case();
        win_case();
    }
    return t_finish();
}
