! tests/fortran/p2p_f08.f90: point-to-point through the mpi_f08 module
! (f_p2p_f08): TYPE(MPI_Status) components, TYPE(MPI_Request) arrays,
! calls with and without the optional ierror. Blocking ring, Isend/Irecv +
! Waitall with statuses and MPI_STATUSES_IGNORE, Test, Waitany/Testany/
! Waitsome indices, Probe + Get_count, Sendrecv of CHARACTER data,
! Sendrecv_replace, MPI_ANY_SOURCE, PROC_NULL.
program p2p_f08
  use mpi_f08
  use ftest
  implicit none
  integer, parameter :: n = 100
  integer :: rank, nproc, next, prev, ierr, i, count, total, r, val
  integer :: ibuf(n), rbuf(n), rbuf2(n)
  double precision :: dbuf(n), drbuf(n), drbuf2(n)
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: reqs(4), req
  character(len=16) :: cs, cr
  logical :: flag, seen(0:63)
  integer :: seen_idx(4)

  call MPI_Init(ierr)
  call ft_check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  ft_rank = rank
  ft_name = 'p2p (mpi_f08)'
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  ! 1. blocking ring
  ibuf = [(rank * 1000 + i, i = 1, n)]
  rbuf = -1
  status%MPI_ERROR = 12345 ! single-completion calls leave it as it is
  if (rank == 0) then
    call MPI_Send(ibuf, n, MPI_INTEGER, next, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, n, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, status)
  else
    call MPI_Recv(rbuf, n, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(ibuf, n, MPI_INTEGER, next, 1, MPI_COMM_WORLD)
  end if
  call ft_check(all(rbuf == [(prev * 1000 + i, i = 1, n)]), 'blocking ring: data')
  call ft_check_int(status%MPI_SOURCE, prev, 'blocking ring: status%MPI_SOURCE')
  call ft_check_int(status%MPI_TAG, 1, 'blocking ring: status%MPI_TAG')
  call ft_check_int(status%MPI_ERROR, 12345, 'blocking ring: status%MPI_ERROR untouched')
  call MPI_Get_count(status, MPI_INTEGER, count)
  call ft_check_int(count, n, 'blocking ring: MPI_Get_count')

  ! 2. nonblocking both ways, Waitall with statuses
  ibuf = [(rank * 10 + i, i = 1, n)]
  dbuf = [(rank + i / 8d0, i = 1, n)]
  rbuf = -1
  drbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(drbuf, n, MPI_DOUBLE_PRECISION, next, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(ibuf, n, MPI_INTEGER, next, 2, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(dbuf, n, MPI_DOUBLE_PRECISION, prev, 3, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  call ft_check(ierr == MPI_SUCCESS, 'MPI_Waitall ierror')
  call ft_check(all(rbuf == [(prev * 10 + i, i = 1, n)]), 'Irecv: integer data')
  call ft_check(all(drbuf == [(next + i / 8d0, i = 1, n)]), 'Irecv: double precision data')
  call ft_check_int(statuses(1)%MPI_SOURCE, prev, 'Waitall: statuses(1)%MPI_SOURCE')
  call ft_check_int(statuses(1)%MPI_TAG, 2, 'Waitall: statuses(1)%MPI_TAG')
  call ft_check_int(statuses(2)%MPI_SOURCE, next, 'Waitall: statuses(2)%MPI_SOURCE')
  call ft_check_int(statuses(2)%MPI_TAG, 3, 'Waitall: statuses(2)%MPI_TAG')
  call MPI_Get_count(statuses(2), MPI_DOUBLE_PRECISION, count)
  call ft_check_int(count, n, 'Waitall: Get_count of statuses(2)')
  do i = 1, 4
    call ft_check(reqs(i) == MPI_REQUEST_NULL, 'Waitall: request set to MPI_REQUEST_NULL')
  end do

  ! MPI_STATUSES_IGNORE, and MPI_Test on one request
  rbuf2 = -1
  drbuf2 = -1
  call MPI_Irecv(rbuf2, n, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(drbuf2, n, MPI_DOUBLE_PRECISION, next, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(ibuf, n, MPI_INTEGER, next, 4, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(dbuf, n, MPI_DOUBLE_PRECISION, prev, 5, MPI_COMM_WORLD, reqs(4))
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, status)
  end do
  call ft_check_int(status%MPI_SOURCE, prev, 'MPI_Test: status%MPI_SOURCE')
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
  call ft_check(all(rbuf2 == rbuf), 'Waitall(MPI_STATUSES_IGNORE): integer data')
  call ft_check(all(drbuf2 == drbuf), 'Waitall(MPI_STATUSES_IGNORE): double data')

  ! 3. Probe + Get_count
  dbuf = [(rank * 2 + i, i = 1, n)]
  call MPI_Isend(dbuf, 3 * (rank + 1), MPI_DOUBLE_PRECISION, next, 6, MPI_COMM_WORLD, req)
  call MPI_Probe(prev, 6, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
  call ft_check_int(count, 3 * (prev + 1), 'Probe + Get_count')
  drbuf = -1
  call MPI_Recv(drbuf, count, MPI_DOUBLE_PRECISION, status%MPI_SOURCE, status%MPI_TAG, &
                MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call ft_check(all(drbuf(1:count) == [(prev * 2 + i, i = 1, count)]), 'Probe: data')
  call ft_check(all(drbuf(count + 1:) == -1), 'Probe: past the count untouched')
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, flag, status)
  call ft_check(.not. flag, 'Iprobe: nothing left')

  ! 4. Sendrecv of CHARACTER data; Sendrecv_replace
  write (cs, '(a,i0)') 'from rank ', rank
  cr = '?'
  call MPI_Sendrecv(cs, len(cs), MPI_CHARACTER, next, 7, cr, len(cr), MPI_CHARACTER, prev, 7, &
                    MPI_COMM_WORLD, status)
  write (cs, '(a,i0)') 'from rank ', prev
  call ft_check(cr == cs, 'Sendrecv of CHARACTER: got "' // cr // '"')
  call MPI_Get_count(status, MPI_CHARACTER, count)
  call ft_check_int(count, len(cs), 'Sendrecv: Get_count(MPI_CHARACTER)')
  val = rank
  call MPI_Sendrecv_replace(val, 1, MPI_INTEGER, next, 8, prev, 8, MPI_COMM_WORLD, status)
  call ft_check_int(val, prev, 'Sendrecv_replace')

  ! 5. MPI_ANY_SOURCE / MPI_ANY_TAG at rank 0
  call MPI_Isend(rank, 1, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, req)
  if (rank == 0) then
    seen = .false.
    do i = 1, nproc
      call MPI_Recv(val, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
      r = status%MPI_SOURCE
      call ft_check(r >= 0 .and. r < nproc, 'ANY_SOURCE: source in range')
      if (r >= 0 .and. r < nproc) then
        call ft_check(.not. seen(r), 'ANY_SOURCE: source seen twice')
        seen(r) = .true.
      end if
      call ft_check_int(val, r, 'ANY_SOURCE: data is the source')
      call ft_check_int(status%MPI_TAG, 100 + r, 'ANY_TAG: status%MPI_TAG')
    end do
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE)

  ! 6. MPI_PROC_NULL
  call MPI_Recv(val, 1, MPI_INTEGER, MPI_PROC_NULL, 9, MPI_COMM_WORLD, status)
  call ft_check_int(status%MPI_SOURCE, MPI_PROC_NULL, 'Recv from MPI_PROC_NULL: source')
  call ft_check_int(status%MPI_TAG, MPI_ANY_TAG, 'Recv from MPI_PROC_NULL: tag')
  call MPI_Get_count(status, MPI_INTEGER, count)
  call ft_check_int(count, 0, 'Recv from MPI_PROC_NULL: count')

  ! 7. the index of Waitany / Testany / Waitsome counts from 1; all-null
  ! request arrays give MPI_UNDEFINED
  do i = 1, 4
    reqs(i) = MPI_REQUEST_NULL
  end do
  call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, 0, 11, MPI_COMM_SELF, reqs(3))
  call MPI_Send(rank, 1, MPI_INTEGER, 0, 11, MPI_COMM_SELF)
  call MPI_Waitany(4, reqs, r, status)
  call ft_check_int(r, 3, 'Waitany: index counts from 1')
  call ft_check_int(status%MPI_TAG, 11, 'Waitany: status')
  call MPI_Waitany(4, reqs, r, status)
  call ft_check_int(r, MPI_UNDEFINED, 'Waitany on null requests: MPI_UNDEFINED')
  call MPI_Irecv(rbuf(4), 1, MPI_INTEGER, 0, 12, MPI_COMM_SELF, reqs(4))
  call MPI_Send(rank, 1, MPI_INTEGER, 0, 12, MPI_COMM_SELF)
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(4, reqs, r, flag, status)
  end do
  call ft_check_int(r, 4, 'Testany: index counts from 1')
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, 0, 13, MPI_COMM_SELF, reqs(2))
  call MPI_Send(rank, 1, MPI_INTEGER, 0, 13, MPI_COMM_SELF)
  call MPI_Waitsome(4, reqs, count, seen_idx, statuses)
  call ft_check_int(count, 1, 'Waitsome: outcount')
  call ft_check_int(seen_idx(1), 2, 'Waitsome: index counts from 1')
  call MPI_Waitsome(4, reqs, count, seen_idx, statuses)
  call ft_check_int(count, MPI_UNDEFINED, 'Waitsome on null requests: MPI_UNDEFINED')

  call MPI_Allreduce(ft_errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) call ft_report(total)
  call MPI_Finalize()
  if (total /= 0) stop 1
end program p2p_f08
