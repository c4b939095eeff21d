// The C API's batched entry points (clgemm_sgemm_strided_batched, clgemm_sgemm_batched and
// their _buffers forms) and epilogues: results against the double reference, and each status
// a bad batch, stride, product table, bias or activation gets, with C untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "clgemm/clgemm.h"
#include "clgemm/clgemm.hpp"

namespace {

clgemm_context* shared() {
  static clgemm_context* context = [] {
    clgemm_context* c = nullptr;
    if (clgemm_context_create(nullptr, nullptr, &c) != CLGEMM_SUCCESS)
      ADD_FAILURE() << clgemm_last_error_message();
    return c;
  }();
  return context;
}

// A strided batch of 3 products of 5x6x7 (row-major, packed, C products 4 apart) with a
// per-column bias and GELU, and the C++ problem that verifies it.
struct StridedCall {
  int64_t m = 5, n = 6, k = 7, batch = 3;
  int64_t stride_a = 35, stride_b = 42, stride_c = 34;
  float alpha = 1.25f, beta = -0.5f;
  std::vector<float> a = clgemm::random_matrix(105, 1), b = clgemm::random_matrix(126, 2);
  std::vector<float> c = clgemm::random_matrix(98, 3), bias = clgemm::random_matrix(6, 4);
  clgemm_epilogue epilogue{CLGEMM_BIAS_PER_COLUMN, nullptr, nullptr, 0, 0,
                           CLGEMM_ACTIVATION_GELU, 0.0f,    0.0f};

  StridedCall() { epilogue.bias_data = bias.data(); }

  clgemm_status run(const char* kernel = "tile") {
    return clgemm_sgemm_strided_batched(
        shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n, k, alpha, a.data(), k,
        stride_a, b.data(), n, stride_b, beta, c.data(), n, stride_c, batch, &epilogue, kernel);
  }

  clgemm::GemmProblem problem() const {
    clgemm::GemmProblem p = clgemm::GemmProblem::packed(m, n, k, alpha, beta);
    p.batch = batch;
    p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
    p.epilogue.bias = clgemm::Bias::PerColumn;
    p.epilogue.bias_data = bias.data();
    p.epilogue.activation = clgemm::Activation::GELU;
    return p;
  }
};

TEST(CApiBatched, StridedOnHostArrays) {
  StridedCall call;
  const auto before = call.c;
  ASSERT_EQ(call.run(), CLGEMM_SUCCESS) << clgemm_last_error_message();
  const auto result = clgemm::verify_gemm(call.problem(), call.a.data(), call.b.data(),
                                          before.data(), call.c.data());
  EXPECT_TRUE(result.passed) << result.first_failure;
}

TEST(CApiBatched, TableOnHostArraysAndInABuffer) {
  StridedCall call;
  const std::vector<clgemm_batch_product> table = {
      {70, 0, 68, 2.0f, 0.0f}, {0, 84, 0, -1.0f, 1.0f}, {35, 42, 34, 0.0f, 0.5f}};
  std::vector<clgemm::BatchProduct> cxx_table(3);
  std::memcpy(cxx_table.data(), table.data(), sizeof(clgemm_batch_product) * 3);
  clgemm::GemmProblem p = call.problem();
  p.stride_a = p.stride_b = p.stride_c = 0;
  p.products.host = cxx_table.data();
  const auto before = call.c;
  ASSERT_EQ(clgemm_sgemm_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 5, 6,
                                 7, call.a.data(), 7, call.b.data(), 6, call.c.data(), 6,
                                 table.data(), 3, &call.epilogue, "tile"),
            CLGEMM_SUCCESS)
      << clgemm_last_error_message();
  EXPECT_TRUE(
      clgemm::verify_gemm(p, call.a.data(), call.b.data(), before.data(), call.c.data()).passed);

