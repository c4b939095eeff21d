// Tile claims (kernels/tile_claims.clh, plan/tile_claims.hpp) on the device the tests select:
// launches of one work-group per tile, on grids with odd and even columns, one row or one
// column, several products or slices, and work-groups of one and of many work-items, each
// claim every tile exactly once and never write past the state the host sizes (off NVIDIA every
// work-group shares one slot, so the opened pairs pass from group to group there). The state
// is zeroed before each launch, as the library zeroes it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plan/tile_claims.hpp"
#include "runtime/device_selection.hpp"
#include "runtime/kernel_source.hpp"

namespace {

using clgemm::detail::claim_state_uints;
using clgemm::detail::kClaimSlots;

// Each work-group's claimed tile, written by its first work-item as (z, row, column).
const char* kClaimKernel = R"CLC(
__kernel void claim_tiles(__global uint *state, __global int *claimed) {
  __local ClaimedTile tile;
  if (get_local_id(0) == 0)
    tile = claim_tile(state, get_num_groups(0), get_num_groups(1), get_num_groups(2));
  barrier(CLK_LOCAL_MEM_FENCE);
  const size_t group = (get_group_id(2) * get_num_groups(1) + get_group_id(1)) *
                       get_num_groups(0) + get_group_id(0);
  if (get_local_id(0) == 0) {
    claimed[3 * group] = tile.z;
    claimed[3 * group + 1] = tile.row;
    claimed[3 * group + 2] = tile.column;
  }
}
)CLC";

class TileClaims : public ::testing::Test {
 protected:
  void SetUp() override {
    selected_ = clgemm::detail::select_device(clgemm::DeviceRequest{});
    context_ = cl::Context(selected_.device);
    queue_ = cl::CommandQueue(context_, selected_.device);
    const std::string source =
        clgemm::detail::load_kernel_source("tile_claims.clh").text + kClaimKernel;
    program_ = cl::Program(context_, source);
    const std::string options = "-D CLAIM_SLOTS=" + std::to_string(kClaimSlots);
    try {
      program_.build({selected_.device}, options.c_str());
    } catch (const cl::Error&) {
      FAIL() << program_.getBuildInfo<CL_PROGRAM_BUILD_LOG>(selected_.device);
    }
  }

  // Claims over a grid of columns x rows x layers work-groups of `items` work-items; returns
  // the claimed tiles in the order of the groups.
  std::vector<std::tuple<int, int, int>> claim(int columns, int rows, int layers, int items) {
    // The tiles' row-major extent in tiles of 1 x 1, so that the host sizes the state for this
    // grid as it would for a call.
    const std::size_t state_uints = claim_state_uints(rows, columns, {1, 1, 1}, layers);
    const cl_uint sentinel = 0xC1A1C1A1u;
    std::vector<cl_uint> state(state_uints + 64, sentinel);
    std::fill(state.begin(), state.begin() + std::ptrdiff_t(state_uints), 0u);
    const std::size_t groups = std::size_t(columns) * rows * layers;
    cl::Buffer state_buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            state.size() * sizeof(cl_uint), state.data());
    cl::Buffer claimed_buffer(context_, CL_MEM_WRITE_ONLY, groups * 3 * sizeof(cl_int));
    cl::Kernel kernel(program_, "claim_tiles");
    kernel.setArg(0, state_buffer);
    kernel.setArg(1, claimed_buffer);
    queue_.enqueueNDRangeKernel(
        kernel, cl::NullRange,
        cl::NDRange(std::size_t(columns) * items, std::size_t(rows), std::size_t(layers)),
        cl::NDRange(std::size_t(items), 1, 1));
    std::vector<cl_int> claimed(groups * 3);
    queue_.enqueueReadBuffer(claimed_buffer, CL_TRUE, 0, claimed.size() * sizeof(cl_int),
                             claimed.data());
    queue_.enqueueReadBuffer(state_buffer, CL_TRUE, 0, state.size() * sizeof(cl_uint),
                             state.data());
    for (std::size_t i = state_uints; i < state.size(); ++i)
      EXPECT_EQ(state[i], sentinel) << "the claims wrote past their state, at uint " << i;
    std::vector<std::tuple<int, int, int>> tiles;
    for (std::size_t g = 0; g < groups; ++g)
      tiles.emplace_back(claimed[3 * g], claimed[3 * g + 1], claimed[3 * g + 2]);
    return tiles;
  }

  // Per test, not per suite: OpenCL objects left to static destruction outlive the runtime
  // under oclgrind, which then fails at exit.
  clgemm::detail::SelectedDevice selected_;
  cl::Context context_;
  cl::CommandQueue queue_;
  cl::Program program_;
};

TEST_F(TileClaims, EveryTileIsClaimedExactlyOnce) {
  const std::vector<std::tuple<int, int, int>> grids = {
      {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {1, 5, 1}, {4, 3, 1}, {7, 5, 3}, {33, 2, 2}, {64, 16, 1}};
  for (const auto& [columns, rows, layers] : grids)
    for (const int items : {1, 64}) {
      SCOPED_TRACE(std::to_string(columns) + " x " + std::to_string(rows) + " x " +
                   std::to_string(layers) + " groups of " + std::to_string(items));
      const auto tiles = claim(columns, rows, layers, items);
      std::set<std::tuple<int, int, int>> seen;
      for (const auto& [z, row, column] : tiles) {
        ASSERT_TRUE(z >= 0 && z < layers && row >= 0 && row < rows && column >= 0 &&
                    column < columns)
            << "claimed (" << z << ", " << row << ", " << column << ")";
        EXPECT_TRUE(seen.insert({z, row, column}).second)
            << "(" << z << ", " << row << ", " << column << ") claimed twice";
      }
      EXPECT_EQ(seen.size(), tiles.size());
    }
}

TEST(TileClaimState, HoldsTwoCountersTheSlotsAndOneFlagPerPair) {
  EXPECT_EQ(claim_state_uints(1, 1, {128, 128, 8}, 1), 2 + kClaimSlots + 1);
  // 1000 x 3000 in 128 x 128 tiles: 8 rows of 24 columns, 12 pairs each; 3 slices.
  EXPECT_EQ(claim_state_uints(1000, 3000, {128, 128, 24}, 3), 2 + kClaimSlots + 3 * 8 * 12);
  // An odd count of columns: the last pair of each row has one tile.
  EXPECT_EQ(claim_state_uints(256, 640, {128, 128, 24}, 1), 2 + kClaimSlots + 2 * 3);
}

}  // namespace
