// Edge-aware tiling: where auto's tiles would leave a nearly empty last row and column of
// work-groups, the whole tiles and the thin strips past them run as separate launches. Each
// case is checked against the double host reference, with every element outside C's result
// unchanged, on shapes built from the derived tiles of this device so that the split happens.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// The tests build their shapes from blocked's derived tiles, which `auto` takes on a device
// without tuned entries. Their calls run on a Context of their own whose tuning gives every
// shape class of this device (gemv's and the batches' aside) blocked with those parameters: a
// user tuning file (CLGEMM_TUNING_FILE) whose entries replace the shipped ones of this device
// (PoCL's register_block), read at the Context's first choice. Never destroyed, like
// edge_context().
Context& edge_context() {
  static Context& context = *[] {
    auto* made = new Context();
    const std::string path = ::testing::TempDir() + "clgemm_edge_split_tuning.json";
    std::remove(path.c_str());
    TuningDatabase::update_file(path, [made](TuningDatabase& database) {
      for (const std::string& shape_class : shape_classes()) {
        if (shape_class == "gemv" || shape_class.rfind("batched", 0) == 0) continue;
        TunedEntry entry = TunedEntry::for_device(made->device());
        entry.shape_class = shape_class;
        entry.kernel = "blocked";
        entry.options = derive_options("blocked", made->device());
        entry.gflops = 1000;
        const GemmProblem measured = representative_problem(shape_class);
        entry.m = measured.m, entry.n = measured.n, entry.k = measured.k;
        entry.tuned = "2026-12-06";
        database.put(entry);
      }
    });
    ScopedVariable file("CLGEMM_TUNING_FILE", path);
    made->choose(GemmProblem::packed(64, 64, 64));  // reads the tuning while `file` is set
    return made;
  }();
  return context;
}

std::int64_t tile(const char* name) {
  return derive_options("blocked", edge_context().device()).at(name);
}

// A problem one row and one column past whole tiles, 16 x 8 of them, K = 1024 (at least
// 2^30 multiply-adds, where edges are split), with padded leading dimensions and offsets.
GemmProblem edge_problem(Layout layout, Transpose ta, Transpose tb) {
  GemmProblem p;
  p.layout = layout, p.trans_a = ta, p.trans_b = tb;
  const std::int64_t rows = 16 * tile("TILE_M") + 1, columns = 8 * tile("TILE_N") + 1;
  // The row-major call's rows are a column-major problem's columns.
  p.m = layout == Layout::RowMajor ? rows : columns;
  p.n = layout == Layout::RowMajor ? columns : rows;
  p.k = 1024;
  p.alpha = 1.5f, p.beta = -0.75f;
  p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 5, p.ldc = p.min_ldc() + 2;
  p.a_offset = 7, p.b_offset = 3, p.c_offset = 5;
  return p;
}

// A check in full, or (`sampled`) of 65 evenly spread rows and columns of C, the last one (a
// strip of its own) among them, and all of C's padding.
RunOutcome run(const GemmProblem& problem, const std::string& kernel = "auto",
               const float* c_fill = nullptr, bool sampled = false) {
  return run_checked(problem, kernel_settings(kernel),
                     {c_fill, sampled ? 0.0 : kFullCheckLimit, 65, &edge_context()});
}

bool split(const GemmRecord& record) {
  return record.kernel_choice.find("edge-aware tiling") != std::string::npos;
}

