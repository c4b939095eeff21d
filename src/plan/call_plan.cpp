// The kind of call a problem is (call_plan.hpp): nothing to compute, C = beta * C, or a GEMM.
#include "plan/call_plan.hpp"

namespace clgemm::detail {

KindOfCall kind_of_call(const GemmProblem& problem) {
  if (problem.is_empty())
    return {CallKind::Nothing, std::string(problem.m == 0   ? "M"
                                           : problem.n == 0 ? "N"
                                                            : "batch") +
                                   " = 0: nothing to compute (the BLAS quick return)"};
  if (problem.reads_operands()) return {};
  const std::string why = problem.k == 0 ? "K = 0" : "alpha = 0";
  if (problem.beta == 1.0f && problem.epilogue.is_identity() && !problem.products.given())
    return {CallKind::Nothing, why + " and beta = 1: C stays as it is (the BLAS quick return)"};
  return {CallKind::ScaleC, why + ": C = " + (problem.epilogue.is_identity() ? "" : "act(") +
                                "beta * C" +
                                (problem.epilogue.bias != Bias::None ? " + bias" : "") +
                                (problem.epilogue.is_identity() ? "" : ")") +
                                " without reading A or B (BLAS semantics)"};
}

}  // namespace clgemm::detail
