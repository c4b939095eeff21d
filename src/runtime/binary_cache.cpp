// The on-disk program binary cache (see binary_cache.hpp). File layout: a text header of four
// lines (format tag, full key, byte count, checksum of key and bytes), then the binary itself.
#include "runtime/binary_cache.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "clgemm/errors.hpp"
#include "runtime/kernel_source.hpp"
#include "support/files.hpp"

namespace clgemm::detail {
namespace fs = std::filesystem;

namespace {

const char* kFormatTag = "clgemm-binary-cache 2";

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// The largest binary accepted from the cache; a header claiming more is damaged.
constexpr std::size_t kMaxBinaryBytes = std::size_t(1) << 30;

std::string checksum(const std::string& key, const std::string& bytes) {
  return hex(fnv1a_hash(key + '\n' + bytes));
}

}  // namespace

std::string binary_cache_directory() {
  if (const auto setting = cache_directory_setting()) return *setting;
  return per_user_directory("XDG_CACHE_HOME", ".cache");
}

BinaryCache::BinaryCache(const DeviceLimits& device, std::string directory)
    : device_key_(one_line(device.platform_name + " | " + device.platform_version + " | " +
                           device.name + " | " + device.driver_version)),
      directory_(std::move(directory)) {}

std::string BinaryCache::key(const std::string& options, std::uint64_t source_hash,
                             PtxRewrite rewrite) const {
  std::string key = device_key_ + " | " + one_line(options) + " | source " + hex(source_hash);
  if (rewrite != PtxRewrite::None)
    key += std::string(" | ptx rewrite ") + ptx_rewrite_name(rewrite) + " " +
           std::to_string(kPtxRewriteVersion);
  return key;
}

std::string BinaryCache::path_for(const std::string& key) const {
  return (fs::path(directory_) / (hex(fnv1a_hash(key)) + ".bin")).string();
}

std::string BinaryCache::format_entry(const std::string& key,
                                      const std::vector<unsigned char>& binary) {
  const std::string bytes(binary.begin(), binary.end());
  return std::string(kFormatTag) + '\n' + one_line(key) + '\n' + std::to_string(bytes.size()) +
         '\n' + checksum(one_line(key), bytes) + '\n' + bytes;
}

std::optional<std::vector<unsigned char>> BinaryCache::parse_entry(const std::string& file,
                                                                   const std::string& key) {
  std::size_t at = 0;
  auto line = [&](std::string& out) {
    const std::size_t end = file.find('\n', at);
    if (end == std::string::npos) return false;
    out = file.substr(at, end - at);
    at = end + 1;
    return true;
  };
  std::string tag, stored_key, size_line, checksum_line;
  if (!line(tag) || tag != kFormatTag) return std::nullopt;
  if (!line(stored_key) || stored_key != key) return std::nullopt;
  if (!line(size_line) || !line(checksum_line)) return std::nullopt;
  if (size_line.empty() || size_line.size() > 10 ||
      size_line.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const std::size_t size = std::stoull(size_line);  // at most 10 digits: cannot overflow
  if (size == 0 || size > kMaxBinaryBytes || file.size() - at != size) return std::nullopt;
  const std::string bytes = file.substr(at);
  if (checksum(stored_key, bytes) != checksum_line) return std::nullopt;
  return std::vector<unsigned char>(bytes.begin(), bytes.end());
}

std::optional<std::vector<unsigned char>> BinaryCache::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  try {
    const auto file = read_regular_file(path_for(key), kMaxBinaryBytes + 4096);
    return file ? parse_entry(*file, one_line(key)) : std::nullopt;
  } catch (const Error&) {
    return std::nullopt;  // not a regular file, unreadable or too large: rebuilt and replaced
  }
}

void BinaryCache::store(const std::string& key, const std::vector<unsigned char>& binary) const {
  if (!enabled() || binary.empty() || binary.size() > kMaxBinaryBytes) return;
  const std::string path = path_for(key);
  try {
    write_file_atomically(path, format_entry(key, binary));
  } catch (const Error&) {
    // An unwritable or occupied cache only costs a rebuild next time. Something other than a
    // regular file at the entry's path (a link, FIFO or directory someone put there) would
    // cost it on every run, so it is said, once per process.
    std::error_code error;
    const auto status = fs::symlink_status(path, error);
    if (!error && fs::exists(status) && !fs::is_regular_file(status)) {
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        std::fprintf(stderr,
                     "clgemm: the program cache entry '%s' is %s, not a regular file: the "
                     "programs stored there are compiled on every run until it is removed "
                     "(said once per process)\n",
                     path.c_str(),
                     fs::is_symlink(status)     ? "a symbolic link"
                     : fs::is_directory(status) ? "a directory"
                     : fs::is_fifo(status)      ? "a FIFO"
                                                : "a special file");
    }
  }
}

}  // namespace clgemm::detail
