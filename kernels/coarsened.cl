// coarsened: each work-item computes an ITEM x ITEM block of C as a sum of outer products.
// Per step k it holds ITEM values of A (a column slice) and ITEM values of B (a row slice) in
// registers and updates ITEM * ITEM accumulators, so each local-memory read feeds ITEM
// multiply-adds instead of one. A work-group of (TILE/ITEM)^2 work-items covers a TILE x TILE
// block of C, streaming TILE x TILE tiles of A and B through local memory.
//
// A work-item owns the rows ty + i * WG and columns tx + j * WG of its tile (strided, not
// contiguous), so neighbouring work-items touch neighbouring addresses: global loads and
// stores coalesce and local reads are free of bank conflicts.
#include "gemm_common.clh"

#ifndef TILE
#define TILE 64 // edge of the block of C per work-group, and the depth of each K step
#endif
#ifndef ITEM
#define ITEM 4 // edge of the block of C per work-item
#endif
#define WG (TILE / ITEM) // work-group edge in work-items

__kernel __attribute__((reqd_work_group_size(WG, WG, 1))) void gemm_coarsened(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int col0 = get_group_id(0) * TILE;
  const int row0 = get_group_id(1) * TILE;
  A += a_offset;
  B += b_offset;

  __local float a_tile[TILE][TILE + 1]; // [k][m]: A transposed, padded against bank conflicts
  __local float b_tile[TILE][TILE + 1]; // [k][n], padded for the transposed store

  float acc[ITEM][ITEM];
  for (int i = 0; i < ITEM; ++i)
    for (int j = 0; j < ITEM; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE) {
    for (int i = 0; i < ITEM; ++i) {
      for (int j = 0; j < ITEM; ++j) {
        // c follows tx, so it walks each operand's contiguous dimension: loads coalesce.
        const int r = ty + i * WG;
        const int c = tx + j * WG;
#if TRANS_A
        const int m = c, k = r;
#else
        const int m = r, k = c;
#endif
        a_tile[k][m] = (row0 + m < M && k0 + k < K) ? A_AT(row0 + m, k0 + k) : 0.0f;
#if TRANS_B
        const int kb = c, n = r;
#else
        const int kb = r, n = c;
#endif
        b_tile[kb][n] = (k0 + kb < K && col0 + n < N) ? B_AT(k0 + kb, col0 + n) : 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < TILE; ++k) {
      float a_reg[ITEM], b_reg[ITEM];
      for (int i = 0; i < ITEM; ++i) a_reg[i] = a_tile[k][ty + i * WG];
      for (int j = 0; j < ITEM; ++j) b_reg[j] = b_tile[k][tx + j * WG];
      for (int i = 0; i < ITEM; ++i)
        for (int j = 0; j < ITEM; ++j) acc[i][j] = mad(a_reg[i], b_reg[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < ITEM; ++i) {
    const int row = row0 + ty + i * WG;
    if (row >= M) continue;
    for (int j = 0; j < ITEM; ++j) {
      const int col = col0 + tx + j * WG;
      if (col < N) store_c(C, c_offset + (size_t)row * ldc + col, row, col, acc[i][j], alpha, beta,
                             epilogue);
    }
  }
}
