// Fuzzes the C API's argument checking (include/clgemm/clgemm.h) on one context, created once
// per process on the default device. From the input: the precision, layout, transposes, M, N, K,
// leading dimensions, offsets (up to SIZE_MAX, and values whose byte count wraps 2^64), alpha,
// beta, the kernel string, null or foreign buffers and queues; then clgemm_sgemm_buffers on
// sub-buffers placed inside larger parents filled with canaries, and clgemm_sgemm on host arrays
// of exactly the size the problem needs, ending at a guard page.
// Oracle: an independent model of the arguments (extents in 128-bit arithmetic) says which of
// them are at fault. A failing status must name one of those; when none is, the status must be
// CLGEMM_SUCCESS or a failure of the kernel stage (unknown kernel, bad parameters, unsupported
// precision, build or OpenCL failure), and the default kernel must succeed. After the call (and
// clFinish): A and B are unchanged, nothing outside C was written (the parents' canaries, the
// floats before the host arrays; the guard page catches accesses after them), C is unchanged on
// failure, and on success its elements match a double-precision reference while its padding
// keeps its bits. The GEMMs that run are tiny (each matrix at most kCap floats). Every new
// kernel variant (kernel, precision, transposes, operand alignment) is a program build, a few
// seconds each in this process on a cold PoCL cache: once kBuildBudget seconds went to calls
// that built one, a call with valid arguments runs only if its variant ran before, so the
// iterations stay fast.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "clgemm/clgemm.h"
#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/tuning.hpp"

namespace {

using u128 = unsigned __int128;

constexpr std::size_t kCap = 4096;     // the most floats a matrix of a running GEMM holds
constexpr double kBuildBudget = 30;    // seconds of calls that built a program, per process
constexpr double kBuildingCall = 0.2;  // a call this slow built a program (a GEMM takes ~1 ms)
constexpr std::uint32_t kCanary = 0x7fa5c0deu;  // a NaN no computation produces

// ---------------------------------------------------------------------------------------------
// Input

struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  std::uint64_t bytes(int count) {
    std::uint64_t v = 0;
    for (int i = 0; i < count; ++i) v |= std::uint64_t(u8()) << (8 * i);
    return v;
  }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(p), n);
    n = 0;
    return s;
  }
};

std::int64_t pick_size(Reader& r) {
  static const std::int64_t special[] = {0,
                                         -1,
                                         INT32_MIN,
                                         INT32_MAX,
                                         std::int64_t(INT32_MAX) + 1,
                                         std::int64_t(1) << 32,
                                         INT64_MAX,
                                         INT64_MIN,
                                         65536,
                                         std::int64_t(1) << 20};
  const std::uint8_t mode = r.u8();
  if (mode < 160) return 1 + r.u8() % 16;
  if (mode < 200) return r.u8() % 72;
  if (mode < 240) return special[r.u8() % (sizeof special / sizeof *special)];
  return std::int64_t(r.bytes(8));
}

std::int64_t pick_ld(Reader& r, std::int64_t minimum) {
  static const std::int64_t special[] = {
      0, -1, INT32_MAX, std::int64_t(INT32_MAX) + 1, INT64_MIN, INT64_MAX, std::int64_t(1) << 40};
  const std::uint8_t mode = r.u8();
  if (mode < 160) return std::int64_t(std::uint64_t(minimum) + r.u8() % 4);
  if (mode < 200) return std::int64_t(std::uint64_t(minimum) - 1 - r.u8() % 3);
  if (mode < 240) return special[r.u8() % (sizeof special / sizeof *special)];
  return std::int64_t(r.bytes(8));
}

std::size_t pick_offset(Reader& r) {
  // Bases near which offset * sizeof(float), or offset + extent, wraps 2^64; a small amount is
  // taken off each (so 2^62 - 16 for a 4 x 4 C: its byte count is exactly 2^64).
  static const std::uint64_t bases[] = {std::uint64_t(1) << 62, std::uint64_t(1) << 63,
                                        std::uint64_t(3) << 62, 0 /* 2^64 */,
                                        std::uint64_t(1) << 61, std::uint64_t(1) << 32,
                                        std::uint64_t(1) << 30, std::uint64_t(5) << 60};
  const std::uint8_t mode = r.u8();
  if (mode < 128) return 0;
  if (mode < 176) return r.u8() % 64;
  if (mode < 224) {
    const std::uint64_t base = bases[r.u8() % (sizeof bases / sizeof *bases)];
    return std::size_t(base - r.u8());
  }
  return std::size_t(r.bytes(8));
}

