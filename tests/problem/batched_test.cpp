// Batched GEMM against the double reference: strided batches on every FP32 kernel (1x1x1 a
// thousand times, 7x13x5, 65x33x127, in both layouts and with transposes), broadcast strides,
// product tables with their own offsets, alpha and beta (alpha = 0 over NaN operands, beta = 0
// over NaN C), tables in a cl_mem, batches larger than one launch holds, and every bad
// argument with C left as it was.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// A strided batch of `batch` products with padded leading dimensions, gaps between the
// products and alpha, beta other than 1 and 0.
GemmProblem strided(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                    Layout layout = Layout::RowMajor, Transpose ta = Transpose::NoTrans,
                    Transpose tb = Transpose::NoTrans) {
  GemmProblem p;
  p.layout = layout, p.trans_a = ta, p.trans_b = tb;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 1, p.ldb = p.min_ldb() + 2, p.ldc = p.min_ldc() + 3;
  p.a_offset = 5, p.b_offset = 2, p.c_offset = 7;
  p.stride_a = std::int64_t(p.a_extent()) + 3;
  p.stride_b = std::int64_t(p.b_extent()) + 1;
  p.stride_c = std::int64_t(p.c_extent()) + 4;
  return p;
}

void expect_passes(const std::string& kernel, const GemmProblem& p, const std::string& what) {
  const auto result = run_and_verify(kernel, p);
  EXPECT_TRUE(result.passed) << kernel << " " << what << ": " << result.failures
                             << " failures, first: " << result.first_failure;
  EXPECT_GT(result.checked, 0u) << kernel << " " << what;
}

class BatchedKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchedKernel, StridedOddShapes) {
  const std::string& kernel = GetParam();
  expect_passes(kernel, strided(1, 1, 1, 1000), "1x1x1 x 1000");
  expect_passes(kernel, strided(7, 13, 5, 9, Layout::ColumnMajor, Transpose::Trans),
                "7x13x5 x 9 column-major, A transposed");
  expect_passes(kernel,
                strided(65, 33, 127, 3, Layout::RowMajor, Transpose::NoTrans, Transpose::Trans),
                "65x33x127 x 3, B transposed");
}

TEST_P(BatchedKernel, ProductTable) {
  // Products in shuffled places, each with its own alpha and beta: alpha = 0 over an A full of
  // NaN (A must not be read) and beta = 0 over a C full of NaN (C must not be read).
  const std::string& kernel = GetParam();
  GemmProblem p = GemmProblem::packed(11, 6, 9);
  p.ldc = 8;
  p.batch = 5;
  const std::size_t a_size = p.a_extent(), b_size = p.b_extent(), c_size = p.c_extent() + 2;
  std::vector<BatchProduct> table(5);
  const std::int64_t order[] = {3, 0, 4, 1, 2};
  for (std::int64_t i = 0; i < 5; ++i) {
    table[i].a_offset = order[i] * (a_size + 1);
    table[i].b_offset = (4 - i) * b_size;
    table[i].c_offset = order[i] * c_size + 1;
    table[i].alpha = 0.5f + float(i);
    table[i].beta = i % 2 ? -1.25f : 0.75f;
  }
  table[2].alpha = 0.0f;
  table[3].beta = 0.0f;
  p.products.host = table.data();
  auto a = random_matrix(p.a_elements(), 1);
  const auto b = random_matrix(p.b_elements(), 2);
  auto c_before = random_matrix(p.c_elements(), 3);
  std::fill_n(a.begin() + std::ptrdiff_t(table[2].a_offset), a_size, kNaN);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j)
      c_before[table[3].c_offset + std::size_t(i * p.ldc + j)] = kNaN;
  auto c = c_before;
  RunSettings settings;
  settings.kernel = kernel;
  const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
  EXPECT_TRUE(record.product_table);
  EXPECT_EQ(record.batch, 5);
  const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
  EXPECT_TRUE(result.passed) << kernel << ": " << result.first_failure;
}

