! io_f08.f90: MPI-IO through mpi_f08 (MPI 4.1 chapter 14, section 19.1):
!  - collective open with MPI_MODE_CREATE of a file in $TMPDIR (or /tmp),
!    an interleaved view
!    (each rank owns every nprocs-th block of 4 INTEGERs: MPI_Type_vector
!    resized), MPI_File_write_all, MPI_File_read_at_all of the whole file
!    through a native view, the status count (MPI_Get_count), a read past
!    the end giving 0 elements;
!  - MPI_Register_datarep with Fortran conversion procedures (writing
!    stores -x, reading gives back x) and an extent function, used in a
!    view: the file holds the negated values, reading through it gives the
!    original ones;
!  - MPI_File_get_size and an error class from a missing file
!    (MPI_ERR_NO_SUCH_FILE, MPI_FILE_NULL's handler is MPI_ERRORS_RETURN).
! Rank 0 deletes the file (MPI_File_delete); nothing is left.
module io_f08_rep
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
contains
  subroutine negate(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f(1:count) = -u(position + 1:position + count)
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 42) ierror = MPI_ERR_TYPE
  end subroutine negate

  subroutine unnegate(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:position + count) = -f(1:count)
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra_state /= 42) ierror = MPI_ERR_TYPE
  end subroutine unnegate

  subroutine extent(datatype, file_extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: file_extent, extra_state
    integer :: ierror
    integer :: sz
    call MPI_Type_size(datatype, sz, ierror)
    file_extent = sz
  end subroutine extent
end module io_f08_rep

program io_f08
  use mpi_f08
  use io_f08_rep
  use ftest
  implicit none
  integer, parameter :: blocks = 3, blen = 4
  integer :: rank, nproc, ierr, total, i, n, cls
  integer :: mine(blocks * blen), all(:)
  allocatable :: all
  type(MPI_File) :: fh
  type(MPI_Datatype) :: vec, filetype
  type(MPI_Status) :: st
  integer(kind=MPI_OFFSET_KIND) :: disp, fsize
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext, extra
  character(len=256) :: fname, tmpdir

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'io_f08'
  call get_environment_variable('TMPDIR', tmpdir, status=i)
  if (i /= 0 .or. len_trim(tmpdir) == 0) tmpdir = '/tmp'
  write (fname, '(a,a,i0)') trim(tmpdir), '/dmpi_io_f08.', getpid_of_rank0()
  allocate(all(blocks * blen * nproc))

  ! rank r's block b holds 1000*r + 10*b + k
  do i = 1, blocks * blen
    mine(i) = 1000 * rank + 10 * ((i - 1) / blen) + mod(i - 1, blen)
  end do
  call MPI_Type_vector(blocks, blen, blen * nproc, MPI_INTEGER, vec)
  lb = 0
  ext = int(blocks * blen * nproc * 4, MPI_ADDRESS_KIND)
  call MPI_Type_create_resized(vec, lb, ext, filetype)
  call MPI_Type_commit(filetype)
  extra = 42
  call MPI_Register_datarep('negated', unnegate, negate, extent, extra, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Register_datarep')

  do n = 1, 2   ! 1: native, 2: the negated representation
    call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    call ft_check(ierr == MPI_SUCCESS, 'File_open')
    disp = int(rank * blen * 4, MPI_OFFSET_KIND)
    call MPI_File_set_view(fh, disp, MPI_INTEGER, filetype, merge('native ', 'negated', n == 1), &
                           MPI_INFO_NULL, ierr)
    call ft_check(ierr == MPI_SUCCESS, 'File_set_view')
    call MPI_File_write_all(fh, mine, blocks * blen, MPI_INTEGER, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, i)
    call ft_check(ierr == MPI_SUCCESS .and. i == blocks * blen, 'write_all and its count')
    ! read the whole file back through a plain native view
    disp = 0
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    all = -1
    call MPI_File_read_at_all(fh, disp, all, size(all), MPI_INTEGER, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, i)
    call ft_check(ierr == MPI_SUCCESS .and. i == size(all), 'read_at_all count')
    do i = 1, size(all)
      if (all(i) /= merge(1, -1, n == 1) * expected(i)) then
        call ft_fail('file contents')
        exit
      end if
    end do
    ! through the negated view the values come back as written
    if (n == 2) then
      disp = int(rank * blen * 4, MPI_OFFSET_KIND)
      call MPI_File_set_view(fh, disp, MPI_INTEGER, filetype, 'negated', MPI_INFO_NULL, ierr)
      all = -1
      call MPI_File_read_all(fh, all, blocks * blen, MPI_INTEGER, st, ierr)
      call ft_check(ierr == MPI_SUCCESS .and. all(blen + 2) == mine(blen + 2) &
                    .and. all(1) == mine(1), 'read back through the datarep')
    end if
    ! past the end: 0 elements
    disp = int(size(all) * 4, MPI_OFFSET_KIND)
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    call MPI_File_read_at(fh, int(size(all), MPI_OFFSET_KIND), all, 4, MPI_INTEGER, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, i)
    call ft_check(ierr == MPI_SUCCESS .and. i == 0, 'read past the end gives 0 elements')
    call MPI_File_get_size(fh, fsize, ierr)
    call ft_check(fsize == size(all) * 4, 'File_get_size')
    call MPI_File_close(fh, ierr)
    call ft_check(fh == MPI_FILE_NULL, 'File_close sets MPI_FILE_NULL')
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do

  call MPI_File_open(MPI_COMM_WORLD, trim(fname) // '.missing', MPI_MODE_RDONLY, &
                     MPI_INFO_NULL, fh, ierr)
  call MPI_Error_class(ierr, cls)
  call ft_check(cls == MPI_ERR_NO_SUCH_FILE, 'open of a missing file: MPI_ERR_NO_SUCH_FILE')

  call MPI_Type_free(filetype)
  call MPI_Type_free(vec)
  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call ft_report(total)
  deallocate(all)
  call MPI_Finalize()
contains
  integer function expected(i)   ! file element i (1-based) as written
    integer, intent(in) :: i
    integer :: blk, r, b
    blk = (i - 1) / blen           ! which block of the file
    r = mod(blk, nproc)
    b = blk / nproc
    expected = 1000 * r + 10 * b + mod(i - 1, blen)
  end function expected

  integer function getpid_of_rank0()   ! one name for all ranks
    integer :: pid
    pid = getpid()
    call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    getpid_of_rank0 = pid
  end function getpid_of_rank0
end program io_f08