float pick_float(Reader& r) {
  static const float common[] = {1.0f, 0.0f, -1.0f, 0.5f, -0.0f, 2.0f, -2.5f, 0.25f};
  static const float special[] = {1e30f,
                                  -1e-30f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::denorm_min(),
                                  1e4f};
  const std::uint8_t mode = r.u8();
  if (mode < 192) return common[mode % 8];
  if (mode < 240) return special[mode % 8];
  const std::uint32_t bits = std::uint32_t(r.bytes(4));
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

int pick_enum(Reader& r, std::uint8_t first_below, int first, std::uint8_t second_below, int second,
              std::uint8_t third_below, int third) {
  const std::uint8_t mode = r.u8();
  if (mode < first_below) return first;
  if (mode < second_below) return second;
  if (mode < third_below) return third;
  return int(std::uint32_t(r.bytes(4)));
}

// Small tiles for vectorized and blocked: their derived CPU tiles take about 20 s each to
// compile inside an AddressSanitizer process (LLVM in PoCL allocates a lot), these a few.
#define CLGEMM_FUZZ_SMALL_BLOCKED "TILE_M=8,TILE_N=8,TILE_K=4,ITEM_M=4,ITEM_N=4,VEC=4"
const clgemm::KernelOptions kSmallBlocked = {{"TILE_M", 8}, {"TILE_N", 8}, {"TILE_K", 4},
                                             {"ITEM_M", 4}, {"ITEM_N", 4}, {"VEC", 4},
                                             {"UNROLL", 1}};

// The kernel argument: a typical string, NULL, or text from the input.
const char* const kKernels[] = {
    nullptr,
    "",
    "auto",
    "base",
    "row",
    "private",
    "tile",
    "coarsened",
    "vectorized:TILE_M=8,TILE_N=8,TILE_K=4,ITEM_M=2,ITEM_N=2,VEC=2",
    "blocked:" CLGEMM_FUZZ_SMALL_BLOCKED,
    "tile:TILE=4",
    "coarsened:TILE=8,ITEM=2",
    "base:WG_X=4,WG_Y=2",
    "nope",
    "tile:NOPE=1",
    "tile:TILE=0",
    "tile:TILE",
    "tensorcore",
    " blocked : TILE_M = 8 , TILE_N=8,TILE_K=4,ITEM_M=4,ITEM_N=4,VEC=1 ",
    "blocked:VEC=3"};
constexpr std::size_t kKernelCount = sizeof kKernels / sizeof *kKernels;

// ---------------------------------------------------------------------------------------------
// The device side, set up once

struct Device {
  clgemm_context* context = nullptr;
  cl_context cl = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue queue = nullptr;
  cl_context foreign_context = nullptr;  // another OpenCL context on the same device
  cl_command_queue foreign_queue = nullptr;
  cl_mem foreign_buffer = nullptr;
  std::size_t guard = 0;  // floats of canaries before and after each sub-buffer
  cl_mem parent[3] = {nullptr, nullptr, nullptr};
  std::vector<std::uint32_t> image[3];     // what each parent holds before a call
  std::vector<std::uint32_t> c_nan_image;  // C's parent with NaN in the sub-buffer (beta = 0)
  std::vector<std::uint32_t> after[3];     // what each parent holds after a call
};
Device* dev = nullptr;

[[noreturn]] void setup_failure(const std::string& what) {
  std::fprintf(stderr, "fuzz_c_api: setup failed: %s\n", what.c_str());
  std::exit(1);
}

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// The value of element i of A's, B's or C's data: small dyadic fractions (exact in TF32 too).
float data_value(int matrix, std::size_t i) {
  return float(int((i * (31 + 6 * matrix) + 7 * matrix) % 17) - 8) / 8.0f;
}

// The oracle's loops over thousands of floats carry no coverage instrumentation: the feedback
// that matters is the library's, and instrumented they cost most of each iteration.
#define CLGEMM_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))

// The first index below n where a and b differ outside [skip_from, skip_to); n if none.
CLGEMM_FUZZ_NO_COVERAGE std::size_t first_difference(const std::uint32_t* a, const std::uint32_t* b,
                                                     std::size_t n, std::size_t skip_from = 0,
                                                     std::size_t skip_to = 0) {
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i] && (i < skip_from || i >= skip_to)) return i;
  return n;
}

void set_up_device() {
  dev = new Device;
  if (const clgemm_status s = clgemm_context_create(nullptr, nullptr, &dev->context);
      s != CLGEMM_SUCCESS)
    setup_failure(std::string("clgemm_context_create: ") + clgemm_status_string(s) + ": " +
                  clgemm_last_error_message());
  dev->cl = clgemm_context_cl_context(dev->context);
  dev->device = clgemm_context_cl_device(dev->context);
  cl_int status = CL_SUCCESS;
  dev->queue = clCreateCommandQueue(dev->cl, dev->device, 0, &status);
  if (status != CL_SUCCESS) setup_failure("clCreateCommandQueue");
  dev->foreign_context = clCreateContext(nullptr, 1, &dev->device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) setup_failure("clCreateContext");
  dev->foreign_queue = clCreateCommandQueue(dev->foreign_context, dev->device, 0, &status);
  if (status != CL_SUCCESS) setup_failure("clCreateCommandQueue (foreign)");
  dev->foreign_buffer =
      clCreateBuffer(dev->foreign_context, CL_MEM_READ_WRITE, kCap * 4, nullptr, &status);
  if (status != CL_SUCCESS) setup_failure("clCreateBuffer (foreign)");

  // Sub-buffer origins must be aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits). The guard is
  // at least as long as the largest C, so a write at a wrapped (negative) offset lands in it.
  cl_uint align_bits = 0;
  clGetDeviceInfo(dev->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                  nullptr);
  const std::size_t align_floats = std::max<std::size_t>(1, align_bits / 32);
  dev->guard = (kCap + 256 + align_floats - 1) / align_floats * align_floats;
  const std::size_t floats = 2 * dev->guard + kCap;
  for (int m = 0; m < 3; ++m) {
    dev->parent[m] = clCreateBuffer(dev->cl, CL_MEM_READ_WRITE, floats * 4, nullptr, &status);
    if (status != CL_SUCCESS) setup_failure("clCreateBuffer (parent)");
    dev->after[m].resize(floats);
    dev->image[m].assign(floats, kCanary);
    for (std::size_t i = 0; i < kCap; ++i)
      dev->image[m][dev->guard + i] = bits_of(data_value(m, i));
  }
  dev->c_nan_image = dev->image[2];
  for (std::size_t i = 0; i < kCap; ++i) dev->c_nan_image[dev->guard + i] = 0x7fc00000u;
}

