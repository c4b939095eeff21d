// wgmma: SGEMM in TF32 (PRECISION 1) or 3xTF32 (PRECISION 2) on Hopper's warpgroup MMA
// (wgmma.mma_async, sm_90a), built through the PTX rewrite (kernels/wgmma.clh,
// src/runtime/ptx_rewrite.hpp): the host builds it only on NVIDIA devices of compute
// capability 9.0 whose wgmma probe passed.
//
// The host first packs A and B (kernels/wgmma_pack.cl) into blocks of TILE_M (or TILE_N) rows
// by DEPTH of K, already rounded to TF32 (or split into high and low parts), K-major and laid
// out as the tensor cores read them (kernels/wgmma_layout.clh). So the main loop only moves
// and multiplies:
//   - a work-group is WARPGROUPS warpgroups of 128 work-items (by default one for TILE_M 64,
//     two otherwise; four need the work-group bound the PTX rewrite writes into the entry,
//     src/runtime/ptx_rewrite.hpp); each owns SUBTILES blocks of 64 rows of the group's
//     TILE_M x TILE_N block of C, as the accumulators of one wgmma m64nTILE_Nk8 each (TILE_N / 2
//     floats per work-item and block);
//   - one work-item brings each slice's block of B (and, unless A_REGISTERS, of A) into one
//     of STAGES local pages with bulk copies (cp.async.bulk) that signal the page's barrier as
//     their bytes land (kernels/async_copy.clh): first every page, then each page again as
//     soon as every warp's wgmma on it has completed (wgmma's wait, then either the
//     work-group barrier or, with LAST_WARP_REFILLS, a count of the warps done with it);
//   - with A_REGISTERS, A never passes through local memory: each work-item loads its
//     fragments of a slice into registers two slices before they are multiplied, into the
//     third of three sets of registers, freed by the same wait that frees the page. So a page
//     holds only B, and deeper slices or more of them fit the < 48 KiB of local memory.
//     A_REGISTERS 1 packs A in the order its work-items hold it (one 16-byte load per 64 rows, step
//     and part, the warpgroup's loads contiguous); A_REGISTERS 2 packs only B and loads A as the
//     caller stores it (TRANS_A), zero beyond M and K, rounding or splitting each slice's fragments
//     in registers one slice before its wgmma. Its loads pair the columns: in each 8-deep step,
//     work-item t holds columns 2t and 2t + 1 (one 8-byte load per row where A's rows are
//     K-contiguous and 8-byte aligned) where wgmma expects columns t and t + 4, and B is packed
//     with its rows of K in the same order (PAIRED_K of kernels/wgmma_layout.clh), so the sum over
//     K is the same. It measured slower than A_REGISTERS 1 on every size (docs/PERFORMANCE.md,
//     "wgmma reading A as stored"): the loads are waited for one slice after they are issued, where
//     the packed ones are waited for two slices after;
//   - the warpgroups multiply each page once its barrier completes, B (and A without
//     A_REGISTERS) read through matrix descriptors. In TF32 the wgmma of one slice still runs
//     while the next page is waited for and issued.
// The tuner chooses between the barrier and LAST_WARP_REFILLS per precision and shape class;
// the other ways of freeing pages that were measured are in docs/PERFORMANCE.md ("Design notes
// and measurements behind the kernels").
// Built with SLICED_K, a work-group computes one slice of K (split-K, gemm_common.clh).
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
#define TILE_M 128 // rows of C per work-group: 64 (one warpgroup), 128 or 256 (two)
#endif
#ifndef TILE_N
#define TILE_N 64 // columns of C per work-group, the N of the wgmma: 64, 128, 192 or 256
#endif
#ifndef STAGES
#define STAGES 3 // local pages, each one slice of B (and of A): 2 to 6
#endif
#ifndef A_REGISTERS
#define A_REGISTERS 0 // 0: A through the local pages; into registers: 1 packed, 2 as stored
#endif
#ifndef TRANS_A
#define TRANS_A 0 // with A_REGISTERS 2: 0 element (i, k) of A at i * lda + k, 1 at k * lda + i
#endif
#ifndef LAST_WARP_REFILLS
#define LAST_WARP_REFILLS 0 // 1: the last warp done with a page refills it, 0: after a barrier
#endif

