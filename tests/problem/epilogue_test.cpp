// The fused epilogue C = act(alpha * A * B + beta * C + bias) against the double reference:
// every FP32 kernel with each bias and activation, each activation at values around its
// kinks and on NaN and infinities, batches with a bias per product, split-K (the reduction
// applies it), alpha = 0 and K = 0 (scale_c applies it), the buffer path, and each bad
// epilogue argument with C left as it was.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <tuple>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

Epilogue epilogue(Bias bias, Activation activation, const std::vector<float>& vector,
                  float low = -0.5f, float high = 0.75f) {
  Epilogue e;
  e.bias = bias;
  e.bias_data = bias == Bias::None ? nullptr : vector.data();
  e.bias_offset = bias == Bias::None ? 0 : 3;
  e.activation = activation;
  e.clamp_low = low, e.clamp_high = high;
  return e;
}

GemmProblem padded(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout) {
  GemmProblem p;
  p.layout = layout;
  p.m = m, p.n = n, p.k = k;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 4, p.b_offset = 8, p.c_offset = 3;
  return p;
}

void expect_passes(const std::string& kernel, const GemmProblem& p, const std::string& what,
                   const KernelOptions& overrides = {}) {
  const auto result = run_and_verify(kernel, p, overrides);
  EXPECT_TRUE(result.passed) << kernel << " " << what << ": " << result.failures
                             << " failures, first: " << result.first_failure;
}

// blocked without full unrolling: the same code, compiled several times faster on CPUs, as
// each epilogue is a program of its own.
KernelOptions compile_quickly(const std::string& kernel) {
  return kernel == "blocked" ? KernelOptions{{"UNROLL", 0}} : KernelOptions{};
}

class EpilogueKernel : public ::testing::TestWithParam<std::string> {};

// Each bias with a different activation, in both layouts, on a shape that is no tile's
// multiple (and, for gemv, in its GEMV-like regime).
TEST_P(EpilogueKernel, BiasAndActivations) {
  const std::string& kernel = GetParam();
  const bool gemv = kernel == "gemv";
  const std::vector<float> bias = random_matrix(400, 21);
  const struct {
    Bias bias;
    Activation activation;
    Layout layout;
  } variants[] = {{Bias::PerRow, Activation::GELU, Layout::RowMajor},
                  {Bias::PerColumn, Activation::ReLU, Layout::ColumnMajor},
                  {Bias::None, Activation::Clamp, Layout::RowMajor},
                  {Bias::PerColumn, Activation::None, Layout::RowMajor}};
  for (const auto& v : variants) {
    GemmProblem p = gemv ? padded(3, 300, 260, v.layout) : padded(37, 29, 45, v.layout);
    p.epilogue = epilogue(v.bias, v.activation, bias);
    expect_passes(
        kernel, p,
        describe_epilogue(p.epilogue) + (v.layout == Layout::ColumnMajor ? " column-major" : ""),
        compile_quickly(kernel));
  }
}

INSTANTIATE_TEST_SUITE_P(Epilogue, EpilogueKernel, ::testing::ValuesIn(fp32_kernel_names()),
                         [](const auto& info) { return info.param; });

// C = act(a_i * 1) for values a_i around each activation's kinks and beyond: K = 1 and B = 1,
// so each element before the activation is exactly a value of the list.
TEST(Epilogue, ActivationsAtTheirKinksAndOnNaNAndInfinities) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> values = {0.0f,   -0.0f,  tiny,      -tiny,  1e-30f,   -1e-30f, 1e-4f,
                                     -1e-4f, -0.5f,  -0.50001f, 0.75f,  0.75001f, 1.0f,    -1.0f,
                                     3.0f,   -3.0f,  -9.0f,     -10.5f, 9.0f,     40.0f,   -40.0f,
                                     3e38f,  -3e38f, kInf,      -kInf,  kNaN};
  for (Activation activation : {Activation::ReLU, Activation::GELU, Activation::Clamp}) {
    for (Bias bias : {Bias::None, Bias::PerRow}) {
      GemmProblem p = GemmProblem::packed(std::int64_t(values.size()), 1, 1);
      const std::vector<float> zeros(values.size() + 3, 0.0f);
      p.epilogue = epilogue(bias, activation, zeros);
      const std::vector<float> one = {1.0f};
      std::vector<float> c(values.size(), 5.0f);
      const auto before = c;
      RunSettings settings;
      settings.kernel = "base";
      shared_context().sgemm(p, values.data(), one.data(), c.data(), settings);
      const auto result = verify_gemm(p, values.data(), one.data(), before.data(), c.data());
      EXPECT_TRUE(result.passed) << activation_name(activation) << ": " << result.first_failure;
      // The exact answers the header promises.
      if (activation == Activation::GELU) {
        EXPECT_EQ(c[values.size() - 3], kInf);
        EXPECT_EQ(c[values.size() - 2], 0.0f);
        EXPECT_TRUE(std::signbit(c[values.size() - 2]));
      }
      if (activation == Activation::Clamp) {
        EXPECT_EQ(c[values.size() - 3], 0.75f);
        EXPECT_EQ(c[values.size() - 2], -0.5f);
      }
      EXPECT_TRUE(std::isnan(c.back())) << activation_name(activation) << " lost a NaN";
    }
  }
}

