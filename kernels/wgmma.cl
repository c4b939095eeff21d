// wgmma: SGEMM in TF32 (PRECISION 1) or 3xTF32 (PRECISION 2) on Hopper's warpgroup MMA
// (wgmma.mma_async, sm_90a), built through the PTX rewrite (kernels/wgmma.clh,
// src/ptx_rewrite.hpp): the host builds it only on NVIDIA devices of compute capability 9.0
// whose wgmma probe passed.
//
// A work-group is WARPGROUPS = TILE_M / 64 warpgroups of 128 work-items and computes a
// TILE_M x TILE_N block of C; warpgroup w owns rows 64 w .. 64 w + 63 of it, all TILE_N
// columns, as the accumulators of one wgmma m64nTILE_Nk8 (TILE_N / 2 floats per work-item).
// Both operands are read by the tensor cores from local memory through matrix descriptors,
// K-major without swizzling: a page holds the rows (of op(A) along m, of op(B) along n) of one
// DEPTH-deep slice as core matrices of 8 rows x 4 floats (128 contiguous bytes), the core
// matrices of 8 rows one after another along k (LEADING_BYTES = 128 apart), each next 8 rows
// STRIDE_BYTES = 32 DEPTH further (DEPTH: the depth of one slice, TILE_K in TF32 and
// TILE_K / 2 in 3xTF32, whose high and low pages take the local memory of TF32's pages).
//
// The work-items copy each slice with ordinary loads into registers (zero outside the matrix,
// so any M, N, K works, and whatever the transposes: a transposed operand is transposed by the
// copy), round the values to TF32 (round-to-nearest, ties away, as tensorcore.cl's cvt_tf32
// does; the tensor cores would truncate) or split them into TF32 high and low parts for 3xTF32,
// and store them into one of STAGES pages. The loads of the next slice are issued before the
// wgmma of this one, and stored after it has been issued, so they overlap the tensor cores.
#include "gemm_common.clh"

#ifndef PRECISION
#define PRECISION 1 // 1: tf32, 2: 3xtf32 (fp32 runs on the other kernels)
#endif
#include "tf32.clh"
#include "ptx.clh"
#include "wgmma.clh"

#ifndef TILE_M
#define TILE_M 128 // rows of C per work-group: 64 (one warpgroup) or 128 (two)
#endif
#ifndef TILE_N
#define TILE_N 128 // columns of C per work-group, the N of the wgmma: 64, 128 or 256
#endif
#ifndef TILE_K
#define TILE_K 16 // floats of K per page row, a multiple of 16 (DEPTH below)
#endif
#ifndef STAGES
#define STAGES 2 // local pages: 2, 3 or 4 (TF32: up to STAGES - 1 slices' wgmma in flight)
#endif

// The depth of one slice: TILE_K in TF32; 3xTF32 keeps a high and a low page of TILE_K / 2-deep
// slices in the same local memory.
#if PRECISION == PRECISION_3XTF32
#define DEPTH (TILE_K / 2)
#else
#define DEPTH TILE_K
#endif
#define WARPGROUPS (TILE_M / 64)
#define THREADS (WARPGROUPS * 128)
#define ACCUMULATORS (TILE_N / 2) // per work-item
#define A_PAGE (TILE_M * DEPTH)  // floats
#define B_PAGE (TILE_N * DEPTH)
#define A_PER_ITEM (A_PAGE / THREADS) // floats of a slice each work-item copies
#define B_PER_ITEM (B_PAGE / THREADS)
#define LEADING_BYTES 128
#define STRIDE_BYTES (32 * DEPTH)

#if TILE_N == 64
#define WGMMA_TILE wgmma_64x64x8_tf32
#define WGMMA_WAIT wgmma_wait_64x64
#elif TILE_N == 128
#define WGMMA_TILE wgmma_64x128x8_tf32
#define WGMMA_WAIT wgmma_wait_64x128
#elif TILE_N == 256
#define WGMMA_TILE wgmma_64x256x8_tf32
#define WGMMA_WAIT wgmma_wait_64x256
#else
#error "TILE_N must be 64, 128 or 256"
#endif
#if TILE_M != 64 && TILE_M != 128
#error "TILE_M must be 64 or 128"
#endif
#if TILE_K % 16 != 0
#error "TILE_K must be a multiple of 16"
#endif

