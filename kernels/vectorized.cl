// vectorized: the last rung of the ladder. A work-group computes a TILE_M x TILE_N block of C,
// stepping through K in slices of TILE_K; each work-item computes ITEM_M x ITEM_N outputs as
// a sum of outer products held in registers (as in coarsened, but rectangular). On top of that:
//   - global loads move VEC floats at a time (float4 or float8),
//   - local memory holds two pages of tiles (double buffering): while the work-group computes
//     on one page, each work-item already holds the next slice of A and B in registers, and
//     stores it into the other page afterwards, so one barrier per K step suffices and the
//     global loads of step t+1 overlap the arithmetic of step t.
// Slices that stick out of the matrices are filled with zeros, element by element. Either
// operand may be transposed (TRANS_A, TRANS_B): vector loads follow its contiguous dimension.
#include "gemm_common.clh"

#ifndef TILE_M
#define TILE_M 64 // rows of C per work-group
#endif
#ifndef TILE_N
#define TILE_N 64 // columns of C per work-group
#endif
#ifndef TILE_K
#define TILE_K 16 // depth of one K step
#endif
#ifndef ITEM_M
#define ITEM_M 4 // rows of C per work-item
#endif
#ifndef ITEM_N
#define ITEM_N 4 // columns of C per work-item
#endif
#ifndef VEC
#define VEC 4 // floats per global load: 1, 2, 4, 8 or 16
#endif

#define WG_M (TILE_M / ITEM_M)  // work-items along M (dimension 1)
#define WG_N (TILE_N / ITEM_N)  // work-items along N (dimension 0)
#define THREADS (WG_M * WG_N)
#define A_LOADS (TILE_M * TILE_K / VEC / THREADS) // vectors of A each work-item fetches per step
#define B_LOADS (TILE_K * TILE_N / VEC / THREADS) // vectors of B each work-item fetches per step

#include "tile_loading.clh"

__kernel __attribute__((reqd_work_group_size(WG_N, WG_M, 1))) void gemm_vectorized(
    GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int tid = ty * WG_N + tx;
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
  A += a_offset;
  B += b_offset;

  __local float a_pages[2][TILE_K][TILE_M];
  __local float b_pages[2][TILE_K][TILE_N];
  floatV a_next[A_LOADS], b_next[B_LOADS];

  float acc[ITEM_M][ITEM_N];
  for (int i = 0; i < ITEM_M; ++i)
    for (int j = 0; j < ITEM_N; ++j) acc[i][j] = 0.0f;

  const int steps = (K + TILE_K - 1) / TILE_K;
  fetch_a_slice(A, lda, M, K, row0, 0, tid, a_next);
  fetch_b_slice(B, ldb, N, K, col0, 0, tid, b_next);
  store_a_slice(&a_pages[0][0][0], tid, a_next);
  store_b_slice(&b_pages[0][0][0], tid, b_next);
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int step = 0; step < steps; ++step) {
    const int page = step & 1;
    const bool more = step + 1 < steps;
    if (more) {
      fetch_a_slice(A, lda, M, K, row0, (step + 1) * TILE_K, tid, a_next);
      fetch_b_slice(B, ldb, N, K, col0, (step + 1) * TILE_K, tid, b_next);
    }

    for (int k = 0; k < TILE_K; ++k) {
      float a_reg[ITEM_M], b_reg[ITEM_N];
      for (int i = 0; i < ITEM_M; ++i) a_reg[i] = a_pages[page][k][ty + i * WG_M];
      for (int j = 0; j < ITEM_N; ++j) b_reg[j] = b_pages[page][k][tx + j * WG_N];
      for (int i = 0; i < ITEM_M; ++i)
        for (int j = 0; j < ITEM_N; ++j) acc[i][j] = mad(a_reg[i], b_reg[j], acc[i][j]);
    }

    // The other page was last read before the previous barrier, so it is free to overwrite.
    if (more) {
      store_a_slice(&a_pages[page ^ 1][0][0], tid, a_next);
      store_b_slice(&b_pages[page ^ 1][0][0], tid, b_next);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < ITEM_M; ++i) {
    const int row = row0 + ty + i * WG_M;
    if (row >= M) continue;
    for (int j = 0; j < ITEM_N; ++j) {
      const int col = col0 + tx + j * WG_N;
      if (col < N) store_c(C, c_offset + (size_t)row * ldc + col, row, col, acc[i][j], alpha, beta,
                             epilogue);
    }
  }
}
