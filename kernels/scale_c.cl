// scale_c: C = act(beta * C + bias), the whole of a GEMM with nothing to multiply (K = 0 or
// alpha = 0; BLAS then reads neither A nor B, and this kernel never does). With beta = 0, C
// is not read, so NaN or garbage in C does not survive. It takes the GEMM kernels' arguments
// (A and B unused) so that batches and epilogues reach it the same way: one work-item per
// element of the row-major C, products along the third grid dimension; indices are size_t,
// so no size the host accepts can wrap them.
#include "gemm_common.clh"

#ifndef WG_X
#define WG_X 16 // work-group width (columns of C), chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // work-group height (rows of C), chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void scale_c(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int col = get_global_id(0);
  const int row = get_global_id(1);
  if (row >= M || col >= N) return;
  store_c(C, c_offset + (size_t)row * ldc + col, row, col, 0.0f, 0.0f, beta, epilogue);
}
