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

#include "clgemm/codes.h"
#include "clgemm/export.h"

// The OpenCL C types (cl_mem, cl_command_queue, ...). The library targets OpenCL 1.2; a
// program that wants another version defines CL_TARGET_OPENCL_VERSION itself.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clgemm/device.hpp"
#include "clgemm/epilogue.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/precision.hpp"
#include "clgemm/warm.hpp"

namespace clgemm {

// Storage order of all three matrices, with the CBLAS values.
enum class Layout : int { RowMajor = CLGEMM_ROW_MAJOR, ColumnMajor = CLGEMM_COL_MAJOR };
// Whether op(X) is X or its transpose, with the CBLAS values.
// ConjTrans is Trans for real data, as in CBLAS.
enum class Transpose : int {
  NoTrans = CLGEMM_NO_TRANS,
  Trans = CLGEMM_TRANS,
  ConjTrans = CLGEMM_CONJ_TRANS
};
// Whether op(X) is X's transpose: Trans or ConjTrans.
inline bool is_transposed(Transpose t) {
  return t == Transpose::Trans || t == Transpose::ConjTrans;
}

// One product of a batch with its own offsets and scalars (CLBlast's GemmBatched): the
// layout of each entry of a product table, on the host or in a cl_mem (32 bytes, the same in
// OpenCL C).
struct CLGEMM_API BatchProduct {
  cl_ulong a_offset = 0, b_offset = 0, c_offset = 0;  // elements from each buffer's start
  cl_float alpha = 1.0f, beta = 0.0f;
};
static_assert(sizeof(BatchProduct) == 32, "BatchProduct must match the kernels' layout");

// Where a batch's product table is: `batch` entries from a host array, or from a cl_mem of
// the context starting `offset` entries in (the other stays null). A table in a cl_mem is
// read back once per call, so its entries can be validated before anything is launched: that
// read waits for the queue's earlier work and the wait list, so the buffer-path call with such
// a table BLOCKS the caller until they have run (a host table, or strides, never block).
struct CLGEMM_API ProductTable {
  const BatchProduct* host = nullptr;
  cl_mem buffer = nullptr;
  std::size_t offset = 0;  // entries
  bool given() const { return host || buffer; }
};

// C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, the BLAS SGEMM. Each matrix is
// stored in `layout` with its leading dimension (elements between the starts of consecutive
// rows in row-major, columns in column-major) and an offset in elements from the start of its
// array or buffer. Sizes are signed so that negative values can be reported. As in BLAS, M
// or N = 0 is a call that does nothing, K = 0 or alpha = 0 sets C = beta * C without reading
// A or B, and beta = 0 never reads C.
//
// Batched: `batch` products of the same shape and layout in one call. Strided (cuBLAS and
// CLBlast's GemmStridedBatched): product p reads A at a_offset + p * stride_a, B at
// b_offset + p * stride_b and C at c_offset + p * stride_c (elements), with one alpha and
// beta. A stride of 0 broadcasts A or B; A and B may overlap between products (they are only
// read), but C's products must not: stride_c is at least the extent of one C, unless batch
// is 1. With a product table (`products`), each product's offsets, alpha and beta come from
// its entry instead: the problem's offsets and strides must then be 0, its alpha and beta are
// not used, and the C ranges the entries name must not overlap.
//
// The epilogue (clgemm/epilogue.hpp) applies to every call: C = act(alpha * op(A) * op(B) +
// beta * C + bias), with the same BLAS semantics for A, B and C.
struct CLGEMM_API GemmProblem {
  Layout layout = Layout::RowMajor;
  Transpose trans_a = Transpose::NoTrans;
  Transpose trans_b = Transpose::NoTrans;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::size_t a_offset = 0, b_offset = 0, c_offset = 0;
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  ProductTable products;
  Epilogue epilogue;

