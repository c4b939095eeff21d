// Safe files (clgemm/files.hpp): nothing but a regular file is opened for reading (a FIFO
// must not block), writes are atomic and never go through a symbolic link, concurrent
// read-merge-write updates from threads and processes lose nothing, and temporary files left
// by crashed writers are cleaned.
#include "support/files.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

namespace fs = std::filesystem;

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "clgemm-files-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

void expect_file_error(const std::function<void()>& body, const std::string& needle) {
  try {
    body();
    ADD_FAILURE() << "expected an error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::FileError) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(Files, ReadsRegularFilesOnly) {
  std::ofstream(path("a")) << "text";
  EXPECT_EQ(*read_regular_file(path("a")), "text");
  EXPECT_FALSE(read_regular_file(path("missing")).has_value());
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  expect_file_error([&] { read_regular_file(path("fifo")); }, "is not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // no hang
  expect_file_error([&] { read_regular_file(dir_.string()); }, "is not a regular file");
  expect_file_error([&] { read_regular_file(path("a"), 2); }, "more than the 2 expected");
}

TEST_F(Files, WritesAtomicallyAndNeverThroughALink) {
  write_file_atomically(path("sub/dir/out.txt"), "one");
  EXPECT_EQ(*read_regular_file(path("sub/dir/out.txt")), "one");
  write_file_atomically(path("sub/dir/out.txt"), "two");
  EXPECT_EQ(*read_regular_file(path("sub/dir/out.txt")), "two");
  std::ofstream(path("target")) << "precious";
  fs::create_symlink(path("target"), path("link"));
  expect_file_error([&] { write_file_atomically(path("link"), "evil"); }, "symbolic link");
  EXPECT_EQ(*read_regular_file(path("target")), "precious");
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  expect_file_error([&] { write_file_atomically(path("fifo"), "x"); }, "not a regular file");
  std::set<std::string> left;
  for (const auto& entry : fs::recursive_directory_iterator(dir_))
    left.insert(entry.path().filename().string());
  for (const auto& name : left) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

TEST_F(Files, StaleTemporariesAreCleaned) {
  const auto stale = path("db.json.tmp.123.4.5.6"), fresh = path("db.json.tmp.789.1.2.3");
  std::ofstream(stale) << "half";
  std::ofstream(fresh) << "in progress";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  write_file_atomically(path("db.json"), "{}");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));  // another writer's, maybe still at work
}

// Four threads and four processes each add their own lines to one file, many times; every
// line must be there at the end.
TEST_F(Files, ConcurrentUpdatesLoseNothing) {
  const auto file = path("shared.txt");
  auto add = [&](const std::string& who, int count) {
    for (int i = 0; i < count; ++i)
      update_file_locked(file, [&](const std::optional<std::string>& current) {
        return current.value_or("") + who + "-" + std::to_string(i) + "\n";
      });
  };
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        add("process" + std::to_string(p), 25);
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(add, "thread" + std::to_string(t), 25);
  for (auto& thread : threads) thread.join();
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::set<std::string> lines;
  std::istringstream text(*read_regular_file(file));
  for (std::string line; std::getline(text, line);) lines.insert(line);
  EXPECT_EQ(lines.size(), 200u);
}

// Without HOME, per-user files never go to a shared, world-writable place.
TEST(FileDirectories, WithoutHomeStayPrivate) {
  const char* home = std::getenv("HOME");
  const std::string saved = home ? home : "";
  unsetenv("HOME");
  const std::string dir = per_user_directory("CLGEMM_TEST_NO_SUCH_XDG", ".cache");
  if (!saved.empty()) setenv("HOME", saved.c_str(), 1);
  ASSERT_FALSE(dir.empty());
  EXPECT_NE(dir.rfind("/tmp/clgemm/", 0), 0u) << dir;  // the old shared fallback
  if (dir.rfind("/tmp/", 0) == 0) {
    struct stat info {};
    ASSERT_EQ(lstat(fs::path(dir).parent_path().c_str(), &info), 0);
    EXPECT_EQ(info.st_uid, getuid());
    EXPECT_EQ(info.st_mode & 077, 0u) << dir;
  }
}

}  // namespace
}  // namespace clgemm::testing
