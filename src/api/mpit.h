/* Shared by the MPI_T entry points (api/mpit*.c): the interface's own
 * initialisation count and lock, and the string rule of the tool
 * interface. MPI_T calls return their error codes (MPI_T_ERR_*) without
 * invoking error handlers, and work before MPI_Init and after
 * MPI_Finalize. */
#ifndef DMPI_API_MPIT_H
#define DMPI_API_MPIT_H

#include "core/dmpi.h"
#include "core/knob.h"
#include "core/pvar.h"

/* Non-zero between MPI_T_init_thread and the matching MPI_T_finalize. */
extern int dmpi_mpit_refs;
extern pthread_mutex_t dmpi_mpit_lock;

#define DMPI_T_CHECK_INIT()                                        \
    do {                                                           \
        if (__builtin_expect(dmpi_mpit_refs <= 0, 0))              \
            return MPI_T_ERR_NOT_INITIALIZED;                      \
    } while (0)

/* Copies s into (buf, *len) by the rule of MPI 4.1 section 15.3.3: with
 * len NULL nothing happens; with buf NULL or *len 0 only *len is set, to
 * the length needed with the terminating '\0'; else at most *len - 1
 * characters and a '\0' are stored and *len is set to what was stored,
 * the '\0' included. */
void dmpi_mpit_str(const char *s, char *buf, int *len);

/* Copies up to len indices from the list idx (n of them) into out. */
int dmpi_mpit_indices(const int *idx, int n, int len, int out[]);

/* The MPI_T_enum of knob enumeration e (MPI_T_ENUM_NULL for -1). */
MPI_T_enum dmpi_mpit_enum_handle(int e);

/* Category index of a knob category (the categories are those of
 * core/knob_list.h). */
#define DMPI_MPIT_NCATS DMPI_NKCATS

#endif
