/* Helpers shared by the generated Fortran wrappers (fort_wrappers.c, made
 * by tools/gen_fortran.py) and the hand-written ones in this directory:
 * the special Fortran addresses (MPI_BOTTOM, MPI_STATUS_IGNORE, ...),
 * Fortran strings, temporary handle arrays. The Fortran layer is a
 * separate library (libmpifort_abi) that uses only the public C ABI.
 *
 * Conventions it relies on (checked when the library is built):
 * default INTEGER and LOGICAL are 4 bytes (MPI_Fint is int), .TRUE. is 1,
 * character lengths are passed as size_t after the other arguments, and
 * external names are lower case with one trailing underscore (gfortran). */
#ifndef DMPI_FORT_SUPPORT_H
#define DMPI_FORT_SUPPORT_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef int MPI_Fint;

/* Every Fortran entry point is exported; nothing else is. */
#define DMPI_F_EXPORT __attribute__((visibility("default")))
/* name becomes another symbol for the function target. */
#define DMPI_F_ALIAS(target, name) \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("default")));

/* pmpi_<base>_ also answers to mpi_<base>_ (mpif.h, use mpi) and to the
 * mpi_f08 specific names mpi_<base>_f08_ and pmpi_<base>_f08_. */
#define DMPI_F_ALIASES(base)                     \
    DMPI_F_ALIAS(p##base##_, base##_)            \
    DMPI_F_ALIAS(p##base##_, base##_f08_)        \
    DMPI_F_ALIAS(p##base##_, p##base##_f08_)

/* Sets the optional ierror (NULL when an mpi_f08 caller left it out). */
static inline void dmpi_f_set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror) *ierror = rc;
}

/* Output strings are written to a temporary of this many characters (the
 * longest any MPI call produces: MPI_MAX_LIBRARY_VERSION_STRING). */
#define DMPI_F_STRING_MAX 8192
/* Handle arrays up to this length are converted on the stack. */
#define DMPI_F_STACK 16

/* The Fortran special addresses (common blocks /mpi_fortran_bottom/ ...). */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern MPI_Fint mpi_fortran_unweighted_[1], mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

/* A choice buffer: MPI_BOTTOM, MPI_IN_PLACE and MPI_BUFFER_AUTOMATIC
 * become the C constants, anything else is itself. */
void *dmpi_f_buf(void *p);
/* A status or status array: MPI_STATUS(ES)_IGNORE become NULL; otherwise
 * the Fortran array has the C layout. */
MPI_Status *dmpi_f_status(MPI_Fint *s);
/* Topology weights: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. */
const int *dmpi_f_weights(const MPI_Fint *w);
/* An array of error codes: MPI_ERRCODES_IGNORE becomes NULL. */
int *dmpi_f_errcodes(MPI_Fint *e);

/* A Fortran string of len characters as a new C string (free it), without
 * trailing blanks (and leading ones if strip_leading); NULL when out of
 * memory. */
char *dmpi_f_str_in(const char *s, size_t len, bool strip_leading);
/* Copies C string src into a Fortran string of len characters, padding
 * with blanks (truncating if it is longer). */
void dmpi_f_str_out(char *dst, size_t len, const char *src);

/* An array of n elements of size sz: stack (DMPI_F_STACK elements) when it
 * fits, else malloc; NULL when out of memory. dmpi_f_free undoes it. */
void *dmpi_f_alloc(int n, size_t sz, void *stack);
void dmpi_f_free(void *p, void *stack);

/* How many datatypes MPI_Alltoallw-like calls on comm take: the group (or
 * remote group) size; for the neighbourhood forms the out- (which = 0,
 * send) or in-degree (which = 1, receive). 0 for an invalid comm. */
int dmpi_f_ntypes(MPI_Fint comm);
int dmpi_f_nbr_ntypes(MPI_Fint comm, int which);

/* Called by the Fortran MPI_Init, MPI_Init_thread and MPI_Session_init:
 * tells the C library the Fortran sizes (MPI_Abi_set_fortran_info). */
void dmpi_f_register(void);
/* Called by the Fortran MPI_Finalize: frees what callbacks kept. */
void dmpi_f_callbacks_finalize(void);

#endif
