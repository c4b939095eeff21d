// The reduced precisions, TF32 and 3xTF32, on the tests' device, through every kernel that
// computes them: 'auto', 'blocked' (portable rounding), 'tensorcore' (mma.sync) and 'wgmma'
// (Hopper's warpgroup MMA), whose tests skip themselves, saying why, on a device without tensor
// cores (or, for 'wgmma', without a passing wgmma probe: compute capability 9.0 only). Registered
// by ctest as precision.* (`ctest -L precision`). What is checked:
//   - results against the double reference within each mode's bound, on shapes that fit no
//     tile, all four transposes, both layouts, beta 0 and not, padded leading dimensions and
//     offsets;
//   - that TF32 rounds exactly as round_to_tf32 does: bit for bit where the products are exact,
//     and within the FP32 bound of a reference built from host-rounded operands;
//   - the accuracy of 3xTF32 and TF32 next to FP32;
//   - the errors for a kernel or device that cannot compute a mode (C untouched), what
//     GemmRecord reports, and what `auto` picks.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const Precision kReducedPrecisions[] = {Precision::TF32, Precision::TF32x3};

// Ways of running a catalogue kernel that take another path through it, tested under their own
// names beside the kernel's derived parameters: wgmma reading A as stored (A_REGISTERS 2, only
// B packed) on 128 x 128 tiles, 32 deep so that 3xTF32 takes them too, in two stages; and the
// tensor-core kernels with K split into three slices (SPLIT_K 3, the partial products summed
// by splitk_reduce), on the derived parameters and reading A as stored: the shapes whose K
// spans several slices (130 and 300 deep, the accuracy test's 2048) end in a shorter slice;
// wgmma on 128 x 192 tiles (m64n192k8), A and B through the pages;
// and tensorcore on the thin tiles `auto` gives products of 9-32 rows on wgmma devices (one
// 16-row warp tile per warp, 32-deep slices).
struct KernelVariant {
  std::string name, kernel;
  KernelOptions overrides;
};
const std::vector<KernelVariant>& kernel_variants() {
  static const std::vector<KernelVariant> variants = [] {
    const KernelOptions stored_a{
        {"A_REGISTERS", 2}, {"TILE_M", 128}, {"TILE_N", 128}, {"TILE_K", 32}, {"STAGES", 2}};
    // tensorcore_thin_tiles() (src/catalog/tensorcore_spec.cpp), 32 and 64 rows, as
    // Tuning.ThinProductsLeaveTheTensorCores asserts auto takes them.
    const KernelOptions thin{{"TILE_M", 32}, {"TILE_N", 128}, {"TILE_K", 32}, {"WARP_M", 16},
                             {"WARP_N", 64}, {"STAGES", 2},   {"VEC", 4}};
    const KernelOptions thin_64{{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 16}, {"WARP_M", 32},
                                {"WARP_N", 64}, {"STAGES", 3},   {"VEC", 4}};
    KernelOptions stored_a_split_k = stored_a;
    stored_a_split_k["SPLIT_K"] = 3;
    const KernelOptions wide{
        {"A_REGISTERS", 0}, {"TILE_M", 128}, {"TILE_N", 192}, {"TILE_K", 16}, {"STAGES", 2}};
    return std::vector<KernelVariant>{{"wgmma_stored_a", "wgmma", stored_a},
                                      {"wgmma_split_k", "wgmma", {{"SPLIT_K", 3}}},
                                      {"wgmma_stored_a_split_k", "wgmma", stored_a_split_k},
                                      {"wgmma_wide", "wgmma", wide},
                                      {"tensorcore_split_k", "tensorcore", {{"SPLIT_K", 3}}},
                                      {"tensorcore_thin", "tensorcore", thin},
                                      {"tensorcore_thin_64", "tensorcore", thin_64}};
  }();
  return variants;
}
const KernelVariant* variant_named(const std::string& name) {
  for (const auto& variant : kernel_variants())
    if (variant.name == name) return &variant;
  return nullptr;
}
// The catalogue kernel a test name runs.
std::string kernel_of(const std::string& name) {
  const KernelVariant* variant = variant_named(name);
  return variant ? variant->kernel : name;
}

bool needs_tensor_cores(const std::string& name) {
  return name != "auto" && find_kernel(kernel_of(name)).needs_tensor_cores;
}

