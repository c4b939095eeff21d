// The reference SGEMM's argument checks (see argument_check.hpp).
#include "argument_check.hpp"

#include <algorithm>

namespace clgemm::blas {

char transpose_letter(char letter) {
  switch (letter) {
    case 'N':
    case 'n':
      return 'N';
    case 'T':
    case 't':
    case 'C':
    case 'c':
      return 'T';
    default:
      return 0;
  }
}

int fortran_error_position(char trans_a, char trans_b, int m, int n, int k, int lda, int ldb,
                           int ldc) {
  const char op_a = transpose_letter(trans_a), op_b = transpose_letter(trans_b);
  if (!op_a) return 1;
  if (!op_b) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  const int rows_a = op_a == 'N' ? m : k;
  const int rows_b = op_b == 'N' ? k : n;
  if (lda < std::max(1, rows_a)) return 8;
  if (ldb < std::max(1, rows_b)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

namespace {

char cblas_letter(int transpose) {
  switch (transpose) {
    case kCblasNoTrans:
      return 'N';
    case kCblasTrans:
    case kCblasConjTrans:
      return 'T';
    default:
      return 0;
  }
}

}  // namespace

int cblas_error_position(int order, int trans_a, int trans_b, int m, int n, int k, int lda, int ldb,
                         int ldc) {
  if (order != kCblasColMajor && order != kCblasRowMajor) return 1;
  const char op_a = cblas_letter(trans_a), op_b = cblas_letter(trans_b);
  if (!op_a) return 2;
  if (!op_b) return 3;
  if (order == kCblasColMajor) {
    const int position = fortran_error_position(op_a, op_b, m, n, k, lda, ldb, ldc);
    return position ? position + 1 : 0;
  }
  // Row-major: C^T = op(B)^T op(A)^T, the Fortran call with A and B (and M and N) swapped.
  const int position = fortran_error_position(op_b, op_a, n, m, k, ldb, lda, ldc);
  switch (position) {
    case 0:
      return 0;
    case 3:
      return 5;  // the Fortran call's M is the caller's N
    case 4:
      return 4;  // its N is the caller's M
    case 8:
      return 11;  // its LDA is the caller's ldb
    case 10:
      return 9;  // its LDB is the caller's lda
    default:
      return position + 1;
  }
}

}  // namespace clgemm::blas
