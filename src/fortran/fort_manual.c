/* Fortran procedures written by hand (tools/gen_fortran.py lists them in
 * MANUAL): start-up and finalisation, attribute values, strings whose
 * length is an in/out argument, status conversions between the Fortran
 * forms, MPI_F_sync_reg and MPI_Pcontrol. The callback-taking ones are in
 * fort_callbacks.c, the process-creation ones in fort_spawn.c. Each is
 * pmpi_<name>_ with mpi_<name>_ and the f08 names as aliases. */
#include "fortran/fort_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ start, end */

void pmpi_init_(MPI_Fint *ierror)
{
    int rc = MPI_Init(NULL, NULL);
    if (rc == MPI_SUCCESS) dmpi_f_register();
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_init)

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    int rc = MPI_Init_thread(NULL, NULL, *required, provided);
    if (rc == MPI_SUCCESS) dmpi_f_register();
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_init_thread)

void pmpi_finalize_(MPI_Fint *ierror)
{
    int rc = MPI_Finalize();
    if (rc == MPI_SUCCESS) dmpi_f_callbacks_finalize();
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_finalize)

/* ------------------------------------------------------ attribute values */

/* The value C returns for keyval on an object of kind, as Fortran sees it:
 * the predefined attributes are stored as pointers to their value
 * (MPI_WIN_BASE is the address itself); attributes set from Fortran hold
 * the value. */
static MPI_Aint attr_value(int kind, int keyval, void *v)
{
    switch (kind) {
    case 'c':
        switch (keyval) {
        case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
        case MPI_APPNUM: case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE:
            return *(int *)v;
        }
        break;
    case 'w':
        switch (keyval) {
        case MPI_WIN_SIZE: return *(MPI_Aint *)v;
        case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
            return *(int *)v;
        }
        break;
    }
    return (MPI_Aint)(intptr_t)v;
}

static int get_attr(int kind, MPI_Fint obj, MPI_Fint keyval, MPI_Aint *value, MPI_Fint *flag)
{
    void *v = NULL;
    int found = 0, rc;
    switch (kind) {
    case 'c': rc = MPI_Comm_get_attr(MPI_Comm_fromint(obj), keyval, &v, &found); break;
    case 't': rc = MPI_Type_get_attr(MPI_Type_fromint(obj), keyval, &v, &found); break;
    default: rc = MPI_Win_get_attr(MPI_Win_fromint(obj), keyval, &v, &found); break;
    }
    if (rc != MPI_SUCCESS) return rc;
    *flag = found != 0;
    if (found) *value = attr_value(kind, keyval, v);
    return rc;
}

#define F_GET_ATTR(obj, kind)                                                          \
    void pmpi_##obj##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *value,          \
                                MPI_Fint *flag, MPI_Fint *ierror)                        \
    {                                                                                   \
        dmpi_f_set_ierror(ierror, get_attr(kind, *h, *keyval, value, flag));            \
    }                                                                                   \
    DMPI_F_ALIASES(mpi_##obj##_get_attr)
F_GET_ATTR(comm, 'c')
F_GET_ATTR(type, 't')
F_GET_ATTR(win, 'w')

/* The MPI-1 form: the value is a default INTEGER. */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
                    MPI_Fint *ierror)
{
    MPI_Aint v = 0;
    int rc = get_attr('c', *comm, *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_attr_get)

/* -------------------------------------------- strings with in/out length */

void pmpi_info_get_(MPI_Fint *info, char *key, MPI_Fint *valuelen, char *value, MPI_Fint *flag,
                    MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    char *k = dmpi_f_str_in(key, key_len, true);
    char *v = malloc((*valuelen > 0 ? (size_t)*valuelen : 0) + 1);
    int found = 0, rc = MPI_ERR_NO_MEM;
    if (k && v) {
        rc = MPI_Info_get(MPI_Info_fromint(*info), k, *valuelen, v, &found);
        if (rc == MPI_SUCCESS) {
            *flag = found != 0;
            if (found) dmpi_f_str_out(value, value_len, v);
        }
    }
    free(k);
    free(v);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_info_get)

/* C counts the terminating NUL in buflen, Fortran does not: a Fortran
 * buflen of n is a C buffer of n + 1, and the length returned is one less
 * than C's. buflen 0 asks only for the length. */
static int string_query(MPI_Fint *buflen, char *value, size_t value_len,
                        int (*query)(void *ctx, int *len, char *buf), void *ctx)
{
    int clen = *buflen > 0 ? *buflen + 1 : 0;
    char *buf = malloc((size_t)clen + 1);
    if (!buf) return MPI_ERR_NO_MEM;
    int rc = query(ctx, &clen, buf);
    if (rc == MPI_SUCCESS) {
        if (*buflen > 0) dmpi_f_str_out(value, value_len, buf);
        *buflen = clen > 0 ? clen - 1 : 0;
    }
    free(buf);
    return rc;
}

struct info_query { MPI_Info info; const char *key; int *flag; };

static int info_query(void *ctx, int *len, char *buf)
{
    struct info_query *q = ctx;
    return MPI_Info_get_string(q->info, q->key, len, buf, q->flag);
}

void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                           MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    char *k = dmpi_f_str_in(key, key_len, true);
    int found = 0, rc = MPI_ERR_NO_MEM;
    if (k) {
        struct info_query q = {MPI_Info_fromint(*info), k, &found};
        rc = string_query(buflen, value, value_len, info_query, &q);
        if (rc == MPI_SUCCESS) *flag = found != 0;
    }
    free(k);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_info_get_string)

struct pset_query { MPI_Session session; MPI_Info info; int n; };

static int pset_query(void *ctx, int *len, char *buf)
{
    struct pset_query *q = ctx;
    return MPI_Session_get_nth_pset(q->session, q->info, q->n, len, buf);
}

void pmpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n,
                                MPI_Fint *pset_len, char *pset_name, MPI_Fint *ierror,
                                size_t name_len)
{
    struct pset_query q = {MPI_Session_fromint(*session), MPI_Info_fromint(*info), *n};
    dmpi_f_set_ierror(ierror, string_query(pset_len, pset_name, name_len, pset_query, &q));
}
DMPI_F_ALIASES(mpi_session_get_nth_pset)

/* ------------------------------------------------- status conversions */

/* An mpi_f08 TYPE(MPI_Status) and an INTEGER(MPI_STATUS_SIZE) status
 * have the same layout (the C one). */
void pmpi_status_f2f08_(const MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierror)
{
    memcpy(f08_status, f_status, sizeof(MPI_Status));
    dmpi_f_set_ierror(ierror, MPI_SUCCESS);
}
DMPI_F_ALIASES(mpi_status_f2f08)

void pmpi_status_f082f_(const MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierror)
{
    memcpy(f_status, f08_status, sizeof(MPI_Status));
    dmpi_f_set_ierror(ierror, MPI_SUCCESS);
}
DMPI_F_ALIASES(mpi_status_f082f)

/* ------------------------------------------------------------ the rest */

/* Does nothing, out of the compiler's sight: a call tells it that buf may
 * have been read or written (MPI 4.1 section 19.1.17). */
void pmpi_f_sync_reg_(void *buf)
{
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}
DMPI_F_ALIASES(mpi_f_sync_reg)

void pmpi_pcontrol_(MPI_Fint *level)
{
    MPI_Pcontrol(*level);
}
DMPI_F_ALIASES(mpi_pcontrol)
