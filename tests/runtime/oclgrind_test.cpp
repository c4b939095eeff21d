// Every FP32 kernel of the catalogue run under oclgrind, the OpenCL device simulator, which reports
// out-of-bounds accesses, data races, uses of uninitialised values and OpenCL API misuse.
// tests/oclgrind.cmake runs this program as `oclgrind CHECKS --log FILE`; oclgrind appends each
// report to FILE (named to the program by OCLGRIND_LOG), and a test fails when the log grew
// during one of its GEMMs, showing what oclgrind wrote. Each kernel runs with the options the
// host derives for the simulated device, and with a smaller set found by halving parameters, on
// shapes that are not tile multiples, with padded leading dimensions and beta != 0; with the
// derived options also alpha = 0 and K = 0, which run scale_c instead; blocked also with
// split-K and aligned copies (copy_padded, splitk_reduce); and each kernel's batched and
// epilogue variants (strided, from a product table, through split-K's reduction). blocked's
// inner-loop options (warp tiles, fragment prefetch, padded pages) run on small tiles too.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// The shapes, not multiples of any tile. The first (one K step) also runs with both A and B
// transposed: each operand's loads then take the kernel's other code path.
struct Shape {
  std::int64_t m, n, k;
  bool also_transposed;
};
const Shape kShapes[] = {{17, 33, 9, true}, {65, 7, 42, false}};

// A row-major problem with padded leading dimensions, offsets, and alpha, beta != 1, 0. The
// offsets are multiples of 8 floats so that aligned vector loads stay possible.
GemmProblem problem(const Shape& s, Transpose trans) {
  GemmProblem p;
  p.m = s.m, p.n = s.n, p.k = s.k;
  p.trans_a = p.trans_b = trans;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 16, p.b_offset = 8, p.c_offset = 3;
  return p;
}

// A kernel and the precision it computes in.
struct Run {
  std::string kernel;
  Precision precision = Precision::FP32;
};

// The kernels that compute FP32 on any device, and those that compute the reduced precisions
// portably (their TF32 rounding and 3xTF32 splitting are separate code paths). A kernel that
// needs tensor cores cannot run here at all: the tensorcore kernel is inline PTX (mma.sync,
// cp.async), which only NVIDIA's OpenCL compiles, and oclgrind simulates a generic OpenCL
// device without tensor cores (kernels.tensorcore_nvptx compiles it instead).
std::vector<Run> runs() {
  std::vector<Run> out;
  for (const auto& name : fp32_kernel_names()) out.push_back({name});
  for (const auto& kernel : kernel_catalog()) {
    if (kernel.needs_tensor_cores) continue;
    for (Precision p : kernel.precisions)
      if (p != Precision::FP32) out.push_back({kernel.name, p});
  }
  return out;
}

std::string run_name(const Run& run) {
  return run.precision == Precision::FP32 ? run.kernel
                                          : run.kernel + "_" + precision_name(run.precision);
}

// How GoogleTest prints a Run (in --gtest_list_tests and failures).
void PrintTo(const Run& run, std::ostream* out) {
  *out << run_name(run);
}

// What oclgrind appended to its log since the previous call (empty before it creates the file).
std::string new_reports() {
  static std::streamoff seen = 0;
  std::ifstream log(std::getenv("OCLGRIND_LOG"), std::ios::binary);
  if (!log) return {};
  log.seekg(seen);
  std::string text{std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>()};
  seen += std::streamoff(text.size());
  return text;
}

// The first few reports of a long log, and how much was left out (the log file has it all).
std::string excerpt(const std::string& reports) {
  const std::size_t shown = 3000;
  if (reports.size() <= shown) return reports;
  return reports.substr(0, shown) + "\n... and " + std::to_string(reports.size() - shown) +
         " more bytes in " + std::getenv("OCLGRIND_LOG");
}

// An operand of `lines` rows of `length` elements from `offset` on, with random values, and NaN
// before the offset and in the padding between rows: a kernel that uses any element outside
// the matrix (inside the buffer, so no invalid access to oclgrind) gets NaN in C.
std::vector<float> operand(std::size_t offset, std::int64_t lines, std::int64_t length,
                           std::int64_t ld, unsigned seed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (lines == 0) return std::vector<float>(offset, nan);  // K = 0: an empty operand
  auto out = random_matrix(offset + std::size_t((lines - 1) * ld + length), seed);
  std::fill(out.begin(), out.begin() + std::ptrdiff_t(offset), nan);
  for (std::int64_t line = 0; line + 1 < lines; ++line)
    for (std::int64_t i = length; i < ld; ++i) out[offset + std::size_t(line * ld + i)] = nan;
  return out;
}

