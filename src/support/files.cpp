// Safe file access (see support/files.hpp): regular files only for reading, exclusive unique
// temporary files renamed into place for writing, flock() for read-merge-write, and the
// per-user directories with a private fallback.
#include "support/files.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <new>
#include <thread>
#include <vector>

#include "clgemm/errors.hpp"

namespace clgemm {
namespace {

// The file functions' error boundary: what the file system or the allocator throws becomes a
// clgemm::Error naming the failure (the library's own boundary, support/error_boundary.hpp, does
// the rest where a public call ends).
[[noreturn]] void rethrow_as_file_error() {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc& error) {
    throw Error(ErrorCode::OutOfHostMemory,
                std::string("out of host memory (") + error.what() + ")");
  } catch (const std::filesystem::filesystem_error& error) {
    throw Error(ErrorCode::FileError, error.what(), Argument::File);
  }
}

}  // namespace

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error = 0) {
  throw Error(
      ErrorCode::FileError,
      "file '" + path + "': " + what + (error ? std::string(": ") + std::strerror(error) : ""),
      Argument::File);
}

// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd = -1;
  explicit Descriptor(int value) : fd(value) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

void write_all(int fd, const std::string& contents, const std::string& path) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot write", errno);
    done += std::size_t(n);
  }
}

std::string temporary_prefix(const fs::path& target) {
  return target.filename().string() + ".tmp.";
}

// A name no other writer uses: process, thread, a counter and the time.
std::string unique_suffix() {
  static std::atomic<unsigned long> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const auto thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return std::to_string(::getpid()) + "." + std::to_string(thread % 1000003) + "." +
         std::to_string(counter++) + "." + std::to_string(now % 1000000007);
}

// Removes "<name>.tmp.*" files beside `target` that are older than an hour: what writers that
// crashed between creating and renaming left behind. Best effort; never follows links.
void remove_stale_temporaries(const fs::path& target) {
  const std::string prefix = temporary_prefix(target);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::error_code ignored;
    if (!it->is_regular_file(ignored) || it->is_symlink(ignored)) continue;
    const auto written = fs::last_write_time(it->path(), ignored);
    if (!ignored && now - written > std::chrono::hours(1)) fs::remove(it->path(), ignored);
  }
}

bool is_private_directory(const std::string& dir) {
  struct stat info {};
  return ::lstat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == ::getuid() &&
         (info.st_mode & 077) == 0;
}

std::string home_directory() {
  if (const char* home = std::getenv("HOME"); home && *home) return home;
  std::vector<char> buffer(16384);
  struct passwd entry {
  }, *found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
      found->pw_dir && *found->pw_dir && std::string(found->pw_dir) != "/")
    return found->pw_dir;
  return {};
}

}  // namespace

std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes) try {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail(path, "cannot open for reading", errno);
  }
  Descriptor file(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(path, "cannot inspect", errno);
  if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file (a directory, FIFO or device)");
  if (std::size_t(info.st_size) > max_bytes)
    fail(path, "holds " + std::to_string(info.st_size) + " bytes, more than the " +
                   std::to_string(max_bytes) + " expected of it");
  std::string contents;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) fail(path, "cannot read", errno);
    if (n == 0) break;
    contents.append(chunk, std::size_t(n));
    if (contents.size() > max_bytes)
      fail(path, "grew beyond the " + std::to_string(max_bytes) + " bytes expected of it");
  }
  return contents;
} catch (...) {
  rethrow_as_file_error();
}

void write_file_atomically(const std::string& path, const std::string& contents) try {
  const fs::path target(path);
  if (target.filename().empty()) fail(path, "names a directory, not a file");
  std::error_code error;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), error);
    if (error) fail(path, "cannot create its directory: " + error.message());
  }
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (S_ISLNK(info.st_mode))
      fail(path, "is a symbolic link, which clgemm does not write through");
    if (!S_ISREG(info.st_mode)) fail(path, "exists and is not a regular file");
  }
  const std::string prefix = (target.parent_path() / temporary_prefix(target)).string();
  std::string temporary;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temporary = prefix + unique_suffix();
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) fail(temporary, "cannot create", errno);
  }
  if (fd < 0) fail(temporary, "cannot create a unique temporary file");
  remove_stale_temporaries(target);
  try {
    Descriptor file(fd);
    write_all(fd, contents, temporary);
    if (::fsync(fd) != 0) fail(temporary, "cannot flush", errno);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(temporary.c_str());
    fail(path, "cannot replace", rename_error);
  }
} catch (...) {
  rethrow_as_file_error();
}

void update_file_locked(
    const std::string& path,
    const std::function<std::string(const std::optional<std::string>&)>& update) try {
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), error);
    if (error) fail(path, "cannot create its directory: " + error.message());
  }
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(lock_path, "cannot open the lock file", errno);
  Descriptor lock(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    fail(lock_path, "is not a regular file, so it cannot serve as a lock");
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) fail(lock_path, "cannot be locked", errno);
  write_file_atomically(path, update(read_regular_file(path)));
  // The lock is released when the descriptor closes.
} catch (...) {
  rethrow_as_file_error();
}

std::optional<std::string> cache_directory_setting() try {
  const char* value = std::getenv("CLGEMM_CACHE_DIR");
  if (!value || !*value) return std::nullopt;
  std::string word = value;
  for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (word == "off") return std::string();
  std::error_code error;
  const fs::path absolute = fs::absolute(value, error);
  return error ? std::string(value) : absolute.lexically_normal().string();
} catch (...) {
  rethrow_as_file_error();
}

std::string per_user_directory(const char* xdg_variable, const char* home_relative) try {
  if (const char* xdg = std::getenv(xdg_variable); xdg && *xdg)
    return (fs::path(xdg) / "clgemm").string();
  if (const std::string home = home_directory(); !home.empty())
    return (fs::path(home) / home_relative / "clgemm").string();
  // No home: a directory of this user's own that no one else can write or plant links in.
  const std::string dir = "/tmp/clgemm-" + std::to_string(::getuid());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return {};
  return is_private_directory(dir) ? (fs::path(dir) / home_relative).string() : std::string();
} catch (...) {
  rethrow_as_file_error();
}

}  // namespace clgemm
