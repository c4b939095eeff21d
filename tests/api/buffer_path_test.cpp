// The device-buffer path: the caller's cl_mem objects and queue, an event out, no host round
// trip; its checks (buffer too small, foreign queue) and a Context adopting the caller's
// cl_context.
#include <gtest/gtest.h>

#include <algorithm>

#include "clgemm/clgemm.h"
#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// A queue and buffers created with the plain OpenCL C API, as a caller would.
class BufferPath : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = shared_context().opencl_context();
    cl_int status = CL_SUCCESS;
    queue_ = clCreateCommandQueue(context_, shared_context().opencl_device(), 0, &status);
    ASSERT_EQ(status, CL_SUCCESS);
  }
  void TearDown() override {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    if (queue_) clReleaseCommandQueue(queue_);
  }

  cl_mem buffer(std::vector<float>& data, cl_mem_flags flags = CL_MEM_COPY_HOST_PTR) {
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | flags, data.size() * sizeof(float),
                              data.data(), &status);
    EXPECT_EQ(status, CL_SUCCESS);
    buffers_.push_back(m);
    return m;
  }

  std::vector<float> read(cl_mem m, std::size_t elements) {
    std::vector<float> out(elements);
    EXPECT_EQ(clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, elements * sizeof(float), out.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    return out;
  }

  // Runs `problem` on device buffers with `kernel` and checks C against the reference.
  void run_and_check(const GemmProblem& problem, const std::string& kernel) {
    auto a = random_matrix(problem.a_elements(), 21), b = random_matrix(problem.b_elements(), 22);
    auto c = random_matrix(problem.c_elements(), 23);
    const auto c_before = c;
    cl_mem a_mem = buffer(a), b_mem = buffer(b), c_mem = buffer(c);
    cl_event event = nullptr;
    RunSettings settings;
    settings.kernel = kernel;
    shared_context().sgemm(problem, a_mem, b_mem, c_mem, queue_, &event, settings);
    ASSERT_NE(event, nullptr);
    ASSERT_EQ(clWaitForEvents(1, &event), CL_SUCCESS);
    cl_int state = 0;
    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
    EXPECT_EQ(state, CL_COMPLETE);
    clReleaseEvent(event);
    const auto result = read(c_mem, c.size());
    const auto check = verify_gemm(problem, a.data(), b.data(), c_before.data(), result.data());
    EXPECT_TRUE(check.passed) << kernel << ": " << check.first_failure;
  }

  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_mem> buffers_;
};

TEST_F(BufferPath, EveryKernelWithOffsetsLayoutsAndTransposes) {
  GemmProblem p;
  p.layout = Layout::ColumnMajor;
  p.trans_a = Transpose::Trans;
  p.m = 53, p.n = 38, p.k = 71, p.alpha = 0.75f, p.beta = -2.0f;
  p.lda = p.min_lda() + 1, p.ldb = p.min_ldb() + 8, p.ldc = p.min_ldc() + 3;
  p.a_offset = 5, p.b_offset = 8, p.c_offset = 13;
  for (const auto& kernel : fp32_kernel_names()) run_and_check(p, kernel);
}

