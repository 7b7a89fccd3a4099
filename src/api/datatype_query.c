/* MPI datatype queries (MPI 4.1 sections 5.1.5, 5.1.11, 5.1.13, 19.1.9):
 * Type_size, Type_get_extent, Type_get_true_extent (each also _c and _x),
 * Type_get_name / Type_set_name, Type_get_envelope / Type_get_contents
 * (and _c), Type_match_size, Type_create_f90_real / complex / integer and
 * Type_get_value_index. Constructors are in datatype.c. */
#include "api/api.h"
#include "core/dt_layout.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define ERR(cls, ...) dmpi_error_noobj((cls), fn, __VA_ARGS__)

/* Valid datatype (committed or not) into `var`; returns on error. */
#define GET(var, h)                                                                       \
    DMPI_CHECK_INIT(fn);                                                                  \
    dmpi_datatype *var = dmpi_dt_get(h);                                                  \
    if (!var)                                                                             \
        return ERR(MPI_ERR_TYPE, "invalid datatype%s",                                    \
                   (h) == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : " (freed or not a datatype)")

#define NONNULL(p) \
    if (!(p)) return ERR(MPI_ERR_ARG, "%s is NULL", #p)

/* ------------------------------------------------------- size, extent */
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const char *fn = "MPI_Type_size";
    GET(dt, datatype);
    NONNULL(size);
    *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_size)

#define SIZE_C(Name)                                                                      \
    int PMPI_##Name(MPI_Datatype datatype, MPI_Count *size)                               \
    {                                                                                     \
        const char *fn = "MPI_" #Name;                                                    \
        GET(dt, datatype);                                                                \
        NONNULL(size);                                                                    \
        *size = dt->size;                                                                 \
        return MPI_SUCCESS;                                                               \
    }                                                                                     \
    DMPI_ALIAS(Name)
SIZE_C(Type_size_c)
SIZE_C(Type_size_x)

/* Type_get_extent and Type_get_true_extent in their three forms. */
#define EXTENT(Name, T, lbf, extf)                                                        \
    int PMPI_##Name(MPI_Datatype datatype, T *lb, T *extent)                              \
    {                                                                                     \
        const char *fn = "MPI_" #Name;                                                    \
        GET(dt, datatype);                                                                \
        NONNULL(lb);                                                                      \
        NONNULL(extent);                                                                  \
        *lb = (T)dt->lbf;                                                                 \
        *extent = (T)dt->extf;                                                            \
        return MPI_SUCCESS;                                                               \
    }                                                                                     \
    DMPI_ALIAS(Name)
EXTENT(Type_get_extent, MPI_Aint, lb, extent)
EXTENT(Type_get_extent_c, MPI_Count, lb, extent)
EXTENT(Type_get_extent_x, MPI_Count, lb, extent)
EXTENT(Type_get_true_extent, MPI_Aint, true_lb, true_extent)
EXTENT(Type_get_true_extent_c, MPI_Count, true_lb, true_extent)
EXTENT(Type_get_true_extent_x, MPI_Count, true_lb, true_extent)

/* --------------------------------------------------------------- names */
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const char *fn = "MPI_Type_get_name";
    if (datatype == MPI_DATATYPE_NULL && type_name && resultlen) { /* MPI 4.1 allows it */
        *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
        return MPI_SUCCESS;
    }
    GET(dt, datatype);
    NONNULL(type_name);
    NONNULL(resultlen);
    size_t n = strnlen(dt->name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, dt->name, n);
    type_name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_get_name)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    const char *fn = "MPI_Type_set_name";
    GET(dt, datatype);
    NONNULL(type_name);
    snprintf(dt->name, sizeof dt->name, "%s", type_name);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_set_name)

/* ------------------------------------------------- envelope, contents */
static int envelope(const char *fn, MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na,
                    MPI_Count *nc, MPI_Count *nd, int *combiner, bool large)
{
    GET(dt, datatype);
    NONNULL(ni);
    NONNULL(na);
    NONNULL(nd);
    NONNULL(combiner);
    if (large) NONNULL(nc);
    const dmpi_dt_args *a = dt->args;
    if (!a) {
        *ni = *na = *nd = 0;
        if (large) *nc = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *combiner = a->combiner;
    if (!large && a->nc > 0)
        return ERR(MPI_ERR_TYPE, "the datatype was made with large counts: "
                                 "use MPI_Type_get_envelope_c");
    *ni = a->ni;
    *na = a->na;
    *nd = a->nd;
    if (large) *nc = a->nc;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_Count ni = 0, na = 0, nd = 0;
    int rc = envelope("MPI_Type_get_envelope", datatype, &ni, &na, NULL, &nd, combiner, false);
    if (rc != MPI_SUCCESS) return rc;
    if (!num_integers || !num_addresses || !num_datatypes)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Type_get_envelope", "NULL argument");
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nd;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_get_envelope)

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    return envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                    num_large_counts, num_datatypes, combiner, true);
}
DMPI_ALIAS(Type_get_envelope_c)