#ifndef WARPGROUPS
#define WARPGROUPS 0 // 1, 2 or 4 warpgroups per work-group; 0: one for TILE_M 64, else two
#endif
#if WARPGROUPS == 0
#undef WARPGROUPS
#define WARPGROUPS (TILE_M == 64 ? 1 : 2)
#endif
#if TILE_M != 64 && TILE_M != 128 && TILE_M != 256
#error "TILE_M must be 64, 128 or 256"
#endif
#if TILE_M % (64 * WARPGROUPS) != 0
#error "each warpgroup owns whole blocks of 64 rows: TILE_M % (64 * WARPGROUPS) == 0"
#endif
#define SUBTILES (TILE_M / (64 * WARPGROUPS)) // blocks of 64 rows per warpgroup
#define THREADS (WARPGROUPS * 128)
#define WARPS (THREADS / 32)
#define SUBTILE_ACCUMULATORS (TILE_N / 2) // per work-item and block of 64 rows
#define ACCUMULATORS (SUBTILES * SUBTILE_ACCUMULATORS)
#define STEPS (DEPTH / 8)                 // wgmma steps per slice
#define A_BLOCK (PARTS * TILE_M * DEPTH)  // floats of one packed block of A
#define B_BLOCK (PARTS * TILE_N * DEPTH)
#if A_REGISTERS
#define A_PAGE 0 // floats of A in a local page
#else
#define A_PAGE A_BLOCK
#endif
#define LEADING_BYTES 128         // from one core matrix to the next along K
#define STRIDE_BYTES (32 * DEPTH) // from one 8-row group to the next

#if TILE_N == 64
#define WGMMA_DESCRIPTORS wgmma_64x64x8_tf32
#define WGMMA_A_REGISTERS wgmma_64x64x8_tf32_a_registers
#elif TILE_N == 128
#define WGMMA_DESCRIPTORS wgmma_64x128x8_tf32
#define WGMMA_A_REGISTERS wgmma_64x128x8_tf32_a_registers
#elif TILE_N == 192
#define WGMMA_DESCRIPTORS wgmma_64x192x8_tf32
#define WGMMA_A_REGISTERS wgmma_64x192x8_tf32_a_registers
#elif TILE_N == 256
#define WGMMA_DESCRIPTORS wgmma_64x256x8_tf32
#define WGMMA_A_REGISTERS wgmma_64x256x8_tf32_a_registers
#else
#error "TILE_N must be 64, 128, 192 or 256"
#endif
#if ACCUMULATORS == 32
#define WGMMA_WAIT wgmma_wait_32
#elif ACCUMULATORS == 64
#define WGMMA_WAIT wgmma_wait_64
#elif ACCUMULATORS == 96
#define WGMMA_WAIT wgmma_wait_96
#elif ACCUMULATORS == 128
#define WGMMA_WAIT wgmma_wait_128
#else
#error "SUBTILES * TILE_N / 2 must be 32, 64, 96 or 128 accumulators per work-item"
#endif

// The descriptor of step kk (a multiple of 8) of a part starting at `part`: core matrix
// (0, kk / 4) is kk / 4 * 128 bytes = 8 kk floats in.
inline ulong step_descriptor(__local const float *part, const int kk) {
  return local_matrix_descriptor(part + 8 * kk, LEADING_BYTES, STRIDE_BYTES);
}

// Slice `slice` of this group's packed B (and A) into page `page` (work-item 0).
inline void fetch_slice(__local float *a_pages, __local float *b_pages, __local ulong *full,
                        __global const float *a_blocks, __global const float *b_blocks,
                        const int slice, const int page) {
  barrier_arrive_expecting(full + page, (A_PAGE + B_BLOCK) * 4);
#if !A_REGISTERS
  bulk_copy_to_local(a_pages + page * A_BLOCK, a_blocks + (size_t)slice * A_BLOCK, A_BLOCK * 4,
                     full + page);
#endif
  bulk_copy_to_local(b_pages + page * B_BLOCK, b_blocks + (size_t)slice * B_BLOCK, B_BLOCK * 4,
                     full + page);
}

