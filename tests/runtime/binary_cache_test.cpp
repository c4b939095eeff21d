// The on-disk program binary cache: a second context loads what the first compiled, and a
// damaged cache file is detected and rebuilt, never trusted.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "support/files.hpp"
#include "test_support.hpp"

namespace clgemm::testing {
namespace {

namespace fs = std::filesystem;

class BinaryCache : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("clgemm-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    ASSERT_EQ(setenv("CLGEMM_CACHE_DIR", directory_.c_str(), 1), 0);
    // Only the programs these tests build go into the directory: no background warming (on
    // by default on GPUs) writing others beside them.
    set_default_warm_mode(WarmMode::Off);
  }
  void TearDown() override {
    reset_default_warm_mode();
    unsetenv("CLGEMM_CACHE_DIR");
    fs::remove_all(directory_);
  }

  // A fresh context (empty in-memory cache) building and running `tile` with TILE = 4.
  GemmRecord run_in_new_context() {
    Context context;
    const auto problem = padded_problem(19, 23, 29);
    const auto a = random_matrix(problem.a_elements(), 1);
    const auto b = random_matrix(problem.b_elements(), 2);
    const auto c_before = random_matrix(problem.c_elements(), 3);
    auto c = c_before;
    RunSettings settings;
    settings.kernel = "tile";
    settings.overrides = {{"TILE", 4}};
    const auto timing = context.sgemm(problem, a.data(), b.data(), c.data(), settings);
    const auto check = verify_gemm(problem, a.data(), b.data(), c_before.data(), c.data());
    EXPECT_TRUE(check.passed) << check.first_failure;
    return timing;
  }

  std::vector<fs::path> cache_files() const {
    std::vector<fs::path> files;
    if (fs::exists(directory_))
      for (const auto& entry : fs::directory_iterator(directory_)) files.push_back(entry.path());
    return files;
  }

  fs::path directory_;
};

TEST_F(BinaryCache, SecondContextLoadsTheStoredBinary) {
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
  ASSERT_EQ(cache_files().size(), 1u);
  EXPECT_TRUE((run_in_new_context().origin == ProgramOrigin::DiskCache));
}

TEST_F(BinaryCache, TruncatedFileIsRebuilt) {
  run_in_new_context();
  ASSERT_EQ(cache_files().size(), 1u);
  fs::resize_file(cache_files()[0], fs::file_size(cache_files()[0]) / 2);
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
  EXPECT_TRUE((run_in_new_context().origin == ProgramOrigin::DiskCache));  // rewritten whole
}

TEST_F(BinaryCache, CorruptBytesAreRebuilt) {
  run_in_new_context();
  ASSERT_EQ(cache_files().size(), 1u);
  {
    // Flip bytes near the end of the binary: the header stays valid, the checksum does not.
    std::fstream file(cache_files()[0], std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-16, std::ios::end);
    file.write("\x5a\xa5\x5a\xa5\x5a\xa5\x5a\xa5", 8);
  }
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
}

TEST_F(BinaryCache, DisabledWithOff) {
  ASSERT_EQ(setenv("CLGEMM_CACHE_DIR", "off", 1), 0);
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
  EXPECT_TRUE(cache_files().empty());
}

// A FIFO where the cache entry should be neither blocks nor breaks the call: it is rebuilt.
TEST_F(BinaryCache, NonRegularEntryIsIgnored) {
  run_in_new_context();
  ASSERT_EQ(cache_files().size(), 1u);
  const auto entry = cache_files()[0];
  fs::remove(entry);
  ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
  EXPECT_FALSE((run_in_new_context().origin == ProgramOrigin::DiskCache));
}

// The word that turns the cache off is read in any case: CLGEMM_CACHE_DIR=OFF created a
// directory ./OFF and cached there.
TEST_F(BinaryCache, OffInAnyCaseTurnsTheCacheOff) {
  fs::create_directories(directory_);
  const fs::path before = fs::current_path();
  fs::current_path(directory_);
  for (const char* word : {"OFF", "Off", "off"}) {
    ASSERT_EQ(setenv("CLGEMM_CACHE_DIR", word, 1), 0);
    EXPECT_EQ(cache_directory_setting(), std::optional<std::string>(""));
    EXPECT_FALSE(run_in_new_context().origin == ProgramOrigin::DiskCache) << word;
    EXPECT_FALSE(run_in_new_context().origin == ProgramOrigin::DiskCache) << word;
  }
  fs::current_path(before);
  EXPECT_TRUE(cache_files().empty()) << "the cache wrote into the working directory";
}

// A relative directory is resolved once, when the Context is made, against the working
// directory of that moment: a later change of directory does not move the cache.
TEST_F(BinaryCache, RelativeDirectoryIsResolvedWhenTheContextIsMade) {
  const fs::path first = directory_ / "first", second = directory_ / "second";
  fs::create_directories(first);
  fs::create_directories(second);
  const fs::path before = fs::current_path();
  fs::current_path(first);
  ASSERT_EQ(setenv("CLGEMM_CACHE_DIR", "relative-cache", 1), 0);
  EXPECT_EQ(cache_directory_setting(),
            std::optional<std::string>((first / "relative-cache").string()));
  {
    Context context;
    fs::current_path(second);
    const auto p = GemmProblem::packed(9, 7, 5);
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    std::vector<float> c(p.c_elements());
    RunSettings settings;
    settings.kernel = "tile";
    settings.overrides = {{"TILE", 4}};
    context.sgemm(p, a.data(), b.data(), c.data(), settings);
  }
  fs::current_path(before);
  EXPECT_TRUE(fs::is_directory(first / "relative-cache"));
  EXPECT_FALSE(fs::exists(second / "relative-cache"));
}

// Something other than a regular file planted at an entry's path (here a directory) keeps that
// program uncached; it is said on stderr, once per process however often it recurs. Checked in
// a fresh process (a death test's), since NonRegularEntryIsIgnored may have said it in this one.
TEST_F(BinaryCache, EntryThatIsNotARegularFileIsSaidOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        run_in_new_context();
        const auto files = cache_files();
        fs::remove(files.at(0));
        fs::create_directory(files.at(0));
        ::testing::internal::CaptureStderr();
        const bool rebuilt = run_in_new_context().origin == ProgramOrigin::Compiled &&
                             run_in_new_context().origin == ProgramOrigin::Compiled;
        const std::string said = ::testing::internal::GetCapturedStderr();
        const std::string line =
            "the program cache entry '" + files[0].string() + "' is a directory";
        const auto first = said.find(line);
        fs::remove_all(directory_);
        std::fprintf(stderr, "%s", said.c_str());
        std::_Exit(rebuilt && first != std::string::npos &&
                           said.find(line, first + 1) == std::string::npos
                       ? 0
                       : 1);
      },
      ::testing::ExitedWithCode(0), "is a directory, not a regular file");
}

}  // namespace
}  // namespace clgemm::testing
