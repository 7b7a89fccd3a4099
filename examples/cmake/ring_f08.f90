! ring_f08.f90: the Fortran (mpi_f08) program of the CMake example, the
! counterpart of ring.c: passes a token round the ring of processes (each
! adds its rank), checks the sum and an allreduce; rank 0 prints one line
! that the ctest test matches.
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, next, prev, token, want, total, length
  logical :: ok, all_ok
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  token = 0
  if (rank == 0) then
    if (nproc > 1) then
      call MPI_Send(token, 1, MPI_INTEGER, next, 0, MPI_COMM_WORLD)
      call MPI_Recv(token, 1, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    end if
  else
    call MPI_Recv(token, 1, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, next, 0, MPI_COMM_WORLD)
  end if
  want = nproc * (nproc - 1) / 2
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = total == want .and. (rank /= 0 .or. token == want)
  call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Get_library_version(lib, length)
    write (*, '(a,i0,a,i0,a,a,a,a,a)') 'ring_f08: ', nproc, ' processes, token 0+1+...=', token, &
      ' ', trim(merge('OK   ', 'WRONG', all_ok)), ' (', lib(1:length), ')'
  end if
  call MPI_Finalize()
  if (.not. all_ok) stop 1
end program ring_f08
