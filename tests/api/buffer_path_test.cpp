// The device-buffer path: the caller's cl_mem objects and queue, an event out, no host round
// trip; its checks (buffer too small, foreign queue) and a Context adopting the caller's
// cl_context.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace clgemm::testing
