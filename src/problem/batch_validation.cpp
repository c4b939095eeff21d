// The checks of a batch and an epilogue (batch_validation.hpp): a batch count the kernels can
// index, strides and product tables whose C's share no element (overlap.hpp decides),
// and a bias and activation that say exactly one thing.
#include "problem/batch_validation.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "clgemm/errors.hpp"
#include "problem/overlap.hpp"

namespace clgemm {

void validate_products(const GemmProblem& p, const BatchProduct* entries) {
  if (p.batch <= 0) return;
  if (!entries)
    throw Error(ErrorCode::InvalidArgument, "the product table is a null pointer",
                Argument::Products);
  struct Range {
    std::size_t begin, end;
    std::int64_t product;
  };
  const std::size_t c_extent = p.c_extent();
  std::vector<Range> ranges;
  ranges.reserve(std::size_t(p.batch));
  for (std::int64_t i = 0; i < p.batch; ++i) {
    const BatchProduct& e = entries[i];
    for (auto [which, offset, extent] : {std::tuple{Argument::A, e.a_offset, p.a_extent()},
                                         std::tuple{Argument::B, e.b_offset, p.b_extent()},
                                         std::tuple{Argument::C, e.c_offset, c_extent}}) {
      std::size_t end;
      if (__builtin_add_overflow(std::size_t(offset), extent, &end) ||
          end > SIZE_MAX / sizeof(float))
        throw Error(ErrorCode::InvalidSize,
                    "product " + std::to_string(i) + " of the table: matrix " +
                        argument_name(which) + " at offset " + std::to_string(offset) +
                        " plus its extent overflows 64 bits of bytes",
                    which);
    }
    if (c_extent)
      ranges.push_back({std::size_t(e.c_offset), std::size_t(e.c_offset) + c_extent, i});
  }
  // Sorted by start, each product is compared, element set against element set, with those
  // before it whose range it starts inside (interleaved products share no element and pass).
  // Past kMostComparedPairs comparisons the ranges alone decide, which the message says.
  constexpr std::size_t kMostComparedPairs = std::size_t(1) << 22;
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& x, const Range& y) { return x.begin < y.begin; });
  const detail::MatrixGrid grid = detail::batch_elements(p, Argument::C).grid;
  std::vector<std::size_t> open;  // indices into ranges that may still meet the next
  std::size_t compared = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&](std::size_t j) { return ranges[j].end <= ranges[i].begin; }),
               open.end());
    for (std::size_t j : open) {
      const bool too_many = ++compared > kMostComparedPairs;
      if (too_many ||
          detail::grids_intersect(__int128(ranges[i].begin - ranges[j].begin), grid, grid, p.ldc))
        throw Error(ErrorCode::OverlappingOutput,
                    "products " + std::to_string(ranges[j].product) + " and " +
                        std::to_string(ranges[i].product) + " of the table write " +
                        (too_many ? "overlapping ranges of C (too many interleaved products to "
                                    "compare their elements; "
                                  : "the same elements of C (") +
                        "c_offset " + std::to_string(ranges[j].begin) + " and " +
                        std::to_string(ranges[i].begin) + ", each C spanning " +
                        std::to_string(c_extent) + " elements)",
                    Argument::Products);
    }
    open.push_back(i);
  }
}

