// Multi-launch calls of the blocked kernel: split-K (forced through SPLIT_K, every transpose
// and layout, BLAS cases, determinism, threads sharing the workspace, the buffer path's wait
// list and event) and aligned copies of unaligned operands (ALIGN_COPY), each checked against
// the double host reference; and the workspace limit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// Slices the kernel runs for `requested`: ceil(K / depth), depth = ceil(K / S) rounded up to
// whole TILE_K steps.
long expected_slices(std::int64_t k, long requested) {
  const long tile_k = derive_options("blocked", shared_context().device()).at("TILE_K");
  const std::int64_t depth = ((k + requested - 1) / requested + tile_k - 1) / tile_k * tile_k;
  return long((k + depth - 1) / depth);
}

GemmProblem offset_problem(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout,
                           Transpose ta, Transpose tb) {
  GemmProblem p;
  p.layout = layout, p.trans_a = ta, p.trans_b = tb;
  p.m = m, p.n = n, p.k = k;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 2, p.ldb = p.min_ldb() + 4, p.ldc = p.min_ldc() + 2;  // odd at 129x131x133
  p.a_offset = 7, p.b_offset = 3, p.c_offset = 5;
  return p;
}

TEST(SplitK, ForcedFactorsAndShapes) {
  struct Case {
    std::int64_t m, n, k;
    long split;
  };
  // S dividing K and not, S = 1, S above K (clamps to whole K steps).
  for (const Case c : {Case{1, 1, 1, 4}, Case{1, 1, 1, 65536}, Case{33, 17, 5000, 1},
                       Case{33, 17, 5000, 7}, Case{33, 17, 5000, 8}, Case{33, 17, 5000, 65536},
                       Case{64, 64, 20000, 5}, Case{64, 64, 20000, 16}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
                 " SPLIT_K=" + std::to_string(c.split));
    const auto out = run_blocked(padded_problem(c.m, c.n, c.k), {{"SPLIT_K", c.split}});
    EXPECT_TRUE(out.check.passed) << out.check.first_failure;
    const long slices = expected_slices(c.k, c.split);
    EXPECT_EQ(out.record.split_k, slices);
    EXPECT_EQ(out.record.launches, slices > 1 ? 2u : 1u);
    EXPECT_EQ(out.record.workspace_bytes > 0, slices > 1);
    EXPECT_EQ(out.record.build_options.find("SPLIT_K"), std::string::npos);  // host-side
    if (slices > 1) EXPECT_NE(out.record.kernel_choice.find("split-K into"), std::string::npos);
  }
}

TEST(SplitK, EveryTransposeAndLayoutWithOffsets) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        const auto p = offset_problem(33, 17, 5000, layout, ta, tb);
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "col") + " " +
                     (ta == Transpose::Trans ? "T" : "N") + (tb == Transpose::Trans ? "T" : "N"));
        const auto out = run_blocked(p, {{"SPLIT_K", 4}});
        EXPECT_TRUE(out.check.passed) << out.check.first_failure;
        EXPECT_EQ(out.record.split_k, 4);
      }
}

TEST(SplitK, BetaZeroNeverReadsC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  GemmProblem p = padded_problem(33, 17, 5000);
  p.beta = 0.0f;
  const auto out = run_blocked(p, {{"SPLIT_K", 3}}, &nan);
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_EQ(out.record.split_k, 3);
  // Nothing outside the matrix was written: the ldc padding keeps the values it had.
  for (std::int64_t i = 0; i + 1 < p.m; ++i)
    for (std::int64_t j = p.n; j < p.ldc; ++j) {
      const std::size_t at = p.c_index(i, 0) + std::size_t(j);
      EXPECT_EQ(out.c[at], out.c_before[at]);
    }
}

TEST(SplitK, AlphaZeroScalesCOnly) {
  GemmProblem p = padded_problem(33, 17, 5000);
  p.alpha = 0.0f;
  const auto out = run_blocked(p, {{"SPLIT_K", 8}});
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_EQ(out.record.kernel, "scale_c");
  EXPECT_EQ(out.record.split_k, 1);
}

TEST(SplitK, DeterministicAcrossRuns) {
  const GemmProblem p = GemmProblem::packed(64, 64, 20000, 1.0f, 0.5f);
  const auto first = run_blocked(p, {{"SPLIT_K", 8}});
  const auto second = run_blocked(p, {{"SPLIT_K", 8}});
  ASSERT_TRUE(first.check.passed) << first.check.first_failure;
  ASSERT_EQ(first.c.size(), second.c.size());
  EXPECT_EQ(std::memcmp(first.c.data(), second.c.data(), first.c.size() * sizeof(float)), 0);
}

