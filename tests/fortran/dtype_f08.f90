! tests/fortran/dtype_f08.f90: derived datatypes through the mpi_f08 module
! (f_dtype_f08), TYPE(MPI_Datatype) handles, ierror mostly left out.
! Type_vector (a row of a column-major matrix), Type_create_subarray with
! MPI_ORDER_FORTRAN, Type_create_struct from MPI_Get_address displacements
! of a SEQUENCE derived type (+ Type_create_resized), a struct of absolute
! addresses used with MPI_BOTTOM, Pack/Unpack, Type_contiguous; Type_size,
! Type_get_extent, Type_commit, Type_free. Data goes round the ring.
program dtype_f08
  use mpi_f08
  use ftest
  implicit none
  type particle
    sequence
    integer :: id
    double precision :: x(3)
    integer :: flags
  end type particle
  integer :: rank, nproc, next, prev, ierr, i, j, total, tsize, nel
  integer :: a(5, 6), row(6), s(6, 8), sub(12), k
  type(MPI_Datatype) :: tvec, tsub, tpart0, tpart, tabs_s, tabs_r, tcont, types(3)
  integer :: sizes(2), subsizes(2), starts(2), blens(3)
  type(MPI_Status) :: status
  integer(kind=MPI_ADDRESS_KIND) :: disps(3), base, lb, extent
  type(particle) :: ps(3), pr(3)
  character :: packbuf(64)
  integer, volatile :: abs_i, abs_i_r
  double precision, volatile :: abs_d, abs_d_r

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'dtype (mpi_f08)'
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  ! Type_vector: row 2 of a(5,6) is 6 elements 5 apart
  a = reshape([(rank * 100 + i, i = 1, 30)], [5, 6])
  call MPI_Type_vector(6, 1, 5, MPI_INTEGER, tvec)
  call MPI_Type_commit(tvec, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Type_commit ierror')
  call MPI_Type_size(tvec, tsize)
  call ft_check_int(tsize, 24, 'Type_vector: size')
  call MPI_Type_get_extent(tvec, lb, extent)
  call ft_check_int(extent, int(26 * 4, MPI_ADDRESS_KIND), 'Type_vector: extent')
  row = -1
  call MPI_Sendrecv(a(2, 1), 1, tvec, next, 1, row, 6, MPI_INTEGER, prev, 1, &
                    MPI_COMM_WORLD, status)
  call ft_check(all(row == [(prev * 100 + 2 + 5 * j, j = 0, 5)]), 'Type_vector: row received')
  call MPI_Get_elements(status, MPI_INTEGER, nel)
  call ft_check_int(nel, 6, 'Get_elements')
  call MPI_Type_free(tvec)
  call ft_check(tvec == MPI_DATATYPE_NULL, 'Type_free sets MPI_DATATYPE_NULL')

  ! Type_create_subarray: s(2:4, 3:6) of s(6,8), Fortran order
  s = reshape([(rank * 1000 + i, i = 1, 48)], [6, 8])
  sizes = [6, 8]
  subsizes = [3, 4]
  starts = [1, 2] ! zero-based
  call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, tsub)
  call MPI_Type_commit(tsub)
  call MPI_Type_size(tsub, tsize)
  call ft_check_int(tsize, 48, 'Type_create_subarray: size')
  call MPI_Type_get_extent(tsub, lb, extent)
  call ft_check_int(extent, int(48 * 4, MPI_ADDRESS_KIND), 'Type_create_subarray: extent (whole array)')
  sub = -1
  call MPI_Sendrecv(s, 1, tsub, next, 2, sub, 12, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  k = 0
  do j = 3, 6
    do i = 2, 4
      k = k + 1
      call ft_check_int(sub(k), prev * 1000 + i + 6 * (j - 1), 'Type_create_subarray: element')
    end do
  end do
  ! and back: the receiver scatters the 12 values into the same subarray
  s = -1
  call MPI_Sendrecv(sub, 12, MPI_INTEGER, prev, 3, s, 1, tsub, next, 3, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call ft_check(all(s(2:4, 3:6) == reshape([((rank * 1000 + i + 6 * (j - 1), i = 2, 4), j = 3, 6)], [3, 4])), &
                'Type_create_subarray: receive into the subarray')
  call ft_check(count_minus1(s) == 48 - 12, 'Type_create_subarray: outside untouched')
  call MPI_Type_free(tsub)

  ! Type_create_struct over a SEQUENCE type, displacements from MPI_Get_address
  do i = 1, 3
    ps(i)%id = rank * 10 + i
    ps(i)%x = [rank + i * 0.5d0, -1d0 * i, 2d0 * rank]
    ps(i)%flags = -i
  end do
  call MPI_Get_address(ps(1), base)
  call MPI_Get_address(ps(1)%id, disps(1))
  call MPI_Get_address(ps(1)%x, disps(2))
  call MPI_Get_address(ps(1)%flags, disps(3))
  disps = disps - base
  blens = [1, 3, 1]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_INTEGER]
  call MPI_Type_create_struct(3, blens, disps, types, tpart0)
  call MPI_Get_address(ps(2), extent)
  extent = extent - base
  call MPI_Type_create_resized(tpart0, 0_MPI_ADDRESS_KIND, extent, tpart)
  call MPI_Type_commit(tpart)
  call MPI_Type_size(tpart, tsize)
  call ft_check_int(tsize, 4 + 24 + 4, 'Type_create_struct: size')
  do i = 1, 3
    pr(i)%id = -1
    pr(i)%x = -1
    pr(i)%flags = 0
  end do
  call MPI_Sendrecv(ps, 3, tpart, next, 4, pr, 3, tpart, prev, 4, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, tpart, nel)
  call ft_check_int(nel, 3, 'Type_create_struct: Get_count')
  do i = 1, 3
    call ft_check_int(pr(i)%id, prev * 10 + i, 'struct: id')
    call ft_check(all(pr(i)%x == [prev + i * 0.5d0, -1d0 * i, 2d0 * prev]), 'struct: x(3)')
    call ft_check_int(pr(i)%flags, -i, 'struct: flags')
  end do
  call MPI_Type_free(tpart)
  call MPI_Type_free(tpart0)

  ! absolute addresses and MPI_BOTTOM
  abs_i = rank + 5
  abs_d = rank * 1.5d0
  abs_i_r = -1
  abs_d_r = -1
  blens(1:2) = 1
  types(1:2) = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Get_address(abs_i, disps(1))
  call MPI_Get_address(abs_d, disps(2))
  call MPI_Type_create_struct(2, blens, disps, types, tabs_s)
  call MPI_Get_address(abs_i_r, disps(1))
  call MPI_Get_address(abs_d_r, disps(2))
  call MPI_Type_create_struct(2, blens, disps, types, tabs_r)
  call MPI_Type_commit(tabs_s)
  call MPI_Type_commit(tabs_r)
  call MPI_Sendrecv(MPI_BOTTOM, 1, tabs_s, next, 5, MPI_BOTTOM, 1, tabs_r, prev, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call ft_check_int(abs_i_r, prev + 5, 'MPI_BOTTOM: integer')
  call ft_check(abs_d_r == prev * 1.5d0, 'MPI_BOTTOM: double precision')
  call MPI_Type_free(tabs_s)
  call MPI_Type_free(tabs_r)

  ! Pack / Unpack: an INTEGER and three DOUBLE PRECISION into one buffer
  call MPI_Pack_size(3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, tsize)
  call ft_check(tsize >= 24, 'Pack_size')
  k = 0
  abs_i = rank + 40
  call MPI_Pack(abs_i, 1, MPI_INTEGER, packbuf, size(packbuf), k, MPI_COMM_WORLD)
  call ft_check_int(k, 4, 'Pack: position after an INTEGER')
  call MPI_Pack(ps(2)%x, 3, MPI_DOUBLE_PRECISION, packbuf, size(packbuf), k, MPI_COMM_WORLD)
  call ft_check_int(k, 28, 'Pack: position after three DOUBLE PRECISION')
  call MPI_Sendrecv_replace(packbuf, k, MPI_PACKED, next, 6, prev, 6, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE)
  j = 0
  call MPI_Unpack(packbuf, size(packbuf), j, abs_i_r, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Unpack(packbuf, size(packbuf), j, pr(1)%x, 3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
  call ft_check_int(abs_i_r, prev + 40, 'Unpack: INTEGER')
  call ft_check(all(pr(1)%x == [prev + 1d0, -2d0, 2d0 * prev]), 'Unpack: DOUBLE PRECISION')
  call ft_check_int(j, 28, 'Unpack: position')

  ! Type_contiguous of DOUBLE PRECISION, used by a collective
  call MPI_Type_contiguous(3, MPI_DOUBLE_PRECISION, tcont)
  call MPI_Type_commit(tcont)
  ps(1)%x = rank
  call MPI_Bcast(ps(1)%x, 1, tcont, 0, MPI_COMM_WORLD)
  call ft_check(all(ps(1)%x == 0d0), 'Type_contiguous in Bcast')
  call MPI_Type_free(tcont)

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
contains
  integer function count_minus1(x)
    integer, intent(in) :: x(:, :)
    count_minus1 = count(x == -1)
  end function count_minus1
end program dtype_f08
