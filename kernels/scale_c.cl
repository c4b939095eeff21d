// scale_c: C = beta * C, the whole of a GEMM with nothing to multiply (K = 0 or alpha = 0; BLAS
// then reads neither A nor B). With beta = 0, C is set to zero without being read, so NaN or
// garbage in C does not survive. One work-item per element of the row-major C; indices are
// size_t, so no size the host accepts can wrap them.
#ifndef WG_X
#define WG_X 16 // work-group width (columns of C), chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // work-group height (rows of C), chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void scale_c(
    const int M, const int N, const float beta, __global float *C, const ulong c_offset,
    const int ldc) {
  const size_t col = get_global_id(0);
  const size_t row = get_global_id(1);
  if (row >= (size_t)M || col >= (size_t)N) return;
  __global float *c = C + c_offset + row * (size_t)ldc + col;
  *c = beta == 0.0f ? 0.0f : beta * *c;
}
