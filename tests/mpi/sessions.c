/* sessions.c: the Sessions model of MPI 4.1 sec. 11.3.
 *
 *   sessions          (no argument) sessions without MPI_Init: MPI_Initialized
 *                     and MPI_Finalized stay false throughout (sec. 11.2.1);
 *   sessions world    MPI_Init after a session is open, both used together,
 *                     MPI_Finalize while the session lives on (its
 *                     communicators keep working, an attribute set before
 *                     is deleted at their MPI_Comm_free), then
 *                     MPI_Session_finalize.
 *
 * Checked either way: the process sets mpi://WORLD and mpi://SELF (their
 * number, names, found without regard to case, the length query and truncation of
 * MPI_Session_get_nth_pset, the info key mpi_size), MPI_Session_get_info's
 * thread_level and mpi_memory_alloc_kinds, MPI_Group_from_session_pset, MPI_Comm_create_from_group and
 * MPI_Intercomm_create_from_groups on those groups (communication on the
 * results), two sessions at once, session error handlers (a user handler
 * called with the class of a bad argument, set/get/call), a buffered send
 * through the session's buffer (MPI_Session_attach_buffer, flush, iflush,
 * detach giving back the same buffer), MPI_Session_init's failures on its
 * errhandler argument (a bad thread_level; with MPI_Init, a start after
 * MPI_Finalize and the last session ended, which dmpi does not support;
 * without it, sessions start again after the last one ended, twice) and
 * bad arguments: MPI_ERR_ARG for
 * an unknown process set or an index out of range, raised on the session;
 * with MPI_Init also MPI_ERR_SESSION for MPI_SESSION_NULL (raised on no
 * object: fatal unless MPI_COMM_SELF's handler returns). */
#include "common.h"

static int eh_calls, eh_class;
static void session_eh(MPI_Session *s, int *code, ...)
{
    (void)s;
    eh_calls++;
    MPI_Error_class(*code, &eh_class);
}

static void check_flags(int want_init, int want_final, const char *when)
{
    int i = -1, f = -1;
    MPI_CHK(MPI_Initialized(&i));
    MPI_CHK(MPI_Finalized(&f));
    CHECK(i == want_init && f == want_final, "%s: MPI_Initialized %d, MPI_Finalized %d", when,
          i, f);
}

static void check_psets(MPI_Session s, int world_size)
{
    int n = -1;
    MPI_CHK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_CHK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        char name[64] = "";
        CHECK(len > 1 && len <= (int)sizeof name, "pset %d: length %d", i, len);
        if (len < 2 || len > (int)sizeof name) continue;
        MPI_CHK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) == len - 1, "pset %d: name \"%s\" but length %d", i, name, len);
        seen_world += strcmp(name, "mpi://WORLD") == 0;
        seen_self += strcmp(name, "mpi://SELF") == 0;
        char cut[5];
        int cutlen = (int)sizeof cut;
        MPI_CHK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &cutlen, cut));
        CHECK(strncmp(cut, name, 4) == 0 && cut[4] == 0, "pset %d cut to \"%s\"", i, cut);
        MPI_Info info;
        MPI_CHK(MPI_Session_get_pset_info(s, name, &info));
        char v[32] = "";
        int flag = 0;
        MPI_CHK(MPI_Info_get_string(info, "mpi_size", &(int){sizeof v}, v, &flag));
        int want = strcmp(name, "mpi://SELF") == 0 ? 1 : world_size;
        if (seen_world || seen_self)
            CHECK(flag && atoi(v) == want, "%s: mpi_size \"%s\" (want %d)", name, v, want);
        MPI_CHK(MPI_Info_free(&info));
    }
    CHECK(seen_world == 1 && seen_self == 1, "psets: mpi://WORLD %d, mpi://SELF %d", seen_world,
          seen_self);
    int len = 8;
    char name[8];
    CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, name), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, name), MPI_ERR_ARG);
    MPI_Info info;
    CHECK_CLASS(MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info), MPI_ERR_ARG);
    MPI_Group g;
    CHECK_CLASS(MPI_Group_from_session_pset(s, "no such set", &g), MPI_ERR_ARG);
    /* names match without regard to case, as in MPICH and Open MPI (MPICH's
     * session tests ask for "mpi://world") */
    MPI_CHK(MPI_Group_from_session_pset(s, "mpi://world", &g));
    int gsize = 0;
    MPI_CHK(MPI_Group_size(g, &gsize));
    CHECK(gsize == world_size, "mpi://world has %d processes (want %d)", gsize, world_size);
    MPI_CHK(MPI_Group_free(&g));
    MPI_CHK(MPI_Session_get_pset_info(s, "Mpi://Self", &info));
    MPI_CHK(MPI_Info_free(&info));
}

