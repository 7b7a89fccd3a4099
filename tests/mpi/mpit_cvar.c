/* MPI_T control variables (MPI 4.1 sections 15.3.3-15.3.6): the interface
 * works before MPI_Init and after MPI_Finalize and is reference counted;
 * every control variable can be described, found again by name and read;
 * the string arguments follow the truncation rule; a control variable
 * written before MPI_Init takes effect, one read at MPI_Init can no longer
 * be written after it (MPI_T_ERR_CVAR_SET_NEVER), and bad indices, names
 * and handles give their MPI_T_ERR_* codes. Any MPI with cvars passes the
 * generic part; the parts about named variables run where they exist. */
#include "common.h"

#include <string.h>

/* The call must return exactly this code (MPI_T calls raise no errors). */
#define T_RC(call, want)                                                              \
    do {                                                                              \
        int t_rc_ = (call);                                                           \
        if (t_rc_ != (want))                                                          \
            t_fail(__FILE__, __LINE__, #call, "returned %d, expected %d (%s)", t_rc_, \
                   (int)(want), #want);                                               \
    } while (0)

static int is_mpit_type(MPI_Datatype dt)
{
    return dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
           dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_COUNT || dt == MPI_CHAR ||
           dt == MPI_DOUBLE;
}

/* Describe, look up and read every control variable. */
static void enumerate(void)
{
    int n = -1;
    MPI_CHK(MPI_T_cvar_get_num(&n));
    CHECK(n >= 0, "cvar_get_num gave %d", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verb = -1, bind = -1, scope = -1;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum et = MPI_T_ENUM_NULL;
        MPI_CHK(MPI_T_cvar_get_info(i, name, &name_len, &verb, &dt, &et, desc, &desc_len, &bind,
                                    &scope));
        CHECK(name_len == (int)strlen(name) + 1, "cvar %d: name_len %d for '%s'", i, name_len,
              name);
        CHECK(desc_len == (int)strlen(desc) + 1, "cvar %d: desc_len %d", i, desc_len);
        CHECK(is_mpit_type(dt), "cvar %s: datatype not one MPI_T allows", name);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "cvar %s: scope %d",
              name, scope);
        CHECK(bind >= MPI_T_BIND_NO_OBJECT && bind <= MPI_T_BIND_MPI_SESSION, "cvar %s: bind %d",
              name, bind);
        int idx = -1;
        MPI_CHK(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i, "cvar %s: get_index gave %d, not %d", name, idx, i);
        /* lengths only: NULL buffers or zero lengths */
        int l1 = 0, l2 = 0;
        MPI_CHK(MPI_T_cvar_get_info(i, NULL, &l1, NULL, NULL, NULL, NULL, &l2, NULL, NULL));
        CHECK(l1 == name_len && l2 == desc_len, "cvar %s: lengths %d %d, want %d %d", name, l1,
              l2, name_len, desc_len);
        char small[4] = "xxx";
        int sl = 0;
        MPI_CHK(MPI_T_cvar_get_info(i, small, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(sl == name_len && !strcmp(small, "xxx"), "cvar %s: zero length wrote or gave %d",
              name, sl);
        sl = 3;
        MPI_CHK(MPI_T_cvar_get_info(i, small, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(name_len < 3 || (sl == 3 && small[2] == 0 && !strncmp(small, name, 2)),
              "cvar %s: truncated to '%s', length %d", name, small, sl);
        if (et != MPI_T_ENUM_NULL) {
            int items = -1, el = 0;
            MPI_CHK(MPI_T_enum_get_info(et, &items, NULL, &el));
            CHECK(items > 0 && el > 1, "cvar %s: enum of %d items", name, items);
            for (int k = 0; k < items; k++) {
                int value;
                char iname[64];
                int il = sizeof iname;
                MPI_CHK(MPI_T_enum_get_item(et, k, &value, iname, &il));
            }
            T_RC(MPI_T_enum_get_item(et, items, NULL, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
        }
        /* read it */
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        int count = -1;
        int obj = 0;
        MPI_CHK(MPI_T_cvar_handle_alloc(i, bind == MPI_T_BIND_NO_OBJECT ? NULL : &obj, &h,
                                        &count));
        CHECK(count >= 1, "cvar %s: count %d", name, count);
        if (count >= 1 && count <= 4096) {
            char buf[4096 * 8];
            MPI_CHK(MPI_T_cvar_read(h, buf));
            if (dt == MPI_CHAR) CHECK(memchr(buf, 0, (size_t)count) != NULL, "cvar %s: no '\\0'", name);
        }
        MPI_CHK(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar %s: handle_free left the handle", name);
    }
    T_RC(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
    T_RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
    int idx;
    T_RC(MPI_T_cvar_get_index("no such variable, surely", &idx), MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle h;
    int count;
    T_RC(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
}

/* The cvar named name as an int (with a handle), or -1 if there is none. */
static int cvar_handle(const char *name, MPI_T_cvar_handle *h)
{
    int idx, count;
    if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) return -1;
    MPI_CHK(MPI_T_cvar_handle_alloc(idx, NULL, h, &count));
    return idx;
}

int main(int argc, char **argv)
{
    int provided = -1;
    /* nothing works before MPI_T_init_thread */
    int n;
    T_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    MPI_CHK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_CHK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided)); /* counted */
    MPI_CHK(MPI_T_finalize());
    MPI_CHK(MPI_T_cvar_get_num(&n)); /* still one reference */

    /* before MPI_Init */
    enumerate();
    MPI_T_cvar_handle eager = MPI_T_CVAR_HANDLE_NULL, spin = MPI_T_CVAR_HANDLE_NULL,
                      launcher = MPI_T_CVAR_HANDLE_NULL, algo = MPI_T_CVAR_HANDLE_NULL;
    int have_eager = cvar_handle("DMPI_EAGER_MAX", &eager) >= 0;
    int have_spin = cvar_handle("DMPI_SPIN", &spin) >= 0;
    int have_launcher = cvar_handle("DMPI_LAUNCHER", &launcher) >= 0;
    int have_algo = cvar_handle("DMPI_COLL_BCAST_ALGO", &algo) >= 0;
    if (have_eager) {
        int v = -1, w = 16384;
        MPI_CHK(MPI_T_cvar_read(eager, &v));
        CHECK(v > 0, "DMPI_EAGER_MAX reads %d before MPI_Init", v);
        MPI_CHK(MPI_T_cvar_write(eager, &w));
        MPI_CHK(MPI_T_cvar_read(eager, &v));
        CHECK(v == 16384, "DMPI_EAGER_MAX reads %d after writing 16384", v);
    }
    if (have_launcher) {
        int w = 0;
        T_RC(MPI_T_cvar_write(launcher, &w), MPI_T_ERR_CVAR_SET_NEVER);
    }

    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    enumerate();
    if (have_eager) {
        int v = -1, w = 4096;
        MPI_CHK(MPI_T_cvar_read(eager, &v));
        CHECK(v == 16384, "DMPI_EAGER_MAX reads %d in MPI, written 16384 before", v);
        T_RC(MPI_T_cvar_write(eager, &w), MPI_T_ERR_CVAR_SET_NEVER);
        MPI_CHK(MPI_T_cvar_read(eager, &v));
        CHECK(v == 16384, "DMPI_EAGER_MAX reads %d after a refused write", v);
    }
    if (have_spin) { /* the waiting knobs change at any time */
        int v = -1, w = 123;
        MPI_CHK(MPI_T_cvar_write(spin, &w));
        MPI_CHK(MPI_T_cvar_read(spin, &v));
        CHECK(v == 123, "DMPI_SPIN reads %d after writing 123", v);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (have_algo) { /* every rank at the same point: all write the same */
        char old[4096], s[4096] = "binomial", back[4096];
        MPI_CHK(MPI_T_cvar_read(algo, old));
        MPI_CHK(MPI_T_cvar_write(algo, s));
        MPI_CHK(MPI_T_cvar_read(algo, back));
        CHECK(!strcmp(back, "binomial"), "DMPI_COLL_BCAST_ALGO reads '%s'", back);
        int x = t_rank == 0 ? 42 : 0;
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(x == 42, "bcast with the binomial tree gave %d", x);
        MPI_CHK(MPI_T_cvar_write(algo, old));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* bad handles */
    MPI_T_cvar_handle bogus = (MPI_T_cvar_handle)(void *)&n;
    int v;
    T_RC(MPI_T_cvar_read(bogus, &v), MPI_T_ERR_INVALID_HANDLE);
    T_RC(MPI_T_cvar_write(bogus, &v), MPI_T_ERR_INVALID_HANDLE);
    T_RC(MPI_T_cvar_handle_free(&bogus), MPI_T_ERR_INVALID_HANDLE);
    T_RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    T_RC(MPI_T_enum_get_info((MPI_T_enum)(void *)&n, NULL, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    if (have_eager) MPI_CHK(MPI_T_cvar_handle_free(&eager));
    if (have_spin) MPI_CHK(MPI_T_cvar_handle_free(&spin));
    if (have_launcher) MPI_CHK(MPI_T_cvar_handle_free(&launcher));
    if (have_algo) MPI_CHK(MPI_T_cvar_handle_free(&algo));
    MPI_CHK(MPI_T_finalize());
    T_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);

    int errs = t_errs, total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* and after MPI_Finalize */
    MPI_CHK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    enumerate();
    MPI_CHK(MPI_T_finalize());
    total += t_errs - errs;
    if (t_rank == 0) printf(total ? " Found %d errors\n" : " No Errors\n", total);
    return total != 0;
}