// Host arrays: kCap floats ending at an inaccessible page, with one before the data as well.
struct GuardedArray {
  unsigned char* base = nullptr;  // the first data page
  std::size_t data_bytes = 0;
  void set_up() {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    data_bytes = (kCap * 4 + page - 1) / page * page;
    void* m = mmap(nullptr, data_bytes + 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) setup_failure("mmap");
    auto* bytes = static_cast<unsigned char*>(m);
    mprotect(bytes, page, PROT_NONE);
    mprotect(bytes + page + data_bytes, page, PROT_NONE);
    base = bytes + page;
  }
  std::uint32_t* words() { return reinterpret_cast<std::uint32_t*>(base); }
  std::size_t capacity() const { return data_bytes / 4; }
  // An array of `elements` floats, ending where the guard page starts.
  float* array(std::size_t elements) {
    return reinterpret_cast<float*>(base + data_bytes) - elements;
  }
};
GuardedArray host[3];

// ---------------------------------------------------------------------------------------------
// The model of the arguments

struct Shape {
  std::int64_t lines, length;
};
Shape storage(int layout, int trans, std::int64_t rows, std::int64_t cols) {
  const bool t = trans == CLGEMM_TRANS || trans == CLGEMM_CONJ_TRANS;
  const std::int64_t stored_rows = t ? cols : rows, stored_cols = t ? rows : cols;
  return layout == CLGEMM_COL_MAJOR ? Shape{stored_cols, stored_rows}
                                    : Shape{stored_rows, stored_cols};
}

struct Call {
  int precision = CLGEMM_PRECISION_FP32;
  int layout = CLGEMM_ROW_MAJOR, trans_a = CLGEMM_NO_TRANS, trans_b = CLGEMM_NO_TRANS;
  std::int64_t m = 1, n = 1, k = 1, ld[3] = {1, 1, 1};
  std::size_t offset[3] = {0, 0, 0};
  float alpha = 1, beta = 0;
  const char* kernel = nullptr;
  std::string kernel_text;  // when the kernel comes from the input

  Shape shape(int matrix) const {
    if (matrix == 0) return storage(layout, trans_a, m, k);
    if (matrix == 1) return storage(layout, trans_b, k, n);
    return storage(layout, CLGEMM_NO_TRANS, m, n);
  }
  bool valid_enums() const {
    auto trans_ok = [](int t) {
      return t == CLGEMM_NO_TRANS || t == CLGEMM_TRANS || t == CLGEMM_CONJ_TRANS;
    };
    return (layout == CLGEMM_ROW_MAJOR || layout == CLGEMM_COL_MAJOR) && trans_ok(trans_a) &&
           trans_ok(trans_b);
  }
  bool valid_sizes() const {  // 0 is a BLAS quick return
    for (std::int64_t v : {m, n, k})
      if (v < 0 || v > INT32_MAX) return false;
    return true;
  }
  bool valid_ld(int matrix) const {  // at least 1, as in BLAS
    return ld[matrix] >= std::max<std::int64_t>(1, shape(matrix).length) && ld[matrix] <= INT32_MAX;
  }
  // offset + (lines - 1) * ld + length, exactly (only for valid enums, sizes and ld); the
  // offset alone for an empty matrix.
  u128 extent(int matrix, bool with_offset = true) const {
    const Shape s = shape(matrix);
    const u128 base = with_offset ? u128(offset[matrix]) : 0;
    if (s.lines <= 0 || s.length <= 0) return base;
    return base + u128(s.lines - 1) * u128(ld[matrix]) + u128(s.length);
  }
  // Whether the call reads (A, B) or writes (C) the matrix, by BLAS semantics: A and B only when
  // there is a product (M, N, K > 0 and alpha != 0); C unless nothing changes (M or N = 0, or no
  // product and beta = 1). A matrix the call does not use may be null or of any size.
  bool uses(int matrix) const {
    const bool product = m > 0 && n > 0 && k > 0 && alpha != 0.0f;
    if (matrix < 2) return product;
    return m > 0 && n > 0 && (product || beta != 1.0f);
  }
  bool arguments_checkable() const {
    return valid_enums() && valid_sizes() && valid_ld(0) && valid_ld(1) && valid_ld(2);
  }
};

// The statuses naming each argument the model finds at fault, apart from the buffers and queue.
std::set<int> problem_faults(const Call& c, bool* kernel_malformed) {
  std::set<int> faults;
  *kernel_malformed = false;
  if (c.kernel) {
    try {
      clgemm::parse_kernel_selection(c.kernel);
    } catch (const clgemm::Error&) {
      *kernel_malformed = true;
      faults.insert(CLGEMM_INVALID_OPTION);
    }
  }
  if (c.layout != CLGEMM_ROW_MAJOR && c.layout != CLGEMM_COL_MAJOR)
    faults.insert(CLGEMM_INVALID_LAYOUT);
  for (auto [t, status] :
       {std::pair{c.trans_a, CLGEMM_INVALID_TRANS_A}, std::pair{c.trans_b, CLGEMM_INVALID_TRANS_B}})
    if (t != CLGEMM_NO_TRANS && t != CLGEMM_TRANS && t != CLGEMM_CONJ_TRANS) faults.insert(status);
  for (auto [v, status] : {std::pair{c.m, CLGEMM_INVALID_M}, std::pair{c.n, CLGEMM_INVALID_N},
                           std::pair{c.k, CLGEMM_INVALID_K}})
    if (v < 0 || v > INT32_MAX) faults.insert(status);
  if (c.valid_enums() && c.valid_sizes())
    for (int x = 0; x < 3; ++x)
      if (!c.valid_ld(x)) faults.insert(CLGEMM_INVALID_LDA + x);
  return faults;
}

