// Internal: the "-D" options a kernel is built with for a call: its compiled parameters, the
// operands' transposes and alignment, the precision, split-K, product tables and the epilogue;
// and every build variant a call can need, for building them ahead (choice/warm_up.cpp).
#pragma once

#include <string>
#include <vector>

#include "catalog/kernel_spec.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// The parameters compiled into the kernel: `options` without the spec's host parameters.
KernelOptions compiled_options(const KernelSpec& spec, const KernelOptions& options);

// What of a call, beyond the kernel's parameters, the precision, a product table and the
// epilogue, changes a kernel's build: the transposes as the kernel reads the operands, whether
// every row start of A and B is VEC-aligned, and whether the launch slices K.
struct BuildVariant {
  bool trans_a = false, trans_b = false;
  bool a_aligned = false, b_aligned = false;
  bool sliced_k = false;
};

// The variant of `spec` with `options` for `call` (without one: the general case, all false),
// with what the kernel ignores cleared: transposes of the operands a kernel reads packed,
// alignment for one without alignment hints, slicing for one that does not slice K.
BuildVariant build_variant(const KernelSpec& spec, const KernelOptions& options,
                           const KernelCall* call, bool sliced_k);

// Every distinct variant of `spec` that a call can need (the ignored parts cleared), the most
// common first: no transposes, both operands aligned, K not sliced.
std::vector<BuildVariant> build_variants(const KernelSpec& spec, const KernelOptions& options);

// The kernel's parameters (host parameters left out) as "-D NAME=value", then "-D TRANS_A=..
// -D TRANS_B=.." plus, for kernels that load vectors, A_ALIGNED and B_ALIGNED, for kernels with
// precision modes "-D PRECISION=..", and "-D SLICED_K=1" for a sliced launch.
std::string variant_build_options(const KernelSpec& spec, const KernelOptions& options,
                                  const BuildVariant& variant, Precision precision);

// variant_build_options() for `call`'s variant, then the call's batch_build_options() and
// epilogue_build_options(). Without a call: the general case (no table, no epilogue). The
// operands' buffers and base alignments must be filled in.
std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision, bool sliced_k = false);

// " -D PRODUCT_TABLE=1" when the call's products come from a table (each with its own alpha,
// so a kernel then skips the products whose alpha is 0), else "". Without a table the host
// never launches a GEMM kernel with alpha = 0 (it scales C alone), so kernels read K as given.
std::string batch_build_options(const KernelCall& call);

// The epilogue's build options: "" for none, else " -D BIAS=.. -D ACTIVATION=..".
std::string epilogue_build_options(const Epilogue& epilogue);

}  // namespace clgemm::detail