// Calls from several threads share the Context's workspace: each waits for the previous
// user's launches, so every result is right (and equal to a single-threaded run's).
TEST(SplitK, ThreadsShareTheWorkspace) {
  const GemmProblem small = padded_problem(33, 17, 5000);
  const GemmProblem large = GemmProblem::packed(64, 64, 20000, 1.0f, 0.5f);
  const auto expected_small = run_blocked(small, {{"SPLIT_K", 4}}).c;
  const auto expected_large = run_blocked(large, {{"SPLIT_K", 8}}).c;
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int call = 0; call < 3; ++call) {
        const bool big = (t + call) % 2 == 0;  // different workspace sizes interleave
        const auto out =
            big ? run_blocked(large, {{"SPLIT_K", 8}}) : run_blocked(small, {{"SPLIT_K", 4}});
        if (!out.check.passed || out.c != (big ? expected_large : expected_small)) ++wrong[t];
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST(SplitK, HostParametersAreChecked) {
  try {
    run_blocked(padded_problem(8, 8, 8), {{"SPLIT_K", -1}});
    ADD_FAILURE() << "SPLIT_K = -1 was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(error.what()).find("SPLIT_K = -1 is outside 0..65536"), std::string::npos)
        << error.what();
  }
  const GemmProblem p = padded_problem(8, 8, 8);
  std::vector<float> a(p.a_elements()), b(p.b_elements()), c(p.c_elements());
  RunSettings tile;
  tile.kernel = "tile";
  tile.overrides = {{"SPLIT_K", 2}};
  EXPECT_THROW(shared_context().sgemm(p, a.data(), b.data(), c.data(), tile), Error);
  // Parsed like any parameter, e.g. from the C API's kernel string.
  EXPECT_EQ(parse_kernel_selection("blocked:SPLIT_K=8").overrides.at("SPLIT_K"), 8);
}

// A forced split whose S slabs of M x N exceed a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE fails
// before any buffer is looked at.
TEST(SplitK, WorkspaceLimit) {
  const DeviceLimits& device = shared_context().device();
  const std::int64_t m = 2048, n = 2048;
  const std::size_t slab = std::size_t(m * n) * sizeof(float);
  const std::size_t slices = device.max_allocation_bytes / 4 / slab + 1;
  if (slices > 65536) GTEST_SKIP() << "the device's allocation limit is too large to reach";
  GemmProblem p = GemmProblem::packed(m, n, std::int64_t(slices) * 256);
  cl_int status = CL_SUCCESS;
  cl_mem tiny =
      clCreateBuffer(shared_context().opencl_context(), CL_MEM_READ_WRITE, 64, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(shared_context().opencl_context(),
                                                shared_context().opencl_device(), 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  RunSettings settings;
  settings.kernel = "blocked";
  settings.overrides = {{"SPLIT_K", long(slices)}};
  try {
    shared_context().sgemm(p, tiny, tiny, tiny, queue, nullptr, settings);
    ADD_FAILURE() << "the workspace limit was not enforced";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::AllocationTooLarge);
    EXPECT_NE(std::string(error.what()).find("workspace limit"), std::string::npos) << error.what();
  }
  clReleaseCommandQueue(queue);
  clReleaseMemObject(tiny);
}

// The buffer path: the first launch waits for the caller's events, the returned event is the
// last launch's, on an in-order queue and (where the device offers one) an out-of-order one.
TEST(SplitK, BufferPathWaitListAndEvent) {
  const cl_context context = shared_context().opencl_context();
  const cl_device_id device = shared_context().opencl_device();
  for (const auto properties : queue_kinds()) {
    SCOPED_TRACE(properties ? "out-of-order queue" : "in-order queue");
    cl_int status = CL_SUCCESS;
    cl_command_queue queue = clCreateCommandQueue(context, device, properties, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    const GemmProblem p =
        offset_problem(64, 64, 20000, Layout::RowMajor, Transpose::NoTrans, Transpose::Trans);
    auto a = random_matrix(p.a_elements(), 41), b = random_matrix(p.b_elements(), 42);
    auto c = random_matrix(p.c_elements(), 43);
    const auto c_before = c;
    auto make = [&](std::vector<float>& data) {
      cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                data.size() * sizeof(float), data.data(), &status);
      EXPECT_EQ(status, CL_SUCCESS);
      return m;
    };
    cl_mem a_mem = make(a), b_mem = make(b), c_mem = make(c);
    cl_event gate = clCreateUserEvent(context, &status);
    ASSERT_EQ(status, CL_SUCCESS);
    RunSettings settings;
    settings.kernel = "blocked";
    settings.overrides = {{"SPLIT_K", 6}};
    cl_event done = nullptr;
    const GemmRecord record =
        shared_context().sgemm(p, a_mem, b_mem, c_mem, queue, &done, settings, {gate});
    ASSERT_NE(done, nullptr);
    EXPECT_EQ(record.split_k, 6);
    EXPECT_EQ(record.launches, 2u);
    clFlush(queue);
    cl_int state = 0;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
    EXPECT_NE(state, CL_COMPLETE);  // the first launch still waits for the gate
    ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ASSERT_EQ(clWaitForEvents(1, &done), CL_SUCCESS);
    std::vector<float> result(c.size());
    // Read after the event only: on an out-of-order queue nothing else orders it.
    ASSERT_EQ(clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, result.size() * sizeof(float),
                                  result.data(), 1, &done, nullptr),
              CL_SUCCESS);
    const auto check = verify_gemm(p, a.data(), b.data(), c_before.data(), result.data());
    EXPECT_TRUE(check.passed) << check.first_failure;
    clReleaseEvent(done);
    clReleaseEvent(gate);
    for (cl_mem m : {a_mem, b_mem, c_mem}) clReleaseMemObject(m);
    clReleaseCommandQueue(queue);
  }
}

TEST(AlignedCopy, ForcedOnOddShapes) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        const auto p = offset_problem(129, 131, 133, layout, ta, tb);
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "col") + " " +
                     (ta == Transpose::Trans ? "T" : "N") + (tb == Transpose::Trans ? "T" : "N"));
        const auto out = run_blocked(p, {{"ALIGN_COPY", 2}, {"SPLIT_K", 1}});
        EXPECT_TRUE(out.check.passed) << out.check.first_failure;
        EXPECT_TRUE(out.record.copied_a);
        EXPECT_TRUE(out.record.copied_b);
        EXPECT_EQ(out.record.launches, 3u);
        EXPECT_NE(out.record.build_options.find("-D A_ALIGNED=1 -D B_ALIGNED=1"), std::string::npos)
            << out.record.build_options;
      }
}