bool kernel_stage_status(int status) {
  return status == CLGEMM_UNKNOWN_KERNEL || status == CLGEMM_INVALID_OPTION ||
         status == CLGEMM_UNSUPPORTED_PRECISION || status == CLGEMM_BUILD_FAILED ||
         status == CLGEMM_OPENCL_FAILURE;
}

bool default_kernel(const Call& c) {
  return !c.kernel || !*c.kernel || std::string(c.kernel) == "auto";
}

// What the calls did, printed when the process ends (tools/ci/fuzz.sh shows the line).
struct Counts {
  unsigned long buffer_calls = 0, buffer_gemms = 0, host_calls = 0, host_gemms = 0, skipped = 0;
  double build_seconds = 0;  // in calls that took kBuildingCall or longer
} counts;
void print_counts() {
  std::fprintf(stderr,
               "fuzz_c_api: %lu clgemm_sgemm_buffers calls (%lu GEMMs ran and were checked), "
               "%lu clgemm_sgemm calls (%lu GEMMs), %.0f s in calls that built programs, %lu "
               "valid calls of new kernel variants skipped after that budget\n",
               counts.buffer_calls, counts.buffer_gemms, counts.host_calls, counts.host_gemms,
               counts.build_seconds, counts.skipped);
}

// The kernel variants run so far, by what can change the program the call builds: the kernel
// argument, the precision, layout and transposes, and each operand's offset, leading dimension
// and (host arrays) address modulo 32 floats. This distinguishes more than the library's
// build options do, never fewer.
std::set<std::string> variants_run;
std::string variant(const Call& c, const char* path, std::size_t a_address, std::size_t b_address) {
  return std::string(path) + (c.kernel ? std::string(":") + c.kernel : std::string("NULL")) + "|" +
         std::to_string(c.precision) + "|" + std::to_string(c.layout) + "|" +
         std::to_string(c.trans_a) + "|" + std::to_string(c.trans_b) + "|" +
         std::to_string(c.offset[0] % 32) + "|" + std::to_string(std::uint64_t(c.ld[0]) % 32) +
         "|" + std::to_string(c.offset[1] % 32) + "|" +
         std::to_string(std::uint64_t(c.ld[1]) % 32) + "|" + std::to_string(a_address % 128) + "|" +
         std::to_string(b_address % 128);
}
// Whether a call of valid arguments may run: always within the budget, and after it only a
// variant that ran before (whose program is built).
bool may_run(const std::string& v) {
  if (counts.build_seconds < kBuildBudget || variants_run.count(v)) return true;
  ++counts.skipped;
  return false;
}
void ran(const std::string& v, double seconds) {
  variants_run.insert(v);
  if (seconds >= kBuildingCall) counts.build_seconds += seconds;
}
double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// ---------------------------------------------------------------------------------------------
// Findings

std::vector<std::string> findings;
void finding(const std::string& what) {
  findings.push_back(what);
}

std::string describe(const Call& c) {
  char text[768];
  std::snprintf(text, sizeof text,
                "precision %d layout %d transA %d transB %d M %lld N %lld K %lld lda %lld "
                "ldb %lld ldc %lld a_offset %llu b_offset %llu c_offset %llu alpha %g beta %g "
                "kernel %s%s%s",
                c.precision, c.layout, c.trans_a, c.trans_b, (long long)c.m, (long long)c.n,
                (long long)c.k, (long long)c.ld[0], (long long)c.ld[1], (long long)c.ld[2],
                (unsigned long long)c.offset[0], (unsigned long long)c.offset[1],
                (unsigned long long)c.offset[2], double(c.alpha), double(c.beta),
                c.kernel ? "'" : "", c.kernel ? c.kernel : "NULL", c.kernel ? "'" : "");
  return text;
}

// LLVM inside PoCL installs its own handlers for crash signals (when PoCL starts, and again
// for crash recovery when it compiles); they re-raise the signal with the default action, and
// libFuzzer does not replace a handler that is already there, so an abort or a guard-page
// fault would end the process without libFuzzer's report and crash input. So the handlers
// before the device is opened (AddressSanitizer's) are put back after it is, letting libFuzzer
// install its own; those are saved at the first input and put back before each call and each
// abort. (SIGFPE stays PoCL's: it handles integer division in kernels.)
const int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL};
struct sigaction fuzzer_handlers[sizeof kCrashSignals / sizeof *kCrashSignals];
void save_fuzzer_handlers() {
  for (std::size_t i = 0; i < sizeof kCrashSignals / sizeof *kCrashSignals; ++i)
    sigaction(kCrashSignals[i], nullptr, &fuzzer_handlers[i]);
}
void restore_fuzzer_handlers() {
  for (std::size_t i = 0; i < sizeof kCrashSignals / sizeof *kCrashSignals; ++i)
    sigaction(kCrashSignals[i], &fuzzer_handlers[i], nullptr);
}

void report_and_abort_if_found(const std::string& path, const Call& c, const std::string& more) {
  if (findings.empty()) return;
  restore_fuzzer_handlers();
  std::fprintf(stderr, "fuzz_c_api: %s: %s\n  %s\n", path.c_str(), describe(c).c_str(),
               more.c_str());
  for (const auto& f : findings) std::fprintf(stderr, "  finding: %s\n", f.c_str());
  std::abort();
}

std::string status_text(clgemm_status s) {
  return std::to_string(int(s)) + " (" + clgemm_status_string(s) + ")";
}

