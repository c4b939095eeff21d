// Internal: a GEMM as the kernels see it. Every kernel computes the row-major
// C = alpha * op(A) * op(B) + beta * C; a column-major problem is the row-major problem
// C^T = op(B)^T * op(A)^T on the same memory, so it is mapped by swapping the operands.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"
#include "kernel_spec.hpp"
#include "opencl.hpp"
#include "program_cache.hpp"

namespace clgemm::detail {

struct Operand {
  cl_mem buffer = nullptr;
  std::size_t offset = 0;  // elements
  std::int64_t ld = 0;
  bool transposed = false;
  std::size_t base_alignment = 0;  // bytes the buffer's first element is known aligned to
  // A batch's products: `stride` elements apart, or at offsets from a product table.
  std::int64_t stride = 0;
  bool table_offsets = false;
};

// The alignment of a buffer's first element: the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN for
// memory OpenCL allocated, the host pointer's own for CL_MEM_USE_HOST_PTR buffers.
std::size_t buffer_alignment(cl_mem buffer, const DeviceLimits& limits);
std::size_t pointer_alignment(const void* pointer);

struct KernelCall {
  bool column_major = false;  // the problem's M and N are this call's n and m
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  Operand a, b, c;
  // The batch: `batch` products, strided (each operand's stride) or from a product table in
  // `products` (entries from products_offset on).
  std::int64_t batch = 1;
  bool table = false;  // the products come from a table
  cl_mem products = nullptr;
  std::size_t products_offset = 0;
  // The epilogue in the call's terms: a column-major problem's per-row bias is the call's
  // per-column one. bias_buffer is the vector's cl_mem (bias_data is not used).
  Epilogue epilogue;

  bool has_table() const { return table; }
  bool batched() const { return batch > 1 || has_table(); }
};

// Products per launch: the third grid dimension holds them, and NVIDIA's devices take at
// most 65535 work-groups there. Larger batches are enqueued in several launches.
constexpr std::int64_t kProductsPerLaunch = 65535;

// A per-row bias of C is a per-column bias of C^T, and the other way round.
Bias transposed_bias(Bias bias);

// The row-major call computing `problem`; buffers (the operands', the table's and the bias's)
// are filled in by the caller.
KernelCall row_major_call(const GemmProblem& problem);

// Whether every row of the operand starts VEC-aligned, so a kernel may load it with aligned
// vector loads: the buffer's base, the offset, the leading dimension and the stride between
// a batch's products all allow it (offsets from a product table are not assumed aligned).
bool operand_aligned(const Operand& x, long vec);

// The parameters compiled into the kernel: `options` without the spec's host parameters.
KernelOptions compiled_options(const KernelSpec& spec, const KernelOptions& options);

// The kernel's parameters (host parameters left out) as "-D NAME=value", then "-D TRANS_A=..
// -D TRANS_B=.." plus, for kernels that load vectors, whether every row start of A and B is
// VEC-aligned (A_ALIGNED, B_ALIGNED), for kernels with precision modes "-D PRECISION=..",
// "-D SLICED_K=1" for a kernel that slices K when this launch does (`sliced_k`), and the
// call's batch_build_options() and epilogue_build_options(). Without a call: the general case
// (no table, no epilogue). The operands' buffers and base alignments must be filled in.
std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision, bool sliced_k = false);

// " -D PRODUCT_TABLE=1" when the call's products come from a table (each with its own alpha,
// so a kernel then skips the products whose alpha is 0), else "". Without a table the host
// never launches a GEMM kernel with alpha = 0 (it scales C alone), so kernels read K as given.
std::string batch_build_options(const KernelCall& call);

// Throws Error(InvalidSize) naming the size, the kernel's block and the limit when the call's
// launch would not fit the kernels' 32-bit indices: a global range above 2^31 - 1 work-items,
// or M, N or K that, rounded up to the kernel's block and one block more, passes 2^31 - 1.
void check_index_range(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call);

// Enqueues `kernel`, a kernel of `built`, over `global` work-items in groups of `local`
// (global rounded up to whole groups; a third dimension of 1 enqueues a 2-D range) once the
// events of `wait` have completed and, on PoCL 5.0 and 3.1, the previous launch of the same build (see
// launch_order.hpp). Returns the launch's event. Every launch of the library goes through here.
cl::Event enqueue_kernel(const cl::CommandQueue& queue, const BuiltProgram& built,
                         const cl::Kernel& kernel, std::array<std::size_t, 3> global,
                         const std::array<std::size_t, 3>& local, const std::vector<cl::Event>& wait);

// How a kernel that slices K (KernelSpec::slices_k) divides it: `slices` along the third grid
// dimension, each k_slice deep (0: all of K), writing slab s of C at s * c_slice_stride.
struct KSlicing {
  long slices = 1;
  std::int64_t k_slice = 0;
  std::size_t c_slice_stride = 0;
};

// The epilogue's build options: "" for none, else " -D BIAS=.. -D ACTIVATION=..".
std::string epilogue_build_options(const Epilogue& epilogue);

// Sets the arguments every GEMM kernel takes (GEMM_PARAMETERS of gemm_common.clh) from the
// call, for the launch whose first product is `first_product`; returns the next argument's index.
int set_gemm_arguments(cl::Kernel& kernel, const KernelCall& call, std::int64_t first_product);
// The epilogue's arguments (EPILOGUE_PARAMETERS) from index `arg` on; returns the next index.
int set_epilogue_arguments(cl::Kernel& kernel, int arg, const Epilogue& epilogue);

// Enqueues `entry_point` of `built` over the call's products: `global` x `local` per product
// (x, y), the products along the third dimension `slices` apart (set_extra sets arguments
// after the GEMM's), in launches of at most kProductsPerLaunch products, each waiting for the
// one before. Returns the last launch's event.
cl::Event enqueue_products(const cl::CommandQueue& queue, const BuiltProgram& built,
                           const std::string& entry_point, const KernelCall& call,
                           std::array<std::size_t, 2> global, std::array<std::size_t, 2> local,
                           long slices, const std::vector<cl::Event>& wait,
                           const std::function<void(cl::Kernel&, int)>& set_extra = {});

// Sets the kernel's arguments from the call and enqueues it with the spec's geometry.
cl::Event enqueue_call(const cl::CommandQueue& queue, const BuiltProgram& built,
                       const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const std::vector<cl::Event>& wait, const KSlicing& slicing = {});

}  // namespace clgemm::detail
