// copy_padded: copies a matrix, stored as `lines` lines of `length` floats with the caller's
// leading dimension and offset, into a workspace whose leading dimension is a multiple of the
// GEMM kernel's vector width, so that the kernel may use aligned vector loads on the copy. The
// padding after each line is left unwritten: the GEMM kernels mask every load at the matrix
// edge, so they never read it. One work-item per element, consecutive work-items along a line:
// both the reads and the writes of a work-group are contiguous.
// With TRANSPOSE = 1 it writes the transpose instead (element x of line `line` to line x,
// element `line`), a TRANSPOSE_BLOCK x TRANSPOSE_BLOCK block per work-item: it reads the
// block's lines and writes its columns as the copy's lines, each a run of TRANSPOSE_BLOCK
// floats. A kernel that would read an operand element by element across its lines then reads
// the copy along them.
#ifndef TRANSPOSE
#define TRANSPOSE 0
#endif
#ifndef TRANSPOSE_BLOCK
#define TRANSPOSE_BLOCK 8 // lines and elements per work-item with TRANSPOSE, chosen by the host
#endif
#ifndef WG_X
#define WG_X 16 // work-items along a line, chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // lines per work-group, chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void copy_padded(
    const int lines, const int length, __global const float *src, const ulong src_offset,
    const int src_ld, __global float *dst, const ulong dst_offset, const int dst_ld) {
#if TRANSPOSE
  const size_t x0 = get_global_id(0) * TRANSPOSE_BLOCK;
  const size_t line0 = get_global_id(1) * TRANSPOSE_BLOCK;
  if (line0 >= (size_t)lines || x0 >= (size_t)length) return;
  const int block_lines = min(TRANSPOSE_BLOCK, (int)((size_t)lines - line0));
  const int block_length = min(TRANSPOSE_BLOCK, (int)((size_t)length - x0));
  float block[TRANSPOSE_BLOCK][TRANSPOSE_BLOCK];
  for (int i = 0; i < block_lines; ++i)
    for (int j = 0; j < block_length; ++j)
      block[j][i] = src[src_offset + (line0 + i) * (size_t)src_ld + x0 + j];
  for (int j = 0; j < block_length; ++j)
    for (int i = 0; i < block_lines; ++i)
      dst[dst_offset + (x0 + j) * (size_t)dst_ld + line0 + i] = block[j][i];
#else
  const size_t x = get_global_id(0);
  const size_t line = get_global_id(1);
  if (line >= (size_t)lines || x >= (size_t)length) return;
  dst[dst_offset + line * (size_t)dst_ld + x] = src[src_offset + line * (size_t)src_ld + x];
#endif
}