// The status against the model: `faults` empty means every argument is right.
void check_status(clgemm_status status, const std::set<int>& faults, const Call& c) {
  if (int(status) < CLGEMM_SUCCESS || int(status) > CLGEMM_FILE_ERROR)
    finding("status " + std::to_string(int(status)) + " is no clgemm_status");
  if (status != CLGEMM_SUCCESS && !*clgemm_last_error_message())
    finding("a failure left clgemm_last_error_message() empty");
  std::string expected;
  for (int f : faults) expected += " " + status_text(clgemm_status(f));
  // Near 2^31 the kernels' 32-bit index range may refuse a size (rounded up to the kernel's
  // block, plus a block; blocks are at most 2^16), before anything else is checked.
  const std::int64_t near = std::int64_t(INT32_MAX) - 2 * 65536;
  if ((status == CLGEMM_INVALID_M && c.m > near) || (status == CLGEMM_INVALID_N && c.n > near) ||
      (status == CLGEMM_INVALID_K && c.k > near))
    return;
  if (faults.empty()) {
    if (status != CLGEMM_SUCCESS && !kernel_stage_status(status))
      finding("status " + status_text(status) + " for arguments that are all valid");
    if (status != CLGEMM_SUCCESS && default_kernel(c))
      finding("the default kernel failed on valid arguments: " + status_text(status) + ": " +
              clgemm_last_error_message());
  } else if (!faults.count(status) &&
             !(!default_kernel(c) &&
               (status == CLGEMM_UNKNOWN_KERNEL || status == CLGEMM_UNSUPPORTED_PRECISION ||
                status == CLGEMM_INVALID_OPTION))) {
    // The kernel argument is checked before the buffers (a call plans what it runs first), so
    // a kernel of the input's may be what the call names instead of a buffer at fault.
    finding("status " + status_text(status) + ", but the arguments at fault give:" + expected +
            (status == CLGEMM_SUCCESS
                 ? ""
                 : std::string(" (message: ") + clgemm_last_error_message() + ")"));
  }
}

