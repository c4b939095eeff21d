// Every FP32 kernel of the catalogue against the double-accumulated reference, on shapes that are
// and are not multiples of the tiles, with padded leading dimensions and alpha, beta != 1, 0;
// and blocked's inner-loop options (warp tiles, fragment prefetch, padded pages) on everything
// a call may ask of them: odd shapes, transposes and layouts, batches, the epilogue, split-K
// and the reduced precisions.
#include <tuple>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

struct Shape {
  std::int64_t m, n, k;
};

const Shape kShapes[] = {{1, 1, 1},     {7, 13, 5},   {64, 64, 64},   {65, 33, 127},
                         {128, 1, 300}, {1, 257, 31}, {517, 389, 603}};

// The kernels that compute FP32 (see fp32_kernel_names).
std::vector<std::string> kernel_names() {
  return fp32_kernel_names();
}

class KernelShape : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

TEST_P(KernelShape, MatchesReference) {
  const auto& [kernel, shape] = GetParam();
  const auto result = run_and_verify(kernel, padded_problem(shape.m, shape.n, shape.k));
  EXPECT_TRUE(result.passed) << result.failures << " failures, first: " << result.first_failure;
  EXPECT_EQ(result.checked, std::size_t(shape.m * shape.n));
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelShape,
                         ::testing::Combine(::testing::ValuesIn(kernel_names()),
                                            ::testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           const Shape& s = std::get<1>(info.param);
                           return std::get<0>(info.param) + "_" + std::to_string(s.m) + "x" +
                                  std::to_string(s.n) + "x" + std::to_string(s.k);
                         });

class KernelSemantics : public ::testing::TestWithParam<std::string> {};

