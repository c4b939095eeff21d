// Fault injection: kernel directories that are missing or hold unusable files, sources that
// do not build or lack their entry point, requests beyond the device's allocation limits or
// beyond 32-bit element counts, and one Context used from several threads at once. Every
// failure must be a clgemm::Error naming the problem and must leave the caller's C untouched.
// (errors_test.cpp covers the plain argument errors and the basic build failure.)
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "clgemm/clgemm.h"
#include "test_support.hpp"

namespace clgemm::testing {
namespace {
namespace fs = std::filesystem;

// A fresh temporary directory, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "clgemm-fault-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
  }

 private:
  fs::path path_;
};

// Sets CLGEMM_KERNEL_DIR for the scope and restores what was there before.
class KernelDirOverride {
 public:
  explicit KernelDirOverride(const fs::path& dir) {
    if (const char* old = std::getenv("CLGEMM_KERNEL_DIR")) previous_ = old;
    setenv("CLGEMM_KERNEL_DIR", dir.c_str(), 1);
  }
  ~KernelDirOverride() {
    if (previous_)
      setenv("CLGEMM_KERNEL_DIR", previous_->c_str(), 1);
    else
      unsetenv("CLGEMM_KERNEL_DIR");
  }

 private:
  std::optional<std::string> previous_;
};

// Runs sgemm on small arrays (64 floats each, whatever the problem claims) and expects an
// error of `code` whose message contains `needle`, with C exactly as it was.
template <typename ErrorType = Error>
void expect_failure(Context& context, const GemmProblem& problem, const std::string& kernel,
                    ErrorCode code, const std::string& needle) {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 42.0f);
  const auto c_before = c;
  RunSettings settings;
  settings.kernel = kernel;
  try {
    context.sgemm(problem, a.data(), b.data(), c.data(), settings);
    ADD_FAILURE() << "expected an error mentioning '" << needle << "'";
  } catch (const ErrorType& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
  EXPECT_EQ(c, c_before) << "C was modified by a failed call";
}

