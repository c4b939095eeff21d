// The public kernel catalogue over the specs (kernel_spec.hpp): the list of kernels, the
// kernel model (work-group, local memory, block), and the functions that derive, resolve,
// validate and format kernel options and evaluate the traffic model.
#include <algorithm>

#include "catalog/kernel_spec.hpp"
#include "clgemm/errors.hpp"
#include "support/error_boundary.hpp"
#include "support/immortal.hpp"

namespace clgemm::detail {

const std::vector<KernelSpec>& kernel_specs() {
  // The ladder in order, then the production kernels. Never destroyed, like every
  // process-wide object a Context reads (support/immortal.hpp).
  static const auto& specs = immortal<std::vector<KernelSpec>>(std::vector<KernelSpec>{
      base_spec(), row_spec(), private_spec(), tile_spec(), coarsened_spec(), vectorized_spec(),
      blocked_spec(), tensorcore_spec(), wgmma_spec(), gemv_spec(), register_block_spec()});
  return specs;
}

const KernelSpec& find_spec(const std::string& name) {
  for (const auto& spec : kernel_specs())
    if (spec.description.name == name) return spec;
  std::string names;
  for (const auto& spec : kernel_specs())
    names += (names.empty() ? "" : ", ") + spec.description.name;
  throw Error(ErrorCode::UnknownKernel,
              "unknown kernel '" + name + "'; valid kernels are: " + names);
}

KernelParameter split_k_parameter() {
  return {"SPLIT_K",
          "slices of K computed by separate work-groups and summed by splitk_reduce (0: chosen "
          "from the shape and the compute units, 1: no split); clamped to whole TILE_K steps",
          0, 65536};
}

KernelParameter align_copy_parameter() {
  return {"ALIGN_COPY",
          "0: never copy operands, 1: copy an unaligned A or B to an aligned workspace when the "
          "copy is small next to the product, 2: copy every unaligned operand",
          0, 2};
}

}  // namespace clgemm::detail

