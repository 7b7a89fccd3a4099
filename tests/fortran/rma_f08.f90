! tests/fortran/rma_f08.f90: one-sided communication through the mpi_f08
! module (f_rma_f08). MPI_Win_create on an INTEGER array and
! MPI_Win_allocate with a TYPE(C_PTR) baseptr, fence epochs, Put, Get,
! Accumulate with MPI_SUM, Win_get_attr (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT),
! Win_free; TYPE(MPI_Win) comparisons.
program rma_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use ftest
  implicit none
  integer, parameter :: n = 8, maxp = 64
  integer :: rank, nproc, next, prev, ierr, i, total, val, got(n)
  integer, asynchronous :: wbuf(0:maxp + n - 1) ! changed by other ranks between fences
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp, attr
  type(MPI_Win) :: win, win2
  logical :: flag
  double precision, pointer :: dwin(:)
  double precision :: dsend(n), dget(n)
  type(c_ptr) :: cp

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'rma (mpi_f08)'
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  wbuf = -1
  wbuf(maxp + 1:) = [(rank * 100 + i, i = 1, n - 1)]
  wbuf(maxp) = 0
  wsize = 4 * size(wbuf)
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Win_create ierror')
  call ft_check(win /= MPI_WIN_NULL, 'Win_create: handle is not MPI_WIN_NULL')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag)
  call ft_check(flag, 'Win_get_attr MPI_WIN_SIZE: flag')
  call ft_check_int(attr, wsize, 'Win_get_attr MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag)
  call ft_check_int(attr, 4_MPI_ADDRESS_KIND, 'Win_get_attr MPI_WIN_DISP_UNIT')

  call MPI_Win_fence(0, win)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, next, disp, 1, MPI_INTEGER, win)
  val = rank + 1
  call MPI_Accumulate(val, 1, MPI_INTEGER, 0, int(maxp, MPI_ADDRESS_KIND), 1, MPI_INTEGER, MPI_SUM, win)
  got = -1
  call MPI_Get(got, n - 1, MPI_INTEGER, next, int(maxp + 1, MPI_ADDRESS_KIND), n - 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call ft_check_int(wbuf(prev), prev, 'Put into the window')
  do i = 0, nproc - 1
    if (i /= prev) call ft_check_int(wbuf(i), -1, 'Put: other slots untouched')
  end do
  if (rank == 0) call ft_check_int(wbuf(maxp), nproc * (nproc + 1) / 2, 'Accumulate SUM')
  call ft_check(all(got(1:n - 1) == [(next * 100 + i, i = 1, n - 1)]), 'Get from the window')
  call MPI_Win_free(win)
  call ft_check(win == MPI_WIN_NULL, 'Win_free sets MPI_WIN_NULL')

  ! Win_allocate of n DOUBLE PRECISION (disp_unit 8), baseptr TYPE(C_PTR)
  wsize = 8 * n
  call MPI_Win_allocate(wsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, cp, win2)
  call c_f_pointer(cp, dwin, [n])
  dwin = -1
  call MPI_Win_fence(0, win2)
  dsend = [(rank + i / 2d0, i = 1, n)]
  disp = 0
  call MPI_Put(dsend, n, MPI_DOUBLE_PRECISION, next, disp, n, MPI_DOUBLE_PRECISION, win2)
  call MPI_Win_fence(0, win2)
  call ft_check(all(dwin == [(prev + i / 2d0, i = 1, n)]), 'Win_allocate: Put')
  ! the next epoch may only start once this rank is done reading its window
  call MPI_Win_fence(0, win2)
  dsend = 1
  call MPI_Accumulate(dsend, n, MPI_DOUBLE_PRECISION, 0, disp, n, MPI_DOUBLE_PRECISION, &
                      MPI_SUM, win2)
  call MPI_Win_fence(0, win2)
  dget = -1
  call MPI_Get(dget, n, MPI_DOUBLE_PRECISION, 0, disp, n, MPI_DOUBLE_PRECISION, win2)
  call MPI_Win_fence(0, win2)
  call ft_check(all(dget == [(nproc - 1 + i / 2d0 + nproc, i = 1, n)]), &
                'Win_allocate: Accumulate then Get')
  call MPI_Win_free(win2)

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize()
  if (total /= 0) stop 1
end program rma_f08
