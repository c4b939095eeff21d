// Shared helpers for the test suites: one Context per test process, seeded random matrices,
// and a runner that computes a GEMM on the device and checks it against the host reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"

namespace clgemm::testing {

// Sets an environment variable for its lifetime (unsets it for a null value) and restores what
// was there before.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ScopedVariable(const char* name, const std::string& value)
      : ScopedVariable(name, value.c_str()) {}
  ~ScopedVariable() {
    if (previous_)
      setenv(name_, previous_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

// An invented NVIDIA Hopper GPU as OpenCL reports the H100 and H200: 132 compute units, 1024
// work-items, 48 KiB of local memory per work-group, compute capability 9.0 (wgmma, cp.async).
inline DeviceLimits invented_hopper() {
  DeviceLimits d;
  d.name = "invented Hopper";
  d.vendor = "NVIDIA Corporation";
  d.type = DeviceType::GPU;
  d.compute_units = 132;
  d.max_work_group_size = 1024;
  d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = 1024;
  d.local_memory_bytes = 49152;
  d.compute_capability = 90;
  return d;
}

// The device the tests run on: chosen like any user's (CLGEMM_PLATFORM / CLGEMM_DEVICE).
inline Context& shared_context() {
  static Context context;
  return context;
}

// The catalogue kernels the FP32 suites run: those that compute FP32 and need no tensor
// cores, so on any device. Decided from the descriptions alone, without opening the device:
// GoogleTest lists the tests at build time (gtest_discover_tests). The tensorcore kernel
// computes only TF32 and 3xTF32, on tensor cores; precision_test.cpp covers it.
inline std::vector<std::string> fp32_kernel_names() {
  std::vector<std::string> names;
  for (const auto& kernel : kernel_catalog())
    if (kernel.runs(Precision::FP32, /*tensor_cores=*/false)) names.push_back(kernel.name);
  return names;
}

// How run_checked prepares and checks a call: C pre-filled inside the matrix with *c_fill
// (e.g. NaN) when given; the check in full up to `full_check_limit` multiply-adds, beyond it on
// `lines` evenly spread rows and columns (verify_gemm).
struct CheckedRun {
  const float* c_fill = nullptr;
  double full_check_limit = kFullCheckLimit;
  std::size_t lines = kSampledLines;
  Context* context = nullptr;  // where the call runs: shared_context() when null
};

// What a call did and left: its record, its check against the double reference, and C
// before and after it.
struct RunOutcome {
  GemmRecord record;
  Verification check;
  std::vector<float> c_before, c;
};

// Runs `problem` with `settings` on random A, B and C (and a random bias where the epilogue
// has one and the problem names none) through the host path, and checks it.
inline RunOutcome run_checked(const GemmProblem& problem, const RunSettings& settings,
                              const CheckedRun& how = {}) {
  const auto a = random_matrix(problem.a_elements(), 11);
  const auto b = random_matrix(problem.b_elements(), 12);
  const auto bias = random_matrix(std::size_t(problem.m + problem.n + 8), 14);
  GemmProblem p = problem;
  if (p.epilogue.bias != Bias::None && !p.epilogue.bias_data) p.epilogue.bias_data = bias.data();
  auto c_before = random_matrix(p.c_elements(), 13);
  if (how.c_fill)
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j) c_before[p.c_index(i, j)] = *how.c_fill;
  RunOutcome out;
  out.c_before = c_before;
  out.c = c_before;
  Context& context = how.context ? *how.context : shared_context();
  out.record = context.sgemm(p, a.data(), b.data(), out.c.data(), settings);
  out.check = verify_gemm(p, a.data(), b.data(), c_before.data(), out.c.data(),
                          how.full_check_limit, how.lines);
  return out;
}

// `kernel` with `overrides`, in FP32.
inline RunSettings kernel_settings(const std::string& kernel, const KernelOptions& overrides = {}) {
  RunSettings settings;
  settings.kernel = kernel;
  settings.overrides = overrides;
  return settings;
}

// blocked's tiles as derived on large GPUs (128 x 256 x 8, 16 x 8 outputs per work-item, float4
// loads), with the options of `extra` added or replaced.
inline KernelOptions blocked_gpu_tiles(const KernelOptions& extra = {}) {
  KernelOptions options{{"TILE_M", 128}, {"TILE_N", 256}, {"TILE_K", 8},
                        {"ITEM_M", 16},  {"ITEM_N", 8},   {"VEC", 4}};
  for (const auto& [name, value] : extra) options[name] = value;
  return options;
}

// `blocked` with `overrides` on `problem`, checked (split-K, the last wave's split).
inline RunOutcome run_blocked(const GemmProblem& problem, const KernelOptions& overrides,
                              const float* c_fill = nullptr) {
  return run_checked(problem, kernel_settings("blocked", overrides), {c_fill});
}

// Runs `kernel` on random A, B and C (C pre-filled with `c_fill` when given, e.g. NaN) and
// returns the verification against the double reference.
inline Verification run_and_verify(const std::string& kernel, const GemmProblem& problem,
                                   const KernelOptions& overrides = {},
                                   const float* c_fill = nullptr) {
  return run_checked(problem, kernel_settings(kernel, overrides), {c_fill}).check;
}

// The bit pattern of a float, and the float of a bit pattern.
inline std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
inline float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// A problem with padded leading dimensions and alpha, beta other than 1 and 0.
inline GemmProblem padded_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = k + 3, p.ldb = n + 5, p.ldc = n + 2;
  return p;
}

// The kinds of command queue the tests' device offers: in-order (0), and out-of-order where
// CL_DEVICE_QUEUE_PROPERTIES has it.
inline std::vector<cl_command_queue_properties> queue_kinds() {
  cl_command_queue_properties offered = 0;
  clGetDeviceInfo(shared_context().opencl_device(), CL_DEVICE_QUEUE_PROPERTIES, sizeof offered,
                  &offered, nullptr);
  std::vector<cl_command_queue_properties> kinds = {0};
  if (offered & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    kinds.push_back(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  return kinds;
}

}  // namespace clgemm::testing
