// Warming (Context::warm_up, clgemm/warm.hpp): after warming a kernel's set, a spread of calls
// (1x1x1, every transpose and layout, unaligned and aligned operands, split K, aligned copies,
// a batch, C = beta * C, and for `auto` GEMV-like, tall and thin shapes) compiles nothing, in
// a new Context whose programs all come from the disk cache; background warming starts and
// stops with its Context; the settings are read strictly. The cache starts empty in each run
// (a fresh directory under CLGEMM_WARM_TEST_CACHE, in the build tree), so that a program
// missing from the set cannot be found there from an earlier run; PoCL's own kernel cache
// makes later runs quicker. The kernel is a small blocked by default; CLGEMM_WARM_TEST_KERNEL=auto
// checks auto's whole set (tens of minutes on PoCL; the long tests do it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "clgemm/clgemm.hpp"
#include "test_support.hpp"

namespace {

using namespace clgemm;
using clgemm::testing::ScopedVariable;

// A fresh, empty directory under CLGEMM_WARM_TEST_CACHE, removed afterwards.
class FreshCache {
 public:
  FreshCache() {
    std::filesystem::create_directories(CLGEMM_WARM_TEST_CACHE);
    std::string pattern = std::string(CLGEMM_WARM_TEST_CACHE) + "/run-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp " + pattern);
    path = pattern;
  }
  ~FreshCache() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

std::size_t files_in(const std::string& directory) {
  std::size_t count = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error))
    ++count;
  return count;
}

RunSettings warm_test_settings() {
  RunSettings settings;
  const char* kernel = std::getenv("CLGEMM_WARM_TEST_KERNEL");
  if (kernel && std::string(kernel) == "auto") return settings;
  settings.kernel = "blocked";  // small tiles: quick to compile, every variant blocked has
  settings.overrides = {{"TILE_M", 16}, {"TILE_N", 16}, {"TILE_K", 8},
                        {"ITEM_M", 4},  {"ITEM_N", 4},  {"VEC", 4}};
  return settings;
}

// The problems the calls run: each a different reason for a program.
std::vector<GemmProblem> spread_of_problems(bool with_auto) {
  std::vector<GemmProblem> problems;
  const auto add = [&problems](std::int64_t m, std::int64_t n, std::int64_t k, Layout layout,
                               Transpose ta, Transpose tb) {
    GemmProblem p = GemmProblem::packed(m, n, k);
    p.layout = layout, p.trans_a = ta, p.trans_b = tb;
    p.lda = p.min_lda(), p.ldb = p.min_ldb(), p.ldc = p.min_ldc();
    problems.push_back(p);
  };
  const Transpose N = Transpose::NoTrans, T = Transpose::Trans;
  add(1, 1, 1, Layout::RowMajor, N, N);
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {N, T})
      for (Transpose tb : {N, T}) {
        add(37, 29, 5, layout, ta, tb);   // unaligned
        add(64, 64, 64, layout, ta, tb);  // aligned
        add(64, 30, 64, layout, ta, tb);  // one of each
      }
  add(16, 16, 4096, Layout::RowMajor, N, N);                // few tiles, long K: split K
  GemmProblem copied = GemmProblem::packed(520, 520, 520);  // unaligned and large: copies
  copied.lda = copied.ldb = 521;
  problems.push_back(copied);
  problems.push_back(GemmProblem::packed_batch(8, 8, 8, 4));
  GemmProblem scale = GemmProblem::packed(8, 8, 0, 1.0f, 0.5f);  // C = beta * C
  problems.push_back(scale);
  if (with_auto) {
    add(1, 4096, 4096, Layout::RowMajor, N, N);  // gemv
    add(4096, 1, 1024, Layout::RowMajor, N, T);
    add(4096, 64, 512, Layout::RowMajor, N, N);     // tall and thin
    add(1025, 1025, 1025, Layout::RowMajor, N, N);  // edges
    problems.push_back(GemmProblem::packed_batch(32, 32, 32, 256));
  }
  return problems;
}

