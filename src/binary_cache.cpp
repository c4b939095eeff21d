// The on-disk program binary cache (see binary_cache.hpp). File layout: a text header of four
// lines (format tag, full key, byte count, checksum of the bytes), then the binary itself.
#include "binary_cache.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "kernel_source.hpp"

namespace clgemm::detail {
namespace fs = std::filesystem;

namespace {

const char* kFormatTag = "clgemm-binary-cache 1";

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

}  // namespace

std::string binary_cache_directory() {
  if (const char* dir = std::getenv("CLGEMM_CACHE_DIR"); dir && *dir)
    return std::string(dir) == "off" ? std::string() : std::string(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "clgemm").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "clgemm").string();
  return {};
}

BinaryCache::BinaryCache(const DeviceLimits& device, std::string directory)
    : device_key_(one_line(device.platform_name + " | " + device.platform_version + " | " +
                           device.name + " | " + device.driver_version)),
      directory_(std::move(directory)) {}

std::string BinaryCache::key(const std::string& options, std::uint64_t source_hash) const {
  return device_key_ + " | " + one_line(options) + " | source " + hex(source_hash);
}

std::string BinaryCache::path_for(const std::string& key) const {
  return (fs::path(directory_) / (hex(fnv1a_hash(key)) + ".bin")).string();
}

std::optional<std::vector<unsigned char>> BinaryCache::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  std::ifstream in(path_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string tag, stored_key, size_line, checksum_line;
  if (!std::getline(in, tag) || tag != kFormatTag) return std::nullopt;
  if (!std::getline(in, stored_key) || stored_key != key) return std::nullopt;
  if (!std::getline(in, size_line) || !std::getline(in, checksum_line)) return std::nullopt;
  std::size_t size = 0;
  try {
    size = std::stoull(size_line);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (size == 0 || size > (std::size_t(1) << 30)) return std::nullopt;
  std::vector<unsigned char> binary(size);
  if (!in.read(reinterpret_cast<char*>(binary.data()), std::streamsize(size)))
    return std::nullopt;                                                // truncated
  if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;  // trailing bytes
  const std::string bytes(binary.begin(), binary.end());
  if (hex(fnv1a_hash(bytes)) != checksum_line) return std::nullopt;
  return binary;
}

void BinaryCache::store(const std::string& key, const std::vector<unsigned char>& binary) const {
  if (!enabled() || binary.empty()) return;
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) return;
  const std::string path = path_for(key);
  // Unique per process and thread, so concurrent writers never share a temporary file.
  const std::string temporary =
      path + ".tmp." + std::to_string(::getpid()) + "." +
      std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    const std::string bytes(binary.begin(), binary.end());
    out << kFormatTag << '\n'
        << key << '\n'
        << binary.size() << '\n'
        << hex(fnv1a_hash(bytes)) << '\n';
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) {
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, path, error);
  if (error) fs::remove(temporary, error);
}

}  // namespace clgemm::detail