// 'auto', every catalogue kernel that computes `precision` and the variants of those, whether
// or not this device can run them: the list is made when the tests are registered, before any
// device is opened.
std::vector<std::string> kernels_computing(Precision precision) {
  std::vector<std::string> names = {"auto"};
  for (const auto& kernel : kernel_catalog())
    if (kernel.computes(precision)) {
      names.push_back(kernel.name);
      for (const auto& variant : kernel_variants())
        if (variant.kernel == kernel.name) names.push_back(variant.name);
    }
  return names;
}

// Why `kernel` (a catalogue kernel or a variant's name) cannot run on the tests' device, or ""
// when it can.
std::string why_not_here(const std::string& name) {
  if (!needs_tensor_cores(name)) return {};
  const std::string kernel = kernel_of(name);
  if (!shared_context().has_tensor_cores())
    return "'" + kernel + "' needs tensor cores, which '" + shared_context().device().name +
           "' does not have";
  if (find_kernel(kernel).needs_wgmma && !shared_context().has_wgmma())
    return "'" + kernel + "' needs Hopper's wgmma, which '" + shared_context().device().name +
           "' does not run (compute capability 9.0 with a passing wgmma probe only)";
  return {};
}

// Small blocked tiles on CPU devices. The derived CPU tiles (64 x 128, 8 x 16 outputs per
// work-item, unrolled) take PoCL 10 to 30 s per variant to compile and run once, and the
// sweep builds eight variants per kernel; these take a few seconds and put more tile edges
// into the sweep's shapes. 'auto' runs the tuned CPU tiles, GPUs the derived ones. A variant
// runs its own.
KernelOptions test_overrides(const std::string& kernel) {
  if (const KernelVariant* variant = variant_named(kernel)) return variant->overrides;
  if (kernel != "blocked" || shared_context().device().type != DeviceType::CPU) return {};
  return {{"TILE_M", 32}, {"TILE_N", 32}, {"ITEM_M", 4}, {"ITEM_N", 4},
          {"TILE_K", 8},  {"VEC", 4},     {"UNROLL", 0}};
}

RunSettings settings_for(const std::string& kernel, Precision precision) {
  RunSettings settings;
  settings.kernel = kernel_of(kernel);
  settings.precision = precision;
  settings.overrides = test_overrides(kernel);
  return settings;
}

// Runs the GEMM on copies of the inputs and returns C.
std::vector<float> run_gemm(const std::string& kernel, Precision precision, const GemmProblem& p,
                            const std::vector<float>& a, const std::vector<float>& b,
                            const std::vector<float>& c_before) {
  auto c = c_before;
  shared_context().sgemm(p, a.data(), b.data(), c.data(), settings_for(kernel, precision));
  return c;
}

// A problem with leading dimensions padded past any vector width and offsets that keep every
// operand unaligned, so that the sweep builds one variant per transpose pair.
GemmProblem padded_offset_problem(Layout layout, Transpose trans_a, Transpose trans_b,
                                  std::int64_t m, std::int64_t n, std::int64_t k, float beta) {
  GemmProblem p;
  p.layout = layout, p.trans_a = trans_a, p.trans_b = trans_b;
  p.m = m, p.n = n, p.k = k;
  p.alpha = 1.5f, p.beta = beta;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 5, p.b_offset = 3, p.c_offset = 7;
  return p;
}

// A row-major problem without transposes, padded and offset like the sweep's (so that it runs
// the sweep's NN variant), with its own alpha and beta.
GemmProblem row_major_problem(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                              float beta) {
  GemmProblem p = padded_offset_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans, m,
                                        n, k, beta);
  p.alpha = alpha;
  return p;
}

std::string hex(float x) {
  std::ostringstream out;
  out << std::hex << "0x" << bits_of(x);
  return out.str();
}

// What the mode makes of x * 1 (one product, accumulated into zero): TF32 rounds x; 3xTF32
// adds its high and low TF32 parts, which is exact in FP32 (at most 22 significant bits).
float one_product(float x, Precision precision) {
  const float high = round_to_tf32(x);
  if (precision == Precision::TF32) return high;
  return high + round_to_tf32(x - high);
}

// Normal floats that probe the rounding: the 13 dropped bits just below, at and just above
// the tie, a tie whose carry reaches the exponent, values already in TF32, and random bit
// patterns, of both signs. Exponents stay within 2^-103 .. 2^127, so that neither the low
// TF32 parts nor the products are subnormal (which a device may flush) or overflow.
std::vector<float> rounding_probes() {
  std::vector<float> out;
  const std::uint32_t low_bits[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x0800};
  for (std::uint32_t exponent : {24u, 60u, 126u, 127u, 128u, 150u, 200u, 253u})
    for (std::uint32_t high : {0x000000u, 0x2000u, 0x7fe000u, 0x400000u, 0x55a000u})
      for (std::uint32_t low : low_bits)
        for (std::uint32_t sign : {0u, 0x80000000u})
          out.push_back(float_of(sign | exponent << 23 | high | low));
  std::mt19937 generator(7);
  std::uniform_int_distribution<std::uint32_t> exponent(24, 253), mantissa(0, 0x7fffff);
  while (out.size() < 2048)
    out.push_back(
        float_of((generator() & 0x80000000u) | exponent(generator) << 23 | mantissa(generator)));
  return out;
}