// Row-major NN is checked in full; the other seven on sampled lines (each 2^29 multiply-adds:
// in full, their double reference alone took over a minute in the sanitized build).
TEST(EdgeSplit, EveryLayoutAndTranspose) {
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        const GemmProblem p = edge_problem(layout, ta, tb);
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "column") + "-major " +
                     (ta == Transpose::Trans ? "T" : "N") + (tb == Transpose::Trans ? "T" : "N"));
        const bool first =
            layout == Layout::RowMajor && ta == Transpose::NoTrans && tb == Transpose::NoTrans;
        const RunOutcome out = run(p, "auto", nullptr, !first);
        EXPECT_TRUE(out.check.passed) << out.check.first_failure;
        if (!first) EXPECT_TRUE(out.check.sampled);  // (a large device's tiles sample all)
        ASSERT_TRUE(split(out.record)) << out.record.kernel_choice;
        // The last row and the last column, each a strip of its own.
        EXPECT_NE(out.record.kernel_choice.find("the last 1 row of C"), std::string::npos)
            << out.record.kernel_choice;
        EXPECT_NE(out.record.kernel_choice.find("the last 1 column of C"), std::string::npos)
            << out.record.kernel_choice;
        EXPECT_GE(out.record.launches, 3u);
      }
}

TEST(EdgeSplit, EpilogueBiasFollowsEachStrip) {
  // A row-major problem's per-row bias is the kernels' per-row one, a column-major
  // problem's their per-column one: the strips move each by their first row or column.
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
    const Bias bias = Bias::PerRow;
    GemmProblem p = edge_problem(layout, Transpose::NoTrans, Transpose::Trans);
    const auto vector = random_matrix(std::size_t(std::max(p.m, p.n) + 9), 44);
    p.epilogue.bias = bias;
    p.epilogue.bias_data = vector.data();
    p.epilogue.bias_offset = 9;
    p.epilogue.activation = Activation::GELU;
    SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "column") + "-major");
    const RunOutcome out = run(p);
    EXPECT_TRUE(split(out.record)) << out.record.kernel_choice;
    EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  }
}

TEST(EdgeSplit, BetaZeroNeverReadsC) {
  GemmProblem p = edge_problem(Layout::RowMajor, Transpose::Trans, Transpose::NoTrans);
  p.beta = 0.0f;
  const RunOutcome out = run(p, "auto", &kNaN);
  EXPECT_TRUE(split(out.record)) << out.record.kernel_choice;
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
}

TEST(EdgeSplit, OnlyWhereItPays) {
  // A kernel the caller names runs as asked, in one launch.
  const GemmProblem p = edge_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  const RunOutcome named = run(p, "blocked");
  EXPECT_TRUE(named.check.passed) << named.check.first_failure;
  EXPECT_FALSE(split(named.record)) << named.record.kernel_choice;
  // A row and column of tiles that are full enough, and a problem too small to pay for the
  // strips' launches, are not split.
  GemmProblem full = p;
  full.m = 16 * tile("TILE_M") - 1, full.n = 8 * tile("TILE_N") - 1;
  full.lda = full.min_lda(), full.ldb = full.min_ldb(), full.ldc = full.min_ldc();
  const RunOutcome whole = run(full);
  EXPECT_TRUE(whole.check.passed) << whole.check.first_failure;
  EXPECT_FALSE(split(whole.record)) << whole.record.kernel_choice;
  GemmProblem small = p;
  small.k = 16;
  const RunOutcome out = run(small);
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  EXPECT_FALSE(split(out.record)) << out.record.kernel_choice;
}

// The caller's parameters under `auto` follow each strip as far as its kernel takes them: a
// host parameter of blocked (ALIGN_COPY) is kept for the whole tiles and left out for a strip
// `auto` gives to another kernel (gemv on a CPU's one-row strip), where it used to be refused;
// a parameter no kernel of the call takes is still an error naming it.
TEST(EdgeSplit, CallersParametersFollowTheStripsThatTakeThem) {
  const GemmProblem p = edge_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  const RunOutcome out = run_checked(p, kernel_settings("auto", {{"ALIGN_COPY", 0}}),
                                     {nullptr, 0.0, 65, &edge_context()});
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  ASSERT_TRUE(split(out.record)) << out.record.kernel_choice;
  EXPECT_NE(out.record.kernel_choice.find("not copied (ALIGN_COPY = 0)"), std::string::npos)
      << out.record.kernel_choice;
  EXPECT_FALSE(out.record.copied_a || out.record.copied_b);
  try {
    run_checked(p, kernel_settings("auto", {{"NO_SUCH_PARAMETER", 1}}),
                {nullptr, 0.0, 65, &edge_context()});
    FAIL() << "an unknown parameter was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(error.what()).find("NO_SUCH_PARAMETER"), std::string::npos)
        << error.what();
  }
}

