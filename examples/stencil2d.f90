! stencil2d.f90: demonstration program in Fortran (mpi_f08): a 2-D
! five-point Jacobi stencil (steady heat flow) on an N x N grid with fixed
! boundary values, split into blocks over a 2-D process grid made by
! MPI_Dims_create and MPI_Cart_create. Each iteration exchanges the four
! edges of every block with MPI_Sendrecv: the edges along the first index
! are strided in the column-major array and go as one MPI_Type_vector, the
! others are contiguous. MPI_Cart_shift gives MPI_PROC_NULL at the edges of
! the grid, so the exchange needs no special cases. MPI_Allreduce gives the
! last change, MPI_Gatherv brings the blocks to rank 0, which repeats the
! iterations serially and compares.
!
! usage: stencil2d [-n N] [-i iterations]
! Prints "stencil2d: P ranks (PX x PY), grid N^2, I iterations,
! T us/iteration, last change C, max error E: PASSED" (or FAILED, exit status 1), then
! " No Errors" when it passed (the line tests/run_tests.sh looks for).
program stencil2d
  use mpi_f08
  implicit none
  double precision, parameter :: tolerance = 1d-12
  integer :: n = 64, iters = 200
  integer :: rank, nproc, dims(2), coords(2), lo(2), len(2), down(2), up(2), d, it, r
  integer :: nx, ny
  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: edge_x ! u(k, 1:ny) for one k: ny values nx+2 apart
  double precision, allocatable :: u(:, :), unew(:, :), mine(:), gathered(:), full(:, :), ref(:, :)
  integer, allocatable :: info(:), counts(:), displs(:)
  double precision :: t0, t1, change, err
  logical :: ok

  call read_args()
  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  dims = 0
  call MPI_Dims_create(nproc, 2, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .false.], .true., cart)
  call MPI_Comm_rank(cart, rank)
  call MPI_Cart_coords(cart, rank, 2, coords)
  do d = 1, 2
    call split(n, dims(d), coords(d), lo(d), len(d))
    call MPI_Cart_shift(cart, d - 1, 1, down(d), up(d))
  end do
  nx = len(1)
  ny = len(2)

  ! the block with a one-point halo; halo points on the grid's boundary
  ! hold the fixed boundary values
  allocate (u(0:nx + 1, 0:ny + 1), unew(0:nx + 1, 0:ny + 1))
  call boundary(u, lo(1) - 1, lo(2) - 1, n)
  unew = u
  call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, edge_x)
  call MPI_Type_commit(edge_x)

  call MPI_Barrier(cart)
  t0 = MPI_Wtime()
  do it = 1, iters
    call exchange()
    call sweep(u, unew, nx, ny, change)
    call swap(u, unew)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
  t1 = MPI_Wtime()

  ! blocks to rank 0: first where each lies (lo, len), then the values
  allocate (info(4 * nproc), counts(nproc), displs(nproc))
  call MPI_Gather([lo, len], 4, MPI_INTEGER, info, 4, MPI_INTEGER, 0, cart)
  mine = reshape(u(1:nx, 1:ny), [nx * ny])
  if (rank == 0) then
    do r = 1, nproc
      counts(r) = info(4 * r - 1) * info(4 * r)
    end do
    displs(1) = 0
    do r = 2, nproc
      displs(r) = displs(r - 1) + counts(r - 1)
    end do
    allocate (gathered(sum(counts)))
  else
    allocate (gathered(1))
  end if
  call MPI_Gatherv(mine, nx * ny, MPI_DOUBLE_PRECISION, gathered, counts, displs, &
                   MPI_DOUBLE_PRECISION, 0, cart)

  ok = .true.
  if (rank == 0) then
    allocate (full(n, n))
    do r = 1, nproc
      associate (rlo => info(4 * r - 3:4 * r - 2), rlen => info(4 * r - 1:4 * r))
        full(rlo(1):rlo(1) + rlen(1) - 1, rlo(2):rlo(2) + rlen(2) - 1) = &
          reshape(gathered(displs(r) + 1:displs(r) + counts(r)), [rlen(1), rlen(2)])
      end associate
    end do
    ! the same iterations on the whole grid
    allocate (ref(0:n + 1, 0:n + 1))
    call boundary(ref, 0, 0, n)
    deallocate (unew)
    allocate (unew(0:n + 1, 0:n + 1))
    unew = ref
    do it = 1, iters
      call sweep(ref, unew, n, n, err)
      call swap(ref, unew)
    end do
    err = maxval(abs(full - ref(1:n, 1:n)))
    ok = err <= tolerance
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,f0.1,a,es8.2,a,es8.2,a,a)') 'stencil2d: ', nproc, &
      ' ranks (', dims(1), ' x ', dims(2), '), grid ', n, '^2, ', iters, ' iterations, ', &
      (t1 - t0) / max(iters, 1) * 1d6, ' us/iteration, last change ', change, &
      ', max error ', err, ': ', merge('PASSED', 'FAILED', ok)
    if (ok) write (*, '(a)') ' No Errors'
  end if
  call MPI_Bcast(ok, 1, MPI_LOGICAL, 0, cart)
  call MPI_Type_free(edge_x)
  call MPI_Comm_free(cart)
  call MPI_Finalize()
  ! a main program's allocatables live on (they are saved): free them
  if (allocated(full)) deallocate (full)
  if (allocated(ref)) deallocate (ref)
  if (allocated(mine)) deallocate (mine)
  deallocate (u, unew, info, counts, displs, gathered)
  if (.not. ok) stop 1

