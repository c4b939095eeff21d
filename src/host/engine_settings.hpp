// Internal: the host-memory engine's settings, read from the environment on each call:
// CLGEMM_DEVICE_MEMORY_LIMIT (the device memory the engine may hold), CLGEMM_HOST_COPY (copy
// even where the device shares host memory), and two internal knobs for tests and
// measurements, CLGEMM_HOST_TILE (the tiles' edge) and CLGEMM_HOST_THREADS (host copy threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "clgemm/device.hpp"

namespace clgemm::detail {

struct EngineSettings {
  // Device memory the engine's buffers may hold together, in bytes, and where that figure
  // came from (for errors): the variable's value, or half of CL_DEVICE_GLOBAL_MEM_SIZE.
  std::size_t device_memory_limit = 0;
  std::string limit_source;
  // CLGEMM_HOST_COPY=1: the copying engine even on a device that shares host memory.
  bool force_copy = false;
  // CLGEMM_HOST_TILE: "E" tiles of E x E with K in slabs of E, or "MxN" tiles of M x N with K
  // whole; either way no single-piece shortcut. 0 for the engine's own choice (tile_k 0: K
  // whole).
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
  // Threads copying between the caller's arrays and the pinned staging (the caller's included).
  unsigned copy_threads = 1;
};

// "512", "64K", "3M", "2G" (powers of 1024): the bytes, or nothing when `text` is not of that
// form or does not fit 64 bits.
std::optional<std::size_t> parse_byte_count(const std::string& text);

// The settings for `device` from the environment. Error(InvalidArgument) naming the variable
// and the accepted form for a value that is not valid.
EngineSettings read_engine_settings(const DeviceLimits& device);

}  // namespace clgemm::detail