INSTANTIATE_TEST_SUITE_P(Batched, BatchedKernel, ::testing::ValuesIn(fp32_kernel_names()),
                         [](const auto& info) { return info.param; });

TEST(Batched, BroadcastStrides) {
  GemmProblem p = strided(19, 23, 17, 6);
  p.stride_a = 0;  // one A for every product
  expect_passes("auto", p, "A broadcast");
  p = strided(19, 23, 17, 6, Layout::ColumnMajor);
  p.stride_b = 0;
  expect_passes("auto", p, "B broadcast, column-major");
  // A and B may overlap between products (a sliding window): they are only read.
  p = strided(8, 8, 8, 5);
  p.stride_a = 3;
  expect_passes("blocked", p, "overlapping A");
}

TEST(Batched, AutoOnManySmallProducts) {
  GemmProblem p = GemmProblem::packed(32, 32, 32);
  p.batch = 257;
  p.stride_a = p.stride_b = p.stride_c = 32 * 32;
  const auto a = random_matrix(p.a_elements(), 4), b = random_matrix(p.b_elements(), 5);
  auto c = random_matrix(p.c_elements(), 6);
  const auto before = c;
  const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data());
  EXPECT_EQ(record.batch, 257);
  EXPECT_EQ(record.split_k, 1);
  EXPECT_EQ(record.launches, 1u);
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), before.data(), c.data()).passed);
}

TEST(Batched, MoreProductsThanOneLaunchHolds) {
  GemmProblem p = GemmProblem::packed(1, 1, 2, 1.0f, 0.5f);
  p.batch = 70000;
  p.stride_a = p.stride_b = 2;
  p.stride_c = 1;
  const auto a = random_matrix(p.a_elements(), 7), b = random_matrix(p.b_elements(), 8);
  auto c = random_matrix(p.c_elements(), 9);
  const auto before = c;
  RunSettings settings;
  settings.kernel = "base";
  const auto record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
  EXPECT_EQ(record.launches, 2u);  // 65535 + 4465 products
  const auto result = verify_gemm(p, a.data(), b.data(), before.data(), c.data());
  EXPECT_TRUE(result.passed) << result.first_failure;
  EXPECT_EQ(result.checked, 70000u);
}

TEST(Batched, ZeroBatchAndZeroK) {
  GemmProblem p = strided(4, 5, 6, 0);
  std::vector<float> c(10, 1.0f);
  EXPECT_EQ(shared_context().sgemm(p, nullptr, nullptr, c.data()).kernel, "none");
  // K = 0 with a table: C = beta * C per product, from each product's beta; A and B unread.
  p = GemmProblem::packed(3, 4, 0);
  p.batch = 2;
  std::vector<BatchProduct> table = {{0, 0, 0, 1.0f, 2.0f}, {0, 0, 12, 1.0f, 0.0f}};
  p.products.host = table.data();
  c = random_matrix(p.c_elements(), 10);
  std::fill(c.begin() + 12, c.end(), kNaN);
  const auto before = c;
  const auto record = shared_context().sgemm(p, nullptr, nullptr, c.data());
  EXPECT_EQ(record.kernel, "scale_c");
  EXPECT_TRUE(verify_gemm(p, nullptr, nullptr, before.data(), c.data()).passed);
}

// With batch 0 each array must hold its offset alone, as the header says: the counts were one
// whole product, so measure_gemm read and wrote past the caller's arrays; an empty problem is
// now measured without touching them (null arrays accepted, as by Context::sgemm).
TEST(Batched, EmptyBatchCountsTheOffsetsAlone) {
  GemmProblem p = strided(4, 5, 6, 0);
  p.a_offset = 3, p.b_offset = 5, p.c_offset = 7;
  EXPECT_EQ(p.a_elements(), 3u);
  EXPECT_EQ(p.b_elements(), 5u);
  EXPECT_EQ(p.c_elements(), 7u);
  std::vector<float> c(7, 42.0f);
  RunSettings settings;
  settings.kernel = "tile";
  const RepeatPolicy policy;
  for (float* c_array : {static_cast<float*>(nullptr), c.data()}) {
    const auto m = measure_gemm(shared_context(), p, nullptr, nullptr, c_array, settings, policy);
    EXPECT_EQ(m.record.kernel, "none");
    EXPECT_TRUE(m.wall_seconds.empty());
  }
  EXPECT_EQ(c, std::vector<float>(7, 42.0f));
  p = GemmProblem::packed(0, 4, 4);  // M = 0 likewise
  EXPECT_EQ(
      measure_gemm(shared_context(), p, nullptr, nullptr, nullptr, settings, policy).record.kernel,
      "none");
}

