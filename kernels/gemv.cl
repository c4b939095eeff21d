// gemv: products where one side of C is short (a few rows or columns) and the other two
// dimensions are long, so the large operand is read once and the time is its bandwidth.
//
// The kernel sees C as S x L: the short side S (min(M, N)) and the long side L. The short
// operand X (S x K) is held SMALL rows at a time; the long operand Y (K x L) is streamed once
// per SMALL rows of X. When M <= N, X = op(A), Y = op(B) and C(s, l) = C[s][l]; otherwise the
// roles swap (C^T = op(B)^T op(A)^T): X = op(B)^T, Y = op(A)^T and C(s, l) = C[l][s].
//
// A work-group covers TILE_L = LANES * VEC columns of the long side and all of K. Its
// LANES x SPLIT work-items each own a VEC x VEC block of Y per step (VEC values of k times VEC
// columns). Consecutive work-items run along Y's contiguous direction, so a warp's VEC-wide
// vector loads cover consecutive addresses, and the SPLIT slices divide K between them,
// STEP_K = SPLIT * VEC deep per step, with AHEAD blocks in a ring of requests. Each
// work-item keeps SMALL x VEC partial sums in registers; at the end the slices' partial sums
// meet in local memory, PASS_ROWS rows at a time, and are added in slice order, so the result
// does not depend on timing (the same inputs give the same bits every run).
//
// It computes the reduced precisions too (PRECISION, see tf32.clh), with ordinary FMAs on
// operands rounded as the tensor-core kernels round them: a group of X's rows is split into its
// TF32 parts once per load; a block of Y is rounded once, in TF32, when its step begins (AHEAD
// - 1 steps after its load was issued: rounding it as it arrives would wait for every load at
// once and leave no request in flight), and in 3xTF32 an element is split once per group of
// rows that uses it (the ring keeps Y as loaded, so that 3xTF32 holds no second copy of it).
#include "gemm_common.clh"
#include "tf32.clh"

#ifndef SMALL
#define SMALL 32 // rows of the short side per work-group, accumulated in registers
#endif
#ifndef LANES
#define LANES 8 // work-items along the long side, each owning VEC columns
#endif
#ifndef SPLIT
#define SPLIT 32 // work-items along K, whose partial sums are reduced in local memory
#endif
#ifndef VEC
#define VEC 4 // floats per global load of the long operand: 1, 2, 4, 8 or 16
#endif
#ifndef AHEAD
#define AHEAD 2 // blocks of the long operand each work-item has in flight
#endif

#define THREADS (LANES * SPLIT)
#define TILE_L (LANES * VEC) // columns of the long side per work-group
#define STEP_K (SPLIT * VEC) // depth of K the work-group covers per step
#ifndef PASS_ROWS
#define PASS_ROWS 8 // rows of the short side reduced per pass, at most SMALL
#endif
// Rows of X loaded together (one float4 across them where X is row-contiguous) and skipped
// together once past the end of the short side.
#define ROW_GROUP 4
#ifndef UNROLL
#define UNROLL 1 // 1: unroll the loops over the rows of accumulators fully (GPUs)
#endif

// Loops over the VEC elements of a vector are always unrolled. Unrolling the loops over the
// SMALL rows as well keeps the accumulators in registers on GPUs; a CPU (PoCL) keeps them in
// its cache and compiles several times faster without it.
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP
#endif

#if VEC == 1
#define floatV float
#define vloadV(offset, p) ((p)[offset])
#else
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define floatV XCAT(float, VEC)
#define vloadV XCAT(vload, VEC)
#endif
// Element e of a vector value; with e a constant (unrolled loops) it stays in registers.
#define ELEMENT(v, e) (((const float *)&(v))[e])

// x as PRECISION multiplies it: itself in fp32, else its TF32 high part, with the low part in
// *low (read in 3xtf32 only; the compiler drops it elsewhere).
inline float split_for_precision(const float x, float *low) {
#if PRECISION != PRECISION_FP32
  const float high = round_tf32(x);
  *low = tf32_low_part(x, high);
  return high;
#else
  *low = 0.0f;
  return x;
#endif
}

// In TF32 a block of Y is rounded in place once, when its step begins; 3xTF32 splits each
// element as it is used, so that the ring holds no second copy of Y.
#define RING_HOLDS_TF32 (PRECISION == PRECISION_TF32)

// A block of the ring made ready for its step: rounded to TF32 in TF32, untouched otherwise.
inline void ready_long_block(float y[VEC * VEC]) {
#if RING_HOLDS_TF32
#pragma unroll
  for (int e = 0; e < VEC * VEC; ++e) y[e] = round_tf32(y[e]);
#endif
}

