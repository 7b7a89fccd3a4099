/* The Fortran layer's shared pieces: the objects behind the Fortran
 * special addresses, the conversions the generated wrappers use
 * (fort_support.h), and the report of the Fortran sizes to the C library
 * through the ABI's MPI_Abi_set_fortran_info. */
#include "fortran/fort_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined here, declared as common blocks in mpif.h and the modules: a
 * program's common block and these are one object, so the wrappers
 * recognise MPI_BOTTOM & co. by address. */
#define F_COMMON DMPI_F_EXPORT __attribute__((aligned(32))) /* as gfortran aligns commons */
F_COMMON MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
F_COMMON MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_errcodes_ignore_[1];
F_COMMON MPI_Fint mpi_fortran_unweighted_[1], mpi_fortran_weights_empty_[1];
F_COMMON char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status must have the C layout");

void *dmpi_f_buf(void *p)
{
    if (p == &mpi_fortran_bottom_) return MPI_BOTTOM;
    if (p == &mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (p == &mpi_fortran_buffer_automatic_) return MPI_BUFFER_AUTOMATIC;
    return p;
}

MPI_Status *dmpi_f_status(MPI_Fint *s)
{
    if (s == mpi_fortran_status_ignore_ || s == mpi_fortran_statuses_ignore_) return NULL;
    return (MPI_Status *)(void *)s;
}

const int *dmpi_f_weights(const MPI_Fint *w)
{
    if (w == mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
    if (w == mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
    return w;
}

int *dmpi_f_errcodes(MPI_Fint *e)
{
    return e == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : e;
}

char *dmpi_f_str_in(const char *s, size_t len, bool strip_leading)
{
    size_t first = 0;
    while (len > 0 && s[len - 1] == ' ') len--;
    if (strip_leading)
        while (first < len && s[first] == ' ') first++;
    char *c = malloc(len - first + 1);
    if (!c) return NULL;
    memcpy(c, s + first, len - first);
    c[len - first] = '\0';
    return c;
}

void dmpi_f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n > len) n = len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

void *dmpi_f_alloc(int n, size_t sz, void *stack)
{
    if (n <= DMPI_F_STACK) return stack;
    return malloc((size_t)n * sz);
}

void dmpi_f_free(void *p, void *stack)
{
    if (p != stack) free(p);
}

int dmpi_f_ntypes(MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_fromint(comm);
    int inter = 0, n = 0;
    if (c == MPI_COMM_NULL || MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;
    if ((inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n)) != MPI_SUCCESS) return 0;
    return n;
}

int dmpi_f_nbr_ntypes(MPI_Fint comm, int which)
{
    MPI_Comm c = MPI_Comm_fromint(comm);
    int kind = MPI_UNDEFINED, indeg = 0, outdeg = 0, weighted, rank, ndims;
    if (c == MPI_COMM_NULL || MPI_Topo_test(c, &kind) != MPI_SUCCESS) return 0;
    switch (kind) {
    case MPI_CART:
        if (MPI_Cartdim_get(c, &ndims) != MPI_SUCCESS) return 0;
        indeg = outdeg = 2 * ndims;
        break;
    case MPI_GRAPH:
        if (MPI_Comm_rank(c, &rank) != MPI_SUCCESS ||
            MPI_Graph_neighbors_count(c, rank, &indeg) != MPI_SUCCESS)
            return 0;
        outdeg = indeg;
        break;
    case MPI_DIST_GRAPH:
        if (MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted) != MPI_SUCCESS)
            return 0;
        break;
    default: return 0;
    }
    return which == 0 ? outdeg : indeg;
}

/* ------------------------------------------------ the Fortran properties */

static void info_set_int(MPI_Info info, const char *key, int value)
{
    char v[16];
    snprintf(v, sizeof v, "%d", value);
    MPI_Info_set(info, key, v);
}

/* The sizes of this compiler's default kinds and which sized kinds it
 * has (gfortran: all of LOGICAL/INTEGER 1, 2, 4, 8, 16, REAL 4, 8, 10, 16). */
void dmpi_f_register(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return;
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS) return;
    info_set_int(info, "mpi_logical_size", (int)sizeof(MPI_Fint));
    info_set_int(info, "mpi_integer_size", (int)sizeof(MPI_Fint));
    info_set_int(info, "mpi_real_size", 4);
    info_set_int(info, "mpi_double_precision_size", 8);
    static const char *const supported[] = {
        "mpi_logical1", "mpi_logical2", "mpi_logical4", "mpi_logical8", "mpi_logical16",
        "mpi_integer1", "mpi_integer2", "mpi_integer4", "mpi_integer8", "mpi_integer16",
        "mpi_real4", "mpi_real8", "mpi_real16", "mpi_complex8", "mpi_complex16",
        "mpi_complex32", "mpi_double_complex"};
    for (size_t i = 0; i < sizeof supported / sizeof *supported; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s_supported", supported[i]);
        MPI_Info_set(info, key, "true");
    }
    MPI_Info_set(info, "mpi_real2_supported", "false");
    MPI_Abi_set_fortran_info(info);
    MPI_Info_free(&info);
    MPI_Fint t = 1, f = 0;
    MPI_Abi_set_fortran_booleans((int)sizeof t, &t, &f);
}
