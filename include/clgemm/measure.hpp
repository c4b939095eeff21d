// Measuring GEMMs, apart from calling them: repetition, statistics and the verification
// policy that clgemm-run, clgemm-bench, clgemm-tune and clgemm-accuracy share (and users may
// call). A call is timed as its enqueue + finish on the host (wall time, as a caller makes it)
// and, from OpenCL profiling events of separate calls, as the kernel's execution on the
// device (device time).
#pragma once

#include <functional>
#include <vector>

#include "clgemm/export.h"
#include "clgemm/gemm.hpp"
#include "clgemm/reference.hpp"

namespace clgemm {

// Summary of repeated timings, in seconds. The median of an even count is the mean of the two
// middle values.
struct CLGEMM_API Statistics {
  std::size_t count = 0;
  double min = 0, median = 0, mean = 0;
};
CLGEMM_API Statistics statistics(std::vector<double> seconds);

// How often to repeat: `warmup_runs` untimed calls, then timed ones until at least
// `min_runs` were made and `min_seconds` have passed, never more than `max_runs`. For an exact
// count n, set min_runs = max_runs = n. Counts are checked: Error(InvalidArgument) names the
// field outside 0..1000000 (warm-up) or 1..1000000 (the others), or min_runs > max_runs.
struct CLGEMM_API RepeatPolicy {
  int warmup_runs = 1;
  int min_runs = 3;
  int max_runs = 50;
  double min_seconds = 1.0;
};
CLGEMM_API void check_repeat_policy(const RepeatPolicy& policy);

// Calls `call` (which finishes its work before it returns) as the policy says and returns each
// timed call's wall time.
CLGEMM_API std::vector<double> repeat_timed(const std::function<void()>& call,
                                            const RepeatPolicy& policy);

// The verification every tool applies: verify_gemm against the double reference, in full up
// to 2 * 10^9 multiply-adds and on 64 evenly spread rows and columns above that.
constexpr double kFullCheckLimit = 2e9;
constexpr std::size_t kSampledLines = 64;
CLGEMM_API Verification verify_result(const GemmProblem& problem, const float* a, const float* b,
                                      const float* c_before, const float* c_after,
                                      Precision precision = Precision::FP32);

struct CLGEMM_API GemmMeasurement {
  GemmRecord record;                   // what ran (the first call, which built it)
  double upload_seconds = 0;           // A, B and C to the device, once
  double download_seconds = 0;         // C back, once
  std::vector<double> wall_seconds;    // enqueue + finish of each timed call, made as a
                                       // caller makes it: a plain queue, no event
  std::vector<double> device_seconds;  // the kernel's execution, from profiling events of as
                                       // many calls again on a profiling queue (those whose
                                       // event had profiling information); for a call of
                                       // several launches, from a marker before the first to
                                       // the end of the last
  Statistics wall, device;
  bool verified = false;  // the first call's result was checked
  Verification verification;
  double gflops() const { return wall.median > 0 ? problem_flops / wall.median * 1e-9 : 0; }
  double problem_flops = 0;
};

// Measures `problem` on this context: uploads A, B and C once into device buffers, makes a
// first call (it builds the program; its result is verified when `verify`), then repeats as
// `policy` says, each call starting from the original C, timed on the host (a plain queue, no
// event), then as many calls again on a queue with profiling enabled, timed on the device.
// `c` holds C before the call and receives the result of one call. A bias given as a host
// array (problem.epilogue.bias_data) is uploaded with A and B, and the calls read it there. A call
// that launches nothing (an empty problem; alpha = 0 or K = 0 with beta = 1) has no timings;
// an empty problem (M, N or the batch 0) returns at once without touching the arrays, which
// may then be null.
CLGEMM_API GemmMeasurement measure_gemm(Context& context, const GemmProblem& problem,
                                        const float* a, const float* b, float* c,
                                        const RunSettings& settings, const RepeatPolicy& policy,
                                        bool verify = true);

}  // namespace clgemm
