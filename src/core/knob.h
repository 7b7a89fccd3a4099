/* DMPI_* knobs (control variables): how the library reads them and how
 * the MPI_T interface describes, reads and writes them. The knobs
 * themselves are listed once, in core/knob_list.h. Depends on nothing but
 * the C library, so any layer (pmi, transport) may include it. */
#ifndef DMPI_KNOB_H
#define DMPI_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/knob_list.h"

#define DMPI_KNOB(ID, NAME, TYPE, DFLT, DTEXT, CAT, VERB, SCOPE, WHEN, DESC) DMPI_KNOB_##ID,
enum { DMPI_KNOB_LIST DMPI_NKNOBS };
#undef DMPI_KNOB

#define DMPI_KNOB_CAT(ID, NAME, DESC) DMPI_KCAT_##ID,
enum { DMPI_KNOB_CATEGORIES DMPI_NKCATS };
#undef DMPI_KNOB_CAT

enum { DMPI_KT_INT, DMPI_KT_BOOL, DMPI_KT_ENUM_BIND, DMPI_KT_ENUM_PMI, DMPI_KT_ENUM_LAUNCHER,
       DMPI_KT_STR };
enum { DMPI_KW_INIT, DMPI_KW_LIVE, DMPI_KW_NEVER };
#define DMPI_KNOB_STR_MAX 256 /* characters of a string knob, with the '\0' */

/* A knob's fixed description (knob_list.h). */
typedef struct dmpi_knob_desc {
    const char *name, *desc, *dflt_text;
    long dflt;
    int type, category, verbosity, scope, when; /* verbosity, scope: MPI_T_* values */
} dmpi_knob_desc;

extern const dmpi_knob_desc dmpi_knob_descs[DMPI_NKNOBS];
extern const char *const dmpi_knob_cat_names[DMPI_NKCATS];
extern const char *const dmpi_knob_cat_descs[DMPI_NKCATS];

/* The library's reads: the written value (MPI_T) if any, else the
 * environment, else the default (dmpi_knob_or: a default the run decides).
 * Integers accept a k/m suffix; an enumeration also the item's name. The
 * first read marks an INIT knob as taken (no longer writable). */
long dmpi_knob(int id);
long dmpi_knob_or(int id, long dflt);
/* The text of a knob (written or from the environment), or NULL when it
 * is unset or empty. Copied into buf (size DMPI_KNOB_STR_MAX). */
const char *dmpi_knob_str(int id, char *buf);
/* The value the library settled on after its own limits (read back by
 * MPI_T_cvar_read). */
void dmpi_knob_set_effective(int id, long v);
/* A LIVE knob's reader: called (without locks held) after each MPI_T
 * write once the knob has been read. */
void dmpi_knob_watch(int id, void (*apply)(int id));

/* For MPI_T. Enumerations: the enum of a knob type (-1: none), its items. */
int dmpi_knob_enum_of(int type);
int dmpi_knob_enum_count(int e);
const char *dmpi_knob_enum_name(int e);
const char *dmpi_knob_enum_item(int e, int i, int *value);
#define DMPI_NKENUMS 4
/* The current value: integers into *v, strings into buf. */
void dmpi_knob_read(int id, int *v, char *buf);
/* A write from MPI_T (integer v or string s): MPI_SUCCESS, or
 * MPI_T_ERR_CVAR_SET_NEVER when it can no longer take effect. */
int dmpi_knob_write(int id, int v, const char *s);

#endif
