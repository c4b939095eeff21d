// The Context: opening a device (or adopting the caller's OpenCL context), and planning and
// preparing the launches of a call for it. The two GEMM paths live in host_gemm.cpp and
// buffer_gemm.cpp; call_steps.cpp enqueues what is prepared here.
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
  const auto key = std::make_tuple(call.m, call.n, call.k, int(settings.precision));
  if (settings.overrides.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = choices.find(key); it != choices.end()) {
      reason = it->second.reason;
      return it->second.settings;
    }
  }
  const bool tensor_cores =
      settings.precision != Precision::FP32 && tensor_core_support().available;
  KernelChoice choice;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tuning) tuning = TuningDatabase::load_default();
    choice = choose_kernel(*tuning, selected.limits, problem, settings.precision, tensor_cores);
  }
  RunSettings resolved = settings;
  resolved.kernel = choice.kernel;
  resolved.overrides = choice.overrides;
  for (const auto& [name, value] : settings.overrides) resolved.overrides[name] = value;
  reason = "auto: " + choice.reason;
  try {
    resolve_options(resolved.kernel, selected.limits, resolved.overrides);
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
}

detail::PreparedKernel Context::State::prepare(const RunSettings& settings,
                                               const detail::KernelCall* call,
                                               detail::CopyChoice* copies) {
  detail::PreparedKernel prepared;
  prepared.name = settings.kernel;
  prepared.spec = &detail::find_spec(settings.kernel);
  check_precision(*prepared.spec, settings.precision);
  prepared.precision = settings.precision;
  if (settings.precision != Precision::FP32)
    prepared.precision_path = prepared.spec->description.needs_tensor_cores
                                  ? "tensor cores (mma.sync)"
                                  : "portable (operands rounded to TF32, FMA products)";
  const auto& source = this->source(prepared.spec->description.file);
  DeviceLimits limits = selected.limits;
  // Host parameters (SPLIT_K, ...) do not change the build, so they do not pin its tiles.
  const bool fixed = !detail::compiled_options(*prepared.spec, settings.overrides).empty();
  // The kernel's own work-group limit (registers, local memory) is only known once it is
  // built; if the derived work-group exceeds it, derive again under that limit.
  for (int attempt = 0;; ++attempt) {
    prepared.options = resolve_options(settings.kernel, limits, settings.overrides);
    const detail::KernelCall* reads = call;
    detail::KernelCall effective;
    if (call && copies) {
      *copies = choose_copies(*prepared.spec, prepared.options, *call);
      effective = copied_call(*call, *copies, prepared.options);
      reads = &effective;
    }
    prepared.build_options =
        detail::call_build_options(*prepared.spec, prepared.options, reads, settings.precision);
    prepared.built = programs.get(settings.kernel, prepared.spec->entry_point, source.text,
                                  source.hash, prepared.build_options, prepared.cached);
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

detail::CopyChoice Context::State::choose_copies(const detail::KernelSpec& spec,
                                                 const KernelOptions& options,
                                                 const detail::KernelCall& call) {
  if (!spec.slices_k || !spec.uses_alignment_hints) return {};
  const long vec = options.at("VEC");
  const auto mode = options.find("ALIGN_COPY");
  detail::CopyChoice choice =
      detail::choose_copies(call, vec, mode == options.end() ? 1 : mode->second,
                            detail::operand_aligned(call.a, vec), detail::operand_aligned(call.b, vec));
  if (!choice.a && !choice.b) return choice;
  // The copies alone must fit the workspace.
  const auto copy_bytes = [&](detail::StoredShape s) {
    return detail::float_bytes(std::uint64_t(s.lines), std::uint64_t(detail::padded_ld(s.length, vec)));
  };
  const auto a = choice.a ? copy_bytes(detail::stored_a(call)) : std::optional<std::size_t>(0);
  const auto b = choice.b ? copy_bytes(detail::stored_b(call)) : std::optional<std::size_t>(0);
  const std::size_t limit = detail::workspace_limit(selected.limits);
  if (a && b && *a <= limit && *b <= limit - *a) return choice;
  const std::string why = "the copies need more than the workspace limit of " +
                          std::to_string(limit) +
                          " bytes (a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                          std::to_string(selected.limits.max_allocation_bytes) + ")";
  if (mode != options.end() && mode->second == 2)
    throw Error(ErrorCode::AllocationTooLarge, "ALIGN_COPY = 2: " + why);
  choice.a = choice.b = false;
  choice.reason += "; not copied after all: " + why;
  return choice;
}

detail::KernelCall Context::State::copied_call(const detail::KernelCall& call,
                                               const detail::CopyChoice& copies,
                                               const KernelOptions& options) const {
  detail::KernelCall effective = call;
  const std::size_t alignment = selected.limits.base_address_align_bits / 8;
  const long vec = options.count("VEC") ? options.at("VEC") : 1;
  if (copies.a)
    effective.a = {nullptr, 0, detail::padded_ld(detail::stored_a(call).length, vec),
                   call.a.transposed, alignment};
  if (copies.b)
    effective.b = {nullptr, 0, detail::padded_ld(detail::stored_b(call).length, vec),
                   call.b.transposed, alignment};
  return effective;
}

detail::CallPlan Context::State::plan(const RunSettings& settings, const GemmProblem& problem,
                                      const detail::KernelCall& call) {
  detail::CallPlan plan;
  plan.run = resolve_auto(settings, problem, plan.reason);
  const detail::KernelSpec& spec = detail::find_spec(plan.run.kernel);
  check_precision(spec, plan.run.precision);
  const KernelOptions options = resolve_options(plan.run.kernel, selected.limits, plan.run.overrides);
  if (problem.is_empty()) {
    plan.kind = detail::CallKind::Nothing;
    plan.reason = std::string(problem.m == 0 ? "M" : "N") +
                  " = 0: nothing to compute (the BLAS quick return)";
    return plan;
  }
  if (!problem.reads_operands()) {
    const std::string why = problem.k == 0 ? "K = 0" : "alpha = 0";
    if (problem.beta == 1.0f) {
      plan.kind = detail::CallKind::Nothing;
      plan.reason = why + " and beta = 1: C stays as it is (the BLAS quick return)";
    } else {
      plan.kind = detail::CallKind::ScaleC;
      plan.reason = why + ": C = beta * C without reading A or B (BLAS semantics)";
    }
    return plan;
  }
  detail::check_index_range(spec, options, call);
  // A forced split whose workspace does not fit fails here, before any buffer is looked at.
  if (spec.slices_k) plan_split(spec, options, call, 0);  // prepare() plans it again, for real
  return plan;
}

detail::SplitPlan Context::State::plan_split(const detail::KernelSpec& spec,
                                             const KernelOptions& options,
                                             const detail::KernelCall& call,
                                             std::size_t workspace_used) {
  detail::SplitPlan out;
  if (!spec.slices_k) return out;
  const auto it = options.find("SPLIT_K");
  const long forced = it == options.end() ? 0 : it->second;
  const auto block = spec.block(options);
  const long requested =
      forced > 0 ? forced
                 : detail::choose_split(call.m, call.n, call.k, block, selected.limits.compute_units);
  detail::KSlices slices = detail::slice_k(call.k, requested, block[2]);
  const std::string forced_text = "SPLIT_K = " + std::to_string(forced);
  if (slices.slices <= 1) {
    if (forced > 1)
      out.reason = forced_text + ": K = " + std::to_string(call.k) +
                   " is a single slice of whole TILE_K steps, so it is not split";
    return out;
  }
  // S slabs of M x N (N padded to whole float4) in floats; the limit leaves room for copies.
  const std::int64_t partial_ld = (call.n + 3) / 4 * 4;
  const std::size_t limit = detail::workspace_limit(selected.limits);
  const std::size_t available = limit > workspace_used ? limit - workspace_used : 0;
  const auto bytes = detail::float_bytes(std::uint64_t(slices.slices), std::uint64_t(call.m),
                                         std::uint64_t(partial_ld));
  const std::string limit_text =
      "the workspace limit of " + std::to_string(available) +
      " bytes (a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
      std::to_string(selected.limits.max_allocation_bytes) + " of device '" +
      selected.limits.name + "'" + (workspace_used ? ", less the aligned copies" : "") + ")";
  if (!bytes || *bytes > available) {
    const std::string need = std::to_string(slices.slices) + " partial products of " +
                             std::to_string(call.m) + " x " + std::to_string(call.n) + " need " +
                             (bytes ? std::to_string(*bytes) + " bytes" : "more bytes than a size_t holds");
    if (forced > 0)
      throw Error(ErrorCode::AllocationTooLarge,
                  forced_text + ": " + need + " of workspace, above " + limit_text +
                      "; ask for fewer slices");
    const auto per_slice = detail::float_bytes(std::uint64_t(call.m), std::uint64_t(partial_ld));
    const long fit = per_slice && *per_slice ? long(std::min<std::size_t>(available / *per_slice, 65536)) : 0;
    slices = detail::slice_k(call.k, fit, block[2]);
    if (slices.slices <= 1) {
      out.slices = {};
      out.reason = "split-K not used: " + need + ", above " + limit_text;
      return out;
    }
  }
  out.slices = slices;
  const std::int64_t groups = ((call.m + block[0] - 1) / block[0]) * ((call.n + block[1] - 1) / block[1]);
  out.reason = (forced > 0 ? forced_text + ": split-K" : std::string("split-K")) + " into " +
               std::to_string(slices.slices) + " slices of K = " + std::to_string(slices.k_slice) +
               " (work-groups of " + std::to_string(block[0]) + " x " + std::to_string(block[1]) +
               " on C: " + std::to_string(groups) + ", for " +
               std::to_string(selected.limits.compute_units) +
               " compute units), summed in a fixed order by splitk_reduce";
  return out;
}

detail::PreparedCall Context::State::prepare(const detail::CallPlan& plan,
                                             const detail::KernelCall& call) {
  detail::PreparedCall out;
  out.reason = plan.reason;
  out.column_major = call.column_major;
  if (plan.kind == detail::CallKind::ScaleC) {
    out.main = prepare_helper("scale_c");
    out.main.precision = plan.run.precision;
    out.main.precision_path = "no products (C = beta * C)";
    return out;
  }
  detail::CopyChoice copies;
  out.main = prepare(plan.run, &call, &copies);
  const detail::KernelSpec& spec = *out.main.spec;
  detail::check_index_range(spec, out.main.options, call);  // re-derived
  const auto note = [&out](const std::string& text) {
    if (!text.empty()) out.reason += (out.reason.empty() ? "" : "; ") + text;
  };
  note(copies.reason);
  // The workspace: [copy of A][copy of B][partial products], each from a multiple of 64 floats.
  std::size_t floats = 0;
  const auto reserve = [&floats](std::size_t size) {
    const std::size_t at = floats;
    floats = (at + size + 63) / 64 * 64;
    return at;
  };
  const long vec = out.main.options.count("VEC") ? out.main.options.at("VEC") : 1;
  if (copies.a) {
    const auto shape = detail::stored_a(call);
    out.copy_a = true;
    out.a_ld = detail::padded_ld(shape.length, vec);
    out.a_at = reserve(std::size_t(shape.lines) * std::size_t(out.a_ld));
  }
  if (copies.b) {
    const auto shape = detail::stored_b(call);
    out.copy_b = true;
    out.b_ld = detail::padded_ld(shape.length, vec);
    out.b_at = reserve(std::size_t(shape.lines) * std::size_t(out.b_ld));
  }
  if (out.copy_a || out.copy_b) out.copy = prepare_helper("copy_padded");
  const detail::SplitPlan split = plan_split(spec, out.main.options, call, floats * sizeof(float));
  note(split.reason);
  if (split.slices.slices > 1) {
    out.slices = split.slices;
    out.partial_ld = (call.n + 3) / 4 * 4;
    out.slab = std::size_t(call.m) * std::size_t(out.partial_ld);
    out.partial_at = reserve(out.slab * std::size_t(split.slices.slices));
    out.reduce = prepare_helper("splitk_reduce");
  }
  out.workspace_bytes = floats * sizeof(float);
  return out;
}

detail::PreparedKernel Context::State::prepare_helper(const std::string& kernel) {
  detail::PreparedKernel prepared;
  prepared.name = kernel;
  const auto& source = this->source(kernel + ".cl");
  std::size_t side = 16;
  for (;;) {
    while (side > 1 && side * side > selected.limits.max_work_group_size) side /= 2;
    prepared.options = {{"WG_X", long(side)}, {"WG_Y", long(side)}};
    prepared.build_options = format_build_options(prepared.options);
    prepared.built = programs.get(kernel, kernel, source.text, source.hash,
                                  prepared.build_options, prepared.cached);
    if (side * side <= prepared.built->kernel_work_group_size || side == 1) return prepared;
    side /= 2;
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
  record.copied_a = prepared.column_major ? prepared.copy_b : prepared.copy_a;
  record.copied_b = prepared.column_major ? prepared.copy_a : prepared.copy_b;
  record.launches = prepared.launches();
  record.workspace_bytes = prepared.workspace_bytes;
  for (const auto* helper : {&prepared.copy, &prepared.reduce})
    if (helper->built && !helper->cached) record.build_seconds += helper->built->build_seconds;
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
