// The Context: opening a device (or adopting the caller's OpenCL context), resolving `auto`,
// building a kernel for a call, and the record of what ran. The plan of a call's launches is
// in call_plan.cpp, the two GEMM paths in host_gemm.cpp and buffer_gemm.cpp; call_steps.cpp
// enqueues what is prepared.
#include <algorithm>

#include "clgemm/errors.hpp"
#include "context_state.hpp"
#include "launch_order.hpp"
#include "error_boundary.hpp"

namespace clgemm {

Context::State::State(detail::SelectedDevice device, cl::Context opencl_context)
    : selected(std::move(device)),
      context(std::move(opencl_context)),
      programs(context, selected.device, selected.limits) {}

const detail::KernelSource& Context::State::source(const std::string& file) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sources.find(file);
  if (it == sources.end()) it = sources.emplace(file, detail::load_kernel_source(file)).first;
  return it->second;
}

detail::TensorCoreSupport Context::State::tensor_core_support() {
  return detail::probe_tensor_cores(context, selected.device, selected.limits);  // remembered
}

detail::WgmmaSupport Context::State::wgmma_support() {
  return detail::probe_wgmma(context, selected.device, selected.limits);  // remembered
}

cl::CommandQueue Context::State::acquire_queue() {
  std::lock_guard<std::mutex> lock(mutex);
  if (idle_queues.empty()) return cl::CommandQueue(context, selected.device);
  cl::CommandQueue queue = idle_queues.back();
  idle_queues.pop_back();
  return queue;
}

void Context::State::release_queue(cl::CommandQueue queue) {
  std::lock_guard<std::mutex> lock(mutex);
  idle_queues.push_back(std::move(queue));
}

RunSettings Context::State::resolve_auto(const RunSettings& settings, const GemmProblem& problem,
                                         std::string& reason) {
  if (settings.kernel != "auto") return settings;
  const auto call = detail::row_major_call(problem);
  const auto key = std::make_tuple(call.m, call.n, call.k, call.batch, int(settings.precision));
  if (settings.overrides.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = choices.find(key); it != choices.end()) {
      reason = it->second.reason;
      return it->second.settings;
    }
  }
  const bool tensor_cores =
      settings.precision != Precision::FP32 && tensor_core_support().available;
  const bool wgmma = tensor_cores && wgmma_support().available;
  KernelChoice choice;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tuning) tuning = TuningDatabase::load_default();
    choice =
        choose_kernel(*tuning, selected.limits, problem, settings.precision, tensor_cores, wgmma);
  }
  RunSettings resolved = settings;
  resolved.kernel = choice.kernel;
  resolved.overrides = choice.overrides;
  for (const auto& [name, value] : settings.overrides) resolved.overrides[name] = value;
  reason = "auto: " + choice.reason;
  try {
    options_for(resolved.kernel, selected.limits, resolved.overrides);
  } catch (const Error& error) {
    if (!settings.overrides.empty()) throw;  // the caller's own overrides are at fault
    // A tuned entry this device cannot run (other limits, an edited file): derive instead.
    resolved.overrides.clear();
    reason += "; its parameters are invalid here (" + std::string(error.what()) +
              "), so they are derived from the device limits";
  }
  if (settings.overrides.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    if (choices.size() >= kChoiceCacheSize) choices.clear();
    choices[key] = {resolved, reason};
  }
  return resolved;
}

namespace {

// The hash resolved_options is keyed by; lookups compare the fields themselves.
std::size_t options_hash(const std::string& kernel, const KernelOptions& overrides,
                         std::size_t work_group_limit) {
  std::size_t h = std::hash<std::string>{}(kernel) ^ work_group_limit;
  for (const auto& [name, value] : overrides)
    h = h * 1099511628211ull ^ std::hash<std::string>{}(name) ^ std::hash<long>{}(value);
  return h;
}

}  // namespace

KernelOptions Context::State::options_for(const std::string& kernel, const DeviceLimits& limits,
                                          const KernelOptions& overrides) {
  const std::size_t limit = limits.max_work_group_size;
  const std::size_t hash = options_hash(kernel, overrides, limit);
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto [first, last] = resolved_options.equal_range(hash);
    for (auto it = first; it != last; ++it)
      if (it->second.work_group_limit == limit && it->second.kernel == kernel &&
          it->second.overrides == overrides)
        return it->second.options;
  }
  KernelOptions options = resolve_options(kernel, limits, overrides);  // throws when invalid
  std::lock_guard<std::mutex> lock(mutex);
  if (resolved_options.size() >= kChoiceCacheSize) resolved_options.clear();
  resolved_options.emplace(hash, ResolvedOptions{kernel, overrides, limit, options});
  return options;
}

