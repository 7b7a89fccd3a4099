/* info_basic.c: info objects (MPI 4.1 chapter 10). Create/set/get/delete,
 * key order (Get_nthkey), replacing a value, Info_get_string's buflen
 * rules (truncation, buflen 0, missing key), the deprecated Info_get,
 * Get_valuelen, Dup (independent copy), Free, the length limits, the
 * error classes under MPI_ERRORS_RETURN, the read-only MPI_INFO_ENV and
 * its keys, and Info_create_env. Every rank runs the same checks. */
#include "common.h"

/* A string of n copies of c (n < size of the static buffer). */
static const char *repeat(char c, int n)
{
    static char buf[2 * MPI_MAX_INFO_VAL];
    memset(buf, c, (size_t)n);
    buf[n] = 0;
    return buf;
}

/* The value of key in info as a string (empty if absent); *found tells. */
static const char *value_of(MPI_Info info, const char *key, int *found)
{
    static char buf[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof buf, flag = 0;
    buf[0] = 0;
    MPI_CHK(MPI_Info_get_string(info, key, &len, buf, &flag));
    if (!flag) buf[0] = 0;
    if (found) *found = flag;
    return buf;
}

static void check_basic_ops(void)
{
    MPI_Info info = MPI_INFO_NULL;
    int nkeys = -1, flag = -1, len = -1;
    char key[MPI_MAX_INFO_KEY], val[64];

    MPI_CHK(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "Info_create gave MPI_INFO_NULL");
    MPI_CHK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "new info has %d keys", nkeys);

    /* Keys keep insertion order; replacing a value keeps the position. */
    MPI_CHK(MPI_Info_set(info, "zeta", "1"));
    MPI_CHK(MPI_Info_set(info, "alpha", "two"));
    MPI_CHK(MPI_Info_set(info, "mid", "three3"));
    MPI_CHK(MPI_Info_set(info, "alpha", "replaced"));
    MPI_CHK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3, "nkeys %d after 4 sets of 3 keys", nkeys);
    const char *order[] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) {
        memset(key, 'x', sizeof key);
        MPI_CHK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0, "key %d is \"%.40s\", want \"%s\"", i, key, order[i]);
    }
    CHECK(strcmp(value_of(info, "alpha", &flag), "replaced") == 0 && flag,
          "alpha = \"%s\" (flag %d), want \"replaced\"", value_of(info, "alpha", NULL), flag);
    CHECK(strcmp(value_of(info, "zeta", &flag), "1") == 0 && flag, "zeta wrong");

    /* Get_valuelen: length without the NUL. */
    MPI_CHK(MPI_Info_get_valuelen(info, "mid", &len, &flag));
    CHECK(flag && len == 6, "valuelen of mid: flag %d len %d, want 6", flag, len);
    len = 77;
    MPI_CHK(MPI_Info_get_valuelen(info, "absent", &len, &flag));
    CHECK(!flag, "valuelen of an absent key gave flag %d", flag);

    /* Get_string: buflen in = buffer size, out = value length + 1. */
    int buflen = (int)sizeof val;
    memset(val, 'x', sizeof val);
    MPI_CHK(MPI_Info_get_string(info, "mid", &buflen, val, &flag));
    CHECK(flag && buflen == 7 && strcmp(val, "three3") == 0,
          "get_string mid: flag %d buflen %d value \"%.20s\"", flag, buflen, val);
    buflen = 4; /* truncated to 3 characters and a NUL */
    memset(val, 'x', sizeof val);
    MPI_CHK(MPI_Info_get_string(info, "alpha", &buflen, val, &flag));
    CHECK(flag && buflen == 9, "truncated get_string: flag %d buflen %d, want 9", flag, buflen);
    CHECK(memcmp(val, "rep", 4) == 0, "truncated get_string value \"%.8s\", want \"rep\"", val);
    CHECK(val[4] == 'x', "get_string wrote past buflen");
    buflen = 0; /* only asks for the length */
    MPI_CHK(MPI_Info_get_string(info, "alpha", &buflen, NULL, &flag));
    CHECK(flag && buflen == 9, "get_string with buflen 0: flag %d buflen %d", flag, buflen);
    buflen = 5;
    strcpy(val, "keep");
    MPI_CHK(MPI_Info_get_string(info, "absent", &buflen, val, &flag));
    CHECK(!flag && buflen == 5 && strcmp(val, "keep") == 0,
          "absent key: flag %d buflen %d value \"%.8s\" (want unchanged)", flag, buflen, val);

    /* Deprecated Info_get: valuelen characters plus a NUL (the value is
     * truncated, as the standard says). */
    if (!T_MPICH_QUIRK("MPICH fails instead of truncating")) {
        memset(val, 'x', sizeof val);
        MPI_CHK(MPI_Info_get(info, "alpha", 3, val, &flag));
        CHECK(flag && memcmp(val, "rep", 4) == 0, "Info_get valuelen 3: flag %d \"%.8s\"", flag,
              val);
    }
    memset(val, 'x', sizeof val);
    MPI_CHK(MPI_Info_get(info, "alpha", (int)sizeof val - 1, val, &flag));
    CHECK(flag && strcmp(val, "replaced") == 0, "Info_get: \"%.20s\"", val);
    MPI_CHK(MPI_Info_get(info, "absent", (int)sizeof val - 1, val, &flag));
    CHECK(!flag, "Info_get of an absent key gave flag %d", flag);

    /* Dup is an independent copy with the same order. */
    MPI_Info dup = MPI_INFO_NULL;
    MPI_CHK(MPI_Info_dup(info, &dup));
    CHECK(dup != MPI_INFO_NULL && dup != info, "Info_dup gave the same handle or NULL");
    MPI_CHK(MPI_Info_set(dup, "onlydup", "x"));
    MPI_CHK(MPI_Info_delete(dup, "zeta"));
    MPI_CHK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3, "original has %d keys after changing the dup", nkeys);
    MPI_CHK(MPI_Info_get_nkeys(dup, &nkeys));
    CHECK(nkeys == 3, "dup has %d keys, want 3", nkeys);
    MPI_CHK(MPI_Info_get_nthkey(dup, 0, key));
    CHECK(strcmp(key, "alpha") == 0, "dup key 0 \"%.40s\" after deleting the first", key);
    MPI_CHK(MPI_Info_get_nthkey(dup, 2, key));
    CHECK(strcmp(key, "onlydup") == 0, "dup key 2 \"%.40s\", want onlydup", key);
    value_of(info, "onlydup", &flag);
    CHECK(!flag, "a key set on the dup appeared in the original");

    /* Delete, then the key is gone and the rest keep their order. */
    MPI_CHK(MPI_Info_delete(info, "alpha"));
    value_of(info, "alpha", &flag);
    CHECK(!flag, "alpha still present after delete");
    MPI_CHK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "mid") == 0, "key 1 after delete \"%.40s\", want mid", key);

    /* Length limits: key up to MPI_MAX_INFO_KEY-1, value up to
     * MPI_MAX_INFO_VAL-1 characters. */
    MPI_CHK(MPI_Info_set(info, repeat('k', MPI_MAX_INFO_KEY - 1), "longest key"));
    CHECK(strcmp(value_of(info, repeat('k', MPI_MAX_INFO_KEY - 1), &flag), "longest key") == 0,
          "longest key not stored");
    MPI_CHK(MPI_Info_set(info, "bigvalue", repeat('v', MPI_MAX_INFO_VAL - 1)));
    MPI_CHK(MPI_Info_get_valuelen(info, "bigvalue", &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL - 1, "longest value: length %d", len);

    MPI_CHK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "Info_free did not set the handle to MPI_INFO_NULL");
    MPI_CHK(MPI_Info_free(&dup));
}

