// Internal: the kernels index with 32-bit integers; a call whose launch would pass them is
// refused before anything is built.
#pragma once

#include "catalog/kernel_spec.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// Throws Error(InvalidSize) naming the size, the kernel's block and the limit when the call's
// launch would not fit the kernels' 32-bit indices: a global range above 2^31 - 1 work-items,
// or M, N or K that, rounded up to the kernel's block and one block more, passes 2^31 - 1.
void check_index_range(const KernelSpec& spec, const KernelOptions& options,
                       const KernelCall& call);

}  // namespace clgemm::detail
