// The CBLAS entry point cblas_sgemm: both storage orders, its argument checks numbered and
// reported as reference CBLAS reports them (cblas_xerbla), then the call handed to the
// dispatcher in column-major form (a row-major call as C^T = op(B)^T op(A)^T).
#include "argument_check.hpp"
#include "blas_call.hpp"
#include "dispatch.hpp"
#include "error_report.hpp"

extern "C" __attribute__((visibility("default"))) void cblas_sgemm(int order, int trans_a,
                                                                   int trans_b, int m, int n, int k,
                                                                   float alpha, const float* a,
                                                                   int lda, const float* b, int ldb,
                                                                   float beta, float* c, int ldc) {
  using namespace clgemm::blas;
  const int position = cblas_error_position(order, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  if (position) {
    report_cblas_error(position);
    return;
  }
  const char op_a = trans_a == kCblasNoTrans ? 'N' : 'T';
  const char op_b = trans_b == kCblasNoTrans ? 'N' : 'T';
  BlasCall call;
  call.symbol = "cblas_sgemm";
  call.alpha = alpha;
  call.beta = beta;
  call.k = k;
  call.c = c;
  call.ldc = ldc;
  if (order == kCblasColMajor) {
    call.order = BlasCall::Order::ColMajor;
    call.trans_a = op_a;
    call.trans_b = op_b;
    call.m = m;
    call.n = n;
    call.a = a;
    call.lda = lda;
    call.b = b;
    call.ldb = ldb;
  } else {
    call.order = BlasCall::Order::RowMajor;
    call.trans_a = op_b;
    call.trans_b = op_a;
    call.m = n;
    call.n = m;
    call.a = b;
    call.lda = ldb;
    call.b = a;
    call.ldb = lda;
  }
  execute(call);
}
