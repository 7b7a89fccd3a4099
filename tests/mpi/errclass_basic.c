/* errclass_basic.c: user-defined error classes, codes and strings (MPI 4.1
 * section 9.5). New classes and codes are above MPI_ERR_LASTCODE and
 * distinct; MPI_Error_class maps a code to its class and a class to
 * itself; MPI_Error_string gives the added string ("" before one is
 * added; a second MPI_Add_error_string replaces it); MPI_LASTUSEDCODE
 * (the largest class in use) follows; codes may be added to predefined classes; a user error handler
 * called through MPI_Comm_call_errhandler gets the code unchanged; the
 * MPI 4.1 Remove calls undo it all. The same calls in the same order give
 * the same values on every process (checked; the standard only advises
 * it). */
#include "common.h"

static int last_used(void)
{
    int *v = NULL, flag = 0;
    int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    if (rc != MPI_SUCCESS) {
        CHECK(t_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "Comm_get_attr(LASTUSEDCODE): %s",
              t_errstr(rc));
        return -1; /* attributes not available: not checked */
    }
    CHECK(flag, "MPI_LASTUSEDCODE attribute not set");
    return flag && v ? *v : -1;
}

static void check_string(int code, const char *want, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 'x', sizeof s);
    MPI_CHK(MPI_Error_string(code, s, &len));
    CHECK(len == (int)strlen(want) && strcmp(s, want) == 0,
          "%s: Error_string(%d) = \"%.*s\" (length %d), want \"%s\"", what, code,
          len >= 0 && len < MPI_MAX_ERROR_STRING ? len : 0, s, len, want);
}

