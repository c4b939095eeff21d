// The GEMM entry points. A Context owns one OpenCL device and the programs built for it. Its
// sgemm() computes C = alpha * op(A) * op(B) + beta * C either from host arrays (returning a
// timing record in which the kernel time covers only enqueue + finish) or on OpenCL buffers the
// caller already has, on the caller's queue, with no host round trip.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The OpenCL C types (cl_mem, cl_command_queue, ...). The library targets OpenCL 1.2; a
// program that wants another version defines CL_TARGET_OPENCL_VERSION itself.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/precision.hpp"

namespace clgemm {

// Storage order of all three matrices, with the CBLAS values.
enum class Layout : int { RowMajor = 101, ColumnMajor = 102 };
// Whether op(X) is X or its transpose, with the CBLAS values.
// ConjTrans is Trans for real data, as in CBLAS.
enum class Transpose : int { NoTrans = 111, Trans = 112, ConjTrans = 113 };
// Whether op(X) is X's transpose: Trans or ConjTrans.
inline bool is_transposed(Transpose t) {
  return t == Transpose::Trans || t == Transpose::ConjTrans;
}

// C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, the BLAS SGEMM. Each matrix is
// stored in `layout` with its leading dimension (elements between the starts of consecutive
// rows in row-major, columns in column-major) and an offset in elements from the start of its
// array or buffer. Sizes are signed so that negative values can be reported. As in BLAS, M
// or N = 0 is a call that does nothing, K = 0 or alpha = 0 sets C = beta * C without reading
// A or B, and beta = 0 never reads C.
struct GemmProblem {
  Layout layout = Layout::RowMajor;
  Transpose trans_a = Transpose::NoTrans;
  Transpose trans_b = Transpose::NoTrans;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::size_t a_offset = 0, b_offset = 0, c_offset = 0;