TEST(Epilogue, BatchesAddEachProductsBias) {
  const std::vector<float> bias = random_matrix(200, 22);
  GemmProblem p = padded(13, 17, 19, Layout::RowMajor);
  p.batch = 4;
  p.stride_a = std::int64_t(p.a_extent()), p.stride_b = std::int64_t(p.b_extent());
  p.stride_c = std::int64_t(p.c_extent()) + 1;
  p.epilogue = epilogue(Bias::PerColumn, Activation::GELU, bias);
  p.epilogue.bias_stride = 20;
  expect_passes("auto", p, "strided, a bias per product");
  p.epilogue.bias_stride = 0;
  expect_passes("tile", p, "strided, one shared bias");
}

TEST(Epilogue, SplitKReductionAppliesIt) {
  const std::vector<float> bias = random_matrix(100, 23);
  GemmProblem p = padded(33, 41, 3000, Layout::ColumnMajor);
  p.epilogue = epilogue(Bias::PerRow, Activation::ReLU, bias);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  auto c = random_matrix(p.c_elements(), 3);
  const auto before = c;
  RunSettings settings;
  settings.kernel = "blocked";
  settings.overrides = {{"SPLIT_K", 3}, {"TILE_K", 16}, {"UNROLL", 0}};
  const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
  EXPECT_EQ(record.split_k, 3);
  EXPECT_EQ(record.epilogue, "per-row bias, relu");
  const auto result = verify_gemm(p, a.data(), b.data(), before.data(), c.data());
  EXPECT_TRUE(result.passed) << result.first_failure;
}

// alpha = 0 and K = 0: C = act(beta * C + bias) without reading A or B (NaN there), and with
// beta = 0 without reading C (NaN there).
TEST(Epilogue, NoProductsStillApplyIt) {
  const std::vector<float> bias = random_matrix(50, 24);
  for (const bool zero_k : {false, true}) {
    for (const float beta : {0.0f, 2.0f}) {
      GemmProblem p = padded(9, 12, zero_k ? 0 : 5, Layout::RowMajor);
      p.alpha = zero_k ? 1.0f : 0.0f;
      p.beta = beta;
      p.epilogue = epilogue(Bias::PerColumn, Activation::Clamp, bias);
      const std::vector<float> a(p.a_elements() + 1, kNaN), b(p.b_elements() + 1, kNaN);
      auto c = random_matrix(p.c_elements(), 4);
      if (beta == 0.0f)
        for (std::int64_t i = 0; i < p.m; ++i)
          for (std::int64_t j = 0; j < p.n; ++j) c[p.c_index(i, j)] = kNaN;
      const auto before = c;
      const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data());
      EXPECT_EQ(record.kernel, "scale_c");
      const auto result = verify_gemm(p, a.data(), b.data(), before.data(), c.data());
      EXPECT_TRUE(result.passed) << "K = 0: " << zero_k << ", beta " << beta << ": "
                                 << result.first_failure;
    }
  }
}

