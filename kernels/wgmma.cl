// wgmma: SGEMM in TF32 (PRECISION 1) or 3xTF32 (PRECISION 2) on Hopper's warpgroup MMA
// (wgmma.mma_async, sm_90a), built through the PTX rewrite (kernels/wgmma.clh,
// src/ptx_rewrite.hpp): the host builds it only on NVIDIA devices of compute capability 9.0
// whose wgmma probe passed.
//
// The host first packs A and B (kernels/wgmma_pack.cl) into blocks of TILE_M (or TILE_N) rows
// by DEPTH of K, already rounded to TF32 (or split into high and low parts), K-major and laid
// out as the tensor cores read them (kernels/wgmma_layout.clh). So the main loop only moves
// and multiplies:
//   - a work-group is WARPGROUPS = TILE_M / 64 warpgroups of 128 work-items; warpgroup w owns
//     rows 64 w .. 64 w + 63 of the group's TILE_M x TILE_N block of C, as the accumulators of
//     wgmma m64nTILE_Nk8 (TILE_N / 2 floats per work-item);
//   - work-item 0 also brings each pair of blocks (of A and of B) into one of STAGES local
//     pages with two bulk copies (cp.async.bulk) that signal the page's barrier as their bytes
//     land (kernels/async_copy.clh): first every page, then each page again as soon as every
//     warpgroup's wgmma on it has completed (wgmma's wait, then the work-group barrier);
//   - the warpgroups multiply each page once its barrier completes, both operands read through
//     matrix descriptors. In TF32 the wgmma of one slice still runs while the next page is
//     waited for and issued.
// (Freeing pages through barriers of their own instead of the work-group barrier, so that the
// warpgroups drift apart, measured slower on the H200: 150 against 214 TFLOP/s in TF32 at 4096 with 128 x 128
// blocks 8 deep in 4 stages.)
// Edges cost nothing in the loop: the packed blocks are zero beyond M, N and K, and only the
// store checks the edge of C.
#include "gemm_common.clh"

#ifndef PRECISION
#define PRECISION 1 // 1: tf32, 2: 3xtf32 (fp32 runs on the other kernels)
#endif
#include "wgmma_layout.clh"
#include "async_copy.clh"
#include "wgmma.clh"

#ifndef TILE_M
#define TILE_M 128 // rows of C per work-group: 64 (one warpgroup) or 128 (two)
#endif
#ifndef TILE_N
#define TILE_N 64 // columns of C per work-group, the N of the wgmma: 64, 128 or 256
#endif
#ifndef STAGES
#define STAGES 3 // local pages, each one slice of A and of B: 2 to 6
#endif

#define WARPGROUPS (TILE_M / 64)
#define THREADS (WARPGROUPS * 128)
#define ACCUMULATORS (TILE_N / 2) // per work-item
#define A_BLOCK (PARTS * TILE_M * DEPTH) // floats of one packed block of A (its page)
#define B_BLOCK (PARTS * TILE_N * DEPTH)
#define LEADING_BYTES 128         // from one core matrix to the next along K
#define STRIDE_BYTES (32 * DEPTH) // from one 8-row group to the next

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

