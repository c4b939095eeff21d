// The C API (clgemm/clgemm.h): results on both paths, then every status code reached through
// the C functions themselves (the three that no argument can provoke, OPENCL_FAILURE,
// OUT_OF_HOST_MEMORY and UNKNOWN_ERROR, through the guard that wraps every entry point), each
// with the message clgemm_last_error_message() keeps, and C untouched by a failed call.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "clgemm/clgemm.h"
#include "clgemm/clgemm.hpp"

namespace {

// One clgemm context for the whole test program, on the default device.
clgemm_context* shared() {
  static clgemm_context* context = [] {
    clgemm_context* c = nullptr;
    const clgemm_status status = clgemm_context_create(nullptr, nullptr, &c);
    if (status != CLGEMM_SUCCESS) ADD_FAILURE() << clgemm_last_error_message();
    return c;
  }();
  return context;
}

std::vector<float> values(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float((i * 37 + seed * 11) % 23) / 8.0f - 1.25f;
  return v;
}

std::string last_error() {
  return clgemm_last_error_message();
}

// A small valid row-major problem with padded leading dimensions, and host arrays for it.
struct HostCall {
  int layout = CLGEMM_ROW_MAJOR, trans_a = CLGEMM_NO_TRANS, trans_b = CLGEMM_NO_TRANS;
  int64_t m = 5, n = 6, k = 7, lda = 8, ldb = 9, ldc = 10;
  float alpha = 1.5f, beta = 0.5f;
  const char* kernel = "tile";
  std::vector<float> a = values(64, 1), b = values(64, 2), c = values(64, 3);
  bool null_a = false, null_b = false, null_c = false;
  clgemm_context* context = shared();

  clgemm_status run() {
    return clgemm_sgemm(context, layout, trans_a, trans_b, m, n, k, alpha,
                        null_a ? nullptr : a.data(), lda, null_b ? nullptr : b.data(), ldb, beta,
                        null_c ? nullptr : c.data(), ldc, kernel);
  }
};

// Expects `call` to fail with `status` and `needle` in the last error message, C unchanged.
void expect_failure(HostCall call, clgemm_status status, const std::string& needle) {
  const auto c_before = call.c;
  EXPECT_EQ(call.run(), status) << last_error();
  EXPECT_NE(last_error().find(needle), std::string::npos) << last_error();
  EXPECT_EQ(call.c, c_before) << "C was modified by a failed call";
}

clgemm::GemmProblem problem_of(const HostCall& call) {
  clgemm::GemmProblem p;
  p.layout = clgemm::Layout(call.layout);
  p.trans_a = clgemm::Transpose(call.trans_a == CLGEMM_CONJ_TRANS ? CLGEMM_TRANS : call.trans_a);
  p.trans_b = clgemm::Transpose(call.trans_b == CLGEMM_CONJ_TRANS ? CLGEMM_TRANS : call.trans_b);
  p.m = call.m, p.n = call.n, p.k = call.k;
  p.alpha = call.alpha, p.beta = call.beta;
  p.lda = call.lda, p.ldb = call.ldb, p.ldc = call.ldc;
  return p;
}

TEST(CApi, HostArraysEveryLayoutAndTranspose) {
  for (int layout : {CLGEMM_ROW_MAJOR, CLGEMM_COL_MAJOR})
    for (int ta : {CLGEMM_NO_TRANS, CLGEMM_TRANS, CLGEMM_CONJ_TRANS})
      for (int tb : {CLGEMM_NO_TRANS, CLGEMM_TRANS, CLGEMM_CONJ_TRANS}) {
        HostCall call;
        call.layout = layout, call.trans_a = ta, call.trans_b = tb;
        call.m = 13, call.n = 9, call.k = 11, call.lda = call.ldb = call.ldc = 17;
        call.a = values(17 * 13, 4), call.b = values(17 * 11, 5), call.c = values(17 * 13, 6);
        const auto c_before = call.c;
        ASSERT_EQ(call.run(), CLGEMM_SUCCESS) << last_error();
        const auto check = clgemm::verify_gemm(problem_of(call), call.a.data(), call.b.data(),
                                               c_before.data(), call.c.data());
        EXPECT_TRUE(check.passed) << layout << " " << ta << " " << tb << ": "
                                  << check.first_failure;
      }
}

TEST(CApi, HostArraysDefaultKernelAndOverrides) {
  for (const char* kernel :
       {static_cast<const char*>(nullptr), "coarsened:TILE=16,ITEM=4", " tile : TILE = 4 "}) {
    HostCall call;
    call.kernel = kernel;
    const auto c_before = call.c;
    ASSERT_EQ(call.run(), CLGEMM_SUCCESS) << (kernel ? kernel : "NULL") << ": " << last_error();
    EXPECT_TRUE(clgemm::verify_gemm(problem_of(call), call.a.data(), call.b.data(), c_before.data(),
                                    call.c.data())
                    .passed)
        << (kernel ? kernel : "NULL");
  }
}

// An OpenCL context, queue and buffers of the test's own, and a clgemm context adopting them.
struct OwnOpenCL {
  cl_device_id device = clgemm_context_cl_device(shared());
  cl_context cl = nullptr;
  cl_command_queue queue = nullptr;
  clgemm_context* context = nullptr;
  std::vector<cl_mem> buffers;