TEST(AlignedCopy, OneOperandWithSplitK) {
  // Only A unaligned (lda = k + 3); B packed with N a multiple of 16, in a buffer OpenCL
  // allocated (so aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, unlike a host array used in place).
  GemmProblem p = GemmProblem::packed(129, 256, 2000, 0.5f, 2.0f);
  p.lda = p.k + 3;
  const cl_context context = shared_context().opencl_context();
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context, shared_context().opencl_device(), 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  auto a = random_matrix(p.a_elements(), 51), b = random_matrix(p.b_elements(), 52);
  auto c = random_matrix(p.c_elements(), 53);
  const auto c_before = c;
  auto make = [&](std::vector<float>& data) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              data.size() * sizeof(float), data.data(), &status);
    EXPECT_EQ(status, CL_SUCCESS);
    return m;
  };
  cl_mem a_mem = make(a), b_mem = make(b), c_mem = make(c);
  RunSettings settings;
  settings.kernel = "blocked";
  settings.overrides = {{"ALIGN_COPY", 2}, {"SPLIT_K", 3}};
  const GemmRecord record =
      shared_context().sgemm(p, a_mem, b_mem, c_mem, queue, nullptr, settings);
  std::vector<float> result(c.size());
  ASSERT_EQ(clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, result.size() * sizeof(float),
                                result.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  const auto check = verify_gemm(p, a.data(), b.data(), c_before.data(), result.data());
  EXPECT_TRUE(check.passed) << check.first_failure;
  EXPECT_TRUE(record.copied_a);
  EXPECT_FALSE(record.copied_b) << record.kernel_choice;
  EXPECT_EQ(record.split_k, 3);
  EXPECT_EQ(record.launches, 3u);  // copy, partial products, reduction
  for (cl_mem m : {a_mem, b_mem, c_mem}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
}

TEST(AlignedCopy, SmallProblemsAreNotCopied) {
  const auto out = run_blocked(
      offset_problem(129, 131, 133, Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans), {});
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(out.record.copied_a || out.record.copied_b);
  EXPECT_NE(out.record.kernel_choice.find("not copied"), std::string::npos)
      << out.record.kernel_choice;
  const auto never =
      run_blocked(offset_problem(9, 9, 9, Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans),
                  {{"ALIGN_COPY", 0}});
  EXPECT_TRUE(never.check.passed) << never.check.first_failure;
  EXPECT_EQ(never.record.launches, 1u);
}

}  // namespace
}  // namespace clgemm::testing
