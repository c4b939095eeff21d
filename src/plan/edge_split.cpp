// Edge-aware tiling: which strips of C are computed apart, and the GEMM of a block of C
// (edge_split.hpp).
#include "plan/edge_split.hpp"

#include <cstdio>

#include "plan/device_fill.hpp"

namespace clgemm::detail {

std::optional<EdgeSplit> split_edges(const std::string& kernel, const KernelOptions& options,
                                     std::int64_t m, std::int64_t n, std::int64_t k,
                                     const DeviceLimits& device) {
  if (double(m) * double(n) * double(k) < kEdgeMinVolume) return std::nullopt;
  const auto block = kernel_block(kernel, options);
  const auto thin = [](std::int64_t size, std::int64_t tile) {
    const std::int64_t rest = size % tile;
    return size > tile && rest > 0 && rest * kEdgeShare <= tile;
  };
  const bool split_rows = thin(m, block[0]), split_columns = thin(n, block[1]);
  if (!split_rows && !split_columns) return std::nullopt;
  const std::int64_t m0 = split_rows ? m / block[0] * block[0] : m;
  const std::int64_t n0 = split_columns ? n / block[1] * block[1] : n;
  const double whole = device_fill(kernel, options, m, n, k, 1, device);
  const double tiles = device_fill(kernel, options, m0, n0, k, 1, device);
  if (tiles < kEdgeGain * whole) return std::nullopt;
  EdgeSplit split;
  split.whole_tiles = {0, m0, 0, n0};
  if (split_rows) split.edges.push_back({m0, m - m0, 0, n});
  if (split_columns) split.edges.push_back({0, m0, n0, n - n0});
  char text[256];
  std::snprintf(text, sizeof text,
                "edge-aware tiling: %s's %lld x %lld tiles fill %.0f%% of the device on %lldx%lld, "
                "%.0f%% on its whole tiles (%lldx%lld), so the rest of C is computed apart",
                kernel.c_str(), (long long)block[0], (long long)block[1], 100 * whole, (long long)m,
                (long long)n, 100 * tiles, (long long)m0, (long long)n0);
  split.reason = text;
  return split;
}

KernelCall sub_call(const KernelCall& call, const Region& region) {
  KernelCall part = call;
  part.m = region.rows;
  part.n = region.cols;
  const auto row0 = std::size_t(region.row0), col0 = std::size_t(region.col0);
  // op(A)(i, k) is A[k * lda + i] when A is read transposed, else A[i * lda + k]; likewise B.
  part.a.offset += row0 * (call.a.transposed ? 1 : std::size_t(call.a.ld));
  part.b.offset += col0 * (call.b.transposed ? std::size_t(call.b.ld) : 1);
  part.c.offset += row0 * std::size_t(call.c.ld) + col0;
  if (call.epilogue.bias == Bias::PerRow) part.epilogue.bias_offset += row0;
  if (call.epilogue.bias == Bias::PerColumn) part.epilogue.bias_offset += col0;
  return part;
}

}  // namespace clgemm::detail