  // The same table from a cl_mem, on buffers, with the bias in a cl_mem too.
  cl_context cl = clgemm_context_cl_context(shared());
  cl_int status = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(cl, clgemm_context_cl_device(shared()), 0, &status);
  auto buffer = [&](const void* data, std::size_t bytes) {
    return clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          const_cast<void*>(data), &status);
  };
  cl_mem a = buffer(call.a.data(), call.a.size() * 4), b = buffer(call.b.data(), call.b.size() * 4);
  cl_mem c = buffer(before.data(), before.size() * 4), bias = buffer(call.bias.data(), 24);
  cl_mem products = buffer(table.data(), sizeof(clgemm_batch_product) * 3);
  clgemm_epilogue on_device = call.epilogue;
  on_device.bias_data = nullptr;
  on_device.bias_buffer = bias;
  cl_event done = nullptr;
  ASSERT_EQ(clgemm_sgemm_batched_buffers(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, 5, 6, 7, a, 7, b, 6, c, 6, nullptr,
                                         products, 0, 3, &on_device, queue, &done, "tile"),
            CLGEMM_SUCCESS)
      << clgemm_last_error_message();
  ASSERT_NE(done, nullptr);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  std::vector<float> result(before.size());
  clEnqueueReadBuffer(queue, c, CL_TRUE, 0, result.size() * 4, result.data(), 0, nullptr, nullptr);
  EXPECT_EQ(result, call.c);  // the same kernel on the same data: the same bits

  // A bias one float short on the buffer path.
  on_device.bias_offset = 1;
  EXPECT_EQ(clgemm_sgemm_batched_buffers(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, 5, 6, 7, a, 7, b, 6, c, 6, nullptr,
                                         products, 0, 3, &on_device, queue, nullptr, "tile"),
            CLGEMM_BIAS_TOO_SMALL);
  EXPECT_NE(std::string(clgemm_last_error_message()).find("bias"), std::string::npos);
  // A table that reaches past its buffer.
  on_device.bias_offset = 0;
  EXPECT_EQ(clgemm_sgemm_batched_buffers(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, 5, 6, 7, a, 7, b, 6, c, 6, nullptr,
                                         products, 1, 3, &on_device, queue, nullptr, "tile"),
            CLGEMM_INVALID_PRODUCTS);
  clEnqueueReadBuffer(queue, c, CL_TRUE, 0, result.size() * 4, result.data(), 0, nullptr, nullptr);
  EXPECT_EQ(result, call.c);
  for (cl_mem m : {a, b, c, bias, products}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
}

// Each bad argument: its own status, a message, and C as it was.
TEST(CApiBatched, BadArgumentsHaveTheirStatus) {
  const struct {
    const char* what;
    void (*change)(StridedCall&);
    clgemm_status status;
  } cases[] = {
      {"batch = -1", [](StridedCall& c) { c.batch = -1; }, CLGEMM_INVALID_BATCH},
      {"stride_a = -3", [](StridedCall& c) { c.stride_a = -3; }, CLGEMM_INVALID_STRIDE_A},
      {"stride_b = -1", [](StridedCall& c) { c.stride_b = -1; }, CLGEMM_INVALID_STRIDE_B},
      {"stride_c smaller than one C", [](StridedCall& c) { c.stride_c = 29; },
       CLGEMM_INVALID_STRIDE_C},
      {"unknown bias kind", [](StridedCall& c) { c.epilogue.bias = 5; }, CLGEMM_INVALID_BIAS},
      {"bias without its vector", [](StridedCall& c) { c.epilogue.bias_data = nullptr; },
       CLGEMM_INVALID_BIAS},
      {"unknown activation", [](StridedCall& c) { c.epilogue.activation = 4; },
       CLGEMM_INVALID_ACTIVATION},
      {"clamp low above high",
       [](StridedCall& c) {
         c.epilogue.activation = CLGEMM_ACTIVATION_CLAMP;
         c.epilogue.clamp_low = 1.0f;
       },
       CLGEMM_INVALID_ACTIVATION},
  };
  for (const auto& test : cases) {
    StridedCall call;
    test.change(call);
    const auto before = call.c;
    EXPECT_EQ(call.run(), test.status) << test.what << ": " << clgemm_last_error_message();
    EXPECT_NE(std::string(clgemm_last_error_message()), "") << test.what;
    EXPECT_EQ(call.c, before) << test.what;
  }
  // Overlapping C products in a table, and no table at all.
  StridedCall call;
  const std::vector<clgemm_batch_product> overlapping = {{0, 0, 0, 1, 0}, {0, 0, 20, 1, 0}};
  const auto before = call.c;
  EXPECT_EQ(clgemm_sgemm_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 5, 6,
                                 7, call.a.data(), 7, call.b.data(), 6, call.c.data(), 6,
                                 overlapping.data(), 2, nullptr, "tile"),
            CLGEMM_OVERLAPPING_C);
  EXPECT_EQ(clgemm_sgemm_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, 5, 6,
                                 7, call.a.data(), 7, call.b.data(), 6, call.c.data(), 6, nullptr,
                                 2, nullptr, "tile"),
            CLGEMM_INVALID_PRODUCTS);
  EXPECT_EQ(call.c, before);
  // batch = 0 is a quick return, whatever the arrays.
  EXPECT_EQ(clgemm_sgemm_strided_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, 5, 6, 7, 1.0f, nullptr, 7, 0, nullptr, 6,
                                         0, 0.0f, nullptr, 6, 0, 0, nullptr, nullptr),
            CLGEMM_SUCCESS);
}

