/* User-added error classes, codes and strings (MPI 4.1 section 9.5) and
 * safe lookups of error texts; implemented in core/errors.c beside the
 * rest of the error code scheme (see the numbering there). Every function
 * takes the registry's own lock: usable from any thread, and before
 * MPI_Init. Functions returning int return an MPI error class. */
#ifndef DMPI_ERRCLASS_H
#define DMPI_ERRCLASS_H

#include "core/dmpi.h"

/* A new class / a new code of errorclass (a predefined class other than
 * MPI_SUCCESS, or a user class: else MPI_ERR_ARG). Values are above
 * MPI_ERR_LASTCODE. */
int dmpi_error_add_class(int *errorclass);
int dmpi_error_add_code(int errorclass, int *errorcode);
/* Sets (replaces) the string of a user class or code; MPI_ERR_ARG for any
 * other value. */
int dmpi_error_add_string(int code, const char *text);

enum { DMPI_ERR_REMOVE_CLASS, DMPI_ERR_REMOVE_CODE, DMPI_ERR_REMOVE_STRING };
/* Removes a user class (which must have no codes left), a user code, or
 * the string of either; a removed class or code takes its string along.
 * On MPI_ERR_ARG, *why says what is wrong with the value. */
int dmpi_error_remove(int value, int what, const char **why);

/* Value of the MPI_LASTUSEDCODE attribute: in the standard's words "the
 * current maximum error class including the user-defined ones" (user
 * codes may lie above it), at least MPI_ERR_LASTCODE. */
int dmpi_error_last_used_code(void);

/* Is code a valid error code or class (predefined, recorded or added)? */
bool dmpi_error_known(int code);
/* Copies the text of code into buf (MPI_MAX_ERROR_STRING bytes) and its
 * length into *len; false for an unknown code. */
bool dmpi_error_copy_text(int code, char *buf, int *len);

#endif