  // A row-major problem without transposes, offsets or padding: lda = k, ldb = n, ldc = n.
  static GemmProblem packed(std::int64_t m, std::int64_t n, std::int64_t k, float alpha = 1.0f,
                            float beta = 0.0f);
  // `batch` packed products one after another: strides of m x k, k x n and m x n.
  static GemmProblem packed_batch(std::int64_t m, std::int64_t n, std::int64_t k,
                                  std::int64_t batch, float alpha = 1.0f, float beta = 0.0f);
  double flops() const { return 2.0 * double(batch) * double(m) * double(n) * double(k); }
  // The smallest leading dimension each matrix may have in this layout and transpose.
  std::int64_t min_lda() const;
  std::int64_t min_ldb() const;
  std::int64_t min_ldc() const;
  // M or N is 0: nothing to compute or write.
  bool is_empty() const;
  // Whether A and B are read: not when the problem is empty, K is 0 or alpha is 0.
  bool reads_operands() const;
  // Elements one product's matrix spans: (lines - 1) * ld + line length (0 when empty).
  std::size_t a_extent() const;
  std::size_t b_extent() const;
  std::size_t c_extent() const;
  // Elements each array or buffer must hold: the last product's offset plus its extent, or
  // the offset alone for an empty matrix. With a host product table, the largest entry's;
  // with a table in a cl_mem, only the problem's own offsets are known (the call checks the
  // entries).
  std::size_t a_elements() const;
  std::size_t b_elements() const;
  std::size_t c_elements() const;
  // Elements the bias vector must hold (0 without a bias).
  std::size_t bias_elements() const;
  // Index of element (i, j) of C of product p in its array, offset included (strided form).
  std::size_t c_index(std::int64_t i, std::int64_t j, std::int64_t p = 0) const;
  // Product `index` (0 <= index < batch) as a problem of its own: its offsets and scalars from
  // a host product table or the strides, its bias offset moved along by bias_stride; batch 1.
  // A table in a cl_mem is not read here: the offsets stay the problem's own.
  GemmProblem product(std::int64_t index) const;
};

// Throws Error(InvalidSize / InvalidLeadingDimension / InvalidArgument / OverlappingOutput)
// naming the argument and the limit: sizes, leading dimensions, the batch count, strides (no
// two products of C may share an element; interleaved ones that share none are accepted), a
// host product table's entries and the epilogue.
CLGEMM_API void validate_problem(const GemmProblem& problem);
// Checks the entries of a product table (as validate_problem does for a host table): offsets
// whose extents fit 64 bits, and C's that share no element.
CLGEMM_API void validate_products(const GemmProblem& problem, const BatchProduct* entries);

// Throws Error(AllocationTooLarge) naming the matrix, its bytes and the device limit when the
// problem's matrices could not be held on `device` whole, as device buffers (the buffer path;
// the tools' device-resident measurements): a matrix or the bias above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE, or together above CL_DEVICE_GLOBAL_MEM_SIZE. The host-array
// sgemm() does not need it: it streams tiles, out of core where the device is too small.
CLGEMM_API void check_fits_device(const GemmProblem& problem, const DeviceLimits& device);

// What to run: the kernel, its parameter overrides and the precision. Calling is not
// measuring: repetition, statistics and verification live in clgemm/measure.hpp.
struct CLGEMM_API RunSettings {
  // A name from kernel_catalog(), or "auto": the tuning database's choice for the device and
  // the problem's shape class (see clgemm/tuning.hpp), derived parameters where it has none.
  std::string kernel = "auto";
  KernelOptions overrides;  // replaces derived parameters, e.g. {{"TILE", 8}}
  Precision precision = Precision::FP32;
};

// A kernel chosen for a problem: by choose_kernel() (clgemm/tuning.hpp) from the tuning
// database, or by Context::choose() as a call would run it.
struct CLGEMM_API KernelChoice {
  std::string kernel;
  KernelOptions overrides;  // empty: the parameters derived from the device
  std::string reason;
};

// Where the program a call ran came from.
enum class ProgramOrigin {
  None,       // nothing was launched (an empty problem, or alpha = 0 / K = 0 with beta = 1)
  Compiled,   // compiled from source by this call
  DiskCache,  // built from a binary in the on-disk cache by this call
  Memory,     // already built in this context
};
CLGEMM_API const char* program_origin_name(ProgramOrigin origin);  // "none", "compiled", ...

// The record of what one call ran, returned by both sgemm paths (and by build()).
struct CLGEMM_API GemmRecord {
  std::string kernel;         // the kernel that ran (never "auto"): a catalogue name,
                              // "scale_c" (C = beta * C only) or "none"
  std::string kernel_choice;  // why: auto's choice, or the BLAS case that needed no product
  Precision precision = Precision::FP32;
  // How the precision was computed: "fp32", "tensor cores (mma.sync)", "portable (operands
  // rounded like the tensor-core path, products by FMA)", or "none".
  std::string precision_path = "fp32";
  KernelOptions options;      // the parameters the kernel was built with
  std::string build_options;  // the full option string given to the compiler
  ProgramOrigin origin = ProgramOrigin::None;
  double build_seconds = 0;  // compiling or loading the program; 0 from memory
  // What the built kernel reports (CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE),
  // to compare with the catalogue's model (kernel_local_memory_bytes, kernel_work_group).
  std::size_t kernel_local_memory_bytes = 0;
  std::array<std::size_t, 3> kernel_compile_work_group{};
  // A call may take several launches (kernel_choice says why): aligned copies of an operand
  // into the Context's workspace, the GEMM, and for split-K the reduction of its partial
  // products. split_k is the number of K slices (1: no split); copied_a and copied_b say
  // whether the problem's A or B was read from a copy (aligned, transposed, or on a CPU one
  // cache line wider than a leading dimension whose lines share the caches' sets).
  long split_k = 1;
  bool copied_a = false, copied_b = false;
  std::size_t launches = 0;         // kernels enqueued (0 for "none")
  std::size_t workspace_bytes = 0;  // of the Context's workspace the launches used
  std::int64_t batch = 1;           // products computed
  bool product_table = false;       // their offsets and scalars came from a product table
  std::string epilogue = "none";    // e.g. "per-column bias, gelu", applied in the store
};

// A Context may be used from several threads at once: programs are built once (concurrent
// callers wait for the same build) and each host-array call streams through an engine set of
// its own (queues, device buffers and pinned staging, kept for later calls; see
// docs/USAGE.md, "The host-array path").
// Calls with several launches share one device workspace owned by the Context (grown on
// demand up to a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE, kept for later calls); such calls
// are ordered on the device, each waiting for the previous one's use of it.
class CLGEMM_API Context {
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
  // Whether the kernel 'wgmma' (Hopper's warpgroup MMA) runs here: an NVIDIA device of compute
  // capability exactly 9.0 on which the wgmma probe, built through the PTX rewrite to sm_90a,
  // computed the right product (checked once per device and process).
  bool has_wgmma();

