/* dmpi-mpit: lists what the MPI tool information interface (MPI_T) of the
 * MPI library it runs with exposes: categories, control variables with
 * their current values, performance variables, enumerations, event types
 * and sources. Uses only MPI_T calls (no MPI_Init), so it runs anywhere;
 * `dmpi-info --mpit` runs it.
 *   dmpi-mpit [-c] [-p] [-v]   -c control variables only, -p performance
 *                              variables only, -v with descriptions */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose;

static const char *scope_name(int s)
{
    static const char *const n[] = {"?", "constant", "readonly", "local", "group", "group_eq",
                                     "all", "all_eq"};
    return s >= 1 && s <= 7 ? n[s] : "?";
}

static const char *class_name(int c)
{
    static const char *const n[] = {"?", "state", "level", "size", "percentage",
                                    "highwatermark", "lowwatermark", "counter", "aggregate",
                                    "timer", "generic"};
    return c >= 1 && c <= 10 ? n[c] : "?";
}

static const char *verbosity_name(int v)
{
    static char buf[32];
    const char *who = v & 0x20 ? "mpidev" : v & 0x10 ? "tuner" : "user";
    const char *how = v & 4 ? "all" : v & 2 ? "detail" : "basic";
    snprintf(buf, sizeof buf, "%s/%s", who, how);
    return buf;
}

/* The items of an enumeration, as "a|b|c". */
static void enum_items(MPI_T_enum e, char *out, size_t cap)
{
    int n = 0;
    out[0] = '\0';
    if (MPI_T_enum_get_info(e, &n, NULL, NULL) != MPI_SUCCESS) return;
    for (int i = 0; i < n; i++) {
        char name[64];
        int len = sizeof name, value;
        if (MPI_T_enum_get_item(e, i, &value, name, &len) != MPI_SUCCESS) continue;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s=%d", i ? "|" : "", name, value);
    }
}

static void cvar_line(int i)
{
    char name[256], desc[1024], value[1024] = "?";
    int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum et;
    if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope) != MPI_SUCCESS)
        return;
    MPI_T_cvar_handle h;
    int count;
    if (bind == MPI_T_BIND_NO_OBJECT && MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS) {
        if (dt == MPI_CHAR && count < (int)sizeof value) {
            MPI_T_cvar_read(h, value);
        } else if (dt == MPI_INT && count == 1) {
            int v;
            if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS) snprintf(value, sizeof value, "%d", v);
        }
        MPI_T_cvar_handle_free(&h);
    }
    if (et != MPI_T_ENUM_NULL && dt == MPI_INT) { /* the item's name after the value */
        int n = 0, v = atoi(value);
        MPI_T_enum_get_info(et, &n, NULL, NULL);
        for (int k = 0; k < n; k++) {
            char item[64];
            int il = sizeof item, iv;
            if (MPI_T_enum_get_item(et, k, &iv, item, &il) == MPI_SUCCESS && iv == v) {
                size_t used = strlen(value);
                snprintf(value + used, sizeof value - used, " (%s)", item);
            }
        }
    }
    printf("  %-28s = %-14s %-8s %s\n", name, value, scope_name(scope), verbosity_name(verb));
    if (et != MPI_T_ENUM_NULL && verbose) {
        char items[512];
        enum_items(et, items, sizeof items);
        printf("  %-28s   values: %s\n", "", items);
    }
    if (verbose) printf("  %-28s   %s\n", "", desc);
}

static void pvar_line(int i)
{
    char name[256], desc[1024];
    int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
    MPI_Datatype dt;
    MPI_T_enum et;
    if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind, &ro, &cont,
                            &atomic) != MPI_SUCCESS)
        return;
    printf("  %-30s %-13s %s%s%s %s\n", name, class_name(cls), ro ? "readonly" : "writable",
           cont ? " continuous" : "", atomic ? " atomic" : "", verbosity_name(verb));
    if (verbose) printf("  %-30s %s\n", "", desc);
}

int main(int argc, char **argv)
{
    int want_c = 1, want_p = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "-c")) want_p = 0;
        else if (!strcmp(argv[i], "-p")) want_c = 0;
        else {
            fprintf(stderr, "usage: %s [-c] [-p] [-v]\n", argv[0]);
            return 2;
        }
    }
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "dmpi-mpit: MPI_T_init_thread failed\n");
        return 1;
    }
    int ncat = 0, ncvar = 0, npvar = 0, nev = 0, nsrc = 0;
    MPI_T_category_get_num(&ncat);
    MPI_T_cvar_get_num(&ncvar);
    MPI_T_pvar_get_num(&npvar);
    MPI_T_event_get_num(&nev);
    MPI_T_source_get_num(&nsrc);
    printf("MPI_T: %d categories, %d control variables, %d performance variables, "
           "%d event types, %d sources\n", ncat, ncvar, npvar, nev, nsrc);
    int *list = malloc(sizeof(int) * (size_t)(ncvar + npvar + 1));
    if (!list) return 1;
    for (int c = 0; c < ncat; c++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, cv = 0, pv = 0, sub = 0;
        if (MPI_T_category_get_info(c, name, &nl, desc, &dl, &cv, &pv, &sub) != MPI_SUCCESS) continue;
        if ((!want_c || !cv) && (!want_p || !pv)) continue;
        printf("\ncategory %s: %s\n", name, desc);
        if (want_c && cv > 0 && MPI_T_category_get_cvars(c, cv, list) == MPI_SUCCESS) {
            printf(" control variables (name = value, scope, verbosity):\n");
            for (int k = 0; k < cv; k++) cvar_line(list[k]);
        }
        if (want_p && pv > 0 && MPI_T_category_get_pvars(c, pv, list) == MPI_SUCCESS) {
            printf(" performance variables (name, class, access, verbosity):\n");
            for (int k = 0; k < pv; k++) pvar_line(list[k]);
        }
    }
    for (int s = 0; s < nsrc; s++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc;
        MPI_T_source_order ord;
        MPI_Count tps, maxt;
        if (MPI_T_source_get_info(s, name, &nl, desc, &dl, &ord, &tps, &maxt, NULL) == MPI_SUCCESS)
            printf("\nsource %s: %s (%lld ticks per second)\n", name, desc, (long long)tps);
    }
    free(list);
    MPI_T_finalize();
    return 0;
}
