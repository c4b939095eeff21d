// check_fits_device: whether a problem's matrices fit the device whole, as device buffers (the
// buffer path, and the tools' device-resident measurements). The host-array path does not need
// it: its engine streams tiles through buffers under its own memory limit.
#include <cstdint>
#include <string>
#include <tuple>

#include "clgemm/errors.hpp"
#include "problem/product_offsets.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

// check_fits_device() for a problem already validated.
void check_validated_fits_device(const GemmProblem& problem, const DeviceLimits& limits) {
  // Bytes of each matrix a device-resident call holds, from its lowest product's offset to
  // its last element (A and B only when they are read). validate_problem ensured that the element
  // counts fit a byte count.
  const bool operands = problem.reads_operands();
  const detail::ProductOffsets lowest = detail::lowest_product_offsets(problem);
  std::size_t total = 0;
  for (auto [which, elements, offset, staged] :
       {std::tuple{Argument::A, problem.a_elements(), lowest.a, operands},
        std::tuple{Argument::B, problem.b_elements(), lowest.b, operands},
        std::tuple{Argument::C, problem.c_elements(), lowest.c, !problem.is_empty()}}) {
    if (!staged) continue;
    const char* what = argument_name(which);
    const std::size_t bytes = (elements - offset) * sizeof(float);
    if (bytes > limits.max_allocation_bytes)
      throw Error(ErrorCode::AllocationTooLarge,
                  std::string("matrix ") + what + " needs " + std::to_string(bytes) +
                      " bytes, above CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                      std::to_string(limits.max_allocation_bytes) + " of device '" + limits.name +
                      "'",
                  which);
    total += bytes;
  }
  // The bias vector is held like the matrices, from its offset to its last element.
  if (problem.epilogue.bias != Bias::None && !problem.is_empty()) {
    const std::size_t bytes =
        (problem.bias_elements() - problem.epilogue.bias_offset) * sizeof(float);
    if (bytes > limits.max_allocation_bytes)
      throw Error(ErrorCode::AllocationTooLarge,
                  "the bias vector needs " + std::to_string(bytes) +
                      " bytes (offset to the last product's bias: (batch - 1) x bias_stride + "
                      "length), above CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                      std::to_string(limits.max_allocation_bytes) + " of device '" + limits.name +
                      "'",
                  Argument::Bias);
    total += bytes;
  }
  if (total > limits.global_memory_bytes)
    throw Error(
        ErrorCode::AllocationTooLarge,
        std::string(problem.epilogue.bias != Bias::None ? "A, B, C and the bias" : "A, B and C") +
            " need " + std::to_string(total) +
            " bytes together, above CL_DEVICE_GLOBAL_MEM_SIZE = " +
            std::to_string(limits.global_memory_bytes) + " of device '" + limits.name + "'");
}

}  // namespace

void check_fits_device(const GemmProblem& problem, const DeviceLimits& limits) try {
  validate_problem(problem);
  check_validated_fits_device(problem, limits);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
