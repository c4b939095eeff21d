// blocked: the production kernel. It keeps the vectorized rung's structure (rectangular
// TILE_M x TILE_N x TILE_K work-group tiles, an ITEM_M x ITEM_N block of C per work-item as
// a sum of outer products, VEC-wide global loads, two local pages with the next slice held in
// registers) and removes its bottleneck, the local-memory reads: a work-item owns groups of 4
// adjacent rows and 4 adjacent columns, so each k step reads its operands from local memory
// as float4 (one 16-byte read where the ladder issues four 4-byte ones).
//
// Which groups a work-item owns. Work-item tid = ty * WG_N + tx owns the ITEM_M / 4 groups of
// rows row_base + i4 * ROW_STRIDE + {0..3} and the ITEM_N / 4 groups of columns
// col_base + j4 * COL_STRIDE + {0..3}:
//  - LANES_N = 0 (the work-group layout): row_base = ty * 4, col_base = tx * 4, and the strides
//    are the work-group's extent, WG_M * 4 and WG_N * 4. The float4 reads of a warp are
//    consecutive 16-byte words (B) or the same word (A), and stores to C coalesce in fours; but
//    a warp spans all TILE_N columns, so it reads ITEM_M floats of A and TILE_N of B per k.
//  - LANES_N > 0 (warp tiles): the 32 work-items of warp tid / 32 are LANES_M = 32 / LANES_N
//    rows of LANES_N lanes (lane_m, lane_n), and the warp owns a (LANES_M * ITEM_M) x
//    (LANES_N * ITEM_N) sub-tile of the work-group's tile (warps ordered along N first). Within
//    it row_base = lane_m * 4 and col_base = lane_n * 4, the strides LANES_M * 4 and
//    LANES_N * 4: a quarter-warp's float4 reads are distinct consecutive words or one word,
//    and a warp reads fewer floats per k (64 of each operand for 64 x 64 warp tiles where
//    the work-group layout reads 16 of A and 256 of B). Where warps are not 32 wide this is
//    only another assignment of outputs to work-items.
// STORE_VEC4 = 1 stores each group of 4 columns of C as one 16-byte word where C's row is
// aligned to it (store_results4, kernels/gemm_common.clh), else a float at a time: on the H100
// the write-bound 8192x8192x64 ran 1.34x as fast, while PoCL ran the kernel at half its speed
// (docs/PERFORMANCE.md, "H100 and PoCL"), so the host derives 1 on GPUs and 0 on CPUs.
// FRAG_PREFETCH = 1 double-buffers the fragments (a work-item's ITEM_M floats of A and ITEM_N
// of B at one k) in registers: step k + 1's are read from local memory into the second set
// while step k's multiply, and at the last k of a slice the next slice is stored into the
// other page first, so that its k = 0 fragments are read during the last products.
// LOCAL_PAD floats after each k row of the local pages (a multiple of 4, keeping the float4
// reads aligned) move the rows of a page to other banks, so the transposing stores of an
// operand loaded along k (A, or B transposed) stop colliding.
// ASYNC_COPY = 1 (NVIDIA, compute capability 8.0 or newer: the host builds it nowhere else)
// copies the slices with cp.async (async_tile_loading.clh) into STAGES pages instead: the
// copies of the next STAGES - 1 slices run while this one is multiplied, and nothing passes
// through registers, which the accumulators keep. One barrier per slice, as with registers.
//
// It also computes the reduced precisions on any device (PRECISION, see tf32.clh): the
// operands are rounded to TF32 exactly as the tensor-core kernel rounds them (in TF32 once as
// they are written to local memory, else as they are read from it), and 3xtf32 adds the two
// cross products of high and low parts.
//
// K_GROUPS > 1 splits K inside the work-group: it is K_GROUPS groups of WG_N x WG_M work-items
// (k-groups, along dimension 1), each with pages of its own, and k-group g multiplies slices
// g, g + K_GROUPS, ... of the work-group's tile; at the end the k-groups sum their
// accumulators through local memory and k-group 0 stores C. So a launch of few tiles (one per
// compute unit or fewer) keeps K_GROUPS times the warps busy on each unit, with no partial
// products in global memory and no second launch, where split-K needs both.
//
// Built with SLICED_K = 1 (split-K) each work-group computes one slice of K of a product
// (SELECT_PRODUCT_SLICE, kernels/gemm_common.clh) and stores its partial product for
// splitk_reduce.cl to sum.
#include "gemm_common.clh"
#include "tf32.clh"

