// Internal: launching a kernel for a call: the operands' alignment as the device gives it,
// the arguments every GEMM kernel takes (GEMM_PARAMETERS of kernels/gemm_common.clh), and the
// one enqueue every launch of the library goes through.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/kernel_spec.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/program_cache.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

// The alignment of a buffer's first element: the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN for
// memory OpenCL allocated, the host pointer's own for CL_MEM_USE_HOST_PTR buffers.
std::size_t buffer_alignment(cl_mem buffer, const DeviceLimits& limits);
std::size_t pointer_alignment(const void* pointer);

// Enqueues `kernel`, a kernel of `built`, over `global` work-items in groups of `local`
// (global rounded up to whole groups; a third dimension of 1 enqueues a 2-D range) once the
// events of `wait` have completed and, on PoCL 5.0 and 3.1, the previous launch of the same build
// (see launch_order.hpp). Returns the launch's event, or with `wants_event` false an empty
// one where nothing else needs it (an event costs about 2 us of a launch on NVIDIA's driver).
// Every launch of the library goes through here.
cl::Event enqueue_kernel(const cl::CommandQueue& queue, const BuiltProgram& built,
                         const cl::Kernel& kernel, std::array<std::size_t, 3> global,
                         const std::array<std::size_t, 3>& local,
                         const std::vector<cl::Event>& wait, bool wants_event = true);

// How a kernel that slices K (KernelSpec::slices_k) divides it: `slices` along the third grid
// dimension, each k_slice deep (0: all of K), writing slab s of C at s * c_slice_stride.
struct KSlicing {
  long slices = 1;
  std::int64_t k_slice = 0;
  std::size_t c_slice_stride = 0;
};

// Sets the arguments every GEMM kernel takes (GEMM_PARAMETERS of gemm_common.clh) from the
// call, for the launch whose first product is `first_product`; returns the next argument's index.
int set_gemm_arguments(cl::Kernel& kernel, const KernelCall& call, std::int64_t first_product);
// The epilogue's arguments (EPILOGUE_PARAMETERS) from index `arg` on; returns the next index.
int set_epilogue_arguments(cl::Kernel& kernel, int arg, const Epilogue& epilogue);

// Enqueues `entry_point` of `built` over the call's products: `global` x `local` per product
// (x, y), the products along the third dimension `slices` apart (set_extra sets arguments
// after the GEMM's), in launches of at most kProductsPerLaunch products, each waiting for the
// one before. Returns the last launch's event (empty without `wants_event`, as enqueue_kernel).
cl::Event enqueue_products(const cl::CommandQueue& queue, const BuiltProgram& built,
                           const std::string& entry_point, const KernelCall& call,
                           std::array<std::size_t, 2> global, std::array<std::size_t, 2> local,
                           long slices, const std::vector<cl::Event>& wait,
                           const std::function<void(cl::Kernel&, int)>& set_extra = {},
                           bool wants_event = true);

// Sets the kernel's arguments from the call and enqueues it with the spec's geometry.
cl::Event enqueue_call(const cl::CommandQueue& queue, const BuiltProgram& built,
                       const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const std::vector<cl::Event>& wait, const KSlicing& slicing = {},
                       bool wants_event = true);

}  // namespace clgemm::detail