TEST(Epilogue, BufferPath) {
  Context& context = shared_context();
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  GemmProblem p = padded(21, 10, 33, Layout::RowMajor);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  const auto before = random_matrix(p.c_elements(), 3);
  const auto bias = random_matrix(30, 4);
  auto buffer = [&](const std::vector<float>& data) {
    return clCreateBuffer(context.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          data.size() * sizeof(float), const_cast<float*>(data.data()), &status);
  };
  cl_mem a_mem = buffer(a), b_mem = buffer(b), c_mem = buffer(before), bias_mem = buffer(bias);
  p.epilogue.bias = Bias::PerRow;
  p.epilogue.bias_buffer = bias_mem;
  p.epilogue.bias_offset = 9;  // 9 + 21 = 30 floats: exactly enough
  p.epilogue.activation = Activation::GELU;
  RunSettings settings;
  settings.kernel = "tile";
  const auto record = context.sgemm(p, a_mem, b_mem, c_mem, queue, nullptr, settings);
  EXPECT_EQ(record.epilogue, "per-row bias, gelu");
  std::vector<float> c(before.size());
  clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr,
                      nullptr);
  GemmProblem on_host = p;
  on_host.epilogue.bias_buffer = nullptr;
  on_host.epilogue.bias_data = bias.data();
  EXPECT_TRUE(verify_gemm(on_host, a.data(), b.data(), before.data(), c.data()).passed);

  // One float short, and no vector at all: errors naming the bias; C unchanged.
  clEnqueueWriteBuffer(queue, c_mem, CL_TRUE, 0, before.size() * sizeof(float), before.data(), 0,
                       nullptr, nullptr);
  for (const auto& [bias_offset, buffer_given, code] :
       {std::tuple{std::size_t(10), true, ErrorCode::BufferTooSmall},
        std::tuple{std::size_t(0), false, ErrorCode::InvalidArgument}}) {
    GemmProblem bad = p;
    bad.epilogue.bias_offset = bias_offset;
    bad.epilogue.bias_buffer = buffer_given ? bias_mem : nullptr;
    try {
      context.sgemm(bad, a_mem, b_mem, c_mem, queue, nullptr, settings);
      ADD_FAILURE() << "a bad bias was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_EQ(e.argument(), Argument::Bias) << e.what();
    }
  }
  clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr,
                      nullptr);
  EXPECT_EQ(c, before);
  for (cl_mem m : {a_mem, b_mem, c_mem, bias_mem}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
}

TEST(Epilogue, BadArgumentsLeaveCUntouched) {
  const GemmProblem good = padded(6, 7, 8, Layout::RowMajor);
  const auto a = random_matrix(good.a_elements(), 1), b = random_matrix(good.b_elements(), 2);
  const auto before = random_matrix(good.c_elements(), 3);
  const std::vector<float> bias(20, 1.0f);
  struct Case {
    const char* what;
    std::function<void(Epilogue&)> change;
    Argument argument;
  };
  const Case cases[] = {
      {"unknown bias kind", [](Epilogue& e) { e.bias = Bias(7); }, Argument::Bias},
      {"unknown activation", [](Epilogue& e) { e.activation = Activation(9); },
       Argument::Activation},
      {"clamp low above high",
       [](Epilogue& e) {
         e.activation = Activation::Clamp;
         e.clamp_low = 1.0f, e.clamp_high = 0.0f;
       },
       Argument::Activation},
      {"clamp bound NaN",
       [](Epilogue& e) {
         e.activation = Activation::Clamp;
         e.clamp_high = kNaN;
       },
       Argument::Activation},
      {"a per-row bias without its vector", [](Epilogue& e) { e.bias = Bias::PerRow; },
       Argument::Bias},
      {"a vector without a bias kind", [&](Epilogue& e) { e.bias_data = bias.data(); },
       Argument::Bias},
      {"a negative bias stride",
       [&](Epilogue& e) {
         e.bias = Bias::PerRow;
         e.bias_data = bias.data();
         e.bias_stride = -1;
       },
       Argument::Bias},
      {"a cl_mem bias on the host path",
       [&](Epilogue& e) {
         e.bias = Bias::PerRow;
         e.bias_buffer = reinterpret_cast<cl_mem>(std::uintptr_t(64));
       },
       Argument::Bias},
  };
  for (const Case& test : cases) {
    GemmProblem p = good;
    test.change(p.epilogue);
    auto c = before;
    try {
      shared_context().sgemm(p, a.data(), b.data(), c.data());
      ADD_FAILURE() << test.what << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), test.argument) << test.what << ": " << e.what();
    }
    EXPECT_EQ(c, before) << test.what;
  }
}

}  // namespace
}  // namespace clgemm::testing
