// Internal: the on-disk cache of compiled program binaries. Its key cannot go stale: it holds
// the platform and its version, the device, the driver version, the full option string and a
// hash of the complete kernel source. Each file also carries its key and a checksum, so a
// corrupt, truncated or colliding file is detected and simply rebuilt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"

namespace clgemm::detail {

// Where binaries are kept: $CLGEMM_CACHE_DIR, else $XDG_CACHE_HOME/clgemm, else
// ~/.cache/clgemm. CLGEMM_CACHE_DIR=off (or an empty home) disables the cache: returns "".
std::string binary_cache_directory();

class BinaryCache {
 public:
  BinaryCache(const DeviceLimits& device, std::string directory);

  bool enabled() const { return !directory_.empty(); }
  // The full key of one program; equal keys mean identical binaries.
  std::string key(const std::string& options, std::uint64_t source_hash) const;
  // The binary stored under `key`, or nothing when absent, unreadable or damaged.
  std::optional<std::vector<unsigned char>> load(const std::string& key) const;
  // Stores atomically (write then rename); failures are ignored: the cache is an optimisation.
  void store(const std::string& key, const std::vector<unsigned char>& binary) const;

 private:
  std::string path_for(const std::string& key) const;
  std::string device_key_;
  std::string directory_;
};

}  // namespace clgemm::detail
