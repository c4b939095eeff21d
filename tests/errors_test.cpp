// Every error path of the library: each must throw a clgemm::Error whose message names the
// problem, and must leave the caller's C untouched.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "kernel_source.hpp"
#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// Runs sgemm on small valid buffers with `problem` and expects `code` with `needle` in the
// message, and C exactly as it was.
void expect_error(const GemmProblem& problem, ErrorCode code, const std::string& needle,
                  const std::string& kernel = "tile") {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 42.0f);
  const auto c_before = c;
  RunSettings settings;
  settings.kernel = kernel;
  try {
    shared_context().sgemm(problem, a.data(), b.data(), c.data(), settings);
    FAIL() << "expected an error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_EQ(c, c_before) << "C was modified by a failed call";
}

TEST(Errors, ZeroAndNegativeSizes) {
  expect_error(GemmProblem::packed(0, 4, 4), ErrorCode::InvalidSize, "M = 0 must be at least 1");
  expect_error(GemmProblem::packed(4, -3, 4), ErrorCode::InvalidSize, "N = -3 must be at least 1");
  auto p = GemmProblem::packed(4, 4, 4);
  p.k = 0;
  expect_error(p, ErrorCode::InvalidSize, "K = 0 must be at least 1");
}

TEST(Errors, SizesBeyondTheIndexRange) {
  auto p = GemmProblem::packed(4, 4, 4);
  p.m = std::int64_t(1) << 33;
  expect_error(p, ErrorCode::InvalidSize, "exceeds the largest supported size");
}

TEST(Errors, LeadingDimensionsTooSmall) {
  auto p = GemmProblem::packed(4, 6, 5);
  p.lda = 4;
  expect_error(p, ErrorCode::InvalidLeadingDimension, "lda = 4 is smaller than K = 5");
  p = GemmProblem::packed(4, 6, 5);
  p.ldb = 5;
  expect_error(p, ErrorCode::InvalidLeadingDimension, "ldb = 5 is smaller than N = 6");
  p = GemmProblem::packed(4, 6, 5);
  p.ldc = 0;
  expect_error(p, ErrorCode::InvalidLeadingDimension, "ldc = 0 is smaller than N = 6");
}

TEST(Errors, UnknownKernelListsTheValidNames) {
  expect_error(GemmProblem::packed(4, 4, 4), ErrorCode::UnknownKernel,
               "valid kernels are: base, row, private, tile, coarsened, vectorized", "fastest");
}

TEST(Errors, NullPointer) {
  std::vector<float> a(16), c(16);
  try {
    shared_context().sgemm(GemmProblem::packed(4, 4, 4), a.data(), nullptr, c.data());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("matrix B is a null pointer"), std::string::npos);
  }
}

TEST(Errors, AllocationLargerThanTheDeviceAllows) {
  // A would need (M - 1) * lda + K floats: far beyond any device's single allocation. The
  // check happens before anything is read from the (small) arrays.
  auto p = GemmProblem::packed(1 << 20, 4, 4);
  p.lda = std::int64_t(1) << 30;
  expect_error(p, ErrorCode::AllocationTooLarge, "matrix A needs");
}

TEST(Errors, MissingKernelSourceListsWhereItLooked) {
  try {
    detail::load_kernel_source("no_such_kernel.cl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::KernelSourceNotFound);
    const std::string message = e.what();
    for (const auto& dir : detail::kernel_search_path())
      EXPECT_NE(message.find(dir), std::string::npos) << dir << " missing from: " << message;
  }
}

// A kernel directory (first in the search path through CLGEMM_KERNEL_DIR) whose tile.cl has a
// syntax error: the BuildError carries the compiler's log, the options and the device.
TEST(Errors, BuildFailureCarriesLogOptionsAndDevice) {
  const auto dir = std::filesystem::temp_directory_path() / "clgemm-broken-kernels";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tile.cl") << "__kernel void gemm_tile(__global float* C) { C[0] = ; }\n";
  const char* user_dir = std::getenv("CLGEMM_KERNEL_DIR");  // restored below for later tests
  const std::optional<std::string> previous =
      user_dir ? std::optional<std::string>(user_dir) : std::nullopt;
  ASSERT_EQ(setenv("CLGEMM_KERNEL_DIR", dir.c_str(), 1), 0);
  Context context;  // a new context reads sources afresh
  try {
    context.build("tile", {{"TILE", 4}});
    FAIL() << "the broken kernel built";
  } catch (const BuildError& e) {
    EXPECT_EQ(e.code(), ErrorCode::BuildFailed);
    EXPECT_EQ(e.kernel(), "tile");
    EXPECT_EQ(e.options().rfind("-D TILE=4 ", 0), 0u) << e.options();
    EXPECT_EQ(e.device(), context.device().name);
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(std::string(e.what()).find(e.log()), std::string::npos);
  }
  if (previous)
    setenv("CLGEMM_KERNEL_DIR", previous->c_str(), 1);
  else
    unsetenv("CLGEMM_KERNEL_DIR");
  std::filesystem::remove_all(dir);
}

TEST(Errors, InvalidOverrideIsRejectedBeforeBuilding) {
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 7.0f);
  const auto c_before = c;
  RunSettings settings;
  settings.kernel = "coarsened";
  settings.overrides = {{"TILE", 30}, {"BATCH", 4}};
  try {
    shared_context().sgemm(GemmProblem::packed(4, 4, 4), a.data(), b.data(), c.data(), settings);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(e.what()).find("TILE % BATCH == 0"), std::string::npos);
  }
  EXPECT_EQ(c, c_before);
}

TEST(Errors, BadRunCounts) {
  std::vector<float> a(16), b(16), c(16);
  RunSettings settings;
  settings.timed_runs = 0;
  EXPECT_THROW(
      shared_context().sgemm(GemmProblem::packed(4, 4, 4), a.data(), b.data(), c.data(), settings),
      Error);
}

}  // namespace
}  // namespace clgemm::testing
