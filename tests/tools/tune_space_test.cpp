// clgemm-tune's default search space (tools/tune/tune_space.cpp) on invented devices: each
// parameter's list is the catalogue's candidates where it gives any, whatever its range, every
// value of a short range only where it gives none, and the derived value always.
#include "tune/tune_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.hpp"

namespace clgemm::tune {
namespace {

using clgemm::testing::invented_hopper;

// A CPU as PoCL names one with AVX-512 (register_block derives VEC 16 there).
DeviceLimits fake_cpu() {
  DeviceLimits d;
  d.name = "pthread-skylake-avx512";
  d.type = DeviceType::CPU;
  d.max_work_group_size = 4096;
  d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = 4096;
  d.local_memory_bytes = 4 << 20;
  return d;
}

using Values = std::vector<long>;

TEST(TuneSpace, RegisterBlockSearchesItsCandidatesNotItsWholeRanges) {
  const auto cpu = fake_cpu();
  const auto derived = derive_options("register_block", cpu);
  ASSERT_EQ(derived.at("VEC"), 16);
  ASSERT_EQ(derived.at("VECTORS"), 2);
  ASSERT_EQ(derived.at("ROW_BLOCKS"), 1);
  const auto lists = default_value_lists("register_block", derived, cpu);
  // Ranges 1..16, 1..8 and 1..16, each under 16 wide: once searched whole.
  EXPECT_EQ(lists.at("VEC"), (Values{8, 16}));
  EXPECT_EQ(lists.at("VECTORS"), (Values{1, 2, 4}));
  EXPECT_EQ(lists.at("ROW_BLOCKS"), (Values{1, 2, 4, 8}));
  EXPECT_EQ(lists.at("DOWN_ROWS_FIRST"), (Values{0, 1}));
  EXPECT_EQ(lists.at("INNER_PRODUCTS"), (Values{0, 1}));
  EXPECT_EQ(lists.at("ROWS"), (Values{4, 6, 8, 12, 16}));
  EXPECT_EQ(lists.at("K_CHUNK"), (Values{128, 256, 512}));
}

TEST(TuneSpace, TheDerivedValueIsAddedToTheCandidates) {
  const auto cpu = fake_cpu();
  auto derived = derive_options("register_block", cpu);
  derived["VEC"] = 4;
  derived["ROW_BLOCKS"] = 3;
  const auto lists = default_value_lists("register_block", derived, cpu);
  EXPECT_EQ(lists.at("VEC"), (Values{4, 8, 16}));
  EXPECT_EQ(lists.at("ROW_BLOCKS"), (Values{1, 2, 3, 4, 8}));
  EXPECT_EQ(lists.at("VECTORS"), (Values{1, 2, 4}));
}

TEST(TuneSpace, WgmmaLeavesOutWhatItsCandidatesLeaveOut) {
  const auto gpu = invented_hopper();
  const auto derived = derive_options("wgmma", gpu);
  ASSERT_EQ(derived.at("A_REGISTERS"), 1);
  const auto lists = default_value_lists("wgmma", derived, gpu);
  EXPECT_EQ(lists.at("A_REGISTERS"), (Values{0, 1}));  // 2 only with --space A_REGISTERS=1,2
  EXPECT_EQ(lists.at("WARPGROUPS"), (Values{0, 1, 2, 4}));
  EXPECT_EQ(lists.at("STAGES"), (Values{2, 3, 4, 5, 6}));
  EXPECT_EQ(lists.at("LAST_WARP_REFILLS"), (Values{0, 1}));
  // A derived value outside the candidates is still searched.
  auto stored_a = derived;
  stored_a["A_REGISTERS"] = 2;
  EXPECT_EQ(default_value_lists("wgmma", stored_a, gpu).at("A_REGISTERS"), (Values{0, 1, 2}));
}

TEST(TuneSpace, AShortRangeWithoutCandidatesIsSearchedWhole) {
  const auto cpu = fake_cpu();
  const auto gemv = default_value_lists("gemv", derive_options("gemv", cpu), cpu);
  EXPECT_EQ(gemv.at("AHEAD"), (Values{1, 2, 3, 4}));
  EXPECT_EQ(gemv.at("UNROLL"), (Values{0, 1}));
  const auto blocked = default_value_lists("blocked", derive_options("blocked", cpu), cpu);
  EXPECT_EQ(blocked.at("UNROLL"), (Values{0, 1}));
  EXPECT_EQ(blocked.at("FRAG_PREFETCH"), (Values{0, 1}));
  EXPECT_EQ(blocked.at("STORE_VEC4"), (Values{0, 1}));  // 0 derived on CPUs, candidate 1
  // Without cp.async, ASYNC_COPY = 1 and STAGES above 2 are left out.
  EXPECT_EQ(blocked.at("ASYNC_COPY"), (Values{0}));
  EXPECT_EQ(blocked.at("STAGES"), (Values{2}));
  const auto gpu = invented_hopper();
  const auto with_cp_async = default_value_lists("blocked", derive_options("blocked", gpu), gpu);
  EXPECT_EQ(with_cp_async.at("ASYNC_COPY"), (Values{0, 1}));
  EXPECT_EQ(with_cp_async.at("STAGES"), (Values{2, 3, 4}));
  EXPECT_EQ(with_cp_async.at("STORE_VEC4"), (Values{1}));  // derived 1 on GPUs, the candidate
}

// Over the whole catalogue: a parameter with candidates is searched over them and its derived
// value alone, short range or long, on a CPU and on a GPU.
TEST(TuneSpace, EveryListIsTheCandidatesAndTheDerivedValue) {
  for (const auto& device : {fake_cpu(), invented_hopper()})
    for (const auto& kernel : kernel_catalog()) {
      if (kernel.needs_tensor_cores && device.compute_capability < 80) continue;
      const auto derived = derive_options(kernel.name, device);
      const auto lists = default_value_lists(kernel.name, derived, device);
      for (const auto& p : kernel.parameters) {
        SCOPED_TRACE(kernel.name + " " + p.name + " on " + device.name);
        ASSERT_EQ(lists.count(p.name), 1u);
        if (p.candidates.empty()) continue;
        Values expected = p.candidates;
        expected.push_back(derived.at(p.name));
        std::sort(expected.begin(), expected.end());
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        EXPECT_EQ(lists.at(p.name), expected);
      }
    }
}

// The register budget counts what a precision keeps alone: wgmma's 128 x 256 tiles with A
// through the pages keep 128 accumulators per work-item, and in 3xTF32 as many slice sums
// beside them, over a GPU's budget of 192: 3xTF32 prunes them, TF32 does not.
TEST(TuneSpace, ThreeTf32CountsItsSliceSums) {
  const auto gpu = invented_hopper();
  KernelOptions wide = derive_options("wgmma", gpu);
  wide["TILE_N"] = 256;
  wide["A_REGISTERS"] = 0;
  wide["TILE_K"] = 8;
  wide["STAGES"] = 2;
  ASSERT_EQ(kernel_registers_per_work_item("wgmma", wide), 128);
  EXPECT_EQ(prune_reason("wgmma", wide, prune_context(gpu, 4096, 4096, Precision::TF32)), "");
  EXPECT_EQ(prune_reason("wgmma", wide, prune_context(gpu, 4096, 4096, Precision::TF32x3)),
            "register-budget");
}

// A plain `clgemm-tune --kernel K` must not be refused for its own default space: blocked's on
// a GPU with cp.async (ASYNC_COPY and three STAGES) once had 3.84 million combinations.
TEST(TuneSpace, EveryDefaultSpaceFitsTheEnumerationCap) {
  for (const auto& device : {fake_cpu(), invented_hopper()})
    for (const auto& kernel : kernel_catalog()) {
      if (kernel.needs_tensor_cores && device.compute_capability < 80) continue;
      SCOPED_TRACE(kernel.name + " on " + device.name);
      const auto lists =
          default_value_lists(kernel.name, derive_options(kernel.name, device), device);
      EXPECT_LE(combinations(lists), kMaxCombinations);
    }
}

}  // namespace
}  // namespace clgemm::tune
