// register_block: SGEMM for CPUs. Each work-item, alone in its work-group, keeps a ROWS x
// (VEC * VECTORS) block of C in vector registers and reads A and B straight from global memory,
// which on a CPU is its caches: for each k, VECTORS vector loads of op(B)'s row k, and each of
// its ROWS elements of op(A)'s column k broadcast into a multiply-add with them. No local
// memory and no barrier: an OpenCL CPU runtime keeps a work-item's private values across a
// barrier in memory, which caps the kernels that tile through local memory (blocked) at what
// that traffic allows, where this loop is the register-blocked inner kernel of a CPU BLAS.
//
// A work-item may take ROW_BLOCKS such blocks one below the other, for products of few rows
// and long K: it runs K in turns of K_CHUNK, each block's accumulators parked in private memory
// (the L1 cache) between turns, so a slab of B (K_CHUNK x COLUMNS) comes from memory once and
// serves every block from the caches, where one block per work-item streams all of B once per
// ROWS rows, each k on a new page of B.
//
// Blocks that stick out of C read B element by element, zero past N, and rows past M read A's
// last row (their results are never stored), so the loop itself never tests an edge.
//
// With INNER_PRODUCTS the block is ROWS x VECTORS outputs, each kept as VEC partial sums along
// K and added up at the end: for each VEC-deep step of K, one vector load of each of its rows
// of A and of its columns of op(B), and ROWS x VECTORS multiply-adds. That is the loop for
// op(B) = B^T with op(A) = A (x * W^T, as a language model's weights are usually stored), whose
// rows of A and columns of op(B) both run along K in memory, where the outer products above
// would read B element by element. An operand that does not run along K (A transposed, B not)
// is read element by element: so the loop also serves products of few columns with op(B) = B
// (A x, the thin B in the caches) and of few rows with op(A) = A^T beside op(B) = B^T. Columns
// past N read op(B)'s last column, as rows past M read A's last row.
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
#ifndef ROW_BLOCKS
#define ROW_BLOCKS 1 // blocks of ROWS rows per work-item, taken in turns along K
#endif
#ifndef K_CHUNK
#define K_CHUNK 256 // depth of K per turn where ROW_BLOCKS > 1
#endif
#ifndef INNER_PRODUCTS
#define INNER_PRODUCTS 0 // 1: VECTORS columns per block, each VEC partial sums along K
#endif

#if INNER_PRODUCTS
#define COLUMNS VECTORS // columns of C per work-item
#else
#define COLUMNS (VEC * VECTORS)
#endif
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

#if INNER_PRODUCTS
// VEC elements of op(A)'s row `row` and of op(B)'s column `col` from k on: one vector load where
// the operand runs along K in memory (A not transposed, B transposed), else element by element.
inline VECTOR load_a_row(__global const float *A, const int lda, const int row, const int k) {
#if TRANS_A
  float elements[VEC];
  for (int e = 0; e < VEC; ++e) elements[e] = A_AT(row, k + e);
  return LOAD_VECTOR(elements);
#else
  return LOAD_VECTOR(A + (size_t)row * lda + k);
#endif
}
inline VECTOR load_b_column(__global const float *B, const int ldb, const int col, const int k) {
#if TRANS_B
  return LOAD_VECTOR(B + (size_t)col * ldb + k);
#else
  float elements[VEC];
  for (int e = 0; e < VEC; ++e) elements[e] = B_AT(k + e, col);
  return LOAD_VECTOR(elements);
#endif
}
// The same for the last step of a turn, shorter than VEC: element by element, zero from k_end on.
inline VECTOR load_a_row_end(__global const float *A, const int lda, const int row, const int k,
                             const int k_end) {
  float elements[VEC];
  for (int e = 0; e < VEC; ++e) elements[e] = k + e < k_end ? A_AT(row, k + e) : 0.0f;
  return LOAD_VECTOR(elements);
}
inline VECTOR load_b_column_end(__global const float *B, const int ldb, const int col,
                                const int k, const int k_end) {
  float elements[VEC];
  for (int e = 0; e < VEC; ++e) elements[e] = k + e < k_end ? B_AT(k + e, col) : 0.0f;
  return LOAD_VECTOR(elements);
}

