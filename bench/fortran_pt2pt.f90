! fortran_pt2pt.f90: the point-to-point latency and bandwidth of
! dmpi_bench_pt2pt.c, written against the mpi_f08 module, to measure what
! the Fortran bindings add to a call (bench/fortran_compare.sh runs both,
! alternating). Same definitions: lat is half a ping-pong round trip, bw
! a window of 64 nonblocking sends from one buffer into 64 receive slots,
! acknowledged, and its time per message;
! 100 samples per size after 10 untimed iterations; prints the CSV lines
! test,size,median_us,p99_us,mbps. Run with 2 ranks.
!   fortran_pt2pt [lat|bw] SIZE_BYTES
program fortran_pt2pt
  use mpi_f08
  implicit none
  integer, parameter :: samples = 100, warmup = 10, window = 64
  character(len=16) :: arg
  character(len=3) :: test
  integer :: n, rank, iters, s, i, w
  double precision :: t(samples), t0, med, p99
  character(len=1), allocatable :: buf(:)
  type(MPI_Request) :: reqs(window)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call get_command_argument(1, arg)
  test = trim(arg)
  call get_command_argument(2, arg)
  read (arg, *) n
  allocate(buf(max(n, 1) * window))
  buf = 'x'
  iters = merge(100, 20, test == 'lat')
  ! at most 16 MiB per sample, as dmpi_bench_pt2pt's -B
  if (test /= 'lat') iters = max(1, min(iters, (16 * 1024 * 1024) / max(1, n * window)))
  do s = -warmup + 1, samples
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters
      if (test == 'lat') then
        if (rank == 0) then
          call MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
          call MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else if (rank == 1) then
          call MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
          call MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
        end if
      else
        do w = 1, window
          if (rank == 0) then
            call MPI_Isend(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, reqs(w))
          else if (rank == 1) then
            call MPI_Irecv(buf((w - 1) * n + 1), n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, reqs(w))
          end if
        end do
        if (rank <= 1) call MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE)
        if (rank == 1) call MPI_Send(buf, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD)
        if (rank == 0) call MPI_Recv(buf, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      end if
    end do
    if (s >= 1) then
      t(s) = (MPI_Wtime() - t0) * 1d6 / iters / merge(2, window, test == 'lat')
    end if
  end do
  call sort(t)
  med = t(samples / 2)
  p99 = t(samples * 99 / 100)
  if (rank == 0) print '(a,",",i0,",",f0.4,",",f0.4,",",f0.2)', trim(test), n, med, p99, n / med
  call MPI_Finalize()
contains
  subroutine sort(a)
    double precision, intent(inout) :: a(:)
    integer :: j, k
    double precision :: x
    do j = 2, size(a)
      x = a(j)
      k = j - 1
      do while (k >= 1)
        if (a(k) <= x) exit
        a(k + 1) = a(k)
        k = k - 1
      end do
      a(k + 1) = x
    end do
  end subroutine
end program