TEST(Batched, BufferPathWithStridesAndTable) {
  Context& context = shared_context();
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  GemmProblem p = strided(9, 14, 21, 4, Layout::ColumnMajor, Transpose::NoTrans, Transpose::Trans);
  const auto a = random_matrix(p.a_elements(), 11), b = random_matrix(p.b_elements(), 12);
  const auto before = random_matrix(p.c_elements(), 13);
  auto buffer = [&](const std::vector<float>& data) {
    return clCreateBuffer(context.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          data.size() * sizeof(float), const_cast<float*>(data.data()), &status);
  };
  cl_mem a_mem = buffer(a), b_mem = buffer(b), c_mem = buffer(before);
  std::vector<float> c(before.size());
  context.sgemm(p, a_mem, b_mem, c_mem, queue);
  clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr,
                      nullptr);
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), before.data(), c.data()).passed);

  // The same products from a table in a cl_mem, three entries in.
  std::vector<BatchProduct> table(7);
  for (std::int64_t i = 0; i < 4; ++i)
    table[3 + i] = {p.a_offset + std::size_t(i * p.stride_a),
                    p.b_offset + std::size_t(i * p.stride_b),
                    p.c_offset + std::size_t(i * p.stride_c), p.alpha, p.beta};
  cl_mem table_mem =
      clCreateBuffer(context.opencl_context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     table.size() * sizeof(BatchProduct), table.data(), &status);
  GemmProblem t = p;
  t.a_offset = t.b_offset = t.c_offset = 0;
  t.stride_a = t.stride_b = t.stride_c = 0;
  t.products.buffer = table_mem;
  t.products.offset = 3;
  clEnqueueWriteBuffer(queue, c_mem, CL_TRUE, 0, before.size() * sizeof(float), before.data(), 0,
                       nullptr, nullptr);
  const auto record = context.sgemm(t, a_mem, b_mem, c_mem, queue);
  EXPECT_TRUE(record.product_table);
  clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr,
                      nullptr);
  t.products = {table.data() + 3, nullptr, 0};
  EXPECT_TRUE(verify_gemm(t, a.data(), b.data(), before.data(), c.data()).passed);

  // A table buffer too short for the batch: BufferTooSmall naming the products, C untouched.
  t.products = {nullptr, table_mem, 4};
  clEnqueueWriteBuffer(queue, c_mem, CL_TRUE, 0, before.size() * sizeof(float), before.data(), 0,
                       nullptr, nullptr);
  try {
    context.sgemm(t, a_mem, b_mem, c_mem, queue);
    ADD_FAILURE() << "a short table was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BufferTooSmall);
    EXPECT_EQ(e.argument(), Argument::Products);
  }
  // Overlapping products in a cl_mem table are found once it is read back.
  std::vector<BatchProduct> overlapping = {table[3], table[3]};
  clEnqueueWriteBuffer(queue, table_mem, CL_TRUE, 0, 2 * sizeof(BatchProduct), overlapping.data(),
                       0, nullptr, nullptr);
  t.batch = 2;
  t.products = {nullptr, table_mem, 0};
  try {
    context.sgemm(t, a_mem, b_mem, c_mem, queue);
    ADD_FAILURE() << "overlapping products were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OverlappingOutput);
  }
  clFinish(queue);
  clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr,
                      nullptr);
  EXPECT_EQ(std::memcmp(c.data(), before.data(), c.size() * sizeof(float)), 0);
  for (cl_mem m : {a_mem, b_mem, c_mem, table_mem}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
}

