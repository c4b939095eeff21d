// auto_kernels(), the kernels and parameter sets warming builds, holds whatever choose_kernel()
// picks: for the shipped database on an invented H200 and PoCL CPU, over a spread of shapes
// (1x1x1, GEMV-like, tall and thin, edges, squares, long K, batches) and the precisions.
#include <gtest/gtest.h>

#include <algorithm>

#include "choice/auto_candidates.hpp"
#include "plan/k_groups.hpp"

namespace {

using namespace clgemm;

DeviceLimits h200() {
  DeviceLimits d;
  d.name = "NVIDIA H200", d.platform_name = "NVIDIA CUDA", d.vendor = "NVIDIA Corporation";
  d.type = DeviceType::GPU, d.compute_capability = 90, d.compute_units = 132;
  d.max_work_group_size = 1024, d.local_memory_bytes = 48 * 1024;
  d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = 1024, d.max_work_item_sizes[2] = 64;
  d.max_allocation_bytes = std::size_t(35) << 30, d.global_memory_bytes = std::size_t(140) << 30;
  return d;
}

DeviceLimits pocl_cpu() {
  DeviceLimits d;
  d.name = "pthread-haswell-AMD EPYC 7B13", d.platform_name = "Portable Computing Language";
  d.vendor = "AuthenticAMD", d.type = DeviceType::CPU, d.compute_units = 2;
  d.max_work_group_size = 4096, d.local_memory_bytes = 256 * 1024;
  return d;
}

std::vector<GemmProblem> spread_of_problems() {
  std::vector<GemmProblem> problems;
  const std::int64_t shapes[][3] = {{1, 1, 1},        {1, 4096, 4096},  {4096, 1, 4096},
                                    {8, 4096, 4096},  {16, 4096, 4096}, {33, 11008, 4096},
                                    {4096, 64, 4096}, {64, 4096, 4096}, {4097, 4097, 4097},
                                    {4095, 33, 257},  {512, 512, 512},  {1024, 1024, 1024},
                                    {2048, 2048, 64}, {16, 16, 65536},  {8192, 8192, 8192},
                                    {100, 200, 300},  {16777216, 1, 2}, {3, 5, 7}};
  for (const auto& s : shapes) {
    problems.push_back(GemmProblem::packed(s[0], s[1], s[2]));
    GemmProblem transposed = problems.back();
    transposed.layout = Layout::ColumnMajor;
    transposed.trans_a = Transpose::Trans;
    transposed.lda = transposed.min_lda(), transposed.ldb = transposed.min_ldb();
    transposed.ldc = transposed.min_ldc();
    problems.push_back(transposed);
  }
  for (std::int64_t side : {8, 32, 128, 1024})
    for (std::int64_t batch : {2, 64, 8192})
      problems.push_back(GemmProblem::packed_batch(side, side, side, batch));
  problems.push_back(GemmProblem::packed_batch(1, 4096, 4096, 16));
  return problems;
}

void expect_every_choice_in_the_set(const DeviceLimits& device, Precision precision,
                                    TensorCores cores) {
  const TuningDatabase database = TuningDatabase::load_default();
  const auto set = detail::auto_kernels(database, device, precision, cores);
  ASSERT_FALSE(set.empty());
  for (std::size_t i = 0; i < set.size(); ++i)
    for (std::size_t j = i + 1; j < set.size(); ++j)
      EXPECT_FALSE(set[i].kernel == set[j].kernel && set[i].overrides == set[j].overrides)
          << "twice: " << set[i].kernel;
  for (const GemmProblem& problem : spread_of_problems()) {
    const KernelChoice choice = choose_kernel(database, device, problem, precision, cores);
    const bool in_set = std::any_of(set.begin(), set.end(), [&](const KernelSelection& s) {
      return s.kernel == choice.kernel && s.overrides == choice.overrides;
    });
    EXPECT_TRUE(in_set) << device.name << ", " << precision_name(precision) << ", " << problem.batch
                        << " x " << problem.m << "x" << problem.n << "x" << problem.k << ": "
                        << choice.kernel << " (" << choice.reason << ") is not in the warm set of "
                        << set.size();
  }
}

TEST(AutoCandidates, TheWarmSetHoldsEveryChoiceOnTheH200) {
  expect_every_choice_in_the_set(h200(), Precision::FP32, TensorCores::None);
  expect_every_choice_in_the_set(h200(), Precision::TF32, TensorCores::Wgmma);
  expect_every_choice_in_the_set(h200(), Precision::TF32x3, TensorCores::Wgmma);
  expect_every_choice_in_the_set(h200(), Precision::TF32, TensorCores::MmaSync);
}

TEST(AutoCandidates, TheWarmSetHoldsEveryChoiceOnAPoclCpu) {
  expect_every_choice_in_the_set(pocl_cpu(), Precision::FP32, TensorCores::None);
  expect_every_choice_in_the_set(pocl_cpu(), Precision::TF32, TensorCores::None);
}

// The H200's FP32 set: its tuned blocked entries, gemv's, and the derived parameters of both.
TEST(AutoCandidates, TheH200Fp32SetIsItsEntriesAndTheDerivedKernels) {
  const auto set = detail::auto_kernels(TuningDatabase::load_default(), h200(), Precision::FP32,
                                        TensorCores::None);
  const auto count = [&set](const std::string& kernel, bool derived) {
    return std::count_if(set.begin(), set.end(), [&](const KernelSelection& s) {
      return s.kernel == kernel && s.overrides.empty() == derived;
    });
  };
  EXPECT_EQ(count("blocked", true), 1);
  EXPECT_EQ(count("gemv", true), 1);
  EXPECT_EQ(count("gemv", false), 1);
  EXPECT_GE(count("blocked", false), 6);  // the single-product classes and the batched ones
  for (const auto& s : set) EXPECT_TRUE(s.kernel == "blocked" || s.kernel == "gemv") << s.kernel;
}

// Every FP32 set of blocked that single products run and that may take two k-groups
// (plan/k_groups.hpp) is in the warm set with them too, as the planner runs it on launches of few
// work-groups (the H200's 64 x 128 entry is one); a batch's sets are not, since the planner never
// gives a batch k-groups.
TEST(AutoCandidates, TheH200Fp32SetHoldsItsTwoKGroupSets) {
  const TuningDatabase database = TuningDatabase::load_default();
  const auto set = detail::auto_kernels(database, h200(), Precision::FP32, TensorCores::None);
  const auto in_set = [&set](const KernelOptions& overrides) {
    return std::any_of(set.begin(), set.end(), [&](const KernelSelection& s) {
      return s.kernel == "blocked" && s.overrides == overrides;
    });
  };
  int single = 0, batched = 0;
  for (const TunedEntry& e : database.entries()) {
    if (e.device != "NVIDIA H200" || e.kernel != "blocked" || e.precision != Precision::FP32 ||
        !detail::takes_auto_k_groups(resolve_options("blocked", h200(), e.options), h200()))
      continue;
    KernelOptions split = e.options;
    split["K_GROUPS"] = detail::kAutoKGroups;
    if (e.batch > 1) {
      ++batched;
      EXPECT_FALSE(in_set(split)) << "the batched entry '" << e.shape_class << "'";
    } else {
      ++single;
      EXPECT_TRUE(in_set(split)) << "the entry '" << e.shape_class << "'";
    }
  }
  EXPECT_GE(single, 1);
  EXPECT_GE(batched, 1);
}

}  // namespace