TEST(WarmUp, NoCallCompilesAfterItsKernelWasWarmed) {
  const FreshCache fresh;
  const ScopedVariable cache("CLGEMM_CACHE_DIR", fresh.path);
  const ScopedVariable quiet("CLGEMM_WARM", "off");
  const RunSettings settings = warm_test_settings();
  std::size_t programs = 0;
  {
    Context warming;
    std::size_t reported = 0;
    const WarmUpReport report = warming.warm_up(settings, [&](const WarmUpProgress& step) {
      EXPECT_EQ(step.index, ++reported);
      EXPECT_NE(step.outcome, WarmOutcome::Failed) << step.kernel << ": " << step.error;
    });
    EXPECT_EQ(report.failed, 0u) << report.first_error;
    EXPECT_EQ(reported, report.programs);
    EXPECT_EQ(report.compiled + report.on_disk + report.in_memory, report.programs);
    programs = report.programs;
    // Again in the same Context: everything is there.
    const WarmUpReport again = warming.warm_up(settings);
    EXPECT_EQ(again.compiled, 0u);
    EXPECT_EQ(again.programs, programs);
  }
  if (settings.kernel == "blocked") EXPECT_EQ(programs, 32u + 3u);  // variants, helpers

  const std::size_t files = files_in(fresh.path);
  Context context;
  for (const GemmProblem& problem : spread_of_problems(settings.kernel == "auto")) {
    const auto a = random_matrix(problem.a_elements(), 1);
    const auto b = random_matrix(problem.b_elements(), 2);
    const auto c0 = random_matrix(problem.c_elements(), 3);
    auto c = c0;
    const GemmRecord record = context.sgemm(problem, a.data(), b.data(), c.data(), settings);
    const std::string what = std::to_string(problem.batch) + " x " + std::to_string(problem.m) +
                             "x" + std::to_string(problem.n) + "x" + std::to_string(problem.k) +
                             " " + record.kernel + " " + record.build_options;
    EXPECT_NE(record.origin, ProgramOrigin::Compiled) << what << " compiled after warming";
    EXPECT_TRUE(verify_gemm(problem, a.data(), b.data(), c0.data(), c.data()).passed) << what;
  }
  // Nothing new in the cache: no helper of any call (copies, reduction, scale_c) compiled.
  EXPECT_EQ(files_in(fresh.path), files);
}

// Contexts that start warming in the background and are destroyed at once: the thread stops
// and is joined (no hang, nothing used after it is freed; the sanitized build runs this too),
// and a call beside the warming computes the right result.
TEST(WarmUp, BackgroundWarmingStopsWithItsContext) {
  const FreshCache fresh;
  const ScopedVariable cache("CLGEMM_CACHE_DIR", fresh.path);
  const ScopedVariable background("CLGEMM_WARM", "background");
  for (int i = 0; i < 10; ++i) {
    Context context;
    (void)context.warming_in_background();
  }
  Context context;
  const GemmProblem problem = GemmProblem::packed(33, 17, 9);
  const auto a = random_matrix(problem.a_elements(), 1);
  const auto b = random_matrix(problem.b_elements(), 2);
  std::vector<float> c(problem.c_elements()), c0 = c;
  RunSettings tile;
  tile.kernel = "tile";
  context.sgemm(problem, a.data(), b.data(), c.data(), tile);
  EXPECT_TRUE(verify_gemm(problem, a.data(), b.data(), c0.data(), c.data()).passed);
}

TEST(WarmUp, SettingsAreReadStrictly) {
  DeviceLimits cpu, gpu, oclgrind;
  cpu.type = DeviceType::CPU, gpu.type = DeviceType::GPU, oclgrind.type = DeviceType::GPU;
  oclgrind.platform_name = "Oclgrind";
  {
    const ScopedVariable unset("CLGEMM_WARM", "");
    EXPECT_EQ(warm_mode_for(cpu), WarmMode::Off);
    EXPECT_EQ(warm_mode_for(oclgrind), WarmMode::Off);
    EXPECT_EQ(warm_mode_for(gpu), WarmMode::Background);
    set_default_warm_mode(WarmMode::Off);
    EXPECT_EQ(warm_mode_for(gpu), WarmMode::Off);
    reset_default_warm_mode();
    EXPECT_EQ(warm_mode_for(gpu), WarmMode::Background);
  }
  {
    const ScopedVariable on("CLGEMM_WARM", "background");
    EXPECT_EQ(warm_mode_for(cpu), WarmMode::Background);
  }
  {
    const ScopedVariable bad("CLGEMM_WARM", "sometimes");
    try {
      warm_mode_for(gpu);
      ADD_FAILURE() << "CLGEMM_WARM=sometimes was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find("CLGEMM_WARM = 'sometimes'"), std::string::npos);
    }
  }
  {
    const ScopedVariable silent("CLGEMM_NOTICES", "0");
    EXPECT_FALSE(compile_notices_enabled());
  }
  {
    const ScopedVariable loud("CLGEMM_NOTICES", "1");
    EXPECT_TRUE(compile_notices_enabled());
    set_compile_notices(false);
    EXPECT_FALSE(compile_notices_enabled());
    set_compile_notices(true);
  }
}

// A CLGEMM_NOTICES value other than 0 or 1 leaves the notices on and is said once on stderr,
// naming the variable, the value and the values allowed; the same value is not said again.
TEST(WarmUp, ABadNoticesValueIsSaidOnceAndLeavesTheNoticesOn) {
  const ScopedVariable bad("CLGEMM_NOTICES", "quiet-please");
  ::testing::internal::CaptureStderr();
  const bool first = compile_notices_enabled();
  const bool second = compile_notices_enabled();
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  EXPECT_NE(said.find("CLGEMM_NOTICES='quiet-please' is not 0 (no compile notices) or 1"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("CLGEMM_NOTICES", said.find("CLGEMM_NOTICES") + 1), std::string::npos)
      << "said twice: " << said;
}

}  // namespace
