// tile: TILE x TILE work-groups that stage TILE x TILE tiles of A and B in local memory. Each
// element fetched from global memory is reused TILE times from local memory, cutting global
// traffic by a factor of TILE compared to base. Out-of-range elements load as zero.
#include "gemm_common.clh"

#ifndef TILE
#define TILE 16 // tile edge: the work-group is TILE x TILE work-items
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void gemm_tile(GEMM_PARAMETERS) {
  const int tx = get_local_id(0); // column within the tile
  const int ty = get_local_id(1); // row within the tile
  const int col = get_group_id(0) * TILE + tx;
  const int row = get_group_id(1) * TILE + ty;
  A += a_offset;
  B += b_offset;

  __local float a_tile[TILE][TILE];
  __local float b_tile[TILE][TILE];
  float acc = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE) {
    a_tile[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * lda + k0 + tx] : 0.0f;
    b_tile[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * ldb + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < TILE; ++k) acc = mad(a_tile[ty][k], b_tile[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  if (row < M && col < N) store_c(C, c_offset + (size_t)row * ldc + col, acc, alpha, beta);
}