// acc[i][c] += the VEC-wide partial sums of op(A)(rows[i], k_begin..k_end) times
// op(B)(k_begin..k_end, cols[c]), in whole VEC-deep steps and then a shorter last one.
inline __attribute__((always_inline)) void multiply_inner(
    VECTOR acc[ROWS][VECTORS], const int rows[ROWS], const int cols[VECTORS], const int k_begin,
    const int k_end, __global const float *A, const int lda, __global const float *B,
    const int ldb) {
  int k = k_begin;
  for (; k + VEC <= k_end; k += VEC) {
    VECTOR b[VECTORS];
#pragma unroll
    for (int c = 0; c < VECTORS; ++c) b[c] = load_b_column(B, ldb, cols[c], k);
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
      const VECTOR a = load_a_row(A, lda, rows[i], k);
#pragma unroll
      for (int c = 0; c < VECTORS; ++c) acc[i][c] = mad(a, b[c], acc[i][c]);
    }
  }
  if (k < k_end) {
    VECTOR b[VECTORS];
    for (int c = 0; c < VECTORS; ++c) b[c] = load_b_column_end(B, ldb, cols[c], k, k_end);
    for (int i = 0; i < ROWS; ++i) {
      const VECTOR a = load_a_row_end(A, lda, rows[i], k, k_end);
      for (int c = 0; c < VECTORS; ++c) acc[i][c] = mad(a, b[c], acc[i][c]);
    }
  }
}

// The sum of a vector's elements, halves added pairwise (a fixed order).
inline float sum_elements(const VECTOR v) {
#if VEC == 16
  const float8 v8 = v.lo + v.hi;
#elif VEC == 8
  const float8 v8 = v;
#endif
#if VEC >= 8
  const float4 v4 = v8.lo + v8.hi;
#elif VEC == 4
  const float4 v4 = v;
#endif
#if VEC >= 4
  const float2 v2 = v4.lo + v4.hi;
#elif VEC == 2
  const float2 v2 = v;
#endif
#if VEC >= 2
  return v2.x + v2.y;
#else
  return v;
#endif
}