// The errors of C relative to the magnitudes of the products, |c - exact| / sum_k |a_ik b_kj|,
// over a row-major problem with alpha = 1 and beta = 0: their maximum and root mean square.
struct RelativeErrors {
  double worst = 0, rms = 0;
};

RelativeErrors relative_errors(const GemmProblem& p, const std::vector<float>& a,
                               const std::vector<float>& b, const std::vector<float>& c) {
  RelativeErrors errors;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      double exact = 0, magnitude = 0;
      for (std::int64_t k = 0; k < p.k; ++k) {
        const double product = double(a[p.a_offset + std::size_t(i * p.lda + k)]) *
                               double(b[p.b_offset + std::size_t(k * p.ldb + j)]);
        exact += product;
        magnitude += std::fabs(product);
      }
      const double error = std::fabs(double(c[p.c_index(i, j)]) - exact) / magnitude;
      errors.worst = std::max(errors.worst, error);
      errors.rms += error * error;
    }
  errors.rms = std::sqrt(errors.rms / double(p.m * p.n));
  return errors;
}

// --- Every kernel that computes a reduced precision --------------------------------------

struct Case {
  std::string kernel;
  Precision precision;
};

std::string name_of(const Case& c) {
  return c.kernel + "_" + precision_name(c.precision);
}

std::vector<Case> reduced_precision_cases(const std::vector<Precision>& precisions) {
  std::vector<Case> cases;
  for (Precision precision : precisions)
    for (const auto& kernel : kernels_computing(precision)) cases.push_back({kernel, precision});
  return cases;
}

// The shapes: tall, wide, thin and single elements, multiples of no tile.
struct Shape {
  std::int64_t m, n, k;
};
const Shape kShapes[] = {{1, 1, 1},     {17, 33, 9},  {65, 7, 130},
                         {128, 1, 300}, {1, 257, 31}, {300, 40, 3}};

struct SweepCase {
  Case run;
  Transpose trans_a, trans_b;
};

class Sweep : public ::testing::TestWithParam<SweepCase> {
 protected:
  void SetUp() override {
    if (const auto why = why_not_here(GetParam().run.kernel); !why.empty()) GTEST_SKIP() << why;
  }
};

// Each shape in both layouts, with beta = 0 (C filled with NaN, which must not be read) and
// beta != 0, against the double reference within the mode's bound.
TEST_P(Sweep, MatchesReferenceWithinTheModesBound) {
  const auto& [run, trans_a, trans_b] = GetParam();
  unsigned seed = 100;
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (const Shape& s : kShapes)
      for (float beta : {0.0f, -0.75f}) {
        const GemmProblem p = padded_offset_problem(layout, trans_a, trans_b, s.m, s.n, s.k, beta);
        const auto a = random_matrix(p.a_elements(), ++seed);
        const auto b = random_matrix(p.b_elements(), ++seed);
        auto c_before = random_matrix(p.c_elements(), ++seed);
        if (beta == 0.0f)
          for (std::int64_t i = 0; i < p.m; ++i)
            for (std::int64_t j = 0; j < p.n; ++j)
              c_before[p.c_index(i, j)] = std::numeric_limits<float>::quiet_NaN();
        const auto c = run_gemm(run.kernel, run.precision, p, a, b, c_before);
        const auto result =
            verify_gemm(p, a.data(), b.data(), c_before.data(), c.data(), 2e9, 64, run.precision);
        EXPECT_TRUE(result.passed)
            << (layout == Layout::RowMajor ? "row-major " : "column-major ") << s.m << "x" << s.n
            << "x" << s.k << ", beta " << beta << ": " << result.failures
            << " failures, first: " << result.first_failure;
      }
}