contains

  subroutine read_args()
    character(len=32) :: arg, val
    integer :: k, stat
    k = 1
    do while (k <= command_argument_count())
      call get_command_argument(k, arg)
      call get_command_argument(k + 1, val)
      select case (arg)
      case ('-n')
        read (val, *, iostat=stat) n
      case ('-i')
        read (val, *, iostat=stat) iters
      case default
        stat = 1
      end select
      if (stat /= 0 .or. n < 1 .or. iters < 0) then
        write (*, '(a)') 'usage: stencil2d [-n N] [-i iterations]'
        stop 2
      end if
      k = k + 2
    end do
  end subroutine read_args

  ! n points over p parts: part c (0-based) gets lo (1-based) and len; the
  ! first n mod p parts one more
  subroutine split(n, p, c, lo, len)
    integer, intent(in) :: n, p, c
    integer, intent(out) :: lo, len
    len = n / p
    if (c < mod(n, p)) len = len + 1
    lo = c * (n / p) + min(c, mod(n, p)) + 1
  end subroutine split

  ! v(0:, 0:) covers global points (i0 + 0 .. , j0 + 0 ..); zero inside, on
  ! the boundary u(x, n+1) = x/(n+1) and u(n+1, y) = y/(n+1), 0 elsewhere
  subroutine boundary(v, i0, j0, n)
    double precision, intent(out) :: v(0:, 0:)
    integer, intent(in) :: i0, j0, n
    integer :: i, j, gi, gj
    do j = 0, ubound(v, 2)
      do i = 0, ubound(v, 1)
        gi = i0 + i
        gj = j0 + j
        v(i, j) = 0
        if (gj == n + 1) v(i, j) = dble(gi) / (n + 1)
        if (gi == n + 1) v(i, j) = dble(gj) / (n + 1)
      end do
    end do
  end subroutine boundary

  ! the four halo edges of u (the current block); MPI_PROC_NULL neighbours
  ! make no-ops. Buffers are elements of u, which is contiguous (allocatable).
  subroutine exchange()
    ! along the first index: u(nx, 1:ny) up, into u(0, 1:ny) from down, ...
    call MPI_Sendrecv(u(nx, 1), 1, edge_x, up(1), 1, u(0, 1), 1, edge_x, down(1), 1, &
                      cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, 1), 1, edge_x, down(1), 2, u(nx + 1, 1), 1, edge_x, up(1), 2, &
                      cart, MPI_STATUS_IGNORE)
    ! along the second index: contiguous u(1:nx, k)
    call MPI_Sendrecv(u(1, ny), nx, MPI_DOUBLE_PRECISION, up(2), 3, u(1, 0), nx, &
                      MPI_DOUBLE_PRECISION, down(2), 3, cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, 1), nx, MPI_DOUBLE_PRECISION, down(2), 4, u(1, ny + 1), nx, &
                      MPI_DOUBLE_PRECISION, up(2), 4, cart, MPI_STATUS_IGNORE)
  end subroutine exchange

  subroutine sweep(v, vnew, mx, my, change)
    integer, intent(in) :: mx, my
    double precision, intent(in) :: v(0:, 0:)
    double precision, intent(inout) :: vnew(0:, 0:)
    double precision, intent(out) :: change
    integer :: i, j
    change = 0
    do j = 1, my
      do i = 1, mx
        vnew(i, j) = 0.25d0 * (v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1))
        change = max(change, abs(vnew(i, j) - v(i, j)))
      end do
    end do
  end subroutine sweep

  subroutine swap(a, b)
    double precision, allocatable, intent(inout) :: a(:, :), b(:, :)
    double precision, allocatable :: t(:, :)
    call move_alloc(a, t)
    call move_alloc(b, a)
    call move_alloc(t, b)
  end subroutine swap
end program stencil2d
