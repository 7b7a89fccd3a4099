/* Handle <-> int conversion of the standard ABI (MPI 5.0 section 21.3,
 * MPI_Comm_toint / MPI_Comm_fromint and the like), shared by every object
 * kind. Implemented in core/handle_ints.c; the MPI_*_toint / _fromint
 * entry points are in api/abi.c.
 *
 * A predefined handle converts to its ABI value (1..4095). A user handle
 * (a pointer) gets an int >= DMPI_HANDLE_INT_BASE the first time it is
 * converted, and the same int on every later call; fromint gives the
 * pointer back. An int that names nothing, or names an object of another
 * kind, converts to the kind's null handle. Thread safe. */
#ifndef DMPI_HANDLE_INTS_H
#define DMPI_HANDLE_INTS_H

#include <stdint.h>

typedef enum {
    DMPI_HK_COMM, DMPI_HK_DATATYPE, DMPI_HK_ERRHANDLER, DMPI_HK_FILE, DMPI_HK_GROUP,
    DMPI_HK_INFO, DMPI_HK_MESSAGE, DMPI_HK_OP, DMPI_HK_REQUEST, DMPI_HK_SESSION,
    DMPI_HK_WIN, DMPI_HK_NKINDS
} dmpi_handle_kind;

/* First int given to a user handle: above the range the ABI reserves for
 * predefined handles (1..4095). */
#define DMPI_HANDLE_INT_BASE 0x10000

/* The int of handle h (a handle of `kind`, passed as its pointer value). */
int dmpi_handle_toint(dmpi_handle_kind kind, uintptr_t h);
/* The handle (pointer value) of int i, or the kind's null handle. */
uintptr_t dmpi_handle_fromint(dmpi_handle_kind kind, int i);
/* Called when the object at h is freed: its int is forgotten (and may be
 * given to a later object). Harmless for handles never converted. */
void dmpi_handle_forget(uintptr_t h);

#endif
