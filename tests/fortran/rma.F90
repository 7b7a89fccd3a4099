! tests/fortran/rma.F90: one-sided communication through the legacy
! bindings (built with -DUSE_MPIF_H as f_rma_mpifh, without it as
! f_rma_usempi). MPI_Win_create on an INTEGER array and MPI_Win_allocate
! (baseptr as INTEGER(KIND=MPI_ADDRESS_KIND), turned into a Fortran
! pointer), fence epochs, Put, Get, Accumulate with MPI_SUM, Win_get_attr
! (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT), Win_free.
program rma
#ifndef USE_MPIF_H
  use mpi
#endif
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use ftest
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer, parameter :: n = 8, maxp = 64
  integer :: rank, nproc, next, prev, ierr, i, total, win, win2, val, got(n)
  integer, asynchronous :: wbuf(0:maxp + n - 1) ! changed by other ranks between fences
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp, baseptr, attr
  logical :: flag
  double precision, pointer :: dwin(:)
  double precision :: dsend(n), dget(n)
  type(c_ptr) :: cp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ft_rank = rank
#ifdef USE_MPIF_H
  ft_name = 'rma (mpif.h)'
#else
  ft_name = 'rma (use mpi)'
#endif
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  ! Win_create over wbuf (disp_unit 4): each rank puts its rank into slot
  ! <rank> of the next rank's window, accumulates rank+1 into slot maxp of
  ! rank 0's, then gets the next rank's slots maxp+1.. (set before)
  wbuf = -1
  wbuf(maxp + 1:) = [(rank * 100 + i, i = 1, n - 1)]
  wbuf(maxp) = 0
  wsize = 4 * size(wbuf)
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Win_create ierror')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag, ierr)
  call ft_check(flag, 'Win_get_attr MPI_WIN_SIZE: flag')
  call ft_check_int(attr, wsize, 'Win_get_attr MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
  call ft_check_int(attr, 4_MPI_ADDRESS_KIND, 'Win_get_attr MPI_WIN_DISP_UNIT')

  call MPI_Win_fence(0, win, ierr)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, next, disp, 1, MPI_INTEGER, win, ierr)
  disp = maxp
  val = rank + 1
  call MPI_Accumulate(val, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  disp = maxp + 1
  got = -1
  call MPI_Get(got, n - 1, MPI_INTEGER, next, disp, n - 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call ft_check_int(wbuf(prev), prev, 'Put into the window')
  do i = 0, nproc - 1
    if (i /= prev) call ft_check_int(wbuf(i), -1, 'Put: other slots untouched')
  end do
  if (rank == 0) call ft_check_int(wbuf(maxp), nproc * (nproc + 1) / 2, 'Accumulate SUM')
  call ft_check(all(got(1:n - 1) == [(next * 100 + i, i = 1, n - 1)]), 'Get from the window')
  call MPI_Win_free(win, ierr)
  call ft_check_int(win, MPI_WIN_NULL, 'Win_free sets MPI_WIN_NULL')

  ! Win_allocate of n DOUBLE PRECISION (disp_unit 8)
  wsize = 8 * n
  call MPI_Win_allocate(wsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win2, ierr)
  cp = transfer(baseptr, cp)
  call c_f_pointer(cp, dwin, [n])
  dwin = -1
  call MPI_Win_fence(0, win2, ierr)
  dsend = [(rank + i / 2d0, i = 1, n)]
  disp = 0
  call MPI_Put(dsend, n, MPI_DOUBLE_PRECISION, next, disp, n, MPI_DOUBLE_PRECISION, win2, ierr)
  call MPI_Win_fence(0, win2, ierr)
  call ft_check(all(dwin == [(prev + i / 2d0, i = 1, n)]), 'Win_allocate: Put')
  ! the next epoch may only start once this rank is done reading its window
  call MPI_Win_fence(0, win2, ierr)
  ! accumulate everyone's ones into rank 0, then everyone reads it back
  dsend = 1
  call MPI_Accumulate(dsend, n, MPI_DOUBLE_PRECISION, 0, disp, n, MPI_DOUBLE_PRECISION, &
                      MPI_SUM, win2, ierr)
  call MPI_Win_fence(0, win2, ierr)
  dget = -1
  call MPI_Get(dget, n, MPI_DOUBLE_PRECISION, 0, disp, n, MPI_DOUBLE_PRECISION, win2, ierr)
  call MPI_Win_fence(0, win2, ierr)
  call ft_check(all(dget == [(nproc - 1 + i / 2d0 + nproc, i = 1, n)]), &
                'Win_allocate: Accumulate then Get')
  call MPI_Win_free(win2, ierr)

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program rma
