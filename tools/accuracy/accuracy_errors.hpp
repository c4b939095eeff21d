// clgemm-accuracy's error statistics: the double reference of C = A * B with the normaliser of
// each element, the relative and the normalised error of a result against it, and the
// documented guarantees between the precisions (3xtf32 within 2x of fp32, tf32 above fp32).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clgemm::accuracy {

extern const char* const kRelativeDefinition;
extern const char* const kNormalisedDefinition;

// The inputs of one case: A (m x k) and B (k x n), row-major.
struct Inputs {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<float> a, b;
};

// The double reference of one case and the normaliser sum_k |a_ik| |b_kj| of every element.
struct Reference {
  std::vector<double> c, magnitude;
  std::vector<double> row_rms;  // root mean square of each row of c
};

struct ErrorStats {
  double relative_max = 0, relative_mean = 0;
  std::size_t relative_counted = 0, relative_excluded = 0;
  double normalised_max = 0, normalised_mean = 0;
};

// C = A * B and sum_k |a_ik| |b_kj| in double.
Reference reference_gemm(const Inputs& in);

// The errors of `c` (m x n, row-major) against `ref`; the relative error leaves out the
// elements with |ref| below `tiny` times the rms of ref's row.
ErrorStats measure_errors(const std::vector<float>& c, const Reference& ref, std::int64_t m,
                          std::int64_t n, double tiny);

// One case's max normalised error, for the guarantees.
struct CaseError {
  std::int64_t k = 0;
  std::string precision;
  double normalised_max = 0;
};

// The documented guarantees, per K: 3xtf32's max normalised error at most 2x fp32's, tf32's
// above fp32's. Returns one line per violation.
std::vector<std::string> check_guarantees(const std::vector<CaseError>& cases);

}  // namespace clgemm::accuracy
