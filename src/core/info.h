/* Info objects (MPI 4.1 chapter 10): ordered (key, value) string pairs,
 * the predefined read-only MPI_INFO_ENV, and the internal interface other
 * layers use to read or build info objects (communicator, window, file
 * hints; MPI_Abi_get_info). Implemented in core/info.c; the MPI_Info_*
 * entry points are in api/info.c.
 *
 * Every function here takes the module's own lock, so info objects can be
 * used from any thread. Keys keep the order in which they were first set
 * (MPI_Info_get_nthkey); setting an existing key replaces its value in
 * place. */
#ifndef DMPI_INFO_H
#define DMPI_INFO_H

#include "core/dmpi.h"

typedef struct dmpi_info dmpi_info;

/* Object behind a handle: MPI_INFO_ENV gives the predefined environment
 * object (filled on first use); MPI_INFO_NULL, a freed or a foreign handle
 * give NULL. */
dmpi_info *dmpi_info_get(MPI_Info h);
/* The handle the user sees (MPI_INFO_ENV for the environment object). */
MPI_Info dmpi_info_handle(dmpi_info *info);

/* A new empty info object, or NULL when out of memory. */
dmpi_info *dmpi_info_new(void);
/* A new object with the same pairs in the same order (also of
 * MPI_INFO_ENV); MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dmpi_info_dup(dmpi_info *info, dmpi_info **out);
/* Frees a user object (the predefined one is left alone). */
void dmpi_info_free(dmpi_info *info);
/* True for the read-only predefined object (MPI_INFO_ENV). */
bool dmpi_info_is_builtin(const dmpi_info *info);

/* Value of key, or NULL. The pointer stays valid until the key is set
 * again, deleted, or the object is freed: copy it at once if in doubt. */
const char *dmpi_info_lookup(const dmpi_info *info, const char *key);
/* Copies the value of key into value[0..cap-1] (truncated, always
 * NUL-terminated when cap > 0) and stores its full length (without the
 * NUL) in *len. Returns true when the key is present. */
bool dmpi_info_copy_value(const dmpi_info *info, const char *key, char *value, int cap,
                          int *len);
/* Sets key to value. MPI_SUCCESS, MPI_ERR_INFO_KEY (empty or longer than
 * MPI_MAX_INFO_KEY-1), MPI_ERR_INFO_VALUE (longer than MPI_MAX_INFO_VAL-1),
 * MPI_ERR_INFO (the read-only MPI_INFO_ENV) or MPI_ERR_NO_MEM. */
int dmpi_info_set_kv(dmpi_info *info, const char *key, const char *value);
/* Removes key: MPI_SUCCESS, MPI_ERR_INFO_NOKEY or MPI_ERR_INFO (read-only). */
int dmpi_info_delete_key(dmpi_info *info, const char *key);
int dmpi_info_nkeys(const dmpi_info *info);
/* Copies key number n (0-based, in insertion order) into key (at least
 * MPI_MAX_INFO_KEY bytes). False when n is out of range. */
bool dmpi_info_nthkey(const dmpi_info *info, int n, char *key);

/* Fills info (a fresh user object) with the environment keys of
 * MPI_INFO_ENV; command and argv come from argv[0..argc-1] when argv is
 * given, else from /proc/self/cmdline. The keys that depend on MPI_Init
 * (maxprocs, thread_level) are left out, so the result is the same before
 * and after MPI_Init. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dmpi_info_fill_env(dmpi_info *info, int argc, char *argv[]);

/* Length checks shared with the api layer: the class of the problem with
 * a key or a value, or MPI_SUCCESS. */
int dmpi_info_check_key(const char *key);
int dmpi_info_check_value(const char *value);

#endif
