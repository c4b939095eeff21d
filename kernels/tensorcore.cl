// tensorcore: SGEMM on NVIDIA tensor cores (compute capability 8.0 or newer) through inline
// PTX, in TF32 (PRECISION 1) or in 3xTF32 (PRECISION 2: three TF32 products per step, FP32-level
// accuracy). The host builds it only where its probe kernel compiled and ran; elsewhere the
// same precision modes run on `blocked` with ordinary FMAs and the rounding of tf32.clh.
//
// A work-group of WARPS_M x WARPS_N warps computes a TILE_M x TILE_N block of C. Each warp owns
// a WARP_M x WARP_N part of it, a grid of MMA_M x MMA_N tiles (the instruction shape, ptx.clh),
// and each tile is the accumulator of one mma.sync.m16n8k8 (four floats per lane). TILE_K-deep
// slices of A and B go from global to local memory with cp.async, without a detour through
// registers, into STAGES pages: the copies of the next slices run while the tensor cores work
// on this one. Built with SLICED_K, a work-group computes one slice of K (split-K,
// gemm_common.clh). The pages keep each operand in the order it has in global memory, swizzled
// rather than padded so that three 128 x 128 x 16 stages fit in the 48 KiB a work-group gets.
#include "gemm_common.clh"

#ifndef PRECISION
#define PRECISION 1 // 1: tf32, 2: 3xtf32 (fp32 runs on the other kernels)
#endif
#include "tf32.clh"
#include "ptx.clh"

#ifndef TILE_M
#define TILE_M 128 // rows of C per work-group, a multiple of 32
#endif
#ifndef TILE_N
#define TILE_N 128 // columns of C per work-group, a multiple of 32
#endif
#ifndef TILE_K
#define TILE_K 16 // depth of one slice: 8, 16 or 32
#endif
#ifndef WARP_M
#define WARP_M 64 // rows of C per warp, a multiple of MMA_M (16)
#endif
#ifndef WARP_N
#define WARP_N 64 // columns of C per warp, a multiple of MMA_N (8)
#endif
#ifndef STAGES
#define STAGES 3 // local pages in flight: 2, 3 or 4
#endif
#ifndef VEC
#define VEC 4 // floats per cp.async of an aligned operand: 1 or 4
#endif

#define WARPS_M (TILE_M / WARP_M)
#define WARPS_N (TILE_N / WARP_N)
#define THREADS (WARPS_M * WARPS_N * 32)
#define M_TILES (WARP_M / MMA_M) // mma tiles per warp along M
#define N_TILES (WARP_N / MMA_N) // and along N
#define A_CHUNK (A_ALIGNED ? VEC : 1) // floats per copy of A
#define B_CHUNK (B_ALIGNED ? VEC : 1)
// 3xTF32 sums the products of this many MMA_K steps before adding them into the accumulators.
#define SUM_STEPS (TILE_K >= 16 ? 2 : 1)

// Local pages, unpadded, in 16-byte chunks of 4 floats whose order within each row is
// permuted (XOR "swizzle") so that the lanes of a fragment read hit 32 different banks. An
// operand whose rows run along k in global memory keeps them in the page ([x][k], rows of
// TILE_K floats, read with ldmatrix: 8 rows of one chunk column must fall in 8 different
// 4-bank groups); one whose rows run along m or n is kept [k][x] (rows of TILE_x floats, read
// one float per lane at rows k + t, columns x + g).
#if TILE_K == 8
#define K_ROW_SWIZZLE(x) (((x) >> 2) & 1)
#elif TILE_K == 16
#define K_ROW_SWIZZLE(x) (((x) >> 1) & 3)
#else
#define K_ROW_SWIZZLE(x) ((x) & 7)
#endif
// Element (x, k) of a [x][k] page and element (k, x) of a [k][x] page `width` floats wide.
#define ALONG_K_INDEX(x, k) ((x) * TILE_K + ((((k) >> 2) ^ K_ROW_SWIZZLE(x)) << 2) + ((k) & 3))
#define ALONG_X_INDEX(k, x, width) \
  ((k) * (width) + ((((x) >> 2) ^ (((k) & 3) << 1)) << 2) + ((x) & 3))

#define A_PAGE (TILE_M * TILE_K)
#define B_PAGE (TILE_K * TILE_N)
#if TRANS_A
#define A_LOCAL(m, k) ALONG_X_INDEX(k, m, TILE_M)
#else
#define A_LOCAL(m, k) ALONG_K_INDEX(m, k)
#endif
#if TRANS_B
#define B_LOCAL(k, n) ALONG_K_INDEX(n, k)
#else
#define B_LOCAL(k, n) ALONG_X_INDEX(k, n, TILE_N)
#endif