// BLAS semantics: with beta = 0, C is not read, so NaN in C must not reach the result.
TEST_P(KernelSemantics, BetaZeroIgnoresNaNInC) {
  GemmProblem p = padded_problem(37, 45, 29);
  p.beta = 0.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto result = run_and_verify(GetParam(), p, {}, &nan);
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// Packed (unpadded) storage, where the vector kernels may use aligned loads.
TEST_P(KernelSemantics, PackedSquareMultipleOfTiles) {
  const auto result = run_and_verify(GetParam(), GemmProblem::packed(256, 256, 256, 1.0f, 1.0f));
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// Packed but with sizes that are not multiples of any vector width.
TEST_P(KernelSemantics, PackedOddSizes) {
  const auto result = run_and_verify(GetParam(), GemmProblem::packed(67, 91, 83, -2.0f, 0.5f));
  EXPECT_TRUE(result.passed) << result.first_failure;
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelSemantics, ::testing::ValuesIn(kernel_names()),
                         [](const auto& info) { return info.param; });

// Non-default parameters, including ones a user would pick by hand.
struct Override {
  std::string kernel;
  KernelOptions options;
  std::string label;
};

class KernelOverride : public ::testing::TestWithParam<Override> {};

TEST_P(KernelOverride, MatchesReferenceOnOddShape) {
  const auto& o = GetParam();
  for (const Shape& s : {Shape{65, 33, 127}, Shape{17, 129, 9}}) {
    const auto result = run_and_verify(o.kernel, padded_problem(s.m, s.n, s.k), o.options);
    EXPECT_TRUE(result.passed) << s.m << "x" << s.n << "x" << s.k << ": " << result.first_failure;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ladder, KernelOverride,
    ::testing::Values(
        Override{"base", {{"WG_X", 8}, {"WG_Y", 4}}, "base_8x4"},
        Override{"row", {{"WG", 16}}, "row_wg16"},
        Override{"private", {{"PRIVATE_K", 16}}, "private_chunk16"},
        Override{"tile", {{"TILE", 8}}, "tile_8"},
        Override{"coarsened", {{"TILE", 32}, {"ITEM", 2}}, "coarsened_32_2"},
        Override{"vectorized",
                 {{"TILE_M", 32},
                  {"TILE_N", 64},
                  {"TILE_K", 16},
                  {"ITEM_M", 4},
                  {"ITEM_N", 8},
                  {"VEC", 8}},
                 "vectorized_vec8"},
        Override{"vectorized",
                 {{"TILE_M", 16},
                  {"TILE_N", 16},
                  {"TILE_K", 4},
                  {"ITEM_M", 2},
                  {"ITEM_N", 2},
                  {"VEC", 1}},
                 "vectorized_vec1"},
        // blocked's GPU default (derived on large GPUs), exercised here on any device.
        Override{"blocked", blocked_gpu_tiles(), "blocked_gpu_default"},
        Override{"blocked",
                 {{"TILE_M", 32},
                  {"TILE_N", 32},
                  {"TILE_K", 8},
                  {"ITEM_M", 4},
                  {"ITEM_N", 4},
                  {"VEC", 2}},
                 "blocked_small_vec2"},
        // The GPU default as 64 x 64 warp tiles with every inner-loop option on (not unrolled:
        // the same code, compiled quickly on CPUs).
        Override{"blocked",
                 blocked_gpu_tiles(
                     {{"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4}, {"UNROLL", 0}}),
                 "blocked_gpu_warp_tiles"},
        // register_block with scalar, narrow and wide rows of odd heights: edge blocks in
        // both directions, the vector path and the element path.
        Override{
            "register_block", {{"ROWS", 5}, {"VEC", 1}, {"VECTORS", 1}}, "register_block_scalar"},
        Override{
            "register_block", {{"ROWS", 3}, {"VEC", 4}, {"VECTORS", 2}}, "register_block_vec4x2"},
        Override{
            "register_block", {{"ROWS", 7}, {"VEC", 16}, {"VECTORS", 4}}, "register_block_wide"},
        Override{"register_block",
                 {{"ROWS", 5}, {"VEC", 8}, {"VECTORS", 2}, {"DOWN_ROWS_FIRST", 1}},
                 "register_block_down_rows_first"},
        // Three blocks per work-item in turns 7 deep: turns that end short of K, blocks past M
        // (wholly or in part), with both launch orders.
        Override{"register_block",
                 {{"ROWS", 3}, {"VEC", 4}, {"VECTORS", 2}, {"ROW_BLOCKS", 3}, {"K_CHUNK", 7}},
                 "register_block_row_blocks"},
        Override{"register_block",
                 {{"ROWS", 4},
                  {"VEC", 8},
                  {"VECTORS", 1},
                  {"ROW_BLOCKS", 2},
                  {"K_CHUNK", 16},
                  {"DOWN_ROWS_FIRST", 1}},
                 "register_block_row_blocks_down_rows_first"},
        // Inner products (each output VEC partial sums along K): blocks past M and N, turns
        // that end short of K and of a vector, the vector loop where B alone is transposed,
        // element by element in the other transposes.
        Override{"register_block",
                 {{"ROWS", 3},
                  {"VEC", 4},
                  {"VECTORS", 3},
                  {"ROW_BLOCKS", 2},
                  {"K_CHUNK", 10},
                  {"INNER_PRODUCTS", 1}},
                 "register_block_inner_products"},
        Override{"register_block",
                 {{"ROWS", 4}, {"VEC", 16}, {"VECTORS", 8}, {"INNER_PRODUCTS", 1}},
                 "register_block_inner_products_wide"}),
    [](const auto& info) { return info.param.label; });

// blocked's inner-loop options, each set on small tiles (not unrolled, so quick to compile on
// CPUs) where a work-item's rows and columns fall in several groups of 4.
class BlockedInnerLoop : public ::testing::TestWithParam<Override> {
 protected:
  // A set whose value needs what the device lacks (the asynchronous copies: cp.async) is
  // refused there (Options.BlockedAsyncCopyOptions), so it runs only where the device has it.
  void SetUp() override {
    const auto& device = shared_context().device();
    for (const auto& [name, value] : GetParam().options)
      if (!parameter_value_runs_on(GetParam().kernel, name, value, device))
        GTEST_SKIP() << name << " = " << value << " needs what '" << device.name
                     << "' lacks (cp.async: NVIDIA, compute capability 8.0)";
  }

  // Runs the problem in `precision` with the set's options plus `extra` and checks it.
  void expect_passes(const GemmProblem& p, const std::string& what, const KernelOptions& extra = {},
                     Precision precision = Precision::FP32) {
    const auto a = random_matrix(p.a_elements(), 11);
    const auto b = random_matrix(p.b_elements(), 12);
    const auto c_before = random_matrix(p.c_elements(), 13);
    auto c = c_before;
    RunSettings settings;
    settings.kernel = "blocked";
    settings.precision = precision;
    settings.overrides = GetParam().options;
    for (const auto& [name, value] : extra) settings.overrides[name] = value;
    const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    const auto result =
        verify_gemm(p, a.data(), b.data(), c_before.data(), c.data(), 2e9, 64, precision);
    EXPECT_TRUE(result.passed) << what << " with " << record.build_options << ": "
                               << result.failures << " failures, first: " << result.first_failure;
    EXPECT_GT(result.checked, 0u) << what;
  }
};

// A problem in `layout` with operands as given, leading dimensions above their minimum and
// offsets that are no multiple of a vector.
GemmProblem odd_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                        Layout layout = Layout::RowMajor, Transpose ta = Transpose::NoTrans,
                        Transpose tb = Transpose::NoTrans) {
  GemmProblem p;
  p.layout = layout, p.trans_a = ta, p.trans_b = tb;
  p.m = m, p.n = n, p.k = k, p.alpha = -1.25f, p.beta = 0.5f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 7, p.b_offset = 4, p.c_offset = 9;
  return p;
}

// `count` products of `one` in a strided batch, each operand's products a few elements further
// apart than their extent.
GemmProblem strided_batch(GemmProblem one, std::int64_t count) {
  one.batch = count;
  one.stride_a = std::int64_t(one.a_extent()) + 5;
  one.stride_b = std::int64_t(one.b_extent()) + 3;
  one.stride_c = std::int64_t(one.c_extent()) + 2;
  return one;
}

// 1x1x1, tile-sized and not, tall, wide, a single k and a long thin K.
TEST_P(BlockedInnerLoop, OddShapes) {
  for (const Shape& s : {Shape{1, 1, 1}, Shape{64, 64, 64}, Shape{65, 33, 127}, Shape{300, 5, 40},
                         Shape{3, 290, 17}, Shape{70, 70, 1}, Shape{2, 3, 700}})
    expect_passes(padded_problem(s.m, s.n, s.k),
                  std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
}

// C's rows 16-byte aligned (ldc and the offset multiples of 4), so that the 16-byte stores of
// STORE_VEC4 take every whole group of 4 columns; N = 70 ends in a group of 2, beta != 0 reads
// C, and a bias per column and ReLU follow. With a float at a time the same products.
TEST_P(BlockedInnerLoop, AlignedC) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
    GemmProblem p = odd_problem(37, 70, 45, layout);
    p.ldc = (p.min_ldc() + 3) / 4 * 4 + 4;
    p.c_offset = 8;
    const auto bias = random_matrix(70, 23);
    p.epilogue.bias = layout == Layout::RowMajor ? Bias::PerColumn : Bias::PerRow;
    p.epilogue.bias_data = bias.data();
    p.epilogue.activation = Activation::ReLU;
    expect_passes(p, std::string(layout == Layout::RowMajor ? "row" : "column") +
                         "-major, C aligned, with " + describe_epilogue(p.epilogue));
  }
}

TEST_P(BlockedInnerLoop, EveryTransposeAndLayout) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans})
        expect_passes(odd_problem(37, 70, 45, layout, ta, tb),
                      std::string(layout == Layout::RowMajor ? "row" : "column") +
                          "-major, op(A) " + (ta == Transpose::Trans ? "T" : "N") + ", op(B) " +
                          (tb == Transpose::Trans ? "T" : "N"));
}

// A strided batch with a bias per product and GELU, A transposed, column-major.
TEST_P(BlockedInnerLoop, BatchedWithEpilogue) {
  GemmProblem p = odd_problem(33, 41, 19, Layout::ColumnMajor, Transpose::Trans);
  p.batch = 3;
  p.stride_a = std::int64_t(p.a_extent()) + 3;
  p.stride_b = std::int64_t(p.b_extent()) + 1;
  p.stride_c = std::int64_t(p.c_extent()) + 4;
  const auto bias = random_matrix(3 * 50, 21);
  p.epilogue.bias = Bias::PerColumn;
  p.epilogue.bias_data = bias.data();
  p.epilogue.bias_stride = 50;
  p.epilogue.activation = Activation::GELU;
  expect_passes(p, "batch of 3 with " + describe_epilogue(p.epilogue));
}

// K in 3 slices summed by splitk_reduce, which applies the epilogue; B transposed too.
TEST_P(BlockedInnerLoop, SplitK) {
  const auto bias = random_matrix(80, 22);
  for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
    GemmProblem p = odd_problem(65, 33, 127, Layout::RowMajor, Transpose::NoTrans, tb);
    p.epilogue.bias = Bias::PerRow;
    p.epilogue.bias_data = bias.data();
    p.epilogue.activation = Activation::ReLU;
    expect_passes(p, std::string("split-K") + (tb == Transpose::Trans ? ", B transposed" : ""),
                  {{"SPLIT_K", 3}});
  }
}

