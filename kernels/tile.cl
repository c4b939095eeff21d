// tile: TILE x TILE work-groups that stage TILE x TILE tiles of A and B in local memory. Each
// element fetched from global memory is reused TILE times from local memory, cutting global
// traffic by a factor of TILE compared to base. Out-of-range elements load as zero. Loads
// walk each operand along its contiguous dimension, so they coalesce whether or not it is
// transposed.
#include "gemm_common.clh"

#ifndef TILE
#define TILE 16 // tile edge: the work-group is TILE x TILE work-items
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void gemm_tile(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int tx = get_local_id(0); // column within the tile
  const int ty = get_local_id(1); // row within the tile
  const int col0 = get_group_id(0) * TILE, col = col0 + tx;
  const int row0 = get_group_id(1) * TILE, row = row0 + ty;
  A += a_offset;
  B += b_offset;

  __local float a_tile[TILE][TILE]; // [m][k]
  __local float b_tile[TILE][TILE]; // [k][n]
  float acc = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE) {
#if TRANS_A
    a_tile[tx][ty] = (row0 + tx < M && k0 + ty < K) ? A_AT(row0 + tx, k0 + ty) : 0.0f;
#else
    a_tile[ty][tx] = (row < M && k0 + tx < K) ? A_AT(row, k0 + tx) : 0.0f;
#endif
#if TRANS_B
    b_tile[tx][ty] = (k0 + tx < K && col0 + ty < N) ? B_AT(k0 + tx, col0 + ty) : 0.0f;
#else
    b_tile[ty][tx] = (k0 + ty < K && col < N) ? B_AT(k0 + ty, col) : 0.0f;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < TILE; ++k) acc = mad(a_tile[ty][k], b_tile[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  if (row < M && col < N)
    store_c(C, c_offset + (size_t)row * ldc + col, row, col, acc, alpha, beta, epilogue);
}