// C after a successful call: op(A) * op(B) scaled as asked at each element, padding untouched.
CLGEMM_FUZZ_NO_COVERAGE void check_result(const Call& c, const float* a, const float* b,
                                          const std::uint32_t* c_before,
                                          const std::uint32_t* c_after, std::size_t c_elements) {
  const bool row = c.layout == CLGEMM_ROW_MAJOR;
  const bool ta = c.trans_a != CLGEMM_NO_TRANS, tb = c.trans_b != CLGEMM_NO_TRANS;
  auto index = [&](bool trans, std::int64_t r, std::int64_t col, std::int64_t ld) {
    // Element (r, col) of op(X) in X's storage.
    const std::int64_t sr = trans ? col : r, sc = trans ? r : col;
    return std::size_t(row ? sr * ld + sc : sc * ld + sr);
  };
  const bool numeric = std::isfinite(c.alpha) && std::isfinite(c.beta) &&
                       std::fabs(c.alpha) <= 1e4f && std::fabs(c.beta) <= 1e4f;
  const double eps = (c.precision == CLGEMM_PRECISION_TF32 ? 2e-3 : 0) + 4e-7 * double(c.k + 2);
  if (!c.uses(2)) {  // nothing to change (M or N = 0, or no product and beta = 1)
    for (std::size_t at = 0; at < c_elements; ++at)
      if (c_before[at] != c_after[at]) {
        finding("C's element " + std::to_string(at) +
                " was written by a call that changes nothing");
        return;
      }
    return;
  }
  std::vector<char> in_problem(c_elements, 0);
  for (std::int64_t i = 0; i < c.m; ++i)
    for (std::int64_t j = 0; j < c.n; ++j) {
      const std::size_t at = c.offset[2] + index(false, i, j, c.ld[2]);
      in_problem[at] = 1;
      if (!numeric) continue;
      double sum = 0, magnitude = 0;
      const std::int64_t depth = c.uses(0) ? c.k : 0;  // alpha = 0 reads neither A nor B
      for (std::int64_t l = 0; l < depth; ++l) {
        const double x = a[c.offset[0] + index(ta, i, l, c.ld[0])];
        const double y = b[c.offset[1] + index(tb, l, j, c.ld[1])];
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      double expect = depth ? double(c.alpha) * sum : 0.0;
      double bound = depth ? std::fabs(double(c.alpha)) * magnitude : 0.0;
      if (c.beta != 0.0f) {
        expect += double(c.beta) * double(float_of(c_before[at]));
        bound += std::fabs(double(c.beta) * double(float_of(c_before[at])));
      }
      const double got = float_of(c_after[at]);
      if (!(std::fabs(got - expect) <= eps * bound + 1e-30)) {
        finding("C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(got) +
                ", expected " + std::to_string(expect));
        return;
      }
    }
  for (std::size_t at = 0; at < c_elements; ++at)
    if (!in_problem[at] && c_before[at] != c_after[at]) {
      finding("C's element " + std::to_string(at) + ", outside the m x n matrix, was written");
      return;
    }
}

// ---------------------------------------------------------------------------------------------
// The buffer path

enum class Kind { Sub, Null, Foreign };

struct BufferChoice {
  Kind kind = Kind::Sub;
  std::size_t elements = 1;  // of the sub-buffer
};

BufferChoice pick_buffer(Reader& r, const Call& c, int matrix) {
  BufferChoice choice;
  const std::uint8_t kind = r.u8();
  choice.kind = kind < 232 ? Kind::Sub : kind < 244 ? Kind::Null : Kind::Foreign;
  const u128 needed = c.arguments_checkable() ? c.extent(matrix) : u128(1);
  const std::size_t exact = needed >= 1 && needed <= kCap ? std::size_t(needed) : kCap;
  const std::uint8_t mode = r.u8();
  if (mode < 128)
    choice.elements = exact;
  else if (mode < 176)
    choice.elements = std::max<std::size_t>(1, exact - 1);
  else if (mode < 208)
    choice.elements = std::min(kCap, exact + r.u8() % 8);
  else
    choice.elements = 1 + std::size_t(r.bytes(2)) % kCap;
  return choice;
}

void run_buffers(Reader& r, Call& c, const std::set<int>& problem_faults_) {
  BufferChoice choice[3];
  for (int x = 0; x < 3; ++x) choice[x] = pick_buffer(r, c, x);
  const std::uint8_t queue_kind = r.u8();
  const cl_command_queue queue = queue_kind < 240   ? dev->queue
                                 : queue_kind < 248 ? nullptr
                                                    : dev->foreign_queue;
  const bool want_event = r.u8() & 1;

  // The model: the problem's faults, then the queue's and each buffer's.
  std::set<int> faults = problem_faults_;
  if (queue != dev->queue) faults.insert(CLGEMM_INVALID_QUEUE);
  // An extent whose byte count passes 2^64 is refused for every matrix (validation); a buffer
  // that is null, foreign or too small only for a matrix the call uses.
  if (c.arguments_checkable())
    for (int x = 0; x < 3; ++x) {
      const u128 bytes = c.extent(x) * 4;
      const bool overflows = c.extent(x) > u128(SIZE_MAX / 4);
      const std::size_t held = choice[x].kind == Kind::Foreign ? kCap * 4 : choice[x].elements * 4;
      if (overflows || (c.uses(x) && choice[x].kind != Kind::Null && bytes > held))
        faults.insert(CLGEMM_BUFFER_A_TOO_SMALL + x);
    }
  for (int x = 0; x < 3; ++x) {
    if (!c.uses(x)) continue;
    if (choice[x].kind == Kind::Null) faults.insert(CLGEMM_NULL_A + x);
    if (choice[x].kind == Kind::Foreign) faults.insert(CLGEMM_INVALID_BUFFER_A + x);
  }
  const std::string kernel_variant = variant(c, "buffers", 0, 0);
  if (faults.empty() && !may_run(kernel_variant)) return;

  const bool c_nan = c.beta == 0.0f;
  const std::vector<std::uint32_t>* before[3] = {&dev->image[0], &dev->image[1],
                                                 c_nan ? &dev->c_nan_image : &dev->image[2]};
  const std::size_t parent_bytes = dev->image[0].size() * 4;
  cl_mem mem[3] = {nullptr, nullptr, nullptr};
  for (int x = 0; x < 3; ++x) {
    if (clEnqueueWriteBuffer(dev->queue, dev->parent[x], CL_TRUE, 0, parent_bytes,
                             before[x]->data(), 0, nullptr, nullptr) != CL_SUCCESS)
      setup_failure("clEnqueueWriteBuffer");
    if (choice[x].kind == Kind::Sub) {
      const cl_buffer_region region{dev->guard * 4, choice[x].elements * 4};
      cl_int status = CL_SUCCESS;
      mem[x] = clCreateSubBuffer(dev->parent[x], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &status);
      if (status != CL_SUCCESS) setup_failure("clCreateSubBuffer");
    } else if (choice[x].kind == Kind::Foreign) {
      mem[x] = dev->foreign_buffer;
    }
  }

  cl_event event = reinterpret_cast<cl_event>(std::uintptr_t(1));  // must become NULL or real
  restore_fuzzer_handlers();
  const double started = now();
  const clgemm_status status = clgemm_sgemm_buffers(
      dev->context, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, mem[0], c.offset[0],
      c.ld[0], mem[1], c.offset[1], c.ld[1], c.beta, mem[2], c.offset[2], c.ld[2], queue,
      want_event ? &event : nullptr, c.kernel);
  clFinish(dev->queue);
  if (faults.empty()) ran(kernel_variant, now() - started);
  ++counts.buffer_calls;
  if (status == CLGEMM_SUCCESS) ++counts.buffer_gemms;
  if (want_event) {
    if (status == CLGEMM_SUCCESS && (!event || event == reinterpret_cast<cl_event>(1)))
      finding("success without the kernel's event");
    if (status != CLGEMM_SUCCESS && event) finding("a failure left *event non-null");
    if (status == CLGEMM_SUCCESS && event && event != reinterpret_cast<cl_event>(1)) {
      cl_int state = 0;
      clWaitForEvents(1, &event);
      clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
      if (state != CL_COMPLETE)
        finding("the kernel's event ended in state " + std::to_string(state));
      clReleaseEvent(event);
    }
  }

  std::vector<std::uint32_t>* after = dev->after;
  for (int x = 0; x < 3; ++x)
    if (clEnqueueReadBuffer(dev->queue, dev->parent[x], CL_TRUE, 0, parent_bytes, after[x].data(),
                            0, nullptr, nullptr) != CL_SUCCESS)
      setup_failure("clEnqueueReadBuffer");
  for (int x = 0; x < 3; ++x) {
    // C's sub-buffer may change only when the call succeeded (and is checked below).
    const std::size_t from = dev->guard, to = dev->guard + choice[x].elements;
    const bool c_may_change = x == 2 && choice[x].kind == Kind::Sub && status == CLGEMM_SUCCESS;
    const std::size_t at = first_difference(after[x].data(), before[x]->data(), after[x].size(),
                                            c_may_change ? from : 0, c_may_change ? to : 0);
    if (at != after[x].size()) {
      const bool inside = at >= from && at < to;
      finding(std::string("the parent of ") + "ABC"[x] + " changed at float " +
              std::to_string((long long)at - (long long)from) + " from the sub-buffer's start (" +
              std::to_string(choice[x].elements) + " floats long)" +
              (inside && x == 2 ? " although the call failed" : ""));
    }
  }
  check_status(status, faults, c);
  if (status == CLGEMM_SUCCESS && faults.empty() && choice[2].kind == Kind::Sub) {
    std::vector<float> a(choice[0].elements), b(choice[1].elements);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = float_of(dev->image[0][dev->guard + i]);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = float_of(dev->image[1][dev->guard + i]);
    check_result(c, a.data(), b.data(), before[2]->data() + dev->guard,
                 after[2].data() + dev->guard, choice[2].elements);
  }
  for (int x = 0; x < 3; ++x)
    if (choice[x].kind == Kind::Sub) clReleaseMemObject(mem[x]);
  report_and_abort_if_found(
      "clgemm_sgemm_buffers", c,
      std::string("buffers ") + std::to_string(choice[0].elements) + "/" +
          std::to_string(choice[1].elements) + "/" + std::to_string(choice[2].elements) +
          " floats (kinds " + std::to_string(int(choice[0].kind)) +
          std::to_string(int(choice[1].kind)) + std::to_string(int(choice[2].kind)) +
          ": 0 sub-buffer, 1 null, 2 foreign), queue " +
          (queue == dev->queue ? "ours"
           : queue             ? "foreign"
                               : "null") +
          ", status " + status_text(status));
}

// ---------------------------------------------------------------------------------------------
// The host path (offsets are not arguments there: zero)

void run_host(Reader& r, Call c, const std::set<int>& problem_faults_) {
  const std::uint8_t nulls_choice = r.u8();
  const int nulls = nulls_choice >= 232 ? nulls_choice & 7 : 0;
  for (std::size_t& o : c.offset) o = 0;

  std::set<int> faults = problem_faults_;
  for (int x = 0; x < 3; ++x)
    if ((nulls & (1 << x)) && c.uses(x)) faults.insert(CLGEMM_NULL_A + x);
  // Arrays exactly as large as the problem needs; a problem whose arrays would be large runs
  // only when the library must reject it before touching them.
  std::size_t elements[3] = {1, 1, 1};
  bool small = c.arguments_checkable();
  for (int x = 0; x < 3 && small; ++x) {
    const u128 e = c.extent(x, false);
    if (e > kCap)
      small = false;
    else
      elements[x] = std::size_t(e);
  }
  if (!small && faults.empty()) return;
  if (!small)
    for (auto& e : elements) e = std::min<std::size_t>(16, e);

  const bool c_nan = c.beta == 0.0f;
  static std::vector<std::uint32_t> before[3];
  float* arrays[3];
  for (int x = 0; x < 3; ++x) {
    const std::vector<std::uint32_t>& image = x == 2 && c_nan ? dev->c_nan_image : dev->image[x];
    const std::size_t capacity = host[x].capacity(), start = capacity - elements[x];
    // Canaries before the array, then the data the sub-buffers hold too.
    before[x].assign(capacity, kCanary);
    std::memcpy(before[x].data() + start, image.data() + dev->guard, elements[x] * 4);
    std::memcpy(host[x].words(), before[x].data(), capacity * 4);
    arrays[x] = (nulls & (1 << x)) ? nullptr : host[x].array(elements[x]);
  }
  const std::string kernel_variant =
      variant(c, "host", reinterpret_cast<std::uintptr_t>(arrays[0]) / 4,
              reinterpret_cast<std::uintptr_t>(arrays[1]) / 4);
  if (faults.empty() && !may_run(kernel_variant)) return;
  restore_fuzzer_handlers();
  const double started = now();
  const clgemm_status status =
      clgemm_sgemm(dev->context, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, arrays[0],
                   c.ld[0], arrays[1], c.ld[1], c.beta, arrays[2], c.ld[2], c.kernel);
  if (faults.empty()) ran(kernel_variant, now() - started);
  ++counts.host_calls;
  if (status == CLGEMM_SUCCESS) ++counts.host_gemms;

  for (int x = 0; x < 3; ++x) {
    const std::size_t capacity = host[x].capacity(), start = capacity - elements[x];
    const bool c_may_change = x == 2 && status == CLGEMM_SUCCESS;
    const std::size_t at = first_difference(host[x].words(), before[x].data(), capacity,
                                            c_may_change ? start : 0, c_may_change ? capacity : 0);
    if (at != capacity)
      finding(std::string("host array ") + "ABC"[x] + " changed at float " +
              std::to_string((long long)at - (long long)start) + " from its start (" +
              std::to_string(elements[x]) + " floats long)");
  }
  check_status(status, faults, c);
  if (status == CLGEMM_SUCCESS && faults.empty()) {
    const std::size_t start = host[2].capacity() - elements[2];
    check_result(c, host[0].array(elements[0]), host[1].array(elements[1]),
                 before[2].data() + start, host[2].words() + start, elements[2]);
  }
  report_and_abort_if_found("clgemm_sgemm", c,
                            "host arrays " + std::to_string(elements[0]) + "/" +
                                std::to_string(elements[1]) + "/" + std::to_string(elements[2]) +
                                " floats, null mask " + std::to_string(nulls) + ", status " +
                                status_text(status));
}

// ---------------------------------------------------------------------------------------------

}  // namespace