// wgmma reading A as stored loads each row's pair of columns with one 8-byte load where A's
// rows are K-contiguous and start 8-byte aligned, in tiles all inside M and slices all inside
// K; the sweep's padded, offset operands never are. Here they are, in both layouts and
// transposes of A, beside edge tiles (300 rows of 128-row tiles) and a last partial slice.
TEST(WgmmaStoredA, AlignedRowsOfAMatchTheReference) {
  if (const auto why = why_not_here("wgmma_stored_a"); !why.empty()) GTEST_SKIP() << why;
  unsigned seed = 500;
  for (Precision precision : kReducedPrecisions)
    for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
      for (Transpose trans_a : {Transpose::NoTrans, Transpose::Trans})
        for (std::int64_t offset : {0, 6}) {
          GemmProblem p = GemmProblem::packed(300, 200, 264, 1.25f, 0.5f);
          p.layout = layout, p.trans_a = trans_a, p.trans_b = Transpose::Trans;
          p.lda = p.min_lda() + 2, p.ldb = p.min_ldb(), p.ldc = p.min_ldc();
          p.a_offset = std::size_t(offset);
          const auto a = random_matrix(p.a_elements(), ++seed);
          const auto b = random_matrix(p.b_elements(), ++seed);
          const auto c_before = random_matrix(p.c_elements(), ++seed);
          const auto c = run_gemm("wgmma_stored_a", precision, p, a, b, c_before);
          const auto result =
              verify_gemm(p, a.data(), b.data(), c_before.data(), c.data(), 2e9, 64, precision);
          EXPECT_TRUE(result.passed)
              << precision_name(precision) << (layout == Layout::RowMajor ? " row" : " column")
              << "-major, A " << (trans_a == Transpose::Trans ? "transposed" : "as is")
              << ", offset " << offset << ": " << result.failures
              << " failures, first: " << result.first_failure;
        }
}

// Every kernel with all four transpose pairs, except 'auto' with NN and TT only: what it runs
// is one of the others (tensorcore where the device has tensor cores, else blocked with the
// tuned parameters), and those two pairs take both loading paths of each operand. On the
// 2-core PoCL machine each pair of the tuned CPU tiles costs about 18 s to build and run cold.
std::vector<SweepCase> sweep_cases() {
  std::vector<SweepCase> cases;
  for (const Case& run : reduced_precision_cases({Precision::TF32, Precision::TF32x3}))
    for (Transpose trans_a : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose trans_b : {Transpose::NoTrans, Transpose::Trans})
        if (run.kernel != "auto" || trans_a == trans_b) cases.push_back({run, trans_a, trans_b});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Sweep, ::testing::ValuesIn(sweep_cases()), [](const auto& info) {
  const SweepCase& c = info.param;
  return name_of(c.run) + "_" + (c.trans_a == Transpose::Trans ? "T" : "N") +
         (c.trans_b == Transpose::Trans ? "T" : "N");
});

class Rounding : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const auto why = why_not_here(GetParam().kernel); !why.empty()) GTEST_SKIP() << why;
  }
};

// With K = 1 and the other operand 1, each element of C is one exact product: the device
// must give exactly what round_to_tf32 gives (TF32) or high + low (3xTF32), bit for bit, for
// values in A and for values in B.
TEST_P(Rounding, SingleProductsAreBitExact) {
  const auto& [kernel, precision] = GetParam();
  const auto probes = rounding_probes();
  const auto count = std::int64_t(probes.size());
  for (bool probes_in_a : {true, false}) {
    const GemmProblem p = probes_in_a ? row_major_problem(count, 1, 1, 1.0f, 0.0f)
                                      : row_major_problem(1, count, 1, 1.0f, 0.0f);
    std::vector<float> a(p.a_elements(), 1.0f), b(p.b_elements(), 1.0f);
    for (std::int64_t i = 0; i < count; ++i) {
      if (probes_in_a)
        a[p.a_offset + std::size_t(i * p.lda)] = probes[std::size_t(i)];
      else
        b[p.b_offset + std::size_t(i)] = probes[std::size_t(i)];
    }
    const std::vector<float> c_before(p.c_elements(), 0.0f);
    const auto c = run_gemm(kernel, precision, p, a, b, c_before);
    int wrong = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      const float x = probes[std::size_t(i)];
      const float got = c[probes_in_a ? p.c_index(i, 0) : p.c_index(0, i)];
      const float expected = one_product(x, precision);
      if (bits_of(got) != bits_of(expected) && wrong++ < 5)
        ADD_FAILURE() << (probes_in_a ? "A" : "B") << " = " << x << " (" << hex(x) << "): got "
                      << got << " (" << hex(got) << "), expected " << expected << " ("
                      << hex(expected) << ")";
    }
    EXPECT_EQ(wrong, 0) << "of " << count << " values in " << (probes_in_a ? "A" : "B");
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Rounding,
                         ::testing::ValuesIn(reduced_precision_cases({Precision::TF32,
                                                                      Precision::TF32x3})),
                         [](const auto& info) { return name_of(info.param); });