// The descriptor of step kk (a multiple of 8) of a part starting at `part`: core matrix
// (0, kk / 4) is kk / 4 * 128 bytes = 8 kk floats in.
inline ulong step_descriptor(__local const float *part, const int kk) {
  return local_matrix_descriptor(part + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
}

// Slice `slice` of this group's packed A and B into page `page` (work-item 0).
inline void fetch_slice(__local float *a_pages, __local float *b_pages, __local ulong *full,
                        __global const float *a_blocks, __global const float *b_blocks,
                        const int slice, const int page) {
  barrier_arrive_expecting(full + page, (A_BLOCK + B_BLOCK) * 4);
  bulk_copy_to_local(a_pages + page * A_BLOCK, a_blocks + (size_t)slice * A_BLOCK, A_BLOCK * 4,
                     full + page);
  bulk_copy_to_local(b_pages + page * B_BLOCK, b_blocks + (size_t)slice * B_BLOCK, B_BLOCK * 4,
                     full + page);
}

// Every warpgroup is done with the page of slice `freed` (each waited for its wgmma on it,
// then this barrier): work-item 0 refills it with slice freed + STAGES, if there is one.
#define REFILL_PAGE(freed)                                                                   \
  do {                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    if (tid == 0 && (freed) + STAGES < steps)                                                \
      fetch_slice(a_pages, b_pages, full, a_blocks, b_blocks, (freed) + STAGES,              \
                  (freed) % STAGES);                                                         \
  } while (0)

// Waits for the page of slice `step`; a_high and b_high point at this warpgroup's rows of its
// blocks of A and B (in 3xTF32 their high parts, the low parts following each).
#define AWAIT_PAGE(step)                                                            \
  const int page = (step) % STAGES;                                                 \
  barrier_wait_phase(full + page, ((step) / STAGES) & 1);                           \
  __local const float *a_high = a_pages + page * A_BLOCK + warpgroup * 64 * DEPTH;  \
  __local const float *b_high = b_pages + page * B_BLOCK

// Waits for the page of slice `step`, then issues this warpgroup's products on it into `d`
// and commits them as one group: in TF32 added to d; in 3xTF32 d becomes the slice's own sum,
// in each 8-deep step the small products first (low * high, high * low, then high * high).
#if PRECISION == PRECISION_3XTF32
#define ISSUE_SLICE(step, d)                                                                \
  do {                                                                                      \
    AWAIT_PAGE(step);                                                                       \
    __local const float *a_low = a_high + TILE_M * DEPTH, *b_low = b_high + TILE_N * DEPTH; \
    wgmma_fence();                                                                          \
    _Pragma("unroll") for (int kk = 0; kk < DEPTH; kk += 8) {                               \
      WGMMA_TILE(d, step_descriptor(a_low, kk), step_descriptor(b_high, kk), kk > 0);       \
      WGMMA_TILE(d, step_descriptor(a_high, kk), step_descriptor(b_low, kk), 1);            \
      WGMMA_TILE(d, step_descriptor(a_high, kk), step_descriptor(b_high, kk), 1);           \
    }                                                                                       \
    wgmma_commit_group();                                                                   \
  } while (0)
// Waits until slice `step`'s sum `d` is complete and adds it into the accumulators.
#define RETIRE_SLICE(step, d)                                                 \
  do {                                                                        \
    WGMMA_WAIT(d, 0);                                                         \
    _Pragma("unroll") for (int j = 0; j < ACCUMULATORS; ++j) acc[j] += d[j];  \
  } while (0)
#else
#define ISSUE_SLICE(step, d)                                                          \
  do {                                                                                \
    AWAIT_PAGE(step);                                                                 \
    wgmma_fence();                                                                    \
    _Pragma("unroll") for (int kk = 0; kk < DEPTH; kk += 8)                           \
        WGMMA_TILE(d, step_descriptor(a_high, kk), step_descriptor(b_high, kk), 1);   \
    wgmma_commit_group();                                                             \
  } while (0)
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_wgmma(GEMM_PARAMETERS) {
  // A and B are the packed operands: product p's at a_offset_arg + p * stride_a (and b), a
  // table giving only C's offsets and the scalars.
  SELECT_PRODUCT(get_group_id(2));
  const int tid = get_local_id(0);
  const int warpgroup = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
  const int packed_slices = (K_arg + DEPTH - 1) / DEPTH;
  __global const float *a_blocks =
      A + a_offset_arg + product * stride_a + (size_t)get_group_id(1) * packed_slices * A_BLOCK;
  __global const float *b_blocks =
      B + b_offset_arg + product * stride_b + (size_t)get_group_id(0) * packed_slices * B_BLOCK;

  __local float a_pages[STAGES * A_BLOCK] __attribute__((aligned(128)));
  __local float b_pages[STAGES * B_BLOCK] __attribute__((aligned(128)));
  __local ulong full[STAGES]; // page s holds its slice once full[s] completes a phase

  const int steps = (K + DEPTH - 1) / DEPTH; // 0 for a product whose alpha is 0
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) barrier_init(full + s, 1);
    fence_barrier_init();
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (tid == 0)
    for (int slice = 0; slice < STAGES && slice < steps; ++slice)
      fetch_slice(a_pages, b_pages, full, a_blocks, b_blocks, slice, slice);

  float acc[ACCUMULATORS];
#pragma unroll
  for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = 0.0f;

#if PRECISION == PRECISION_3XTF32
  // The tensor cores truncate what they add into the accumulator, a bias that grows with K
  // (tensorcore.cl). So each slice's products are summed from zero, at their own small scale,
  // and enter the accumulator through an ordinary round-to-nearest addition. (Two sets of
  // sums in flight, one added while the other is computed, make ptxas serialize every wgmma:
  // it allows no other instruction to read a wgmma's registers while any wgmma is pending.)
  float slice_sum[ACCUMULATORS];
  for (int step = 0; step < steps; ++step) {
    ISSUE_SLICE(step, slice_sum);
    RETIRE_SLICE(step, slice_sum);
    REFILL_PAGE(step);
  }
#else
  for (int step = 0; step < steps; ++step) {
    ISSUE_SLICE(step, acc);
    // This step's products may still run; the previous step's have completed, so this
    // warpgroup is done with the previous page.
    WGMMA_WAIT(acc, 1);
    if (step > 0) REFILL_PAGE(step - 1);
  }
#endif
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