#ifndef TILE_M
#define TILE_M 128 // rows of C per work-group
#endif
#ifndef TILE_N
#define TILE_N 128 // columns of C per work-group
#endif
#ifndef TILE_K
#define TILE_K 16 // depth of one K step
#endif
#ifndef ITEM_M
#define ITEM_M 8 // rows of C per work-item, a multiple of 4
#endif
#ifndef ITEM_N
#define ITEM_N 8 // columns of C per work-item, a multiple of 4
#endif
#ifndef VEC
#define VEC 4 // floats per global load: 1, 2, 4, 8 or 16
#endif
#ifndef UNROLL
#define UNROLL 1 // 1: ask the compiler to unroll the register-block loops fully
#endif
#ifndef LANES_N
#define LANES_N 0 // 0: the work-group layout; else lanes of a 32-wide warp along N (1..32)
#endif
#ifndef FRAG_PREFETCH
#define FRAG_PREFETCH 0 // 1: read step k + 1's fragments before step k's products
#endif
#ifndef LOCAL_PAD
#define LOCAL_PAD 0 // floats after each k row of a local page, a multiple of 4
#endif
#ifndef STORE_VEC4
#define STORE_VEC4 0 // 1: C stored a group of 4 columns per 16-byte word where aligned
#endif
#ifndef ASYNC_COPY
#define ASYNC_COPY 0 // 1: cp.async from global into local memory (NVIDIA only)
#endif
#ifndef STAGES
#define STAGES 2 // local pages of each operand: 2, or with ASYNC_COPY up to 4
#endif
#ifndef K_GROUPS
#define K_GROUPS 1 // groups of work-items that share the tile and split its K: 1 to 4
#endif

// Full unrolling keeps the accumulators in registers on GPUs; on CPUs (PoCL) the compiler
// does as well without it, and compiles an order of magnitude faster.
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP
#endif

#define WG_M (TILE_M / ITEM_M) // work-items along M (dimension 1)
#define WG_N (TILE_N / ITEM_N) // work-items along N (dimension 0)
#define THREADS (WG_M * WG_N) // work-items of one k-group
#define A_LOADS (TILE_M * TILE_K / VEC / THREADS)
#define B_LOADS (TILE_K * TILE_N / VEC / THREADS)
#define A_PAGE_ROW (TILE_M + LOCAL_PAD) // floats from one k row of an A page to the next
#define B_PAGE_ROW (TILE_N + LOCAL_PAD)

#if LANES_N
#define LANES_M (32 / LANES_N)    // lanes of a warp along M
#define WARPS_N (WG_N / LANES_N)  // warps along N
#define ROW_STRIDE (LANES_M * 4)  // rows from one of a work-item's groups of 4 to the next
#define COL_STRIDE (LANES_N * 4)
#else
#define ROW_STRIDE (WG_M * 4)
#define COL_STRIDE (WG_N * 4)
#endif

#if ASYNC_COPY
#include "async_tile_loading.clh"
#else
#include "tile_loading.clh"
#endif

// Reads 4 adjacent floats from a local page as one 16-byte access.
#define LOCAL_FLOAT4(page, k, x) (*(__local const float4 *)&(page)[k][x])

// In TF32 the slices staged through registers are rounded once, as they are written to the
// pages, so that the fragments are read rounded; 3xTF32 needs the parts the rounding drops,
// and asynchronous copies pass no registers: both round the fragments as they are read.
#define PAGES_HOLD_TF32 (PRECISION == PRECISION_TF32 && !ASYNC_COPY)

#if !ASYNC_COPY
// Writes a slice of each operand, fetched into registers, to their pages.
inline __attribute__((always_inline)) void store_slices(__local float *a_page,
                                                        __local float *b_page, const int tid,
                                                        floatV a_next[A_LOADS],
                                                        floatV b_next[B_LOADS]) {
#if PAGES_HOLD_TF32
UNROLL_LOOP
  for (int l = 0; l < A_LOADS; ++l)
#pragma unroll
    for (int e = 0; e < VEC; ++e) ((float *)&a_next[l])[e] = round_tf32(((float *)&a_next[l])[e]);
UNROLL_LOOP
  for (int l = 0; l < B_LOADS; ++l)
#pragma unroll
    for (int e = 0; e < VEC; ++e) ((float *)&b_next[l])[e] = round_tf32(((float *)&b_next[l])[e]);
#endif
  store_a_slice(a_page, tid, a_next);
  store_b_slice(b_page, tid, b_next);
}
#endif