class TF32 : public Rounding {};

// The device's TF32 result is the FP32-accurate product of the TF32-rounded operands: it
// passes the FP32 bound against a double reference built from round_to_tf32(A) and
// round_to_tf32(B).
TEST_P(TF32, MatchesFP32ReferenceOfRoundedOperands) {
  const auto& [kernel, precision] = GetParam();
  for (const Shape& s : {Shape{67, 45, 93}, Shape{64, 64, 256}}) {
    const GemmProblem p = row_major_problem(s.m, s.n, s.k, 1.5f, -0.75f);
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    const auto c_before = random_matrix(p.c_elements(), 3);
    const auto c = run_gemm(kernel, precision, p, a, b, c_before);
    auto a_rounded = a, b_rounded = b;
    for (float& x : a_rounded) x = round_to_tf32(x);
    for (float& x : b_rounded) x = round_to_tf32(x);
    const auto result = verify_gemm(p, a_rounded.data(), b_rounded.data(), c_before.data(),
                                    c.data(), 2e9, 64, Precision::FP32);
    EXPECT_TRUE(result.passed) << s.m << "x" << s.n << "x" << s.k << ": " << result.failures
                               << " failures, first: " << result.first_failure;
  }
}

// With random inputs and K >= 64, TF32 moves results further from FP32's than FP32's own
// bound allows: proof that the operands were rounded.
TEST_P(TF32, DiffersFromFP32BeyondTheFP32Bound) {
  const auto& [kernel, precision] = GetParam();
  const GemmProblem p = row_major_problem(64, 64, 256, 1.0f, 0.0f);
  const auto a = random_matrix(p.a_elements(), 4), b = random_matrix(p.b_elements(), 5);
  const std::vector<float> c_before(p.c_elements(), 0.0f);
  const auto tf32 = run_gemm(kernel, precision, p, a, b, c_before);
  const auto fp32 = run_gemm("auto", Precision::FP32, p, a, b, c_before);
  const double gamma = gemm_error_bound(p.k, Precision::FP32);
  std::int64_t beyond = 0;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      double magnitude = 0;
      for (std::int64_t k = 0; k < p.k; ++k)
        magnitude += std::fabs(double(a[p.a_offset + std::size_t(i * p.lda + k)]) *
                               double(b[p.b_offset + std::size_t(k * p.ldb + j)]));
      const std::size_t index = p.c_index(i, j);
      if (std::fabs(double(tf32[index]) - double(fp32[index])) > gamma * magnitude) ++beyond;
    }
  EXPECT_GT(beyond, 0) << "TF32 and FP32 agree within the FP32 bound everywhere";
}

INSTANTIATE_TEST_SUITE_P(Kernels, TF32,
                         ::testing::ValuesIn(reduced_precision_cases({Precision::TF32})),
                         [](const auto& info) { return name_of(info.param); });

