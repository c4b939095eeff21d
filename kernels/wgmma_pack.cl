// wgmma_pack: copies one operand of a GEMM, for every product of a batch, into the blocks the
// wgmma kernel brings into local memory with one bulk copy each (kernels/wgmma_layout.clh):
// rounded to TF32, or split into TF32 high and low parts for 3xTF32, zero beyond the matrix,
// and K-major whatever the caller's transpose, since TF32 wgmma reads only K-major operands
// (with PAIRED_K, each step's columns in the order of kernels/wgmma_layout.clh's STORED_K).
// One work-item per run of 4 floats (a core-matrix row, or one work-item's fragment of one
// step): consecutive work-items take consecutive runs, so the stores are contiguous, and the
// loads of a warp cover whole rows of 16 or 32 bytes (8 rows for a fragment, whose other half
// of each row the same work-item reads).
#include "gemm_common.clh"
#include "wgmma_layout.clh"

#ifndef TILE_R
#define TILE_R 128 // rows of a block: the wgmma kernel's TILE_M (for A) or TILE_N (for B)
#endif
#ifndef ROWS_ALONG_K
#define ROWS_ALONG_K 1 // 1: element (r, k) at r * ld + k; 0: at k * ld + r
#endif
#ifndef FRAGMENTS
#define FRAGMENTS 0 // 1: A in the fragment order of a kernel that reads it into registers
#endif
#ifndef OPERAND_B
#define OPERAND_B 0 // which offset a product table gives: 0 a_offset, 1 b_offset
#endif
#ifndef WG_X
#define WG_X 16 // the work-group is WG_X * WG_Y work-items in one dimension (host's choice)
#endif
#ifndef WG_Y
#define WG_Y 16
#endif

#if FRAGMENTS && TILE_R % 64 != 0
#error "the fragment order needs TILE_R % 64 == 0 (whole 64-row blocks of wgmma)"
#endif

#define CHUNKS_PER_BLOCK (TILE_R * DEPTH / 4)
#define BLOCK_FLOATS (PARTS * TILE_R * DEPTH)

#if ROWS_ALONG_K
#define SOURCE_AT(r, k) src[(size_t)(r) * ld + (k)]
#else
#define SOURCE_AT(r, k) src[(size_t)(k) * ld + (r)]
#endif

// `rows` x `depth` elements per product; product p (first_product + the third grid index)
// is read at src_offset + p * stride, or at its table entry's offset, and written at
// dst_offset + p * dst_stride. A table entry with alpha = 0 is not read (its block is zero).
__kernel __attribute__((reqd_work_group_size(WG_X * WG_Y, 1, 1))) void wgmma_pack(
    const int rows, const int depth, __global const float *restrict src, const ulong src_offset,
    const int ld, const uint first_product, const ulong stride,
    __global const BatchProduct *restrict products, const ulong products_offset,
    __global float *restrict dst, const ulong dst_offset, const ulong dst_stride) {
  const size_t chunk = get_global_id(0);
  const size_t slices = ((size_t)depth + DEPTH - 1) / DEPTH;
  const size_t row_blocks = ((size_t)rows + TILE_R - 1) / TILE_R;
  if (chunk >= row_blocks * slices * CHUNKS_PER_BLOCK) return;
  const uint product = first_product + get_global_id(2);
  ulong offset = src_offset + product * stride;
  int reads = 1;
  if (products) {
    const BatchProduct entry = products[products_offset + product];
    offset = OPERAND_B ? entry.b_offset : entry.a_offset;
    reads = entry.alpha != 0.0f;
  }
  src += offset;

  // Output run `within` of the block holds its elements (r + row_step[j], k + k_step[j]).
  const size_t block = chunk / CHUNKS_PER_BLOCK;
  const int within = chunk % CHUNKS_PER_BLOCK;
#if FRAGMENTS
  const int item = within % 128, step = within / 128; // FRAGMENT_RUN's work-item and step
  const int block_rows = (step / (DEPTH / 8)) * 64 + (item / 32) * 16 + (item % 32) / 4;
  const int block_k = (step % (DEPTH / 8)) * 8 + item % 4;
  const int row_step[4] = {0, 8, 0, 8}, k_step[4] = {0, 0, 4, 4};
#else
  const int core = within / 8; // PART_INDEX's core matrix, and its row within % 8
  const int block_rows = (core / (DEPTH / 4)) * 8 + within % 8;
  const int block_k = (core % (DEPTH / 4)) * 4;
  const int row_step[4] = {0, 0, 0, 0}, k_step[4] = {0, 1, 2, 3};
#endif
  const size_t r = (block / slices) * TILE_R + block_rows;
  const size_t k = (block % slices) * DEPTH + block_k;
  float x[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const size_t column = STORED_K(k + k_step[j]);
    x[j] = (reads && r + row_step[j] < (size_t)rows && column < (size_t)depth)
               ? SOURCE_AT(r + row_step[j], column)
               : 0.0f;
  }

  __global float *out = dst + dst_offset + product * dst_stride + block * BLOCK_FLOATS;
  const float4 high = (float4)(round_tf32(x[0]), round_tf32(x[1]), round_tf32(x[2]),
                               round_tf32(x[3]));
  vstore4(high, within, out);
#if PARTS == 2
  const float4 low = (float4)(tf32_low_part(x[0], high.s0), tf32_low_part(x[1], high.s1),
                              tf32_low_part(x[2], high.s2), tf32_low_part(x[3], high.s3));
  vstore4(low, within, out + TILE_R * DEPTH);
#endif
}