// Reads this work-item's fragments of step k from a pair of pages: its ITEM_M floats of
// A's column k and ITEM_N floats of B's row k, 4 at a time.
inline __attribute__((always_inline)) void read_fragments(
    __local const float (*a_page)[A_PAGE_ROW], __local const float (*b_page)[B_PAGE_ROW],
    const int k, const int row_base, const int col_base, float a_reg[ITEM_M],
    float b_reg[ITEM_N]) {
UNROLL_LOOP
  for (int i4 = 0; i4 < ITEM_M / 4; ++i4)
    vstore4(LOCAL_FLOAT4(a_page, k, row_base + i4 * ROW_STRIDE), 0, a_reg + 4 * i4);
UNROLL_LOOP
  for (int j4 = 0; j4 < ITEM_N / 4; ++j4)
    vstore4(LOCAL_FLOAT4(b_page, k, col_base + j4 * COL_STRIDE), 0, b_reg + 4 * j4);
}

// Adds the outer product of one step's fragments to the accumulators, in PRECISION (the
// fragments already rounded where the pages hold TF32).
inline __attribute__((always_inline)) void accumulate(float acc[ITEM_M][ITEM_N],
                                                      const float a_reg[ITEM_M],
                                                      const float b_reg[ITEM_N]) {
#if PRECISION == PRECISION_FP32 || PAGES_HOLD_TF32
UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i)
UNROLL_LOOP
    for (int j = 0; j < ITEM_N; ++j) acc[i][j] = mad(a_reg[i], b_reg[j], acc[i][j]);
#else
  float a_high[ITEM_M], b_high[ITEM_N];
UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i) a_high[i] = round_tf32(a_reg[i]);
UNROLL_LOOP
  for (int j = 0; j < ITEM_N; ++j) b_high[j] = round_tf32(b_reg[j]);
#if PRECISION == PRECISION_3XTF32
  float b_low[ITEM_N];
UNROLL_LOOP
  for (int j = 0; j < ITEM_N; ++j) b_low[j] = tf32_low_part(b_reg[j], b_high[j]);
UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i) {
    const float a_low = tf32_low_part(a_reg[i], a_high[i]);
UNROLL_LOOP
    for (int j = 0; j < ITEM_N; ++j)
      acc[i][j] = add_3xtf32_product(acc[i][j], a_high[i], a_low, b_high[j], b_low[j]);
  }
#else
UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i)
UNROLL_LOOP
    for (int j = 0; j < ITEM_N; ++j) acc[i][j] = mad(a_high[i], b_high[j], acc[i][j]);
#endif
#endif
}

// Adds the products of one slice, a pair of pages, to the accumulators: each step's fragments
// read from local memory, with FRAG_PREFETCH those of step k + 1 read before step k's
// products. (The register-staged prefetch also reads the next slice's first fragments early;
// the kernel does that itself.)
inline __attribute__((always_inline)) void multiply_pages(
    float acc[ITEM_M][ITEM_N], __local const float (*a_page)[A_PAGE_ROW],
    __local const float (*b_page)[B_PAGE_ROW], const int row_base, const int col_base) {
#if FRAG_PREFETCH
  float a_reg[2][ITEM_M], b_reg[2][ITEM_N];
  read_fragments(a_page, b_page, 0, row_base, col_base, a_reg[0], b_reg[0]);
UNROLL_LOOP
  for (int k = 0; k < TILE_K; ++k) {
    if (k + 1 < TILE_K)
      read_fragments(a_page, b_page, k + 1, row_base, col_base, a_reg[(k + 1) % 2],
                     b_reg[(k + 1) % 2]);
    accumulate(acc, a_reg[k % 2], b_reg[k % 2]);
  }
#else
UNROLL_LOOP
  for (int k = 0; k < TILE_K; ++k) {
    float a_reg[ITEM_M], b_reg[ITEM_N];
    read_fragments(a_page, b_page, k, row_base, col_base, a_reg, b_reg);
    accumulate(acc, a_reg, b_reg);
  }
#endif
}

#if K_GROUPS > 1
// Each k-group's pages, and the accumulators the k-groups add up at the end, in one pool of
// local memory (the sums reuse the pages once the products are done).
#define A_PAGES_FLOATS (STAGES * TILE_K * A_PAGE_ROW)
#define GROUP_PAGES_FLOATS (A_PAGES_FLOATS + STAGES * TILE_K * B_PAGE_ROW)
#define SUMS_FLOATS (TILE_M * TILE_N)
#define POOL_FLOATS \
  (K_GROUPS * GROUP_PAGES_FLOATS > SUMS_FLOATS ? K_GROUPS * GROUP_PAGES_FLOATS : SUMS_FLOATS)

