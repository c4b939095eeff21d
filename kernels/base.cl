// base: the textbook GEMM. One work-item per element of C walks a row of A and a column of B
// straight from global memory. Every operand is fetched K times over the whole grid, so the
// kernel is bound by memory traffic; it is the baseline the rest of the ladder improves on.
#include "gemm_common.clh"

#ifndef WG_X
#define WG_X 16 // work-group width (columns of C), chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // work-group height (rows of C), chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void gemm_base(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int col = get_global_id(0);
  const int row = get_global_id(1);
  if (row >= M || col >= N) return;

  A += a_offset;
  B += b_offset;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = mad(A_AT(row, k), B_AT(k, col), acc);
  store_c(C, c_offset + (size_t)row * ldc + col, row, col, acc, alpha, beta, epilogue);
}
