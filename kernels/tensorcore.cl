// tensorcore: SGEMM on NVIDIA tensor cores (compute capability 8.0 or newer) through inline
// PTX, in TF32 (PRECISION 1) or in 3xTF32 (PRECISION 2: three TF32 products per step, FP32-level
// accuracy). The host builds it only where its probe kernel compiled and ran; elsewhere the
// same precision modes run on `blocked` with ordinary FMAs and the rounding of tf32.clh.
//
// A work-group of WARPS_M x WARPS_N warps computes a TILE_M x TILE_N block of C. Each warp owns
// a WARP_M x WARP_N part of it, a grid of 16 x 8 tiles, and each tile is the accumulator of one
// mma.sync.m16n8k8 (four floats per lane). TILE_K-deep slices of A and B go from global to
// local memory with cp.async, without a detour through registers, into STAGES pages: the
// copies of the next slices run while the tensor cores work on this one. The pages keep each
// operand in the order it has in global memory, padded so that the lanes' fragment reads fall
// on 32 different banks.
#include "gemm_common.clh"

#ifndef PRECISION
#define PRECISION 1 // 1: tf32, 2: 3xtf32 (fp32 runs on the other kernels)
#endif
#include "tf32.clh"
#include "ptx.clh"

#ifndef TILE_M
#define TILE_M 128 // rows of C per work-group
#endif
#ifndef TILE_N
#define TILE_N 128 // columns of C per work-group
#endif
#ifndef TILE_K
#define TILE_K 16 // depth of one slice, a multiple of 8
#endif
#ifndef WARP_M
#define WARP_M 64 // rows of C per warp, a multiple of 16
#endif
#ifndef WARP_N
#define WARP_N 32 // columns of C per warp, a multiple of 8
#endif
#ifndef STAGES
#define STAGES 2 // local pages in flight: 2, 3 or 4
#endif
#ifndef VEC
#define VEC 4 // floats per cp.async of an aligned operand: 1 or 4
#endif
#ifndef A_ALIGNED
#define A_ALIGNED 0 // 1 when the host proved every row of A starts VEC-aligned
#endif
#ifndef B_ALIGNED
#define B_ALIGNED 0 // 1 when the host proved every row of B starts VEC-aligned
#endif

#define WARPS_M (TILE_M / WARP_M)
#define WARPS_N (TILE_N / WARP_N)
#define THREADS (WARPS_M * WARPS_N * 32)
#define M_TILES (WARP_M / 16) // mma tiles per warp along M
#define N_TILES (WARP_N / 8)  // and along N
#define A_CHUNK (A_ALIGNED ? VEC : 1) // floats per copy of A
#define B_CHUNK (B_ALIGNED ? VEC : 1)

// Local pages. An operand whose rows run along k is kept [x][k] with a pitch of TILE_K + 4,
// one whose rows run along m or n is kept [k][x] with a pitch of TILE_x + 8: either way the
// 32 lanes of a fragment read (row g = lane / 4, column t = lane % 4) hit distinct banks.
#if TRANS_A
#define A_PITCH (TILE_M + 8)
#define A_PAGE (TILE_K * A_PITCH)
#define A_LOCAL(m, k) ((k) * A_PITCH + (m))
#else
#define A_PITCH (TILE_K + 4)
#define A_PAGE (TILE_M * A_PITCH)
#define A_LOCAL(m, k) ((m) * A_PITCH + (k))
#endif
#if TRANS_B
#define B_PITCH (TILE_K + 4)
#define B_PAGE (TILE_N * B_PITCH)
#define B_LOCAL(k, n) ((n) * B_PITCH + (k))
#else
#define B_PITCH (TILE_N + 8)
#define B_PAGE (TILE_K * B_PITCH)
#define B_LOCAL(k, n) ((k) * B_PITCH + (n))
#endif

// Waits until at most STAGES - 2 groups of copies of this work-item are still in flight.
#define WAIT_FOR_OLDEST_SLICE() \
  asm volatile("cp.async.wait_group " XSTRINGIFY(STAGES_IN_FLIGHT) ";" ::: "memory")
#if STAGES == 2
#define STAGES_IN_FLIGHT 0
#elif STAGES == 3
#define STAGES_IN_FLIGHT 1
#else
#define STAGES_IN_FLIGHT 2
#endif

