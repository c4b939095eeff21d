// copy_padded: copies a matrix, stored as `lines` lines of `length` floats with the caller's
// leading dimension and offset, into a workspace whose leading dimension is a multiple of the
// GEMM kernel's vector width, so that the kernel may use aligned vector loads on the copy. The
// padding after each line is left unwritten: the GEMM kernels mask every load at the matrix
// edge, so they never read it. One work-item per element, consecutive work-items along a line:
// both the reads and the writes of a work-group are contiguous.
#ifndef WG_X
#define WG_X 16 // work-items along a line, chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // lines per work-group, chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void copy_padded(
    const int lines, const int length, __global const float *src, const ulong src_offset,
    const int src_ld, __global float *dst, const ulong dst_offset, const int dst_ld) {
  const size_t x = get_global_id(0);
  const size_t line = get_global_id(1);
  if (line >= (size_t)lines || x >= (size_t)length) return;
  dst[dst_offset + line * (size_t)dst_ld + x] = src[src_offset + line * (size_t)src_ld + x];
}
