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
  std::string text;  // e.g. "TILE_M % BATCH_M == 0"
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
};

const std::vector<KernelSpec>& kernel_specs();
const KernelSpec& find_spec(const std::string& name);

}  // namespace clgemm::detail