static void check_class(int code, int want, const char *what)
{
    int cls = -1;
    MPI_CHK(MPI_Error_class(code, &cls));
    CHECK(cls == want, "%s: Error_class(%d) = %d, want %d", what, code, cls, want);
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;
static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int lu0 = last_used();
    CHECK(lu0 == -1 || lu0 >= MPI_ERR_LASTCODE, "LASTUSEDCODE %d < MPI_ERR_LASTCODE", lu0);

    /* Two classes, codes in each and one in a predefined class. */
    int c1 = -1, c2 = -1, k1 = -1, k2 = -1, k3 = -1, kp = -1;
    MPI_CHK(MPI_Add_error_class(&c1));
    MPI_CHK(MPI_Add_error_class(&c2));
    MPI_CHK(MPI_Add_error_code(c1, &k1));
    MPI_CHK(MPI_Add_error_code(c1, &k2));
    MPI_CHK(MPI_Add_error_code(c2, &k3));
    MPI_CHK(MPI_Add_error_code(MPI_ERR_ARG, &kp));
    int all[6] = {c1, c2, k1, k2, k3, kp};
    for (int i = 0; i < 6; i++) {
        CHECK(all[i] > MPI_ERR_LASTCODE, "value %d = %d not above MPI_ERR_LASTCODE", i, all[i]);
        for (int j = 0; j < i; j++)
            CHECK(all[i] != all[j], "values %d and %d are both %d", j, i, all[i]);
    }
    /* "the current maximum error class including the user-defined ones" */
    int lu = last_used();
    if (lu != -1) {
        int max = c1 > c2 ? c1 : c2;
        CHECK(lu >= max, "LASTUSEDCODE %d below the largest class added %d", lu, max);
    }
    /* Same values everywhere. */
    int *every = t_malloc((size_t)t_size * 6 * sizeof(int));
    MPI_CHK(MPI_Allgather(all, 6, MPI_INT, every, 6, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < t_size; p++)
        CHECK(memcmp(every + 6 * p, all, sizeof all) == 0, "rank %d got other values", p);
    free(every);

    check_class(c1, c1, "class 1");
    check_class(c2, c2, "class 2");
    check_class(k1, c1, "code 1");
    check_class(k2, c1, "code 2");
    check_class(k3, c2, "code 3");
    check_class(kp, MPI_ERR_ARG, "code in MPI_ERR_ARG");
    check_string(c1, "", "class without a string");
    check_string(k1, "", "code without a string");

    MPI_CHK(MPI_Add_error_string(c1, "library class one"));
    MPI_CHK(MPI_Add_error_string(k1, "first library code"));
    MPI_CHK(MPI_Add_error_string(kp, "bad argument to the library"));
    check_string(c1, "library class one", "class 1");
    check_string(k1, "first library code", "code 1");
    check_string(kp, "bad argument to the library", "code in MPI_ERR_ARG");
    check_string(k2, "", "code 2 still without a string");
    MPI_CHK(MPI_Add_error_string(kp, "bad argument, replaced"));
    check_string(kp, "bad argument, replaced", "code in MPI_ERR_ARG replaced");
    char longest[MPI_MAX_ERROR_STRING];
    memset(longest, 'e', sizeof longest - 1);
    longest[sizeof longest - 1] = 0;
    MPI_CHK(MPI_Add_error_string(k3, longest));
    check_string(k3, longest, "string of MPI_MAX_ERROR_STRING-1 characters");

    /* A user handler gets the code itself. */
    MPI_Comm dup;
    MPI_Errhandler eh;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_CHK(MPI_Comm_set_errhandler(dup, eh));
    MPI_CHK(MPI_Comm_call_errhandler(dup, k2));
    CHECK(handler_calls == 1 && handler_code == k2 && handler_comm == dup,
          "handler: %d calls, code %d (want %d)", handler_calls, handler_code, k2);
    MPI_CHK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_TAG, "handler: code %d, want %d",
          handler_code, MPI_ERR_TAG);
    MPI_CHK(MPI_Errhandler_free(&eh));
    MPI_CHK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Comm_call_errhandler(dup, c1)); /* MPI_ERRORS_RETURN: nothing happens */
    MPI_CHK(MPI_Comm_free(&dup));

    /* Erroneous uses that dmpi reports (others may not). */
    if (!T_MPICH_QUIRK("MPICH does not check these")) {
        CHECK_CLASS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Add_error_code(k1, &k2), MPI_ERR_ARG); /* k1 is not a class */
        CHECK_CLASS(MPI_Remove_error_class(c1), MPI_ERR_ARG);  /* still has codes */
        CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Remove_error_code(c2), MPI_ERR_ARG);   /* a class */
        CHECK_CLASS(MPI_Remove_error_string(k2), MPI_ERR_ARG); /* has none */
        CHECK_CLASS(MPI_Remove_error_code(k1), MPI_ERR_ARG);   /* still has a string */
        int cls = -1;
        CHECK_CLASS(MPI_Error_class(MPI_ERR_LASTCODE + 1000000, &cls), MPI_ERR_ARG);
    }

    /* Remove it all: strings, codes, then classes. */
    MPI_CHK(MPI_Remove_error_string(k1));
    check_string(k1, "", "code 1 after Remove_error_string");
    MPI_CHK(MPI_Remove_error_string(kp));
    MPI_CHK(MPI_Remove_error_string(c1));
    MPI_CHK(MPI_Remove_error_string(k3));
    MPI_CHK(MPI_Remove_error_code(k1));
    MPI_CHK(MPI_Remove_error_code(k2));
    MPI_CHK(MPI_Remove_error_code(k3));
    if (!T_MPICH_QUIRK("MPICH counts each Add_error_string as a reference: kp has two"))
        MPI_CHK(MPI_Remove_error_code(kp));
    MPI_CHK(MPI_Remove_error_class(c1));
    MPI_CHK(MPI_Remove_error_class(c2));
    if (!T_MPICH_QUIRK("removed values are not checked")) {
        int cls = -1;
        char s[MPI_MAX_ERROR_STRING];
        int len;
        CHECK_CLASS(MPI_Error_class(k1, &cls), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Error_string(c1, s, &len), MPI_ERR_ARG);
    }
    lu = last_used();
    if (!T_MPICH_QUIRK("MPICH's LASTUSEDCODE does not go down"))
        CHECK(lu == -1 || lu == lu0, "LASTUSEDCODE %d after removing every class, was %d", lu,
              lu0);
    /* Values can be added again. */
    int c3 = -1, k4 = -1;
    MPI_CHK(MPI_Add_error_class(&c3));
    MPI_CHK(MPI_Add_error_code(c3, &k4));
    check_class(k4, c3, "code added after the removals");
    MPI_CHK(MPI_Remove_error_code(k4));
    MPI_CHK(MPI_Remove_error_class(c3));
    return t_finish();
}
