// Whether a call's launch fits the kernels' 32-bit indices (plan/index_range.hpp).
#include "plan/index_range.hpp"

#include <climits>
#include <string>

#include "clgemm/errors.hpp"

namespace clgemm::detail {

void check_index_range(const KernelSpec& spec, const KernelOptions& options,
                       const KernelCall& call) {
  const std::int64_t limit = INT_MAX;
  const auto block = spec.block(options);
  const auto& name = spec.description.name;
  // The row-major call's sizes: a column-major problem's M and N are swapped in the call.
  const Argument rows = call.column_major ? Argument::N : Argument::M;
  const Argument columns = call.column_major ? Argument::M : Argument::N;
  const struct {
    Argument which;
    std::int64_t size, block;
  } sizes[] = {
      {rows, call.m, block[0]}, {columns, call.n, block[1]}, {Argument::K, call.k, block[2]}};
  for (const auto& s : sizes) {
    const std::int64_t covered = (s.size + s.block - 1) / s.block * s.block + s.block;
    if (covered > limit)
      throw Error(ErrorCode::InvalidSize,
                  std::string(argument_name(s.which)) + " = " + std::to_string(s.size) +
                      " is too large for kernel '" + name + "' with blocks of " +
                      std::to_string(s.block) +
                      ": rounded up to its block plus one block it reaches " +
                      std::to_string(covered) + ", beyond the 32-bit indices of the kernels (" +
                      std::to_string(limit) + "); the largest size it takes is " +
                      std::to_string((limit - s.block) / s.block * s.block),
                  s.which);
  }
  const auto geometry = spec.geometry(options, call.m, call.n);
  for (int dim = 0; dim < 2; ++dim)
    if (geometry.global[dim] > std::size_t(limit))
      throw Error(ErrorCode::InvalidSize,
                  "kernel '" + name + "' would launch " + std::to_string(geometry.global[dim]) +
                      " work-items in dimension " + std::to_string(dim) +
                      ", beyond the 32-bit indices of the kernels (" + std::to_string(limit) + ")",
                  dim == 0 ? columns : rows);
}

}  // namespace clgemm::detail
