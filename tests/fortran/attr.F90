! tests/fortran/attr.F90: communicator attributes through the legacy
! bindings (built with -DUSE_MPIF_H as f_attr_mpifh, without it as
! f_attr_usempi). Comm_create_keyval with Fortran copy and delete callbacks
! (called by Comm_dup, Comm_free, Comm_delete_attr, extra_state passed
! through), MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN /
! MPI_COMM_NULL_DELETE_FN, Comm_set_attr/get_attr/delete_attr,
! Comm_free_keyval, and the predefined MPI_TAG_UB, MPI_WTIME_IS_GLOBAL
! read through Comm_get_attr as integer values.
module attr_counts
  implicit none
  integer :: copies = 0, deletes = 0, last_deleted = -1, bad_extra = 0
end module attr_counts

program attr
#ifndef USE_MPIF_H
  use mpi
#endif
  use ftest
  use attr_counts
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, total, key1, key2, key3, dup, dup2
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag
  external :: my_copy, my_delete

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ft_rank = rank
#ifdef USE_MPIF_H
  ft_name = 'attr (mpif.h)'
#else
  ft_name = 'attr (use mpi)'
#endif

  ! predefined attributes: values, not addresses
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call ft_check(flag, 'MPI_TAG_UB: flag')
  call ft_check(val >= 32767 .and. val <= huge(0), 'MPI_TAG_UB: an integer value >= 32767')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, val, flag, ierr)
  if (flag) call ft_check(val == 0 .or. val == 1, 'MPI_WTIME_IS_GLOBAL: 0 or 1')

  ! a keyval with Fortran callbacks
  extra = 4242
  call MPI_Comm_create_keyval(my_copy, my_delete, key1, extra, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Comm_create_keyval ierror')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, key1, val, flag, ierr)
  call ft_check(.not. flag, 'get_attr before set: flag .false.')
  val = 1000 + rank
  call MPI_Comm_set_attr(dup, key1, val, ierr)
  val = -1
  call MPI_Comm_get_attr(dup, key1, val, flag, ierr)
  call ft_check(flag, 'get_attr after set: flag')
  call ft_check_int(val, int(1000 + rank, MPI_ADDRESS_KIND), 'get_attr after set: value')
  ! Comm_dup calls my_copy, which stores value + 1
  call MPI_Comm_dup(dup, dup2, ierr)
  call ft_check_int(copies, 1, 'copy callback called once')
  call MPI_Comm_get_attr(dup2, key1, val, flag, ierr)
  call ft_check(flag, 'attribute copied by Comm_dup: flag')
  call ft_check_int(val, int(1001 + rank, MPI_ADDRESS_KIND), 'attribute copied by Comm_dup: value')
  ! freeing dup2 deletes its copy
  call MPI_Comm_free(dup2, ierr)
  call ft_check_int(deletes, 1, 'delete callback called by Comm_free')
  call ft_check_int(last_deleted, 1001 + rank, 'delete callback got the value')
  ! delete_attr on dup
  call MPI_Comm_delete_attr(dup, key1, ierr)
  call ft_check_int(deletes, 2, 'delete callback called by Comm_delete_attr')
  call ft_check_int(last_deleted, 1000 + rank, 'delete callback got the original value')
  call MPI_Comm_get_attr(dup, key1, val, flag, ierr)
  call ft_check(.not. flag, 'get_attr after delete: flag .false.')
  call ft_check_int(bad_extra, 0, 'extra_state passed to the callbacks')

  ! predefined callbacks: MPI_COMM_DUP_FN copies the value, MPI_COMM_NULL_COPY_FN does not
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key3, extra, ierr)
  val = 77
  call MPI_Comm_set_attr(dup, key2, val, ierr)
  val = 88
  call MPI_Comm_set_attr(dup, key3, val, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_get_attr(dup2, key2, val, flag, ierr)
  call ft_check(flag .and. val == 77, 'MPI_COMM_DUP_FN copies the attribute')
  call MPI_Comm_get_attr(dup2, key3, val, flag, ierr)
  call ft_check(.not. flag, 'MPI_COMM_NULL_COPY_FN does not copy')
  call MPI_Comm_free(dup2, ierr)
  call MPI_Comm_free_keyval(key2, ierr)
  call ft_check_int(key2, MPI_KEYVAL_INVALID, 'Comm_free_keyval sets MPI_KEYVAL_INVALID')
  call MPI_Comm_free_keyval(key3, ierr)

  ! an attribute still set when the communicator is freed: delete called
  val = 5
  call MPI_Comm_set_attr(dup, key1, val, ierr)
  call MPI_Comm_free_keyval(key1, ierr) ! the keyval lives on while used
  call MPI_Comm_free(dup, ierr)
  call ft_check_int(deletes, 3, 'delete callback called by Comm_free after free_keyval')
  call ft_check_int(last_deleted, 5, 'delete callback value at Comm_free')
  call ft_check_int(dup, MPI_COMM_NULL, 'Comm_free sets MPI_COMM_NULL')

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program attr

! copy callback: the copy gets value + 1
subroutine my_copy(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
  use attr_counts
#ifndef USE_MPIF_H
  use mpi
#endif
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer :: oldcomm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  copies = copies + 1
  if (extra_state /= 4242) bad_extra = bad_extra + 1
  attribute_val_out = attribute_val_in + 1
  flag = .true.
  ierror = MPI_SUCCESS
end subroutine my_copy

subroutine my_delete(comm, keyval, attribute_val, extra_state, ierror)
  use attr_counts
#ifndef USE_MPIF_H
  use mpi
#endif
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer :: comm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  deletes = deletes + 1
  last_deleted = int(attribute_val)
  if (extra_state /= 4242) bad_extra = bad_extra + 1
  ierror = MPI_SUCCESS
end subroutine my_delete
