! tests/fortran/env_f08.f90: environment, errors and Fortran-specific calls
! through the mpi_f08 module (f_env_f08), as env.F90 does for the legacy
! bindings: MPI_Init_thread / Query_thread / Is_thread_main / Initialized /
! Finalized, Get_version, Get_library_version; an error handler written
! in Fortran; MPI_Info strings; MPI_ERRORS_RETURN, then a bad rank gives
! an ierror of class MPI_ERR_RANK, and a failing call without ierror lets
! the program go on; Error_string, Comm_set_name/get_name,
! Get_processor_name; the sizes of the Fortran datatypes, MPI_Sizeof,
! MPI_Type_create_f90_real/integer/complex; MPI_Wtime, MPI_Wtick.
module env_f08_eh
  use mpi_f08
  implicit none
  integer :: eh_calls = 0, eh_class = -1, eh_comm_ok = 0
contains
  ! the communicator error handler: counts its calls, keeps the error class
  subroutine env_errh(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    eh_calls = eh_calls + 1
    call MPI_Error_class(error_code, eh_class)
    if (comm == MPI_COMM_WORLD) eh_comm_ok = eh_comm_ok + 1
  end subroutine env_errh
end module env_f08_eh

program env_f08
  use mpi_f08
  use env_f08_eh
  use ftest
  implicit none
  integer :: rank, nproc, ierr, ierr2, total, provided, q, cls, len, ver, subver, tsize, i
  logical :: flag, is_set
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  type(MPI_Datatype) :: t
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  double precision :: t0, t1, tick, x
  integer :: isz
  real :: r4
  double precision :: r8
  complex :: c8
  integer(kind=8) :: i8
  logical :: lg
  character :: ch

  call MPI_Initialized(flag, ierr)
  call ft_check(.not. flag, 'Initialized before Init')
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Init_thread ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ft_rank = rank
  ft_name = 'env (mpi_f08)'
  call MPI_Initialized(flag, ierr)
  call ft_check(flag, 'Initialized after Init_thread')
  call ft_check(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED .and. MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &
                .and. MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, 'MPI_THREAD_* ordered')
  call ft_check(provided >= MPI_THREAD_SINGLE .and. provided <= MPI_THREAD_MULTIPLE, 'provided in range')
  call MPI_Query_thread(q, ierr)
  call ft_check_int(q, provided, 'Query_thread = provided')
  call MPI_Is_thread_main(flag, ierr)
  call ft_check(flag, 'Is_thread_main')
  call MPI_Get_version(ver, subver, ierr)
  call ft_check_int(ver, MPI_VERSION, 'Get_version = MPI_VERSION')
  call ft_check_int(subver, MPI_SUBVERSION, 'Get_version = MPI_SUBVERSION')
  lib = ' '
  call MPI_Get_library_version(lib, len, ierr)
  call ft_check(len > 0 .and. len <= MPI_MAX_LIBRARY_VERSION_STRING, 'Get_library_version: length')
  call ft_check(index(lib(1:len), 'dmpi') > 0, 'Get_library_version names dmpi: ' // lib(1:max(len, 1)))
  if (len < len_trim(lib)) call ft_fail('Get_library_version: text past the length')

  ! errors returned instead of fatal
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD, ierr)
  call ft_check(ierr /= MPI_SUCCESS, 'Send to rank nproc returns an error')
  call MPI_Error_class(ierr, cls, ierr2)
  call ft_check_int(cls, MPI_ERR_RANK, 'Send to rank nproc: MPI_ERR_RANK')
  estr = '?'
  call MPI_Error_string(ierr, estr, len, ierr2)
  call ft_check(len > 0 .and. len <= MPI_MAX_ERROR_STRING .and. estr(len + 1:) == ' ', &
                'Error_string: length and blank padding')
  call MPI_Send(rank, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, ierr2)
  call ft_check_int(cls, MPI_ERR_TAG, 'Send with tag -5: MPI_ERR_TAG')
  ! without ierror the error is dropped and the program goes on
  call MPI_Send(rank, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Comm_size(MPI_COMM_NULL, q, ierr)
  call MPI_Error_class(ierr, cls, ierr2)
  call ft_check_int(cls, MPI_ERR_COMM, 'MPI_COMM_NULL: MPI_ERR_COMM')
  call MPI_Error_string(MPI_ERR_RANK, estr, len, ierr)
  call ft_check(len > 0, 'Error_string(MPI_ERR_RANK)')

  ! an error handler written in Fortran: called with the communicator and
  ! the error code, for errors and for MPI_Comm_call_errhandler
  call MPI_Comm_create_errhandler(env_errh, eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  eh_calls = 0
  eh_class = -1
  call MPI_Send(rank, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD, ierr)
  call ft_check_int(eh_calls, 1, 'Fortran error handler called for a bad rank')
  call ft_check_int(eh_class, MPI_ERR_RANK, 'Fortran error handler: error class')
  call MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER)
  call ft_check_int(eh_calls, 2, 'Fortran error handler called by Comm_call_errhandler')
  call ft_check_int(eh_class, MPI_ERR_OTHER, 'Comm_call_errhandler: error class')
  call ft_check_int(eh_comm_ok, 2, 'Fortran error handler: the communicator')
  call MPI_Errhandler_free(eh)

  ! info: values are trimmed of trailing blanks and come back blank-padded
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'fortran_key', 'some value   ')
  cname = '?'
  call MPI_Info_get(info, 'fortran_key', MPI_MAX_OBJECT_NAME, cname, flag)
  call ft_check(flag .and. cname == 'some value', 'Info_get: ' // trim(cname))
  call MPI_Info_get_valuelen(info, 'fortran_key', len, flag)
  call ft_check_int(len, 10, 'Info_get_valuelen')
  call MPI_Info_get_nkeys(info, q)
  call ft_check_int(q, 1, 'Info_get_nkeys')
  call MPI_Info_get_nthkey(info, 0, cname)
  call ft_check(cname == 'fortran_key', 'Info_get_nthkey: ' // trim(cname))
  call MPI_Info_get(info, 'no_such_key', MPI_MAX_OBJECT_NAME, cname, flag)
  call ft_check(.not. flag, 'Info_get of a missing key')
  call MPI_Info_free(info)

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  ! names
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, len, ierr)
  call ft_check(cname == 'MPI_COMM_WORLD' .and. len == 14, 'get_name of MPI_COMM_WORLD: ' // trim(cname))
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'fortran world  ', ierr) ! trailing blanks are not part of it
  cname = '?'
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, len, ierr)
  call ft_check(cname == 'fortran world', 'get_name after set_name: ' // trim(cname))
  call ft_check_int(len, 13, 'get_name after set_name: length')
  pname = '?'
  call MPI_Get_processor_name(pname, len, ierr)
  call ft_check(len > 0 .and. len <= MPI_MAX_PROCESSOR_NAME, 'Get_processor_name: length')
  call ft_check(len_trim(pname) == len, 'Get_processor_name: blank padded')

  ! the Fortran layer told the C library about this compiler (MPI 5.0 ABI)
  call MPI_Abi_get_fortran_info(info, ierr)
  call ft_check(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'Abi_get_fortran_info gives an info')
  if (info /= MPI_INFO_NULL) then
    len = 0    ! asks for the length only
    call MPI_Info_get_string(info, 'mpi_integer_size', len, cname, flag, ierr)
    call ft_check(len == 1 .and. flag, 'Abi_get_fortran_info: mpi_integer_size present')
    len = MPI_MAX_OBJECT_NAME
    call MPI_Info_get_string(info, 'mpi_integer_size', len, cname, flag, ierr)
    call ft_check(flag .and. cname == '4' .and. len == 1, 'mpi_integer_size: ' // trim(cname))
    call MPI_Info_get_string(info, 'mpi_logical_size', len, cname, flag, ierr)
    call ft_check(flag .and. cname == '4', 'mpi_logical_size: ' // trim(cname))
    call MPI_Info_free(info)
  end if
  lg = .false.
  call MPI_Abi_get_fortran_booleans(4, lg, flag, is_set, ierr)
  call ft_check(ierr == MPI_SUCCESS .and. is_set .and. lg .and. .not. flag, &
                'Abi_get_fortran_booleans: .TRUE. and .FALSE. registered')

  ! datatype sizes: default INTEGER, REAL, LOGICAL are 4 bytes
  call MPI_Type_size(MPI_INTEGER, tsize, ierr)
  call ft_check_int(tsize, 4, 'size of MPI_INTEGER')
  call MPI_Type_size(MPI_REAL, tsize, ierr)
  call ft_check_int(tsize, 4, 'size of MPI_REAL')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsize, ierr)
  call ft_check_int(tsize, 8, 'size of MPI_DOUBLE_PRECISION')
  call MPI_Type_size(MPI_COMPLEX, tsize, ierr)
  call ft_check_int(tsize, 8, 'size of MPI_COMPLEX')
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, tsize, ierr)
  call ft_check_int(tsize, 16, 'size of MPI_DOUBLE_COMPLEX')
  call MPI_Type_size(MPI_LOGICAL, tsize, ierr)
  call ft_check_int(tsize, 4, 'size of MPI_LOGICAL')
  call MPI_Type_size(MPI_CHARACTER, tsize, ierr)
  call ft_check_int(tsize, 1, 'size of MPI_CHARACTER')
  call MPI_Type_size(MPI_INTEGER8, tsize, ierr)
  call ft_check_int(tsize, 8, 'size of MPI_INTEGER8')
  call MPI_Type_size(MPI_REAL4, tsize, ierr)
  call ft_check_int(tsize, 4, 'size of MPI_REAL4')
  call MPI_Type_size(MPI_2INTEGER, tsize, ierr)
  call ft_check_int(tsize, 8, 'size of MPI_2INTEGER')
  call MPI_Sizeof(isz, tsize, ierr)
  call ft_check_int(tsize, 4, 'MPI_Sizeof(INTEGER)')
  call MPI_Sizeof(r4, tsize, ierr)
  call ft_check_int(tsize, 4, 'MPI_Sizeof(REAL)')
  call MPI_Sizeof(r8, tsize, ierr)
  call ft_check_int(tsize, 8, 'MPI_Sizeof(DOUBLE PRECISION)')
  call MPI_Sizeof(c8, tsize, ierr)
  call ft_check_int(tsize, 8, 'MPI_Sizeof(COMPLEX)')
  call MPI_Sizeof(i8, tsize, ierr)
  call ft_check_int(tsize, 8, 'MPI_Sizeof(INTEGER(8))')
  call MPI_Sizeof(lg, tsize, ierr)
  call ft_check_int(tsize, 4, 'MPI_Sizeof(LOGICAL)')
  call MPI_Sizeof(ch, tsize, ierr)
  call ft_check_int(tsize, 1, 'MPI_Sizeof(CHARACTER)')

  ! parameterised types: SELECTED_REAL_KIND(6,30) is REAL(4), (15) REAL(8);
  ! SELECTED_INT_KIND(9) 4 bytes, (18) 8 bytes
  call MPI_Type_create_f90_real(6, 30, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  call ft_check_int(tsize, 4, 'Type_create_f90_real(6,30) size')
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  call ft_check_int(tsize, 8, 'Type_create_f90_real(15) size')
  x = rank + 0.5d0
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, t, MPI_SUM, MPI_COMM_WORLD, ierr)
  call ft_check(x == nproc * (nproc - 1) / 2 + nproc * 0.5d0, 'Allreduce on an f90_real type')
  call MPI_Type_create_f90_integer(9, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  call ft_check_int(tsize, 4, 'Type_create_f90_integer(9) size')
  call MPI_Type_create_f90_integer(18, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  call ft_check_int(tsize, 8, 'Type_create_f90_integer(18) size')
  call MPI_Type_create_f90_complex(15, MPI_UNDEFINED, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  call ft_check_int(tsize, 16, 'Type_create_f90_complex(15) size')

  ! clocks
  t0 = MPI_Wtime()
  tick = MPI_Wtick()
  call ft_check(tick > 0 .and. tick < 1, 'Wtick in (0,1)')
  x = 0
  do i = 1, 100000
    x = x + sqrt(dble(i))
  end do
  t1 = MPI_Wtime()
  call ft_check(t1 >= t0 .and. t1 - t0 < 60 .and. x > 0, 'Wtime advances')

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  if (.not. flag) then
    write (*, '(a)') 'Finalized is .false. after MPI_Finalize'
    stop 1
  end if
  if (total /= 0) stop 1
end program env_f08
