// splitk_reduce: the second launch of a split-K GEMM. The first left S partial products in a
// workspace, slab s holding op(A) * op(B) over slice s of K (M x N, row-major, leading
// dimension ldw, slabs `slab` floats apart). This sums them, slab 0 first and slab S - 1 last,
// so the result never depends on how the device scheduled the slices, and writes
// C = act(alpha * sum + beta * C + bias) once (the epilogue of gemm_common.clh); with beta = 0,
// C is not read.
//
// A work-item owns 4 adjacent columns of one row and reads each slab as one float4 (the host
// keeps ldw, slab and the workspace offset multiples of 4, so the loads are aligned): the
// work-items along dimension 0 read consecutive 16-byte words. C's leading dimension and offset are the caller's, so C is
// written element by element, still contiguous across the work-group.
#include "gemm_common.clh"

#ifndef WG_X
#define WG_X 16 // work-items along a row (4 columns each), chosen by the host
#endif
#ifndef WG_Y
#define WG_Y 16 // rows per work-group, chosen by the host
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1))) void splitk_reduce(
    const int M, const int N, const int S, const float alpha, __global const float *W,
    const ulong w_offset, const int ldw, const ulong slab, const float beta, __global float *C,
    const ulong c_offset, const int ldc, EPILOGUE_PARAMETERS) {
  const int col = get_global_id(0) * 4;
  const int row = get_global_id(1);
  if (row >= M || col >= N) return;

  __global const float *w = W + w_offset + (size_t)row * ldw + col;
  const int valid = min(N - col, 4);
  float partial[4];
  if (valid == 4) {
    float4 sum = *(__global const float4 *)w;
    for (int s = 1; s < S; ++s) sum += *(__global const float4 *)(w + s * slab);
    vstore4(sum, 0, partial);
  } else {
    // The last columns of a row: the slabs' padding up to ldw was never written, so it is
    // not read either. Same order of summation as the vectors.
    for (int e = 0; e < valid; ++e) {
      float sum = w[e];
      for (int s = 1; s < S; ++s) sum += w[s * slab + e];
      partial[e] = sum;
    }
  }

  const Epilogue epilogue = make_epilogue(bias, bias_offset_arg, clamp_low, clamp_high);
  const size_t index = c_offset + (size_t)row * ldc + col;
  for (int e = 0; e < valid; ++e)
    store_c(C, index + e, row, col + e, partial[e], alpha, beta, epilogue);
}