// An element of Y from the ring as PRECISION multiplies it (split_for_precision's parts).
inline float split_from_ring(const float y, float *low) {
#if RING_HOLDS_TF32
  *low = 0.0f;
  return y;
#else
  return split_for_precision(y, low);
#endif
}

// acc + x*y in PRECISION from split_for_precision's parts.
inline float multiply_add(const float acc, const float x, const float x_low, const float y,
                          const float y_low) {
#if PRECISION == PRECISION_3XTF32
  return add_3xtf32_product(acc, x, x_low, y, y_low);
#else
  return mad(x, y, acc);
#endif
}

// VEC consecutive floats from p into out[0..VEC), of which the first `valid` exist; the others
// read as zero and are not touched in memory.
inline void load_line(__global const float *p, const int valid, const int aligned,
                      float out[VEC]) {
  if (valid >= VEC) {
    const floatV v = aligned ? *(__global const floatV *)p : vloadV(0, p);
#pragma unroll
    for (int e = 0; e < VEC; ++e) out[e] = ELEMENT(v, e);
  } else {
#pragma unroll
    for (int e = 0; e < VEC; ++e) out[e] = (e < valid) ? p[e] : 0.0f;
  }
}

// The work-item's block of the long operand: y[j * VEC + v] = Y(k + j, l + v), zero outside
// the K x L matrix, as stored (ready_long_block rounds it when its step begins). Y is stored
// k-contiguous (element (k, l) at l * ld + k) or l-contiguous (at k * ld + l); either way each
// of the VEC lines is one vector load along it.
inline void load_long_block(__global const float *Y, const int ld, const int K, const int L,
                            const int k, const int l, const int k_contiguous, const int aligned,
                            float y[VEC * VEC]) {
#pragma unroll
  for (int t = 0; t < VEC; ++t) {
    float line[VEC];
    if (k_contiguous) {
      load_line(Y + (size_t)(l + t) * ld + k, (l + t < L) ? K - k : 0, aligned, line);
#pragma unroll
      for (int j = 0; j < VEC; ++j) y[j * VEC + t] = line[j];
    } else {
      load_line(Y + (size_t)(k + t) * ld + l, (k + t < K) ? L - l : 0, aligned, line);
#pragma unroll
      for (int v = 0; v < VEC; ++v) y[t * VEC + v] = line[v];
    }
  }
}

// x[r][j] = X(s + r, k + j) for ROW_GROUP rows from s, zero outside the S x K matrix. X stored
// k-contiguous (element (s, k) at s * ld + k): one vector along k per row; else (at k * ld + s)
// the rows are contiguous: one float4 across them per k.
inline void load_short_rows(__global const float *X, const int ld, const int S, const int K,
                            const int s, const int k, const int k_contiguous, const int aligned,
                            float x[ROW_GROUP][VEC]) {
  if (k_contiguous) {
#pragma unroll
    for (int r = 0; r < ROW_GROUP; ++r)
      load_line(X + (size_t)(s + r) * ld + k, (s + r < S) ? K - k : 0, aligned, x[r]);
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      __global const float *p = X + (size_t)(k + j) * ld + s;
      if (k + j < K && s + ROW_GROUP <= S) {
        const float4 v = vload4(0, p);
        x[0][j] = v.s0, x[1][j] = v.s1, x[2][j] = v.s2, x[3][j] = v.s3;
      } else {
#pragma unroll
        for (int r = 0; r < ROW_GROUP; ++r) x[r][j] = (k + j < K && s + r < S) ? p[r] : 0.0f;
      }
    }
  }
}