// As the header says, a product table in a cl_mem makes the buffer-path call block until the
// queue's earlier work and the wait list have run (the table is read back to be validated); a
// host table keeps the call asynchronous. Shown with a user event that holds the wait list.
TEST(Batched, TableInABufferBlocksUntilTheWaitListHasRun) {
  const GemmProblem base = GemmProblem::packed(6, 5, 4, 1.0f, 0.0f);
  const std::vector<BatchProduct> table = {{0, 0, 0, 1.0f, 0.0f}, {24, 20, 30, 1.0f, 0.0f}};
  const auto a = random_matrix(48, 1), b = random_matrix(40, 2);
  std::vector<float> c(60, 0.0f);
  const cl_context context = shared_context().opencl_context();
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context, shared_context().opencl_device(), 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  auto buffer = [&](const void* data, std::size_t bytes) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              const_cast<void*>(data), &status);
    EXPECT_EQ(status, CL_SUCCESS);
    return m;
  };
  cl_mem a_mem = buffer(a.data(), a.size() * 4), b_mem = buffer(b.data(), b.size() * 4);
  cl_mem c_mem = buffer(c.data(), c.size() * 4);
  cl_mem table_mem = buffer(table.data(), table.size() * sizeof(BatchProduct));
  RunSettings settings;
  settings.kernel = "tile";
  for (const bool in_buffer : {false, true}) {
    GemmProblem p = base;
    p.batch = 2;
    p.products =
        in_buffer ? ProductTable{nullptr, table_mem, 0} : ProductTable{table.data(), nullptr, 0};
    cl_event gate = clCreateUserEvent(context, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    std::atomic<bool> returned{false};
    std::thread caller([&] {
      shared_context().sgemm(p, a_mem, b_mem, c_mem, queue, nullptr, settings, {gate});
      returned = true;
    });
    // A host table's call returns while the gate holds: wait for it as long as a first build
    // of the kernel may take on a loaded machine. A table in a buffer must still be waiting
    // after the same 300 ms.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(in_buffer ? 0 : 20);
    do std::this_thread::sleep_for(std::chrono::milliseconds(300));
    while (!returned.load() && std::chrono::steady_clock::now() < deadline);
    EXPECT_EQ(returned.load(), !in_buffer)
        << (in_buffer ? "a table in a cl_mem returned before its wait list ran"
                      : "a host table blocked on the wait list");
    clSetUserEventStatus(gate, CL_COMPLETE);
    caller.join();
    EXPECT_TRUE(returned.load());
    clFinish(queue);
    clReleaseEvent(gate);
  }
  for (cl_mem m : {a_mem, b_mem, c_mem, table_mem}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
}

// Each bad batch argument: an Error with its code and argument, C unchanged.
TEST(Batched, BadArgumentsLeaveCUntouched) {
  const GemmProblem good = strided(5, 6, 7, 3);
  const auto a = random_matrix(good.a_elements() + 100, 1);
  const auto b = random_matrix(good.b_elements() + 100, 2);
  const auto before = random_matrix(good.c_elements() + 100, 3);
  std::vector<BatchProduct> overlapping = {{0, 0, 0, 1, 0}, {0, 0, 20, 1, 0}};
  struct Case {
    const char* what;
    std::function<void(GemmProblem&)> change;
    ErrorCode code;
    Argument argument;
  };
  const Case cases[] = {
      {"negative batch", [](GemmProblem& p) { p.batch = -1; }, ErrorCode::InvalidSize,
       Argument::Batch},
      {"batch above 2^31 - 1", [](GemmProblem& p) { p.batch = std::int64_t(1) << 31; },
       ErrorCode::InvalidSize, Argument::Batch},
      {"negative stride_a", [](GemmProblem& p) { p.stride_a = -1; }, ErrorCode::InvalidArgument,
       Argument::StrideA},
      {"stride_c smaller than one C",
       [](GemmProblem& p) { p.stride_c = std::int64_t(p.c_extent()) - 1; },
       ErrorCode::OverlappingOutput, Argument::StrideC},
      {"stride_c = 0 with batch 3", [](GemmProblem& p) { p.stride_c = 0; },
       ErrorCode::OverlappingOutput, Argument::StrideC},
      {"a table with strides", [&](GemmProblem& p) { p.products.host = overlapping.data(); },
       ErrorCode::InvalidArgument, Argument::StrideA},
      {"overlapping C in a table",
       [&](GemmProblem& p) {
         p.batch = 2;
         p.stride_a = p.stride_b = p.stride_c = 0;
         p.a_offset = p.b_offset = p.c_offset = 0;
         p.products.host = overlapping.data();
       },
       ErrorCode::OverlappingOutput, Argument::Products},
      {"a table offset without a table", [](GemmProblem& p) { p.products.offset = 1; },
       ErrorCode::InvalidArgument, Argument::Products},
      {"stride overflowing 64 bits",
       [](GemmProblem& p) { p.stride_b = std::numeric_limits<std::int64_t>::max(); },
       ErrorCode::InvalidSize, Argument::StrideB},  // the stride is at fault, not B
  };
  for (const Case& test : cases) {
    GemmProblem p = good;
    test.change(p);
    auto c = before;
    try {
      shared_context().sgemm(p, a.data(), b.data(), c.data());
      ADD_FAILURE() << test.what << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), test.code) << test.what << ": " << e.what();
      EXPECT_EQ(e.argument(), test.argument) << test.what << ": " << e.what();
      EXPECT_NE(std::string(e.what()), "") << test.what;
    }
    EXPECT_EQ(c, before) << test.what;
  }
}

}  // namespace
}  // namespace clgemm::testing