namespace {

std::string tuning_dir, tuning_file;
void remove_tuning_file() {
  std::remove(tuning_file.c_str());
  rmdir(tuning_dir.c_str());
}

// `auto` (the default kernel) follows the tuning database. Its choice for this device, for
// every problem fuzzed here (all of shape class "small"), is made blocked with kSmallBlocked by
// a tuning file of our own in a temporary directory, so that the default kernel compiles in
// seconds; the derived parameters are what the test suite runs.
void steer_auto() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/clgemm-fuzz-XXXXXX";
  if (!mkdtemp(templ.data())) setup_failure("mkdtemp");
  tuning_dir = templ;
  tuning_file = tuning_dir + "/tuning.json";
  std::atexit(remove_tuning_file);
  const clgemm::Context probe;  // the default device, as clgemm_context_create chose it
  const clgemm::DeviceLimits& device = probe.device();
  if (device.name != clgemm_context_device_name(dev->context))
    setup_failure("the C++ and C contexts opened different devices");
  clgemm::TuningDatabase db;
  for (const auto& shape_class : clgemm::shape_classes()) {
    clgemm::TunedEntry e;
    e.device = device.name;
    e.platform = device.platform_name;
    e.shape_class = shape_class;
    e.kernel = "blocked";
    e.options = kSmallBlocked;
    e.tuned = "fuzz_c_api";
    db.put(e);
  }
  db.save(tuning_file);
  setenv("CLGEMM_TUNING_FILE", tuning_file.c_str(), 1);
  const auto choice = clgemm::choose_kernel(clgemm::TuningDatabase::load_default(), device,
                                            clgemm::GemmProblem::packed(4, 4, 4));
  if (choice.kernel != "blocked" || choice.overrides != kSmallBlocked)
    setup_failure("auto does not follow the fuzzing tuning file: " + choice.reason);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Nothing of the user's: no binary cache, no tuning file of theirs (tools/ci/fuzz.sh also points
  // HOME and the XDG directories at a temporary directory).
  setenv("CLGEMM_CACHE_DIR", "off", 0);
  save_fuzzer_handlers();
  set_up_device();
  steer_auto();
  restore_fuzzer_handlers();
  std::atexit(print_counts);
  for (auto& h : host) h.set_up();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // libFuzzer installs its handlers after LLVMFuzzerInitialize, before the first input.
  static const bool saved = (save_fuzzer_handlers(), true);
  (void)saved;
  restore_fuzzer_handlers();
  Reader r{data, size};
  findings.clear();
  Call c;
  const bool null_context = r.u8() == 255;