// The accuracy of each mode on one kernel, from the errors relative to the magnitudes of the
// products; FP32 from the same kernel, or from 'auto' for a kernel without FP32. The worst and
// the root-mean-square error of 3xTF32 must be within 2x of FP32's, TF32's at least 10x FP32's.
// In a host emulation of blocked's order of operations over 40 seeds, 3xTF32's worst error was
// 0.8x to 1.3x FP32's and TF32's at least 119x (with the cross terms added to the accumulator
// one by one, three roundings per step, it had reached 3.0x).
class Accuracy : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const auto why = why_not_here(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(Accuracy, ThreeTF32IsAsAccurateAsFP32AndTF32IsNot) {
  const std::string& kernel = GetParam();
  const std::string fp32_kernel =
      kernel == "auto" || find_kernel(kernel_of(kernel)).computes(Precision::FP32) ? kernel
                                                                                   : "auto";
  for (std::int64_t k : {256, 2048}) {
    const GemmProblem p = row_major_problem(64, 64, k, 1.0f, 0.0f);
    const auto a = random_matrix(p.a_elements(), unsigned(k));
    const auto b = random_matrix(p.b_elements(), unsigned(k) + 1);
    const std::vector<float> c_before(p.c_elements(), 0.0f);
    auto errors_of = [&](const std::string& name, Precision precision) {
      return relative_errors(p, a, b, run_gemm(name, precision, p, a, b, c_before));
    };
    const auto fp32 = errors_of(fp32_kernel, Precision::FP32);
    const auto tf32x3 = errors_of(kernel, Precision::TF32x3);
    const auto tf32 = errors_of(kernel, Precision::TF32);
    auto eps = [](double error) { return std::to_string(error / FLT_EPSILON); };
    const std::string errors = "K = " + std::to_string(k) +
                               ", errors in FLT_EPSILON (worst, rms):" + " fp32 (" + fp32_kernel +
                               ") " + eps(fp32.worst) + ", " + eps(fp32.rms) + "; 3xtf32 " +
                               eps(tf32x3.worst) + ", " + eps(tf32x3.rms) + "; tf32 " +
                               eps(tf32.worst) + ", " + eps(tf32.rms);
    EXPECT_LE(tf32x3.worst, 2 * fp32.worst) << errors;
    EXPECT_LE(tf32x3.rms, 2 * fp32.rms) << errors;
    EXPECT_GE(tf32.worst, 10 * fp32.worst) << errors;
    EXPECT_GE(tf32.rms, 10 * fp32.rms) << errors;
    RecordProperty("errors_k" + std::to_string(k), errors);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Accuracy, ::testing::ValuesIn([] {
                           // The kernels that compute both TF32 modes.
                           std::vector<std::string> names;
                           for (const auto& name : kernels_computing(Precision::TF32))
                             if (name == "auto" ||
                                 find_kernel(kernel_of(name)).computes(Precision::TF32x3))
                               names.push_back(name);
                           return names;
                         }()),
                         [](const auto& info) { return info.param; });

// --- Errors, timing records and the choice of 'auto' --------------------------------------

// Expects `settings` to fail with UnsupportedPrecision, its message holding every one of
// `needles`, and C untouched.
void expect_unsupported(const RunSettings& settings, const std::vector<std::string>& needles) {
  const GemmProblem p = row_major_problem(9, 7, 5, 1.0f, 0.5f);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  const auto c_before = random_matrix(p.c_elements(), 3);
  auto c = c_before;
  const std::string what =
      "kernel '" + settings.kernel + "' in " + precision_name(settings.precision);
  try {
    shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    ADD_FAILURE() << what << " succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::UnsupportedPrecision) << what << ": " << error.what();
    for (const auto& needle : needles)
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos)
          << what << ": '" << needle << "' missing from: " << error.what();
  }
  EXPECT_EQ(std::memcmp(c.data(), c_before.data(), c.size() * sizeof(float)), 0)
      << what << ": C was modified by a failed call";
}

// The ladder computes FP32 only: asked for TF32 or 3xTF32 it refuses, naming itself and the
// kernel that computes every precision, before building anything.
TEST(Errors, FP32OnlyKernelsRefuseReducedPrecision) {
  int refused = 0;
  for (const auto& kernel : kernel_catalog()) {
    for (Precision precision : kReducedPrecisions) {
      if (kernel.computes(precision)) continue;
      RunSettings settings;
      settings.kernel = kernel.name;
      settings.precision = precision;
      expect_unsupported(settings, {"'" + kernel.name + "'", precision_name(precision), "auto"});
      ++refused;
    }
  }
  EXPECT_GE(refused, 2 * 6) << "the six ladder kernels compute FP32 only";
  try {
    shared_context().build("tile", {}, Precision::TF32);
    ADD_FAILURE() << "building 'tile' for tf32 succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::UnsupportedPrecision) << error.what();
  }
}

// The tensor-core kernels compute no FP32, on any device.
TEST(Errors, TensorCoreKernelsRefuseFP32) {
  int refused = 0;
  for (const auto& kernel : kernel_catalog()) {
    if (kernel.computes(Precision::FP32)) continue;
    RunSettings settings;
    settings.kernel = kernel.name;
    expect_unsupported(settings, {"'" + kernel.name + "'", "fp32"});
    ++refused;
  }
  EXPECT_GE(refused, 1) << "tensorcore computes TF32 modes only";
}

// On a device without tensor cores, the kernels that need them refuse, saying why and what
// computes the precision instead.
TEST(Errors, TensorCoreKernelsNeedTensorCores) {
  if (shared_context().has_tensor_cores())
    GTEST_SKIP() << "'" << shared_context().device().name << "' has tensor cores";
  for (const auto& kernel : kernel_catalog()) {
    if (!kernel.needs_tensor_cores) continue;
    for (Precision precision : kReducedPrecisions) {
      RunSettings settings;
      settings.kernel = kernel.name;
      settings.precision = precision;
      expect_unsupported(settings, {"'" + kernel.name + "'", "needs tensor cores",
                                    shared_context().device().name, "'blocked'"});
    }
  }
}

// GemmRecord says which precision ran and how; 'auto' runs tensorcore for the TF32 modes
// exactly where the device has tensor cores, and never for FP32. The product is small but at
// least 64 wide on both sides: narrower small TF32 calls leave the tensor cores where the device
// runs wgmma (kSmallTilesMinSide), wider ones run tensorcore's small tiles.
TEST(Timing, PrecisionPathSaysHowTheProductsWereComputed) {
  const bool tensor_cores = shared_context().has_tensor_cores();
  const GemmProblem p = row_major_problem(65, 97, 9, 1.0f, 0.0f);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  std::vector<float> c(p.c_elements(), 0.0f);
  auto run = [&](const std::string& kernel, Precision precision) {
    return shared_context().sgemm(p, a.data(), b.data(), c.data(), settings_for(kernel, precision));
  };
  const auto fp32 = run("auto", Precision::FP32);
  EXPECT_EQ(fp32.precision, Precision::FP32);
  EXPECT_EQ(fp32.precision_path, "fp32");
  EXPECT_FALSE(find_kernel(fp32.kernel).needs_tensor_cores) << fp32.kernel;
  for (Precision precision : kReducedPrecisions) {
    const auto portable = run("blocked", precision);
    EXPECT_EQ(portable.precision, precision);
    EXPECT_EQ(portable.precision_path.rfind("portable", 0), 0u) << portable.precision_path;
    const auto chosen = run("auto", precision);
    EXPECT_EQ(chosen.precision, precision);
    // On tensor cores, the tensor-core kernel the tuning database prefers (tensorcore, or
    // wgmma where the device runs it); elsewhere the portable path.
    if (tensor_cores)
      EXPECT_TRUE(find_kernel(chosen.kernel).needs_tensor_cores) << chosen.kernel_choice;
    else
      EXPECT_EQ(chosen.kernel, "blocked") << chosen.kernel_choice;
    EXPECT_EQ(chosen.precision_path.rfind(tensor_cores ? "tensor cores" : "portable", 0), 0u)
        << chosen.precision_path;
    if (tensor_cores) {
      const auto tensor = run("tensorcore", precision);
      EXPECT_EQ(tensor.precision_path.rfind("tensor cores", 0), 0u) << tensor.precision_path;
    }
  }
}

// A device that reports an NVIDIA compute capability of 8.0 or newer has tensor cores: the
// probe must find them, or the tensor-core tests above would skip themselves unnoticed.
TEST(TensorCores, FoundWhereTheDeviceHasThem) {
  const auto& device = shared_context().device();
  if (device.compute_capability < 80)
    GTEST_SKIP() << "'" << device.name << "' reports no compute capability of 8.0 or newer";
  if (shared_context().has_tensor_cores()) return;
  try {
    shared_context().build("tensorcore", {}, Precision::TF32);  // throws, saying why
    ADD_FAILURE() << "no tensor cores, yet tensorcore was built";
  } catch (const Error& error) {
    ADD_FAILURE() << "compute capability " << device.compute_capability
                  << " but no tensor cores: " << error.what();
  }
}

// An NVIDIA device of compute capability 9.0 runs wgmma: the probe must pass there, or the
// wgmma tests above would skip themselves unnoticed. Elsewhere 'wgmma' refuses, saying why.
TEST(Wgmma, FoundWhereTheDeviceRunsIt) {
  const auto& device = shared_context().device();
  if (device.compute_capability == 90 && device.vendor.find("NVIDIA") != std::string::npos) {
    if (shared_context().has_wgmma()) return;
    try {
      shared_context().build("wgmma", {}, Precision::TF32);  // throws, saying why
      ADD_FAILURE() << "no wgmma, yet the wgmma kernel was built";
    } catch (const Error& error) {
      ADD_FAILURE() << "compute capability 9.0 but no wgmma: " << error.what();
    }
    return;
  }
  EXPECT_FALSE(shared_context().has_wgmma());
  try {
    shared_context().build("wgmma", {}, Precision::TF32);
    ADD_FAILURE() << "the wgmma kernel was built on '" << device.name << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::UnsupportedPrecision) << error.what();
    EXPECT_NE(std::string(error.what()).find("'wgmma'"), std::string::npos) << error.what();
  }
}