// k-groups 1.. add their accumulators into `sums` in turn (k-group 1 writes, the others add),
// then k-group 0 adds the total to its own: work-item t's output (i, j) at (i * ITEM_N + j) *
// THREADS + t, consecutive for consecutive work-items. Every work-item reaches every barrier.
inline __attribute__((always_inline)) void sum_k_groups(__local float *sums,
                                                        float acc[ITEM_M][ITEM_N], const int kg,
                                                        const int tid) {
  barrier(CLK_LOCAL_MEM_FENCE);  // every k-group is done with its pages
  for (int g = 1; g < K_GROUPS; ++g) {
    if (kg == g) {
UNROLL_LOOP
      for (int i = 0; i < ITEM_M; ++i)
UNROLL_LOOP
        for (int j = 0; j < ITEM_N; ++j) {
          __local float *sum = sums + (i * ITEM_N + j) * THREADS + tid;
          *sum = g == 1 ? acc[i][j] : *sum + acc[i][j];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (kg == 0) {
UNROLL_LOOP
    for (int i = 0; i < ITEM_M; ++i)
UNROLL_LOOP
      for (int j = 0; j < ITEM_N; ++j) acc[i][j] += sums[(i * ITEM_N + j) * THREADS + tid];
  }
}
#endif

__kernel __attribute__((reqd_work_group_size(WG_N, WG_M * K_GROUPS, 1))) void gemm_blocked(
    GEMM_PARAMETERS, SLICE_PARAMETERS) {
  SELECT_PRODUCT_SLICE(get_group_id(2));
  A = &A_AT(0, k_begin); // this slice's first column of op(A) and row of op(B)
  B = &B_AT(k_begin, 0);
  A += a_offset;
  B += b_offset;
  const int tx = get_local_id(0);
#if K_GROUPS > 1
  const int kg = get_local_id(1) / WG_M; // this work-item's k-group
  const int ty = get_local_id(1) % WG_M;
#else
  const int kg = 0;
  const int ty = get_local_id(1);
#endif
  const int tid = ty * WG_N + tx; // within its k-group
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
#if LANES_N
  const int warp = tid / 32, lane = tid % 32;
  const int row_base = (warp / WARPS_N) * (LANES_M * ITEM_M) + (lane / LANES_N) * 4;
  const int col_base = (warp % WARPS_N) * (LANES_N * ITEM_N) + (lane % LANES_N) * 4;
#else
  const int row_base = ty * 4;
  const int col_base = tx * 4;
#endif

#if K_GROUPS > 1
  __local float pool[POOL_FLOATS] __attribute__((aligned(16)));
  __local float(*a_pages)[TILE_K][A_PAGE_ROW] =
      (__local float(*)[TILE_K][A_PAGE_ROW])(pool + kg * GROUP_PAGES_FLOATS);
  __local float(*b_pages)[TILE_K][B_PAGE_ROW] =
      (__local float(*)[TILE_K][B_PAGE_ROW])(pool + kg * GROUP_PAGES_FLOATS + A_PAGES_FLOATS);
#else
  __local float a_pages[STAGES][TILE_K][A_PAGE_ROW] __attribute__((aligned(16)));
  __local float b_pages[STAGES][TILE_K][B_PAGE_ROW] __attribute__((aligned(16)));
#endif

  float acc[ITEM_M][ITEM_N];
UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i)
UNROLL_LOOP
    for (int j = 0; j < ITEM_N; ++j) acc[i][j] = 0.0f;

  // Step s of a k-group multiplies slice s * K_GROUPS + kg, which starts at K_AT(s); each
  // k-group takes as many steps as the first (slices past K read as zeros).
  const int steps = ((k_count + TILE_K - 1) / TILE_K + K_GROUPS - 1) / K_GROUPS;
#define K_AT(step) (((step) * K_GROUPS + kg) * TILE_K)
#if ASYNC_COPY
  // Slice s goes to page s % STAGES; the first STAGES - 1 start before the loop. Every stage
  // commits one group of copies, empty past the last slice, so that "all but the newest
  // STAGES - 2 groups" always means "up to this slice".
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) {
      copy_a_slice_async(&a_pages[s][0][0], A, lda, M, k_count, row0, K_AT(s), tid);
      copy_b_slice_async(&b_pages[s][0][0], B, ldb, N, k_count, col0, K_AT(s), tid);
    }
    commit_copies();
  }
  for (int step = 0; step < steps; ++step) {
    wait_for_copies_except_newest(STAGES - 2);
    // Every work-item's copies of this slice have landed, and every work-item is done with
    // the page the next copies overwrite (it held slice step - 1).
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = step + STAGES - 1;
    if (ahead < steps) {
      copy_a_slice_async(&a_pages[ahead % STAGES][0][0], A, lda, M, k_count, row0, K_AT(ahead),
                         tid);
      copy_b_slice_async(&b_pages[ahead % STAGES][0][0], B, ldb, N, k_count, col0, K_AT(ahead),
                         tid);
    }
    commit_copies();
    multiply_pages(acc, a_pages[step % STAGES], b_pages[step % STAGES], row_base, col_base);
  }
#else
  floatV a_next[A_LOADS], b_next[B_LOADS];
  fetch_a_slice(A, lda, M, k_count, row0, K_AT(0), tid, a_next);
  fetch_b_slice(B, ldb, N, k_count, col0, K_AT(0), tid, b_next);
  store_slices(&a_pages[0][0][0], &b_pages[0][0][0], tid, a_next, b_next);
  barrier(CLK_LOCAL_MEM_FENCE);
#if FRAG_PREFETCH
  // Two sets of fragments, step k's in set k % 2, live across the barriers. (Without the
  // prefetch, each step's fragments are declared inside its loop: PoCL keeps an array whose
  // scope spans a barrier in memory, per work-item, which slows the default path there.)
  float a_reg[2][ITEM_M], b_reg[2][ITEM_N];
  read_fragments(a_pages[0], b_pages[0], 0, row_base, col_base, a_reg[0], b_reg[0]);
#endif

  for (int step = 0; step < steps; ++step) {
    const int page = step & 1;
    const bool more = step + 1 < steps;
    if (more) {
      fetch_a_slice(A, lda, M, k_count, row0, K_AT(step + 1), tid, a_next);
      fetch_b_slice(B, ldb, N, k_count, col0, K_AT(step + 1), tid, b_next);
    }

#if FRAG_PREFETCH
UNROLL_LOOP
    for (int k = 0; k + 1 < TILE_K; ++k) {
      read_fragments(a_pages[page], b_pages[page], k + 1, row_base, col_base, a_reg[(k + 1) % 2],
                     b_reg[(k + 1) % 2]);
      accumulate(acc, a_reg[k % 2], b_reg[k % 2]);
    }
    // The last k (odd: TILE_K is even): the other page was last read before the previous
    // barrier, so the next slice goes there now, and its k = 0 fragments into set 0.
    if (more) {
      store_slices(&a_pages[page ^ 1][0][0], &b_pages[page ^ 1][0][0], tid, a_next, b_next);
      barrier(CLK_LOCAL_MEM_FENCE);
      read_fragments(a_pages[page ^ 1], b_pages[page ^ 1], 0, row_base, col_base, a_reg[0],
                     b_reg[0]);
    }
    accumulate(acc, a_reg[1], b_reg[1]);
#else
    multiply_pages(acc, a_pages[page], b_pages[page], row_base, col_base);
    // The other page was last read before the previous barrier, so it is free to overwrite.
    if (more) {
      store_slices(&a_pages[page ^ 1][0][0], &b_pages[page ^ 1][0][0], tid, a_next, b_next);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
#endif
#if K_GROUPS > 1
  sum_k_groups(pool, acc, kg, tid);
  if (kg != 0) return;
#endif

UNROLL_LOOP
  for (int i = 0; i < ITEM_M; ++i) {
    const int row = row0 + row_base + (i / 4) * ROW_STRIDE + i % 4;
    if (row >= M) continue;
#if STORE_VEC4
UNROLL_LOOP
    for (int j4 = 0; j4 < ITEM_N / 4; ++j4) {
      const int col = col0 + col_base + j4 * COL_STRIDE;
      if (col >= N) continue;
      store_results4(C, c_offset + (size_t)row * ldc + col, row, col, N,
                     (float4)(acc[i][4 * j4], acc[i][4 * j4 + 1], acc[i][4 * j4 + 2],
                              acc[i][4 * j4 + 3]),
                     alpha, beta, epilogue);
    }
#else
UNROLL_LOOP
    for (int j = 0; j < ITEM_N; ++j) {
      const int col = col0 + col_base + (j / 4) * COL_STRIDE + j % 4;
      if (col >= N) continue;
      const size_t index = c_offset + (size_t)row * ldc + col;
      store_result(C, index, row, col, acc[i][j], alpha, beta, epilogue);
    }
#endif
  }
}