// A Context plans a GEMM once per settings and call and keeps the plan (choice/
// planned_calls.hpp): repeats run what the first call planned, while what the plan leaves out,
// alpha, beta and the buffers, is each call's own; alpha = 0 is still a call that only scales
// C, and settings that fail fail every time.
TEST_F(BufferPath, RepeatedCallsKeepTheirPlanButNotTheirScalars) {
  GemmProblem p = GemmProblem::packed(70, 45, 33);
  auto a = random_matrix(p.a_elements(), 31), b = random_matrix(p.b_elements(), 32);
  const auto c_start = random_matrix(p.c_elements(), 33);
  cl_mem a_mem = buffer(a), b_mem = buffer(b);
  auto c = c_start;
  cl_mem c_mem = buffer(c);
  const auto call = [&](float alpha, float beta, const RunSettings& settings = {}) {
    GemmProblem q = p;
    q.alpha = alpha, q.beta = beta;
    const auto before = read(c_mem, c.size());
    const GemmRecord record =
        shared_context().sgemm(q, a_mem, b_mem, c_mem, queue_, nullptr, settings);
    EXPECT_EQ(clFinish(queue_), CL_SUCCESS);
    const auto after = read(c_mem, c.size());
    const auto check = verify_gemm(q, a.data(), b.data(), before.data(), after.data());
    EXPECT_TRUE(check.passed) << "alpha " << alpha << ", beta " << beta << ": "
                              << check.first_failure;
    return record;
  };
  const GemmRecord first = call(1.5f, 0.5f);
  const GemmRecord again = call(-2.0f, 0.0f);
  EXPECT_EQ(again.kernel, first.kernel);
  EXPECT_EQ(again.kernel_choice, first.kernel_choice);
  EXPECT_EQ(again.build_options, first.build_options);
  EXPECT_EQ(again.origin, ProgramOrigin::Memory);
  // The record adds what preparing the call decided (the operands' copies) to the plan's reason.
  EXPECT_EQ(first.kernel_choice.rfind(shared_context().choose(p).reason, 0), 0u)
      << first.kernel_choice;

  // Other settings, another plan; the first settings find theirs again.
  RunSettings tile;
  tile.kernel = "tile";
  EXPECT_EQ(call(0.5f, 1.0f, tile).kernel, "tile");
  EXPECT_EQ(call(1.0f, 0.0f).kernel_choice, first.kernel_choice);

  const GemmRecord scaled = call(0.0f, 2.0f);
  EXPECT_EQ(scaled.kernel, "scale_c");
  EXPECT_NE(scaled.kernel_choice.find("alpha = 0"), std::string::npos) << scaled.kernel_choice;
  EXPECT_EQ(call(0.25f, 1.0f).kernel_choice, first.kernel_choice);

  RunSettings wrong;
  wrong.kernel = "blocked";
  wrong.overrides = {{"NO_SUCH_PARAMETER", 1}};
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      call(1.0f, 0.0f, wrong);
      ADD_FAILURE() << "attempt " << attempt << ": an unknown parameter was taken";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidOption) << error.what();
      EXPECT_NE(std::string(error.what()).find("NO_SUCH_PARAMETER"), std::string::npos);
    }
  }
}

TEST_F(BufferPath, RowMajorAlignedWithoutEvent) {
  const GemmProblem p = GemmProblem::packed(128, 96, 64, 1.0f, 0.0f);
  auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  auto c = random_matrix(p.c_elements(), 3);
  const auto c_before = c;
  cl_mem c_mem = buffer(c);
  shared_context().sgemm(p, buffer(a), buffer(b), c_mem, queue_);
  const auto result = read(c_mem, c.size());  // the in-order queue runs the kernel first
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), result.data()).passed);
}

// CL_MEM_USE_HOST_PTR at an address only float-aligned: the vector kernel must not assume
// the device's base alignment for it.
TEST_F(BufferPath, UnalignedHostPointerBuffers) {
  const GemmProblem p = GemmProblem::packed(64, 64, 64, 1.0f, 0.0f);
  std::vector<float> a_storage(p.a_elements() + 1), b_storage(p.b_elements() + 1);
  auto a = random_matrix(p.a_elements(), 4), b = random_matrix(p.b_elements(), 5);
  std::copy(a.begin(), a.end(), a_storage.begin() + 1);
  std::copy(b.begin(), b.end(), b_storage.begin() + 1);
  cl_int status = CL_SUCCESS;
  cl_mem a_mem = clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                a.size() * sizeof(float), a_storage.data() + 1, &status);
  buffers_.push_back(a_mem);
  cl_mem b_mem = clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                b.size() * sizeof(float), b_storage.data() + 1, &status);
  buffers_.push_back(b_mem);
  std::vector<float> c(p.c_elements(), 0.0f);
  const auto c_before = c;
  cl_mem c_mem = buffer(c);
  RunSettings settings;
  settings.kernel = "vectorized";
  shared_context().sgemm(p, a_mem, b_mem, c_mem, queue_, nullptr, settings);
  const auto result = read(c_mem, c.size());
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), result.data()).passed);
}