// On device buffers the strips follow the whole tiles: on an in-order queue by its order, on
// an out-of-order one through each part's event; the first part waits for the caller's events,
// and an event asked for is the last strip's. Without an event the caller's clFinish waits for
// every part.
TEST(EdgeSplit, PartsKeepTheirOrderOnEveryKindOfQueue) {
  const cl_context context = edge_context().opencl_context();
  const cl_device_id device = edge_context().opencl_device();
  const GemmProblem p = edge_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  auto a = random_matrix(p.a_elements(), 61), b = random_matrix(p.b_elements(), 62);
  const auto c_before = random_matrix(p.c_elements(), 63);
  for (const auto properties : queue_kinds())
    for (const bool with_event : {true, false}) {
      SCOPED_TRACE(std::string(properties ? "out-of-order" : "in-order") + " queue, " +
                   (with_event ? "with" : "without") + " an event");
      cl_int status = CL_SUCCESS;
      cl_command_queue queue = clCreateCommandQueue(context, device, properties, &status);
      ASSERT_EQ(status, CL_SUCCESS);
      auto make = [&](const std::vector<float>& data) {
        cl_mem m =
            clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                           data.size() * sizeof(float), const_cast<float*>(data.data()), &status);
        EXPECT_EQ(status, CL_SUCCESS);
        return m;
      };
      cl_mem a_mem = make(a), b_mem = make(b), c_mem = make(c_before);
      cl_event gate = clCreateUserEvent(context, &status);
      ASSERT_EQ(status, CL_SUCCESS);
      cl_event done = nullptr;
      const GemmRecord record = edge_context().sgemm(p, a_mem, b_mem, c_mem, queue,
                                                     with_event ? &done : nullptr, {}, {gate});
      ASSERT_TRUE(split(record)) << record.kernel_choice;
      EXPECT_EQ(done != nullptr, with_event);
      clFlush(queue);
      if (done) {
        cl_int state = 0;
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
        EXPECT_NE(state, CL_COMPLETE);  // the first part still waits for the gate
      }
      ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
      if (done) ASSERT_EQ(clWaitForEvents(1, &done), CL_SUCCESS);
      ASSERT_EQ(clFinish(queue), CL_SUCCESS);
      std::vector<float> result(c_before.size());
      ASSERT_EQ(clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, result.size() * sizeof(float),
                                    result.data(), 0, nullptr, nullptr),
                CL_SUCCESS);
      const auto check = verify_gemm(p, a.data(), b.data(), c_before.data(), result.data(), 0, 65);
      EXPECT_TRUE(check.passed) << check.first_failure;
      if (done) clReleaseEvent(done);
      clReleaseEvent(gate);
      for (cl_mem m : {a_mem, b_mem, c_mem}) clReleaseMemObject(m);
      clReleaseCommandQueue(queue);
    }
}

TEST(EdgeSplit, BatchesAreNotSplit) {
  GemmProblem p = edge_problem(Layout::RowMajor, Transpose::NoTrans, Transpose::NoTrans);
  p.batch = 2;
  p.stride_a = std::int64_t(p.a_elements());
  p.stride_b = std::int64_t(p.b_elements());
  p.stride_c = std::int64_t(p.c_elements());
  const RunOutcome out = run(p);
  EXPECT_TRUE(out.check.passed) << out.check.first_failure;
  // The call's plan keeps the batch whole, one launch over its products. (From host arrays on
  // a GPU, the host-memory engine may still send the products as tiles of their own, each
  // planned, and so possibly split, alone: the record of such a call names its tiles.)
  const KernelChoice choice = edge_context().choose(p);
  EXPECT_EQ(choice.reason.find("edge-aware tiling"), std::string::npos) << choice.reason;
}

}  // namespace
}  // namespace clgemm::testing
