// The host-array GEMM entry: validate, plan (what runs, or nothing), check the pointers the
// call reads and writes, and hand the call to the host-memory engine (src/host/), which
// stages, streams tiles and computes problems larger than the device out of core. C is
// untouched by every error raised before the engine writes into it.
//
// Where the engine streams through device copies (a device without shared memory, or
// CLGEMM_HOST_COPY=1), an input array that shares memory with C is read from a private copy:
// tiles of C are written back while later tiles still read A and B.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "api/context_state.hpp"
#include "clgemm/errors.hpp"
#include "host/engine_settings.hpp"
#include "problem/product_offsets.hpp"
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

// The bytes of `array` a problem's products span: from the lowest product's offset to the end.
struct Span {
  const float* begin = nullptr;
  const float* end = nullptr;
  bool overlaps(const Span& other) const {
    return begin && other.begin && begin < other.end && other.begin < end;
  }
};

Span span_of(const float* array, const GemmProblem& p, std::size_t detail::ProductOffsets::*offset,
             std::size_t elements) {
  if (!array || elements == 0) return {};
  return {array + detail::lowest_product_offsets(p).*offset, array + elements};
}

}  // namespace

GemmRecord Context::sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                          const RunSettings& settings) try {
  validate_problem(problem);
  check_host_epilogue(problem);
  const auto planned = state_->plan(settings, problem, detail::row_major_call(problem));
  const detail::CallPlan& plan = planned->plan;
  if (plan.kind == detail::CallKind::Nothing) return detail::record_of_nothing(plan);
  if (plan.kind == detail::CallKind::Gemm) {
    require(a, Argument::A, "the call reads it");
    require(b, Argument::B, "the call reads it");
  }
  require(c, Argument::C, "the call writes it");
  const DeviceLimits& limits = state_->device.limits();
  if (limits.host_unified_memory && !detail::read_engine_settings(limits).force_copy)
    return detail::sgemm_host(problem, plan, settings, a, b, c, state_->engine_resources());

  // Inputs that share memory with C, read from private copies.
  const Span c_span = span_of(c, problem, &detail::ProductOffsets::c, problem.c_elements());
  std::vector<float> a_copy, b_copy, bias_copy;
  auto private_copy = [&](const float*& array, const Span& span, std::vector<float>& copy) {
    if (!c_span.overlaps(span)) return;
    copy.assign(array, span.end);  // from the array's start: offsets stay the same
    array = copy.data();
  };
  if (plan.kind == detail::CallKind::Gemm) {
    private_copy(a, span_of(a, problem, &detail::ProductOffsets::a, problem.a_elements()), a_copy);
    private_copy(b, span_of(b, problem, &detail::ProductOffsets::b, problem.b_elements()), b_copy);
  }
  GemmProblem call = problem;
  if (call.epilogue.bias != Bias::None && call.epilogue.bias_data) {
    const float* bias = call.epilogue.bias_data;
    const std::size_t end = call.bias_elements();
    private_copy(bias, {bias + call.epilogue.bias_offset, bias + end}, bias_copy);
    call.epilogue.bias_data = bias;
  }
  return detail::sgemm_host(call, plan, settings, a, b, c, state_->engine_resources());
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