  OwnOpenCL() {
    cl_int err = CL_SUCCESS;
    cl = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    queue = clCreateCommandQueue(cl, device, 0, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(clgemm_context_create_from_cl(cl, device, &context), CLGEMM_SUCCESS) << last_error();
  }
  ~OwnOpenCL() {
    for (cl_mem b : buffers) clReleaseMemObject(b);
    clgemm_context_destroy(context);
    clReleaseCommandQueue(queue);
    clReleaseContext(cl);
  }
  cl_mem buffer(const std::vector<float>& data) {
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              data.size() * sizeof(float), const_cast<float*>(data.data()), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    buffers.push_back(b);
    return b;
  }
  std::vector<float> read(cl_mem b, std::size_t floats) {
    std::vector<float> out(floats);
    EXPECT_EQ(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, floats * sizeof(float), out.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    return out;
  }
};

// A valid column-major, transposed problem with offsets on buffers of `own`.
struct BufferCall {
  OwnOpenCL* own;
  int layout = CLGEMM_COL_MAJOR, trans_a = CLGEMM_TRANS, trans_b = CLGEMM_NO_TRANS;
  int64_t m = 21, n = 14, k = 9, lda = 12, ldb = 10, ldc = 23;
  std::size_t a_offset = 3, b_offset = 5, c_offset = 7;
  float alpha = -0.5f, beta = 2.0f;
  std::vector<float> a = values(400, 7), b = values(400, 8), c = values(400, 9);
  cl_mem a_buf = own->buffer(a), b_buf = own->buffer(b), c_buf = own->buffer(c);
  cl_command_queue queue = own->queue;
  clgemm_context* context = own->context;
  const char* kernel = "vectorized";

  explicit BufferCall(OwnOpenCL& o) : own(&o) {}
  clgemm_status run(cl_event* event = nullptr) {
    return clgemm_sgemm_buffers(context, layout, trans_a, trans_b, m, n, k, alpha, a_buf, a_offset,
                                lda, b_buf, b_offset, ldb, beta, c_buf, c_offset, ldc, queue, event,
                                kernel);
  }
  clgemm::GemmProblem problem() const {
    clgemm::GemmProblem p;
    p.layout = clgemm::Layout(layout);
    p.trans_a = clgemm::Transpose(trans_a), p.trans_b = clgemm::Transpose(trans_b);
    p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
    p.lda = lda, p.ldb = ldb, p.ldc = ldc;
    p.a_offset = a_offset, p.b_offset = b_offset, p.c_offset = c_offset;
    return p;
  }
};

void expect_buffer_failure(BufferCall call, clgemm_status status, const std::string& needle) {
  cl_event event = reinterpret_cast<cl_event>(&call);  // must come back NULL
  EXPECT_EQ(call.run(&event), status) << last_error();
  EXPECT_EQ(event, nullptr);
  EXPECT_NE(last_error().find(needle), std::string::npos) << last_error();
  EXPECT_EQ(call.own->read(call.c_buf, call.c.size()), call.c) << "C was modified";
}

TEST(CApi, BuffersWithOffsetsOnTheCallersQueueWithEvent) {
  for (const char* kernel : {static_cast<const char*>(nullptr), "base", "vectorized"}) {
    OwnOpenCL own;
    BufferCall call(own);
    call.kernel = kernel;
    cl_event event = nullptr;
    ASSERT_EQ(call.run(&event), CLGEMM_SUCCESS) << last_error();
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(clWaitForEvents(1, &event), CL_SUCCESS);
    clReleaseEvent(event);
    const auto c_after = own.read(call.c_buf, call.c.size());
    const auto check = clgemm::verify_gemm(call.problem(), call.a.data(), call.b.data(),
                                           call.c.data(), c_after.data());
    EXPECT_TRUE(check.passed) << (kernel ? kernel : "NULL") << ": " << check.first_failure;
  }
}

TEST(CApi, BuffersWithoutEvent) {
  OwnOpenCL own;
  BufferCall call(own);
  ASSERT_EQ(call.run(nullptr), CLGEMM_SUCCESS) << last_error();
  const auto c_after = own.read(call.c_buf, call.c.size());  // in order after the kernel
  EXPECT_TRUE(clgemm::verify_gemm(call.problem(), call.a.data(), call.b.data(), call.c.data(),
                                  c_after.data())
                  .passed);
}

// --- The precision (math mode) -----------------------------------------------------------

// A clgemm context of the test's own, so that its precision reaches no other test.
struct OwnContext {
  clgemm_context* context = nullptr;
  OwnContext() {
    EXPECT_EQ(clgemm_context_create(nullptr, nullptr, &context), CLGEMM_SUCCESS) << last_error();
  }
  ~OwnContext() { clgemm_context_destroy(context); }
};

int precision_of(const clgemm_context* context) {
  int precision = -1;
  EXPECT_EQ(clgemm_context_get_precision(context, &precision), CLGEMM_SUCCESS) << last_error();
  return precision;
}

// Small blocked tiles (the portable kernel of every precision), quick to build on a CPU.
const char* const kBlockedKernel =
    "blocked:TILE_M=32,TILE_N=32,TILE_K=8,ITEM_M=4,ITEM_N=4,VEC=4,UNROLL=0";

TEST(CApi, PrecisionIsASettingOfEachContext) {
  OwnContext own;
  EXPECT_EQ(precision_of(own.context), CLGEMM_PRECISION_FP32);
  EXPECT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_TF32), CLGEMM_SUCCESS);
  EXPECT_EQ(precision_of(own.context), CLGEMM_PRECISION_TF32);
  EXPECT_EQ(precision_of(shared()), CLGEMM_PRECISION_FP32) << "another context changed";
  for (int invalid : {-1, 3, 1000}) {
    EXPECT_EQ(clgemm_context_set_precision(own.context, invalid), CLGEMM_INVALID_PRECISION);
    EXPECT_NE(last_error().find("precision = " + std::to_string(invalid)), std::string::npos)
        << last_error();
    EXPECT_NE(last_error().find("keeps tf32"), std::string::npos) << last_error();
    EXPECT_EQ(precision_of(own.context), CLGEMM_PRECISION_TF32) << "changed by " << invalid;
  }
  EXPECT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_3XTF32), CLGEMM_SUCCESS);
  EXPECT_EQ(precision_of(own.context), CLGEMM_PRECISION_3XTF32);
  EXPECT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_FP32), CLGEMM_SUCCESS);
  EXPECT_EQ(precision_of(own.context), CLGEMM_PRECISION_FP32);

  EXPECT_EQ(clgemm_context_set_precision(nullptr, CLGEMM_PRECISION_TF32), CLGEMM_INVALID_HANDLE);
  int out = 7;
  EXPECT_EQ(clgemm_context_get_precision(nullptr, &out), CLGEMM_INVALID_HANDLE);
  EXPECT_EQ(out, 7);
  EXPECT_EQ(clgemm_context_get_precision(own.context, nullptr), CLGEMM_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("int* out"), std::string::npos) << last_error();
}