  // A row-major problem without transposes, offsets or padding: lda = k, ldb = n, ldc = n.
  static GemmProblem packed(std::int64_t m, std::int64_t n, std::int64_t k, float alpha = 1.0f,
                            float beta = 0.0f);
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // The smallest leading dimension each matrix may have in this layout and transpose.
  std::int64_t min_lda() const;
  std::int64_t min_ldb() const;
  std::int64_t min_ldc() const;
  // M or N is 0: nothing to compute or write.
  bool is_empty() const;
  // Whether A and B are read: not when the problem is empty, K is 0 or alpha is 0.
  bool reads_operands() const;
  // Elements each array or buffer must hold: offset + (lines - 1) * ld + line length, or the
  // offset alone for an empty matrix.
  std::size_t a_elements() const;
  std::size_t b_elements() const;
  std::size_t c_elements() const;
  // Index of element (i, j) of C in its array, offset included.
  std::size_t c_index(std::int64_t i, std::int64_t j) const;
};

// Throws Error(InvalidSize / InvalidLeadingDimension / InvalidArgument) naming the argument
// and the limit.
void validate_problem(const GemmProblem& problem);

// Throws Error(AllocationTooLarge) naming the matrix, its bytes and the device limit when the
// host-array path could not hold the problem on `device`: a matrix above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE, or A, B and C (twice, when beta != 0) above
// CL_DEVICE_GLOBAL_MEM_SIZE. Call it before allocating host matrices for a problem.
void check_fits_device(const GemmProblem& problem, const DeviceLimits& device);

// What to run: the kernel, its parameter overrides and the precision. Calling is not
// measuring: repetition, statistics and verification live in clgemm/measure.hpp.
struct RunSettings {
  // A name from kernel_catalog(), or "auto": the tuning database's choice for the device and
  // the problem's shape class (see clgemm/tuning.hpp), derived parameters where it has none.
  std::string kernel = "auto";
  KernelOptions overrides;  // replaces derived parameters, e.g. {{"TILE", 8}}
  Precision precision = Precision::FP32;
};

// Where the program a call ran came from.
enum class ProgramOrigin {
  None,       // nothing was launched (an empty problem, or alpha = 0 / K = 0 with beta = 1)
  Compiled,   // compiled from source by this call
  DiskCache,  // built from a binary in the on-disk cache by this call
  Memory,     // already built in this context
};
const char* program_origin_name(ProgramOrigin origin);  // "none", "compiled", ...

// The record of what one call ran, returned by both sgemm paths (and by build()).
struct GemmRecord {
  std::string kernel;         // the kernel that ran (never "auto"): a catalogue name,
                              // "scale_c" (C = beta * C only) or "none"
  std::string kernel_choice;  // why: auto's choice, or the BLAS case that needed no product
  Precision precision = Precision::FP32;
  // How the precision was computed: "fp32", "tensor cores (mma.sync)", "portable (operands
  // rounded like the tensor-core path, products by FMA)", or "none".
  std::string precision_path = "fp32";
  KernelOptions options;       // the parameters the kernel was built with
  std::string build_options;   // the full option string given to the compiler
  ProgramOrigin origin = ProgramOrigin::None;
  double build_seconds = 0;    // compiling or loading the program; 0 from memory
  // What the built kernel reports (CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE),
  // to compare with the catalogue's model (kernel_local_memory_bytes, kernel_work_group).
  std::size_t kernel_local_memory_bytes = 0;
  std::array<std::size_t, 3> kernel_compile_work_group{};
  // A call may take several launches (kernel_choice says why): aligned copies of an operand
  // into the Context's workspace, the GEMM, and for split-K the reduction of its partial
  // products. split_k is the number of K slices (1: no split); copied_a and copied_b say
  // whether the problem's A or B was read from an aligned copy.
  long split_k = 1;
  bool copied_a = false, copied_b = false;
  std::size_t launches = 0;         // kernels enqueued (0 for "none")
  std::size_t workspace_bytes = 0;  // of the Context's workspace the launches used
};

// A Context may be used from several threads at once: programs are built once (concurrent
// callers wait for the same build) and each host-array call uses a command queue of its own.
// Calls with several launches share one device workspace owned by the Context (grown on
// demand up to a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE, kept for later calls); such calls
// are ordered on the device, each waiting for the previous one's use of it.
class Context {
 public:
  // Opens the device chosen by `request` (see DeviceRequest for the defaults).
  explicit Context(const DeviceRequest& request = {});
  // Works inside an OpenCL context the caller already has (retained, not taken over), so that
  // the caller's buffers and queues can be used directly.
  Context(cl_context context, cl_device_id device);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;

  const DeviceLimits& device() const;
  // Whether TF32 and TF32x3 run on tensor cores here: an NVIDIA device of compute capability
  // 8.0 or newer on which a probe kernel using mma.sync built and computed the right product
  // (checked once per device and process).
  bool has_tensor_cores();

  // Builds the kernel (or finds it in this context's cache) and returns the parameters it was
  // built with; sgemm() does this itself, so calling it first only separates the build time.
  GemmRecord build(const std::string& kernel, const KernelOptions& overrides = {},
                   Precision precision = Precision::FP32);

  // Computes C = alpha * A * B + beta * C, blocking. `a`, `b` and `c` hold
  // problem.a_elements(), b_elements() and c_elements() floats. C is written only when the
  // whole call succeeds; elements between rows (the ldc padding) are left as they were.
  GemmRecord sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                   const RunSettings& settings = {});

  // Enqueues C = alpha * op(A) * op(B) + beta * C on buffers of this context, on `queue` (of
  // this context and device), without waiting: the first launch waits for the events of
  // `wait_list`, and `event`, when given, receives the last launch's event (the caller releases
  // it), complete once C holds the result. The launches of one call are chained through
  // events, so an out-of-order queue runs them in order too. The buffers must hold
  // problem.a_elements() etc. floats; offsets count from each buffer's start. Returns what
  // was enqueued.
  GemmRecord sgemm(const GemmProblem& problem, cl_mem a, cl_mem b, cl_mem c,
                   cl_command_queue queue, cl_event* event = nullptr,
                   const RunSettings& settings = {},
                   const std::vector<cl_event>& wait_list = {});

  cl_context opencl_context() const;
  cl_device_id opencl_device() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace clgemm
