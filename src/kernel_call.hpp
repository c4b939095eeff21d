// Internal: a GEMM as the kernels see it. Every kernel computes the row-major
// C = alpha * op(A) * op(B) + beta * C; a column-major problem is the row-major problem
// C^T = op(B)^T * op(A)^T on the same memory, so it is mapped by swapping the operands.
#pragma once

#include <cstdint>
#include <string>

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
};

// The row-major call computing `problem`; buffers and offsets are filled in by the caller.
KernelCall row_major_call(const GemmProblem& problem);

// "-D TRANS_A=.. -D TRANS_B=.." plus, for kernels that load vectors, whether every row start
// of A and B is VEC-aligned (A_ALIGNED, B_ALIGNED), and for kernels with precision modes
// "-D PRECISION=..". Without a call: the general case. The operands' buffers and base
// alignments must be filled in.
std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision);

// Throws Error(InvalidSize) naming the size, the kernel's block and the limit when the call's
// launch would not fit the kernels' 32-bit indices: a global range above 2^31 - 1 work-items,
// or M, N or K that, rounded up to the kernel's block and one block more, passes 2^31 - 1.
void check_index_range(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call);

// Sets the kernel's arguments from the call and enqueues it with the spec's geometry.
void enqueue_call(const cl::CommandQueue& queue, const BuiltProgram& built, const KernelSpec& spec,
                  const KernelOptions& options, const KernelCall& call, cl::Event* event);

}  // namespace clgemm::detail
