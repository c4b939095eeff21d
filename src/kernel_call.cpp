// Mapping a GemmProblem onto the row-major kernels, and launching a kernel.
#include "kernel_call.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

#include "clgemm/errors.hpp"
#include "launch_order.hpp"

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

Bias transposed_bias(Bias bias) {
  return bias == Bias::PerRow ? Bias::PerColumn : bias == Bias::PerColumn ? Bias::PerRow : bias;
}

KernelCall row_major_call(const GemmProblem& p) {
  KernelCall call;
  call.alpha = p.alpha;
  call.beta = p.beta;
  const bool table = p.products.given();
  call.c = {nullptr, p.c_offset, p.ldc, false, 0, p.stride_c, table};
  const Operand a{nullptr, p.a_offset, p.lda, is_transposed(p.trans_a), 0, p.stride_a, table};
  const Operand b{nullptr, p.b_offset, p.ldb, is_transposed(p.trans_b), 0, p.stride_b, table};
  call.batch = p.batch;
  call.table = table;
  call.products_offset = p.products.offset;
  call.epilogue = p.epilogue;
  call.epilogue.bias_data = nullptr;
  if (p.layout == Layout::RowMajor) {
    call.m = p.m, call.n = p.n, call.k = p.k;
    call.a = a, call.b = b;
  } else {
    // Column-major X is row-major X^T: C^T (n x m) = op(B)^T * op(A)^T.
    call.column_major = true;
    call.m = p.n, call.n = p.m, call.k = p.k;
    call.a = b, call.b = a;
    call.epilogue.bias = transposed_bias(p.epilogue.bias);
  }
  return call;
}

bool operand_aligned(const Operand& x, long vec) {
  return x.base_alignment >= std::size_t(vec) * sizeof(float) && x.ld % vec == 0 &&
         x.offset % std::size_t(vec) == 0 && x.stride % vec == 0 && !x.table_offsets;
}

KernelOptions compiled_options(const KernelSpec& spec, const KernelOptions& options) {
  KernelOptions compiled = options;
  for (const auto& parameter : spec.description.host_parameters) compiled.erase(parameter.name);
  return compiled;
}

std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision, bool sliced_k) {
  std::string out = format_build_options(compiled_options(spec, options));
  const bool reads_as_stored = call && !spec.packs_operands;
  out += std::string(" -D TRANS_A=") + (reads_as_stored && call->a.transposed ? "1" : "0");
  out += std::string(" -D TRANS_B=") + (reads_as_stored && call->b.transposed ? "1" : "0");
  if (spec.uses_alignment_hints) {
    const long vec = options.at("VEC");
    out += std::string(" -D A_ALIGNED=") + (call && operand_aligned(call->a, vec) ? "1" : "0");
    out += std::string(" -D B_ALIGNED=") + (call && operand_aligned(call->b, vec) ? "1" : "0");
  }
  if (spec.description.precisions.size() > 1 || spec.description.precisions[0] != Precision::FP32)
    out += " -D PRECISION=" + std::to_string(int(precision));
  if (spec.slices_k && sliced_k) out += " -D SLICED_K=1";
  if (call) out += batch_build_options(*call) + epilogue_build_options(call->epilogue);
  return out;
}

std::string batch_build_options(const KernelCall& call) {
  return call.has_table() ? " -D PRODUCT_TABLE=1" : "";
}

std::string epilogue_build_options(const Epilogue& epilogue) {
  if (epilogue.is_identity()) return "";
  return " -D BIAS=" + std::to_string(int(epilogue.bias)) +
         " -D ACTIVATION=" + std::to_string(int(epilogue.activation));
}