// One slice's fragments of A, for this work-item: PARTS x SUBTILES x STEPS runs of the bit
// patterns of 4 floats, in the order of FRAGMENT_INDEX (kernels/wgmma_layout.clh). Nothing is
// loaded past the last slice.
#define FRAGMENT_RUNS (A_REGISTERS ? PARTS * SUBTILES * STEPS : 1)
#define FRAGMENT_AT(part, subtile, kk) ((((part) * SUBTILES + (subtile)) * STEPS) + (kk) / 8)
#if A_REGISTERS == 2
// Where this work-item's fragments of A come from, as the caller stores A: its first row
// (of the first 64-row block, its warp's row g) and the pair of columns 2t, 2t + 1 of each
// step; rows at or beyond M and columns at or beyond K read as zero.
typedef struct {
  __global const float *a;
  int lda, rows, depth;  // M and K
  int row, pair;         // this work-item's first row and first column of the pair
  int pairs_load;        // rows are K-contiguous and 8-byte aligned: one load per row and pair
  int group_inside;      // the work-group's TILE_M rows are all below M
} FragmentSource;

inline float a_element(const FragmentSource *src, const int r, const int k) {
  if (r >= src->rows || k >= src->depth) return 0.0f;
#if TRANS_A
  return src->a[(size_t)k * src->lda + r];
#else
  return src->a[(size_t)r * src->lda + k];
#endif
}

// The fragment of rows r, r + 8 and columns k, k + 1 as stored: (A(r, k), A(r + 8, k),
// A(r, k + 1), A(r + 8, k + 1)), the order of a[0] .. a[3] with k standing for t and k + 1
// for t + 4.
inline float4 stored_fragment(const FragmentSource *src, const int r, const int k,
                              const int inside) {
  if (inside && src->pairs_load) {
    const float2 top = *(__global const float2 *)(src->a + (size_t)r * src->lda + k);
    const float2 bottom = *(__global const float2 *)(src->a + (size_t)(r + 8) * src->lda + k);
    return (float4)(top.x, bottom.x, top.y, bottom.y);
  }
  return (float4)(a_element(src, r, k), a_element(src, r + 8, k), a_element(src, r, k + 1),
                  a_element(src, r + 8, k + 1));
}

// Slice `slice`'s fragments as stored, into part 0 (round_fragments makes the parts of them).
inline void load_fragments(uint4 *fragments, const FragmentSource *src, const int slice,
                           const int steps) {
  if (slice >= steps) return;
  const int k0 = slice * DEPTH + src->pair;
  // Every row of the group and every column of the slice inside A: no tests per element.
  const int inside = src->group_inside && (slice + 1) * DEPTH <= src->depth;
#pragma unroll
  for (int i = 0; i < SUBTILES; ++i)
#pragma unroll
    for (int kk = 0; kk < DEPTH; kk += 8)
      fragments[FRAGMENT_AT(0, i, kk)] =
          as_uint4(stored_fragment(src, src->row + i * 64, k0 + kk, inside));
}