static int contents(const char *fn, MPI_Datatype datatype, MPI_Count max_i, MPI_Count max_a,
                    MPI_Count max_c, MPI_Count max_d, int *ints, MPI_Aint *addrs,
                    MPI_Count *counts, MPI_Datatype *types, bool large)
{
    GET(dt, datatype);
    const dmpi_dt_args *a = dt->args;
    if (!a) return ERR(MPI_ERR_TYPE, "%s is predefined: it has no contents", dt->name);
    if (!large && a->nc > 0)
        return ERR(MPI_ERR_TYPE, "the datatype was made with large counts: "
                                 "use MPI_Type_get_contents_c");
    if (max_i < a->ni || max_a < a->na || max_c < a->nc || max_d < a->nd)
        return ERR(MPI_ERR_ARG, "arrays too small for the contents (need %lld integers, %lld "
                                "addresses, %lld large counts, %lld datatypes)",
                   (long long)a->ni, (long long)a->na, (long long)a->nc, (long long)a->nd);
    if ((a->ni && !ints) || (a->na && !addrs) || (a->nc && !counts) || (a->nd && !types))
        return ERR(MPI_ERR_ARG, "NULL array");
    if (a->ni) memcpy(ints, a->ints, (size_t)a->ni * sizeof *ints);
    if (a->na) memcpy(addrs, a->addrs, (size_t)a->na * sizeof *addrs);
    if (a->nc) memcpy(counts, a->counts, (size_t)a->nc * sizeof *counts);
    for (MPI_Count i = 0; i < a->nd; i++) { /* derived: one more handle to free */
        dt_user_retain(a->types[i]);
        types[i] = a->types[i]->handle;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0,
                    max_datatypes, array_of_integers, array_of_addresses, NULL,
                    array_of_datatypes, false);
}
DMPI_ALIAS(Type_get_contents)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                    max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                    array_of_large_counts, array_of_datatypes, true);
}
DMPI_ALIAS(Type_get_contents_c)

/* ------------------------------------------ Fortran-style type queries */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    DMPI_CHECK_INIT(fn);
    NONNULL(datatype);
    static const struct { int cls, size; MPI_Datatype h; } table[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4}, {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16}, {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8}, {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
        {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
    };
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return ERR(MPI_ERR_ARG, "invalid typeclass %d", typeclass);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].cls == typeclass && table[i].size == size) {
            *datatype = table[i].h;
            return MPI_SUCCESS;
        }
    return ERR(MPI_ERR_ARG, "no predefined type of this class has %d bytes", size);
}
DMPI_ALIAS(Type_match_size)

/* MPI_UNDEFINED means "not specified": no constraint. */
static int want(int v) { return v == MPI_UNDEFINED ? 0 : v; }

static int f90(const char *fn, int combiner, int p, int r, MPI_Datatype *newtype)
{
    DMPI_CHECK_INIT(fn);
    NONNULL(newtype);
    static const struct { int comb, p, r; MPI_Datatype h; } kinds[] = {
        {MPI_COMBINER_F90_REAL, 6, 37, MPI_REAL4},
        {MPI_COMBINER_F90_REAL, 15, 307, MPI_REAL8},
        {MPI_COMBINER_F90_REAL, 33, 4931, MPI_REAL16},
        {MPI_COMBINER_F90_COMPLEX, 6, 37, MPI_COMPLEX8},
        {MPI_COMBINER_F90_COMPLEX, 15, 307, MPI_COMPLEX16},
        {MPI_COMBINER_F90_COMPLEX, 33, 4931, MPI_COMPLEX32},
        {MPI_COMBINER_F90_INTEGER, 0, 2, MPI_INTEGER1},
        {MPI_COMBINER_F90_INTEGER, 0, 4, MPI_INTEGER2},
        {MPI_COMBINER_F90_INTEGER, 0, 9, MPI_INTEGER4},
        {MPI_COMBINER_F90_INTEGER, 0, 18, MPI_INTEGER8},
        {MPI_COMBINER_F90_INTEGER, 0, 38, MPI_INTEGER16},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (kinds[i].comb != combiner || want(p) > kinds[i].p || want(r) > kinds[i].r) continue;
        dmpi_datatype *dt = dt_f90(combiner, p, r, kinds[i].h);
        if (!dt) return ERR(MPI_ERR_NO_MEM, "out of memory");
        *newtype = dt->handle;
        return MPI_SUCCESS;
    }
    if (combiner == MPI_COMBINER_F90_INTEGER)
        return ERR(MPI_ERR_ARG, "no integer kind has a decimal range of %d", r);
    return ERR(MPI_ERR_ARG, "no %s kind has precision %d and range %d",
               combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", p, r);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
DMPI_ALIAS(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
DMPI_ALIAS(Type_create_f90_complex)

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, newtype);
}
DMPI_ALIAS(Type_create_f90_integer)

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *fn = "MPI_Type_get_value_index";
    GET(v, value_type);
    GET(ix, index_type);
    NONNULL(pair_type);
    static const struct { MPI_Datatype value, index, pair; } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT}, {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT}, {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (v->handle == pairs[i].value && ix->handle == pairs[i].index) *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Type_get_value_index)
