// Internal: computing parts of C on the host, accumulated in double, for the engine's one
// recovery: when the device fails after the engine has written some of C's tiles into the
// caller's array, the rest are computed here, so the call never leaves C half written.
#pragma once

#include <cstdint>

#include "clgemm/gemm.hpp"

namespace clgemm::detail {

// Writes `count` elements of line `line` of product `product`'s C, from position `position`
// on (lines are C's rows in row-major, its columns in column-major), as the call computes
// them: act(alpha * op(A) * op(B) + beta * C + bias), from the caller's arrays.
void compute_on_host(const GemmProblem& problem, const float* a, const float* b, float* c,
                     std::int64_t product, std::int64_t line, std::int64_t position,
                     std::int64_t count);

}  // namespace clgemm::detail