// check_fits_device refuses `problem` (as device buffers) with an error containing `needle`.
void expect_too_large(const GemmProblem& problem, const std::string& needle) {
  try {
    check_fits_device(problem, shared_context().device());
    ADD_FAILURE() << "expected an error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::AllocationTooLarge) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A small padded problem on `kernel` through `context`, checked against the reference.
void expect_correct(Context& context, const std::string& kernel) {
  const GemmProblem p = padded_problem(19, 23, 29);
  const auto a = random_matrix(p.a_elements(), 1);
  const auto b = random_matrix(p.b_elements(), 2);
  const auto c_before = random_matrix(p.c_elements(), 3);
  auto c = c_before;
  RunSettings settings;
  settings.kernel = kernel;
  context.sgemm(p, a.data(), b.data(), c.data(), settings);
  const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
  EXPECT_TRUE(result.passed) << kernel << ": " << result.first_failure;
}

// --- Kernel directory and kernel sources ------------------------------------------------

// Whether the kernels are found without CLGEMM_KERNEL_DIR (in the build tree or an
// installation): the tests that replace that variable fall back on them.
bool kernels_found_without_override() {
  const auto dirs = kernel_search_path();
  const char* env = std::getenv("CLGEMM_KERNEL_DIR");
  for (std::size_t i = (env && *env) ? 1 : 0; i < dirs.size(); ++i)
    if (fs::is_regular_file(fs::path(dirs[i]) / "tile.cl")) return true;
  return false;
}
#define SKIP_WITHOUT_FALLBACK() \
  if (!kernels_found_without_override()) GTEST_SKIP() << "no kernels outside CLGEMM_KERNEL_DIR"

// CLGEMM_KERNEL_DIR naming a directory that does not exist, or a plain file, is searched
// first and skipped: the build tree's kernels are used.
TEST(Fault, MissingKernelDirFallsBackToTheBuildTree) {
  SKIP_WITHOUT_FALLBACK();
  TempDir tmp;
  tmp.write("not-a-directory", "x");
  for (const fs::path dir : {tmp.path() / "does-not-exist", tmp.path() / "not-a-directory"}) {
    KernelDirOverride env(dir);
    ASSERT_EQ(kernel_search_path().front(), dir.string());
    EXPECT_NE(fs::path(kernel_source_path("tile.cl")).parent_path(), dir);
    Context context;
    expect_correct(context, "tile");
  }
}

// An entry that exists but cannot be read as a file (here a directory named like the kernel;
// for a non-root user also a file without read permission) is skipped like a missing one, and
// when nothing usable is found the message lists every place with what was wrong there.
TEST(Fault, UnreadableKernelFileIsSkippedAndReported) {
  SKIP_WITHOUT_FALLBACK();
  TempDir tmp;
  fs::create_directory(tmp.path() / "tile.cl");
  fs::create_directory(tmp.path() / "no_such_kernel.cl");
  KernelDirOverride env(tmp.path());
  EXPECT_NE(fs::path(kernel_source_path("tile.cl")).parent_path(), tmp.path());
  Context context;
  expect_correct(context, "tile");

  try {
    kernel_source_path("no_such_kernel.cl");
    FAIL() << "a directory was read as a kernel source";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::KernelSourceNotFound);
    const std::string message = e.what();
    const auto dirs = kernel_search_path();
    ASSERT_EQ(dirs.front(), tmp.path().string());
    for (const auto& dir : dirs)
      EXPECT_NE(message.find(dir), std::string::npos) << dir << " missing from: " << message;
    EXPECT_NE(message.find((tmp.path() / "no_such_kernel.cl").string() +
                           " (exists, but is not a readable file)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("set CLGEMM_KERNEL_DIR"), std::string::npos) << message;
  }

  if (geteuid() == 0) return;  // root reads files whatever their permissions
  tmp.write("coarsened.cl", "__kernel void gemm_coarsened() {}\n");
  fs::permissions(tmp.path() / "coarsened.cl", fs::perms::none);
  EXPECT_NE(fs::path(kernel_source_path("coarsened.cl")).parent_path(), tmp.path());
}

// A directory named by set_kernel_directory() (as the Python package names the kernels it
// carries) is searched right after $CLGEMM_KERNEL_DIR: its kernels are used, the tuning/ beside
// it is the shipped tuning directory, and naming "" removes it from the search path.
TEST(Fault, ProgramKernelDirectoryComesAfterTheVariable) {
  SKIP_WITHOUT_FALLBACK();
  TempDir tmp;
  const fs::path kernels = tmp.path() / "kernels", tuning = tmp.path() / "tuning";
  fs::copy(fs::path(kernel_source_path("tile.cl")).parent_path(), kernels);
  fs::create_directory(tuning);
  struct Reset {
    ~Reset() { set_kernel_directory(""); }
  } reset;
  set_kernel_directory(kernels.string());

  const char* env = std::getenv("CLGEMM_KERNEL_DIR");
  const bool env_set = env && *env;
  const auto dirs = kernel_search_path();
  ASSERT_GT(dirs.size(), env_set ? 1u : 0u);
  EXPECT_EQ(dirs[env_set ? 1 : 0], kernels.string());
  if (!env_set) {
    EXPECT_EQ(fs::path(kernel_source_path("tile.cl")).parent_path(), kernels);
    EXPECT_EQ(TuningDatabase::shipped_directory(), tuning.string());
    Context context;
    expect_correct(context, "tile");
  }

  set_kernel_directory("");
  for (const auto& dir : kernel_search_path()) EXPECT_NE(dir, kernels.string());
}

// The .cl file is found but its #include is not (includes resolve in the file's directory).
TEST(Fault, MissingIncludeNamesTheFileAndTheDirectory) {
  TempDir tmp;
  tmp.write("tile.cl", "#include \"gemm_common.clh\"\n__kernel void gemm_tile() {}\n");
  KernelDirOverride env(tmp.path());
  Context context;
  expect_failure(
      context, GemmProblem::packed(4, 4, 4), "tile", ErrorCode::KernelSourceNotFound,
      "tile.cl includes \"gemm_common.clh\", which is missing from " + tmp.path().string());
}

// A source that compiles but does not define the kernel's entry point (empty, or a foreign
// kernel) is a BuildError naming the entry point, not a raw OpenCL exception.
TEST(Fault, SourceWithoutTheEntryPointIsABuildError) {
  for (const std::string text : {std::string(), std::string("__kernel void other() {}\n")}) {
    TempDir tmp;
    tmp.write("tile.cl", text);
    KernelDirOverride env(tmp.path());
    Context context;
    expect_failure<BuildError>(context, GemmProblem::packed(4, 4, 4), "tile",
                               ErrorCode::BuildFailed, "no __kernel 'gemm_tile'");
  }
}

// A build failure inside sgemm: C untouched, the failure is not cached as a success (a second
// call fails again), and the same Context still runs another kernel.
TEST(Fault, BuildFailureInSgemmLeavesTheContextUsable) {
  SKIP_WITHOUT_FALLBACK();
  TempDir tmp;
  tmp.write("tile.cl", "__kernel void gemm_tile(__global float* C) { C[0] = ; }\n");
  KernelDirOverride env(tmp.path());
  Context context;
  for (int attempt = 0; attempt < 2; ++attempt)
    expect_failure<BuildError>(context, GemmProblem::packed(5, 6, 7), "tile",
                               ErrorCode::BuildFailed, "building kernel 'tile'");
  expect_correct(context, "base");
}

// --- Sizes the device or 32-bit arithmetic cannot hold ------------------------------------

// What check_fits_device says of problems too large to hold on the device as buffers (the
// host-array path streams them instead: host/ tests). errors_test.cpp covers A above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE; B and C are checked too. Rows of INT_MAX floats, as many as it
// takes to exceed this device's limit.
TEST(Fault, BAndCAboveTheDeviceMaximumAllocation) {
  const std::size_t limit = shared_context().device().max_allocation_bytes;
  const std::int64_t rows = std::int64_t(limit / (4 * std::size_t(INT_MAX))) + 2;
  GemmProblem p = GemmProblem::packed(4, 4, rows);
  p.ldb = INT_MAX;
  ASSERT_GT(p.b_elements() * 4, limit);
  expect_too_large(p, "matrix B needs");
  p = GemmProblem::packed(rows, 4, 4);
  p.ldc = INT_MAX;
  ASSERT_GT(p.c_elements() * 4, limit);
  expect_too_large(p, "matrix C needs");
}

// A bias vector whose span (offset to the last product's bias) is above the device's largest
// allocation is refused like the matrices, naming the bias.
TEST(Fault, BiasAboveTheDeviceMaximumAllocation) {
  const std::size_t limit = shared_context().device().max_allocation_bytes;
  GemmProblem p = GemmProblem::packed_batch(4, 4, 4, 2);
  p.stride_a = p.stride_b = 0;
  p.stride_c = 16;
  std::vector<float> bias(4, 1.0f);
  p.epilogue.bias = Bias::PerColumn;
  p.epilogue.bias_data = bias.data();
  p.epilogue.bias_stride = std::int64_t(limit / 4);  // the second bias starts past the limit
  ASSERT_GT((p.bias_elements() - p.epilogue.bias_offset) * 4, limit);
  expect_too_large(p, "the bias vector needs");
}

// Each matrix within the single-allocation limit, but A, B and C (twice: beta != 0 keeps a
// copy of C) together above the device's global memory.
TEST(Fault, MatricesTogetherAboveGlobalMemory) {
  const DeviceLimits& d = shared_context().device();
  const std::int64_t e = std::int64_t(std::min<std::size_t>(d.max_allocation_bytes / 4, INT_MAX));
  if (3 * std::size_t(e) * 4 <= d.global_memory_bytes)
    GTEST_SKIP() << "three maximal allocations fit in this device's global memory";
  GemmProblem p;
  p.m = 2, p.n = 1, p.k = 2, p.alpha = 1, p.beta = 0.5f;
  p.lda = e - 2, p.ldb = e - 1, p.ldc = e - 1;  // every matrix exactly e floats
  ASSERT_EQ(p.a_elements(), std::size_t(e));
  ASSERT_EQ(p.b_elements(), std::size_t(e));
  ASSERT_EQ(p.c_elements(), std::size_t(e));
  expect_too_large(p, "A, B and C need " + std::to_string(12 * std::size_t(e)) + " bytes together");
}

// Footprints whose element count exceeds 32 bits are computed in 64 bits, never wrapped to a
// small number: check_fits_device refuses them with the true size. The extreme case, sizes of 2^31
// - 2^20 with leading dimensions of INT_MAX, is about 2^64 - 2^53 bytes: still exact in 64 bits.
TEST(Fault, ElementCountsBeyond32BitsAreExact) {
  const DeviceLimits& d = shared_context().device();
  struct Case {
    GemmProblem problem;
    const char* matrix;
    std::size_t elements;
    const char* kernel;
  };
  GemmProblem tall_a = GemmProblem::packed(65537, 4, 2);
  tall_a.lda = 65537;  // 2^32 + 65538 floats: 65538 if wrapped to 32 bits
  GemmProblem wide_c = GemmProblem::packed(3, 5, 4);
  wide_c.ldc = INT_MAX;
  GemmProblem extreme;  // sizes within every index range, with INT_MAX strides
  extreme.m = extreme.n = extreme.k = 2146435072;  // 2^31 - 2^20
  extreme.lda = extreme.ldb = extreme.ldc = INT_MAX;
  const Case cases[] = {{tall_a, "A", 65536ull * 65537ull + 2, "base"},
                        {wide_c, "C", 2ull * INT_MAX + 5, "tile"},
                        {extreme, "A", 2146435071ull * INT_MAX + 2146435072ull, "vectorized"}};
  for (const Case& c : cases) {
    const std::size_t elements =
        c.matrix[0] == 'A' ? c.problem.a_elements() : c.problem.c_elements();
    ASSERT_EQ(elements, c.elements);
    ASSERT_GT(elements, std::size_t(UINT32_MAX));
    if (elements * 4 <= d.max_allocation_bytes) continue;  // would run: see the next test
    expect_too_large(c.problem, std::string("matrix ") + c.matrix + " needs " +
                                    std::to_string(elements * 4) + " bytes");
  }
}

// Where the device and the host can hold it, a real run whose rows of A and B start beyond
// element 2^32: every kernel must index with 64-bit offsets. Skipped on smaller machines
// (PoCL's 1 GiB allocation limit, for instance).
TEST(Fault, OffsetsBeyond32BitsAreIndexedIn64Bits) {
  const DeviceLimits& d = shared_context().device();
  GemmProblem p = GemmProblem::packed(3, 5, 3, 1.0f, 0.5f);
  p.lda = p.ldb = INT_MAX;  // the last row of A and of B starts at element 2^32 - 2
  const std::size_t bytes = (p.a_elements() + p.b_elements()) * sizeof(float);
  const std::size_t host = std::size_t(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (p.a_elements() * 4 > d.max_allocation_bytes || bytes > d.global_memory_bytes ||
      host < bytes + (std::size_t(8) << 30))
    GTEST_SKIP() << "needs " << bytes << " bytes on the device (largest allocation "
                 << d.max_allocation_bytes << ") and as much free host memory (" << host << ")";
  std::vector<float> a(p.a_elements()), b(p.b_elements());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t row = 0; row < 3; ++row)
    for (std::int64_t col = 0; col < 5; ++col) {
      if (col < p.k) a[std::size_t(row) * std::size_t(p.lda) + col] = uniform(rng);
      b[std::size_t(row) * std::size_t(p.ldb) + col] = uniform(rng);
    }
  const auto c_before = random_matrix(p.c_elements(), 6);
  for (const auto& kernel : fp32_kernel_names()) {
    auto c = c_before;
    RunSettings settings;
    settings.kernel = kernel;
    shared_context().sgemm(p, a.data(), b.data(), c.data(), settings);
    const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
    EXPECT_TRUE(result.passed) << kernel << ": " << result.first_failure;
  }
}

// --- Concurrency --------------------------------------------------------------------------

// One fresh Context (so the first builds race too) used by four threads at once, each making
// several calls with different kernels, shapes, alpha and beta, while a fifth thread makes
// calls that fail. Every result must be correct and every failure clean.
TEST(Fault, OneContextFromSeveralThreads) {
  Context context;
  const auto catalog = fp32_kernel_names();
  std::mutex mutex;
  std::vector<std::string> problems;
  auto report = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    problems.push_back(what);
  };

  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::uniform_int_distribution<std::int64_t> extent(1, 150);
      for (std::size_t call = 0; call < 2 * catalog.size(); ++call) {
        const std::string& kernel = catalog[(t + call) % catalog.size()];
        GemmProblem p = GemmProblem::packed(extent(rng), extent(rng), extent(rng), 1.0f,
                                            call % 2 ? 0.0f : -0.5f);
        p.alpha = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
        p.ldc += call % 3;
        const auto a = random_matrix(p.a_elements(), unsigned(rng()));
        const auto b = random_matrix(p.b_elements(), unsigned(rng()));
        const auto c_before = random_matrix(p.c_elements(), unsigned(rng()));
        auto c = c_before;
        RunSettings settings;
        settings.kernel = kernel;
        // Every other call repeats itself through the measuring module, on buffers.
        const std::string label = "thread " + std::to_string(t) + " call " + std::to_string(call) +
                                  " (" + kernel + " " + std::to_string(p.m) + "x" +
                                  std::to_string(p.n) + "x" + std::to_string(p.k) + ")";
        try {
          if (call % 2) {
            RepeatPolicy policy;
            policy.warmup_runs = 0, policy.min_runs = policy.max_runs = 1, policy.min_seconds = 0;
            measure_gemm(context, p, a.data(), b.data(), c.data(), settings, policy, false);
          } else {
            context.sgemm(p, a.data(), b.data(), c.data(), settings);
          }
          const auto result = verify_gemm(p, a.data(), b.data(), c_before.data(), c.data());
          if (!result.passed) report(label + ": " + result.first_failure);
        } catch (const std::exception& e) {
          report(label + " threw: " + e.what());
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int call = 0; call < 8; ++call) {
      std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 3.0f);
      const auto c_before = c;
      RunSettings settings;
      settings.kernel = call % 2 ? "no-such-kernel" : "coarsened";
      if (call % 2 == 0) settings.overrides = {{"TILE", 30}, {"ITEM", 4}};
      try {
        context.sgemm(GemmProblem::packed(4, 4, 4), a.data(), b.data(), c.data(), settings);
        report("a bad call succeeded");
      } catch (const Error&) {
      } catch (const std::exception& e) {
        report(std::string("a bad call threw a non-clgemm error: ") + e.what());
      }
      if (c != c_before) report("a failed call modified C");
    }
  });
  for (auto& thread : threads) thread.join();
  for (const auto& problem : problems) ADD_FAILURE() << problem;
  EXPECT_TRUE(problems.empty());
}