// Copies a tile of `lines` rows of `along` floats, whose element (l, a) is
// src[(line0 + l) * ld + along0 + a], into a page ([x][k] when rows_along_k, else [k][x]);
// elements past line_limit or along_limit become zero.
inline void copy_tile(__local float *page, const bool rows_along_k, __global const float *src,
                      const int ld, const int lines, const int along, const int line0,
                      const int along0, const int line_limit, const int along_limit,
                      const int chunk, const int tid) {
  const int chunks_per_line = along / chunk;
  const int chunks = lines * chunks_per_line;
#pragma unroll
  for (int round = 0; round < (chunks + THREADS - 1) / THREADS; ++round) {
    const int c = tid + round * THREADS;
    if (c >= chunks) break;
    const int line = c / chunks_per_line;
    const int at = (c % chunks_per_line) * chunk;
    const int global_line = line0 + line, global_at = along0 + at;
    const int valid =
        global_line < line_limit ? clamp(along_limit - global_at, 0, chunk) : 0;
    __global const float *from = valid ? src + (size_t)global_line * ld + global_at : src;
    const int to = rows_along_k ? ALONG_K_INDEX(line, at) : ALONG_X_INDEX(line, at, along);
    copy_async(page + to, from, chunk, valid);
  }
}

// Starts the copies of the TILE_K-deep slice of A (op(A), M x K) at rows row0.., columns k0..
// into `page`, and likewise of B (op(B), K x N) at rows k0.., columns col0... Macros rather than
// functions: a function wrapping copy_tile, called from two places, is not inlined (clang made
// it a call), and copy_tile must be inlined where its loop bounds are constants.
#if TRANS_A
#define COPY_A_SLICE(page, A, lda, M, K, row0, k0, tid) \
  copy_tile(page, false, A, lda, TILE_K, TILE_M, k0, row0, K, M, A_CHUNK, tid)
#else
#define COPY_A_SLICE(page, A, lda, M, K, row0, k0, tid) \
  copy_tile(page, true, A, lda, TILE_M, TILE_K, row0, k0, M, K, A_CHUNK, tid)
#endif
#if TRANS_B
#define COPY_B_SLICE(page, B, ldb, N, K, col0, k0, tid) \
  copy_tile(page, true, B, ldb, TILE_N, TILE_K, col0, k0, N, K, B_CHUNK, tid)
#else
#define COPY_B_SLICE(page, B, ldb, N, K, col0, k0, tid) \
  copy_tile(page, false, B, ldb, TILE_K, TILE_N, k0, col0, K, N, B_CHUNK, tid)
#endif

// This lane's four values of the MMA_M x MMA_K block of A at rows m0.., columns k0.. of a page,
// in the instruction's fragment layout (g = lane / 4, t = lane % 4): (g, t), (g + 8, t),
// (g, t + 4), (g + 8, t + 4). Rows of A along k are read with ldmatrix.
inline void load_a_fragment(float *a, __local const float *page, const int m0, const int k0,
                            const int lane) {
#if TRANS_A
  const int g = lane / 4, t = lane % 4;
  a[0] = page[A_LOCAL(m0 + g, k0 + t)];
  a[1] = page[A_LOCAL(m0 + g + 8, k0 + t)];
  a[2] = page[A_LOCAL(m0 + g, k0 + t + 4)];
  a[3] = page[A_LOCAL(m0 + g + 8, k0 + t + 4)];
#else
  const int block = lane / 8; // block q: rows + 8 (q & 1), columns + 4 (q >> 1)
  uint words[4];
  load_matrix_x4(words, page + A_LOCAL(m0 + lane % 8 + (block & 1) * 8, k0 + (block >> 1) * 4));
  for (int e = 0; e < 4; ++e) a[e] = as_float(words[e]);
#endif
}

// This lane's two values of the MMA_K x MMA_N block of B at rows k0.., columns n0..: (t, g),
// (t + 4, g).
inline void load_b_fragment(float *b, __local const float *page, const int n0, const int k0,
                            const int lane) {
#if TRANS_B
  uint words[2];
  load_matrix_x2(words, page + B_LOCAL(k0 + ((lane / 8) & 1) * 4, n0 + lane % 8));
  b[0] = as_float(words[0]);
  b[1] = as_float(words[1]);
#else
  const int g = lane / 4, t = lane % 4;
  b[0] = page[B_LOCAL(k0 + t, n0 + g)];
  b[1] = page[B_LOCAL(k0 + t + 4, n0 + g)];
#endif
}