// Options smaller than the derived ones, found without naming any parameter: two passes over
// the kernel's parameters, each halving every parameter in turn and keeping the halving when the
// whole set still validates (on the simulated device, TILE = 32 becomes 8 for tile).
KernelOptions smaller_options(const std::string& kernel, const DeviceLimits& limits) {
  KernelOptions options = derive_options(kernel, limits);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& parameter : find_kernel(kernel).parameters) {
      KernelOptions candidate = options;
      if (candidate.at(parameter.name) < 2) continue;
      candidate[parameter.name] /= 2;
      try {
        validate_options(kernel, candidate, limits);
        options = candidate;
      } catch (const Error&) {
        // this halving breaks a constraint; keep the parameter as it was
      }
    }
  }
  return options;
}

class UnderOclgrind : public ::testing::TestWithParam<Run> {
 protected:
  // The suite's own Context, released before main returns. oclgrind keeps a thread_local
  // record of the OpenCL call in progress, which the main thread destroys before static
  // destructors run, so the OpenCL calls of a static Context's destructor (shared_context())
  // write to freed memory and corrupt the heap (valgrind: invalid write in
  // clReleaseCommandQueue to a block freed by __call_tls_dtors).
  static void SetUpTestSuite() { context_ = std::make_unique<Context>(); }
  static void TearDownTestSuite() { context_.reset(); }
  static Context& context() { return *context_; }

  void SetUp() override {
    ASSERT_TRUE(context_) << "no OpenCL context (see the error above)";
    ASSERT_NE(std::getenv("OCLGRIND_LOG"), nullptr)
        << "run this program as `oclgrind --log FILE ...` (see tests/oclgrind.cmake)";
    ASSERT_NE(context().device().platform_name.find("Oclgrind"), std::string::npos)
        << "the device is '" << context().device().platform_name << "', not oclgrind's";
    new_reports();  // anything logged before this test (device set-up) is not its doing
  }

  // Runs the kernel on each shape; passes when oclgrind reported nothing and C is right.
  void run_clean(const KernelOptions& overrides) {
    for (const Shape& s : kShapes) {
      run_clean(problem(s, Transpose::NoTrans), overrides);
      if (s.also_transposed) run_clean(problem(s, Transpose::Trans), overrides);
    }
  }

  void run_clean(const GemmProblem& p, const KernelOptions& overrides) {
    const bool a_transposed = p.trans_a == Transpose::Trans;
    const bool b_transposed = p.trans_b == Transpose::Trans;
    std::ostringstream what;
    what << run_name(GetParam()) << " on " << p.m << "x" << p.n << "x" << p.k
         << (a_transposed ? ", A transposed" : "") << (b_transposed ? ", B transposed" : "")
         << " (lda " << p.lda << ", ldb " << p.ldb << ", ldc " << p.ldc << ", beta " << p.beta
         << ")";
    SCOPED_TRACE(what.str());
    const auto a = operand(p.a_offset, a_transposed ? p.k : p.m, p.min_lda(), p.lda, 11);
    const auto b = operand(p.b_offset, b_transposed ? p.n : p.k, p.min_ldb(), p.ldb, 12);
    const auto c_before = random_matrix(p.c_elements(), 13);
    auto c = c_before;
    RunSettings settings;
    settings.kernel = GetParam().kernel;
    settings.precision = GetParam().precision;
    settings.overrides = overrides;
    const auto timing = context().sgemm(p, a.data(), b.data(), c.data(), settings);
    const std::string reports = new_reports();
    EXPECT_TRUE(reports.empty()) << "oclgrind reported, with " << timing.build_options << ":"
                                 << excerpt(reports);
    const auto result =
        verify_gemm(p, a.data(), b.data(), c_before.data(), c.data(), 2e9, 64, settings.precision);
    EXPECT_TRUE(result.passed) << "with " << timing.build_options << ": " << result.failures
                               << " failures, first: " << result.first_failure;
  }

  // blocked's multi-launch calls: aligned copies of A and B (lda, ldb not multiples of VEC),
  // the split-K partial products (3 slices of K = 42) and their reduction into C.
  void run_multi_launch(KernelOptions overrides) {
    if (GetParam().kernel != "blocked") return;
    overrides["SPLIT_K"] = 3;
    overrides["ALIGN_COPY"] = 2;
    run_clean(problem(kShapes[1], Transpose::NoTrans), overrides);
    run_clean(problem(kShapes[1], Transpose::Trans), overrides);
  }

