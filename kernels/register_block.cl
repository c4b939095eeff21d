// register_block: SGEMM for CPUs. Each work-item, alone in its work-group, keeps a ROWS x
// (VEC * VECTORS) block of C in vector registers and reads A and B straight from global memory,
// which on a CPU is its caches: for each k, VECTORS vector loads of op(B)'s row k, and each of
// its ROWS elements of op(A)'s column k broadcast into a multiply-add with them. No local
// memory and no barrier: an OpenCL CPU runtime keeps a work-item's private values across a
// barrier in memory, which caps the kernels that tile through local memory (blocked) at what
// that traffic allows, where this loop is the register-blocked inner kernel of a CPU BLAS.
//
// Blocks that stick out of C read B element by element, zero past N, and rows past M read A's
// last row (their results are never stored), so the loop itself never tests an edge.
#include "gemm_common.clh"

#ifndef ROWS
#define ROWS 16 // rows of C per work-item
#endif
#ifndef VEC
#define VEC 16 // floats per vector: 1, 2, 4, 8 or 16
#endif
#ifndef VECTORS
#define VECTORS 1 // vectors per row of C: 1, 2 or 4
#endif
#ifndef DOWN_ROWS_FIRST
#define DOWN_ROWS_FIRST 0 // 1: the work-groups go down C's rows first, 0: along them first
#endif

#define COLUMNS (VEC * VECTORS) // columns of C per work-item
#define JOIN(a, b) a##b
#define EXPAND_JOIN(a, b) JOIN(a, b)
#if VEC == 1
#define VECTOR float
#define LOAD_VECTOR(p) (*(p))
#else
#define VECTOR EXPAND_JOIN(float, VEC)
#define LOAD_VECTOR(p) EXPAND_JOIN(vload, VEC)(0, p)
#endif

// VEC floats of op(B)'s row k from column col on, element by element, zero from column N on.
inline VECTOR load_b_elements(__global const float *B, const int ldb, const int k, const int col,
                              const int N) {
  float elements[VEC];
  for (int e = 0; e < VEC; ++e) elements[e] = col + e < N ? B_AT(k, col + e) : 0.0f;
  return LOAD_VECTOR(elements);
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void gemm_register_block(
    GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  A += a_offset;
  B += b_offset;
#if DOWN_ROWS_FIRST
  // The work-groups in launch order go down C's rows first: consecutive ones share a panel of
  // B's columns (read from memory once) and take A's rows again from the caches.
  const int row_blocks = (M + ROWS - 1) / ROWS;
  const size_t linear = get_group_id(0) + get_group_id(1) * get_num_groups(0);
  const int col0 = (int)(linear / row_blocks) * COLUMNS;
  const int row0 = (int)(linear % row_blocks) * ROWS;
#else
  // Along C's rows first: consecutive work-groups share A's rows.
  const int col0 = get_group_id(0) * COLUMNS;
  const int row0 = get_group_id(1) * ROWS;
#endif
  // Rows past M repeat row M - 1 (read, never stored).
  int rows[ROWS];
  for (int i = 0; i < ROWS; ++i) rows[i] = min(row0 + i, M - 1);

  VECTOR acc[ROWS][VECTORS];
  for (int i = 0; i < ROWS; ++i)
    for (int v = 0; v < VECTORS; ++v) acc[i][v] = (VECTOR)(0.0f);

  if (!TRANS_B && col0 + COLUMNS <= N) {
    // Whole vectors of B's rows (B stored K x N).
    for (int k = 0; k < K; ++k) {
      VECTOR b[VECTORS];
#pragma unroll
      for (int v = 0; v < VECTORS; ++v) b[v] = LOAD_VECTOR(B + (size_t)k * ldb + col0 + v * VEC);
#pragma unroll
      for (int i = 0; i < ROWS; ++i) {
        const VECTOR a = (VECTOR)(A_AT(rows[i], k));
#pragma unroll
        for (int v = 0; v < VECTORS; ++v) acc[i][v] = mad(a, b[v], acc[i][v]);
      }
    }
  } else {
    // B transposed, or the block sticks out of C: B element by element.
    for (int k = 0; k < K; ++k) {
      VECTOR b[VECTORS];
      for (int v = 0; v < VECTORS; ++v) b[v] = load_b_elements(B, ldb, k, col0 + v * VEC, N);
      for (int i = 0; i < ROWS; ++i) {
        const VECTOR a = (VECTOR)(A_AT(rows[i], k));
        for (int v = 0; v < VECTORS; ++v) acc[i][v] = mad(a, b[v], acc[i][v]);
      }
    }
  }

  for (int i = 0; i < ROWS; ++i) {
    const int row = row0 + i;
    if (row >= M) break;
    for (int v = 0; v < VECTORS; ++v) {
      float out[VEC];
#if VEC == 1
      out[0] = acc[i][v];
#else
      EXPAND_JOIN(vstore, VEC)(acc[i][v], 0, out);
#endif
      for (int e = 0; e < VEC; ++e) {
        const int col = col0 + v * VEC + e;
        if (col < N)
          store_c(C, c_offset + (size_t)row * ldc + col, row, col, out[e], alpha, beta, epilogue);
      }
    }
  }
}
