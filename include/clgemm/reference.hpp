// The host reference GEMM, accumulated in double, and the check of a device result against it.
// Used by the tests and by clgemm-run; useful to anyone validating their own use.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "clgemm/export.h"
#include "clgemm/gemm.hpp"

namespace clgemm {

struct CLGEMM_API Verification {
  bool passed = true;
  bool sampled = false;       // only some rows and columns were checked
  std::size_t checked = 0;    // elements of C compared
  std::size_t failures = 0;   // elements outside the tolerance (or padding that changed)
  double worst_ratio = 0;     // largest |error| / tolerance over the elements checked: above
                              // 1 exactly when one failed (infinite where a NaN or infinity
                              // was not expected)
  std::string first_failure;  // "C[r][c] = x, expected y (tolerance t)" for the first failure
};

// `elements` floats drawn uniformly from [-1, 1), the same for the same seed: the inputs the
// tests, clgemm-run, clgemm-bench and clgemm-tune use.
CLGEMM_API std::vector<float> random_matrix(std::size_t elements, unsigned seed);

// Compares `c_after` with alpha * A * B + beta * c_before computed in double, with the BLAS
// semantics of clgemm's calls (alpha = 0 reads neither A nor B, beta = 0 never reads C). The
// tolerance of
// each element scales with the magnitudes that went into it:
//   |error| <= gamma(K) * (|alpha| * sum_k |a_ik * b_kj| + |beta * c_ij|) + tiny,
// with gamma(K) = (min(K, 16 sqrt K) + 4) * FLT_EPSILON, the rounding-error growth of float
// accumulation (widened for the reduced precisions, see gemm_error_bound). When the full check
// would take more than `full_check_limit` multiply-adds, `sample_lines` evenly spread rows and
// as many columns are checked instead. Every element of C's array outside the m x n result
// (before c_offset, the ldc padding) must be unchanged. Layout, transposes and offsets are
// those of `problem`; the arrays start at index 0. Batches are checked product by product
// (a host product table in problem.products.host, strides otherwise) and the epilogue with
// its bias from problem.epilogue.bias_data: act(v + bias) within the tolerance of v times
// the activation's steepest slope, exactly when v is infinite or NaN. A sampled check looks
// at 8 spread products. Every element no product writes must be unchanged. Where the result
// overflows float, the reference is rounded as float rounds: an infinity of the reference's
// sign is correct when a value within the tolerance of the reference reaches FLT_MAX plus half
// its last place.
CLGEMM_API Verification verify_gemm(const GemmProblem& problem, const float* a, const float* b,
                                    const float* c_before, const float* c_after,
                                    double full_check_limit = 2e9, std::size_t sample_lines = 64,
                                    Precision precision = Precision::FP32);

// The gamma of the tolerance above for a K-long dot product in this precision: the FP32
// accumulation bound, plus 2^-10 for TF32 operands and 2^-21 for 3xTF32 ones.
CLGEMM_API double gemm_error_bound(std::int64_t k, Precision precision);

}  // namespace clgemm
