// The Fortran entry points sgemm_ and sgemm (both, as NVBLAS exports them): the reference
// SGEMM's interface as gfortran calls it (column-major, every argument by reference, the
// lengths of the two character arguments passed last and not needed here), its argument
// checks reported through xerbla_, then the call handed to the dispatcher.
#include <cstddef>

#include "argument_check.hpp"
#include "blas_call.hpp"
#include "dispatch.hpp"
#include "error_report.hpp"

namespace clgemm::blas {

namespace {

void fortran_sgemm(const char* symbol, const char* trans_a, const char* trans_b, const int* m,
                   const int* n, const int* k, const float* alpha, const float* a, const int* lda,
                   const float* b, const int* ldb, const float* beta, float* c,
                   const int* ldc) noexcept {
  // A null argument (no Fortran program passes one) is reported as a bad value, not followed.
  const void* const scalars[] = {trans_a, trans_b, m,   n,    k,       alpha, nullptr,
                                 lda,     nullptr, ldb, beta, nullptr, ldc};
  for (int index = 0; index < 13; ++index)
    if (!scalars[index] && index != 6 && index != 8 && index != 11) {
      report_fortran_error(index + 1);
      return;
    }
  const int position = fortran_error_position(*trans_a, *trans_b, *m, *n, *k, *lda, *ldb, *ldc);
  if (position) {
    report_fortran_error(position);
    return;
  }
  BlasCall call;
  call.symbol = symbol;
  call.trans_a = transpose_letter(*trans_a);
  call.trans_b = transpose_letter(*trans_b);
  call.m = *m;
  call.n = *n;
  call.k = *k;
  call.alpha = *alpha;
  call.beta = *beta;
  call.a = a;
  call.b = b;
  call.c = c;
  call.lda = *lda;
  call.ldb = *ldb;
  call.ldc = *ldc;
  execute(call);
}

}  // namespace

}  // namespace clgemm::blas

extern "C" {

__attribute__((visibility("default"))) void sgemm_(const char* trans_a, const char* trans_b,
                                                   const int* m, const int* n, const int* k,
                                                   const float* alpha, const float* a,
                                                   const int* lda, const float* b, const int* ldb,
                                                   const float* beta, float* c, const int* ldc,
                                                   std::size_t, std::size_t) {
  clgemm::blas::fortran_sgemm("sgemm_", trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                              ldc);
}

__attribute__((visibility("default"))) void sgemm(const char* trans_a, const char* trans_b,
                                                  const int* m, const int* n, const int* k,
                                                  const float* alpha, const float* a,
                                                  const int* lda, const float* b, const int* ldb,
                                                  const float* beta, float* c, const int* ldc,
                                                  std::size_t, std::size_t) {
  clgemm::blas::fortran_sgemm("sgemm", trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                              ldc);
}

}  // extern "C"