// Element (r, k) of a page: core matrix (r / 8, k / 4), row r % 8, word k % 4.
#define PAGE_INDEX(r, k) \
  (((((r) >> 3) * (DEPTH / 4) + ((k) >> 2)) << 5) + (((r) & 7) << 2) + ((k) & 3))

// Element e (0 .. rows * DEPTH - 1) of a slice as (r, k): consecutive e run along the
// operand's contiguous dimension in global memory (k when its rows run along k), so that
// consecutive work-items load consecutive addresses.
#define SLICE_R(e, rows, rows_along_k) ((rows_along_k) ? (e) / DEPTH : (e) % (rows))
#define SLICE_K(e, rows, rows_along_k) ((rows_along_k) ? (e) % DEPTH : (e) / (rows))
#define A_ROWS_ALONG_K (!TRANS_A)
#define B_ROWS_ALONG_K (TRANS_B)

// Loads this work-item's elements of the slice of op(A) at rows row0.., columns k0.. (zero
// outside M x K), and likewise of op(B) at rows k0.., columns col0...
#define LOAD_A_SLICE(regs, k0)                                                              \
  for (int i = 0; i < A_PER_ITEM; ++i) {                                                    \
    const int e = tid + i * THREADS;                                                        \
    const int r = SLICE_R(e, TILE_M, A_ROWS_ALONG_K), k = SLICE_K(e, TILE_M, A_ROWS_ALONG_K); \
    const int m = row0 + r, kk = (k0) + k;                                                  \
    regs[i] = (m < M && kk < K) ? A_AT(m, kk) : 0.0f;                                       \
  }
#define LOAD_B_SLICE(regs, k0)                                                              \
  for (int i = 0; i < B_PER_ITEM; ++i) {                                                    \
    const int e = tid + i * THREADS;                                                        \
    const int r = SLICE_R(e, TILE_N, B_ROWS_ALONG_K), k = SLICE_K(e, TILE_N, B_ROWS_ALONG_K); \
    const int n = col0 + r, kk = (k0) + k;                                                  \
    regs[i] = (n < N && kk < K) ? B_AT(kk, n) : 0.0f;                                       \
  }

// TF32 high part of x, its 13 low bits zero (x rounded to nearest, ties away).
inline float tf32_high(const float x) {
  return as_float(as_uint(cvt_tf32(x)) & 0xffffe000u);
}

// Stores loaded elements into a page (and its low page for 3xTF32), rounded or split.
#if PRECISION == PRECISION_3XTF32
#define STORE_SLICE(regs, count, rows, rows_along_k, page, low_page)                         \
  for (int i = 0; i < (count); ++i) {                                                         \
    const int e = tid + i * THREADS;                                                          \
    const int at = PAGE_INDEX(SLICE_R(e, rows, rows_along_k), SLICE_K(e, rows, rows_along_k)); \
    const float high = tf32_high(regs[i]);                                                    \
    (page)[at] = high;                                                                        \
    (low_page)[at] = tf32_high(regs[i] - high);                                               \
  }
