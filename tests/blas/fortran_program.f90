! A Fortran program that multiplies through SGEMM, as LAPACK-style code does: every transpose
! letter in both cases, a leading dimension larger than the matrix, checked against a plain
! double-precision loop. Stops with status 1 on a wrong element. The tests build it twice:
! linked to libclgemm_blas ahead of OpenBLAS, and linked to OpenBLAS alone to be run with
! libclgemm_blas preloaded.
program fortran_sgemm_check
  implicit none
  integer, parameter :: m = 83, n = 47, k = 65, ld = 100
  real :: a(ld, ld), b(ld, ld), c(ld, ld), c0(ld, ld)
  real, parameter :: alpha = 0.75, beta = 1.5
  character(len=4), parameter :: letters = 'NnTt'
  integer :: i, j, l, p, q, bad
  double precision :: sum, magnitude, x, y, expected
  character :: ta, tb

  bad = 0
  do j = 1, ld
    do i = 1, ld
      a(i, j) = real(mod(i * 7 + j * 3, 17)) / 8.0 - 1.0
      b(i, j) = real(mod(i * 5 + j * 11, 13)) / 6.0 - 1.0
      c0(i, j) = real(mod(i + j, 9)) / 4.0 - 1.0
    end do
  end do
  do p = 1, 4
    do q = 1, 4
      ta = letters(p:p)
      tb = letters(q:q)
      c = c0
      call sgemm(ta, tb, m, n, k, alpha, a, ld, b, ld, beta, c, ld)
      do j = 1, n
        do i = 1, m
          sum = 0
          magnitude = 0
          do l = 1, k
            if (ta == 'N' .or. ta == 'n') then
              x = a(i, l)
            else
              x = a(l, i)
            end if
            if (tb == 'N' .or. tb == 'n') then
              y = b(l, j)
            else
              y = b(j, l)
            end if
            sum = sum + x * y
            magnitude = magnitude + abs(x * y)
          end do
          expected = alpha * sum + beta * c0(i, j)
          if (abs(c(i, j) - expected) > 1d-5 * (k + 2) * (magnitude + 1)) then
            if (bad < 3) print *, 'fortran_program: ', ta, tb, ' C(', i, ',', j, ') =', c(i, j), &
              ' expected', expected
            bad = bad + 1
          end if
        end do
      end do
    end do
  end do
  if (bad /= 0) then
    print *, 'fortran_program: WRONG PRODUCTS'
    stop 1
  end if
  print *, 'fortran_program: all products correct'
end program fortran_sgemm_check
