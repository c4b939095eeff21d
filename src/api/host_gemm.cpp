// The host-array GEMM entry: validate, plan (what runs, or nothing), check the pointers the
// call reads and writes, and hand the call to the host-memory engine (src/host/), which
// stages, streams tiles and computes problems larger than the device out of core. C is
// untouched by every error raised before the engine writes into it.
#include <string>

#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

void require(const void* pointer, Argument which, const char* why) {
  if (!pointer)
    throw Error(ErrorCode::InvalidArgument,
                std::string("matrix ") + argument_name(which) + " is a null pointer, but " + why,
                which);
}

void check_host_epilogue(const GemmProblem& problem) {
  const Epilogue& e = problem.epilogue;
  if (e.bias_buffer)
    throw Error(ErrorCode::InvalidArgument,
                "the bias is a cl_mem on the host-array path; give it as bias_data",
                Argument::Bias);
  if (e.bias != Bias::None && !e.bias_data)
    throw Error(ErrorCode::InvalidArgument,
                std::string("bias is ") + bias_name(e.bias) + ", but bias_data is a null pointer",
                Argument::Bias);
  if (problem.products.buffer)
    throw Error(ErrorCode::InvalidArgument,
                "the product table is a cl_mem on the host-array path; give it as products.host",
                Argument::Products);
}

}  // namespace

GemmRecord Context::sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                          const RunSettings& settings) try {
  validate_problem(problem);
  check_host_epilogue(problem);
  const detail::CallPlan plan = state_->plan(settings, problem, detail::row_major_call(problem));
  if (plan.kind == detail::CallKind::Nothing) return record_of_nothing(plan);
  if (plan.kind == detail::CallKind::Gemm) {
    require(a, Argument::A, "the call reads it");
    require(b, Argument::B, "the call reads it");
  }
  require(c, Argument::C, "the call writes it");
  return state_->sgemm_host(problem, plan, settings, a, b, c);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