// The same call in FP32, TF32 and 3xTF32 on one context: each result within its own bound,
// and TF32's outside FP32's (with K = 150 and random inputs): the setting reached the kernel.
TEST(CApi, PrecisionAppliesToLaterCalls) {
  OwnContext own;
  HostCall call;
  call.context = own.context;
  call.kernel = kBlockedKernel;
  call.m = 33, call.n = 29, call.k = 150, call.lda = 153, call.ldb = 31, call.ldc = 30;
  call.a = clgemm::random_matrix(std::size_t(call.m * call.lda), 1);
  call.b = clgemm::random_matrix(std::size_t(call.k * call.ldb), 2);
  call.c = clgemm::random_matrix(std::size_t(call.m * call.ldc), 3);
  const auto c_before = call.c;
  auto run = [&](int precision) {
    EXPECT_EQ(clgemm_context_set_precision(own.context, precision), CLGEMM_SUCCESS);
    HostCall copy = call;
    EXPECT_EQ(copy.run(), CLGEMM_SUCCESS) << last_error();
    return copy.c;
  };
  const auto p = problem_of(call);
  auto check = [&](const std::vector<float>& c, clgemm::Precision precision) {
    return clgemm::verify_gemm(p, call.a.data(), call.b.data(), c_before.data(), c.data(), 2e9, 64,
                               precision);
  };
  const auto fp32 = run(CLGEMM_PRECISION_FP32);
  const auto tf32 = run(CLGEMM_PRECISION_TF32);
  const auto tf32x3 = run(CLGEMM_PRECISION_3XTF32);
  EXPECT_TRUE(check(fp32, clgemm::Precision::FP32).passed)
      << check(fp32, clgemm::Precision::FP32).first_failure;
  EXPECT_TRUE(check(tf32, clgemm::Precision::TF32).passed)
      << check(tf32, clgemm::Precision::TF32).first_failure;
  EXPECT_TRUE(check(tf32x3, clgemm::Precision::TF32x3).passed)
      << check(tf32x3, clgemm::Precision::TF32x3).first_failure;
  EXPECT_NE(tf32, fp32);
  EXPECT_FALSE(check(tf32, clgemm::Precision::FP32).passed)
      << "the TF32 result is within the FP32 bound: were the operands rounded?";
  EXPECT_TRUE(check(tf32x3, clgemm::Precision::FP32).passed)
      << "3xTF32 is as accurate as FP32: " << check(tf32x3, clgemm::Precision::FP32).first_failure;
}

