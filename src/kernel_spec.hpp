// Internal description of a kernel: everything the host needs beyond the public catalogue
// entry, namely how to derive its parameters, which constraints they obey, and how to launch it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm::detail {

// A rule the parameters must obey, written as data so a broken one is named before building.
struct Constraint {
  std::string text;  // e.g. "TILE_M % ITEM_M == 0"
  std::function<bool(const KernelOptions&)> holds;
};

struct LaunchGeometry {
  std::array<std::size_t, 2> global;
  std::array<std::size_t, 2> local;
};

struct KernelSpec {
  KernelDescription description;
  std::string entry_point;            // the __kernel function in the file
  bool uses_alignment_hints = false;  // takes A_ALIGNED / B_ALIGNED from the problem
  std::function<KernelOptions(const DeviceLimits&)> derive;
  std::vector<Constraint> constraints;
  std::function<std::array<std::size_t, 2>(const KernelOptions&)> work_group;  // (x, y)
  std::function<std::size_t(const KernelOptions&)> local_memory_bytes;
  std::function<LaunchGeometry(const KernelOptions&, std::int64_t m, std::int64_t n)> geometry;
  // The block one work-group covers: rows and columns of C, and the depth of one K step. The
  // kernels index with 32-bit ints, so each size rounded up to its block, plus one block more
  // (the next step's loads), must stay below 2^31 (check_index_range).
  std::function<std::array<std::int64_t, 3>(const KernelOptions&)> block;
  // The traffic model: floats of A and B the kernel loads from global memory for a row-major
  // M x N x K problem, counted as its work-items issue them (reuse through local or private
  // memory lowers it; loads outside the matrix are masked and not counted). C is added by
  // global_traffic_bytes(), the same for every kernel.
  std::function<double(const KernelOptions&, std::int64_t m, std::int64_t n, std::int64_t k)>
      operand_loads;
};

const std::vector<KernelSpec>& kernel_specs();
const KernelSpec& find_spec(const std::string& name);

}  // namespace clgemm::detail
