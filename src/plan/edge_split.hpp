// Internal: edge-aware tiling. Where a kernel's tiles leave a nearly empty last row or column
// of work-groups on C (4097 on tiles of 128 pays for 33 rows of tiles, the last holding one
// row of C), `auto` launches the kernel on C's whole tiles only and computes the thin strips
// past them as GEMMs of their own, which `auto` gives a kernel for their shape (gemv for a
// strip of a few rows). Each part is the same GEMM on a block of C: C's rows and columns of
// the block, op(A)'s rows and op(B)'s columns of it, all of K.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of the row-major call's C.
struct Region {
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

// A last row (column) of tiles is split off when it holds at most 1/kEdgeShare of a tile's rows
// (columns)...
constexpr std::int64_t kEdgeShare = 8;
// ... the whole tiles keep the device at least this much busier than the full launch did
// (device_fill, which counts the slices of an automatic split of K) ...
constexpr double kEdgeGain = 1.1;
// ... and the call has m * n * k at least this (1024^3): below it the strips' launches cost
// more than the emptier tiles do.
constexpr double kEdgeMinVolume = 1073741824.0;

struct EdgeSplit {
  Region whole_tiles;
  std::vector<Region> edges;  // the last rows (all columns), then the last columns
  std::string reason;
};

// The split of the row-major m x n x k call for `kernel` with these resolved options, or none.
std::optional<EdgeSplit> split_edges(const std::string& kernel, const KernelOptions& options,
                                     std::int64_t m, std::int64_t n, std::int64_t k,
                                     const DeviceLimits& device);

// The part of `call` (batch 1, no table) that computes `region` of C: the operands' and C's
// offsets moved to the region's first row and column, and the bias's to its first element.
KernelCall sub_call(const KernelCall& call, const Region& region);

}  // namespace clgemm::detail