void Context::State::check_precision(const detail::KernelSpec& spec, Precision precision) {
  const auto& name = spec.description.name;
  if (!spec.description.computes(precision)) {
    std::string supported;
    for (Precision p : spec.description.precisions)
      supported += (supported.empty() ? "" : ", ") + std::string(precision_name(p));
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' computes " + supported + ", not " +
                    precision_name(precision) + "; kernel 'auto' computes every precision",
                Argument::Precision);
  }
  if (!spec.description.needs_tensor_cores) return;
  const auto tensor_cores = tensor_core_support();
  if (!tensor_cores.available)
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' needs tensor cores, which device '" + selected.limits.name +
                    "' does not offer: " + tensor_cores.reason +
                    "; kernel 'auto' or 'blocked' computes " + precision_name(precision) +
                    " portably",
                Argument::Kernel);
  if (!spec.description.needs_wgmma) return;
  const auto wgmma = wgmma_support();
  if (!wgmma.available)
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' needs Hopper's wgmma (sm_90a), which device '" +
                    selected.limits.name + "' does not run: " + wgmma.reason +
                    "; kernel 'tensorcore' or 'auto' computes " + precision_name(precision) +
                    " on its tensor cores",
                Argument::Kernel);
}

detail::PreparedKernel Context::State::prepare(const RunSettings& settings,
                                               const detail::KernelCall* call,
                                               detail::CopyChoice* copies,
                                               detail::SplitPlan* split) {
  detail::PreparedKernel prepared;
  prepared.name = settings.kernel;
  prepared.spec = &detail::find_spec(settings.kernel);
  check_precision(*prepared.spec, settings.precision);
  prepared.precision = settings.precision;
  if (settings.precision != Precision::FP32)
    prepared.precision_path = prepared.spec->description.needs_wgmma ? "tensor cores (wgmma)"
                              : prepared.spec->description.needs_tensor_cores
                                  ? "tensor cores (mma.sync)"
                                  : "portable (operands rounded to TF32, FMA products)";
  const auto& source = this->source(prepared.spec->description.file);
  DeviceLimits limits = selected.limits;
  // Host parameters (SPLIT_K, ...) do not change the build, so they do not pin its tiles.
  const bool fixed = !detail::compiled_options(*prepared.spec, settings.overrides).empty();
  // The kernel's own work-group limit (registers, local memory) is only known once it is
  // built; if the derived work-group exceeds it, derive again under that limit.
  for (int attempt = 0;; ++attempt) {
    prepared.options = options_for(settings.kernel, limits, settings.overrides);
    const detail::KernelCall* reads = call;
    detail::KernelCall effective;
    if (call && copies) {
      *copies = choose_copies(*prepared.spec, prepared.options, *call);
      effective = copied_call(*call, *copies, prepared.options);
      reads = &effective;
    }
    bool sliced = false;
    if (call && copies && split && prepared.spec->slices_k) {
      *split = plan_split(*prepared.spec, prepared.options, *call,
                          copies_floats(*call, *copies, prepared.options) * sizeof(float));
      sliced = split->slices.slices > 1;
    }
    prepared.build_options = detail::call_build_options(*prepared.spec, prepared.options, reads,
                                                        settings.precision, sliced);
    prepared.built = programs.get(settings.kernel, prepared.spec->entry_point, source.text,
                                  source.hash, prepared.build_options, prepared.cached,
                                  prepared.spec->ptx_rewrite);
    const auto wg = prepared.spec->work_group(prepared.options);
    const std::size_t items = wg[0] * wg[1];
    const std::size_t kernel_limit = prepared.built->kernel_work_group_size;
    if (items <= kernel_limit) return prepared;
    if (fixed || attempt == 2 || kernel_limit >= limits.max_work_group_size)
      throw Error(ErrorCode::InvalidOption,
                  "kernel '" + settings.kernel + "' built with '" + prepared.build_options +
                      "' needs " + std::to_string(items) +
                      " work-items per group, above its CL_KERNEL_WORK_GROUP_SIZE = " +
                      std::to_string(kernel_limit) + " on device '" + limits.name + "'");
    limits.max_work_group_size = kernel_limit;
  }
}

