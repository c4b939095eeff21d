// clgemm-tune's search (tools/tune_search.cpp) driven directly: a reduced-precision tune
// confirms its finalists in the precision it searched, so the confirmation never builds or
// times the fp32 program. blocked computes tf32 portably, so this runs on any device (the CLI
// refuses tf32 tunes without tensor cores, so no clgemm-tune run can show it there).
#include "tune/tune_search.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

namespace clgemm::tune {
namespace {

namespace fs = std::filesystem;

// Whether `precision`'s blocked program for `problem` is already built in `context`: a
// host-array call says so (GemmRecord::origin). The arrays are copied (CLGEMM_HOST_COPY=1), so
// the program's alignment options come from the device, as on the tuner's buffers, and not
// from where malloc happened to place them.
bool built(Context& context, const GemmProblem& problem, Precision precision) {
  setenv("CLGEMM_HOST_COPY", "1", 1);
  auto a = random_matrix(problem.a_elements(), 1), b = random_matrix(problem.b_elements(), 2),
       c = random_matrix(problem.c_elements(), 3);
  RunSettings run;
  run.kernel = "blocked";
  run.precision = precision;
  const bool cached =
      context.sgemm(problem, a.data(), b.data(), c.data(), run).origin == ProgramOrigin::Memory;
  unsetenv("CLGEMM_HOST_COPY");
  return cached;
}

// The one place the calls' settings come from, for the measurement and the confirmation.
TEST(TuneSearch, RunSettingsCarryThePrecision) {
  MeasureSettings settings;
  settings.precision = Precision::TF32x3;
  const auto run = run_settings("blocked", {{"TILE_K", 8}}, settings);
  EXPECT_EQ(run.kernel, "blocked");
  EXPECT_EQ(run.overrides, (KernelOptions{{"TILE_K", 8}}));
  EXPECT_EQ(run.precision, Precision::TF32x3);
}

TEST(TuneSearch, ConfirmsInThePrecisionSearched) {
  const fs::path dir =
      fs::temp_directory_path() / ("clgemm-tune-search-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Context context;
  const auto problem = GemmProblem::packed(64, 64, 64);
  auto state = TuneState::open((dir / "state.json").string(), false, context.device(), "blocked");
  Space space;  // no candidates: the default alone is measured, then confirmed
  space.kernel = "blocked";
  SearchSettings settings;
  settings.kernel = "blocked";
  settings.max_candidates = 1;
  settings.measure.min_time = 0;
  settings.measure.max_runs = 3;
  settings.measure.precision = Precision::TF32;
  Progress progress(false);
  const volatile std::sig_atomic_t interrupted = 0;
  ClassOutcome outcome;
  {
    Bench bench(context, problem);
    outcome = tune_class(bench, space, state, "small", progress, settings, interrupted);
  }
  fs::remove_all(dir);
  ASSERT_TRUE(outcome.has_winner) << (outcome.failures.empty() ? "" : outcome.failures[0]);
  EXPECT_TRUE(built(context, problem, Precision::TF32))
      << "the tune did not build the tf32 program";
  EXPECT_FALSE(built(context, problem, Precision::FP32))
      << "the confirmation ran the fp32 program, not the tf32 one the search measured";
}

}  // namespace
}  // namespace clgemm::tune