/* A communicator over the session's mpi://WORLD (tag distinguishes). */
static int deletes, late_keyval = MPI_KEYVAL_INVALID;

static int count_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    (void)c;
    (void)keyval;
    if (value == extra) ++*(int *)extra;
    return MPI_SUCCESS;
}

static MPI_Comm world_of(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_CHK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_CHK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_CHK(MPI_Group_free(&g));
    return c;
}

static void check_comm(MPI_Comm c, int base)
{
    int r, n, sum = -1;
    MPI_CHK(MPI_Comm_rank(c, &r));
    MPI_CHK(MPI_Comm_size(c, &n));
    MPI_CHK(MPI_Allreduce(&(int){base + r}, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * base + n * (n - 1) / 2, "allreduce gave %d", sum);
    int got = -1;
    MPI_CHK(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 7, &got, 1, MPI_INT, (r + n - 1) % n, 7, c,
                         MPI_STATUS_IGNORE));
    CHECK(got == (r + n - 1) % n, "ring: got %d", got);
}

static void check_errhandlers(MPI_Session s)
{
    MPI_Errhandler eh, got;
    MPI_CHK(MPI_Session_create_errhandler(session_eh, &eh));
    MPI_CHK(MPI_Session_set_errhandler(s, eh));
    MPI_CHK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "MPI_Session_get_errhandler gives another handler");
    MPI_CHK(MPI_Errhandler_free(&got));
    int len = 0;
    int rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1000, &len, NULL);
    CHECK(rc != MPI_SUCCESS && eh_calls == 1 && eh_class == MPI_ERR_ARG,
          "user handler: rc %d, %d calls, class %d", rc, eh_calls, eh_class);
    MPI_CHK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(eh_calls == 2 && eh_class == MPI_ERR_OTHER, "call_errhandler: %d calls, class %d",
          eh_calls, eh_class);
    MPI_Errhandler ceh;
    MPI_CHK(MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))session_eh,
                                       &ceh));
    CHECK_CLASS(MPI_Session_set_errhandler(s, ceh), MPI_ERR_ARG); /* a communicator's */
    MPI_CHK(MPI_Errhandler_free(&ceh));
    MPI_CHK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Errhandler_free(&eh));
    CHECK(eh_calls == 3, "%d handler calls (the refused set raises one)", eh_calls);
}