const char* program_origin_name(ProgramOrigin origin) {
  switch (origin) {
    case ProgramOrigin::None: return "none";
    case ProgramOrigin::Compiled: return "compiled";
    case ProgramOrigin::DiskCache: return "disk cache";
    case ProgramOrigin::Memory: return "memory";
  }
  return "none";
}

GemmRecord describe_nothing(const detail::CallPlan& plan) {
  GemmRecord record;
  record.kernel = "none";
  record.kernel_choice = plan.reason;
  record.precision = plan.run.precision;
  record.precision_path = "none";
  return record;
}

GemmRecord describe(const detail::PreparedCall& prepared) {
  GemmRecord record = describe(prepared.main, prepared.reason);
  record.split_k = prepared.slices.slices;
  const bool copied_a = prepared.copy_a || prepared.packed;
  const bool copied_b = prepared.copy_b || prepared.packed;
  record.copied_a = prepared.column_major ? copied_b : copied_a;
  record.copied_b = prepared.column_major ? copied_a : copied_b;
  record.launches = prepared.launches();
  record.workspace_bytes = prepared.workspace_bytes;
  record.batch = prepared.batch;
  record.product_table = prepared.product_table;
  record.epilogue = prepared.epilogue;
  for (const auto* helper : {&prepared.copy, &prepared.reduce, &prepared.pack_a, &prepared.pack_b})
    if (helper->built && !helper->cached) record.build_seconds += helper->built->build_seconds;
  // Edge-aware tiling: the record is the whole tiles' launch, with the strips' launches,
  // builds and workspace (they use it one after another) counted in.
  for (const detail::PreparedEdge& edge : prepared.edges) {
    const GemmRecord part = describe(edge.prepared);
    record.build_seconds += part.build_seconds;
    record.workspace_bytes = std::max(record.workspace_bytes, part.workspace_bytes);
  }
  return record;
}

GemmRecord describe(const detail::PreparedKernel& prepared, const std::string& reason) {
  GemmRecord record;
  record.kernel = prepared.name;
  record.kernel_choice = reason;
  record.options = prepared.options;
  record.build_options = prepared.build_options;
  record.origin = prepared.cached                     ? ProgramOrigin::Memory
                  : prepared.built->from_disk_cache ? ProgramOrigin::DiskCache
                                                    : ProgramOrigin::Compiled;
  record.build_seconds = prepared.cached ? 0 : prepared.built->build_seconds;
  record.precision = prepared.precision;
  record.precision_path = prepared.precision_path;
  record.kernel_local_memory_bytes = prepared.built->kernel_local_memory_bytes;
  record.kernel_compile_work_group = prepared.built->compile_work_group;
  return record;
}

Context::Context(const DeviceRequest& request) try {
  auto selected = detail::select_device(request);
  cl::Context context(selected.device);
  state_ = std::make_unique<State>(std::move(selected), std::move(context));
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

Context::Context(cl_context context, cl_device_id device) try {
  if (!context || !device)
    throw Error(ErrorCode::InvalidArgument, "the OpenCL context and device must not be null",
                context ? Argument::OpenCLDevice : Argument::OpenCLContext);
  try {
    detail::SelectedDevice selected;
    selected.device = cl::Device(device, /*retainObject=*/true);
    selected.platform = cl::Platform(selected.device.getInfo<CL_DEVICE_PLATFORM>());
    selected.limits = detail::query_limits(selected.platform, selected.device);
    state_ = std::make_unique<State>(std::move(selected), cl::Context(context, true));
  } catch (const cl::Error& error) {
    throw OpenCLError(error.what(), error.err());
  }
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

const DeviceLimits& Context::device() const {
  return state_->selected.limits;
}
bool Context::has_tensor_cores() try {
  return state_->tensor_core_support().available;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}
bool Context::has_wgmma() try {
  return state_->wgmma_support().available;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}
cl_context Context::opencl_context() const {
  return state_->context();
}
cl_device_id Context::opencl_device() const {
  return state_->selected.device();
}

GemmRecord Context::build(const std::string& kernel, const KernelOptions& overrides,
                          Precision precision) try {
  RunSettings settings;
  settings.kernel = kernel;
  settings.overrides = overrides;
  settings.precision = precision;
  std::string reason;  // `auto` builds what it would run for a large square problem
  settings = state_->resolve_auto(settings, representative_problem("large"), reason);
  return describe(state_->prepare(settings, nullptr), reason);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