// The loaded fragments of slice `slice` made operands, in place: each value rounded to TF32
// (part 0) and, in 3xTF32, the TF32 rounding of what that misses (part 1). Done one slice
// before they are multiplied, after the wait that ends the slice before: done just before the
// slice's own wgmma, it makes ptxas serialize every wgmma (kernels.wgmma_ptxas fails on that).
inline void round_fragments(uint4 *fragments, const int slice, const int steps) {
  if (slice >= steps) return;
#pragma unroll
  for (int run = 0; run < SUBTILES * STEPS; ++run) {
    const float4 x = as_float4(fragments[run]);
    const float4 high = (float4)(round_tf32(x.s0), round_tf32(x.s1), round_tf32(x.s2),
                                 round_tf32(x.s3));
    fragments[run] = as_uint4(high);
#if PARTS == 2
    fragments[SUBTILES * STEPS + run] =
        as_uint4((float4)(tf32_low_part(x.s0, high.s0), tf32_low_part(x.s1, high.s1),
                          tf32_low_part(x.s2, high.s2), tf32_low_part(x.s3, high.s3)));
#endif
  }
}
#else
// `own` points at the work-item's first run of the group's first packed slice.
typedef __global const float *FragmentSource;
inline void load_fragments(uint4 *fragments, const FragmentSource *src, const int slice,
                           const int steps) {
#if A_REGISTERS
  if (slice >= steps) return;
  __global const float *own = *src + (size_t)slice * A_BLOCK;
#pragma unroll
  for (int part = 0; part < PARTS; ++part)
#pragma unroll
    for (int i = 0; i < SUBTILES; ++i)
#pragma unroll
      for (int kk = 0; kk < DEPTH; kk += 8)
        fragments[FRAGMENT_AT(part, i, kk)] = *(__global const uint4 *)(
            own + part * TILE_M * DEPTH + (i * STEPS + kk / 8) * 128 * 4);
#endif
}
// Packed fragments are operands as loaded.
inline void round_fragments(uint4 *fragments, const int slice, const int steps) {}
#endif

// This warp's wgmma on the page of slice `freed` have completed: once every warp's have, the
// page is refilled with slice freed + STAGES, if there is one. With LAST_WARP_REFILLS the
// last warp to count itself out of the page issues the copies, and no warp waits for another;
// otherwise a work-group barrier gathers them and work-item 0 issues them.
#if LAST_WARP_REFILLS
#define REFILL_PAGE(freed)                                                                  \
  do {                                                                                      \
    if (lane == 0 && last_to_leave(done_with + (freed) % STAGES, WARPS) &&                  \
        (freed) + STAGES < steps)                                                           \
      fetch_slice(a_pages, b_pages, full, a_blocks, b_blocks, (freed) + STAGES,             \
                  (freed) % STAGES);                                                        \
  } while (0)
#else
#define REFILL_PAGE(freed)                                                                  \
  do {                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    if (tid == 0 && (freed) + STAGES < steps)                                               \
      fetch_slice(a_pages, b_pages, full, a_blocks, b_blocks, (freed) + STAGES,             \
                  (freed) % STAGES);                                                        \
  } while (0)
#endif

// Waits for the page of slice `step`; b_high points at its block of B (in 3xTF32 the high
// part, the low part following), a_high at this warpgroup's rows of A's (without
// A_REGISTERS).
#define AWAIT_PAGE(step)                                                                    \
  const int page = (step) % STAGES;                                                         \
  barrier_wait_phase(full + page, ((step) / STAGES) & 1);                                   \
  __local const float *a_high = a_pages + page * A_PAGE + warpgroup * SUBTILES * 64 * DEPTH; \
  __local const float *b_high = b_pages + page * B_BLOCK;                                   \
  (void)a_high

// One wgmma of step kk (a multiple of 8) into the accumulators of block i: A's part `part`
// from `fragments` or from the page, times B's part at `b_part`.
#if A_REGISTERS
#define PRODUCT(d, i, fragments, part, b_part, kk, accumulate)                        \
  WGMMA_A_REGISTERS((d) + (i) * SUBTILE_ACCUMULATORS, fragments[FRAGMENT_AT(part, i, kk)], \
                    step_descriptor(b_part, kk), accumulate)
#else
#define PRODUCT(d, i, fragments, part, b_part, kk, accumulate)                                \
  WGMMA_DESCRIPTORS((d) + (i) * SUBTILE_ACCUMULATORS,                                       \
                    step_descriptor(a_high + (part) * TILE_M * DEPTH + (i) * 64 * DEPTH, kk), \
                    step_descriptor(b_part, kk), accumulate)
#endif

