// private: like row (one work-item per row of C), with the work-item's row of A staged in a
// private array so it is read from global memory once instead of N times. K is processed in
// chunks of PRIVATE_K: for each chunk, the chunk of A is staged, then every column of C gets
// that chunk's partial dot product. The first chunk applies beta; later chunks add to C.
#include "gemm_common.clh"

#ifndef WG
#define WG 64 // work-items per work-group
#endif
#ifndef PRIVATE_K
#define PRIVATE_K 256 // elements of A's row held in private memory at once
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_private(GEMM_PARAMETERS) {
  const int row = get_global_id(0);
  if (row >= M) return;

  A += a_offset;
  B += b_offset;
  __global float *c = C + c_offset + (size_t)row * ldc;
  float a_chunk[PRIVATE_K];

  for (int k0 = 0; k0 < K; k0 += PRIVATE_K) {
    const int chunk = min(PRIVATE_K, K - k0);
    for (int k = 0; k < chunk; ++k) a_chunk[k] = A_AT(row, k0 + k);

    for (int col = 0; col < N; ++col) {
      float acc = 0.0f;
      for (int k = 0; k < chunk; ++k) acc = mad(a_chunk[k], B_AT(k0 + k, col), acc);
      if (k0 == 0)
        store_c(c, col, acc, alpha, beta);
      else
        c[col] = mad(alpha, acc, c[col]);
    }
  }
}
