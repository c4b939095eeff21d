// Cutting a host-array call into pieces (tile_plan.hpp).
#include "host/tile_plan.hpp"

#include <algorithm>
#include <cmath>

#include "clgemm/errors.hpp"

namespace clgemm::detail {
namespace {

std::int64_t tiles_to_cover(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The tile edge along an extent `d` aiming at `target`: d split into about d / target equal
// parts, rounded up to a multiple of 128 (the kernels' tiles) where that still splits d.
std::int64_t edge_for(std::int64_t d, std::int64_t target) {
  const std::int64_t parts = std::max<std::int64_t>(1, std::llround(double(d) / double(target)));
  std::int64_t edge = tiles_to_cover(d, parts);
  if (edge < d) edge = std::min(d, tiles_to_cover(edge, 128) * 128);
  return std::max<std::int64_t>(1, edge);
}

constexpr std::size_t kFloat = sizeof(float);
constexpr std::size_t kTableEntry = 32;  // sizeof(BatchProduct)

// The device buffers of a tiled plan with these tiles and products per piece.
DeviceLayout tiled_layout(const TilingInput& in, const TilePlan& p, bool keep_b) {
  DeviceLayout layout;
  const std::size_t tm = std::size_t(p.tile_m), tn = std::size_t(p.tile_n);
  const std::size_t tk = std::size_t(std::max<std::int64_t>(p.tile_k, 1));
  const std::size_t products = std::size_t(p.products);
  if (in.operands) {
    layout.a = {2, (in.a_shared ? 1 : products) * tm * tk * kFloat};
    const std::size_t b_blocks =
        std::size_t((in.b_shared ? 1 : p.groups()) * p.column_tiles() * p.slabs());
    layout.b = {keep_b ? b_blocks : std::min<std::size_t>(b_blocks, 2),
                (in.b_shared ? 1 : products) * tk * tn * kFloat};
  }
  layout.c = {2, products * tm * tn * kFloat};
  if (in.bias)
    layout.bias = {2, (in.bias_shared ? 1 : products) * (in.bias_per_row ? tm : tn) * kFloat};
  if (in.table) layout.table = {2, products * kTableEntry};
  return layout;
}

bool fits(const DeviceLayout& layout, const TilingInput& in) {
  for (const SlotRing* ring : {&layout.a, &layout.b, &layout.c, &layout.bias, &layout.table})
    if (ring->bytes > in.max_allocation) return false;
  return layout.total() <= in.limit;
}

// One piece with every matrix as the caller laid it out, or nothing when it does not fit.
bool plan_whole(const TilingInput& in, TilePlan& plan) {
  plan.whole = true;
  plan.tile_m = std::max<std::int64_t>(in.m, 1), plan.tile_n = std::max<std::int64_t>(in.n, 1);
  plan.tile_k = std::max<std::int64_t>(in.k, 1),
  plan.products = std::max<std::int64_t>(in.batch, 1);
  DeviceLayout& layout = plan.layout;
  if (in.operands) layout.a = {1, in.a_span}, layout.b = {1, in.b_span};
  layout.c = {1, in.c_span};
  if (in.bias) layout.bias = {1, in.bias_span};
  if (in.table) layout.table = {1, std::size_t(in.batch) * kTableEntry};
  return fits(layout, in);
}

}  // namespace

TilePlan plan_tiles(const TilingInput& in) {
  TilePlan plan;
  plan.m = in.m, plan.n = in.n, plan.k = in.k, plan.batch = in.batch;
  const double multiply_adds = double(in.batch) * double(in.m) * double(in.n) * double(in.k);
  const bool forced = in.tile_m > 0;
  if (!forced && multiply_adds <= kWholeCallMultiplyAdds && plan_whole(in, plan)) return plan;

  plan = TilePlan();
  plan.m = in.m, plan.n = in.n, plan.k = in.k, plan.batch = in.batch;
  const std::int64_t target_m = forced ? in.tile_m : kTargetTileEdge;
  const std::int64_t target_n = forced ? in.tile_n : kTargetTileEdge;
  if (in.batch > 1 && in.m <= target_m && in.n <= target_n) {
    // Whole products, as many per piece as make a tile of about target_m x target_n.
    plan.tile_m = in.m, plan.tile_n = in.n;
    plan.products = std::clamp<std::int64_t>(target_m * target_n / (in.m * in.n), 1, in.batch);
  } else {
    plan.tile_m = forced ? std::min(in.m, target_m) : edge_for(in.m, target_m);
    plan.tile_n = forced ? std::min(in.n, target_n) : edge_for(in.n, target_n);
  }
  plan.tile_k = std::max<std::int64_t>(1, in.tile_k ? std::min(in.k, in.tile_k) : in.k);
  if (!in.operands) plan.tile_k = std::max<std::int64_t>(in.k, 1);  // no slabs: C = beta * C

  // Shrink until the buffers fit: first stop keeping all of B, then fewer products per
  // piece, then the largest of the tile's edges and K's slab, halved down to the smallest.
  bool keep_b = true;
  while (!fits(tiled_layout(in, plan, keep_b), in)) {
    if (keep_b) {
      keep_b = false;
      continue;
    }
    if (plan.products > 1) {
      plan.products = tiles_to_cover(plan.products, 2);
      continue;
    }
    std::int64_t* edges[] = {&plan.tile_m, &plan.tile_n, &plan.tile_k};
    const std::int64_t floors[] = {std::min(in.m, kSmallestTileEdge),
                                   std::min(in.n, kSmallestTileEdge),
                                   in.operands ? std::min(in.k, kSmallestTileEdge) : plan.tile_k};
    int largest = -1;
    for (int e = 0; e < 3; ++e)
      if (*edges[e] > floors[e] && (largest < 0 || *edges[e] > *edges[largest])) largest = e;
    if (largest < 0) {
      const DeviceLayout smallest = tiled_layout(in, plan, false);
      throw Error(ErrorCode::AllocationTooLarge,
                  "the host-array engine needs " + std::to_string(smallest.total()) +
                      " bytes of device memory even for its smallest tiles (" +
                      std::to_string(plan.tile_m) + " x " + std::to_string(plan.tile_n) +
                      " of C, K in slabs of " + std::to_string(plan.tile_k) +
                      ", two buffers each for A, B and C), above the limit of " +
                      std::to_string(in.limit) + " bytes (" + in.limit_source + ")");
    }
    *edges[largest] = std::max(floors[largest], tiles_to_cover(*edges[largest], 2));
  }
  plan.layout = tiled_layout(in, plan, keep_b);
  return plan;
}

std::string describe_tiles(const TilePlan& plan) {
  if (plan.whole) return "host engine: one piece";
  std::string text = "host engine: " + std::to_string(plan.tiles()) + " tile(s) of " +
                     std::to_string(plan.tile_m) + " x " + std::to_string(plan.tile_n);
  if (plan.products > 1) text += " x " + std::to_string(plan.products) + " products";
  text += plan.slabs() > 1 ? ", K in " + std::to_string(plan.slabs()) + " slabs of " +
                                 std::to_string(plan.tile_k)
                           : ", K whole";
  if (plan.layout.b.count > 2) text += ", B kept on the device";
  return text;
}

}  // namespace clgemm::detail
