// clgemm-tune's measurement of one candidate on the device-buffer path: random operands in
// OpenCL buffers, one warm-up call whose result is verified against the host reference, then
// timed calls (Context::sgemm on the buffers + clFinish), of which the median counts.
#pragma once

#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"

namespace clgemm::tune {

struct MeasureSettings {
  double min_time = 0.25;  // seconds of timed calls per candidate (at least 3 calls)
  int max_runs = 25;
  // Stop when the first timed call (if cheap, the best of up to three) is this much slower
  // than the best median so far.
  double give_up_ratio = 2.0;
  Precision precision = Precision::FP32;  // computed, and verified against its error bound
};

struct Measurement {
  KernelOptions options;  // as built
  // "ok"; "slow" (stopped after the first timed calls); "failed" (wrong result: a kernel bug);
  // "unfit" (over a limit known only once built, such as CL_KERNEL_WORK_GROUP_SIZE: the
  // registers it needs leave fewer work-items per group than it asks for); "error" (the build
  // or a launch failed otherwise).
  std::string status;
  double median_seconds = 0;  // of the timed calls
  int runs = 0;
  double build_seconds = 0;
  double first_call_seconds = 0;  // the verified warm-up (on PoCL it includes a JIT step)
  std::string message;            // what failed, for "failed" and "error"
};

class Bench {
 public:
  Bench(Context& context, const GemmProblem& problem);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  const GemmProblem& problem() const { return problem_; }
  double gflops(double seconds) const {
    return seconds > 0 ? problem_.flops() / seconds * 1e-9 : 0;
  }

  // Builds, verifies and times `kernel` with `overrides` on top of the derived options (empty:
  // the library's own choice). `best_seconds` (0: none yet) is the best median so far.
  Measurement measure(const std::string& kernel, const KernelOptions& overrides,
                      double best_seconds, const MeasureSettings& settings);

  // `runs` timed calls of an already verified candidate, in seconds each, with the settings
  // measure() used (the same precision).
  std::vector<double> time_calls(const std::string& kernel, const KernelOptions& overrides,
                                 int runs, const MeasureSettings& settings);

 private:
  double call(const RunSettings& settings);  // one sgemm + clFinish, in seconds

  Context& context_;
  GemmProblem problem_;
  std::vector<float> a_, b_, c_;
  cl_mem a_mem_ = nullptr, b_mem_ = nullptr, c_mem_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

// What every timed call of a candidate runs, in measure() and in time_calls() alike: the
// kernel, its overrides and the precision being tuned.
RunSettings run_settings(const std::string& kernel, const KernelOptions& overrides,
                         const MeasureSettings& settings);

}  // namespace clgemm::tune
