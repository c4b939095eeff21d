// The reference SGEMM's argument checks, with its parameter numbers: the Fortran interface's
// (TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13) and CBLAS's (Order 1, TransA 2,
// TransB 3, M 4, N 5, K 6, lda 9, ldb 11, ldc 14, reported as reference CBLAS reports them for
// a row-major call, which it hands to the Fortran routine with the operands swapped).
#pragma once

namespace clgemm::blas {

// The CBLAS enumerations' values (cblas.h).
constexpr int kCblasRowMajor = 101, kCblasColMajor = 102;
constexpr int kCblasNoTrans = 111, kCblasTrans = 112, kCblasConjTrans = 113;

// 'N' for N or n, 'T' for T, t, C or c; 0 for anything else.
char transpose_letter(char letter);

// The first parameter a Fortran SGEMM call gets wrong, in the reference order, or 0.
int fortran_error_position(char trans_a, char trans_b, int m, int n, int k, int lda, int ldb,
                           int ldc);

// The first parameter a cblas_sgemm call gets wrong, numbered as reference CBLAS numbers it,
// or 0. In a row-major call the reference checks TransA (2) and TransB (3) first, then the
// swapped Fortran call, whose complaints about its M/N and its LDA/LDB name the caller's
// N/M (5/4) and ldb/lda (11/9).
int cblas_error_position(int order, int trans_a, int trans_b, int m, int n, int k, int lda, int ldb,
                         int ldc);

}  // namespace clgemm::blas
