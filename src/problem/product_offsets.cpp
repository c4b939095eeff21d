// Where each product of a batch starts (product_offsets.hpp).
#include "problem/product_offsets.hpp"

#include <algorithm>

namespace clgemm::detail {

ProductOffsets product_offsets(const GemmProblem& p, std::int64_t index) {
  const std::size_t i = std::size_t(index);
  ProductOffsets at;
  if (p.products.host) {
    const BatchProduct& e = p.products.host[index];
    at.a = e.a_offset, at.b = e.b_offset, at.c = e.c_offset;
  } else {
    at.a = p.a_offset + i * std::size_t(p.stride_a);
    at.b = p.b_offset + i * std::size_t(p.stride_b);
    at.c = p.c_offset + i * std::size_t(p.stride_c);
  }
  at.bias = p.epilogue.bias_offset + i * std::size_t(p.epilogue.bias_stride);
  return at;
}

ProductOffsets lowest_product_offsets(const GemmProblem& p) {
  if (p.batch <= 0) return {p.a_offset, p.b_offset, p.c_offset, p.epilogue.bias_offset};
  ProductOffsets low = product_offsets(p, 0);
  if (!p.products.host) return low;
  for (std::int64_t i = 1; i < p.batch; ++i) {
    const ProductOffsets at = product_offsets(p, i);
    low.a = std::min(low.a, at.a), low.b = std::min(low.b, at.b), low.c = std::min(low.c, at.c);
  }
  return low;
}

}  // namespace clgemm::detail
