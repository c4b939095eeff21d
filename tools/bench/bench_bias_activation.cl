// clgemm-bench's clgemm-unfused peer, its second pass: C = act(C + bias) over every element of
// a batch's C, read once and written once, after a plain clgemm product. The same formulas as
// the fused epilogue in kernels/gemm_common.clh, chosen by arguments instead of -D (one build
// serves every shape). Work-item (x, y, z) is element x of line y (a row of a row-major C, a
// column of a column-major one) of product z; x may run past the line's end (the global size
// is rounded up to the work-group's).

#define BIAS_PER_ROW 1    // M values, one per row of C
#define BIAS_PER_COLUMN 2 // N values, one per column of C
#define ACTIVATION_RELU 1
#define ACTIVATION_GELU 2 // the tanh form
#define ACTIVATION_CLAMP 3

// Every comparison is false for NaN, so NaN passes through each activation unchanged.
inline float activate(const int activation, const float x, const float low, const float high) {
  if (activation == ACTIVATION_RELU) return x < 0.0f ? 0.0f : x;
  if (activation == ACTIVATION_GELU) {
    // 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3).
    if (x == -INFINITY) return -0.0f;
    const float u = 0.7978845608f * mad(0.044715f * x, x * x, x);
    return x / (1.0f + exp(-2.0f * u));
  }
  if (activation == ACTIVATION_CLAMP) return x < low ? low : (x > high ? high : x);
  return x;
}

__kernel void bias_activation(__global float *c, const ulong c_offset, const ulong ldc,
                              const ulong stride_c, const int line_length, const int row_major,
                              __global const float *bias, const ulong bias_offset,
                              const ulong bias_stride, const int bias_kind, const int activation,
                              const float low, const float high) {
  const int x = get_global_id(0), line = get_global_id(1), product = get_global_id(2);
  if (x >= line_length) return;
  const ulong index = c_offset + product * stride_c + line * ldc + x;
  const int row = row_major ? line : x, column = row_major ? x : line;
  float v = c[index];
  if (bias_kind == BIAS_PER_ROW) v += bias[bias_offset + product * bias_stride + row];
  if (bias_kind == BIAS_PER_COLUMN) v += bias[bias_offset + product * bias_stride + column];
  c[index] = activate(activation, v, low, high);
}
