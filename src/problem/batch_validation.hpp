// Internal: the checks of a problem's batch (count, strides, product table) and epilogue (bias
// and activation), called by validate_problem; each throws clgemm::Error naming the argument.
#pragma once

#include "clgemm/gemm.hpp"

namespace clgemm::detail {

void validate_batch(const GemmProblem& problem);
void validate_epilogue(const GemmProblem& problem);

}  // namespace clgemm::detail
