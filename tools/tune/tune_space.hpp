// clgemm-tune's search space: a candidate list per kernel parameter (defaults by parameter
// name, overridable with --space NAME=v1,v2,...), the Cartesian product of those lists pruned
// before anything is built (validate_options() for device limits and constraints, then rules
// for hopeless candidates), and the neighbours of a candidate for the local stage of the search.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm::tune {

// The values tried for each parameter, ascending, by parameter name.
using ValueLists = std::map<std::string, std::vector<long>>;

// The default lists for a kernel: each parameter's candidates from the catalogue
// (KernelParameter::candidates) where it gives any, whatever its range (register_block's VEC
// {8,16} of 1..16, wgmma's A_REGISTERS {0,1} of 0..2); without them, every value of a short
// range (under 16 from minimum to maximum: UNROLL {0,1}), powers of two around the derived
// value otherwise. Each list keeps to the parameter's range and has the derived value added,
// less the values that need what the device lacks (parameter_value_runs_on: blocked's
// ASYNC_COPY = 1 and STAGES above 2 without cp.async).
ValueLists default_value_lists(const std::string& kernel, const KernelOptions& derived,
                               const DeviceLimits& limits);

// Applies one --space override, "NAME=v1,v2,...". Throws Error(InvalidOption) for a parameter
// the kernel does not take or a malformed list.
void apply_space_override(ValueLists& lists, const std::string& kernel, const std::string& text);

// What the pruning rules need beyond the kernel's own constraints.
struct PruneContext {
  DeviceLimits limits;
  std::int64_t m = 0, n = 0;       // the problem measured, for the padding rule
  std::size_t min_work_items = 0;  // GPUs: below a warp/wavefront of work-items is hopeless
  long register_budget = 0;        // floats a work-item may keep (accumulators + staged loads)
  Precision precision = Precision::FP32;  // what the candidates compute (their registers in it)
};
PruneContext prune_context(const DeviceLimits& limits, std::int64_t m, std::int64_t n,
                           Precision precision = Precision::FP32);

// Why a candidate is not worth building: "" when it is, else one of the reasons below (the
// first that applies): "invalid" (validate_options refused it), "few-work-items",
// "register-budget" (kernel_registers_per_work_item), "padding" (its work-group tile more than
// doubles the computed area).
std::string prune_reason(const std::string& kernel, const KernelOptions& options,
                         const PruneContext& context);

struct Space {
  std::string kernel;
  ValueLists lists;
  std::size_t combinations = 0;               // size of the Cartesian product
  std::map<std::string, std::size_t> pruned;  // reason -> count
  std::vector<KernelOptions> candidates;      // what survived, in enumeration order
  std::set<KernelOptions> members;            // the same, for lookups
};

// The most combinations build_space enumerates (each is built and pruned, the kept ones held
// twice): every kernel's default space stays below it.
constexpr double kMaxCombinations = 2e6;

// The number of combinations of `lists` (the product of their sizes).
double combinations(const ValueLists& lists);

// Enumerates and prunes the product of `lists`. Throws Error(InvalidArgument) when the product
// has more than kMaxCombinations.
Space build_space(const std::string& kernel, const ValueLists& lists, const PruneContext& context);

// Candidates one or two list steps away from `options` (one parameter up or down, then two
// at once), restricted to the space's members, nearest first.
std::vector<KernelOptions> neighbours(const Space& space, const KernelOptions& options);

// "TILE_M=64 TILE_N=128 ..." for messages.
std::string describe(const KernelOptions& options);

}  // namespace clgemm::tune