 private:
  static std::unique_ptr<Context> context_;
};

std::unique_ptr<Context> UnderOclgrind::context_;

TEST_P(UnderOclgrind, DerivedOptions) {
  run_clean({});
  run_multi_launch({});
  // alpha = 0 and K = 0 run scale_c (C = beta * C) instead of the kernel, with beta != 0 and 0.
  for (float beta : {-0.75f, 0.0f}) {
    GemmProblem p = problem(kShapes[0], Transpose::NoTrans);
    p.alpha = 0.0f, p.beta = beta;
    run_clean(p, {});
    p = problem({kShapes[1].m, kShapes[1].n, 0, false}, Transpose::NoTrans);
    p.beta = beta;
    run_clean(p, {});
  }
}

TEST_P(UnderOclgrind, SmallerOptions) {
  const auto& limits = context().device();
  const std::string& kernel = GetParam().kernel;
  const KernelOptions options = smaller_options(kernel, limits);
  ASSERT_NE(options, derive_options(kernel, limits))
      << "no parameter of '" << kernel << "' can be halved into a valid set";
  run_clean(options);
  run_multi_launch(options);
}

// The kernel's batched and epilogue variants: a strided batch with gaps between products and
// a bias per product (per column, GELU), a product table with an alpha = 0 entry (per row,
// clamp), and for blocked split-K whose reduction applies the epilogue (per row, ReLU). Every
// element of A, B and C's arrays that no product reads is NaN, so reading one shows in C.
TEST_P(UnderOclgrind, BatchedWithEpilogue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto& run = GetParam();
  GemmProblem strided = problem(kShapes[0], Transpose::NoTrans);
  strided.batch = 3;
  strided.stride_a = std::int64_t(strided.a_extent()) + 5;
  strided.stride_b = std::int64_t(strided.b_extent()) + 3;
  strided.stride_c = std::int64_t(strided.c_extent()) + 2;
  strided.epilogue.bias = Bias::PerColumn;
  strided.epilogue.bias_stride = strided.n + 1;
  strided.epilogue.activation = Activation::GELU;

  GemmProblem table = problem(kShapes[1], Transpose::Trans);
  table.a_offset = table.b_offset = table.c_offset = 0;
  table.batch = 2;
  std::vector<BatchProduct> entries = {{table.a_extent() + 8, 16, table.c_extent() + 1, 0.0f, 0.5f},
                                       {0, table.b_extent() + 24, 0, -1.25f, 0.0f}};
  table.products.host = entries.data();
  table.epilogue.bias = Bias::PerRow;
  table.epilogue.activation = Activation::Clamp;
  table.epilogue.clamp_low = -0.25f, table.epilogue.clamp_high = 0.5f;

  GemmProblem split = problem(kShapes[1], Transpose::NoTrans);
  split.epilogue.bias = Bias::PerRow;
  split.epilogue.bias_offset = 2;
  split.epilogue.activation = Activation::ReLU;

  // NaN everywhere, then each product's matrix at its place.
  auto filled = [&](const GemmProblem& p, std::size_t elements, auto offset_of, std::int64_t lines,
                    std::int64_t length, std::int64_t ld, unsigned seed) {
    std::vector<float> out(elements, nan);
    const auto values = random_matrix(std::size_t(lines * length), seed);
    for (std::int64_t i = 0; i < p.batch; ++i)
      for (std::int64_t line = 0; line < lines; ++line)
        for (std::int64_t x = 0; x < length; ++x)
          out[offset_of(i) + std::size_t(line * ld + x)] = values[std::size_t(line * length + x)];
    return out;
  };
  struct Case {
    const char* what;
    GemmProblem p;
    KernelOptions overrides;
  };
  std::vector<Case> cases = {{"strided", strided, {}}, {"table", table, {}}};
  if (run.kernel == "blocked") cases.push_back({"split-K", split, {{"SPLIT_K", 3}}});
  for (const Case& test : cases) {
    SCOPED_TRACE(std::string(test.what) + " batch with the epilogue " +
                 describe_epilogue(test.p.epilogue));
    GemmProblem p = test.p;
    const bool t = p.trans_a == Transpose::Trans;
    const auto a_at = [&p](std::int64_t i) { return p.product(i).a_offset; };
    const auto b_at = [&p](std::int64_t i) { return p.product(i).b_offset; };
    const auto a = filled(p, p.a_elements(), a_at, t ? p.k : p.m, p.min_lda(), p.lda, 21);
    const auto b = filled(p, p.b_elements(), b_at, t ? p.n : p.k, p.min_ldb(), p.ldb, 22);
    const auto c_before = random_matrix(p.c_elements(), 23);
    const auto bias = random_matrix(p.bias_elements(), 24);
    p.epilogue.bias_data = bias.data();
    auto c = c_before;
    RunSettings settings;
    settings.kernel = run.kernel;
    settings.precision = run.precision;
    settings.overrides = test.overrides;
    const auto record = context().sgemm(p, a.data(), b.data(), c.data(), settings);
    const std::string reports = new_reports();
    EXPECT_TRUE(reports.empty()) << "oclgrind reported, with " << record.build_options << ":"
                                 << excerpt(reports);
    const auto result =
        verify_gemm(p, a.data(), b.data(), c_before.data(), c.data(), 2e9, 64, run.precision);
    EXPECT_TRUE(result.passed) << "with " << record.build_options << ": " << result.failures
                               << " failures, first: " << result.first_failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalog, UnderOclgrind, ::testing::ValuesIn(runs()),
                         [](const auto& info) { return run_name(info.param); });

// blocked with warp tiles (2 x 2 warps of 4 x 8 lanes over 32 x 64 x 16 tiles), the fragments
// prefetched across the page swap and padded pages: races between the prefetch and the next
// slice's stores into the other page, and reads outside the padded pages, show here.
class UnderOclgrindInnerLoop : public UnderOclgrind {};

TEST_P(UnderOclgrindInnerLoop, WarpTiles) {
  const KernelOptions options{
      {"TILE_M", 32}, {"TILE_N", 64}, {"TILE_K", 16},       {"ITEM_M", 4},    {"ITEM_N", 4},
      {"VEC", 4},     {"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4}, {"UNROLL", 0}};
  run_clean(options);
  run_multi_launch(options);
}

// The same tiles 8 deep with float2 loads, as three k-groups splitting K inside the work-group
// (their pages fit oclgrind's 32 KiB): races between a k-group's last products and the sums
// that reuse the pages, or between the k-groups' turns at the sums, show here.
TEST_P(UnderOclgrindInnerLoop, KGroups) {
  const KernelOptions options{{"TILE_M", 32}, {"TILE_N", 64},       {"TILE_K", 8},
                              {"ITEM_M", 4},  {"ITEM_N", 4},        {"VEC", 2},
                              {"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4},
                              {"UNROLL", 0},  {"K_GROUPS", 3}};
  run_clean(options);
}

INSTANTIATE_TEST_SUITE_P(Blocked, UnderOclgrindInnerLoop, ::testing::Values(Run{"blocked"}),
                         [](const auto& info) { return run_name(info.param); });

// register_block with three blocks of 3 rows per work-item in turns 7 deep: the parked
// accumulators, turns that end short of K and blocks past M (wholly or in part) show any read
// of an uninitialised value or outside the operands here. Then the same blocks as inner
// products of 3 columns, 4 deep: with B transposed and A not, whole vectors along K and the
// turns' short ends; in the other transposes, element by element.
class UnderOclgrindRowBlocks : public UnderOclgrind {};

TEST_P(UnderOclgrindRowBlocks, RowBlocks) {
  run_clean({{"ROWS", 3}, {"VEC", 4}, {"VECTORS", 2}, {"ROW_BLOCKS", 3}, {"K_CHUNK", 7}});
  const KernelOptions inner{{"ROWS", 3},       {"VEC", 4},     {"VECTORS", 4},
                            {"ROW_BLOCKS", 3}, {"K_CHUNK", 7}, {"INNER_PRODUCTS", 1}};
  run_clean(inner);
  for (const Shape& s : kShapes) {
    GemmProblem b_transposed = problem(s, Transpose::NoTrans);
    b_transposed.trans_b = Transpose::Trans, b_transposed.ldb = b_transposed.min_ldb() + 5;
    run_clean(b_transposed, inner);
  }
}

INSTANTIATE_TEST_SUITE_P(RegisterBlock, UnderOclgrindRowBlocks,
                         ::testing::Values(Run{"register_block"}),
                         [](const auto& info) { return run_name(info.param); });

}  // namespace
}  // namespace clgemm::testing
