// Setting a kernel's arguments from a call and enqueueing it (launch/kernel_launch.hpp).
#include "launch/kernel_launch.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "clgemm/errors.hpp"
#include "runtime/launch_order.hpp"

namespace clgemm::detail {

std::size_t pointer_alignment(const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  return address ? std::size_t(address & (~address + 1)) : 4096;  // lowest set bit
}

std::size_t buffer_alignment(cl_mem buffer, const DeviceLimits& limits) {
  const std::size_t device_alignment = limits.base_address_align_bits / 8;
  cl_mem_flags flags = 0;
  void* host = nullptr;
  if (clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, nullptr) != CL_SUCCESS)
    return sizeof(float);
  if (!(flags & CL_MEM_USE_HOST_PTR)) return device_alignment;
  if (clGetMemObjectInfo(buffer, CL_MEM_HOST_PTR, sizeof host, &host, nullptr) != CL_SUCCESS)
    return sizeof(float);
  return std::min(device_alignment, pointer_alignment(host));
}

cl::Event enqueue_kernel(const cl::CommandQueue& queue, const BuiltProgram& built,
                         const cl::Kernel& kernel, std::array<std::size_t, 3> global,
                         const std::array<std::size_t, 3>& local,
                         const std::vector<cl::Event>& wait, bool wants_event) {
  for (int dim = 0; dim < 3; ++dim) global[dim] = round_up(std::int64_t(global[dim]), local[dim]);
  const bool three_d = global[2] > 1 || local[2] > 1;
  const cl::NDRange global_range =
      three_d ? cl::NDRange(global[0], global[1], global[2]) : cl::NDRange(global[0], global[1]);
  const cl::NDRange local_range =
      three_d ? cl::NDRange(local[0], local[1], local[2]) : cl::NDRange(local[0], local[1]);
  cl::Event launched;
  if (built.launch_order_key.empty()) {  // no chain to keep (launch_order.hpp)
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, global_range, local_range,
                               wait.empty() ? nullptr : &wait, wants_event ? &launched : nullptr);
    return launched;
  }
  enqueue_in_order(built.launch_order_key, queue.getInfo<CL_QUEUE_CONTEXT>(),
                   [&](const std::vector<cl::Event>& chained) {
                     std::vector<cl::Event> all = wait;
                     all.insert(all.end(), chained.begin(), chained.end());
                     queue.enqueueNDRangeKernel(kernel, cl::NullRange, global_range, local_range,
                                                all.empty() ? nullptr : &all, &launched);
                     return launched;
                   });
  return launched;
}

int set_gemm_arguments(cl::Kernel& kernel, const KernelCall& call, std::int64_t first_product) {
  int arg = 0;
  kernel.setArg(arg++, cl_int(call.m));
  kernel.setArg(arg++, cl_int(call.n));
  kernel.setArg(arg++, cl_int(call.k));
  kernel.setArg(arg++, call.alpha);
  for (const Operand* x : {&call.a, &call.b}) {
    kernel.setArg(arg++, sizeof(cl_mem), &x->buffer);
    kernel.setArg(arg++, cl_ulong(x->offset));
    kernel.setArg(arg++, cl_int(x->ld));
  }
  kernel.setArg(arg++, call.beta);
  kernel.setArg(arg++, sizeof(cl_mem), &call.c.buffer);
  kernel.setArg(arg++, cl_ulong(call.c.offset));
  kernel.setArg(arg++, cl_int(call.c.ld));
  kernel.setArg(arg++, cl_uint(first_product));
  kernel.setArg(arg++, cl_ulong(call.a.stride));
  kernel.setArg(arg++, cl_ulong(call.b.stride));
  kernel.setArg(arg++, cl_ulong(call.c.stride));
  kernel.setArg(arg++, sizeof(cl_mem), &call.products);
  kernel.setArg(arg++, cl_ulong(call.products_offset));
  return set_epilogue_arguments(kernel, arg, call.epilogue);
}

int set_epilogue_arguments(cl::Kernel& kernel, int arg, const Epilogue& e) {
  kernel.setArg(arg++, sizeof(cl_mem), &e.bias_buffer);
  kernel.setArg(arg++, cl_ulong(e.bias_offset));
  kernel.setArg(arg++, cl_ulong(e.bias_stride));
  kernel.setArg(arg++, e.clamp_low);
  kernel.setArg(arg++, e.clamp_high);
  return arg;
}

cl::Event enqueue_products(const cl::CommandQueue& queue, const BuiltProgram& built,
                           const std::string& entry_point, const KernelCall& call,
                           std::array<std::size_t, 2> global, std::array<std::size_t, 2> local,
                           long slices, const std::vector<cl::Event>& wait,
                           const std::function<void(cl::Kernel&, int)>& set_extra,
                           bool wants_event) {
  // One object per launch at a time: cl_kernel arguments are not safe to set from several threads.
  KernelPool::Lease lease(built.kernels, built.program, entry_point);
  cl::Kernel& kernel = lease.kernel();
  std::vector<cl::Event> before = wait;
  cl::Event last;
  for (std::int64_t first = 0; first < call.batch; first += kProductsPerLaunch) {
    const std::int64_t products = std::min(kProductsPerLaunch, call.batch - first);
    const int next = set_gemm_arguments(kernel, call, first);
    if (set_extra) set_extra(kernel, next);
    const bool final_launch = first + products >= call.batch;
    last = enqueue_kernel(queue, built, kernel,
                          {global[0], global[1], std::size_t(products) * std::size_t(slices)},
                          {local[0], local[1], 1}, before, wants_event || !final_launch);
    before = {last};
  }
  return last;
}

cl::Event enqueue_call(const cl::CommandQueue& queue, const BuiltProgram& built,
                       const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const std::vector<cl::Event>& wait, const KSlicing& slicing,
                       bool wants_event) {
  if (!spec.slices_k && slicing.slices > 1)
    throw Error(ErrorCode::InvalidOption,
                "kernel '" + spec.description.name + "' does not slice K (split-K)");
  const auto geometry = spec.geometry(options, call.m, call.n);
  std::function<void(cl::Kernel&, int)> set_slicing;
  if (spec.slices_k)
    set_slicing = [&](cl::Kernel& kernel, int arg) {
      kernel.setArg(
          arg++, cl_int(slicing.k_slice > 0 ? slicing.k_slice : std::max<std::int64_t>(call.k, 1)));
      kernel.setArg(arg++, cl_ulong(slicing.c_slice_stride));
    };
  return enqueue_products(queue, built, spec.entry_point, call, geometry.global, geometry.local,
                          slicing.slices, wait, set_slicing, wants_event);
}

}  // namespace clgemm::detail
