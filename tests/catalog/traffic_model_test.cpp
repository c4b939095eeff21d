// The traffic model of each kernel (global-memory bytes for an M x N x K problem) and the
// arithmetic intensity derived from it, checked against hand-computed values.
#include <gtest/gtest.h>

#include "clgemm/clgemm.hpp"

namespace clgemm {
namespace {

const KernelOptions kBlocked{{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 16}, {"ITEM_M", 8},
                             {"ITEM_N", 16}, {"VEC", 8},      {"UNROLL", 1}};

TEST(TrafficModel, BaseReadsTwoFloatsPerMultiplyAdd) {
  // 2*M*N*K floats of A and B, plus C written once: 8*M*N*K + 4*M*N bytes.
  const KernelOptions o{{"WG_X", 16}, {"WG_Y", 16}};
  EXPECT_DOUBLE_EQ(global_traffic_bytes("base", o, 64, 32, 16, false),
                   8.0 * 64 * 32 * 16 + 4.0 * 64 * 32);
  EXPECT_DOUBLE_EQ(global_traffic_bytes("base", o, 64, 32, 16, true),
                   8.0 * 64 * 32 * 16 + 8.0 * 64 * 32);
  // 2 FLOP per 8 bytes once K is large enough for C not to count.
  EXPECT_NEAR(arithmetic_intensity("base", o, 1024, 1024, 1 << 20, false), 0.25, 1e-6);
}

TEST(TrafficModel, RowAndPrivate) {
  EXPECT_DOUBLE_EQ(global_traffic_bytes("row", {{"WG", 64}}, 10, 20, 30, false),
                   4.0 * (2.0 * 10 * 20 * 30 + 10 * 20));
  // private reads its row of A once: M*K + M*N*K floats.
  EXPECT_DOUBLE_EQ(
      global_traffic_bytes("private", {{"WG", 64}, {"PRIVATE_K", 256}}, 10, 20, 30, false),
      4.0 * (10.0 * 30 + 10.0 * 20 * 30 + 10 * 20));
}

TEST(TrafficModel, TileIntensityGrowsWithTile) {
  double previous = 0;
  for (long tile : {1, 2, 4, 8, 16, 32}) {
    const double ai = arithmetic_intensity("tile", {{"TILE", tile}}, 1024, 1024, 1024, false);
    EXPECT_GT(ai, previous) << "TILE " << tile;
    previous = ai;
  }
  // 1024^3 with TILE 16: 2*1024^3/16 floats of A and B, 1024^2 of C.
  const double n = 1024;
  EXPECT_DOUBLE_EQ(global_traffic_bytes("tile", {{"TILE", 16}}, 1024, 1024, 1024, false),
                   4.0 * (n * n * n * 2 / 16 + n * n));
  // TILE 1 reads as much as base.
  EXPECT_DOUBLE_EQ(global_traffic_bytes("tile", {{"TILE", 1}}, 100, 70, 30, true),
                   global_traffic_bytes("base", {{"WG_X", 8}, {"WG_Y", 8}}, 100, 70, 30, true));
}

TEST(TrafficModel, EdgeGroupsLoadOnlyInsideTheMatrix) {
  // 33 x 65 with TILE 16: 3 x 5 groups; A (33 x 17) read by 5 column groups, B (17 x 65) by 3.
  EXPECT_DOUBLE_EQ(global_traffic_bytes("tile", {{"TILE", 16}}, 33, 65, 17, false),
                   4.0 * (33.0 * 17 * 5 + 17.0 * 65 * 3 + 33 * 65));
  EXPECT_DOUBLE_EQ(
      global_traffic_bytes("coarsened", {{"TILE", 64}, {"ITEM", 8}}, 33, 65, 17, false),
      4.0 * (33.0 * 17 * 2 + 17.0 * 65 * 1 + 33 * 65));
}

TEST(TrafficModel, RectangularTiles) {
  // M*N*K*(1/TILE_N + 1/TILE_M) floats: 1024^3 * (1/128 + 1/64) = 3 * 2^23.
  const double bytes = 4.0 * (3.0 * (1 << 23) + 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(global_traffic_bytes("blocked", kBlocked, 1024, 1024, 1024, false), bytes);
  KernelOptions vectorized = kBlocked;
  vectorized.erase("UNROLL");
  EXPECT_DOUBLE_EQ(global_traffic_bytes("vectorized", vectorized, 1024, 1024, 1024, false), bytes);
  // 2*1024^3 FLOP over those bytes: 20.48 FLOP/byte, far above tile's 8 at TILE 16.
  EXPECT_NEAR(arithmetic_intensity("blocked", kBlocked, 1024, 1024, 1024, false),
              2.0 * 1024 * 1024 * 1024 / bytes, 1e-9);
  EXPECT_GT(arithmetic_intensity("blocked", kBlocked, 1024, 1024, 1024, false),
            arithmetic_intensity("tile", {{"TILE", 16}}, 1024, 1024, 1024, false));
}

TEST(TrafficModel, UnknownKernelThrows) {
  EXPECT_THROW(global_traffic_bytes("nope", {}, 8, 8, 8, false), Error);
}

}  // namespace
}  // namespace clgemm
