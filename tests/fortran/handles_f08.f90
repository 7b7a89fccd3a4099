! tests/fortran/handles_f08.f90: mpi_f08 handles and statuses against the
! mpi module's (f_handles_f08; both modules in one program, the mpi one
! through renames). TYPE(MPI_Comm) etc. compare with == and /=; MPI_VAL of
! the f08 constants equals the mpi module's INTEGER handles; an f08 handle's
! MPI_VAL works in an mpi-module call and an INTEGER handle put into
! MPI_VAL works in an f08 call; MPI_Status_f082f / MPI_Status_f2f08
! round-trip a received status (source, tag, count; the INTEGER status
! indexed with the mpi module's MPI_SOURCE, MPI_TAG).
program handles_f08
  use mpi_f08
  use mpi, only: i_comm_world => MPI_COMM_WORLD, i_comm_self => MPI_COMM_SELF, &
                 i_comm_null => MPI_COMM_NULL, i_integer => MPI_INTEGER, &
                 i_double => MPI_DOUBLE_PRECISION, i_sum => MPI_SUM, &
                 i_request_null => MPI_REQUEST_NULL, i_group_empty => MPI_GROUP_EMPTY, &
                 i_info_null => MPI_INFO_NULL, i_errors_return => MPI_ERRORS_RETURN, &
                 i_status_size => MPI_STATUS_SIZE, i_source => MPI_SOURCE, i_tag => MPI_TAG, &
                 legacy_comm_size => MPI_Comm_size, legacy_get_count => MPI_Get_count
  use ftest
  implicit none
  integer :: rank, nproc, ierr, total, sz, count, next, prev, i
  type(MPI_Comm) :: comm, dup
  type(MPI_Datatype) :: dt
  type(MPI_Status) :: st, st2
  integer :: fst(MPI_STATUS_SIZE), buf(5)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'handles (mpi_f08)'
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  ! comparisons
  comm = MPI_COMM_WORLD
  call ft_check(comm == MPI_COMM_WORLD, 'TYPE(MPI_Comm) ==')
  call ft_check(.not. (comm /= MPI_COMM_WORLD), 'TYPE(MPI_Comm) /= of equal handles')
  call ft_check(MPI_COMM_WORLD /= MPI_COMM_SELF, 'MPI_COMM_WORLD /= MPI_COMM_SELF')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call ft_check(dup /= MPI_COMM_WORLD .and. dup /= MPI_COMM_NULL, 'a dup is a new handle')
  dt = MPI_INTEGER
  call ft_check(dt == MPI_INTEGER .and. dt /= MPI_REAL, 'TYPE(MPI_Datatype) == and /=')
  call ft_check(MPI_SUM /= MPI_MAX .and. MPI_SUM == MPI_SUM, 'TYPE(MPI_Op) == and /=')

  ! the same integer handles as the mpi module
  call ft_check_int(MPI_COMM_WORLD%MPI_VAL, i_comm_world, 'MPI_COMM_WORLD%MPI_VAL')
  call ft_check_int(MPI_COMM_SELF%MPI_VAL, i_comm_self, 'MPI_COMM_SELF%MPI_VAL')
  call ft_check_int(MPI_COMM_NULL%MPI_VAL, i_comm_null, 'MPI_COMM_NULL%MPI_VAL')
  call ft_check_int(MPI_INTEGER%MPI_VAL, i_integer, 'MPI_INTEGER%MPI_VAL')
  call ft_check_int(MPI_DOUBLE_PRECISION%MPI_VAL, i_double, 'MPI_DOUBLE_PRECISION%MPI_VAL')
  call ft_check_int(MPI_SUM%MPI_VAL, i_sum, 'MPI_SUM%MPI_VAL')
  call ft_check_int(MPI_REQUEST_NULL%MPI_VAL, i_request_null, 'MPI_REQUEST_NULL%MPI_VAL')
  call ft_check_int(MPI_GROUP_EMPTY%MPI_VAL, i_group_empty, 'MPI_GROUP_EMPTY%MPI_VAL')
  call ft_check_int(MPI_INFO_NULL%MPI_VAL, i_info_null, 'MPI_INFO_NULL%MPI_VAL')
  call ft_check_int(MPI_ERRORS_RETURN%MPI_VAL, i_errors_return, 'MPI_ERRORS_RETURN%MPI_VAL')
  call ft_check_int(MPI_STATUS_SIZE, i_status_size, 'MPI_STATUS_SIZE the same in both modules')

  ! handles cross between the bindings
  sz = -1
  call legacy_comm_size(dup%MPI_VAL, sz, ierr)
  call ft_check(ierr == MPI_SUCCESS .and. sz == nproc, 'an f08 dup through the mpi module')
  comm%MPI_VAL = i_comm_world
  call MPI_Comm_size(comm, sz)
  call ft_check_int(sz, nproc, 'an mpi-module handle in MPI_VAL through mpi_f08')
  call MPI_Comm_free(dup)

  ! status conversion
  buf = [(rank * 10 + i, i = 1, 5)]
  call MPI_Sendrecv_replace(buf, 3, MPI_INTEGER, next, 40 + rank, prev, MPI_ANY_TAG, MPI_COMM_WORLD, st)
  fst = -1
  call MPI_Status_f082f(st, fst)
  call ft_check_int(fst(i_source), prev, 'Status_f082f: MPI_SOURCE')
  call ft_check_int(fst(i_tag), 40 + prev, 'Status_f082f: MPI_TAG')
  call legacy_get_count(fst, i_integer, count, ierr)
  call ft_check_int(count, 3, 'Status_f082f: count through the mpi module')
  call MPI_Status_f2f08(fst, st2, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Status_f2f08 ierror')
  call ft_check_int(st2%MPI_SOURCE, prev, 'Status_f2f08: MPI_SOURCE')
  call ft_check_int(st2%MPI_TAG, 40 + prev, 'Status_f2f08: MPI_TAG')
  call MPI_Get_count(st2, MPI_INTEGER, count)
  call ft_check_int(count, 3, 'Status_f2f08: Get_count')

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize()
  if (total /= 0) stop 1
end program handles_f08
