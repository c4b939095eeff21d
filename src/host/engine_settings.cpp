// Reading the host-memory engine's settings from the environment (engine_settings.hpp).
#include "host/engine_settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "clgemm/errors.hpp"

namespace clgemm::detail {
namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

// A decimal integer from 1 to `max` (nothing else), or nothing.
std::optional<std::uint64_t> parse_count(const std::string& text, std::uint64_t max) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    value = value * 10 + std::uint64_t(ch - '0');
  }
  if (value < 1 || value > max) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::size_t> parse_byte_count(const std::string& text) {
  if (text.empty()) return std::nullopt;
  unsigned shift = 0;
  std::string digits = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    default:
      break;
  }
  if (shift) digits.pop_back();
  const auto count = parse_count(digits, ~std::uint64_t(0) >> 1);
  if (!count || *count > (~std::uint64_t(0) >> shift)) return std::nullopt;
  return std::size_t(*count << shift);
}

EngineSettings read_engine_settings(const DeviceLimits& device) {
  EngineSettings settings;
  if (const auto limit = variable("CLGEMM_DEVICE_MEMORY_LIMIT")) {
    const auto bytes = parse_byte_count(*limit);
    if (!bytes)
      throw Error(ErrorCode::InvalidArgument,
                  "CLGEMM_DEVICE_MEMORY_LIMIT = '" + *limit +
                      "' is not a byte count: expected a whole number of bytes from 1, with an "
                      "optional K, M or G suffix (powers of 1024), e.g. 1048576 or 512M");
    settings.device_memory_limit = *bytes;
    settings.limit_source = "CLGEMM_DEVICE_MEMORY_LIMIT = " + *limit;
  } else {
    settings.device_memory_limit = device.global_memory_bytes / 2;
    settings.limit_source =
        "half of CL_DEVICE_GLOBAL_MEM_SIZE = " + std::to_string(device.global_memory_bytes) +
        " of device '" + device.name + "'; CLGEMM_DEVICE_MEMORY_LIMIT sets another";
  }
  const auto copy = variable("CLGEMM_HOST_COPY");
  settings.force_copy = copy && *copy == "1";
  if (const auto tile = variable("CLGEMM_HOST_TILE")) {
    const auto x = tile->find('x');
    const auto m = parse_count(tile->substr(0, x), 1u << 30);
    const auto n = x == std::string::npos ? m : parse_count(tile->substr(x + 1), 1u << 30);
    if (!m || !n)
      throw Error(ErrorCode::InvalidArgument,
                  "CLGEMM_HOST_TILE = '" + *tile +
                      "' is not a tile edge: expected E (tiles of E x E, K in slabs of E) or MxN "
                      "(K whole), each a whole number from 1 to 2^30");
    settings.tile_m = std::int64_t(*m), settings.tile_n = std::int64_t(*n);
    settings.tile_k = x == std::string::npos ? std::int64_t(*m) : 0;
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  settings.copy_threads = std::min(cores, 8u);
  if (const auto threads = variable("CLGEMM_HOST_THREADS")) {
    const auto count = parse_count(*threads, 256);
    if (!count)
      throw Error(ErrorCode::InvalidArgument,
                  "CLGEMM_HOST_THREADS = '" + *threads +
                      "' is not a thread count: expected a whole number from 1 to 256");
    settings.copy_threads = unsigned(*count);
  }
  return settings;
}

}  // namespace clgemm::detail