// A kernel that cannot compute the context's precision fails the call, C untouched, on both
// paths: the ladder computes FP32 only, tensorcore TF32 and 3xTF32 only (on tensor cores).
TEST(CApi, UnsupportedPrecision) {
  OwnContext own;
  HostCall call;
  call.context = own.context;
  ASSERT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_TF32), CLGEMM_SUCCESS);
  call.kernel = "tile";
  expect_failure(call, CLGEMM_UNSUPPORTED_PRECISION, "kernel 'tile' computes fp32, not tf32");
  call.kernel = kBlockedKernel;  // blocked computes every precision
  EXPECT_EQ(call.run(), CLGEMM_SUCCESS) << last_error();

  // tensorcore: never FP32; TF32 only where the device has tensor cores.
  clgemm::Context adopted(clgemm_context_cl_context(own.context),
                          clgemm_context_cl_device(own.context));
  call.kernel = "tensorcore";
  if (!adopted.has_tensor_cores())
    expect_failure(call, CLGEMM_UNSUPPORTED_PRECISION, "needs tensor cores");
  ASSERT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_FP32), CLGEMM_SUCCESS);
  expect_failure(call, CLGEMM_UNSUPPORTED_PRECISION, "not fp32");

  // On buffers: the same status, no event, C untouched.
  OwnOpenCL buffers;
  ASSERT_EQ(clgemm_context_set_precision(buffers.context, CLGEMM_PRECISION_3XTF32), CLGEMM_SUCCESS);
  BufferCall buffer_call(buffers);
  buffer_call.kernel = "vectorized";
  expect_buffer_failure(buffer_call, CLGEMM_UNSUPPORTED_PRECISION, "not 3xtf32");
}

// clgemm_sgemm_buffers computes in the context's precision too.
TEST(CApi, BuffersInTF32) {
  OwnOpenCL own;
  ASSERT_EQ(clgemm_context_set_precision(own.context, CLGEMM_PRECISION_TF32), CLGEMM_SUCCESS);
  BufferCall call(own);
  call.kernel = kBlockedKernel;
  call.k = 120, call.lda = 125;  // column-major A^T: k x m stored with lda >= k
  call.ldb = 130;                // B: k x n stored with ldb >= k
  call.a = clgemm::random_matrix(call.a_offset + std::size_t(call.lda * call.m), 10);
  call.b = clgemm::random_matrix(call.b_offset + std::size_t(call.ldb * call.n), 11);
  call.a_buf = own.buffer(call.a), call.b_buf = own.buffer(call.b);
  ASSERT_EQ(call.run(nullptr), CLGEMM_SUCCESS) << last_error();
  const auto c_after = own.read(call.c_buf, call.c.size());
  const auto p = call.problem();
  const auto tf32 = clgemm::verify_gemm(p, call.a.data(), call.b.data(), call.c.data(),
                                        c_after.data(), 2e9, 64, clgemm::Precision::TF32);
  EXPECT_TRUE(tf32.passed) << tf32.first_failure;
  EXPECT_FALSE(
      clgemm::verify_gemm(p, call.a.data(), call.b.data(), call.c.data(), c_after.data()).passed)
      << "the TF32 result is within the FP32 bound: were the operands rounded?";
}

