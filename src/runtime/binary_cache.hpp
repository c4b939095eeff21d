// Internal: the on-disk cache of compiled program binaries. Its key cannot go stale: it holds
// the platform and its version, the device, the driver version, the full option string, a
// hash of the complete kernel source and, for a program whose PTX was rewritten
// (ptx_rewrite.hpp), the rewrite and its version. Each file also carries its key and a checksum
// over the key and the binary together, so a corrupt, truncated or colliding file, or one copied
// under another key, is detected and simply rebuilt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "runtime/ptx_rewrite.hpp"

namespace clgemm::detail {

// Where binaries are kept: $CLGEMM_CACHE_DIR, else $XDG_CACHE_HOME/clgemm, else
// ~/.cache/clgemm (a private per-user directory without a home; see per_user_directory).
// CLGEMM_CACHE_DIR=off (in any case) disables the cache: returns "". A relative directory is
// made absolute when read (cache_directory_setting), once per Context.
std::string binary_cache_directory();

class BinaryCache {
 public:
  BinaryCache(const DeviceLimits& device, std::string directory);

  bool enabled() const { return !directory_.empty(); }
  // The full key of one program; equal keys mean identical binaries. A rewritten build's key
  // ends in " | ptx rewrite sm_90a <kPtxRewriteVersion>", so it never shares an entry with the
  // plain build of the same source and options (whose key has no such part).
  std::string key(const std::string& options, std::uint64_t source_hash,
                  PtxRewrite rewrite = PtxRewrite::None) const;
  // The binary stored under `key`, or nothing when absent, unreadable or damaged.
  std::optional<std::vector<unsigned char>> load(const std::string& key) const;
  // Stores atomically (see support/files.hpp); failures are ignored: the cache is an
  // optimisation.
  void store(const std::string& key, const std::vector<unsigned char>& binary) const;

  // The file format, on its own (also fuzzed): a header of four lines (format tag, key, byte
  // count, checksum of key and bytes), then the bytes. parse_entry returns the binary only
  // when every part is intact and the stored key is `key`.
  static std::string format_entry(const std::string& key, const std::vector<unsigned char>& binary);
  static std::optional<std::vector<unsigned char>> parse_entry(const std::string& file,
                                                               const std::string& key);

 private:
  std::string path_for(const std::string& key) const;
  std::string device_key_;
  std::string directory_;
};

}  // namespace clgemm::detail