TEST_F(BufferPath, BufferTooSmallIsDistinctFromLeadingDimension) {
  GemmProblem p = GemmProblem::packed(16, 16, 16);
  std::vector<float> a(p.a_elements()), b(p.b_elements() - 1), c(p.c_elements(), 5.0f);
  cl_mem c_mem = buffer(c);
  try {
    shared_context().sgemm(p, buffer(a), buffer(b), c_mem, queue_);
    FAIL() << "a short B was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BufferTooSmall);
    EXPECT_EQ(e.argument(), Argument::B);
  }
  EXPECT_EQ(read(c_mem, c.size()), c) << "C changed although nothing should have run";
  p.ldb = 15;
  try {
    shared_context().sgemm(p, buffer(a), buffer(b), c_mem, queue_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidLeadingDimension);
    EXPECT_EQ(e.argument(), Argument::Ldb);
  }
}

TEST_F(BufferPath, QueueOfAnotherContextIsRefused) {
  cl_int status = CL_SUCCESS;
  cl_device_id device = shared_context().opencl_device();
  cl_context other = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_command_queue foreign = clCreateCommandQueue(other, device, 0, &status);
  std::vector<float> x(64);
  try {
    shared_context().sgemm(GemmProblem::packed(4, 4, 4), buffer(x), buffer(x), buffer(x), foreign);
    ADD_FAILURE() << "a queue of another context was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), Argument::Queue);
  }
  clReleaseCommandQueue(foreign);
  clReleaseContext(other);
}

// A program that owns its OpenCL context hands it to clgemm, which retains it.
TEST(BufferPathAdopted, ContextFromTheCallersObjects) {
  cl_device_id device = shared_context().opencl_device();
  cl_int status = CL_SUCCESS;
  cl_context own = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  {
    Context adopted(own, device);
    EXPECT_EQ(adopted.opencl_context(), own);
    const GemmProblem p = GemmProblem::packed(33, 17, 9, 2.0f, 1.0f);
    auto a = random_matrix(p.a_elements(), 7), b = random_matrix(p.b_elements(), 8);
    auto c = random_matrix(p.c_elements(), 9);
    const auto c_before = c;
    adopted.sgemm(p, a.data(), b.data(), c.data());
    EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), c.data()).passed);
  }
  EXPECT_EQ(clReleaseContext(own), CL_SUCCESS);  // still ours to release
}

