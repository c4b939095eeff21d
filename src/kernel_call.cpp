// Mapping a GemmProblem onto the row-major kernels, and launching one.
#include "kernel_call.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

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

KernelCall row_major_call(const GemmProblem& p) {
  KernelCall call;
  call.alpha = p.alpha;
  call.beta = p.beta;
  call.c = {nullptr, p.c_offset, p.ldc, false};
  const Operand a{nullptr, p.a_offset, p.lda, p.trans_a == Transpose::Trans};
  const Operand b{nullptr, p.b_offset, p.ldb, p.trans_b == Transpose::Trans};
  if (p.layout == Layout::RowMajor) {
    call.m = p.m, call.n = p.n, call.k = p.k;
    call.a = a, call.b = b;
  } else {
    // Column-major X is row-major X^T: C^T (n x m) = op(B)^T * op(A)^T.
    call.m = p.n, call.n = p.m, call.k = p.k;
    call.a = b, call.b = a;
  }
  return call;
}

std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision) {
  std::string out = format_build_options(options);
  out += std::string(" -D TRANS_A=") + (call && call->a.transposed ? "1" : "0");
  out += std::string(" -D TRANS_B=") + (call && call->b.transposed ? "1" : "0");
  if (spec.uses_alignment_hints) {
    const long vec = options.at("VEC");
    auto aligned = [&](const Operand& x) {
      return x.base_alignment >= std::size_t(vec) * sizeof(float) && x.ld % vec == 0 &&
             x.offset % std::size_t(vec) == 0;
    };
    out += std::string(" -D A_ALIGNED=") + (call && aligned(call->a) ? "1" : "0");
    out += std::string(" -D B_ALIGNED=") + (call && aligned(call->b) ? "1" : "0");
  }
  if (spec.description.precisions.size() > 1 || spec.description.precisions[0] != Precision::FP32)
    out += " -D PRECISION=" + std::to_string(int(precision));
  return out;
}

void enqueue_call(const cl::CommandQueue& queue, const cl::Program& program, const KernelSpec& spec,
                  const KernelOptions& options, const KernelCall& call, cl::Event* event) {
  // A kernel object per launch: cl_kernel arguments are not safe to set from several threads.
  cl::Kernel kernel(program, spec.entry_point.c_str());
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

  const auto geometry = spec.geometry(options, call.m, call.n);
  queue.enqueueNDRangeKernel(kernel, cl::NullRange,
                             cl::NDRange(geometry.global[0], geometry.global[1]),
                             cl::NDRange(geometry.local[0], geometry.local[1]), nullptr, event);
}

}  // namespace clgemm::detail
