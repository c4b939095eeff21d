// The last wave's split (blocked's WAVE_UNITS, plan/last_wave.hpp): C's last rows of tiles run
// with K split to fill one wave, the rest as planned; checked against the double host reference
// on every transpose and layout, with the epilogue, for determinism, and where it must not
// happen.
#include <gtest/gtest.h>

#include <cstring>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// Small tiles (32 x 32, quick to compile anywhere) and 12 work-groups a wave: 170 x 96 is 6 x 3
// tiles, 18 work-groups, one whole wave and 6 more, so the last 2 rows of tiles (C's last 42
// rows) run in 2 slices of K (600 / 2 >= 256).
KernelOptions small_tiles(long wave_units) {
  return {{"TILE_M", 32}, {"TILE_N", 32}, {"TILE_K", 8}, {"ITEM_M", 4},
          {"ITEM_N", 4},  {"VEC", 4},     {"UNROLL", 0}, {"WAVE_UNITS", wave_units}};
}

bool split(const GemmRecord& record) {
  return record.kernel_choice.find("last-wave split") != std::string::npos;
}

GemmProblem offset_problem(Layout layout, Transpose ta, Transpose tb) {
  GemmProblem p;
  p.layout = layout, p.trans_a = ta, p.trans_b = tb;
  p.m = 170, p.n = 96, p.k = 600;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 1, p.ldc = p.min_ldc() + 2;
  p.a_offset = 5, p.b_offset = 2, p.c_offset = 7;
  return p;
}

TEST(LastWave, EveryTransposeAndLayoutWithOffsets) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "col") + " " +
                     (ta == Transpose::Trans ? "T" : "N") + (tb == Transpose::Trans ? "T" : "N"));
        const auto out = run_blocked(offset_problem(layout, ta, tb), small_tiles(12));
        EXPECT_TRUE(out.check.passed) << out.check.first_failure;
        EXPECT_TRUE(split(out.record)) << out.record.kernel_choice;
      }
}

TEST(LastWave, SaysWhatItSplit) {
  const auto out = run_blocked(
      offset_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans), small_tiles(12));
  EXPECT_NE(out.record.kernel_choice.find("18 work-groups of 32 x 32 are 1.50 waves of "
                                          "WAVE_UNITS = 12, so C's last 42 rows (2 rows of "
                                          "tiles) run in 2 slices of K"),
            std::string::npos)
      << out.record.kernel_choice;
}

TEST(LastWave, BiasAndActivationFollowEachPart) {
  for (const auto& [bias, activation] :
       {std::pair{Bias::PerRow, Activation::GELU}, std::pair{Bias::PerColumn, Activation::ReLU}}) {
    GemmProblem p = offset_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::Trans);
    p.epilogue.bias = bias;
    p.epilogue.activation = activation;
    p.epilogue.bias_offset = 3;
    const auto out = run_blocked(p, small_tiles(12));
    EXPECT_TRUE(out.check.passed) << out.check.first_failure;
    EXPECT_TRUE(split(out.record)) << out.record.kernel_choice;
  }
}

TEST(LastWave, SameBitsRunAfterRun) {
  const GemmProblem p = offset_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  const auto first = run_blocked(p, small_tiles(12));
  const auto second = run_blocked(p, small_tiles(12));
  ASSERT_TRUE(first.check.passed) << first.check.first_failure;
  ASSERT_TRUE(split(first.record));
  EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * sizeof(float)), 0);
}

TEST(LastWave, NotWhereNothingIsGained) {
  const GemmProblem p = offset_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  // WAVE_UNITS unknown.
  auto out = run_blocked(p, small_tiles(0));
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(split(out.record)) << out.record.kernel_choice;
  // Whole waves: 18 work-groups on 9 or 18 a wave; fewer than one wave on 19.
  for (long units : {9L, 18L, 19L}) {
    out = run_blocked(p, small_tiles(units));
    EXPECT_TRUE(out.check.passed) << out.check.first_failure;
    EXPECT_FALSE(split(out.record)) << units << ": " << out.record.kernel_choice;
  }
  // K too shallow for two slices of 256.
  GemmProblem shallow = p;
  shallow.k = 300;
  shallow.lda = shallow.min_lda(), shallow.ldb = shallow.min_ldb();
  out = run_blocked(shallow, small_tiles(12));
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(split(out.record)) << out.record.kernel_choice;
  // A batch fills the device with its products.
  GemmProblem batch = GemmProblem::packed(170, 96, 600);
  batch.batch = 2;
  batch.stride_a = std::int64_t(batch.a_elements()),
  batch.stride_b = std::int64_t(batch.b_elements());
  batch.stride_c = std::int64_t(batch.c_elements());
  out = run_blocked(batch, small_tiles(12));
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(split(out.record)) << out.record.kernel_choice;
}

TEST(LastWave, WaveUnitsIsChecked) {
  const GemmProblem p = GemmProblem::packed(8, 8, 8);
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 0.0f);
  RunSettings settings;
  settings.kernel = "blocked";
  settings.overrides = {{"WAVE_UNITS", -1}};
  try {
    shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    FAIL() << "WAVE_UNITS = -1 was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(error.what()).find("WAVE_UNITS = -1 is outside 0..1048576"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(c[0], 0.0f);  // the caller's C is untouched
}

}  // namespace
}  // namespace clgemm::testing