TEST_P(BlockedInnerLoop, ReducedPrecisions) {
  for (Precision precision : {Precision::TF32, Precision::TF32x3})
    expect_passes(odd_problem(65, 70, 127, Layout::RowMajor, Transpose::Trans, Transpose::Trans),
                  precision_name(precision) + std::string(", A and B transposed"), {}, precision);
}

// Small tiles: 32 x 64 with 4 x 4 per work-item (16 x 8 work-items), or 64 x 64 with 8 x 8.
KernelOptions small_tiles(long tile_m, long tile_k, long item, long vec, KernelOptions inner_loop) {
  KernelOptions o{{"TILE_M", tile_m}, {"TILE_N", 64}, {"TILE_K", tile_k}, {"ITEM_M", item},
                  {"ITEM_N", item},   {"VEC", vec},   {"UNROLL", 0}};
  for (const auto& [name, value] : inner_loop) o[name] = value;
  return o;
}

// Warp tiles with prefetched fragments and padded pages over three stages of asynchronous
// copies, in `k_groups` k-groups.
KernelOptions async_warp_tiles(long k_groups) {
  return {{"LANES_N", 8},    {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4},
          {"ASYNC_COPY", 1}, {"STAGES", 3},        {"K_GROUPS", k_groups}};
}

INSTANTIATE_TEST_SUITE_P(
    Blocked, BlockedInnerLoop,
    ::testing::Values(
        // 2 x 1 warps of 4 x 8 lanes, two groups of 4 rows and columns per work-item.
        Override{"blocked",
                 small_tiles(64, 8, 8, 4, {{"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4}}),
                 "warp_8_prefetch_pad_4"},
        // 1 x 2 warps of 8 x 4 lanes, 16 deep.
        Override{"blocked", small_tiles(32, 16, 4, 4, {{"LANES_N", 4}}), "warp_4"},
        // 2 x 1 warps of 2 x 16 lanes, float2 loads.
        Override{
            "blocked",
            small_tiles(32, 8, 4, 2, {{"LANES_N", 16}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 8}}),
            "warp_16_prefetch_pad_8_vec2"},
        // The work-group layout with the fragments prefetched and the pages padded.
        Override{"blocked", small_tiles(64, 8, 8, 4, {{"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4}}),
                 "prefetch_pad_4"},
        // C stored a group of 4 columns per 16-byte word (the GPUs' derived stores), with and
        // without the warp tiles.
        Override{"blocked", small_tiles(64, 8, 8, 4, {{"STORE_VEC4", 1}}), "store_vec4"},
        Override{
            "blocked",
            small_tiles(64, 8, 8, 4, {{"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"STORE_VEC4", 1}}),
            "warp_8_prefetch_store_vec4"},
        // K split inside the work-group: two k-groups with warp tiles and prefetched fragments
        // (K 127 ends a k-group's last step past K), three with the work-group layout and
        // 16-byte stores, four 16 deep; and two over three stages of asynchronous copies.
        Override{"blocked",
                 small_tiles(64, 8, 8, 4, {{"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"K_GROUPS", 2}}),
                 "k_groups_2_warp_8_prefetch"},
        Override{"blocked", small_tiles(64, 8, 8, 4, {{"K_GROUPS", 3}, {"STORE_VEC4", 1}}),
                 "k_groups_3_store_vec4"},
        Override{"blocked", small_tiles(32, 16, 4, 4, {{"LANES_N", 4}, {"K_GROUPS", 4}}),
                 "k_groups_4_warp_4"},
        Override{"blocked", small_tiles(64, 8, 8, 4, async_warp_tiles(2)),
                 "async_k_groups_2_stages_3"},
        // Asynchronous copies: warp tiles over three stages; two stages 16 deep without
        // prefetch or padding; four stages of float8-aligned rows.
        Override{"blocked", small_tiles(64, 8, 8, 4, async_warp_tiles(1)),
                 "async_warp_8_prefetch_pad_4_stages_3"},
        Override{"blocked", small_tiles(32, 16, 4, 4, {{"ASYNC_COPY", 1}, {"STAGES", 2}}),
                 "async_stages_2"},
        Override{"blocked",
                 small_tiles(64, 8, 8, 8, {{"ASYNC_COPY", 1}, {"STAGES", 4}, {"LOCAL_PAD", 4}}),
                 "async_stages_4_vec8"},
        // The large GPU tiles, unrolled, as a tuned entry would run them.
        Override{"blocked", blocked_gpu_tiles({{"LOCAL_PAD", 4}, {"ASYNC_COPY", 1}, {"STAGES", 3}}),
                 "async_gpu_large_stages_3"}),
    [](const auto& info) { return info.param.label; });

// auto on products of few rows or columns with K long enough to stream the long operand, in
// every layout and transpose: on a CPU, register_block where the long operand is read as stored,
// its blocks shrunk to C's rows or columns (1 to 6 of them: blocks of one row, vectors of one,
// two or eight floats), and its inner products where the long operand runs along K (B
// transposed; A as stored with few columns and K of at least 256); gemv where the long operand
// is A transposed.
TEST(AutoThinProducts, EveryLayoutMatchesTheReference) {
  const bool cpu = shared_context().device().type == DeviceType::CPU;
  for (const Shape& s : {Shape{1, 300, 260}, Shape{3, 517, 300}, Shape{300, 1, 260},
                         Shape{517, 2, 300}, Shape{6, 700, 270}, Shape{700, 5, 290}})
    for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
      for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
        for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
          const GemmProblem p = odd_problem(s.m, s.n, s.k, layout, ta, tb);
          const auto out = run_checked(p, kernel_settings("auto"));
          EXPECT_TRUE(out.check.passed)
              << s.m << "x" << s.n << "x" << s.k << (layout == Layout::RowMajor ? " row" : " col")
              << "-major " << int(ta) << int(tb) << " on " << out.record.kernel << " "
              << out.record.build_options << ": " << out.check.first_failure;
          // Row-major, B transposed, few rows: the inner products.
          if (cpu && layout == Layout::RowMajor && tb == Transpose::Trans && s.m < s.n) {
            EXPECT_EQ(out.record.kernel, "register_block") << out.record.kernel_choice;
            EXPECT_EQ(out.record.options.at("INNER_PRODUCTS"), 1) << out.record.build_options;
          }
          // Row-major, nothing transposed: the long operand read as stored; with fewer than 8
          // columns (K >= 256 here) on the inner products, one per column.
          if (cpu && layout == Layout::RowMajor && ta == Transpose::NoTrans &&
              tb == Transpose::NoTrans) {
            EXPECT_EQ(out.record.kernel, "register_block") << out.record.kernel_choice;
            const auto& o = out.record.options;
            EXPECT_LE(o.at("ROWS") * o.at("ROW_BLOCKS"), std::max<std::int64_t>(s.m, 1));
            EXPECT_EQ(o.at("INNER_PRODUCTS"), s.n < 8 ? 1 : 0) << out.record.build_options;
            if (s.n < 8) EXPECT_LE(o.at("VECTORS"), s.n) << out.record.build_options;
          }
        }
}

// Both operands transposed on register_block's outer products: op(B) is copied transposed into
// the workspace first (copy_padded with TRANSPOSE, blocks of 8 x 8 that end short here), and
// the products read the copy as stored; in both layouts, with the epilogue, 1-row and 1-column
// products and a K of 1; a batch reads its operands where they are (no copy). auto takes the
// copy from 65 rows on (kInnerProductRowsCopiedA), the inner products below.
TEST(RegisterBlockTransposedCopy, BothTransposedReadBFromACopy) {
  const bool cpu = shared_context().device().type == DeviceType::CPU;
  for (const Shape& s : {Shape{37, 53, 29}, Shape{1, 19, 13}, Shape{45, 1, 70}, Shape{23, 9, 1},
                         Shape{130, 70, 300}})
    for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
      GemmProblem p = odd_problem(s.m, s.n, s.k, layout, Transpose::Trans, Transpose::Trans);
      p.epilogue.bias = Bias::PerRow, p.epilogue.activation = Activation::ReLU;
      const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                               std::to_string(s.k) +
                               (layout == Layout::RowMajor ? " row-major" : " column-major");
      const auto out = run_checked(p, kernel_settings("register_block", {{"ROWS", 5}, {"VEC", 4}}));
      EXPECT_TRUE(out.check.passed) << what << ": " << out.check.first_failure;
      // The row-major call's B: a column-major problem's A.
      EXPECT_TRUE(layout == Layout::RowMajor ? out.record.copied_b : out.record.copied_a) << what;
      EXPECT_NE(out.record.kernel_choice.find("op(B) copied first"), std::string::npos)
          << what << ": " << out.record.kernel_choice;
      const auto chosen = run_checked(p, kernel_settings("auto"));
      EXPECT_TRUE(chosen.check.passed) << what << " auto: " << chosen.check.first_failure;
      const std::int64_t rows = layout == Layout::RowMajor ? s.m : s.n;  // the call's
      if (cpu && chosen.record.kernel == "register_block")
        EXPECT_EQ(chosen.record.copied_a || chosen.record.copied_b,
                  rows > 64)  // kInnerProductRowsCopiedA; A's copy needs 256 columns
            << what << ": " << chosen.record.kernel_choice;
    }
  const GemmProblem batch = strided_batch(
      odd_problem(37, 53, 29, Layout::RowMajor, Transpose::Trans, Transpose::Trans), 3);
  const auto out = run_checked(batch, kernel_settings("register_block"));
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(out.record.copied_b);
}

// B transposed (x * W^T) on a single product of at least 256 rows: op(B) is copied transposed
// first and the outer products read the copy as stored (PoCL: 2048x6144x4096 104 -> 154
// GFLOP/s), in both layouts with the epilogue and a 1-column product; 255 rows and a batch stay
// on the inner products, reading B^T as stored.
TEST(RegisterBlockTransposedCopy, ManyRowsTimesBTransposedReadBFromACopy) {
  const bool cpu = shared_context().device().type == DeviceType::CPU;
  struct Case {
    std::int64_t rows, columns, k;
    bool copied;
  };
  for (const Case& c : {Case{256, 300, 40, true}, Case{257, 33, 129, true}, Case{300, 1, 20, true},
                        Case{255, 300, 40, false}})
    for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
      const bool row_major = layout == Layout::RowMajor;
      // A column-major problem's row-major call is C^T = B^T A^T: its rows are the problem's
      // columns, and B transposed in the call is A transposed in the problem.
      GemmProblem p = odd_problem(row_major ? c.rows : c.columns, row_major ? c.columns : c.rows,
                                  c.k, layout, row_major ? Transpose::NoTrans : Transpose::Trans,
                                  row_major ? Transpose::Trans : Transpose::NoTrans);
      p.epilogue.bias = Bias::PerRow, p.epilogue.activation = Activation::ReLU;
      const std::string what = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                               std::to_string(p.k) + (row_major ? " row-major" : " column-major");
      const auto out = run_checked(p, kernel_settings("auto"));
      EXPECT_TRUE(out.check.passed) << what << ": " << out.check.first_failure;
      if (!cpu || out.record.kernel != "register_block") continue;
      EXPECT_EQ(out.record.options.at("INNER_PRODUCTS"), c.copied ? 0 : 1) << what;
      EXPECT_EQ(row_major ? out.record.copied_b : out.record.copied_a, c.copied)
          << what << ": " << out.record.kernel_choice;
    }
  const GemmProblem batch = strided_batch(
      odd_problem(256, 300, 40, Layout::RowMajor, Transpose::NoTrans, Transpose::Trans), 2);
  const auto batched = run_checked(batch, kernel_settings("auto"));
  EXPECT_TRUE(batched.check.passed) << batched.check.first_failure;
  EXPECT_FALSE(batched.record.copied_a || batched.record.copied_b);
  if (cpu && batched.record.kernel == "register_block")
    EXPECT_EQ(batched.record.options.at("INNER_PRODUCTS"), 1) << batched.record.kernel_choice;
}

// Both operands transposed on register_block's inner products (a single product of at most 64
// rows): op(A) is copied transposed first where the copy is small next to the product (at least
// 64 FLOP per byte copied: 256 columns of C), and the inner products read its rows as vectors;
// in both layouts (the row-major call's A is a column-major problem's B), with the epilogue,
// a 1-row product and a K of 1. Fewer columns, and a batch, read A^T element by element.
TEST(RegisterBlockTransposedCopy, ThinProductsBothTransposedReadAFromACopy) {
  const bool cpu = shared_context().device().type == DeviceType::CPU;
  struct Case {
    std::int64_t rows, columns, k;
  };
  for (const Case& c : {Case{20, 300, 50}, Case{1, 257, 13}, Case{64, 260, 1}, Case{37, 301, 129}})
    for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
      const bool row_major = layout == Layout::RowMajor;
      GemmProblem p = odd_problem(row_major ? c.rows : c.columns, row_major ? c.columns : c.rows,
                                  c.k, layout, Transpose::Trans, Transpose::Trans);
      p.epilogue.bias = Bias::PerColumn, p.epilogue.activation = Activation::GELU;
      const std::string what = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                               std::to_string(p.k) + (row_major ? " row-major" : " column-major");
      const KernelOptions inner{{"INNER_PRODUCTS", 1}, {"ROWS", 4}, {"VECTORS", 8}};
      for (const char* kernel : {"register_block", "auto"}) {
        const auto out = run_checked(
            p, kernel_settings(kernel, std::string(kernel) == "auto" ? KernelOptions{} : inner));
        EXPECT_TRUE(out.check.passed) << what << " " << kernel << ": " << out.check.first_failure;
        if (!cpu || out.record.kernel != "register_block") continue;
        EXPECT_EQ(out.record.options.at("INNER_PRODUCTS"), 1) << what;
        EXPECT_TRUE(row_major ? out.record.copied_a : out.record.copied_b)
            << what << " " << kernel << ": " << out.record.kernel_choice;
        EXPECT_NE(out.record.kernel_choice.find("op(A) copied first"), std::string::npos)
            << what << " " << kernel << ": " << out.record.kernel_choice;
        EXPECT_NE(out.record.build_options.find("-D TRANS_A=0"), std::string::npos)
            << out.record.build_options;
      }
    }
  // 255 columns: 63.75 FLOP per byte copied.
  const KernelOptions inner{{"INNER_PRODUCTS", 1}, {"ROWS", 4}, {"VECTORS", 8}};
  const auto narrow =
      run_checked(odd_problem(20, 255, 50, Layout::RowMajor, Transpose::Trans, Transpose::Trans),
                  kernel_settings("register_block", inner));
  EXPECT_TRUE(narrow.check.passed) << narrow.check.first_failure;
  EXPECT_FALSE(narrow.record.copied_a) << narrow.record.kernel_choice;
  if (cpu)
    EXPECT_NE(narrow.record.kernel_choice.find("read element by element"), std::string::npos)
        << narrow.record.kernel_choice;
  const GemmProblem batch = strided_batch(
      odd_problem(20, 300, 50, Layout::RowMajor, Transpose::Trans, Transpose::Trans), 3);
  const auto batched = run_checked(batch, kernel_settings("register_block", inner));
  EXPECT_TRUE(batched.check.passed) << batched.check.first_failure;
  EXPECT_FALSE(batched.record.copied_a || batched.record.copied_b);
}

// On a CPU, register_block reads an operand whose lines lie a multiple of 4,096 bytes apart
// (kCacheAliasBytes: here a leading dimension of 1024 floats), with at least 512 of them, from
// a copy one cache line wider, where the copies are small next to the product: in both layouts
// and every transpose (with both transposed, beside B's transposed copy), with the epilogue;
// not below 64 FLOP per byte copied, and not for a batch.
TEST(RegisterBlockCacheAliasCopy, AliasingOperandsAreReadFromWiderCopies) {
  const bool cpu = shared_context().device().type == DeviceType::CPU;
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        GemmProblem p = odd_problem(600, 520, 530, layout, ta, tb);
        p.lda = p.ldb = 1024;
        p.epilogue.bias = Bias::PerColumn, p.epilogue.activation = Activation::ReLU;
        const std::string what = std::string(layout == Layout::RowMajor ? "row" : "col") +
                                 "-major " + std::to_string(int(ta)) + std::to_string(int(tb));
        const auto out = run_checked(p, kernel_settings("register_block"));
        EXPECT_TRUE(out.check.passed) << what << ": " << out.check.first_failure;
        if (!cpu) continue;
        EXPECT_TRUE(out.record.copied_a && out.record.copied_b)
            << what << ": " << out.record.kernel_choice;
        EXPECT_NE(out.record.kernel_choice.find("share the caches' sets"), std::string::npos)
            << what << ": " << out.record.kernel_choice;
        EXPECT_NE(out.record.kernel_choice.find("copied first"), std::string::npos)
            << what << ": " << out.record.kernel_choice;
      }
  // 64 columns: 2 * 600 * 64 * 530 FLOP against A's copy, 16 per byte.
  GemmProblem few = odd_problem(600, 64, 530);
  few.lda = 1024;
  const auto out = run_checked(few, kernel_settings("register_block"));
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(out.record.copied_a);
  if (cpu)
    EXPECT_NE(out.record.kernel_choice.find("read as stored"), std::string::npos)
        << out.record.kernel_choice;
  GemmProblem batch = odd_problem(600, 520, 530);
  batch.lda = batch.ldb = 1024, batch.batch = 2;
  batch.stride_a = std::int64_t(batch.a_extent()), batch.stride_b = std::int64_t(batch.b_extent());
  batch.stride_c = std::int64_t(batch.c_extent());
  const auto batched = run_checked(batch, kernel_settings("register_block"));
  EXPECT_TRUE(batched.check.passed) << batched.check.first_failure;
  EXPECT_FALSE(batched.record.copied_a || batched.record.copied_b);
}

// A caller's override that contradicts what auto fitted (outer products where the fit chose
// 8 columns of inner products, which the outer products cannot take) runs with the caller's
// overrides on derived parameters instead of failing; one the kernel cannot take at all still
// fails, naming it.
TEST(AutoThinProducts, CallersOverridesWinOverTheFit) {
  if (shared_context().device().type != DeviceType::CPU) GTEST_SKIP() << "register_block: CPUs";
  const GemmProblem p =
      odd_problem(6, 700, 270, Layout::RowMajor, Transpose::NoTrans, Transpose::Trans);
  RunSettings settings = kernel_settings("auto");
  settings.overrides["INNER_PRODUCTS"] = 0;
  const auto out = run_checked(p, settings);
  EXPECT_TRUE(out.check.passed) << out.record.build_options << ": " << out.check.first_failure;
  EXPECT_EQ(out.record.kernel, "register_block") << out.record.kernel_choice;
  EXPECT_EQ(out.record.options.at("INNER_PRODUCTS"), 0) << out.record.build_options;
  EXPECT_NE(out.record.kernel_choice.find("caller's overrides"), std::string::npos)
      << out.record.kernel_choice;
  settings.overrides["INNER_PRODUCTS"] = 2;
  try {
    run_checked(p, settings);
    ADD_FAILURE() << "INNER_PRODUCTS 2 ran";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("INNER_PRODUCTS"), std::string::npos) << error.what();
  }
}

// register_block's inner products in every layout and transpose: whole VEC-deep steps read
// A's rows as vectors where op(A) = A and op(B)'s columns where op(B) = B^T (in a column-major
// problem, the other way round), the other operand element by element; blocks past M and N,
// turns that end short of K and of a vector, and a 1-row, 1-column and K = 1 product.
TEST(RegisterBlockInnerProducts, EveryLayoutAndTransposeMatchesTheReference) {
  const KernelOptions narrow{{"ROWS", 3},       {"VEC", 4},      {"VECTORS", 3},
                             {"ROW_BLOCKS", 2}, {"K_CHUNK", 10}, {"INNER_PRODUCTS", 1}};
  const KernelOptions wide{{"ROWS", 4}, {"VEC", 16}, {"VECTORS", 8}, {"INNER_PRODUCTS", 1}};
  for (const KernelOptions& options : {narrow, wide})
    for (const Shape& s : {Shape{65, 33, 127}, Shape{17, 129, 9}, Shape{1, 300, 37},
                           Shape{300, 1, 70}, Shape{5, 7, 1}})
      for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
        for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
          for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
            const GemmProblem p = odd_problem(s.m, s.n, s.k, layout, ta, tb);
            const auto out = run_checked(p, kernel_settings("register_block", options));
            EXPECT_TRUE(out.check.passed)
                << s.m << "x" << s.n << "x" << s.k << (layout == Layout::RowMajor ? " row" : " col")
                << "-major " << int(ta) << int(tb) << " " << out.record.build_options << ": "
                << out.check.first_failure;
          }
}

}  // namespace
}  // namespace clgemm::testing
