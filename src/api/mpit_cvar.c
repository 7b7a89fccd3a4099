/* MPI_T control variables (MPI 4.1 section 15.3.6): dmpi's DMPI_* knobs,
 * in the order of core/knob_list.h, named as the environment variables.
 * Reads give the value in effect (after the library's own limits once it
 * has read the knob); writes replace the environment's value while they
 * can still take effect (core/knob.c), else MPI_T_ERR_CVAR_SET_NEVER. */
#include "api/mpit.h"

#include <stdlib.h>
#include <string.h>

#define CVAR_MAGIC 0x43564152u

struct MPI_T_cvar_handle_t {
    uint32_t magic;
    int id;
    struct MPI_T_cvar_handle_t *next;
};

static struct MPI_T_cvar_handle_t *handles; /* all live ones (dmpi_mpit_lock) */

static bool is_str(int id) { return dmpi_knob_descs[id].type == DMPI_KT_STR; }

int PMPI_T_cvar_get_num(int *num_cvar)
{
    DMPI_T_CHECK_INIT();
    if (!num_cvar) return MPI_T_ERR_INVALID;
    *num_cvar = DMPI_NKNOBS;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    DMPI_T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= DMPI_NKNOBS) return MPI_T_ERR_INVALID_INDEX;
    const dmpi_knob_desc *d = &dmpi_knob_descs[cvar_index];
    dmpi_mpit_str(d->name, name, name_len);
    if (verbosity) *verbosity = d->verbosity;
    if (datatype) *datatype = is_str(cvar_index) ? MPI_CHAR : MPI_INT;
    if (enumtype) *enumtype = dmpi_mpit_enum_handle(dmpi_knob_enum_of(d->type));
    dmpi_mpit_str(d->desc, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (scope) *scope = d->scope;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    DMPI_T_CHECK_INIT();
    if (!name || !cvar_index) return MPI_T_ERR_INVALID;
    for (int i = 0; i < DMPI_NKNOBS; i++)
        if (!strcmp(name, dmpi_knob_descs[i].name)) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
DMPI_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* every control variable is bound to no object */
    DMPI_T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= DMPI_NKNOBS) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    struct MPI_T_cvar_handle_t *h = malloc(sizeof *h);
    if (!h) return MPI_T_ERR_MEMORY;
    h->magic = CVAR_MAGIC;
    h->id = cvar_index;
    pthread_mutex_lock(&dmpi_mpit_lock);
    h->next = handles;
    handles = h;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    *handle = h;
    *count = is_str(cvar_index) ? DMPI_KNOB_STR_MAX : 1;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_cvar_handle_alloc)

/* The knob of a live handle, or -1 (the handle is looked up, not read). */
static int handle_id(MPI_T_cvar_handle h)
{
    int id = -1;
    pthread_mutex_lock(&dmpi_mpit_lock);
    for (struct MPI_T_cvar_handle_t *p = handles; p; p = p->next)
        if (p == h) id = p->id;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    return id;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    DMPI_T_CHECK_INIT();
    if (!handle) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&dmpi_mpit_lock);
    struct MPI_T_cvar_handle_t **link = &handles;
    while (*link && *link != *handle) link = &(*link)->next;
    struct MPI_T_cvar_handle_t *h = *link;
    if (h) *link = h->next;
    pthread_mutex_unlock(&dmpi_mpit_lock);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    h->magic = 0;
    free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    DMPI_T_CHECK_INIT();
    int id = handle_id(handle);
    if (id < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    char text[DMPI_KNOB_STR_MAX];
    int v = 0;
    dmpi_knob_read(id, &v, text);
    if (is_str(id)) memcpy(buf, text, strlen(text) + 1);
    else memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    DMPI_T_CHECK_INIT();
    int id = handle_id(handle);
    if (id < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    const dmpi_knob_desc *d = &dmpi_knob_descs[id];
    int v = 0;
    if (is_str(id)) {
        if (strnlen(buf, DMPI_KNOB_STR_MAX) == DMPI_KNOB_STR_MAX) return MPI_T_ERR_INVALID;
    } else {
        memcpy(&v, buf, sizeof v);
        int e = dmpi_knob_enum_of(d->type);
        if (e >= 0 && (v < 0 || v >= dmpi_knob_enum_count(e))) return MPI_T_ERR_INVALID;
    }
    /* a LIVE knob changes what threads inside MPI do: under the big lock */
    dmpi_lock();
    int rc = dmpi_knob_write(id, v, is_str(id) ? buf : NULL);
    dmpi_unlock();
    return rc;
}
DMPI_ALIAS(T_cvar_write)