  // What sgemm() runs for `problem` and `settings`, decided exactly as sgemm() decides it
  // (`auto` resolved for this device and its tensor cores; edge-aware tiling named in the
  // reason), without touching an operand: the kernel (never "auto"; "scale_c" where C is only
  // scaled, "none" where nothing is computed), its overrides and why. Throws like sgemm() for
  // a problem or setting that is not valid.
  KernelChoice choose(const GemmProblem& problem, const RunSettings& settings = {});
  // Builds the kernel (or finds it in this context's cache) and returns the parameters it was
  // built with; sgemm() does this itself, so calling it first only separates the build time.
  GemmRecord build(const std::string& kernel, const KernelOptions& overrides = {},
                   Precision precision = Precision::FP32);

  // Builds ahead every program a call with `settings` may need on this device, so that no
  // later call compiles: with kernel "auto" (the default), every kernel and parameter set
  // `auto` may choose here for the settings' precision (the device's tuned entries at their
  // best-matching level, in and out of gemv's regime, for one product and for batches, and the
  // parameters derived from the device); with a named kernel, that kernel with the overrides.
  // Each in every build variant a call can need (transposes, aligned or not, K sliced or not),
  // with the helper kernels calls launch (scale_c, copy_padded, splitk_reduce, wgmma_pack).
  // Product-table and epilogue (bias, activation) variants are built on a call's demand. A
  // program already in this Context or in the disk cache is left as it is; the others are
  // compiled, kept here and stored in the disk cache. `progress` hears of each program after
  // it is done. A failed build is counted (WarmUpReport::failed, first_error) and the others
  // go on; invalid settings throw as sgemm() does. Safe beside concurrent calls, which wait
  // for a program being built rather than compile it again.
  WarmUpReport warm_up(const RunSettings& settings = {}, const WarmUpCallback& progress = {});
  // Whether the background warming this Context started when it opened (CLGEMM_WARM,
  // clgemm/warm.hpp) is still running. Destroying the Context stops it after the build in
  // progress.
  bool warming_in_background() const;

  // Computes C = alpha * A * B + beta * C, blocking. `a`, `b` and `c` hold
  // problem.a_elements(), b_elements() and c_elements() floats. A call that throws leaves C
  // untouched (if the device fails after part of C was written, the rest is computed on the
  // host and the call returns); elements between rows (the ldc padding) are left as they were.
  // Problems larger than the device are computed out of core (CLGEMM_DEVICE_MEMORY_LIMIT caps
  // the device memory used).
  GemmRecord sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                   const RunSettings& settings = {});

  // Enqueues C = alpha * op(A) * op(B) + beta * C on buffers of this context, on `queue` (of
  // this context and device), without waiting: the first launch waits for the events of
  // `wait_list`, and `event`, when given, receives the last launch's event (the caller releases
  // it), complete once C holds the result. The launches of one call are chained through
  // events, so an out-of-order queue runs them in order too. The buffers must hold
  // problem.a_elements() etc. floats; offsets count from each buffer's start, and C must share
  // no element with A, B or the bias on one memory object (sub-buffers are compared in their
  // parent; Error(OverlappingOutput) otherwise). Returns what was enqueued. One exception to
  // "without waiting": a product table in a cl_mem (problem.products.buffer) is read back,
  // after the queue's earlier work and `wait_list`, to be validated, so that call blocks until
  // they have run; give the table on the host to keep the call asynchronous.
  GemmRecord sgemm(const GemmProblem& problem, cl_mem a, cl_mem b, cl_mem c, cl_command_queue queue,
                   cl_event* event = nullptr, const RunSettings& settings = {},
                   const std::vector<cl_event>& wait_list = {});

  cl_context opencl_context() const;
  cl_device_id opencl_device() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace clgemm
