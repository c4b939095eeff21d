// Locating and reading kernel sources at run time (see kernel_source.hpp).
#include "runtime/kernel_source.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <regex>
#include <sstream>

#include "clgemm/errors.hpp"
#include "clgemm/kernels.hpp"
#include "support/error_boundary.hpp"
#include "support/files.hpp"
#include "support/immortal.hpp"

namespace clgemm::detail {
namespace fs = std::filesystem;

namespace {

// The directory of the shared library itself, to find <prefix>/share/clgemm/kernels from
// <prefix>/lib/libclgemm.so wherever the installation was moved.
std::string library_relative_kernel_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&clgemm::kernel_search_path), &info) == 0 || !info.dli_fname)
    return {};
  const fs::path lib = fs::path(info.dli_fname).parent_path();
  return (lib.parent_path() / "share" / "clgemm" / "kernels").string();
}

// The directory given to set_kernel_directory() ("" for none), and the lock guarding it.
struct ProgramKernelDirectory {
  std::mutex mutex;
  std::string directory;
};
ProgramKernelDirectory& program_kernel_directory() {
  static auto& instance = immortal<ProgramKernelDirectory>();
  return instance;
}

// False unless `path` is a regular file that could be read (see support/files.hpp: a
// directory, FIFO or device is never opened for reading, so it cannot block the caller).
bool read_file(const fs::path& path, std::string& out) {
  try {
    auto text = read_regular_file(path.string(), std::size_t(16) << 20);
    if (!text) return false;
    out = std::move(*text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// Replaces each line `#include "name"` with the named file from `dir`, recursively, each file
// at most once (the kernels' headers have include guards; this also stops cycles).
std::string inline_includes(const std::string& text, const fs::path& dir,
                            std::vector<std::string>& seen, const std::string& from) {
  static const auto& include_line = immortal<std::regex>(R"re(^\s*#\s*include\s*"([^"]+)"\s*$)re");
  std::istringstream lines(text);
  std::ostringstream out;
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, include_line)) {
      out << line << '\n';
      continue;
    }
    const std::string name = match[1];
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    std::string included;
    if (!read_file(dir / name, included))
      throw Error(ErrorCode::KernelSourceNotFound,
                  from + " includes \"" + name + "\", which is missing from " + dir.string());
    out << inline_includes(included, dir, seen, name);
  }
  return out.str();
}

}  // namespace

}  // namespace clgemm::detail

namespace clgemm {

std::vector<std::string> kernel_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CLGEMM_KERNEL_DIR"); env && *env) dirs.push_back(env);
  {
    auto& named = detail::program_kernel_directory();
    std::lock_guard<std::mutex> lock(named.mutex);
    if (!named.directory.empty()) dirs.push_back(named.directory);
  }
  // An installed library prefers the kernels installed beside it over the source tree it was
  // built from (which may have changed or be gone); a library in the build tree has none.
  const std::string relative = detail::library_relative_kernel_dir();
  if (!relative.empty()) dirs.push_back(relative);
#ifdef CLGEMM_BUILD_KERNEL_DIR  // not in a Python wheel (CLGEMM_KERNEL_DIR_FALLBACKS=OFF)
  dirs.push_back(CLGEMM_BUILD_KERNEL_DIR);
  if (relative != CLGEMM_INSTALL_KERNEL_DIR) dirs.push_back(CLGEMM_INSTALL_KERNEL_DIR);
#endif
  return dirs;
}

void set_kernel_directory(const std::string& directory) try {
  auto& named = detail::program_kernel_directory();
  std::lock_guard<std::mutex> lock(named.mutex);
  named.directory = directory;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::string kernel_source_path(const std::string& name) try {
  return detail::load_kernel_source(name).path;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm

namespace clgemm::detail {

KernelSource load_kernel_source(const std::string& file) {
  std::string looked;
  for (const auto& dir : kernel_search_path()) {
    const fs::path path = fs::path(dir) / file;
    std::string text;
    if (read_file(path, text)) {
      std::vector<std::string> seen;
      KernelSource source{path.string(), inline_includes(text, dir, seen, file), 0};
      source.hash = fnv1a_hash(source.text);
      return source;
    }
    looked += "\n  " + path.string();
    std::error_code error;
    if (fs::exists(path, error)) looked += " (exists, but is not a readable file)";
  }
  throw Error(ErrorCode::KernelSourceNotFound,
              "kernel source '" + file + "' not found; looked in:" + looked +
                  "\nset CLGEMM_KERNEL_DIR to the directory holding the .cl files");
}

std::uint64_t fnv1a_hash(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace clgemm::detail
