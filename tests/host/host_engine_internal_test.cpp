// White-box tests of the host-memory engine: the settings' parsing, the tile plan, buffers
// reused across thousands of calls (the engine's counters), and the recovery on the host when
// the device fails after part of C was written (the engine's fault injection point).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"
#include "host/engine_counters.hpp"
#include "host/engine_settings.hpp"
#include "host/tile_plan.hpp"

namespace clgemm {
namespace {

using detail::engine_counters;

Context& context() {
  static Context shared;
  return shared;
}

TEST(HostEngineSettings, ByteCounts) {
  EXPECT_EQ(detail::parse_byte_count("1"), 1u);
  EXPECT_EQ(detail::parse_byte_count("64K"), 65536u);
  EXPECT_EQ(detail::parse_byte_count("3m"), 3u << 20);
  EXPECT_EQ(detail::parse_byte_count("2G"), std::size_t(2) << 30);
  for (const char* bad :
       {"", "0", "K", "1.5G", "-1", "12X", " 1", "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(detail::parse_byte_count(bad)) << bad;
}

detail::TilingInput square(std::int64_t n) {
  detail::TilingInput in;
  in.m = in.n = in.k = n;
  in.a_span = in.b_span = in.c_span = std::size_t(n * n) * 4;
  in.max_allocation = std::size_t(1) << 40;
  in.limit = std::size_t(1) << 40;
  in.limit_source = "test";
  return in;
}

TEST(HostEngineTiles, SmallCallsAreOnePieceLargeOnesTiles) {
  EXPECT_TRUE(detail::plan_tiles(square(1024)).whole);
  const detail::TilePlan large = detail::plan_tiles(square(8192));
  EXPECT_FALSE(large.whole);
  EXPECT_EQ(large.tile_m, 2048);
  EXPECT_EQ(large.tile_n, 2048);
  EXPECT_EQ(large.tile_k, 8192);
  EXPECT_EQ(large.tiles(), 16);
  EXPECT_EQ(large.layout.b.count, 4u) << "all of B kept on the device";
  const detail::TilePlan odd = detail::plan_tiles(square(5000));
  EXPECT_EQ(odd.tile_m % 128, 0);
  EXPECT_GE(odd.tile_m * odd.row_tiles(), 5000);
}

TEST(HostEngineTiles, ShrinkUnderTheLimitThenRefuse) {
  detail::TilingInput in = square(4096);
  in.limit = std::size_t(64) << 20;
  const detail::TilePlan plan = detail::plan_tiles(in);
  EXPECT_LE(plan.layout.total(), in.limit);
  EXPECT_LE(plan.layout.b.count, 2u);
  in.limit = 1000;
  try {
    detail::plan_tiles(in);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::AllocationTooLarge);
    EXPECT_NE(std::string(e.what()).find("above the limit of 1000 bytes (test)"), std::string::npos)
        << e.what();
  }
}

struct CopyEngine {
  CopyEngine() { setenv("CLGEMM_HOST_COPY", "1", 1); }
  ~CopyEngine() {
    unsetenv("CLGEMM_HOST_COPY");
    unsetenv("CLGEMM_HOST_TILE");
    engine_counters().fail_before_chunk = 0;
  }
};

TEST(HostEngineBuffers, ThousandsOfSmallCallsReuseTheirBuffers) {
  CopyEngine copying;
  RunSettings settings;
  settings.kernel = "tile";
  auto call = [&](std::int64_t m) {
    const GemmProblem p = GemmProblem::packed(m, 7, 5);
    std::vector<float> a(p.a_elements(), 1.0f), b(p.b_elements(), 1.0f), c(p.c_elements());
    context().sgemm(p, a.data(), b.data(), c.data(), settings);
    ASSERT_EQ(c.back(), 5.0f);
  };
  for (std::int64_t m = 1; m <= 16; ++m) call(m);  // the set grows to the largest
  const std::size_t created = engine_counters().buffers_created;
  const std::size_t held = engine_counters().device_bytes_held;
  for (int repeat = 0; repeat < 2000; ++repeat) call(1 + repeat % 16);
  EXPECT_EQ(engine_counters().buffers_created, created);
  EXPECT_EQ(engine_counters().device_bytes_held, held);
}

// The device "fails" before the engine writes a chunk of C: before the first one, the call
// fails and C is untouched; after some, the rest is computed on the host and C is whole.
TEST(HostEngineRecovery, AFailureAfterCWasPartlyWrittenIsFinishedOnTheHost) {
  CopyEngine copying;
  setenv("CLGEMM_HOST_TILE", "8", 1);
  GemmProblem p = GemmProblem::packed(30, 20, 12, 1.5f, 0.5f);
  p.ldc = 23;
  p.epilogue.bias = Bias::PerColumn;
  const auto bias = random_matrix(20, 9);
  p.epilogue.bias_data = bias.data();
  p.epilogue.activation = Activation::ReLU;
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  const auto c_before = random_matrix(p.c_elements(), 3);
  RunSettings settings;
  settings.kernel = "tile";

  auto c = c_before;
  engine_counters().fail_before_chunk = 1;
  EXPECT_THROW(context().sgemm(p, a.data(), b.data(), c.data(), settings), Error);
  EXPECT_EQ(c, c_before) << "C was modified by a call that failed before writing it";

  const std::size_t recoveries = engine_counters().host_recoveries;
  engine_counters().fail_before_chunk = 4;
  const GemmRecord record = context().sgemm(p, a.data(), b.data(), c.data(), settings);
  EXPECT_EQ(engine_counters().host_recoveries, recoveries + 1);
  EXPECT_NE(record.kernel_choice.find("9 of 12 tile(s) were finished on the host"),
            std::string::npos)
      << record.kernel_choice;
  const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
  EXPECT_TRUE(result.passed) << result.first_failure;
  // And the Context goes on working.
  c = c_before;
  context().sgemm(p, a.data(), b.data(), c.data(), settings);
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), c.data()).passed);
}

}  // namespace
}  // namespace clgemm