TEST(CApi, ContextAccessors) {
  EXPECT_NE(clgemm_context_cl_context(shared()), nullptr);
  EXPECT_NE(clgemm_context_cl_device(shared()), nullptr);
  EXPECT_GT(std::string(clgemm_context_device_name(shared())).size(), 0u);
  EXPECT_EQ(clgemm_context_cl_context(nullptr), nullptr);
  EXPECT_EQ(clgemm_context_cl_device(nullptr), nullptr);
  EXPECT_EQ(clgemm_context_device_name(nullptr), nullptr);
  clgemm_context_destroy(nullptr);  // ignored
}

TEST(CApi, InvalidSizes) {
  HostCall call;
  call.m = -1;
  expect_failure(call, CLGEMM_INVALID_M, "M = -1 must not be negative");
  call = HostCall();
  call.n = -3;
  expect_failure(call, CLGEMM_INVALID_N, "N = -3 must not be negative");
  call = HostCall();
  call.k = int64_t(1) << 32;
  expect_failure(call, CLGEMM_INVALID_K, "K = 4294967296 exceeds the largest supported size");
}

TEST(CApi, InvalidLeadingDimensions) {
  HostCall call;
  call.lda = 6;
  expect_failure(call, CLGEMM_INVALID_LDA, "lda = 6 is smaller than K = 7");
  call = HostCall();
  call.ldb = 5;
  expect_failure(call, CLGEMM_INVALID_LDB, "ldb = 5 is smaller than N = 6");
  call = HostCall();
  call.layout = CLGEMM_COL_MAJOR;
  call.ldc = 4;
  expect_failure(call, CLGEMM_INVALID_LDC, "ldc = 4 is smaller than M = 5");
}

TEST(CApi, InvalidLayoutAndTransposes) {
  HostCall call;
  call.layout = 100;
  expect_failure(call, CLGEMM_INVALID_LAYOUT, "layout = 100");
  call = HostCall();
  call.trans_a = 114;
  expect_failure(call, CLGEMM_INVALID_TRANS_A, "transA = 114");
  call = HostCall();
  call.trans_b = 0;
  expect_failure(call, CLGEMM_INVALID_TRANS_B, "transB = 0");
}

TEST(CApi, NullHostArrays) {
  HostCall call;
  call.null_a = true;
  expect_failure(call, CLGEMM_NULL_A, "matrix A is a null pointer");
  call = HostCall();
  call.null_b = true;
  expect_failure(call, CLGEMM_NULL_B, "matrix B is a null pointer");
  call = HostCall();
  call.null_c = true;
  EXPECT_EQ(call.run(), CLGEMM_NULL_C);
  EXPECT_NE(last_error().find("matrix C is a null pointer"), std::string::npos);
}

TEST(CApi, NullHandles) {
  HostCall call;
  call.context = nullptr;
  expect_failure(call, CLGEMM_INVALID_HANDLE, "clgemm_context argument is null");
  OwnOpenCL own;
  BufferCall buffers(own);
  buffers.context = nullptr;
  expect_buffer_failure(buffers, CLGEMM_INVALID_HANDLE, "clgemm_context argument is null");
  EXPECT_EQ(clgemm_context_create(nullptr, nullptr, nullptr), CLGEMM_INVALID_HANDLE);
  EXPECT_NE(last_error().find("clgemm_context**"), std::string::npos);
  EXPECT_EQ(clgemm_context_create_from_cl(own.cl, own.device, nullptr), CLGEMM_INVALID_HANDLE);
}

TEST(CApi, NullOpenCLContextOrDevice) {
  OwnOpenCL own;
  clgemm_context* context = reinterpret_cast<clgemm_context*>(&own);  // must come back NULL
  EXPECT_EQ(clgemm_context_create_from_cl(nullptr, own.device, &context),
            CLGEMM_INVALID_CL_CONTEXT);
  EXPECT_EQ(context, nullptr);
  EXPECT_NE(last_error().find("must not be null"), std::string::npos) << last_error();
  EXPECT_EQ(clgemm_context_create_from_cl(own.cl, nullptr, &context), CLGEMM_INVALID_CL_DEVICE);
  EXPECT_EQ(context, nullptr);
}

