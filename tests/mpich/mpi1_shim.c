/* mpi1_shim.c: the two MPI-1 type constructors that MPICH's test suite
 * helper library (dtpools) still calls, MPI_Type_hvector and
 * MPI_Type_hindexed. MPI-3.0 removed them (the standard ABI has no such
 * symbols); they are the MPI_Type_create_ forms with the same arguments.
 * Linked into the suite's test programs by run_mpich_suite.sh only; never
 * part of dmpi. */
#include <mpi.h>

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype);

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}
