/* The C functions that convert between C and Fortran handles and statuses
 * (MPI_Comm_c2f, MPI_Comm_f2c, ..., MPI_Status_c2f, ...; declared in
 * mpi_fortran.h). They belong to the Fortran layer: in the standard ABI
 * the C library has only MPI_*_toint/fromint, which give exactly the
 * Fortran INTEGER handle, and a Fortran status has the C layout. */
#include "fortran/fort_support.h"

#include <string.h>

#define F_HANDLE_CONV(Name, Type)                                                   \
    DMPI_F_EXPORT MPI_Fint PMPI_##Name##_c2f(Type h) { return MPI_##Name##_toint(h); } \
    DMPI_F_EXPORT Type PMPI_##Name##_f2c(MPI_Fint i) { return MPI_##Name##_fromint(i); } \
    DMPI_F_ALIAS(PMPI_##Name##_c2f, MPI_##Name##_c2f)                               \
    DMPI_F_ALIAS(PMPI_##Name##_f2c, MPI_##Name##_f2c)
F_HANDLE_CONV(Comm, MPI_Comm)
F_HANDLE_CONV(Type, MPI_Datatype)
F_HANDLE_CONV(Errhandler, MPI_Errhandler)
F_HANDLE_CONV(File, MPI_File)
F_HANDLE_CONV(Group, MPI_Group)
F_HANDLE_CONV(Info, MPI_Info)
F_HANDLE_CONV(Message, MPI_Message)
F_HANDLE_CONV(Op, MPI_Op)
F_HANDLE_CONV(Request, MPI_Request)
F_HANDLE_CONV(Session, MPI_Session)
F_HANDLE_CONV(Win, MPI_Win)

/* Statuses: the Fortran INTEGER array, the f08 TYPE(MPI_Status) and the
 * C struct are one layout; MPI_F_STATUS(ES)_IGNORE are the Fortran ones. */
DMPI_F_EXPORT MPI_Fint *MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
DMPI_F_EXPORT MPI_Fint *MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;

static int status_copy(void *dst, const void *src, bool from_fortran)
{
    if (!src || !dst || (from_fortran && dmpi_f_status((MPI_Fint *)src) == NULL))
        return MPI_ERR_ARG;
    memcpy(dst, src, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

#define F_STATUS_CONV(name, Src, Dst, from_fortran)                                    \
    DMPI_F_EXPORT int PMPI_Status_##name(const Src *s, Dst *d)                         \
    {                                                                                 \
        return status_copy(d, s, from_fortran);                                       \
    }                                                                                 \
    DMPI_F_ALIAS(PMPI_Status_##name, MPI_Status_##name)
F_STATUS_CONV(c2f, MPI_Status, MPI_Fint, false)
F_STATUS_CONV(f2c, MPI_Fint, MPI_Status, true)
F_STATUS_CONV(c2f08, MPI_Status, MPI_Fint, false)
F_STATUS_CONV(f082c, MPI_Fint, MPI_Status, true)
F_STATUS_CONV(f2f08, MPI_Fint, MPI_Fint, true)
F_STATUS_CONV(f082f, MPI_Fint, MPI_Fint, true)