TEST(CApi, NullBuffers) {
  OwnOpenCL own;
  BufferCall call(own);
  call.a_buf = nullptr;
  expect_buffer_failure(call, CLGEMM_NULL_A, "buffer A is null");
  call = BufferCall(own);
  call.b_buf = nullptr;
  expect_buffer_failure(call, CLGEMM_NULL_B, "buffer B is null");
  call = BufferCall(own);
  call.c_buf = nullptr;
  EXPECT_EQ(call.run(), CLGEMM_NULL_C);
  EXPECT_NE(last_error().find("buffer C is null"), std::string::npos);
}

TEST(CApi, BuffersOfAnotherContext) {
  OwnOpenCL own, other;
  const std::vector<float> data = values(400, 1);
  BufferCall call(own);
  call.a_buf = other.buffer(data);
  expect_buffer_failure(call, CLGEMM_INVALID_BUFFER_A, "buffer A belongs to another");
  call = BufferCall(own);
  call.b_buf = other.buffer(data);
  expect_buffer_failure(call, CLGEMM_INVALID_BUFFER_B, "buffer B belongs to another");
  call = BufferCall(own);
  call.c_buf = other.buffer(data);
  EXPECT_EQ(call.run(), CLGEMM_INVALID_BUFFER_C);
  EXPECT_NE(last_error().find("buffer C belongs to another"), std::string::npos);
}

// A buffer too small is not a leading dimension too small: each has its own status.
TEST(CApi, BuffersTooSmall) {
  OwnOpenCL own;
  const std::vector<float> tiny = values(100, 1);
  BufferCall call(own);
  call.a_buf = own.buffer(tiny);
  expect_buffer_failure(call, CLGEMM_BUFFER_A_TOO_SMALL, "buffer A holds 400 bytes");
  call = BufferCall(own);
  call.b_offset = 300;
  expect_buffer_failure(call, CLGEMM_BUFFER_B_TOO_SMALL, "buffer B holds 1600 bytes");
  call = BufferCall(own);
  call.c_buf = own.buffer(tiny);
  call.c = tiny;
  expect_buffer_failure(call, CLGEMM_BUFFER_C_TOO_SMALL, "buffer C holds 400 bytes");
  // An offset so large that offset + extent overflows: no buffer could hold it.
  call = BufferCall(own);
  call.a_offset = SIZE_MAX - 10;
  expect_buffer_failure(call, CLGEMM_BUFFER_A_TOO_SMALL, "overflows 64 bits");
  call = BufferCall(own);
  call.ldb = 8;
  expect_buffer_failure(call, CLGEMM_INVALID_LDB, "ldb = 8 is smaller than K = 9");
}

// An offset whose byte count wraps 2^64 must not pass the size check: C is a sub-buffer in the
// middle of a parent filled with canaries, none of which may change.
TEST(CApi, BufferOffsetsWhoseBytesWrapAreRefused) {
  OwnOpenCL own;
  cl_uint align_bits = 0;
  ASSERT_EQ(clGetDeviceInfo(own.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                            &align_bits, nullptr),
            CL_SUCCESS);
  const std::size_t origin = std::max<std::size_t>(align_bits / 8, 64) * 2;  // bytes
  const std::vector<float> canaries(origin / sizeof(float) * 3, 7.0f);
  cl_mem parent = own.buffer(canaries);
  cl_buffer_region region{origin, 16 * sizeof(float)};
  cl_int err = CL_SUCCESS;
  cl_mem c =
      clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::vector<float> ones(16, 1.0f);
  cl_mem a = own.buffer(ones), b = own.buffer(ones);
  for (std::size_t c_offset :
       {(std::size_t(1) << 62) - 16, (std::size_t(1) << 62), SIZE_MAX / 4 - 3, SIZE_MAX - 15}) {
    cl_event event = nullptr;
    const clgemm_status status =
        clgemm_sgemm_buffers(own.context, 101, 111, 111, 4, 4, 4, 1.0f, a, 0, 4, b, 0, 4, 0.0f, c,
                             c_offset, 4, own.queue, &event, "tile");
    EXPECT_EQ(status, CLGEMM_BUFFER_C_TOO_SMALL) << "c_offset " << c_offset << ": " << last_error();
    EXPECT_EQ(event, nullptr);
  }
  EXPECT_EQ(clFinish(own.queue), CL_SUCCESS);
  EXPECT_EQ(own.read(parent, canaries.size()), canaries) << "bytes outside C were written";
  clReleaseMemObject(c);
}