// Waits for the page of slice `step`, then issues this warpgroup's products on it into `d`
// and commits them as one group: in TF32 added to d; in 3xTF32 d becomes the slice's own sum,
// in each 8-deep step the small products first (low * high, high * low, then high * high).
#if PRECISION == PRECISION_3XTF32
#define ISSUE_SLICE(step, d, fragments)                                       \
  do {                                                                        \
    AWAIT_PAGE(step);                                                         \
    __local const float *b_low = b_high + TILE_N * DEPTH;                     \
    wgmma_fence();                                                            \
    _Pragma("unroll") for (int kk = 0; kk < DEPTH; kk += 8)                   \
    _Pragma("unroll") for (int i = 0; i < SUBTILES; ++i) {                    \
      PRODUCT(d, i, fragments, 1, b_high, kk, kk > 0);                        \
      PRODUCT(d, i, fragments, 0, b_low, kk, 1);                              \
      PRODUCT(d, i, fragments, 0, b_high, kk, 1);                             \
    }                                                                         \
    wgmma_commit_group();                                                     \
  } while (0)
#else
#define ISSUE_SLICE(step, d, fragments)                                       \
  do {                                                                        \
    AWAIT_PAGE(step);                                                         \
    wgmma_fence();                                                            \
    _Pragma("unroll") for (int kk = 0; kk < DEPTH; kk += 8)                   \
    _Pragma("unroll") for (int i = 0; i < SUBTILES; ++i)                      \
      PRODUCT(d, i, fragments, 0, b_high, kk, 1);                             \
    wgmma_commit_group();                                                     \
  } while (0)
#endif

// Slice `step`, its A in `fragments` (with A_REGISTERS); `freed` holds slice step - 1's,
// which the wait below releases: slice step + 2's are loaded into it; `next` holds slice
// step + 1's, made operands after the wait and the refill (round_fragments: a warp that waits
// there for its loads then holds no other warp back at the refill's barrier).
#if PRECISION == PRECISION_3XTF32
// The tensor cores truncate what they add into the accumulator, a bias that grows with K
// (tensorcore.cl). So each slice's products are summed from zero, at their own small scale,
// and enter the accumulator through an ordinary round-to-nearest addition. (Two sets of
// sums in flight, one added while the other is computed, make ptxas serialize every wgmma:
// it allows no other instruction to read a wgmma's registers while any wgmma is pending.)
#define SLICE(step, fragments, freed, next)                                       \
  do {                                                                            \
    ISSUE_SLICE(step, slice_sum, fragments);                                      \
    WGMMA_WAIT(slice_sum, 0);                                                     \
    _Pragma("unroll") for (int j = 0; j < ACCUMULATORS; ++j) acc[j] += slice_sum[j]; \
    load_fragments(freed, &fragment_source, (step) + 2, steps);                   \
    REFILL_PAGE(step);                                                            \
    round_fragments(next, (step) + 1, steps);                                     \
  } while (0)
