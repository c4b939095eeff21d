// One SGEMM call as the BLAS entry points hand it on: the column-major Fortran form (a CBLAS
// row-major call arrives with its operands swapped), with its arguments already checked, plus
// what the trace says about where it came from.
#pragma once

#include <cstddef>

namespace clgemm::blas {

struct BlasCall {
  const char* symbol = "sgemm_";  // the entry point the program called
  // cblas_sgemm's order as the caller gave it; a row-major call arrives here as the column-major
  // call C^T = op(B)^T op(A)^T (A and B, M and N, and the transposes swapped).
  enum class Order { Fortran, ColMajor, RowMajor } order = Order::Fortran;
  char trans_a = 'N', trans_b = 'N';  // 'N' or 'T' ('C' is 'T' for real data)
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int lda = 1, ldb = 1, ldc = 1;

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Bytes the device path moves: A and B up, C down, and C up as well when beta != 0.
  double transfer_bytes() const {
    const double a_elements = double(trans_a == 'N' ? k : m) * double(lda);
    const double b_elements = double(trans_b == 'N' ? n : k) * double(ldb);
    const double c_elements = double(n) * double(ldc);
    return 4.0 * (a_elements + b_elements + c_elements * (beta != 0.0f ? 2.0 : 1.0));
  }
};

}  // namespace clgemm::blas
