// row: one work-item per row of C. Each work-item reuses its row of A for all N columns, but
// consecutive work-items read B's columns in lock-step and write C rows far apart, so there is
// little parallelism (M work-items) and poor coalescing: a lesson in what not to map.
#include "gemm_common.clh"

#ifndef WG
#define WG 64 // work-items per work-group
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_row(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int row = get_global_id(0);
  if (row >= M) return;

  A += a_offset;
  B += b_offset;
  const size_t c_row = c_offset + (size_t)row * ldc;
  for (int col = 0; col < N; ++col) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = mad(A_AT(row, k), B_AT(k, col), acc);
    store_c(C, c_row + col, row, col, acc, alpha, beta, epilogue);
  }
}