#else
// This step's products may still run; the previous step's have completed, so this warpgroup
// is done with the previous page and the previous slice's fragments.
#define SLICE(step, fragments, freed, next)                       \
  do {                                                            \
    ISSUE_SLICE(step, acc, fragments);                            \
    WGMMA_WAIT(acc, 1);                                           \
    load_fragments(freed, &fragment_source, (step) + 2, steps);   \
    if ((step) > 0) REFILL_PAGE((step) - 1);                      \
    round_fragments(next, (step) + 1, steps);                     \
  } while (0)
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_wgmma(
    GEMM_PARAMETERS, SLICE_PARAMETERS) {
  const int tid = get_local_id(0);
  const int tile_column = get_group_id(0), tile_row = get_group_id(1), tile_z = get_group_id(2);
  // B is packed: product p's at b_offset_arg + p * stride_b, a table giving only C's (and,
  // with A_REGISTERS 2, A's) offsets and the scalars. So is A, likewise, unless A_REGISTERS 2.
  // A slice of K starts at a whole packed slice (k_slice is a multiple of DEPTH).
  SELECT_PRODUCT_SLICE(tile_z);
  const int warpgroup = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int col0 = tile_column * TILE_N;
  const int row0 = tile_row * TILE_M;
  const int packed_slices = (K_arg + DEPTH - 1) / DEPTH;
  __global const float *a_blocks =
      A + a_offset_arg + product * stride_a +
      ((size_t)tile_row * packed_slices + k_begin / DEPTH) * A_BLOCK;
  __global const float *b_blocks =
      B + b_offset_arg + product * stride_b +
      ((size_t)tile_column * packed_slices + k_begin / DEPTH) * B_BLOCK;
#if A_REGISTERS == 2
  const FragmentSource fragment_source = {
      &A_AT(0, k_begin) + a_offset, lda, M, k_count,
      row0 + warpgroup * SUBTILES * 64 + warp * 16 + lane / 4, 2 * (lane % 4),
      !TRANS_A && ((a_offset | (ulong)lda) & 1) == 0, row0 + TILE_M <= M};
  (void)a_blocks;
#else
  // This work-item's first run of fragments (FRAGMENT_RUN: block, step, work-item).
  const FragmentSource fragment_source =
      a_blocks + (warpgroup * SUBTILES * STEPS * 128 + tid % 128) * 4;
#endif

  __local float a_pages[STAGES * A_PAGE + 4] __attribute__((aligned(128)));
  __local float b_pages[STAGES * B_BLOCK] __attribute__((aligned(128)));
  __local ulong full[STAGES];    // page s holds its slice once full[s] completes a phase
  __local uint done_with[STAGES]; // warps done with page s, over all its slices so far

  const int steps = (k_count + DEPTH - 1) / DEPTH; // none for a product whose alpha is 0
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrier_init(full + s, 1);
      done_with[s] = 0;
    }
    fence_barrier_init();
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (tid == 0)
    for (int slice = 0; slice < STAGES && slice < steps; ++slice)
      fetch_slice(a_pages, b_pages, full, a_blocks, b_blocks, slice, slice);

  // Three sets of A's fragments in rotation: slice s is in set s % 3.
  uint4 fragments_0[FRAGMENT_RUNS], fragments_1[FRAGMENT_RUNS], fragments_2[FRAGMENT_RUNS];
  load_fragments(fragments_0, &fragment_source, 0, steps);
  load_fragments(fragments_1, &fragment_source, 1, steps);
  round_fragments(fragments_0, 0, steps);

  float acc[ACCUMULATORS];
#pragma unroll
  for (int j = 0; j < ACCUMULATORS; ++j) acc[j] = 0.0f;
#if PRECISION == PRECISION_3XTF32
  float slice_sum[ACCUMULATORS];
#endif

  for (int step = 0; step < steps; step += 3) {
    SLICE(step, fragments_0, fragments_2, fragments_1);
    if (step + 1 < steps) SLICE(step + 1, fragments_1, fragments_0, fragments_2);
    if (step + 2 < steps) SLICE(step + 2, fragments_2, fragments_1, fragments_0);
  }
  WGMMA_WAIT(acc, 0);

  // Work-item (w, g, t) of its warpgroup holds rows 16 w + g and 16 w + g + 8 of each 8
  // columns j / 4 of each of its blocks of 64 rows (wgmma.clh).
  const int g = lane / 4, t = lane % 4;
  const int col_base = col0 + 2 * t;
#pragma unroll
  for (int i = 0; i < SUBTILES; ++i) {
    const int row_base = row0 + (warpgroup * SUBTILES + i) * 64 + warp * 16 + g;
#pragma unroll
    for (int j = 0; j < SUBTILE_ACCUMULATORS; ++j) {
      const int row = row_base + ((j >> 1) & 1) * 8;
      const int col = col_base + (j >> 2) * 8 + (j & 1);
      if (row < M && col < N)
        store_result(C, c_offset + (size_t)row * ldc + col, row, col,
                     acc[i * SUBTILE_ACCUMULATORS + j], alpha, beta, epilogue);
    }
  }
}