// The reduced precisions through batches and the epilogue: a strided batch with a bias per
// product and GELU, and a product table with a clamp, on every kernel computing the precision
// (the tensor-core kernel's store applies the epilogue to its fragments).
class ReducedBatched : public ::testing::TestWithParam<Case> {};

TEST_P(ReducedBatched, BatchesAndEpiloguesMatchTheReference) {
  const std::string& kernel = GetParam().kernel;
  const Precision precision = GetParam().precision;
  if (const auto why = why_not_here(kernel); !why.empty()) GTEST_SKIP() << why;
  const auto bias = random_matrix(400, 31);
  GemmProblem strided = GemmProblem::packed_batch(67, 45, 129, 5, 1.25f, -0.5f);
  strided.stride_c += 3;
  strided.epilogue.bias = Bias::PerColumn;
  strided.epilogue.bias_data = bias.data();
  strided.epilogue.bias_stride = 50;
  strided.epilogue.activation = Activation::GELU;
  GemmProblem table = GemmProblem::packed(33, 70, 40);
  table.layout = Layout::ColumnMajor;
  table.ldc = 40;
  table.batch = 2;
  const std::vector<BatchProduct> entries = {{0, 2800, 2800, 1.5f, 0.0f},
                                             {1400, 0, 0, -1.0f, 2.0f}};
  table.products.host = entries.data();
  table.epilogue.bias = Bias::PerRow;
  table.epilogue.bias_data = bias.data();
  table.epilogue.activation = Activation::Clamp;
  table.epilogue.clamp_low = -1.0f, table.epilogue.clamp_high = 2.0f;
  for (const GemmProblem& p : {strided, table}) {
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    auto c = random_matrix(p.c_elements(), 3);
    const auto before = c;
    const RunSettings settings = settings_for(kernel, precision);
    const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    const auto result =
        verify_gemm(p, a.data(), b.data(), before.data(), c.data(), 2e9, 64, precision);
    EXPECT_TRUE(result.passed) << record.kernel << " (" << record.precision_path << ") "
                               << record.epilogue << ": " << result.first_failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ReducedBatched,
                         ::testing::ValuesIn(reduced_precision_cases({Precision::TF32,
                                                                      Precision::TF32x3})),
                         [](const auto& info) { return name_of(info.param); });

// --- The host rounding itself --------------------------------------------------------------

// round_to_tf32 against a rounding written from its definition (the nearest multiple of the
// TF32 ulp of x, halfway cases away from zero, beyond FLT_MAX infinity), on special values and
// a million random bit patterns.
TEST(HostRounding, FollowsTheDefinitionBitForBit) {
  auto defined = [](float x) -> float {
    if (std::isnan(x) || std::isinf(x)) return x;
    const int exponent = x == 0.0f ? -126 : std::max(std::ilogb(x), -126);
    const double ulp = std::ldexp(1.0, exponent - 10);
    const double rounded = std::round(double(x) / ulp) * ulp;  // halfway: away from zero
    if (std::fabs(rounded) > double(FLT_MAX)) return std::copysign(INFINITY, x);
    return float(rounded);
  };
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               1.0f + std::ldexp(1.0f, -11),  // a tie: rounds up to 1 + 2^-10
                               1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -23),
                               -(1.0f + std::ldexp(1.0f, -11)),
                               FLT_MAX,
                               -FLT_MAX,
                               FLT_MIN,
                               std::ldexp(1.0f, -149),
                               std::ldexp(1.0f, -137),  // denormal tie
                               INFINITY,
                               -INFINITY};
  std::mt19937 generator(3);
  for (int i = 0; i < 1000000; ++i) values.push_back(float_of(generator()));
  int wrong = 0;
  for (float x : values) {
    if (std::isnan(x)) {
      EXPECT_EQ(bits_of(round_to_tf32(x)), bits_of(x)) << "NaN " << hex(x) << " must pass";
      continue;
    }
    if (bits_of(round_to_tf32(x)) != bits_of(defined(x)) && wrong++ < 5)
      ADD_FAILURE() << x << " (" << hex(x) << "): round_to_tf32 gives " << hex(round_to_tf32(x))
                    << ", the definition " << hex(defined(x));
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(round_to_tf32(1.0f + std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(round_to_tf32(-(1.0f + std::ldexp(1.0f, -11))), -(1.0f + std::ldexp(1.0f, -10)));
  EXPECT_EQ(round_to_tf32(FLT_MAX), INFINITY);
  EXPECT_TRUE(std::signbit(round_to_tf32(-0.0f)));
  EXPECT_TRUE(std::isnan(round_to_tf32(NAN)));
}

}  // namespace
}  // namespace clgemm::testing