// Two launches of one kernel build in flight at once, a narrow long one and a wide short one,
// each on a queue of its own: PoCL 5.0 aborted the process when the second finished (see
// src/runtime/launch_order.hpp). Both results must be right, on every implementation.
TEST(Fault, OneKernelInFlightWithTwoGridWidths) {
  Context& context = shared_context();
  cl_int status = CL_SUCCESS;
  cl_command_queue queues[2];
  for (auto& queue : queues) {
    queue = clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
    ASSERT_EQ(status, CL_SUCCESS);
  }
  // base: one 16 x 16 work-group for the narrow problem, a long run; 32 for the wide one.
  const GemmProblem narrow = GemmProblem::packed(16, 16, 300000);
  const GemmProblem wide = GemmProblem::packed(16, 512, 3);
  struct Operands {
    std::vector<float> a, b, c;
    cl_mem a_mem, b_mem, c_mem;
  };
  auto upload = [&](const GemmProblem& p, unsigned seed) {
    Operands o{random_matrix(p.a_elements(), seed),
               random_matrix(p.b_elements(), seed + 1),
               std::vector<float>(p.c_elements()),
               nullptr,
               nullptr,
               nullptr};
    auto buffer = [&](std::vector<float>& data) {
      return clCreateBuffer(context.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            data.size() * sizeof(float), data.data(), &status);
    };
    o.a_mem = buffer(o.a), o.b_mem = buffer(o.b), o.c_mem = buffer(o.c);
    return o;
  };
  Operands n_ops = upload(narrow, 21), w_ops = upload(wide, 31);
  RunSettings settings;
  settings.kernel = "base";
  settings.overrides = {{"WG_X", 16}, {"WG_Y", 16}};
  for (int round = 0; round < 3; ++round) {
    context.sgemm(narrow, n_ops.a_mem, n_ops.b_mem, n_ops.c_mem, queues[0], nullptr, settings);
    clFlush(queues[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the narrow one is running
    context.sgemm(wide, w_ops.a_mem, w_ops.b_mem, w_ops.c_mem, queues[1], nullptr, settings);
    for (auto& queue : queues) ASSERT_EQ(clFinish(queue), CL_SUCCESS);
  }
  for (auto [p, o] : {std::pair{&narrow, &n_ops}, {&wide, &w_ops}}) {
    std::vector<float> result(o->c.size());
    ASSERT_EQ(clEnqueueReadBuffer(queues[0], o->c_mem, CL_TRUE, 0, result.size() * sizeof(float),
                                  result.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    const auto check = verify_gemm(*p, o->a.data(), o->b.data(), o->c.data(), result.data());
    EXPECT_TRUE(check.passed) << check.first_failure;
    for (cl_mem m : {o->a_mem, o->b_mem, o->c_mem}) clReleaseMemObject(m);
  }
  for (auto& queue : queues) clReleaseCommandQueue(queue);
}

}  // namespace
}  // namespace clgemm::testing
