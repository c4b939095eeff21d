// Every error path of the library: each must throw a clgemm::Error whose message names the
// problem, and must leave the caller's C untouched.
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <tuple>

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

TEST(Errors, NegativeSizes) {
  expect_error(GemmProblem::packed(-1, 4, 4), ErrorCode::InvalidSize,
               "M = -1 must not be negative");
  expect_error(GemmProblem::packed(4, -3, 4), ErrorCode::InvalidSize,
               "N = -3 must not be negative");
  auto p = GemmProblem::packed(4, 4, 4);
  p.k = -7;
  expect_error(p, ErrorCode::InvalidSize, "K = -7 must not be negative");
}

// A zero leading dimension is refused even where the line it spans is empty (BLAS: ld >= 1).
TEST(Errors, LeadingDimensionsAreAtLeastOne) {
  auto p = GemmProblem::packed(4, 4, 0);
  p.lda = 0;
  expect_error(p, ErrorCode::InvalidLeadingDimension, "lda = 0 is smaller than 1");
}

// Warm-up and timed run counts: each bounded, so their sum cannot overflow and launch nothing.
TEST(Errors, RepeatCounts) {
  const auto p = GemmProblem::packed(4, 4, 4);
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 42.0f);
  for (auto [warmup, runs, needle] :
       {std::tuple{INT_MAX, 1, "warmup_runs = 2147483647 is outside 0..1000000"},
        std::tuple{0, INT_MAX, "min_runs = 2147483647 is outside 1..1000000"},
        std::tuple{-1, 1, "warmup_runs = -1 is outside"}, std::tuple{0, 0, "min_runs = 0"},
        std::tuple{0, -1, "min_runs = -1"}}) {
    RepeatPolicy policy;
    policy.warmup_runs = warmup;
    policy.min_runs = policy.max_runs = runs;
    RunSettings settings;
    settings.kernel = "tile";
    try {
      measure_gemm(shared_context(), p, a.data(), b.data(), c.data(), settings, policy);
      ADD_FAILURE() << "accepted " << warmup << " + " << runs << " runs";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_EQ(c, std::vector<float>(16, 42.0f));
  }
}

// A launch whose rounded-up range would pass the kernels' 32-bit indices is refused before
// anything is built or read, naming the size, the kernel's block and the largest size taken.
TEST(Errors, LaunchBeyondThe32BitIndexRange) {
  auto p = GemmProblem::packed(1, INT_MAX, 1);
  std::vector<float> small(4, 1.0f), c(4, 42.0f);
  RunSettings settings;
  settings.kernel = "base";
  settings.overrides = {{"WG_X", 3}, {"WG_Y", 1}};  // 2^31 - 1 rounds up to 2^31 + 1
  try {
    shared_context().sgemm(p, small.data(), small.data(), c.data(), settings);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidSize) << e.what();
    EXPECT_EQ(e.argument(), Argument::N);
    for (const char* needle : {"N = 2147483647 is too large for kernel 'base' with blocks of 3",
                               "the largest size it takes is 2147483643"})
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_EQ(c, std::vector<float>(4, 42.0f));
  // Column-major: the same size is M of the problem, and named so.
  p.layout = Layout::ColumnMajor;
  std::swap(p.m, p.n);
  p.lda = p.ldc = INT_MAX, p.ldb = 1;
  try {
    shared_context().sgemm(p, small.data(), small.data(), c.data(), settings);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), Argument::M) << e.what();
  }
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

// check_fits_device: A would need (M - 1) * lda + K floats, far beyond any device's single
// allocation, as a device buffer (the host-array path streams it in tiles instead).
TEST(Errors, AllocationLargerThanTheDeviceAllows) {
  auto p = GemmProblem::packed(1 << 20, 4, 4);
  p.lda = std::int64_t(1) << 30;
  try {
    check_fits_device(p, shared_context().device());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::AllocationTooLarge);
    EXPECT_NE(std::string(e.what()).find("matrix A needs"), std::string::npos) << e.what();
    EXPECT_EQ(e.argument(), Argument::A);
  }
}

TEST(Errors, MissingKernelSourceListsWhereItLooked) {
  try {
    kernel_source_path("no_such_kernel.cl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::KernelSourceNotFound);
    const std::string message = e.what();
    for (const auto& dir : kernel_search_path())
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
  settings.overrides = {{"TILE", 30}, {"ITEM", 4}};
  try {
    shared_context().sgemm(GemmProblem::packed(4, 4, 4), a.data(), b.data(), c.data(), settings);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(e.what()).find("TILE % ITEM == 0"), std::string::npos);
  }
  EXPECT_EQ(c, c_before);
}

// ConjTrans (113) is Trans for real data, in C++ as in the C API.
TEST(Errors, ConjTransIsTrans) {
  GemmProblem p = padded_problem(9, 7, 5);
  p.trans_a = Transpose::ConjTrans;
  p.lda = 12;  // A stored K x M
  EXPECT_TRUE(run_and_verify("tile", p).passed);
  p.trans_a = Transpose(114);
  expect_error(p, ErrorCode::InvalidArgument, "transA = 114 is none of");
}

// Nothing but a clgemm::Error leaves the library, even for inputs a caller assembles by hand
// (an incomplete option set once escaped as std::out_of_range).
TEST(Errors, OnlyClgemmErrorsEscape) {
  EXPECT_THROW(global_traffic_bytes("tile", {}, 8, 8, 8, false), Error);
  EXPECT_THROW(arithmetic_intensity("blocked", {{"TILE_M", 4}}, 8, 8, 8, true), Error);
  EXPECT_THROW(derive_options("nope", shared_context().device()), Error);
  EXPECT_THROW(Context(DeviceRequest{"", "99999999999999999999"}), Error);
}

}  // namespace
}  // namespace clgemm::testing
