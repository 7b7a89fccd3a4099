/* Attribute caching (MPI 4.1 section 7.7): keyvals and the attribute lists
 * hanging on communicators, datatypes and windows. Implemented in
 * core/attr.c; the MPI_* entry points are in api/attr.c.
 *
 * An attribute list is a `void *` slot owned by the object (dmpi_comm.attrs,
 * dmpi_datatype.attrs, a field of the window object); NULL is the empty list. The functions below take the slot and
 * the user's handle of the object (passed to the callbacks). They return MPI
 * error classes, or the code a user callback returned.
 *
 * Hooks for the other object owners:
 *   MPI_Comm_dup      api/comm.c calls dmpi_comm_attr_copy (weak);
 *   MPI_Comm_free     api/comm.c calls dmpi_comm_attr_delete_all (weak);
 *   MPI_Finalize      should call dmpi_attr_finalize() first thing, and
 *                     the runtime's end dmpi_attr_free_keyvals();
 *   MPI_Type_dup      should call dmpi_type_attr_copy(old, new);
 *   MPI_Type_free     should call dmpi_type_attr_delete_all(dt) (when the
 *                     user frees the handle: its attributes go then);
 *   MPI_Win_free      should call dmpi_attr_delete_all(&win->attrs, ...);
 *   windows           define dmpi_win_attr_slot, dmpi_win_attr_predefined
 *                     and dmpi_win_error (see below) to make
 *                     MPI_Win_{set,get,delete}_attr work. */
#ifndef DMPI_ATTR_H
#define DMPI_ATTR_H

#include "core/dmpi.h"

/* The kind of object a keyval is for. */
typedef enum { DMPI_ATTR_COMM = 1, DMPI_ATTR_TYPE = 2, DMPI_ATTR_WIN = 3 } dmpi_attr_kind;

/* Callbacks are stored as these generic types and called through their
 * real type (MPI_Comm_copy_attr_function, ... by the keyval's kind); the
 * handle travels as a pointer (every handle is one in the standard ABI).
 * The predefined callbacks are the constants 0 (null copy / null delete)
 * and 1 (dup). */
typedef int dmpi_attr_copy_fn(void *handle, int keyval, void *extra_state, void *val_in,
                              void *val_out, int *flag);
typedef int dmpi_attr_delete_fn(void *handle, int keyval, void *val, void *extra_state);

/* ------------------------------------------------------------- keyvals */
int dmpi_keyval_create(dmpi_attr_kind kind, dmpi_attr_copy_fn *copy, dmpi_attr_delete_fn *del,
                       void *extra_state, int *keyval);
/* Marks the keyval freed by the user; it goes when no attribute uses it. */
int dmpi_keyval_free(dmpi_attr_kind kind, int keyval);
/* Why keyval cannot be used on an object of this kind (NULL if it can):
 * for_update asks about set/delete (predefined keys are read-only). The
 * text (a constant, or written into buf) is for an error message of class
 * MPI_ERR_KEYVAL. */
const char *dmpi_keyval_problem(dmpi_attr_kind kind, int keyval, bool for_update, char *buf,
                                size_t len);
/* As dmpi_keyval_problem for MPI_*_free_keyval: also refuses a keyval the
 * user has freed already (whose attributes keep it alive). */
const char *dmpi_keyval_free_problem(dmpi_attr_kind kind, int keyval, char *buf, size_t len);
/* Is keyval one of the standard's predefined keys for this kind? */
bool dmpi_keyval_predefined(dmpi_attr_kind kind, int keyval);

/* ------------------------------------------------------- attribute lists
 * keyval must have passed dmpi_keyval_problem (and not be predefined). */
int dmpi_attr_set(void **list, void *handle, int keyval, void *value);
/* *value and *flag (1 when set); a NULL list is empty. */
void dmpi_attr_get(void *const *list, int keyval, void **value, int *flag);
/* Calls the delete callback; MPI_ERR_KEYVAL when the attribute is not set. */
int dmpi_attr_delete(void **list, void *handle, int keyval);
/* Deletes every attribute, most recently set first; stops at the first
 * callback that fails and returns its code. */
int dmpi_attr_delete_all(void **list, void *handle);
/* Runs the copy callbacks of every attribute of `from` (handle old_handle)
 * into `to` (empty before). On failure `to` is emptied again (with the
 * delete callbacks of what was copied) and the callback's code returned. */
int dmpi_attr_copy_all(void *const *from, void *old_handle, void **to, void *new_handle);

/* -------------------------------------------------- per-object wrappers */
int dmpi_comm_attr_copy(dmpi_comm *from, dmpi_comm *to);
int dmpi_comm_attr_delete_all(dmpi_comm *c);

/* Datatype attribute list slot. */
void **dmpi_type_attr_slot(dmpi_datatype *dt, bool create);
int dmpi_type_attr_copy(dmpi_datatype *from, dmpi_datatype *to);
int dmpi_type_attr_delete_all(dmpi_datatype *dt);

/* Windows: to be defined by the RMA layer (api/attr.c calls them when they
 * are linked in): the attribute slot of the window behind handle w, or NULL
 * if w is not a valid window; the value of a predefined window attribute
 * (MPI_WIN_BASE, ...), false if unset; and the error raised on window w
 * (its error handler), as dmpi_error does for communicators. */
void **dmpi_win_attr_slot(MPI_Win w);
bool dmpi_win_attr_predefined(MPI_Win w, int keyval, void **value);
int dmpi_win_error(MPI_Win w, int cls, const char *func, const char *msg);

/* Deletes the attributes of MPI_COMM_SELF then MPI_COMM_WORLD (as
 * MPI_Finalize must) and releases every keyval. */
int dmpi_attr_finalize(void);
void dmpi_attr_free_keyvals(void); /* when the runtime goes down */

#endif
