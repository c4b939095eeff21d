// Internal: how much device scratch memory (the Context's workspace, launch/workspace.hpp) one
// call may plan for, and byte counts of float regions computed without overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "clgemm/device.hpp"

namespace clgemm::detail {

// The most a call may use: a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE.
std::size_t workspace_limit(const DeviceLimits& limits);

// a * b * c floats in bytes, or nothing when it would not fit a size_t.
std::optional<std::size_t> float_bytes(std::uint64_t a, std::uint64_t b, std::uint64_t c = 1);

}  // namespace clgemm::detail
