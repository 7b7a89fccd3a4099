/* mpi_fortran.h: the C side of mixing C and Fortran with dmpi. These
 * functions live in the Fortran layer (libmpifort_abi: link with
 * -lmpifort_abi, or use mpifort), because in the standard ABI the C
 * library knows handles only through MPI_*_toint/fromint; a Fortran
 * INTEGER handle is exactly that int, and a Fortran status (INTEGER array
 * or mpi_f08 TYPE(MPI_Status)) has the layout of the C MPI_Status. */
#ifndef DMPI_MPI_FORTRAN_H
#define DMPI_MPI_FORTRAN_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Fint;
typedef struct {
    MPI_Fint MPI_SOURCE, MPI_TAG, MPI_ERROR;
    MPI_Fint MPI_internal[5];
} MPI_F08_status;

extern MPI_Fint *MPI_F_STATUS_IGNORE, *MPI_F_STATUSES_IGNORE;

#define DMPI_F_HANDLE_CONV(Name, Type) \
    MPI_Fint MPI_##Name##_c2f(Type h); Type MPI_##Name##_f2c(MPI_Fint i); \
    MPI_Fint PMPI_##Name##_c2f(Type h); Type PMPI_##Name##_f2c(MPI_Fint i);
DMPI_F_HANDLE_CONV(Comm, MPI_Comm)
DMPI_F_HANDLE_CONV(Type, MPI_Datatype)
DMPI_F_HANDLE_CONV(Errhandler, MPI_Errhandler)
DMPI_F_HANDLE_CONV(File, MPI_File)
DMPI_F_HANDLE_CONV(Group, MPI_Group)
DMPI_F_HANDLE_CONV(Info, MPI_Info)
DMPI_F_HANDLE_CONV(Message, MPI_Message)
DMPI_F_HANDLE_CONV(Op, MPI_Op)
DMPI_F_HANDLE_CONV(Request, MPI_Request)
DMPI_F_HANDLE_CONV(Session, MPI_Session)
DMPI_F_HANDLE_CONV(Win, MPI_Win)
#undef DMPI_F_HANDLE_CONV

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);

#ifdef __cplusplus
}
#endif
#endif
