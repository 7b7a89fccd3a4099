/* The DMPI_* knobs at run time: each read goes through the one table
 * (knob_list.h); a value written with MPI_T_cvar_write takes the place of
 * the environment's. Also the value the library settled on, for
 * MPI_T_cvar_read. Usable before MPI_Init and after MPI_Finalize. */
#include "core/knob.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DMPI_KNOB(ID, NAME, TYPE, DFLT, DTEXT, CAT, VERB, SCOPE, WHEN, DESC)                     \
    [DMPI_KNOB_##ID] = {NAME,          DESC,                     DTEXT,                      \
                        DFLT,          DMPI_KT_##TYPE,           DMPI_KCAT_##CAT,            \
                        MPI_T_VERBOSITY_##VERB, MPI_T_SCOPE_##SCOPE, DMPI_KW_##WHEN},
const dmpi_knob_desc dmpi_knob_descs[DMPI_NKNOBS] = {DMPI_KNOB_LIST};
#undef DMPI_KNOB

#define DMPI_KNOB_CAT(ID, NAME, DESC) [DMPI_KCAT_##ID] = NAME,
const char *const dmpi_knob_cat_names[DMPI_NKCATS] = {DMPI_KNOB_CATEGORIES};
#undef DMPI_KNOB_CAT
#define DMPI_KNOB_CAT(ID, NAME, DESC) [DMPI_KCAT_##ID] = DESC,
const char *const dmpi_knob_cat_descs[DMPI_NKCATS] = {DMPI_KNOB_CATEGORIES};
#undef DMPI_KNOB_CAT

/* Enumerations: their names and items (value = position). */
static const char *const bool_items[] = {"off", "on"};
static const char *const bind_items[] = {"none", "core", "round_robin"};
static const char *const pmi_items[] = {"auto", "pmix", "pmi2", "pmi1", "singleton"};
static const char *const launcher_items[] = {"auto", "srun", "ssh", "fork"};
static const struct {
    const char *name;
    const char *const *items;
    int n;
} enums[DMPI_NKENUMS] = {
    {"dmpi_bool", bool_items, 2},
    {"dmpi_bind", bind_items, 3},
    {"dmpi_pmi", pmi_items, 5},
    {"dmpi_launcher", launcher_items, 4},
};

static struct {
    char *written;          /* text written with MPI_T, or NULL */
    bool taken;             /* the library has read it */
    bool has_eff;
    long eff;               /* the value it settled on */
    void (*apply)(int id);  /* LIVE knobs: re-read after a write */
} state[DMPI_NKNOBS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int dmpi_knob_enum_of(int type)
{
    switch (type) {
    case DMPI_KT_BOOL: return 0;
    case DMPI_KT_ENUM_BIND: return 1;
    case DMPI_KT_ENUM_PMI: return 2;
    case DMPI_KT_ENUM_LAUNCHER: return 3;
    default: return -1;
    }
}

int dmpi_knob_enum_count(int e) { return enums[e].n; }
const char *dmpi_knob_enum_name(int e) { return enums[e].name; }

const char *dmpi_knob_enum_item(int e, int i, int *value)
{
    if (value) *value = i;
    return enums[e].items[i];
}

/* The raw text (written, else environment), NULL when unset; lock held. */
static const char *raw(int id)
{
    if (state[id].written) return state[id].written;
    const char *v = getenv(dmpi_knob_descs[id].name);
    return v && *v ? v : NULL;
}

static long parse(int id, const char *v, long dflt)
{
    if (!v) return dflt;
    int e = dmpi_knob_enum_of(dmpi_knob_descs[id].type);
    if (e >= 0)
        for (int i = 0; i < enums[e].n; i++)
            if (!strcasecmp(v, enums[e].items[i])) return i;
    char *end;
    long x = strtol(v, &end, 0);
    if (*end == 'k' || *end == 'K') x <<= 10;
    else if (*end == 'm' || *end == 'M') x <<= 20;
    return x;
}

long dmpi_knob_or(int id, long dflt)
{
    pthread_mutex_lock(&lock);
    long x = parse(id, raw(id), dflt);
    state[id].taken = true;
    state[id].has_eff = true;
    state[id].eff = x;
    pthread_mutex_unlock(&lock);
    return x;
}

long dmpi_knob(int id) { return dmpi_knob_or(id, dmpi_knob_descs[id].dflt); }

const char *dmpi_knob_str(int id, char *buf)
{
    pthread_mutex_lock(&lock);
    const char *v = raw(id);
    state[id].taken = true;
    if (v) snprintf(buf, DMPI_KNOB_STR_MAX, "%s", v);
    pthread_mutex_unlock(&lock);
    return v ? buf : NULL;
}

void dmpi_knob_set_effective(int id, long v)
{
    pthread_mutex_lock(&lock);
    state[id].has_eff = true;
    state[id].eff = v;
    pthread_mutex_unlock(&lock);
}

void dmpi_knob_watch(int id, void (*apply)(int id))
{
    pthread_mutex_lock(&lock);
    state[id].apply = apply;
    pthread_mutex_unlock(&lock);
}

void dmpi_knob_read(int id, int *v, char *buf)
{
    const dmpi_knob_desc *d = &dmpi_knob_descs[id];
    pthread_mutex_lock(&lock);
    const char *r = raw(id);
    if (d->type == DMPI_KT_STR) {
        snprintf(buf, DMPI_KNOB_STR_MAX, "%s", r ? r : d->dflt_text);
    } else {
        *v = (int)(state[id].has_eff ? state[id].eff : parse(id, r, d->dflt));
    }
    pthread_mutex_unlock(&lock);
}

int dmpi_knob_write(int id, int v, const char *s)
{
    const dmpi_knob_desc *d = &dmpi_knob_descs[id];
    char text[DMPI_KNOB_STR_MAX];
    int e = dmpi_knob_enum_of(d->type);
    if (d->type == DMPI_KT_STR) snprintf(text, sizeof text, "%s", s);
    else if ((d->type == DMPI_KT_ENUM_PMI || d->type == DMPI_KT_ENUM_LAUNCHER) && v >= 0 &&
             v < enums[e].n) /* the readers compare names */
        snprintf(text, sizeof text, "%s", enums[e].items[v]);
    else snprintf(text, sizeof text, "%d", v);
    pthread_mutex_lock(&lock);
    if (d->when == DMPI_KW_NEVER || (d->when == DMPI_KW_INIT && state[id].taken)) {
        pthread_mutex_unlock(&lock);
        return MPI_T_ERR_CVAR_SET_NEVER;
    }
    char *copy = strdup(text);
    if (!copy) {
        pthread_mutex_unlock(&lock);
        return MPI_T_ERR_MEMORY;
    }
    free(state[id].written);
    state[id].written = copy;
    void (*apply)(int) = state[id].taken ? state[id].apply : NULL;
    state[id].has_eff = false; /* apply, or the next read, sets it again */
    pthread_mutex_unlock(&lock);
    if (apply) apply(id);
    return MPI_SUCCESS;
}