namespace clgemm::testing {
namespace {

// GemmProblem::product: one product of a batch, from the strides or from a host table, with
// its bias moved along; the batch's own fields stay as they are.
TEST(Batched, ProductIsAProblemOfItsOwn) {
  GemmProblem strided = GemmProblem::packed_batch(3, 4, 5, 6, 1.5f, 0.5f);
  strided.a_offset = 7, strided.b_offset = 8, strided.c_offset = 9;
  strided.epilogue.bias = Bias::PerRow, strided.epilogue.bias_offset = 2;
  strided.epilogue.bias_stride = 3;
  const GemmProblem fifth = strided.product(4);
  EXPECT_EQ(fifth.batch, 1);
  EXPECT_EQ(fifth.a_offset, 7u + 4u * 15u);
  EXPECT_EQ(fifth.b_offset, 8u + 4u * 20u);
  EXPECT_EQ(fifth.c_offset, 9u + 4u * 12u);
  EXPECT_EQ(fifth.stride_a, 0);
  EXPECT_EQ(fifth.alpha, 1.5f);
  EXPECT_EQ(fifth.beta, 0.5f);
  EXPECT_EQ(fifth.epilogue.bias_offset, 2u + 4u * 3u);
  EXPECT_EQ(fifth.epilogue.bias_stride, 0u);
  EXPECT_EQ(strided.product(0).a_offset, 7u);

  const BatchProduct entries[] = {{10, 20, 30, 2.0f, 0.0f}, {40, 50, 60, 0.0f, 1.0f}};
  GemmProblem table = GemmProblem::packed(3, 4, 5);
  table.batch = 2;
  table.products.host = entries;
  const GemmProblem second = table.product(1);
  EXPECT_EQ(second.a_offset, 40u);
  EXPECT_EQ(second.b_offset, 50u);
  EXPECT_EQ(second.c_offset, 60u);
  EXPECT_EQ(second.alpha, 0.0f);
  EXPECT_EQ(second.beta, 1.0f);
  EXPECT_EQ(second.products.host, nullptr);
  EXPECT_EQ(table.batch, 2);
}

}  // namespace
}  // namespace clgemm::testing
