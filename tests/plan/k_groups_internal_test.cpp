// The k-groups `auto` gives blocked (plan/k_groups.hpp) on an invented H100 (132 compute units,
// 48 KiB of local memory): two where a launch leaves each unit at most one work-group and each
// k-group keeps its slices of K, one otherwise.
#include <gtest/gtest.h>

#include "catalog/kernel_spec.hpp"
#include "plan/k_groups.hpp"
#include "test_support.hpp"

namespace clgemm::detail {
namespace {

using clgemm::testing::invented_hopper;

// The 64 x 128 tiles `auto` runs 1024^3 on (the H200's medium-large entry), K_GROUPS 1.
KernelOptions mid_tiles() {
  return resolve_options("blocked", invented_hopper(),
                         {{"TILE_M", 64},
                          {"TILE_N", 128},
                          {"TILE_K", 8},
                          {"ITEM_M", 8},
                          {"ITEM_N", 8},
                          {"VEC", 4},
                          {"LANES_N", 8},
                          {"FRAG_PREFETCH", 1},
                          {"LOCAL_PAD", 4}});
}

TEST(KGroups, TwoWhereEachUnitHasAtMostOneWorkGroup) {
  const auto gpu = invented_hopper();
  // 1024^3: 16 x 8 = 128 tiles, no split; 896^3: 98; 132 exactly.
  EXPECT_EQ(auto_k_groups(mid_tiles(), 128, 1024, gpu), kAutoKGroups);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 98, 896, gpu), kAutoKGroups);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 132, 1024, gpu), kAutoKGroups);
  // 1024x1024x2048 in two slices of K (256 work-groups), 960x1024x4096 in three (360): more
  // work-groups than units, where two k-groups ran slower.
  EXPECT_EQ(auto_k_groups(mid_tiles(), 256, 1024, gpu), 1);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 360, 1368, gpu), 1);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 133, 1024, gpu), 1);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 0, 1024, gpu), 1);
}

TEST(KGroups, OneWhereAKGroupWouldKeepTooLittleOfK) {
  const auto gpu = invented_hopper();
  const std::int64_t enough = kAutoKGroups * kMinKGroupSteps * 8;  // TILE_K 8
  EXPECT_EQ(auto_k_groups(mid_tiles(), 128, enough, gpu), kAutoKGroups);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 128, enough - 8, gpu), 1);
  EXPECT_EQ(auto_k_groups(mid_tiles(), 128, 1, gpu), 1);
}

TEST(KGroups, OneWhereTheOptionsCannotTakeThem) {
  const auto gpu = invented_hopper();
  // 128 x 256 tiles: their sums (128 KiB) do not fit the local memory.
  const auto large = resolve_options(
      "blocked", gpu,
      {{"TILE_M", 128}, {"TILE_N", 256}, {"TILE_K", 8}, {"ITEM_M", 16}, {"ITEM_N", 8}});
  EXPECT_FALSE(takes_auto_k_groups(large, gpu));
  EXPECT_EQ(auto_k_groups(large, 16, 1024, gpu), 1);
  // Already split inside the work-group (the caller's or the entry's own K_GROUPS).
  auto given = mid_tiles();
  given["K_GROUPS"] = 2;
  EXPECT_EQ(auto_k_groups(given, 128, 1024, gpu), 1);
  // A CPU: its cores run a work-group as a loop.
  DeviceLimits cpu = gpu;
  cpu.type = DeviceType::CPU;
  EXPECT_FALSE(takes_auto_k_groups(mid_tiles(), cpu));
  EXPECT_EQ(auto_k_groups(mid_tiles(), 128, 1024, cpu), 1);
  EXPECT_TRUE(takes_auto_k_groups(mid_tiles(), gpu));
}

}  // namespace
}  // namespace clgemm::detail
