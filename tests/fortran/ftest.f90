! tests/fortran/ftest.f90: helpers shared by the Fortran MPI test programs.
! No MPI in here, so one module serves all three binding styles: an error
! counter, checks that print "[rank R] test: what (got G, want W)" to
! stderr on failure, and the final " No Errors" / " Found N errors" line,
! which rank 0 prints from the error total that each program sums with
! MPI_Allreduce itself (the convention of the C tests in tests/mpi).
module ftest
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit, int64
  implicit none
  private
  integer, public :: ft_rank = -1    ! set by the program after MPI_Comm_rank
  integer, public :: ft_errors = 0   ! failed checks on this rank
  character(len=32), public :: ft_name = '?'
  public :: ft_fail, ft_check, ft_check_int, ft_check_real, ft_report
  interface ft_check_int
    module procedure check_int4, check_int8
  end interface
contains
  subroutine ft_fail(what)
    character(len=*), intent(in) :: what
    ft_errors = ft_errors + 1
    write (error_unit, '(a,i0,a,a,a,a)') '[rank ', ft_rank, '] ', trim(ft_name), ': ', what
    flush (error_unit)
  end subroutine ft_fail

  subroutine ft_check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) call ft_fail(what)
  end subroutine ft_check

  subroutine check_int4(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=64) :: msg
    if (got /= want) then
      write (msg, '(a,i0,a,i0,a)') ' (got ', got, ', want ', want, ')'
      call ft_fail(what // trim(msg))
    end if
  end subroutine check_int4

  subroutine check_int8(got, want, what)
    integer(int64), intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=64) :: msg
    if (got /= want) then
      write (msg, '(a,i0,a,i0,a)') ' (got ', got, ', want ', want, ')'
      call ft_fail(what // trim(msg))
    end if
  end subroutine check_int8

  ! |got - want| <= tol * max(1, |want|)
  subroutine ft_check_real(got, want, tol, what)
    double precision, intent(in) :: got, want, tol
    character(len=*), intent(in) :: what
    character(len=96) :: msg
    if (.not. abs(got - want) <= tol * max(1d0, abs(want))) then
      write (msg, '(a,es23.15,a,es23.15,a)') ' (got ', got, ', want ', want, ')'
      call ft_fail(what // trim(msg))
    end if
  end subroutine ft_check_real

  ! rank 0 calls it with the sum of ft_errors over all ranks
  subroutine ft_report(total)
    integer, intent(in) :: total
    if (total == 0) then
      write (output_unit, '(a)') ' No Errors'
    else
      write (output_unit, '(a,i0,a)') ' Found ', total, ' errors'
    end if
    flush (output_unit)
  end subroutine ft_report
end module ftest