void check_index_range(const KernelSpec& spec, const KernelOptions& options,
                       const KernelCall& call) {
  const std::int64_t limit = INT_MAX;
  const auto block = spec.block(options);
  const auto& name = spec.description.name;
  // The row-major call's sizes: a column-major problem's M and N are swapped in the call.
  const Argument rows = call.column_major ? Argument::N : Argument::M;
  const Argument columns = call.column_major ? Argument::M : Argument::N;
  const struct {
    Argument which;
    std::int64_t size, block;
  } sizes[] = {{rows, call.m, block[0]}, {columns, call.n, block[1]}, {Argument::K, call.k, block[2]}};
  for (const auto& s : sizes) {
    const std::int64_t covered = (s.size + s.block - 1) / s.block * s.block + s.block;
    if (covered > limit)
      throw Error(ErrorCode::InvalidSize,
                  std::string(argument_name(s.which)) + " = " + std::to_string(s.size) +
                      " is too large for kernel '" +
                      name + "' with blocks of " + std::to_string(s.block) +
                      ": rounded up to its block plus one block it reaches " +
                      std::to_string(covered) + ", beyond the 32-bit indices of the kernels (" +
                      std::to_string(limit) + "); the largest size it takes is " +
                      std::to_string((limit - s.block) / s.block * s.block),
                  s.which);
  }
  const auto geometry = spec.geometry(options, call.m, call.n);
  for (int dim = 0; dim < 2; ++dim)
    if (geometry.global[dim] > std::size_t(limit))
      throw Error(ErrorCode::InvalidSize,
                  "kernel '" + name + "' would launch " + std::to_string(geometry.global[dim]) +
                      " work-items in dimension " + std::to_string(dim) +
                      ", beyond the 32-bit indices of the kernels (" + std::to_string(limit) + ")",
                  dim == 0 ? columns : rows);
}

cl::Event enqueue_kernel(const cl::CommandQueue& queue, const BuiltProgram& built,
                         const cl::Kernel& kernel, std::array<std::size_t, 3> global,
                         const std::array<std::size_t, 3>& local, const std::vector<cl::Event>& wait) {
  for (int dim = 0; dim < 3; ++dim) global[dim] = round_up(std::int64_t(global[dim]), local[dim]);
  const bool three_d = global[2] > 1 || local[2] > 1;
  const cl::NDRange global_range = three_d ? cl::NDRange(global[0], global[1], global[2])
                                           : cl::NDRange(global[0], global[1]);
  const cl::NDRange local_range =
      three_d ? cl::NDRange(local[0], local[1], local[2]) : cl::NDRange(local[0], local[1]);
  cl::Event launched;
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
                           const std::function<void(cl::Kernel&, int)>& set_extra) {
  // One object per launch at a time: cl_kernel arguments are not safe to set from several threads.
  KernelPool::Lease lease(built.kernels, built.program, entry_point);
  cl::Kernel& kernel = lease.kernel();
  std::vector<cl::Event> before = wait;
  cl::Event last;
  for (std::int64_t first = 0; first < call.batch; first += kProductsPerLaunch) {
    const std::int64_t products = std::min(kProductsPerLaunch, call.batch - first);
    const int next = set_gemm_arguments(kernel, call, first);
    if (set_extra) set_extra(kernel, next);
    last = enqueue_kernel(queue, built, kernel,
                          {global[0], global[1], std::size_t(products) * std::size_t(slices)},
                          {local[0], local[1], 1}, before);
    before = {last};
  }
  return last;
}

cl::Event enqueue_call(const cl::CommandQueue& queue, const BuiltProgram& built,
                       const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const std::vector<cl::Event>& wait, const KSlicing& slicing) {
  if (!spec.slices_k && slicing.slices > 1)
    throw Error(ErrorCode::InvalidOption,
                "kernel '" + spec.description.name + "' does not slice K (split-K)");
  const auto geometry = spec.geometry(options, call.m, call.n);
  std::function<void(cl::Kernel&, int)> set_slicing;
  if (spec.slices_k)
    set_slicing = [&](cl::Kernel& kernel, int arg) {
      kernel.setArg(arg++, cl_int(slicing.k_slice > 0 ? slicing.k_slice : std::max<std::int64_t>(call.k, 1)));
      kernel.setArg(arg++, cl_ulong(slicing.c_slice_stride));
    };
  return enqueue_products(queue, built, spec.entry_point, call, geometry.global, geometry.local,
                          slicing.slices, wait, set_slicing);
}

}  // namespace clgemm::detail
