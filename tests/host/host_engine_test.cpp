// The host-memory engine through the public API: the copying engine forced on any device
// (CLGEMM_HOST_COPY=1) and cut into many small tiles (CLGEMM_HOST_TILE) so that every
// edge, slab of K, batch group and epilogue offset is exercised on small shapes, out of core
// under a tiny CLGEMM_DEVICE_MEMORY_LIMIT, from several threads at once, and the in-place path
// of devices that share host memory. Every result is checked against the double reference,
// padding included.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

// The streaming engine with tiles of `edge` (M, N and K alike).
struct Streamed {
  ScopedVariable copy{"CLGEMM_HOST_COPY", "1"};
  ScopedVariable tile;
  explicit Streamed(const char* edge) : tile("CLGEMM_HOST_TILE", edge) {}
};

// Runs `problem` on random arrays (C pre-filled with `c_fill` where given) with `kernel` and
// checks it, the record's reason returned through `reason`.
void expect_correct(const GemmProblem& problem, const std::string& kernel = "tile",
                    std::optional<float> c_fill = std::nullopt, std::string* reason = nullptr) {
  const auto a = random_matrix(problem.a_elements(), 21);
  const auto b = random_matrix(problem.b_elements(), 22);
  auto c_before = random_matrix(problem.c_elements(), 23);
  if (c_fill) std::fill(c_before.begin(), c_before.end(), *c_fill);
  std::vector<float> bias = random_matrix(problem.bias_elements(), 24);
  GemmProblem p = problem;
  if (p.epilogue.bias != Bias::None) p.epilogue.bias_data = bias.data();
  auto c = c_before;
  RunSettings settings;
  settings.kernel = kernel;
  const GemmRecord record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
  if (reason) *reason = record.kernel_choice;
  if (c_fill && std::isnan(*c_fill)) {
    // beta = 0 never reads C: the reference starts from zeros where the call wrote.
    for (std::int64_t q = 0; q < p.batch; ++q)
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) c_before[p.product(q).c_index(i, j)] = 0.0f;
  }
  const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
  EXPECT_TRUE(result.passed) << result.first_failure << " (" << record.kernel_choice << ")";
}

TEST(HostEngine, ManyTilesEveryLayoutAndTranspose) {
  Streamed streamed("16");
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor})
    for (Transpose ta : {Transpose::NoTrans, Transpose::Trans})
      for (Transpose tb : {Transpose::NoTrans, Transpose::Trans}) {
        GemmProblem p;
        p.layout = layout, p.trans_a = ta, p.trans_b = tb;
        p.m = 37, p.n = 53, p.k = 29, p.alpha = 1.25f, p.beta = -0.5f;
        p.lda = p.min_lda() + 3, p.ldb = p.min_ldb() + 1, p.ldc = p.min_ldc() + 2;
        p.a_offset = 5, p.b_offset = 7, p.c_offset = 3;
        SCOPED_TRACE(std::string(layout == Layout::RowMajor ? "row" : "col") +
                     (ta == Transpose::Trans ? " A^T" : " A") +
                     (tb == Transpose::Trans ? " B^T" : " B"));
        std::string reason;
        expect_correct(p, "tile", std::nullopt, &reason);
        EXPECT_NE(reason.find("host engine: 12 tile(s) of 16 x 16, K in 2 slabs of 16"),
                  std::string::npos)
            << reason;
      }
}

TEST(HostEngine, TallWideThinAndOne) {
  for (const char* tiles : {"32", "24x40"}) {  // K in slabs; K whole
    Streamed streamed(tiles);
    for (auto [m, n, k] :
         {std::tuple{1, 1, 1}, {200, 3, 5}, {3, 150, 7}, {9, 11, 300}, {65, 1, 33}})
      expect_correct(GemmProblem::packed(m, n, k, 0.5f, 2.0f));
  }
}

TEST(HostEngine, BetaZeroNeverReadsCAndAlphaZeroOnlyScales) {
  Streamed streamed("16");
  GemmProblem p = padded_problem(40, 35, 20);
  p.beta = 0.0f;
  expect_correct(p, "tile", std::numeric_limits<float>::quiet_NaN());
  p.alpha = 0.0f, p.beta = 0.5f;
  expect_correct(p);
  p.k = 0;
  expect_correct(p);
}

TEST(HostEngine, StridedBatchesWithASharedOperandAndBias) {
  Streamed streamed("24");
  GemmProblem p = GemmProblem::packed_batch(10, 12, 9, 7, 1.5f, 0.25f);
  p.stride_a = 0;  // one A for every product
  p.epilogue.bias = Bias::PerRow;
  p.epilogue.bias_stride = 10;
  p.epilogue.activation = Activation::ReLU;
  expect_correct(p);
  p.epilogue.bias = Bias::PerColumn;
  p.epilogue.bias_stride = 0;
  expect_correct(p);
}

TEST(HostEngine, LargeProductsOfABatchAreTiledWithTheirBias) {
  Streamed streamed("16");
  GemmProblem p = GemmProblem::packed_batch(33, 40, 20, 3, 1.0f, 1.0f);
  p.layout = Layout::ColumnMajor;
  p.lda = 33, p.ldb = 20, p.ldc = 34;
  p.stride_c = 34 * 40;
  p.epilogue.bias = Bias::PerRow;
  p.epilogue.bias_offset = 2;
  p.epilogue.bias_stride = 40;
  p.epilogue.activation = Activation::GELU;
  expect_correct(p);
  p.epilogue.bias = Bias::PerColumn;
  expect_correct(p);
}

