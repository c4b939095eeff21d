// Internal: where each product of a batch starts in A, B, C and the bias vector, the one place
// that reads a host product table or steps along the strides (GemmProblem::product, the host
// engine's pieces and spans).
#pragma once

#include <cstddef>
#include <cstdint>

#include "clgemm/gemm.hpp"

namespace clgemm::detail {

// Elements from the start of each array.
struct ProductOffsets {
  std::size_t a = 0, b = 0, c = 0, bias = 0;
};

// Product `index` (0 <= index < batch): a host product table's entry for A, B and C, else the
// problem's offsets moved along by index times the strides; the bias always by bias_stride. A
// table in a cl_mem is not read here: the problem's own offsets, as for a batch of one.
ProductOffsets product_offsets(const GemmProblem& problem, std::int64_t index);

// The lowest offset of each array over all products (a table may list them in any order): the
// first product's for strided batches, whose strides are not negative. The problem's own
// offsets when the batch is empty.
ProductOffsets lowest_product_offsets(const GemmProblem& problem);

}  // namespace clgemm::detail