// C sharing elements with A, B or the bias on one memory object (sub-buffers of one parent
// included, across every product) is refused before anything is enqueued, naming both, with C
// untouched; matrices of one buffer that share no element (side by side, or interleaved in
// alternate columns) still run. Before, such a call ran and gave a wrong C.
TEST_F(BufferPath, OutputOverlappingAnInputIsRefused) {
  const GemmProblem p = GemmProblem::packed(4, 4, 4, 1.0f, 0.0f);  // 16 floats a matrix
  // Sub-buffers start at multiples of the device's base address alignment (in floats here).
  cl_uint align_bits = 0;
  clGetDeviceInfo(shared_context().opencl_device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                  sizeof align_bits, &align_bits, nullptr);
  const std::size_t step = std::max<std::size_t>(align_bits / 8 / sizeof(float), 64);
  std::vector<float> whole = random_matrix(4 * step, 31);
  cl_mem parent = buffer(whole);
  auto sub = [&](std::size_t first_float, std::size_t floats) {
    cl_buffer_region region{first_float * sizeof(float), floats * sizeof(float)};
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                 &status);
    EXPECT_EQ(status, CL_SUCCESS);
    buffers_.push_back(m);
    return m;
  };
  std::vector<float> own_b = random_matrix(16, 32);
  cl_mem b_mem = buffer(own_b);
  auto refused = [&](const GemmProblem& problem, cl_mem a, cl_mem b, cl_mem c, const char* names) {
    try {
      shared_context().sgemm(problem, a, b, c, queue_);
      ADD_FAILURE() << names << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::OverlappingOutput) << e.what();
      EXPECT_EQ(e.argument(), Argument::C) << e.what();
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
    clFinish(queue_);
    EXPECT_EQ(read(parent, whole.size()), whole) << names;
  };
  refused(p, parent, b_mem, parent, "buffers C and A overlap");  // c == a
  refused(p, b_mem, parent, parent, "buffers C and B overlap");  // c == b
  GemmProblem a_ends_in_c = p;  // sub-buffers of one parent: A's last 8 floats are C's first
  a_ends_in_c.a_offset = step - 8;
  refused(a_ends_in_c, sub(0, step + 8), b_mem, sub(step, 16), "buffers C and A overlap");
  GemmProblem batch = GemmProblem::packed_batch(4, 4, 4, 2, 1.0f, 0.0f);  // product 1's A
  batch.stride_b = 0, batch.c_offset = 16;
  refused(batch, parent, b_mem, parent, "product 0's C and product 1's A");
  GemmProblem bias = p;  // the bias vector inside C
  bias.epilogue.bias = Bias::PerColumn, bias.epilogue.bias_buffer = parent;
  bias.epilogue.bias_offset = 50, bias.c_offset = 48;
  refused(bias, b_mem, b_mem, parent, "buffers C and bias overlap");

  // C API: the matching status.
  clgemm_context* c_context = nullptr;
  ASSERT_EQ(clgemm_context_create_from_cl(context_, shared_context().opencl_device(), &c_context),
            CLGEMM_SUCCESS);
  EXPECT_EQ(clgemm_sgemm_buffers(c_context, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 4,
                                 4, 4, 1.0f, parent, 0, 4, b_mem, 0, 4, 0.0f, parent, 8, 4, queue_,
                                 nullptr, nullptr),
            CLGEMM_OVERLAPPING_C)
      << clgemm_last_error_message();
  clgemm_context_destroy(c_context);
  EXPECT_EQ(read(parent, whole.size()), whole);

  // Side by side, and A and C interleaved in alternate columns of one 8-wide buffer: run.
  for (std::int64_t ld : {4, 8}) {
    GemmProblem apart = p;
    apart.lda = apart.ldc = ld, apart.c_offset = ld == 4 ? 16 : 4;
    const auto before = read(parent, whole.size());
    shared_context().sgemm(apart, parent, b_mem, parent, queue_);
    const auto after = read(parent, whole.size());
    const auto check = verify_gemm(apart, before.data(), own_b.data(), before.data(), after.data());
    EXPECT_TRUE(check.passed) << "ld " << ld << ": " << check.first_failure;
  }
}

// A short bias buffer is described by the bias's own extent, not a matrix's lines and leading
// dimension.
TEST_F(BufferPath, ShortBiasBufferNamesTheBiasExtent) {
  GemmProblem p = GemmProblem::packed_batch(4, 4, 4, 2, 1.0f, 0.0f);
  std::vector<float> a = random_matrix(32, 1), b = random_matrix(32, 2), c(32, 0.0f);
  std::vector<float> bias = random_matrix(5, 3);
  p.epilogue.bias = Bias::PerColumn;
  p.epilogue.bias_stride = 4;  // the batch reads 8 floats
  p.epilogue.bias_buffer = buffer(bias);
  try {
    shared_context().sgemm(p, buffer(a), buffer(b), buffer(c), queue_);
    ADD_FAILURE() << "a short bias buffer was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BufferTooSmall);
    EXPECT_EQ(e.argument(), Argument::Bias);
    EXPECT_NE(std::string(e.what()).find("bias_offset + (batch - 1) x bias_stride"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("leading dimension"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clgemm::testing
