// Internal: the "-D" options a kernel is built with for a call: its compiled parameters, the
// operands' transposes and alignment, the precision, split-K, product tables and the epilogue.
#pragma once

#include <string>

#include "catalog/kernel_spec.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

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

// The epilogue's build options: "" for none, else " -D BIAS=.. -D ACTIVATION=..".
std::string epilogue_build_options(const Epilogue& epilogue);

}  // namespace clgemm::detail
