! tests/fortran/coll_f08.f90: collectives and user-defined reductions
! through the mpi_f08 module (f_coll_f08). Bcast; Reduce/Allreduce with
! MPI_SUM on INTEGER, REAL, DOUBLE PRECISION, COMPLEX, DOUBLE COMPLEX;
! MPI_LAND/MPI_LOR on LOGICAL; MPI_MAXLOC/MPI_MINLOC on MPI_2INTEGER,
! MPI_2REAL, MPI_2DOUBLE_PRECISION; MPI_IN_PLACE; Gatherv, Alltoall,
! Allgather, Scatter; Iallreduce, Ibcast, Comm_split; MPI_Op_create with
! MPI_User_function procedures (TYPE(C_PTR) arguments), commutative and
! non-commutative.
module coll_f08_ops
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
contains
  ! inoutvec = the one of larger magnitude, with its sign (INTEGER data)
  subroutine absmax(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    where (abs(a) > abs(b)) b = a
  end subroutine absmax

  ! a op b = a: rank 0's value comes out only if the operands go in rank order
  subroutine keep_first(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a
  end subroutine keep_first
end module coll_f08_ops

program coll_f08
  use mpi_f08
  use coll_f08_ops
  use ftest
  implicit none
  integer, parameter :: n = 10, maxp = 64
  integer :: rank, nproc, ierr, i, r, total, root, isum, want
  integer :: ibuf(n), iout(n), pair(2), pairout(2), wpair(2)
  real :: rbuf(n), rout(n), rpair(2), rpairout(2)
  double precision :: dbuf(n), dout(n), dpair(2), dpairout(2), dwant
  complex :: cbuf(n), cout(n)
  double complex :: zbuf(n), zout(n)
  logical :: lbuf(n), lout(n)
  integer :: sendcounts(0:maxp - 1), displs(0:maxp - 1), gbuf(maxp * (maxp + 1) / 2)
  integer :: a2a_s(0:maxp - 1), a2a_r(0:maxp - 1), all_r(0:maxp - 1)
  type(MPI_Comm) :: half
  type(MPI_Request) :: req
  type(MPI_Op) :: op_absmax, op_first

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'coll (mpi_f08)'
  isum = nproc * (nproc - 1) / 2

  ! Bcast from the last rank
  root = nproc - 1
  ibuf = -1
  dbuf = -1
  if (rank == root) then
    ibuf = [(i * 3, i = 1, n)]
    dbuf = [(i / 4d0, i = 1, n)]
  end if
  call MPI_Bcast(ibuf, n, MPI_INTEGER, root, MPI_COMM_WORLD)
  call MPI_Bcast(dbuf, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'Bcast ierror')
  call ft_check(all(ibuf == [(i * 3, i = 1, n)]), 'Bcast INTEGER')
  call ft_check(all(dbuf == [(i / 4d0, i = 1, n)]), 'Bcast DOUBLE PRECISION')

  ! MPI_SUM on each numeric type
  ibuf = [(rank + i, i = 1, n)]
  rbuf = [(rank + i * 0.5, i = 1, n)]
  dbuf = [(rank + i * 0.25d0, i = 1, n)]
  cbuf = [(cmplx(rank, -i), i = 1, n)]
  zbuf = [(dcmplx(i, rank), i = 1, n)]
  iout = -1
  call MPI_Reduce(ibuf, iout, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) call ft_check(all(iout == [(isum + nproc * i, i = 1, n)]), 'Reduce SUM INTEGER')
  call MPI_Allreduce(rbuf, rout, n, MPI_REAL, MPI_SUM, MPI_COMM_WORLD)
  call ft_check(all(rout == [(isum + nproc * i * 0.5, i = 1, n)]), 'Allreduce SUM REAL')
  call MPI_Allreduce(dbuf, dout, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call ft_check(all(dout == [(isum + nproc * i * 0.25d0, i = 1, n)]), 'Allreduce SUM DOUBLE PRECISION')
  call MPI_Allreduce(cbuf, cout, n, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call ft_check(all(cout == [(cmplx(isum, -nproc * i), i = 1, n)]), 'Allreduce SUM COMPLEX')
  call MPI_Reduce(zbuf, zout, n, MPI_DOUBLE_COMPLEX, MPI_SUM, root, MPI_COMM_WORLD)
  if (rank == root) &
    call ft_check(all(zout == [(dcmplx(nproc * i, isum), i = 1, n)]), 'Reduce SUM DOUBLE COMPLEX')
  call MPI_Allreduce(ibuf, iout, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call ft_check(all(iout == [(nproc - 1 + i, i = 1, n)]), 'Allreduce MAX INTEGER')

  ! logical reductions
  lbuf = rank /= 0
  lbuf(2) = .true.
  call MPI_Allreduce(lbuf, lout, n, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call ft_check(.not. lout(1) .and. lout(2) .and. .not. lout(n), 'Allreduce LAND LOGICAL')
  lbuf = rank == nproc - 1
  call MPI_Allreduce(lbuf, lout, n, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  call ft_check(all(lout), 'Allreduce LOR LOGICAL')
  call ft_check(lout(1) .eqv. .true., 'LOR result .eqv. .true.')

  ! MAXLOC / MINLOC pairs
  pair = [10 - abs(rank - 1), rank]
  wpair = [-huge(0), -1]
  do r = 0, nproc - 1
    if (10 - abs(r - 1) > wpair(1)) wpair = [10 - abs(r - 1), r]
  end do
  call MPI_Allreduce(pair, pairout, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD)
  call ft_check(all(pairout == wpair), 'Allreduce MAXLOC MPI_2INTEGER')
  dpair = [dble(mod(rank * 5, 3)), dble(rank)]
  call MPI_Allreduce(dpair, dpairout, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD)
  call ft_check(dpairout(1) == 0d0 .and. dpairout(2) == 0d0, 'Allreduce MINLOC MPI_2DOUBLE_PRECISION')
  call MPI_Allreduce(dpair, dpairout, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD)
  dwant = 0
  want = 0
  do r = 0, nproc - 1
    if (mod(r * 5, 3) > dwant) then
      dwant = mod(r * 5, 3)
      want = r
    end if
  end do
  call ft_check(dpairout(1) == dwant .and. dpairout(2) == want, 'Allreduce MAXLOC MPI_2DOUBLE_PRECISION')
  rpair = [real(rank), real(rank)]
  call MPI_Reduce(rpair, rpairout, 1, MPI_2REAL, MPI_MAXLOC, 0, MPI_COMM_WORLD)
  if (rank == 0) call ft_check(all(rpairout == real(nproc - 1)), 'Reduce MAXLOC MPI_2REAL')

  ! MPI_IN_PLACE
  ibuf = [(rank * i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, ibuf, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call ft_check(all(ibuf == [(isum * i, i = 1, n)]), 'Allreduce MPI_IN_PLACE')
  dbuf = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, dbuf, n, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD)
    dwant = 1
    do r = 1, nproc
      dwant = dwant * r
    end do
    call ft_check(all(dbuf == dwant), 'Reduce PROD MPI_IN_PLACE at the root')
  else
    call MPI_Reduce(dbuf, dout, n, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD)
  end if

  ! Gatherv, Scatter, Allgather, Alltoall
  root = 0
  do r = 0, nproc - 1
    sendcounts(r) = r + 1
    displs(r) = r * (r + 1) / 2
  end do
  ibuf = rank
  gbuf = -1
  call MPI_Gatherv(ibuf, rank + 1, MPI_INTEGER, gbuf, sendcounts, displs, MPI_INTEGER, &
                   root, MPI_COMM_WORLD)
  if (rank == root) then
    do r = 0, nproc - 1
      call ft_check(all(gbuf(displs(r) + 1:displs(r) + r + 1) == r), 'Gatherv data')
    end do
  end if
  a2a_s = [(1000 * rank + i, i = 0, maxp - 1)]
  a2a_r = -1
  call MPI_Scatter(a2a_s, 1, MPI_INTEGER, i, 1, MPI_INTEGER, root, MPI_COMM_WORLD)
  call ft_check_int(i, 1000 * root + rank, 'Scatter')
  call MPI_Allgather(rank, 1, MPI_INTEGER, all_r, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call ft_check(all(all_r(0:nproc - 1) == [(r, r = 0, nproc - 1)]), 'Allgather')
  call MPI_Alltoall(a2a_s, 1, MPI_INTEGER, a2a_r, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call ft_check(all(a2a_r(0:nproc - 1) == [(1000 * r + rank, r = 0, nproc - 1)]), 'Alltoall')
  call MPI_Barrier(MPI_COMM_WORLD)

  ! nonblocking collectives; a split communicator (key reverses the order)
  ibuf = rank + 1
  call MPI_Iallreduce(ibuf, iout, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call ft_check(all(iout == nproc * (nproc + 1) / 2), 'Iallreduce')
  dbuf = rank
  call MPI_Ibcast(dbuf, n, MPI_DOUBLE_PRECISION, nproc - 1, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call ft_check(all(dbuf == nproc - 1), 'Ibcast')
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half)
  call MPI_Comm_size(half, i)
  call ft_check_int(i, (nproc + 1 - mod(rank, 2)) / 2, 'Comm_split: size')
  call MPI_Comm_rank(half, r)
  call ft_check_int(r, (nproc - 1 - rank) / 2, 'Comm_split: rank in reverse order')
  call MPI_Allreduce(rank, i, 1, MPI_INTEGER, MPI_MIN, half)
  call ft_check_int(i, mod(rank, 2), 'Allreduce on the split communicator')
  call MPI_Comm_free(half)

  ! user-defined reductions
  call MPI_Op_create(absmax, .true., op_absmax)
  call MPI_Op_create(keep_first, .false., op_first, ierr)
  ibuf = [((-1)**(rank + i) * (rank + i), i = 1, n)]
  call MPI_Allreduce(ibuf, iout, n, MPI_INTEGER, op_absmax, MPI_COMM_WORLD)
  call ft_check(all(iout == [((-1)**(nproc - 1 + i) * (nproc - 1 + i), i = 1, n)]), &
                'user op (largest magnitude)')
  ibuf = rank + 7
  call MPI_Reduce(ibuf, iout, n, MPI_INTEGER, op_first, nproc - 1, MPI_COMM_WORLD)
  if (rank == nproc - 1) call ft_check(all(iout == 7), 'non-commutative user op: rank order')
  call MPI_Op_free(op_absmax)
  call MPI_Op_free(op_first)
  call ft_check(op_absmax == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize()
  if (total /= 0) stop 1
end program coll_f08