// Products of C closer than one C apart that share no element are accepted: two 2x2 C's in
// alternate pairs of columns of a 4-wide C (stride_c = 2) were refused as overlapping. A third
// product at stride 2 does write the first's second row, and is refused.
TEST(CApiBatched, InterleavedCProductsAreAccepted) {
  const int64_t m = 2, n = 2, k = 2, ldc = 4, stride_c = 2;
  const auto a = clgemm::random_matrix(8, 1), b = clgemm::random_matrix(8, 2);
  std::vector<float> c = clgemm::random_matrix(8, 3);
  const auto before = c;
  ASSERT_EQ(clgemm_sgemm_strided_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, m, n, k, 1.0f, a.data(), 2, 4, b.data(),
                                         2, 4, 0.5f, c.data(), ldc, stride_c, 2, nullptr, "tile"),
            CLGEMM_SUCCESS)
      << clgemm_last_error_message();
  clgemm::GemmProblem p = clgemm::GemmProblem::packed_batch(m, n, k, 2, 1.0f, 0.5f);
  p.ldc = ldc, p.stride_c = stride_c;
  const auto check = clgemm::verify_gemm(p, a.data(), b.data(), before.data(), c.data());
  EXPECT_TRUE(check.passed) << check.first_failure;

  std::vector<float> c3 = clgemm::random_matrix(12, 3);
  const auto before3 = c3;
  const auto a3 = clgemm::random_matrix(12, 1), b3 = clgemm::random_matrix(12, 2);
  EXPECT_EQ(clgemm_sgemm_strided_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS,
                                         CLGEMM_NO_TRANS, m, n, k, 1.0f, a3.data(), 2, 4, b3.data(),
                                         2, 4, 0.5f, c3.data(), ldc, stride_c, 3, nullptr, "tile"),
            CLGEMM_INVALID_STRIDE_C);
  EXPECT_NE(std::string(clgemm_last_error_message()).find("products 0 and 2"), std::string::npos)
      << clgemm_last_error_message();
  EXPECT_EQ(c3, before3);

  // The same two products from a table.
  const std::vector<clgemm_batch_product> interleaved = {{0, 0, 0, 1.0f, 0.5f},
                                                         {4, 4, 2, 1.0f, 0.5f}};
  c = before;
  EXPECT_EQ(clgemm_sgemm_batched(shared(), CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, m, n,
                                 k, a.data(), 2, b.data(), 2, c.data(), ldc, interleaved.data(), 2,
                                 nullptr, "tile"),
            CLGEMM_SUCCESS)
      << clgemm_last_error_message();
  EXPECT_TRUE(clgemm::verify_gemm(p, a.data(), b.data(), before.data(), c.data()).passed);
}

// A stride that carries the last product beyond 2^64 bytes is the stride's fault on the host
// path too, where there is no buffer to be too small (it was CLGEMM_BUFFER_A_TOO_SMALL).
TEST(CApiBatched, HugeStrideIsTheStridesFault) {
  StridedCall call;
  call.stride_a = std::numeric_limits<int64_t>::max();
  const auto before = call.c;
  EXPECT_EQ(call.run(), CLGEMM_INVALID_STRIDE_A) << clgemm_last_error_message();
  EXPECT_NE(std::string(clgemm_last_error_message()).find("stride_a = 9223372036854775807"),
            std::string::npos)
      << clgemm_last_error_message();
  EXPECT_EQ(call.c, before);
}

}  // namespace