TEST(HostEngine, ProductTable) {
  Streamed streamed("16");
  GemmProblem p = GemmProblem::packed(12, 10, 8);
  p.batch = 4;
  std::vector<BatchProduct> table = {{0, 80, 360, 1.0f, 0.0f},
                                     {96, 0, 0, 2.0f, 0.5f},
                                     {96, 160, 240, -1.0f, 1.0f},
                                     {192, 80, 120, 0.5f, 0.0f}};
  p.products.host = table.data();
  p.epilogue.bias = Bias::PerRow;  // product p's bias at bias_offset + p * bias_stride
  p.epilogue.bias_offset = 1;
  p.epilogue.bias_stride = 12;
  p.epilogue.activation = Activation::Clamp;
  p.epilogue.clamp_low = -0.5f, p.epilogue.clamp_high = 2.0f;
  for (Layout layout : {Layout::RowMajor, Layout::ColumnMajor}) {
    p.layout = layout;
    p.lda = p.min_lda(), p.ldb = p.min_ldb(), p.ldc = p.min_ldc();
    expect_correct(p);
    for (std::int64_t edge : {5, 40}) {  // tiles inside each product; several products a piece
      const std::string text = std::to_string(edge);
      ScopedVariable tile("CLGEMM_HOST_TILE", text.c_str());
      expect_correct(p);
    }
  }
}

TEST(HostEngine, OutOfCoreUnderAOneMebibyteLimit) {
  ScopedVariable copy("CLGEMM_HOST_COPY", "1");
  ScopedVariable limit("CLGEMM_DEVICE_MEMORY_LIMIT", "1M");
  GemmProblem p = padded_problem(300, 200, 500);  // 0.6 + 0.4 + 0.24 MB, twice C's with beta
  std::string reason;
  expect_correct(p, "tile", std::nullopt, &reason);
  EXPECT_NE(reason.find("host engine:"), std::string::npos) << reason;
  EXPECT_NE(reason.find("slabs"), std::string::npos) << reason;
}

TEST(HostEngine, LimitTooSmallForTheSmallestTilesNamesTheLimit) {
  ScopedVariable copy("CLGEMM_HOST_COPY", "1");
  ScopedVariable limit("CLGEMM_DEVICE_MEMORY_LIMIT", "64K");
  const GemmProblem p = GemmProblem::packed(300, 200, 500);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  std::vector<float> c(p.c_elements(), 7.0f);
  try {
    shared_context().sgemm(p, a.data(), b.data(), c.data());
    FAIL() << "expected AllocationTooLarge";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::AllocationTooLarge);
    EXPECT_NE(std::string(e.what()).find("above the limit of 65536 bytes "
                                         "(CLGEMM_DEVICE_MEMORY_LIMIT = 64K)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(c, std::vector<float>(p.c_elements(), 7.0f));
}

TEST(HostEngine, InvalidSettingsNameTheVariableAndTheForm) {
  const GemmProblem p = GemmProblem::packed(4, 4, 4);
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 3.0f);
  for (auto [name, value, needle] :
       {std::tuple{"CLGEMM_DEVICE_MEMORY_LIMIT", "12X",
                   "CLGEMM_DEVICE_MEMORY_LIMIT = '12X' is not a byte count: expected a whole "
                   "number of bytes from 1, with an optional K, M or G suffix"},
        {"CLGEMM_DEVICE_MEMORY_LIMIT", "0", "is not a byte count"},
        {"CLGEMM_HOST_TILE", "-3", "CLGEMM_HOST_TILE = '-3' is not a tile edge"},
        {"CLGEMM_HOST_TILE", "16x", "expected E (tiles of E x E, K in slabs of E) or MxN"}}) {
    ScopedVariable bad(name, value);
    try {
      shared_context().sgemm(p, a.data(), b.data(), c.data());
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_EQ(c, std::vector<float>(16, 3.0f));
  }
}

TEST(HostEngine, EightThreadsAtOnce) {
  Streamed streamed("16");
  std::vector<std::thread> threads;
  std::vector<std::string> failures(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &failures] {
      for (int call = 0; call < 3; ++call) {
        GemmProblem p = padded_problem(20 + t, 30 - t, 17 + call);
        const auto a = random_matrix(p.a_elements(), unsigned(t * 10 + call));
        const auto b = random_matrix(p.b_elements(), unsigned(t * 10 + call + 1));
        const auto c_before = random_matrix(p.c_elements(), unsigned(t * 10 + call + 2));
        auto c = c_before;
        RunSettings settings;
        settings.kernel = "tile";
        try {
          shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
          const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
          if (!result.passed) failures[t] = result.first_failure;
        } catch (const std::exception& e) {
          failures[t] = e.what();
        }
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// The default engine (no forced tiles): one piece for small calls, copied or in place.
TEST(HostEngine, SmallCallsCopiedAndInPlace) {
  for (const char* copy : {"1", "0"}) {
    ScopedVariable env("CLGEMM_HOST_COPY", copy);
    expect_correct(GemmProblem::packed(1, 1, 1));
    expect_correct(padded_problem(33, 17, 65));
    GemmProblem p = padded_problem(31, 29, 300);
    RunSettings settings;
    settings.kernel = "blocked";
    settings.overrides = {{"SPLIT_K", 3}};  // several launches: C staged, even in place
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    const auto c_before = random_matrix(p.c_elements(), 3);
    auto c = c_before;
    const GemmRecord record = shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    EXPECT_EQ(record.split_k, 3);
    const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
    EXPECT_TRUE(result.passed) << result.first_failure;
  }
}

}  // namespace
}  // namespace clgemm::testing
