// The fused epilogue of a GEMM: C = act(alpha * op(A) * op(B) + beta * C + bias), applied to
// each element in the kernel's store, in registers, never as a second pass over C. The bias is
// a vector along M (one value per row of C) or along N (one per column); the activation is
// none, ReLU, GELU in its tanh form (PyTorch's approximate="tanh") or a clamp to [low, high].
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "clgemm/codes.h"
#include "clgemm/export.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

namespace clgemm {

// Which vector is added to C before the activation.
enum class Bias : int {
  None = CLGEMM_BIAS_NONE,
  PerRow = CLGEMM_BIAS_PER_ROW,        // M values: bias[i] is added to every element of row i of C
  PerColumn = CLGEMM_BIAS_PER_COLUMN,  // N values: bias[j] is added to every element of column j
};

// The activation applied last. Each has a defined answer for every input:
// - ReLU(x) = x < 0 ? 0 : x, so NaN stays NaN.
// - GELU(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), computed as
//   x / (1 + exp(-2u)) with u the tanh argument (the same function, without the cancellation of
//   1 + tanh(u) for negative x); GELU(+inf) = +inf, GELU(-inf) = -0, GELU(NaN) = NaN.
// - Clamp(x) = min(max(x, low), high) with low <= high (either may be infinite); NaN stays NaN.
enum class Activation : int {
  None = CLGEMM_ACTIVATION_NONE,
  ReLU = CLGEMM_ACTIVATION_RELU,
  GELU = CLGEMM_ACTIVATION_GELU,
  Clamp = CLGEMM_ACTIVATION_CLAMP
};

struct CLGEMM_API Epilogue {
  Bias bias = Bias::None;
  // The bias vector: a host array on the host-array path, a cl_mem of the context on the
  // buffer path (the other must stay null). It holds bias_offset + (batch - 1) * bias_stride +
  // (M or N) floats: product p of a batch adds the vector at bias_offset + p * bias_stride
  // (bias_stride = 0 shares one vector across the batch).
  const float* bias_data = nullptr;
  cl_mem bias_buffer = nullptr;
  std::size_t bias_offset = 0;
  std::int64_t bias_stride = 0;
  Activation activation = Activation::None;
  float clamp_low = 0.0f, clamp_high = 0.0f;  // Activation::Clamp only

  bool is_identity() const { return bias == Bias::None && activation == Activation::None; }
};

CLGEMM_API const char* bias_name(Bias bias);                    // "none", "per-row", "per-column"
CLGEMM_API const char* activation_name(Activation activation);  // "none", "relu", "gelu", "clamp"
// "none", or e.g. "per-column bias, gelu" or "clamp to [0, 6]".
CLGEMM_API std::string describe_epilogue(const Epilogue& epilogue);

// The epilogue applied to one value v = alpha * (A * B)[i][j] + beta * C[i][j], with the bias
// element already chosen; the host reference of the kernels' formulas (in double).
CLGEMM_API double apply_activation(const Epilogue& epilogue, double v);

}  // namespace clgemm
