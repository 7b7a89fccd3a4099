! ring_mpifh.f90: the CMake example's ring (see ring.c) through mpif.h,
! the oldest Fortran binding (only INTEGER buffers here: without interfaces
! gfortran rejects one routine called with buffers of different types in
! one file unless given -fallow-argument-mismatch).
program ring_mpifh
  implicit none
  include 'mpif.h'
  integer :: rank, nproc, next, prev, token, want, total, ierr
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  token = 0
  if (rank == 0) then
    if (nproc > 1) then
      call MPI_Send(token, 1, MPI_INTEGER, next, 0, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, 1, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, status, ierr)
    end if
  else
    call MPI_Recv(token, 1, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, status, ierr)
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, next, 0, MPI_COMM_WORLD, ierr)
  end if
  want = nproc * (nproc - 1) / 2
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0,a,a)') 'ring_mpifh: ', nproc, ' processes, token 0+1+...=', &
    token, ' ', trim(merge('OK   ', 'WRONG', token == want .and. total == want))
  call MPI_Finalize(ierr)
end program ring_mpifh