namespace clgemm {

const std::vector<KernelDescription>& kernel_catalog() {
  static const auto& catalog = detail::immortal<std::vector<KernelDescription>>([] {
    std::vector<KernelDescription> out;
    for (const auto& spec : detail::kernel_specs()) out.push_back(spec.description);
    return out;
  }());
  return catalog;
}

const KernelDescription& find_kernel(const std::string& name) {
  return detail::find_spec(name).description;
}

namespace {

// The spec of `kernel`, with every one of its parameters present in `options`.
const detail::KernelSpec& spec_with_options(const std::string& kernel,
                                            const KernelOptions& options) {
  const auto& spec = detail::find_spec(kernel);
  for (const auto& parameter : spec.description.parameters)
    if (!options.count(parameter.name))
      throw Error(ErrorCode::InvalidOption,
                  "kernel '" + kernel + "' needs parameter " + parameter.name + " (options: '" +
                      format_build_options(options) + "')",
                  Argument::Kernel);
  return spec;
}

}  // namespace

std::array<std::size_t, 2> kernel_work_group(const std::string& kernel,
                                             const KernelOptions& options) try {
  return spec_with_options(kernel, options).work_group(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::size_t kernel_local_memory_bytes(const std::string& kernel, const KernelOptions& options) try {
  return spec_with_options(kernel, options).local_memory_bytes(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::array<std::int64_t, 3> kernel_block(const std::string& kernel,
                                         const KernelOptions& options) try {
  return spec_with_options(kernel, options).block(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

long kernel_outputs_per_work_item(const std::string& kernel, const KernelOptions& options) try {
  const auto& spec = spec_with_options(kernel, options);
  return spec.outputs_per_work_item ? spec.outputs_per_work_item(options) : 1;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

long kernel_registers_per_work_item(const std::string& kernel, const KernelOptions& options) try {
  const auto& spec = spec_with_options(kernel, options);
  return kernel_outputs_per_work_item(kernel, options) +
         (spec.registers_beside_outputs ? spec.registers_beside_outputs(options) : 0);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

long kernel_registers_per_work_item(const std::string& kernel, const KernelOptions& options,
                                    Precision precision) try {
  const auto& spec = spec_with_options(kernel, options);
  return kernel_registers_per_work_item(kernel, options) +
         (spec.registers_in_precision ? spec.registers_in_precision(options, precision) : 0);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

KernelOptions derive_options(const std::string& kernel, const DeviceLimits& limits) try {
  return detail::find_spec(kernel).derive(limits);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

void validate_options(const std::string& kernel, const KernelOptions& options,
                      const DeviceLimits& limits) try {
  const auto& spec = detail::find_spec(kernel);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::InvalidOption, "invalid options for kernel '" + kernel + "' (" +
                                              format_build_options(options) + "): " + what);
  };
  for (const auto& parameter : spec.description.parameters) {
    const auto it = options.find(parameter.name);
    if (it == options.end()) fail("missing parameter " + parameter.name);
    if (it->second < parameter.minimum || it->second > parameter.maximum)
      fail(parameter.name + " = " + std::to_string(it->second) + " is outside " +
           std::to_string(parameter.minimum) + ".." + std::to_string(parameter.maximum));
  }
  for (const auto& parameter : spec.description.host_parameters) {
    const auto it = options.find(parameter.name);  // optional: the host chooses when absent
    if (it != options.end() && (it->second < parameter.minimum || it->second > parameter.maximum))
      fail(parameter.name + " = " + std::to_string(it->second) + " is outside " +
           std::to_string(parameter.minimum) + ".." + std::to_string(parameter.maximum));
  }
  for (const auto& constraint : spec.constraints)
    if (!constraint.holds(options)) fail("constraint violated: " + constraint.text);
  for (const auto& constraint : spec.device_constraints)
    if (!constraint.holds(options, limits))
      fail("not on device '" + limits.name + "': " + constraint.text);

  const auto wg = spec.work_group(options);
  const std::size_t items = wg[0] * wg[1];
  for (int dim = 0; dim < 2; ++dim)
    if (wg[dim] > limits.max_work_item_sizes[dim])
      fail("work-group dimension " + std::to_string(dim) + " is " + std::to_string(wg[dim]) +
           " work-items, above CL_DEVICE_MAX_WORK_ITEM_SIZES[" + std::to_string(dim) +
           "] = " + std::to_string(limits.max_work_item_sizes[dim]));
  if (items > limits.max_work_group_size)
    fail("work-group of " + std::to_string(wg[0]) + " x " + std::to_string(wg[1]) + " = " +
         std::to_string(items) + " work-items exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE = " +
         std::to_string(limits.max_work_group_size));
  const std::size_t local = spec.local_memory_bytes(options);
  if (local > limits.local_memory_bytes)
    fail("needs " + std::to_string(local) + " bytes of local memory, above " +
         "CL_DEVICE_LOCAL_MEM_SIZE = " + std::to_string(limits.local_memory_bytes));
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

bool parameter_value_runs_on(const std::string& kernel, const std::string& parameter, long value,
                             const DeviceLimits& limits) try {
  const auto& spec = detail::find_spec(kernel);
  KernelOptions options = spec.derive(limits);
  if (!options.count(parameter))
    throw Error(ErrorCode::InvalidOption,
                "kernel '" + kernel + "' has no parameter '" + parameter + "'", Argument::Kernel);
  options[parameter] = value;
  // Device constraints name a capability one value needs, so the derived values of the other
  // parameters stand for any.
  for (const auto& constraint : spec.device_constraints)
    if (!constraint.holds(options, limits)) return false;
  return true;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

KernelOptions resolve_options(const std::string& kernel, const DeviceLimits& limits,
                              const KernelOptions& overrides) try {
  const auto& spec = detail::find_spec(kernel);
  KernelOptions options = spec.derive(limits);
  const auto& host = spec.description.host_parameters;
  for (const auto& override_value : overrides) {
    // Not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& name = override_value.first;
    const long value = override_value.second;
    const bool host_side = std::any_of(host.begin(), host.end(),
                                       [&](const KernelParameter& p) { return p.name == name; });
    if (!options.count(name) && !host_side) {
      std::string valid;
      for (const auto* list : {&spec.description.parameters, &host})
        for (const auto& p : *list) valid += (valid.empty() ? "" : ", ") + p.name;
      throw Error(ErrorCode::InvalidOption, "kernel '" + kernel + "' has no parameter '" + name +
                                                "'; its parameters are: " + valid);
    }
    options[name] = value;
  }
  validate_options(kernel, options, limits);
  return options;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::string format_build_options(const KernelOptions& options) {
  std::string out;
  for (const auto& [name, value] : options)
    out += (out.empty() ? "-D " : " -D ") + name + "=" + std::to_string(value);
  return out;
}

double global_traffic_bytes(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                            std::int64_t n, std::int64_t k, bool reads_c) try {
  const auto& spec = detail::find_spec(kernel);
  const double c = double(m) * double(n) * (reads_c ? 2.0 : 1.0);
  return 4.0 * (spec.operand_loads(options, m, n, k) + c);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

double arithmetic_intensity(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                            std::int64_t n, std::int64_t k, bool reads_c) try {
  return 2.0 * double(m) * double(n) * double(k) /
         global_traffic_bytes(kernel, options, m, n, k, reads_c);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