// BLAS quick returns: M or N = 0 touches nothing and may pass null arrays; K = 0 and alpha = 0
// compute C = beta * C without reading A or B (NaN there stays out of C).
TEST(CApi, ZeroSizesAndAlphaZeroFollowBlas) {
  HostCall empty;
  empty.m = 0;
  empty.null_a = empty.null_b = empty.null_c = true;
  EXPECT_EQ(empty.run(), CLGEMM_SUCCESS) << last_error();
  for (int64_t k : {0, 7}) {
    HostCall call;
    call.k = k;
    call.alpha = k == 0 ? 1.5f : 0.0f;
    call.null_a = call.null_b = k == 0;  // K = 0: A and B hold nothing
    std::fill(call.a.begin(), call.a.end(), std::numeric_limits<float>::quiet_NaN());
    const auto c_before = call.c;
    ASSERT_EQ(call.run(), CLGEMM_SUCCESS) << last_error();
    for (int64_t i = 0; i < call.m; ++i)
      for (int64_t j = 0; j < call.ldc; ++j) {
        const std::size_t at = std::size_t(i * call.ldc + j);
        EXPECT_EQ(call.c[at], j < call.n ? call.beta * c_before[at] : c_before[at])
            << "K = " << k << ", C[" << i << "][" << j << "]";
      }
  }
  // On buffers, an empty problem still gives an event that completes.
  OwnOpenCL own;
  BufferCall call(own);
  call.n = 0;
  cl_event event = nullptr;
  ASSERT_EQ(call.run(&event), CLGEMM_SUCCESS) << last_error();
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(clWaitForEvents(1, &event), CL_SUCCESS);
  clReleaseEvent(event);
  EXPECT_EQ(own.read(call.c_buf, call.c.size()), call.c);
}

TEST(CApi, Version) {
  EXPECT_STREQ(clgemm_version(), clgemm::version());
  const std::string version = clgemm_version();
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
}

TEST(CApi, InvalidQueue) {
  OwnOpenCL own, other;
  BufferCall call(own);
  call.queue = nullptr;
  expect_buffer_failure(call, CLGEMM_INVALID_QUEUE, "the command queue is null");
  call = BufferCall(own);
  call.queue = other.queue;
  expect_buffer_failure(call, CLGEMM_INVALID_QUEUE, "belongs to another OpenCL context");
}

TEST(CApi, UnknownKernel) {
  HostCall call;
  call.kernel = "fastest";
  expect_failure(call, CLGEMM_UNKNOWN_KERNEL,
                 "valid kernels are: base, row, private, tile, coarsened, vectorized");
}

TEST(CApi, InvalidOptions) {
  HostCall call;
  call.kernel = "coarsened:TILE=30,ITEM=4";
  expect_failure(call, CLGEMM_INVALID_OPTION, "TILE % ITEM == 0");
  call.kernel = "tile:TILE";
  expect_failure(call, CLGEMM_INVALID_OPTION, "'TILE' has no '='");
  call.kernel = "tile:TILE=8x";
  expect_failure(call, CLGEMM_INVALID_OPTION, "'TILE=8x' has a value that is not a decimal");
  call.kernel = "tile:TILE=8abc";  // trailing text is refused, never read as 8
  expect_failure(call, CLGEMM_INVALID_OPTION, "not a decimal integer");
  call.kernel = "tile:TILE=99999999999999999999";
  expect_failure(call, CLGEMM_INVALID_OPTION, "outside the range of a long");
  call.kernel = "tile:=5";
  expect_failure(call, CLGEMM_INVALID_OPTION, "has no name before '='");
  call.kernel = "tile:TILE=";
  expect_failure(call, CLGEMM_INVALID_OPTION, "has no value after '='");
  call.kernel = "tile:TILE=8,TILE=16";
  expect_failure(call, CLGEMM_INVALID_OPTION, "TILE is given twice");
  call.kernel = "tile:TILE=8,";
  expect_failure(call, CLGEMM_INVALID_OPTION, "'' has no '='");
  call.kernel = "tile:NOPE=3";
  expect_failure(call, CLGEMM_INVALID_OPTION, "NOPE");
}

TEST(CApi, NoMatchingDevice) {
  clgemm_context* context = reinterpret_cast<clgemm_context*>(&context);
  EXPECT_EQ(clgemm_context_create(nullptr, "no-such-device-anywhere", &context),
            CLGEMM_NO_PLATFORM);
  EXPECT_EQ(context, nullptr);
  EXPECT_NE(last_error().find("no OpenCL device matches"), std::string::npos) << last_error();
}