// Replaces x by its TF32 high part and stores the TF32 low part, x - high rounded.
inline void split_tf32(float *x, float *low) {
  const float high = as_float(as_uint(cvt_tf32(*x)) & 0xffffe000u);
  *low = cvt_tf32(*x - high);
  *x = high;
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_tensorcore(
    GEMM_PARAMETERS, SLICE_PARAMETERS) {
  SELECT_PRODUCT_SLICE(get_group_id(2));
  A = &A_AT(0, k_begin); // this slice's first column of op(A) and row of op(B)
  B = &B_AT(k_begin, 0);
  const int tid = get_local_id(0);
  const int lane = tid % 32, warp = tid / 32;
  const int warp_row = (warp / WARPS_N) * WARP_M;
  const int warp_col = (warp % WARPS_N) * WARP_N;
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
  A += a_offset;
  B += b_offset;

  __local float a_pages[STAGES * A_PAGE] __attribute__((aligned(16)));
  __local float b_pages[STAGES * B_PAGE] __attribute__((aligned(16)));

  float acc[M_TILES][N_TILES][4];
#pragma unroll
  for (int i = 0; i < M_TILES; ++i)
#pragma unroll
    for (int j = 0; j < N_TILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  const int steps = (k_count + TILE_K - 1) / TILE_K;

  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) {
      COPY_A_SLICE(a_pages + (s % STAGES) * A_PAGE, A, lda, M, k_count, row0, s * TILE_K, tid);
      COPY_B_SLICE(b_pages + (s % STAGES) * B_PAGE, B, ldb, N, k_count, col0, s * TILE_K, tid);
    }
    commit_copies(); // empty groups keep the count of groups in flight uniform
  }

  for (int step = 0; step < steps; ++step) {
    // Only the copies of the STAGES - 2 slices after this one may still be in flight.
    wait_for_copies_except_newest(STAGES - 2);
    // Every work-item's copies of this slice have landed, and every work-item is done with
    // the page the next copy overwrites (it held slice step - 1).
    barrier(CLK_LOCAL_MEM_FENCE);
    const int next = step + STAGES - 1;
    if (next < steps) {
      COPY_A_SLICE(a_pages + (next % STAGES) * A_PAGE, A, lda, M, k_count, row0, next * TILE_K,
                   tid);
      COPY_B_SLICE(b_pages + (next % STAGES) * B_PAGE, B, ldb, N, k_count, col0, next * TILE_K,
                   tid);
    }
    commit_copies();

    __local const float *a_page = a_pages + (step % STAGES) * A_PAGE;
    __local const float *b_page = b_pages + (step % STAGES) * B_PAGE;
#if PRECISION == PRECISION_3XTF32
    // The tensor cores truncate what they add into the accumulator, a bias that grows with K
    // (measured: docs/PERFORMANCE.md). So the three products of each operand pair (low * high,
    // high * low, then high * high) over SUM_STEPS steps of MMA_K are summed from zero, where
    // the truncation is at their own small scale, and enter the accumulator through an
    // ordinary round-to-nearest addition. B's fragments of those steps are loaded and split
    // once, A's one warp tile row at a time, so the fragments held beside the accumulators
    // grow by one row of A's only.
#pragma unroll
    for (int kk = 0; kk < TILE_K; kk += SUM_STEPS * MMA_K) {
      float b[SUM_STEPS][N_TILES][2], b_low[SUM_STEPS][N_TILES][2];
#pragma unroll
      for (int s = 0; s < SUM_STEPS; ++s)
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) {
          load_b_fragment(b[s][j], b_page, warp_col + j * MMA_N, kk + s * MMA_K, lane);
#pragma unroll
          for (int e = 0; e < 2; ++e) split_tf32(&b[s][j][e], &b_low[s][j][e]);
        }
#pragma unroll
      for (int i = 0; i < M_TILES; ++i) {
        float a[SUM_STEPS][4], a_low[SUM_STEPS][4];
#pragma unroll
        for (int s = 0; s < SUM_STEPS; ++s) {
          load_a_fragment(a[s], a_page, warp_row + i * MMA_M, kk + s * MMA_K, lane);
#pragma unroll
          for (int e = 0; e < 4; ++e) split_tf32(&a[s][e], &a_low[s][e]);
        }
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) {
          float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
          for (int s = 0; s < SUM_STEPS; ++s) {
            mma_16x8x8(sum, a_low[s], b[s][j]);
            mma_16x8x8(sum, a[s], b_low[s][j]);
            mma_16x8x8(sum, a[s], b[s][j]);
          }
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] += sum[e];
        }
      }
    }
#else
#pragma unroll
    for (int kk = 0; kk < TILE_K; kk += MMA_K) {
      float a[M_TILES][4], b[N_TILES][2];
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
        load_a_fragment(a[i], a_page, warp_row + i * MMA_M, kk, lane);
#pragma unroll
      for (int j = 0; j < N_TILES; ++j)
        load_b_fragment(b[j], b_page, warp_col + j * MMA_N, kk, lane);
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) a[i][e] = cvt_tf32(a[i][e]);
#pragma unroll
      for (int j = 0; j < N_TILES; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) b[j][e] = cvt_tf32(b[j][e]);
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) mma_16x8x8(acc[i][j], a[i], b[j]);
    }
#endif
  }

  // Lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each MMA_M x MMA_N tile.
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < M_TILES; ++i)
#pragma unroll
    for (int j = 0; j < N_TILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = row0 + warp_row + i * MMA_M + g + (e >> 1) * 8;
        const int col = col0 + warp_col + j * MMA_N + 2 * t + (e & 1);
        if (row < M && col < N)
          store_result(C, c_offset + (size_t)row * ldc + col, row, col, acc[i][j][e], alpha,
                       beta, epilogue);
      }
}
