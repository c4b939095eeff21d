// The GEMM entry point. A Context owns one OpenCL device, its command queue and the programs
// built for it; sgemm() computes the row-major C = alpha * A * B + beta * C from host arrays and
// returns a timing record in which the kernel time covers only enqueue + finish.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm {

// Row-major C (m x n) = alpha * A (m x k) * B (k x n) + beta * C. Leading dimensions count
// elements between the starts of consecutive rows and must be at least the row length
// (lda >= k, ldb >= n, ldc >= n). Sizes are signed so that negative values can be reported.
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  std::int64_t lda = 0, ldb = 0, ldc = 0;

  // A problem with unpadded rows: lda = k, ldb = n, ldc = n.
  static GemmProblem packed(std::int64_t m, std::int64_t n, std::int64_t k, float alpha = 1.0f,
                            float beta = 0.0f);
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Elements each array must hold: (rows - 1) * ld + columns.
  std::size_t a_elements() const;
  std::size_t b_elements() const;
  std::size_t c_elements() const;
};

// Throws Error(InvalidSize / InvalidLeadingDimension) naming the argument and the limit.
void validate_problem(const GemmProblem& problem);

struct RunSettings {
  std::string kernel = "vectorized";  // a name from kernel_catalog()
  KernelOptions overrides;            // replaces derived parameters, e.g. {{"TILE", 8}}
  int warmup_runs = 0;                // untimed launches before the timed ones
  int timed_runs = 1;                 // timed launches; C holds the result of one launch
};

struct GemmTiming {
  std::string kernel;
  KernelOptions options;                 // the parameters the kernel was built with
  std::string build_options;             // the full option string given to the compiler
  double build_seconds = 0;              // 0 when the program was already built in this context
  bool program_cached = false;           // already built in this context
  bool program_from_disk_cache = false;  // built from a binary in the on-disk cache
  double upload_seconds = 0;
  double download_seconds = 0;
  std::vector<double> run_seconds;  // one enqueue + finish per timed run
};

class Context {
 public:
  // Opens the device chosen by `request` (see DeviceRequest for the defaults).
  explicit Context(const DeviceRequest& request = {});
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;

  const DeviceLimits& device() const;

  // Builds the kernel (or finds it in this context's cache) and returns the parameters it was
  // built with; sgemm() does this itself, so calling it first only separates the build time.
  GemmTiming build(const std::string& kernel, const KernelOptions& overrides = {});

  // Computes C = alpha * A * B + beta * C. `a`, `b` and `c` hold problem.a_elements(),
  // b_elements() and c_elements() floats. C is written only when the whole call succeeds;
  // elements between rows (the ldc padding) are left as they were.
  GemmTiming sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                   const RunSettings& settings = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace clgemm