#else
#define STORE_SLICE(regs, count, rows, rows_along_k, page, low_page)                         \
  for (int i = 0; i < (count); ++i) {                                                         \
    const int e = tid + i * THREADS;                                                          \
    const int at = PAGE_INDEX(SLICE_R(e, rows, rows_along_k), SLICE_K(e, rows, rows_along_k)); \
    (page)[at] = tf32_high(regs[i]);                                                          \
  }
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_wgmma(GEMM_PARAMETERS) {
  SELECT_PRODUCT(get_group_id(2));
  const int tid = get_local_id(0);
  const int warpgroup = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
  A += a_offset;
  B += b_offset;

  __local float a_pages[STAGES * A_PAGE] __attribute__((aligned(128)));
  __local float b_pages[STAGES * B_PAGE] __attribute__((aligned(128)));
#if PRECISION == PRECISION_3XTF32
  __local float a_low_pages[STAGES * A_PAGE] __attribute__((aligned(128)));
  __local float b_low_pages[STAGES * B_PAGE] __attribute__((aligned(128)));
#endif

  float acc[ACCUMULATORS];
#pragma unroll
  for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = 0.0f;

  const int steps = (K + DEPTH - 1) / DEPTH;
  float a_regs[A_PER_ITEM], b_regs[B_PER_ITEM];

  if (steps > 0) {
#pragma unroll
    LOAD_A_SLICE(a_regs, 0)
#pragma unroll
    LOAD_B_SLICE(b_regs, 0)
#pragma unroll
    STORE_SLICE(a_regs, A_PER_ITEM, TILE_M, A_ROWS_ALONG_K, a_pages, a_low_pages)
#pragma unroll
    STORE_SLICE(b_regs, B_PER_ITEM, TILE_N, B_ROWS_ALONG_K, b_pages, b_low_pages)
    fence_local_for_wgmma();
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int step = 0; step < steps; ++step) {
    const int next = step + 1;
    if (next < steps) { // the loads of the next slice, in flight during this one's wgmma
#pragma unroll
      LOAD_A_SLICE(a_regs, next * DEPTH)
#pragma unroll
      LOAD_B_SLICE(b_regs, next * DEPTH)
    }

    const int page = step % STAGES;
    __local const float *a_page = a_pages + page * A_PAGE + warpgroup * 64 * DEPTH;
    __local const float *b_page = b_pages + page * B_PAGE;
    // Core matrix (0, kk / 4) starts kk / 4 * 128 bytes = 8 kk floats into the page.
    wgmma_fence();
#if PRECISION == PRECISION_3XTF32
    __local const float *a_low = a_low_pages + page * A_PAGE + warpgroup * 64 * DEPTH;
    __local const float *b_low = b_low_pages + page * B_PAGE;
    // The tensor cores truncate what they add into the accumulator, a bias that grows with K
    // (tensorcore.cl). So each slice's products are summed from zero, at their own small
    // scale, and enter the accumulator through an ordinary round-to-nearest addition; within
    // each 8-deep step the small products come first: low * high, high * low, high * high.
    float slice_sum[ACCUMULATORS];
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) slice_sum[j] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < DEPTH; kk += 8) {
      const ulong a_high = local_matrix_descriptor(a_page + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      const ulong b_high = local_matrix_descriptor(b_page + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      const ulong a_small = local_matrix_descriptor(a_low + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      const ulong b_small = local_matrix_descriptor(b_low + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      WGMMA_TILE(slice_sum, a_small, b_high, kk > 0);
      WGMMA_TILE(slice_sum, a_high, b_small, 1);
      WGMMA_TILE(slice_sum, a_high, b_high, 1);
    }
    wgmma_commit_group();
    WGMMA_WAIT(slice_sum, 0);
#pragma unroll
    for (int j = 0; j < ACCUMULATORS; ++j) acc[j] += slice_sum[j];
#else
#pragma unroll
    for (int kk = 0; kk < DEPTH; kk += 8) {
      const ulong a_descriptor =
          local_matrix_descriptor(a_page + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      const ulong b_descriptor =
          local_matrix_descriptor(b_page + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
      WGMMA_TILE(acc, a_descriptor, b_descriptor, 1);
    }
    wgmma_commit_group();
    // The page the next slice goes to was last read by the wgmma of slice next - STAGES:
    // at most STAGES - 1 newer groups (this one's included) may still be in flight.
    WGMMA_WAIT(acc, STAGES - 1);
#endif
    if (next < steps) {
      // Every warpgroup is done with the page of slice next - STAGES (its wait above).
      barrier(CLK_LOCAL_MEM_FENCE);
      const int to = next % STAGES;
#pragma unroll
      STORE_SLICE(a_regs, A_PER_ITEM, TILE_M, A_ROWS_ALONG_K, a_pages + to * A_PAGE,
                  a_low_pages + to * A_PAGE)
#pragma unroll
      STORE_SLICE(b_regs, B_PER_ITEM, TILE_N, B_ROWS_ALONG_K, b_pages + to * B_PAGE,
                  b_low_pages + to * B_PAGE)
      fence_local_for_wgmma();
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  WGMMA_WAIT(acc, 0);

  // Work-item (w, g, t) of its warpgroup holds rows 16 w + g and 16 w + g + 8 of each 8
  // columns j / 4 (wgmma.clh).
  const int g = lane / 4, t = lane % 4;
  const int row_base = row0 + warpgroup * 64 + warp * 16 + g;
  const int col_base = col0 + 2 * t;
#pragma unroll
  for (int j = 0; j < ACCUMULATORS; ++j) {
    const int row = row_base + ((j >> 1) & 1) * 8;
    const int col = col_base + (j >> 2) * 8 + (j & 1);
    if (row < M && col < N)
      store_c(C, c_offset + (size_t)row * ldc + col, row, col, acc[j], alpha, beta, epilogue);
  }
}