/* Bsend on a communicator of s goes through s's buffer. */
static void check_buffer(MPI_Session s, MPI_Comm c)
{
    int r, n;
    MPI_CHK(MPI_Comm_rank(c, &r));
    MPI_CHK(MPI_Comm_size(c, &n));
    int size = 4 * (1024 + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)size);
    MPI_CHK(MPI_Session_attach_buffer(s, buf, size));
    CHECK_CLASS(MPI_Session_attach_buffer(s, buf, size), MPI_ERR_BUFFER); /* one at a time */
    int data[256], got[256];
    for (int i = 0; i < 256; i++) data[i] = r * 1000 + i;
    MPI_CHK(MPI_Bsend(data, 256, MPI_INT, (r + 1) % n, 3, c));
    for (int i = 0; i < 256; i++) data[i] = -1; /* the buffer holds the copy */
    MPI_CHK(MPI_Recv(got, 256, MPI_INT, (r + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < 256; i++) bad += got[i] != ((r + n - 1) % n) * 1000 + i;
    CHECK(!bad, "%d wrong ints through the session buffer", bad);
    MPI_CHK(MPI_Session_flush_buffer(s));
    MPI_Request q;
    MPI_CHK(MPI_Session_iflush_buffer(s, &q));
    MPI_CHK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    void *back = NULL;
    int back_size = 0;
    MPI_CHK(MPI_Session_detach_buffer(s, &back, &back_size));
    CHECK(back == buf && back_size == size, "detach gave %p/%d", back, back_size);
    /* without any buffer a buffered send fails */
    CHECK_CLASS(MPI_Bsend(data, 1, MPI_INT, r, 4, c), MPI_ERR_BUFFER);
    MPI_CHK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    MPI_CHK(MPI_Bsend(data, 1, MPI_INT, r, 5, c));
    MPI_CHK(MPI_Recv(got, 1, MPI_INT, r, 5, c, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_Session_detach_buffer(s, &back, &back_size));
    CHECK(back == MPI_BUFFER_AUTOMATIC, "automatic buffer not given back");
    free(buf);
}

int main(int argc, char **argv)
{
    int with_world = argc > 1 && strcmp(argv[1], "world") == 0;
    check_flags(0, 0, "start");
    MPI_Errhandler eh;
    MPI_CHK(MPI_Session_create_errhandler(session_eh, &eh)); /* allowed before init */
    MPI_Info info;
    MPI_CHK(MPI_Info_create(&info));
    MPI_Session s1 = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
    /* a failing MPI_Session_init raises on its errhandler argument */
    MPI_CHK(MPI_Info_set(info, "thread_level", "MPI_THREAD_MOST"));
    CHECK_CLASS(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1), MPI_ERR_INFO_VALUE);
    MPI_CHK(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
    MPI_CHK(MPI_Session_init(info, eh, &s1));
    MPI_CHK(MPI_Info_free(&info));
    MPI_CHK(MPI_Errhandler_free(&eh));
    check_flags(0, 0, "session open");
    MPI_CHK(MPI_Session_set_errhandler(s1, MPI_ERRORS_RETURN));
    MPI_Info used;
    MPI_CHK(MPI_Session_get_info(s1, &used));
    char level[64] = "";
    int flag = 0;
    MPI_CHK(MPI_Info_get_string(used, "thread_level", &(int){sizeof level}, level, &flag));
    CHECK(flag && strncmp(level, "MPI_THREAD_", 11) == 0, "thread_level \"%s\"", level);
    MPI_CHK(MPI_Info_get_string(used, "mpi_memory_alloc_kinds", &(int){sizeof level}, level,
                                &flag));
    CHECK(flag && strstr(level, "system"), "mpi_memory_alloc_kinds \"%s\"", level);
    MPI_CHK(MPI_Info_free(&used));

    /* the size of mpi://WORLD, from its info */
    MPI_CHK(MPI_Session_get_pset_info(s1, "mpi://WORLD", &used));
    char v[32] = "";
    MPI_CHK(MPI_Info_get_string(used, "mpi_size", &(int){sizeof v}, v, &flag));
    MPI_CHK(MPI_Info_free(&used));
    int wsize = atoi(v);

    if (with_world) {
        MPI_CHK(MPI_Init(&argc, &argv));
        check_flags(1, 0, "MPI_Init beside a session");
        int n;
        MPI_CHK(MPI_Comm_size(MPI_COMM_WORLD, &n));
        CHECK(n == wsize, "MPI_COMM_WORLD has %d ranks, mpi://WORLD %d", n, wsize);
    }
    check_psets(s1, wsize);

    MPI_Comm c1 = world_of(s1, "dmpi.test.sessions.one");
    int r = -1, n = 0;
    MPI_CHK(MPI_Comm_rank(c1, &r));
    MPI_CHK(MPI_Comm_size(c1, &n));
    t_rank = r;
    t_size = n;
    CHECK(n == wsize, "communicator of mpi://WORLD has %d ranks", n);
    check_comm(c1, 10);

    MPI_Group self;
    MPI_Comm cs = MPI_COMM_NULL;
    MPI_CHK(MPI_Group_from_session_pset(s1, "mpi://SELF", &self));
    int gs = 0, gr = -1;
    MPI_CHK(MPI_Group_size(self, &gs));
    MPI_CHK(MPI_Group_rank(self, &gr));
    CHECK(gs == 1 && gr == 0, "mpi://SELF: size %d rank %d", gs, gr);
    MPI_CHK(MPI_Comm_create_from_group(self, "dmpi.test.sessions.self", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &cs));
    MPI_CHK(MPI_Group_free(&self));
    check_comm(cs, 3);

    /* a second session, used interleaved with the first */
    MPI_CHK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    CHECK(s2 != s1, "two sessions share a handle");
    MPI_Comm c2 = world_of(s2, "dmpi.test.sessions.two");
    check_comm(c2, 20);
    check_comm(c1, 30);
    MPI_Comm c1dup;
    MPI_CHK(MPI_Comm_dup(c1, &c1dup));
    check_comm(c1dup, 40);

    /* an intercommunicator between the halves of mpi://WORLD */
    if (n >= 2) {
        MPI_Group wg, lo, hi;
        MPI_CHK(MPI_Group_from_session_pset(s2, "mpi://WORLD", &wg));
        int half = n / 2;
        MPI_CHK(MPI_Group_range_incl(wg, 1, (int[][3]){{0, half - 1, 1}}, &lo));
        MPI_CHK(MPI_Group_range_incl(wg, 1, (int[][3]){{half, n - 1, 1}}, &hi));
        int mine = r < half;
        MPI_Comm ic = MPI_COMM_NULL;
        MPI_CHK(MPI_Intercomm_create_from_groups(mine ? lo : hi, 0, mine ? hi : lo, 0,
                                                 "dmpi.test.sessions.inter", MPI_INFO_NULL,
                                                 MPI_ERRORS_RETURN, &ic));
        int rsize = 0, inter = 0;
        MPI_CHK(MPI_Comm_remote_size(ic, &rsize));
        MPI_CHK(MPI_Comm_test_inter(ic, &inter));
        CHECK(inter && rsize == (mine ? n - half : half), "intercomm: inter %d remote size %d",
              inter, rsize);
        int lr;
        MPI_CHK(MPI_Comm_rank(ic, &lr));
        if (lr == 0) {
            int got = -1;
            MPI_CHK(MPI_Sendrecv(&r, 1, MPI_INT, 0, 9, &got, 1, MPI_INT, 0, 9, ic,
                                 MPI_STATUS_IGNORE));
            CHECK(got == (mine ? half : 0), "leaders exchanged %d", got);
        }
        MPI_CHK(MPI_Comm_free(&ic));
        MPI_CHK(MPI_Group_free(&lo));
        MPI_CHK(MPI_Group_free(&hi));
        MPI_CHK(MPI_Group_free(&wg));
    }

    check_errhandlers(s1);
    check_buffer(s2, c2);

    if (with_world) {
        /* bad handles: errors on no object, so under MPI_COMM_SELF's handler */
        MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        int np;
        CHECK_CLASS(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &np),
                    MPI_ERR_SESSION);
        MPI_Session none = MPI_SESSION_NULL;
        CHECK_CLASS(MPI_Session_finalize(&none), MPI_ERR_SESSION);

        check_comm(MPI_COMM_WORLD, 50);
        /* an attribute on a session's communicator outlives MPI_Finalize:
         * its keyval too, and its delete callback runs at MPI_Comm_free */
        MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &late_keyval,
                                       &deletes));
        MPI_CHK(MPI_Comm_set_attr(c1dup, late_keyval, &deletes));
        MPI_CHK(MPI_Finalize());
        check_flags(1, 1, "after MPI_Finalize, sessions open");
        check_comm(c1, 60); /* the session's communicators still work */
    }

    /* the error count over the session's communicator, then the end */
    int errs = t_errs, total = 0;
    MPI_CHK(MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, c1));
    MPI_CHK(MPI_Comm_free(&c1dup));
    if (with_world) /* the keyval is left to the runtime's end */
        CHECK(deletes == 1, "delete callback of an attribute set before MPI_Finalize ran %d times "
              "at MPI_Comm_free", deletes);
    MPI_CHK(MPI_Comm_free(&c2));
    MPI_CHK(MPI_Comm_free(&cs));
    MPI_CHK(MPI_Comm_free(&c1));
    MPI_CHK(MPI_Session_finalize(&s2));
    CHECK(s2 == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");
    MPI_CHK(MPI_Session_finalize(&s1));
    check_flags(with_world, with_world, "end");
    if (with_world) {
        /* after MPI_Finalize the runtime is gone and cannot start again
         * (docs/conformance.md) */
        CHECK_CLASS(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1), MPI_ERR_OTHER);
    } else {
        /* sessions alone: they can start again, twice, and work */
        for (int round = 0; round < 2; round++) {
            MPI_CHK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1));
            MPI_Comm again = world_of(s1, round ? "dmpi.test.sessions.again2" : "dmpi.test.sessions.again");
            check_comm(again, 70 + round);
            int part = 0;
            MPI_CHK(MPI_Allreduce(&errs, &part, 1, MPI_INT, MPI_SUM, again));
            MPI_CHK(MPI_Comm_free(&again));
            MPI_CHK(MPI_Session_finalize(&s1));
            check_flags(0, 0, "after a session started again");
        }
    }
    total += t_errs - errs;
    if (r == 0) printf(total ? " Found %d errors\n" : " No Errors\n", total);
    return total ? 1 : 0;
}
