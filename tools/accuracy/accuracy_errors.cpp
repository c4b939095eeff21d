// The double reference, the relative and normalised errors and the guarantees between the
// precisions that clgemm-accuracy reports (see accuracy_errors.hpp).
#include "accuracy/accuracy_errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace clgemm::accuracy {

const char* const kRelativeDefinition =
    "relative error   = |c - ref| / |ref|, over the elements with |ref| >= TINY * rms(ref's row)";
const char* const kNormalisedDefinition =
    "normalised error = |c - ref| / sum_k |a_ik| |b_kj|, over every element (robust where ref ~ 0)";

// B is transposed once so that both operands of every dot product are read contiguously; four
// partial sums break the dependency chain (each product of two floats is exact in double, so
// the split changes nothing measurable).
Reference reference_gemm(const Inputs& in) {
  const std::int64_t m = in.m, n = in.n, k = in.k;
  std::vector<double> a(in.a.begin(), in.a.end());
  std::vector<double> b_transposed(std::size_t(n * k));
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j) b_transposed[j * k + p] = in.b[p * n + j];
  Reference ref;
  ref.c.resize(std::size_t(m * n));
  ref.magnitude.resize(std::size_t(m * n));
  ref.row_rms.resize(std::size_t(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const double* a_row = &a[i * k];
    double row_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double* b_column = &b_transposed[j * k];
      double sum[4] = {0, 0, 0, 0}, magnitude[4] = {0, 0, 0, 0};
      std::int64_t p = 0;
      for (; p + 4 <= k; p += 4)
        for (int lane = 0; lane < 4; ++lane) {
          const double product = a_row[p + lane] * b_column[p + lane];
          sum[lane] += product;
          magnitude[lane] += std::fabs(product);
        }
      for (; p < k; ++p) {
        sum[0] += a_row[p] * b_column[p];
        magnitude[0] += std::fabs(a_row[p] * b_column[p]);
      }
      const double c = (sum[0] + sum[1]) + (sum[2] + sum[3]);
      ref.c[i * n + j] = c;
      ref.magnitude[i * n + j] = (magnitude[0] + magnitude[1]) + (magnitude[2] + magnitude[3]);
      row_squares += c * c;
    }
    ref.row_rms[i] = std::sqrt(row_squares / double(n));
  }
  return ref;
}

ErrorStats measure_errors(const std::vector<float>& c, const Reference& ref, std::int64_t m,
                          std::int64_t n, double tiny) {
  ErrorStats stats;
  double relative_sum = 0, normalised_sum = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t index = std::size_t(i * n + j);
      const double error = std::fabs(double(c[index]) - ref.c[index]);
      const double normalised = ref.magnitude[index] > 0 ? error / ref.magnitude[index] : error;
      stats.normalised_max = std::max(stats.normalised_max, normalised);
      normalised_sum += normalised;
      if (std::fabs(ref.c[index]) >= tiny * ref.row_rms[i] && ref.c[index] != 0) {
        const double relative = error / std::fabs(ref.c[index]);
        stats.relative_max = std::max(stats.relative_max, relative);
        relative_sum += relative;
        ++stats.relative_counted;
      } else {
        ++stats.relative_excluded;
      }
    }
  stats.normalised_mean = normalised_sum / double(m * n);
  if (stats.relative_counted) stats.relative_mean = relative_sum / double(stats.relative_counted);
  return stats;
}

std::vector<std::string> check_guarantees(const std::vector<CaseError>& cases) {
  std::map<std::int64_t, std::map<std::string, double>> by_k;
  for (const auto& c : cases) by_k[c.k][c.precision] = c.normalised_max;
  std::vector<std::string> violations;
  char line[256];
  for (const auto& [k, errors] : by_k) {
    const auto fp32 = errors.find("fp32");
    if (fp32 == errors.end()) continue;
    const auto tf32x3 = errors.find("3xtf32");
    if (tf32x3 != errors.end() && tf32x3->second > 2.0 * fp32->second) {
      std::snprintf(line, sizeof line,
                    "K=%lld: 3xtf32 max normalised error %.3e exceeds 2x fp32's %.3e", (long long)k,
                    tf32x3->second, fp32->second);
      violations.push_back(line);
    }
    const auto tf32 = errors.find("tf32");
    if (tf32 != errors.end() && !(tf32->second > fp32->second)) {
      std::snprintf(line, sizeof line,
                    "K=%lld: tf32 max normalised error %.3e is not larger than fp32's %.3e "
                    "(were the operands rounded to TF32?)",
                    (long long)k, tf32->second, fp32->second);
      violations.push_back(line);
    }
  }
  return violations;
}

}  // namespace clgemm::accuracy