  // The precision, a context setting: valid values mostly FP32, sometimes invalid ones.
  const std::uint8_t p = r.u8();
  const int precision = p < 224   ? CLGEMM_PRECISION_FP32
                        : p < 236 ? CLGEMM_PRECISION_TF32
                        : p < 248 ? CLGEMM_PRECISION_3XTF32
                                  : int(p) - 250;  // -2 .. 5
  int previous = -1;
  clgemm_context_get_precision(dev->context, &previous);
  const clgemm_status set = clgemm_context_set_precision(dev->context, precision);
  int now = -1;
  clgemm_context_get_precision(dev->context, &now);
  const bool valid_precision = precision >= 0 && precision <= 2;
  if (set != (valid_precision ? CLGEMM_SUCCESS : CLGEMM_INVALID_PRECISION) ||
      now != (valid_precision ? precision : previous))
    finding("clgemm_context_set_precision(" + std::to_string(precision) + ") returned " +
            status_text(set) + " and left precision " + std::to_string(now));
  c.precision = now;

  c.layout = pick_enum(r, 128, CLGEMM_ROW_MAJOR, 248, CLGEMM_COL_MAJOR, 248, 0);
  c.trans_a = pick_enum(r, 96, CLGEMM_NO_TRANS, 192, CLGEMM_TRANS, 240, CLGEMM_CONJ_TRANS);
  c.trans_b = pick_enum(r, 96, CLGEMM_NO_TRANS, 192, CLGEMM_TRANS, 240, CLGEMM_CONJ_TRANS);
  c.m = pick_size(r), c.n = pick_size(r), c.k = pick_size(r);
  for (int x = 0; x < 3; ++x) c.ld[x] = pick_ld(r, c.shape(x).length);
  for (int x = 0; x < 3; ++x) c.offset[x] = pick_offset(r);
  c.alpha = pick_float(r), c.beta = pick_float(r);
  const std::uint8_t paths = r.u8();  // bit 0: skip the buffer path; bit 1: also the host path
  const std::uint8_t kernel_choice = r.u8();
  if (kernel_choice >= kKernelCount) {
    // A kernel string from the input: a length byte, then the text (the API reads it up to
    // its first NUL).
    const std::size_t length = r.u8();
    for (std::size_t i = 0; i < length && r.n; ++i) c.kernel_text += char(r.u8());
    c.kernel = c.kernel_text.c_str();
  } else {
    c.kernel = kKernels[kernel_choice];
  }
  // The rest of the input holds the buffer path's choices, then the host path's.
  if (null_context) {
    const clgemm_status s =
        clgemm_sgemm(nullptr, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, nullptr,
                     c.ld[0], nullptr, c.ld[1], c.beta, nullptr, c.ld[2], c.kernel);
    if (s != CLGEMM_INVALID_HANDLE) finding("a null context gave " + status_text(s));
    cl_event event = reinterpret_cast<cl_event>(std::uintptr_t(1));
    const clgemm_status b =
        clgemm_sgemm_buffers(nullptr, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha,
                             nullptr, c.offset[0], c.ld[0], nullptr, c.offset[1], c.ld[1], c.beta,
                             nullptr, c.offset[2], c.ld[2], nullptr, &event, c.kernel);
    if (b != CLGEMM_INVALID_HANDLE || event) finding("a null context gave " + status_text(b));
    report_and_abort_if_found("null context", c, "");
    return 0;
  }
  report_and_abort_if_found("precision", c, "");

  bool kernel_malformed = false;
  const std::set<int> faults = problem_faults(c, &kernel_malformed);
  if (!(paths & 1)) run_buffers(r, c, faults);
  if (paths & 2) run_host(r, c, faults);
  return 0;
}