// C(s, l) = alpha * X(s, :) . Y(:, l) + beta * C(s, l) for the work-group's SMALL rows from s0
// and TILE_L columns from l0; C(s, l) lies at c_s * s + c_l * l. Inlined into both roles, so
// each is compiled with its own operand layouts as constants.
inline __attribute__((always_inline)) void gemv_block(const int S, const int L, const int K, const float alpha,
                       __global const float *X, const int x_ld, const int x_k_contiguous,
                       const int x_aligned, __global const float *Y, const int y_ld,
                       const int y_k_contiguous, const int y_aligned, const float beta,
                       __global float *C, const int c_s, const int c_l, const int s_is_row,
                       const Epilogue epilogue, __local float partial[PASS_ROWS][SPLIT][TILE_L]) {
  const int tid = get_local_id(0);
  const int s0 = get_group_id(1) * SMALL;
  const int l0 = get_group_id(0) * TILE_L;
  // Consecutive work-items run along Y's contiguous direction.
  const int slice = y_k_contiguous ? tid % SPLIT : tid / LANES;
  const int lane = y_k_contiguous ? tid / SPLIT : tid % LANES;
  const int l = l0 + lane * VEC;
  const int rows = min(SMALL, S - s0);

  float acc[SMALL][VEC];
UNROLL_LOOP
  for (int s = 0; s < SMALL; ++s)
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[s][v] = 0.0f;

  // Stream this work-item's share of K through a ring of AHEAD blocks of Y: each block is used,
  // then asked for again AHEAD steps on, so AHEAD - 1 requests are in flight while it is used.
  // The ring is indexed by constants (the AHEAD steps of an iteration are unrolled), so the
  // blocks stay where their loads put them. Work-items past the long side only reduce.
  if (l < L) {
    float y[AHEAD][VEC * VEC];
#pragma unroll
    for (int a = 0; a < AHEAD; ++a) {
      const int k = slice * VEC + a * STEP_K;
      if (k < K) load_long_block(Y, y_ld, K, L, k, l, y_k_contiguous, y_aligned, y[a]);
    }
    for (int k0 = slice * VEC; k0 < K; k0 += AHEAD * STEP_K) {
#pragma unroll
      for (int a = 0; a < AHEAD; ++a) {
        const int k = k0 + a * STEP_K;
        if (k < K) {
          ready_long_block(y[a]);
UNROLL_LOOP
          for (int g = 0; g < SMALL; g += ROW_GROUP) {
            if (g < rows) {
              float x[ROW_GROUP][VEC], x_low[ROW_GROUP][VEC];
              load_short_rows(X, x_ld, S, K, s0 + g, k, x_k_contiguous, x_aligned, x);
#pragma unroll
              for (int r = 0; r < ROW_GROUP; ++r)
#pragma unroll
                for (int j = 0; j < VEC; ++j) x[r][j] = split_for_precision(x[r][j], &x_low[r][j]);
#pragma unroll
              for (int j = 0; j < VEC; ++j)
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                  float y_low;
                  const float y_high = split_from_ring(y[a][j * VEC + v], &y_low);
#pragma unroll
                  for (int r = 0; r < ROW_GROUP; ++r)
                    if (g + r < SMALL)
                      acc[g + r][v] =
                          multiply_add(acc[g + r][v], x[r][j], x_low[r][j], y_high, y_low);
                }
            }
          }
          const int k_next = k + AHEAD * STEP_K;
          if (k_next < K)
            load_long_block(Y, y_ld, K, L, k_next, l, y_k_contiguous, y_aligned, y[a]);
        }
      }
    }
  }

  // The slices' partial sums, PASS_ROWS rows at a time: a work-item adds the SPLIT partial
  // sums of an output in slice order, and takes the next output THREADS on if there are more.
  // Consecutive work-items take consecutive columns, so the reads of local memory are free of
  // bank conflicts. Passes past the short side are skipped by the whole work-group (rows is
  // the same for all its work-items).
UNROLL_LOOP
  for (int p0 = 0; p0 < SMALL; p0 += PASS_ROWS) {
    if (p0 < rows) {
UNROLL_LOOP
      for (int r = 0; r < PASS_ROWS; ++r)
        if (p0 + r < SMALL)
#pragma unroll
          for (int v = 0; v < VEC; ++v) partial[r][slice][lane * VEC + v] = acc[p0 + r][v];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int o = tid; o < PASS_ROWS * TILE_L; o += THREADS) {
        const int r = o / TILE_L, c = o % TILE_L;
        const int s = s0 + p0 + r, col = l0 + c;
        if (p0 + r < SMALL && s < S && col < L) {
          float sum = 0.0f;
          for (int t = 0; t < SPLIT; ++t) sum += partial[r][t][c];
          store_c(C, (size_t)s * c_s + (size_t)col * c_l, s_is_row ? s : col, s_is_row ? col : s,
                  sum, alpha, beta, epilogue);
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_gemv(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  __local float partial[PASS_ROWS][SPLIT][TILE_L];
  A += a_offset;
  B += b_offset;
  C += c_offset;
  if (M <= N) {
    // Few rows: X = op(A) (M x K), Y = op(B) (K x N), C(s, l) = C[s][l].
    gemv_block(M, N, K, alpha, A, lda, !TRANS_A, A_ALIGNED, B, ldb, TRANS_B, B_ALIGNED, beta, C,
               ldc, 1, 1, epilogue, partial);
  } else {
    // Few columns: X = op(B)^T (N x K), Y = op(A)^T (K x M), C(s, l) = C[l][s].
    gemv_block(N, M, K, alpha, B, ldb, TRANS_B, B_ALIGNED, A, lda, !TRANS_A, A_ALIGNED, beta, C,
               1, ldc, 0, epilogue, partial);
  }
}
