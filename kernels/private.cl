// private: like row (one work-item per row of C), with the work-item's row of A staged in a
// private array so it is read from global memory once instead of N times. K is processed in
// chunks of PRIVATE_K: for each chunk, the chunk of A is staged, then every column of C gets
// that chunk's partial dot product. The first chunk applies beta; later chunks add to C, and
// the last applies the epilogue.
#include "gemm_common.clh"

#ifndef WG
#define WG 64 // work-items per work-group
#endif
#ifndef PRIVATE_K
#define PRIVATE_K 256 // elements of A's row held in private memory at once
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_private(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int row = get_global_id(0);
  if (row >= M) return;

  A += a_offset;
  B += b_offset;
  __global float *c = C + c_offset + (size_t)row * ldc;
  if (K == 0) {  // a product of alpha = 0: C = beta * C with the epilogue, A and B unread
    for (int col = 0; col < N; ++col)
      c[col] = apply_epilogue(epilogue, row, col, blend_c(c, col, 0.0f, alpha, beta));
    return;
  }
  float a_chunk[PRIVATE_K];

  for (int k0 = 0; k0 < K; k0 += PRIVATE_K) {
    const int chunk = min(PRIVATE_K, K - k0);
    for (int k = 0; k < chunk; ++k) a_chunk[k] = A_AT(row, k0 + k);

    for (int col = 0; col < N; ++col) {
      float acc = 0.0f;
      for (int k = 0; k < chunk; ++k) acc = mad(a_chunk[k], B_AT(k0 + k, col), acc);
      // The first chunk blends in beta * C, later ones add to it; the last applies the epilogue.
      const float v = k0 == 0 ? blend_c(c, col, acc, alpha, beta) : mad(alpha, acc, c[col]);
      c[col] = k0 + chunk >= K ? apply_epilogue(epilogue, row, col, v) : v;
    }
  }
}
