// coarsened: each work-item computes a BATCH x BATCH block of C as a sum of outer products.
// Per step k it holds BATCH values of A (a column slice) and BATCH values of B (a row slice) in
// registers and updates BATCH * BATCH accumulators, so each local-memory read feeds BATCH
// multiply-adds instead of one. A work-group of (TILE/BATCH)^2 work-items covers a TILE x TILE
// block of C, streaming TILE x TILE tiles of A and B through local memory.
//
// A work-item owns the rows ty + i * WG and columns tx + j * WG of its tile (strided, not
// contiguous), so neighbouring work-items touch neighbouring addresses: global loads and
// stores coalesce and local reads are free of bank conflicts.
#include "gemm_common.clh"

#ifndef TILE
#define TILE 64 // edge of the block of C per work-group, and the depth of each K step
#endif
#ifndef BATCH
#define BATCH 4 // edge of the block of C per work-item
#endif
#define WG (TILE / BATCH) // work-group edge in work-items

__kernel __attribute__((reqd_work_group_size(WG, WG, 1))) void gemm_coarsened(GEMM_PARAMETERS) {
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int col0 = get_group_id(0) * TILE;
  const int row0 = get_group_id(1) * TILE;
  A += a_offset;
  B += b_offset;

  __local float a_tile[TILE][TILE + 1]; // [k][m]: A transposed, padded against bank conflicts
  __local float b_tile[TILE][TILE];     // [k][n]

  float acc[BATCH][BATCH];
  for (int i = 0; i < BATCH; ++i)
    for (int j = 0; j < BATCH; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE) {
    for (int i = 0; i < BATCH; ++i) {
      for (int j = 0; j < BATCH; ++j) {
        const int r = ty + i * WG; // row of the tile: m for A, k for B
        const int c = tx + j * WG; // column of the tile: k for A, n for B
        const int a_row = row0 + r, a_col = k0 + c;
        const int b_row = k0 + r, b_col = col0 + c;
        a_tile[c][r] = (a_row < M && a_col < K) ? A[(size_t)a_row * lda + a_col] : 0.0f;
        b_tile[r][c] = (b_row < K && b_col < N) ? B[(size_t)b_row * ldb + b_col] : 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < TILE; ++k) {
      float a_reg[BATCH], b_reg[BATCH];
      for (int i = 0; i < BATCH; ++i) a_reg[i] = a_tile[k][ty + i * WG];
      for (int j = 0; j < BATCH; ++j) b_reg[j] = b_tile[k][tx + j * WG];
      for (int i = 0; i < BATCH; ++i)
        for (int j = 0; j < BATCH; ++j) acc[i][j] = mad(a_reg[i], b_reg[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < BATCH; ++i) {
    const int row = row0 + ty + i * WG;
    if (row >= M) continue;
    for (int j = 0; j < BATCH; ++j) {
      const int col = col0 + tx + j * WG;
      if (col < N) store_c(C, c_offset + (size_t)row * ldc + col, acc[i][j], alpha, beta);
    }
  }
}