#else
// acc += op(A)(rows, k_begin..k_end) * op(B)(k_begin..k_end, col0..col0 + COLUMNS). With
// whole_b, B's rows are read as whole vectors (B not transposed, the block inside C); else
// element by element.
inline __attribute__((always_inline)) void multiply_block(
    VECTOR acc[ROWS][VECTORS], const int rows[ROWS], const int k_begin, const int k_end,
    const int whole_b, __global const float *A, const int lda, __global const float *B,
    const int ldb, const int col0, const int N) {
  if (whole_b) {
    for (int k = k_begin; k < k_end; ++k) {
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
    for (int k = k_begin; k < k_end; ++k) {
      VECTOR b[VECTORS];
      for (int v = 0; v < VECTORS; ++v) b[v] = load_b_elements(B, ldb, k, col0 + v * VEC, N);
      for (int i = 0; i < ROWS; ++i) {
        const VECTOR a = (VECTOR)(A_AT(rows[i], k));
        for (int v = 0; v < VECTORS; ++v) acc[i][v] = mad(a, b[v], acc[i][v]);
      }
    }
  }
}
#endif

// The outputs of one accumulator vector: VEC consecutive columns of C, or with INNER_PRODUCTS
// one column's VEC partial sums added up.
#if INNER_PRODUCTS
#define VECTOR_OUTPUTS 1
#else
#define VECTOR_OUTPUTS VEC
#endif
inline void vector_outputs(const VECTOR v, float out[VECTOR_OUTPUTS]) {
#if INNER_PRODUCTS
  out[0] = sum_elements(v);
#elif VEC == 1
  out[0] = v;
#else
  EXPAND_JOIN(vstore, VEC)(v, 0, out);
#endif
}

// C's rows from row0 (those below M) and columns from col0 (those below N) from acc.
inline void store_block(__global float *C, const int ldc, const ulong c_offset, const int M,
                        const int N, const int row0, const int col0,
                        VECTOR acc[ROWS][VECTORS], const float alpha, const float beta,
                        const Epilogue epilogue) {
  for (int i = 0; i < ROWS; ++i) {
    const int row = row0 + i;
    if (row >= M) break;
    for (int v = 0; v < VECTORS; ++v) {
      float out[VECTOR_OUTPUTS];
      vector_outputs(acc[i][v], out);
      for (int e = 0; e < VECTOR_OUTPUTS; ++e) {
        const int col = col0 + v * VECTOR_OUTPUTS + e;
        if (col < N)
          store_c(C, c_offset + (size_t)row * ldc + col, row, col, out[e], alpha, beta, epilogue);
      }
    }
  }
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void gemm_register_block(
    GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  A += a_offset;
  B += b_offset;
#define GROUP_ROWS (ROWS * ROW_BLOCKS)
#if DOWN_ROWS_FIRST
  // The work-groups in launch order go down C's rows first: consecutive ones share a panel of
  // B's columns (read from memory once) and take A's rows again from the caches.
  const int row_groups = (M + GROUP_ROWS - 1) / GROUP_ROWS;
  const size_t linear = get_group_id(0) + get_group_id(1) * get_num_groups(0);
  const int col0 = (int)(linear / row_groups) * COLUMNS;
  const int group_row0 = (int)(linear % row_groups) * GROUP_ROWS;
#else
  // Along C's rows first: consecutive work-groups share A's rows.
  const int col0 = get_group_id(0) * COLUMNS;
  const int group_row0 = get_group_id(1) * GROUP_ROWS;
#endif
#if INNER_PRODUCTS
  // Columns past N repeat column N - 1 (read, never stored).
  int cols[VECTORS];
  for (int c = 0; c < VECTORS; ++c) cols[c] = min(col0 + c, N - 1);
#else
  const int whole_b = !TRANS_B && col0 + COLUMNS <= N;
#endif

#if ROW_BLOCKS == 1
  const int k_chunk = K;  // one block: all of K in one turn
#else
  const int k_chunk = K_CHUNK;
#endif
  VECTOR parked[ROW_BLOCKS][ROWS][VECTORS];
  for (int r = 0; r < ROW_BLOCKS; ++r)
    for (int i = 0; i < ROWS; ++i)
      for (int v = 0; v < VECTORS; ++v) parked[r][i][v] = (VECTOR)(0.0f);

  for (int k0 = 0, k_end; k0 < K; k0 = k_end) {
    k_end = k0 + min(k_chunk, K - k0);  // no overflow with K near INT_MAX
    for (int r = 0; r < ROW_BLOCKS; ++r) {
      const int row0 = group_row0 + r * ROWS;
      if (row0 >= M) break;
      // Rows past M repeat row M - 1 (read, never stored).
      int rows[ROWS];
      for (int i = 0; i < ROWS; ++i) rows[i] = min(row0 + i, M - 1);
      VECTOR acc[ROWS][VECTORS];
      for (int i = 0; i < ROWS; ++i)
        for (int v = 0; v < VECTORS; ++v) acc[i][v] = parked[r][i][v];
#if INNER_PRODUCTS
      multiply_inner(acc, rows, cols, k0, k_end, A, lda, B, ldb);
#else
      multiply_block(acc, rows, k0, k_end, whole_b, A, lda, B, ldb, col0, N);
#endif
      for (int i = 0; i < ROWS; ++i)
        for (int v = 0; v < VECTORS; ++v) parked[r][i][v] = acc[i][v];
    }
  }

  for (int r = 0; r < ROW_BLOCKS; ++r)
    store_block(C, ldc, c_offset, M, N, group_row0 + r * ROWS, col0, parked[r], alpha, beta,
                epilogue);
}