// The host-array engine under a device memory limit too small for even its smallest tiles.
TEST(CApi, AllocationTooLarge) {
  setenv("CLGEMM_DEVICE_MEMORY_LIMIT", "256", 1);
  setenv("CLGEMM_HOST_COPY", "1", 1);
  HostCall call;
  expect_failure(call, CLGEMM_ALLOCATION_TOO_LARGE, "above the limit of 256 bytes");
  unsetenv("CLGEMM_HOST_COPY");
  unsetenv("CLGEMM_DEVICE_MEMORY_LIMIT");
}

// Points CLGEMM_KERNEL_DIR at a directory with one file, tile.cl, for the test's lifetime.
class KernelDirectory {
 public:
  explicit KernelDirectory(const std::string& tile_source)
      : dir_(std::filesystem::temp_directory_path() /
             ("clgemm-c-api-kernels-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tile.cl") << tile_source;
    if (const char* user = std::getenv("CLGEMM_KERNEL_DIR")) previous_ = user;
    setenv("CLGEMM_KERNEL_DIR", dir_.c_str(), 1);
  }
  ~KernelDirectory() {
    if (previous_)
      setenv("CLGEMM_KERNEL_DIR", previous_->c_str(), 1);
    else
      unsetenv("CLGEMM_KERNEL_DIR");
    std::filesystem::remove_all(dir_);
  }

 private:
  std::filesystem::path dir_;
  std::optional<std::string> previous_;
};

TEST(CApi, KernelSourceNotFound) {
  KernelDirectory dir("#include \"missing_header.h\"\n");
  clgemm_context* context = nullptr;  // a new context reads sources afresh
  ASSERT_EQ(clgemm_context_create(nullptr, nullptr, &context), CLGEMM_SUCCESS);
  HostCall call;
  call.context = context;
  expect_failure(call, CLGEMM_KERNEL_SOURCE_NOT_FOUND, "includes \"missing_header.h\"");
  clgemm_context_destroy(context);
}

TEST(CApi, BuildFailedCarriesTheLog) {
  KernelDirectory dir("__kernel void gemm_tile(__global float* C) { C[0] = ; }\n");
  clgemm_context* context = nullptr;
  ASSERT_EQ(clgemm_context_create(nullptr, nullptr, &context), CLGEMM_SUCCESS);
  HostCall call;
  call.context = context;
  expect_failure(call, CLGEMM_BUILD_FAILED, "building kernel 'tile' for device");
  EXPECT_NE(last_error().find("error"), std::string::npos) << "no build log: " << last_error();
  EXPECT_NE(last_error().find("-D TILE="), std::string::npos) << last_error();
  clgemm_context_destroy(context);
}

TEST(CApi, EveryStatusHasItsOwnString) {
  std::set<std::string> seen;
  for (int s = CLGEMM_SUCCESS; s <= CLGEMM_INVALID_ACTIVATION; ++s) {
    const std::string text = clgemm_status_string(clgemm_status(s));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(text, "unrecognized status code") << s;
    EXPECT_TRUE(seen.insert(text).second) << "duplicate: " << text;
  }
  EXPECT_EQ(std::string(clgemm_status_string(clgemm_status(999))), "unrecognized status code");
}

TEST(CApi, LastErrorIsPerThreadAndKeptAcrossSuccesses) {
  HostCall bad;
  bad.ldb = 1;
  ASSERT_EQ(bad.run(), CLGEMM_INVALID_LDB);
  const std::string mine = last_error();
  std::string other_before, other_after;
  std::thread([&] {
    other_before = last_error();
    HostCall worse;
    worse.m = -1;
    worse.run();
    other_after = last_error();
  }).join();
  EXPECT_EQ(other_before, "");
  EXPECT_NE(other_after.find("M = -1"), std::string::npos);
  EXPECT_EQ(last_error(), mine);
  HostCall good;
  ASSERT_EQ(good.run(), CLGEMM_SUCCESS);
  EXPECT_EQ(last_error(), mine);
}

TEST(CApi, OneContextFromSeveralThreads) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      HostCall call;
      call.m = 20 + t, call.ldc = 30;
      call.a = values(8 * 24, t), call.c = values(30 * 24, t);
      const auto before = call.c;
      ok[t] = call.run() == CLGEMM_SUCCESS &&
              clgemm::verify_gemm(problem_of(call), call.a.data(), call.b.data(), before.data(),
                                  call.c.data())
                  .passed;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

}  // namespace