/* Many keys: order and lookup stay right as the object grows. */
static void check_many_keys(void)
{
    enum { N = 500 };
    MPI_Info info;
    char key[MPI_MAX_INFO_KEY], val[32];
    int nkeys = -1, flag;
    MPI_CHK(MPI_Info_create(&info));
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "key%03d", (i * 7) % N);
        snprintf(val, sizeof val, "v%d", i);
        MPI_CHK(MPI_Info_set(info, key, val));
    }
    MPI_CHK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == N, "%d keys, want %d", nkeys, N);
    int bad = 0;
    for (int i = 0; i < N && bad < 3; i++) {
        char want[MPI_MAX_INFO_KEY];
        snprintf(want, sizeof want, "key%03d", (i * 7) % N);
        MPI_CHK(MPI_Info_get_nthkey(info, i, key));
        snprintf(val, sizeof val, "v%d", i);
        if (strcmp(key, want) != 0 || strcmp(value_of(info, want, &flag), val) != 0) {
            bad++;
            CHECK(0, "entry %d: key \"%.40s\" (want %s)", i, key, want);
        }
    }
    MPI_CHK(MPI_Info_free(&info));
}

/* The call must fail with class cls (MPICH: with some error class). */
#define CHECK_INFO_CLASS(call, cls)                                                  \
    do {                                                                           \
        if (T_MPICH_QUIRK("MPICH gives MPI_ERR_ARG for MPI_INFO_NULL")) {         \
            int rc_ = (call);                                                      \
            CHECK(rc_ != MPI_SUCCESS, #call " succeeded");                         \
        } else {                                                                   \
            CHECK_CLASS(call, cls);                                                \
        }                                                                          \
    } while (0)

static void check_errors(void)
{
    MPI_Info info, stale;
    char key[MPI_MAX_INFO_KEY], val[16];
    int flag, n, buflen;
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, "a", "1"));

    /* MPI_INFO_NULL is not an info object. */
    CHECK_INFO_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "1"), MPI_ERR_INFO);
    CHECK_INFO_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    CHECK_INFO_CLASS(MPI_Info_get_nthkey(MPI_INFO_NULL, 0, key), MPI_ERR_INFO);
    buflen = (int)sizeof val;
    CHECK_INFO_CLASS(MPI_Info_get_string(MPI_INFO_NULL, "a", &buflen, val, &flag), MPI_ERR_INFO);
    CHECK_INFO_CLASS(MPI_Info_get_valuelen(MPI_INFO_NULL, "a", &n, &flag), MPI_ERR_INFO);
    CHECK_INFO_CLASS(MPI_Info_delete(MPI_INFO_NULL, "a"), MPI_ERR_INFO);
    MPI_Info dup = MPI_INFO_NULL;
    CHECK_INFO_CLASS(MPI_Info_dup(MPI_INFO_NULL, &dup), MPI_ERR_INFO);
    MPI_Info null = MPI_INFO_NULL;
    CHECK_INFO_CLASS(MPI_Info_free(&null), MPI_ERR_INFO);

    /* Keys: empty or longer than MPI_MAX_INFO_KEY-1; values longer than
     * MPI_MAX_INFO_VAL-1. */
    CHECK_CLASS(MPI_Info_set(info, "", "1"), MPI_ERR_INFO_KEY);
    if (!T_MPICH_QUIRK("MPICH accepts longer keys and values than its limits")) {
        const char *longkey = repeat('k', MPI_MAX_INFO_KEY);
        CHECK_CLASS(MPI_Info_set(info, longkey, "1"), MPI_ERR_INFO_KEY);
        buflen = (int)sizeof val;
        CHECK_CLASS(MPI_Info_get_string(info, repeat('k', MPI_MAX_INFO_KEY), &buflen, val, &flag),
                    MPI_ERR_INFO_KEY);
        CHECK_CLASS(MPI_Info_get_valuelen(info, repeat('k', MPI_MAX_INFO_KEY), &n, &flag),
                    MPI_ERR_INFO_KEY);
        CHECK_CLASS(MPI_Info_delete(info, repeat('k', MPI_MAX_INFO_KEY)), MPI_ERR_INFO_KEY);
        CHECK_CLASS(MPI_Info_set(info, "b", repeat('v', MPI_MAX_INFO_VAL)), MPI_ERR_INFO_VALUE);
    }

    /* Deleting a key that is not there; nth key out of range. */
    CHECK_CLASS(MPI_Info_delete(info, "nothere"), MPI_ERR_INFO_NOKEY);
    CHECK_CLASS(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);

    /* Nothing above changed the object. */
    MPI_CHK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "%d keys after the failed calls, want 1", n);

    /* A copy of a freed handle is no longer valid. */
    stale = info;
    MPI_CHK(MPI_Info_free(&info));
    if (!T_MPICH_QUIRK("MPICH may reuse the handle at once")) {
        CHECK_CLASS(MPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO);
        CHECK_CLASS(MPI_Info_set(stale, "a", "1"), MPI_ERR_INFO);
    }
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "?";
    }
}

