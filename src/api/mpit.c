/* The MPI tool information interface, MPI 4.1 chapter 15: initialisation
 * (reference counted, independent of MPI_Init/MPI_Finalize), categories,
 * enumerations and the one event source (the monotonic clock). Control
 * variables are in mpit_cvar.c, performance variables in mpit_pvar.c,
 * events in mpit_event.c; what is exposed is listed in docs/mpit.md. */
#include "api/mpit.h"

#include <string.h>
#include <time.h>

int dmpi_mpit_refs;
pthread_mutex_t dmpi_mpit_lock = PTHREAD_MUTEX_INITIALIZER;

void dmpi_mpit_str(const char *s, char *buf, int *len)
{
    if (!len) return;
    int need = (int)strlen(s) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need - 1 < *len - 1 ? need - 1 : *len - 1;
    memcpy(buf, s, (size_t)n);
    buf[n] = '\0';
    *len = n + 1;
}

int dmpi_mpit_indices(const int *idx, int n, int len, int out[])
{
    if (len < 0 || (len > 0 && !out)) return MPI_T_ERR_INVALID;
    for (int i = 0; i < n && i < len; i++) out[i] = idx[i];
    return MPI_SUCCESS;
}

int PMPI_T_init_thread(int required, int *provided)
{
    (void)required; /* every level: the interface takes its own lock */
    if (!provided) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&dmpi_mpit_lock);
    dmpi_mpit_refs++;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    *provided = MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    pthread_mutex_lock(&dmpi_mpit_lock);
    int rc = MPI_SUCCESS;
    if (dmpi_mpit_refs <= 0) rc = MPI_T_ERR_NOT_INITIALIZED;
    else dmpi_mpit_refs--;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    return rc;
}
DMPI_ALIAS(T_finalize)

/* ---------------------------------------------------------------- categories */

static bool cat_ok(int c) { return c >= 0 && c < DMPI_MPIT_NCATS; }

/* The control (pvars false) or performance variables of category c. */
static int cat_members(int c, bool pvars, int *out)
{
    int n = 0;
    if (pvars) {
        for (int i = 0; i < DMPI_NPVARS; i++)
            if (dmpi_pvar_descs[i].category == c) out[n++] = i;
    } else {
        for (int i = 0; i < DMPI_NKNOBS; i++)
            if (dmpi_knob_descs[i].category == c) out[n++] = i;
    }
    return n;
}

int PMPI_T_category_get_num(int *num_cat)
{
    DMPI_T_CHECK_INIT();
    if (!num_cat) return MPI_T_ERR_INVALID;
    *num_cat = DMPI_MPIT_NCATS;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars, int *num_categories)
{
    DMPI_T_CHECK_INIT();
    if (!cat_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    int tmp[DMPI_NKNOBS + DMPI_NPVARS];
    dmpi_mpit_str(dmpi_knob_cat_names[cat_index], name, name_len);
    dmpi_mpit_str(dmpi_knob_cat_descs[cat_index], desc, desc_len);
    if (num_cvars) *num_cvars = cat_members(cat_index, false, tmp);
    if (num_pvars) *num_pvars = cat_members(cat_index, true, tmp);
    if (num_categories) *num_categories = 0;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    DMPI_T_CHECK_INIT();
    if (!name || !cat_index) return MPI_T_ERR_INVALID;
    for (int c = 0; c < DMPI_MPIT_NCATS; c++)
        if (!strcmp(name, dmpi_knob_cat_names[c])) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
DMPI_ALIAS(T_category_get_index)

static int get_members(int cat_index, bool pvars, int len, int indices[])
{
    DMPI_T_CHECK_INIT();
    if (!cat_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    int tmp[DMPI_NKNOBS + DMPI_NPVARS];
    int n = cat_members(cat_index, pvars, tmp);
    return dmpi_mpit_indices(tmp, n, len, indices);
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, false, len, indices);
}
DMPI_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, true, len, indices);
}
DMPI_ALIAS(T_category_get_pvars)

/* The categories are flat: none contains another, and none has events. */
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    DMPI_T_CHECK_INIT();
    if (!cat_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return dmpi_mpit_indices(NULL, 0, len, indices);
}
DMPI_ALIAS(T_category_get_categories)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    DMPI_T_CHECK_INIT();
    if (!cat_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    DMPI_T_CHECK_INIT();
    if (!cat_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return dmpi_mpit_indices(NULL, 0, len, indices);
}
DMPI_ALIAS(T_category_get_events)

/* The variables and categories never change while the library runs. */
int PMPI_T_category_changed(int *update_number)
{
    DMPI_T_CHECK_INIT();
    if (!update_number) return MPI_T_ERR_INVALID;
    *update_number = 0;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_category_changed)

/* -------------------------------------------------------------- enumerations */

/* An MPI_T_enum is the address of one of these bytes: checked by
 * comparing addresses, never by reading through the handle. */
static char enum_handles[DMPI_NKENUMS];

MPI_T_enum dmpi_mpit_enum_handle(int e)
{
    return e < 0 ? MPI_T_ENUM_NULL : (MPI_T_enum)(void *)&enum_handles[e];
}

static int enum_index(MPI_T_enum h)
{
    for (int e = 0; e < DMPI_NKENUMS; e++)
        if ((void *)h == (void *)&enum_handles[e]) return e;
    return -1;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    DMPI_T_CHECK_INIT();
    int e = enum_index(enumtype);
    if (e < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (num) *num = dmpi_knob_enum_count(e);
    dmpi_mpit_str(dmpi_knob_enum_name(e), name, name_len);
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    DMPI_T_CHECK_INIT();
    int e = enum_index(enumtype);
    if (e < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (indx < 0 || indx >= dmpi_knob_enum_count(e)) return MPI_T_ERR_INVALID_ITEM;
    dmpi_mpit_str(dmpi_knob_enum_item(e, indx, value), name, name_len);
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_enum_get_item)

/* ------------------------------------------------------------------ sources */

/* One source: the monotonic clock, in nanoseconds. */
static MPI_Count now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int PMPI_T_source_get_num(int *num_sources)
{
    DMPI_T_CHECK_INIT();
    if (!num_sources) return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    DMPI_T_CHECK_INIT();
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    dmpi_mpit_str("dmpi_clock", name, name_len);
    dmpi_mpit_str("this process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds", desc,
                  desc_len);
    if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second) *ticks_per_second = 1000000000;
    if (max_ticks) *max_ticks = (MPI_Count)(~0ull >> 1);
    if (info && PMPI_Info_create(info) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    DMPI_T_CHECK_INIT();
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp) return MPI_T_ERR_INVALID;
    *timestamp = now_ns();
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_source_get_timestamp)