// Copies a tile of `lines` rows of `along` floats, whose element (l, a) is
// src[(line0 + l) * ld + along0 + a], into a page of the given pitch; elements past
// line_limit or along_limit become zero.
inline void copy_tile(__local float *page, const int pitch, __global const float *src,
                      const int ld, const int lines, const int along, const int line0,
                      const int along0, const int line_limit, const int along_limit,
                      const int chunk, const int tid) {
  const int chunks_per_line = along / chunk;
#pragma unroll
  for (int c = tid; c < lines * chunks_per_line; c += THREADS) {
    const int line = c / chunks_per_line;
    const int at = (c % chunks_per_line) * chunk;
    const int global_line = line0 + line, global_at = along0 + at;
    const int valid =
        global_line < line_limit ? clamp(along_limit - global_at, 0, chunk) : 0;
    __global const float *from = valid ? src + (size_t)global_line * ld + global_at : src;
    copy_async(page + line * pitch + at, from, chunk, valid);
  }
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_tensorcore(
    GEMM_PARAMETERS) {
  const int tid = get_local_id(0);
  const int lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4; // the fragment coordinates of this lane
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

  const int steps = (K + TILE_K - 1) / TILE_K;

// Starts the copies of slice `s` (k from s * TILE_K) into page s % STAGES.
#if TRANS_A
#define COPY_A(page, k0) \
  copy_tile(page, A_PITCH, A, lda, TILE_K, TILE_M, k0, row0, K, M, A_CHUNK, tid)
#else
#define COPY_A(page, k0) \
  copy_tile(page, A_PITCH, A, lda, TILE_M, TILE_K, row0, k0, M, K, A_CHUNK, tid)
#endif
#if TRANS_B
#define COPY_B(page, k0) \
  copy_tile(page, B_PITCH, B, ldb, TILE_N, TILE_K, col0, k0, N, K, B_CHUNK, tid)
#else
#define COPY_B(page, k0) \
  copy_tile(page, B_PITCH, B, ldb, TILE_K, TILE_N, k0, col0, K, N, B_CHUNK, tid)
#endif
#define COPY_SLICE(s)                                                   \
  COPY_A(a_pages + ((s) % STAGES) * A_PAGE, (s) * TILE_K);               \
  COPY_B(b_pages + ((s) % STAGES) * B_PAGE, (s) * TILE_K)

  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) {
      COPY_SLICE(s);
    }
    commit_copies(); // empty groups keep the count of groups in flight uniform
  }

  for (int step = 0; step < steps; ++step) {
    WAIT_FOR_OLDEST_SLICE();
    // Every work-item's copies of this slice have landed, and every work-item is done with
    // the page the next copy overwrites (it held slice step - 1).
    barrier(CLK_LOCAL_MEM_FENCE);
    if (step + STAGES - 1 < steps) {
      COPY_SLICE(step + STAGES - 1);
    }
    commit_copies();

    __local const float *a_page = a_pages + (step % STAGES) * A_PAGE;
    __local const float *b_page = b_pages + (step % STAGES) * B_PAGE;
#pragma unroll
    for (int kk = 0; kk < TILE_K; kk += 8) {
      float a[M_TILES][4], b[N_TILES][2];
#pragma unroll
      for (int i = 0; i < M_TILES; ++i) {
        const int m = warp_row + i * 16 + g;
        a[i][0] = round_tf32(a_page[A_LOCAL(m, kk + t)]);
        a[i][1] = round_tf32(a_page[A_LOCAL(m + 8, kk + t)]);
        a[i][2] = round_tf32(a_page[A_LOCAL(m, kk + t + 4)]);
        a[i][3] = round_tf32(a_page[A_LOCAL(m + 8, kk + t + 4)]);
      }
#pragma unroll
      for (int j = 0; j < N_TILES; ++j) {
        const int n = warp_col + j * 8 + g;
        b[j][0] = round_tf32(b_page[B_LOCAL(kk + t, n)]);
        b[j][1] = round_tf32(b_page[B_LOCAL(kk + t + 4, n)]);
      }
#if PRECISION == PRECISION_3XTF32
      // The low parts: what rounding took off each operand, itself rounded to TF32.
      float a_low[M_TILES][4], b_low[N_TILES][2];
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int m = warp_row + i * 16 + g + (e & 1) * 8;
          const int k = kk + t + (e >> 1) * 4;
          a_low[i][e] = tf32_low_part(a_page[A_LOCAL(m, k)], a[i][e]);
        }
#pragma unroll
      for (int j = 0; j < N_TILES; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int n = warp_col + j * 8 + g;
          b_low[j][e] = tf32_low_part(b_page[B_LOCAL(kk + t + e * 4, n)], b[j][e]);
        }
      // Small terms first, then the main product.
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) {
          mma_16x8x8(acc[i][j], a_low[i], b[j]);
          mma_16x8x8(acc[i][j], a[i], b_low[j]);
        }
#endif
#pragma unroll
      for (int i = 0; i < M_TILES; ++i)
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) mma_16x8x8(acc[i][j], a[i], b[j]);
    }
  }

  // Lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 tile.
#pragma unroll
  for (int i = 0; i < M_TILES; ++i)
#pragma unroll
    for (int j = 0; j < N_TILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = row0 + warp_row + i * 16 + g + (e >> 1) * 8;
        const int col = col0 + warp_col + j * 8 + 2 * t + (e & 1);
        if (row < M && col < N)
          store_c(C, c_offset + (size_t)row * ldc + col, acc[i][j][e], alpha, beta);
      }
}
