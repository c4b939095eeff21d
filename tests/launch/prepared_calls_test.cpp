// A Context keeps what it prepared for a call and reuses it for the same call again: a repeat
// reports its programs as found in memory, and a call that differs in anything the preparation
// looks at (an operand's alignment, the transposes, the epilogue, split-K) is prepared anew,
// each checked against the double host reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

struct Outcome {
  GemmRecord record;
  Verification check;
};

// Random values at a 64-byte boundary: where the device maps host memory, a call reads the
// arrays where they lie, and their alignment is part of what is prepared.
class AlignedArray {
 public:
  AlignedArray(std::size_t elements, unsigned seed) : storage_(elements + 16) {
    const auto values = random_matrix(elements, seed);
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = storage_.data() + (64 - address % 64) % 64 / sizeof(float);
    std::copy(values.begin(), values.end(), data_);
  }
  float* data() { return data_; }

 private:
  std::vector<float> storage_;
  float* data_;
};

Outcome run(const GemmProblem& problem, const KernelOptions& overrides = {}) {
  AlignedArray a(problem.a_elements(), 51), b(problem.b_elements(), 52);
  AlignedArray c_before(problem.c_elements(), 53), c(problem.c_elements(), 53);
  RunSettings settings;
  settings.kernel = "blocked";
  settings.overrides = overrides;
  Outcome out;
  out.record = shared_context().sgemm(problem, a.data(), b.data(), c.data(), settings);
  out.check = verify_gemm(problem, a.data(), b.data(), c_before.data(), c.data());
  return out;
}

TEST(PreparedCalls, RepeatsReuseAndDifferencesDoNot) {
  const KernelOptions copy_unaligned = {{"ALIGN_COPY", 2}};
  GemmProblem aligned = GemmProblem::packed(96, 80, 72);
  // An odd lda
  // leaves A's rows unaligned wherever it lies (an offset would not: the host-array path
  // uploads A from its first element on a device that does not map host memory).
  GemmProblem unaligned = aligned;
  unaligned.lda = aligned.min_lda() + 1;  // copied first
  GemmProblem transposed = aligned;
  transposed.trans_b = Transpose::Trans;
  transposed.ldb = transposed.min_ldb();
  GemmProblem with_epilogue = aligned;
  const auto bias = random_matrix(std::size_t(aligned.n), 54);
  with_epilogue.epilogue.bias = Bias::PerColumn;
  with_epilogue.epilogue.bias_data = bias.data();
  with_epilogue.epilogue.activation = Activation::ReLU;

  const Outcome first = run(aligned, copy_unaligned);
  EXPECT_TRUE(first.check.passed) << first.check.first_failure;
  const Outcome again = run(aligned, copy_unaligned);
  EXPECT_TRUE(again.check.passed) << again.check.first_failure;
  EXPECT_EQ(again.record.origin, ProgramOrigin::Memory);
  EXPECT_EQ(again.record.build_seconds, 0.0);
  EXPECT_EQ(again.record.build_options, first.record.build_options);

  const Outcome copied = run(unaligned, copy_unaligned);
  EXPECT_TRUE(copied.check.passed) << copied.check.first_failure;
  EXPECT_TRUE(copied.record.copied_a) << copied.record.kernel_choice;

  const Outcome trans = run(transposed, copy_unaligned);
  EXPECT_TRUE(trans.check.passed) << trans.check.first_failure;
  EXPECT_NE(trans.record.build_options.find("TRANS_B=1"), std::string::npos);
  const Outcome fused = run(with_epilogue, copy_unaligned);
  EXPECT_TRUE(fused.check.passed) << fused.check.first_failure;
  EXPECT_EQ(fused.record.epilogue, "per-column bias, relu");
  // The record names the clamp's bounds of each call.
  GemmProblem clamped = aligned;
  clamped.epilogue.activation = Activation::Clamp;
  clamped.epilogue.clamp_low = -0.5f, clamped.epilogue.clamp_high = 0.25f;
  EXPECT_EQ(run(clamped).record.epilogue, "clamp to [-0.5, 0.25]");
  clamped.epilogue.clamp_high = 0.75f;
  const Outcome wider = run(clamped);
  EXPECT_TRUE(wider.check.passed) << wider.check.first_failure;
  EXPECT_EQ(wider.record.epilogue, "clamp to [-0.5, 0.75]");

  GemmProblem deep = GemmProblem::packed(16, 16, 4096);
  const Outcome split = run(deep, {{"SPLIT_K", 4}});
  EXPECT_TRUE(split.check.passed) << split.check.first_failure;
  EXPECT_GT(split.record.split_k, 1);
  EXPECT_NE(split.record.build_options.find("SLICED_K=1"), std::string::npos);
  const Outcome whole = run(deep, {{"SPLIT_K", 1}});
  EXPECT_TRUE(whole.check.passed) << whole.check.first_failure;
  EXPECT_EQ(whole.record.split_k, 1);
  EXPECT_EQ(whole.record.build_options.find("SLICED_K"), std::string::npos);
}

}  // namespace
}  // namespace clgemm::testing