namespace detail {

void validate_batch(const GemmProblem& p) {
  const std::int64_t limit = INT_MAX;
  if (p.batch < 0)
    throw Error(ErrorCode::InvalidSize,
                "batch = " + std::to_string(p.batch) + " must not be negative", Argument::Batch);
  if (p.batch > limit)
    throw Error(ErrorCode::InvalidSize,
                "batch = " + std::to_string(p.batch) + " exceeds the largest supported batch " +
                    std::to_string(limit),
                Argument::Batch);
  for (auto [which, stride] : {std::pair{Argument::StrideA, p.stride_a},
                               {Argument::StrideB, p.stride_b},
                               {Argument::StrideC, p.stride_c}})
    if (stride < 0)
      throw Error(ErrorCode::InvalidArgument,
                  std::string(argument_name(which)) + " = " + std::to_string(stride) +
                      " must not be negative",
                  which);
  if (p.products.given()) {
    if (p.products.host && p.products.buffer)
      throw Error(ErrorCode::InvalidArgument,
                  "the product table is given both as a host array and as a cl_mem; give one",
                  Argument::Products);
    for (auto [which, stride] : {std::pair{Argument::StrideA, p.stride_a},
                                 {Argument::StrideB, p.stride_b},
                                 {Argument::StrideC, p.stride_c}})
      if (stride != 0)
        throw Error(ErrorCode::InvalidArgument,
                    std::string(argument_name(which)) + " = " + std::to_string(stride) +
                        ": with a product table the offsets come from its entries, so the "
                        "strides must be 0",
                    which);
    for (auto [which, offset] :
         {std::pair{Argument::A, p.a_offset}, {Argument::B, p.b_offset}, {Argument::C, p.c_offset}})
      if (offset != 0)
        throw Error(ErrorCode::InvalidArgument,
                    std::string("the offset of ") + argument_name(which) + " = " +
                        std::to_string(offset) +
                        ": with a product table the offsets come from its entries, so the "
                        "problem's must be 0",
                    Argument::Products);
    if (p.products.host) validate_products(p, p.products.host);
    return;
  }
  if (p.products.offset != 0)
    throw Error(ErrorCode::InvalidArgument,
                "products.offset = " + std::to_string(p.products.offset) +
                    " is set, but no product table is given",
                Argument::Products);
  // Decided on the element sets: products closer than one C apart are accepted when they
  // interleave without sharing an element (two C's in alternate columns).
  const std::size_t c_extent = p.c_extent();
  if (const std::int64_t k = detail::first_overlapping_product(
          detail::batch_elements(p, Argument::C).grid, p.stride_c, p.batch))
    throw Error(ErrorCode::OverlappingOutput,
                "stride_c = " + std::to_string(p.stride_c) + " is smaller than one C (" +
                    std::to_string(c_extent) +
                    " elements: (lines - 1) x ldc + line length), and products 0 and " +
                    std::to_string(k) + " of the batch would write the same elements of C",
                Argument::StrideC);
}

void validate_epilogue(const GemmProblem& p) {
  const Epilogue& e = p.epilogue;
  if (e.bias != Bias::None && e.bias != Bias::PerRow && e.bias != Bias::PerColumn)
    throw Error(ErrorCode::InvalidArgument,
                "bias = " + std::to_string(int(e.bias)) +
                    " is none of none (0), per-row (1) and per-column (2)",
                Argument::Bias);
  if (e.bias == Bias::None && (e.bias_data || e.bias_buffer || e.bias_offset || e.bias_stride))
    throw Error(ErrorCode::InvalidArgument,
                "a bias vector, offset or stride is given, but bias is none: say per-row or "
                "per-column",
                Argument::Bias);
  if (e.bias_data && e.bias_buffer)
    throw Error(ErrorCode::InvalidArgument,
                "the bias is given both as a host array and as a cl_mem; give one", Argument::Bias);
  if (e.bias_stride < 0)
    throw Error(ErrorCode::InvalidArgument,
                "bias_stride = " + std::to_string(e.bias_stride) + " must not be negative",
                Argument::Bias);
  if (p.bias_elements() == SIZE_MAX)
    throw Error(ErrorCode::InvalidSize,
                "the bias vector's extent (offset + (batch - 1) x bias_stride + length) in "
                "bytes overflows 64 bits",
                Argument::Bias);
  switch (e.activation) {
    case Activation::None:
    case Activation::ReLU:
    case Activation::GELU:
      return;
    case Activation::Clamp:
      if (std::isnan(e.clamp_low) || std::isnan(e.clamp_high) || e.clamp_low > e.clamp_high)
        throw Error(ErrorCode::InvalidArgument,
                    "clamp bounds [" + std::to_string(e.clamp_low) + ", " +
                        std::to_string(e.clamp_high) +
                        "]: low must not exceed high, and neither may be NaN",
                    Argument::Activation);
      return;
  }
  throw Error(ErrorCode::InvalidArgument,
              "activation = " + std::to_string(int(e.activation)) +
                  " is none of none (0), relu (1), gelu (2) and clamp (3)",
              Argument::Activation);
}

}  // namespace detail
}  // namespace clgemm