static void check_env(int argc, char **argv)
{
    int flag = 0, nkeys = -1;
    MPI_CHK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys >= 0 && nkeys <= 9, "MPI_INFO_ENV has %d keys", nkeys);
    if (!T_MPICH_QUIRK("MPICH fills fewer MPI_INFO_ENV keys")) {
        CHECK(nkeys >= 5, "MPI_INFO_ENV has only %d keys", nkeys);
        const char *v = value_of(MPI_INFO_ENV, "command", &flag);
        CHECK(flag && strstr(v, "info_basic") != NULL, "command = \"%.60s\" (flag %d)", v, flag);
        v = value_of(MPI_INFO_ENV, "maxprocs", &flag);
        CHECK(flag && atoi(v) == t_size, "maxprocs = \"%.20s\", size %d", v, t_size);
        value_of(MPI_INFO_ENV, "host", &flag);
        CHECK(flag, "no host key in MPI_INFO_ENV");
        value_of(MPI_INFO_ENV, "wdir", &flag);
        CHECK(flag, "no wdir key in MPI_INFO_ENV");
        int provided = -1;
        MPI_CHK(MPI_Query_thread(&provided));
        v = value_of(MPI_INFO_ENV, "thread_level", &flag);
        CHECK(flag && strcmp(v, thread_level_name(provided)) == 0,
              "thread_level = \"%.40s\", want %s", v, thread_level_name(provided));
        if (argc > 1) {
            v = value_of(MPI_INFO_ENV, "argv", &flag);
            CHECK(flag && strstr(v, argv[1]) != NULL, "argv = \"%.60s\"", v);
        }
    }
    /* Every key of nthkey can be read back. */
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY];
        MPI_CHK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        value_of(MPI_INFO_ENV, key, &flag);
        CHECK(flag, "MPI_INFO_ENV key %d \"%.40s\" cannot be read", i, key);
    }

    /* Read-only: set, delete and free fail and change nothing. */
    if (!T_MPICH_QUIRK("MPICH lets MPI_INFO_ENV be modified")) {
        int rc = MPI_Info_set(MPI_INFO_ENV, "command", "changed");
        CHECK(rc != MPI_SUCCESS, "MPI_Info_set on MPI_INFO_ENV succeeded");
        CHECK(t_class(rc) == MPI_ERR_INFO, "set on MPI_INFO_ENV: class %d", t_class(rc));
        rc = MPI_Info_delete(MPI_INFO_ENV, "host");
        CHECK(rc != MPI_SUCCESS, "MPI_Info_delete on MPI_INFO_ENV succeeded");
        MPI_Info env = MPI_INFO_ENV;
        rc = MPI_Info_free(&env);
        CHECK(rc != MPI_SUCCESS, "MPI_Info_free of MPI_INFO_ENV succeeded");
        int n2 = -1;
        MPI_CHK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n2));
        CHECK(n2 == nkeys, "MPI_INFO_ENV went from %d to %d keys", nkeys, n2);
    }

    /* A dup of MPI_INFO_ENV is an ordinary, writable object. */
    MPI_Info dup;
    int n3 = -1;
    MPI_CHK(MPI_Info_dup(MPI_INFO_ENV, &dup));
    MPI_CHK(MPI_Info_get_nkeys(dup, &n3));
    CHECK(n3 == nkeys, "dup of MPI_INFO_ENV has %d keys, want %d", n3, nkeys);
    MPI_CHK(MPI_Info_set(dup, "command", "changed"));
    MPI_CHK(MPI_Info_free(&dup));

    /* Info_create_env with the program's own arguments. */
    MPI_Info ce = MPI_INFO_NULL;
    MPI_CHK(MPI_Info_create_env(argc, argv, &ce));
    CHECK(ce != MPI_INFO_NULL && ce != MPI_INFO_ENV, "Info_create_env gave a predefined handle");
    if (ce != MPI_INFO_NULL && !T_MPICH_QUIRK("MPICH fills fewer keys")) {
        const char *v = value_of(ce, "command", &flag);
        CHECK(flag && strcmp(v, argv[0]) == 0, "create_env command \"%.60s\", want \"%.60s\"",
              v, argv[0]);
    }
    if (ce != MPI_INFO_NULL) MPI_CHK(MPI_Info_free(&ce));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    check_basic_ops();
    check_many_keys();
    check_errors();
    check_env(argc, argv);

    return t_finish();
}
