// The precision modes of the GEMM: what arithmetic computes the products of A and B.
#pragma once

#include <string>

#include "clgemm/codes.h"
#include "clgemm/export.h"

namespace clgemm {

// The arithmetic of the products. Reduced precision is used only when the caller asks for it.
//   FP32:   every product and sum in FP32 (the default; what BLAS SGEMM computes).
//   TF32:   A and B rounded to TF32 (10-bit mantissa, round to nearest, ties away from zero),
//           products accumulated in FP32: on tensor cores where the device has them.
//   TF32x3: each operand split into a TF32 high and low part, a*b computed as
//           hi*hi + hi*lo + lo*hi in FP32 ("3xTF32"): FP32-level accuracy on tensor cores.
// On devices without tensor cores TF32 and TF32x3 run a portable kernel that rounds the
// operands exactly as the tensor-core kernel does and multiplies with ordinary FMAs.
enum class Precision : int {
  FP32 = CLGEMM_PRECISION_FP32,
  TF32 = CLGEMM_PRECISION_TF32,
  TF32x3 = CLGEMM_PRECISION_3XTF32
};
// "fp32", "tf32", "3xtf32".
CLGEMM_API const char* precision_name(Precision precision);
// The inverse of precision_name; throws Error(InvalidArgument) naming the valid values.
CLGEMM_API Precision parse_precision(const std::string& name);

// x rounded to TF32 as the kernels round it: to nearest on the 13 low mantissa bits, ties away
// from zero, overflow to infinity, NaN unchanged. Lets a caller emulate the TF32 modes.
CLGEMM_API float round_to_tf32(float x);

}  // namespace clgemm
