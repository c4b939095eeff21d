// Preparing a planned call (Context::State, launch/context_state.hpp): the programs each launch
// needs (the kernel, built again under a lower work-group limit where the built kernel allows
// fewer work-items than derived; the copies, packs, reduction and scale_c helpers) and the
// workspace they share; the same steps build a program ahead when warming (warm_up.cpp).
#include <algorithm>
#include <cstdint>

#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"

namespace clgemm {

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

std::shared_ptr<const detail::BuiltProgram> Context::State::program(
    const std::string& kernel, const std::string& entry_point, const detail::KernelSource& source,
    const std::string& build_options, bool& cached, detail::PtxRewrite rewrite,
    WarmOutcome* warming) {
  if (!warming)
    return programs.get(kernel, entry_point, source.text, source.hash, build_options, cached,
                        rewrite);
  auto warmed =
      programs.warm(kernel, entry_point, source.text, source.hash, build_options, rewrite);
  *warming = warmed.outcome;
  cached = warmed.outcome != WarmOutcome::Compiled;
  return warmed.built;
}

detail::PreparedKernel Context::State::prepare(const RunSettings& settings,
                                               const detail::KernelCall* call,
                                               detail::CopyChoice* copies,
                                               detail::SplitPlan* split) {
  const detail::KernelSpec& spec = detail::find_spec(settings.kernel);
  return prepare_build(settings, [&](const KernelOptions& options) {
    const detail::KernelCall* reads = call;
    detail::KernelCall effective;
    if (call && copies) {
      *copies = choose_copies(spec, options, *call);
      effective = copied_call(*call, *copies, options);
      reads = &effective;
    }
    bool sliced = false;
    if (call && copies && split && spec.slices_k) {
      *split =
          plan_split(spec, options, *call, copies_floats(*call, *copies, options) * sizeof(float));
      sliced = split->slices.slices > 1;
    }
    return detail::call_build_options(spec, options, reads, settings.precision, sliced);
  });
}

detail::PreparedKernel Context::State::prepare_build(
    const RunSettings& settings,
    const std::function<std::string(const KernelOptions&)>& build_options_for,
    WarmOutcome* warming) {
  detail::PreparedKernel prepared;
  prepared.name = settings.kernel;
  prepared.spec = &detail::find_spec(settings.kernel);
  check_precision(*prepared.spec, settings.precision);
  prepared.precision = settings.precision;
  if (settings.precision != Precision::FP32)
    prepared.precision_path = prepared.spec->description.needs_wgmma ? "tensor cores (wgmma)"
                              : prepared.spec->description.needs_tensor_cores
                                  ? "tensor cores (mma.sync)"
                              : settings.precision == Precision::TF32
                                  ? "portable (operands rounded to TF32, FMA products)"
                                  : "portable (operands split into TF32 high and low parts, three "
                                    "FMA products)";
  const auto& source = this->source(prepared.spec->description.file);
  DeviceLimits limits = selected.limits;
  // Host parameters (SPLIT_K, ...) do not change the build, so they do not pin its tiles.
  const bool fixed = !detail::compiled_options(*prepared.spec, settings.overrides).empty();
  // The kernel's own work-group limit (registers, local memory) is only known once it is
  // built; if the derived work-group exceeds it, derive again under that limit.
  for (int attempt = 0;; ++attempt) {
    prepared.options = options_for(settings.kernel, limits, settings.overrides);
    prepared.build_options = build_options_for(prepared.options);
    prepared.built =
        program(settings.kernel, prepared.spec->entry_point, source, prepared.build_options,
                prepared.cached, prepared.spec->ptx_rewrite, warming);
    if (!prepared.built) return prepared;  // warming: left in the disk cache
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

detail::PreparedCall Context::State::prepare(const detail::CallPlan& plan,
                                             const detail::KernelCall& call) {
  if (!plan.whole_tiles) return prepare_launches(plan, call);
  detail::PreparedCall out = prepare_launches(plan, detail::sub_call(call, *plan.whole_tiles));
  out.whole_tiles = plan.whole_tiles;
  for (const detail::EdgePlan& edge : plan.edges)
    out.edges.push_back(
        {edge.region, prepare_launches(edge.plan, detail::sub_call(call, edge.region))});
  return out;
}

detail::PreparedCall Context::State::prepare_launches(const detail::CallPlan& plan,
                                                      const detail::KernelCall& call) {
  detail::PreparedCall out;
  out.reason = plan.reason;
  out.column_major = call.column_major;
  out.batch = call.batch;
  out.product_table = call.has_table();
  Epilogue as_asked = call.epilogue;  // the problem's terms
  if (call.column_major) as_asked.bias = detail::transposed_bias(as_asked.bias);
  out.epilogue = describe_epilogue(as_asked);
  if (plan.kind == detail::CallKind::ScaleC) {
    out.main = prepare_helper("scale_c", detail::batch_build_options(call) +
                                             detail::epilogue_build_options(call.epilogue));
    out.main.precision = plan.run.precision;
    out.main.precision_path = "no products (C = beta * C)";
    return out;
  }
  detail::CopyChoice copies;
  detail::SplitPlan split;  // planned with the build: a sliced launch is a program of its own
  out.main = prepare(plan.run, &call, &copies, &split);
  const detail::KernelSpec& spec = *out.main.spec;
  detail::check_index_range(spec, out.main.options, call);  // re-derived
  const auto note = [&out](const std::string& text) {
    if (!text.empty()) out.reason += (out.reason.empty() ? "" : "; ") + text;
  };
  note(copies.reason);
  // The workspace: [copy of A][copy of B][partial products], each from a multiple of 64 floats.
  const detail::CopyLayout copy_layout = detail::lay_out_copies(call, copies, out.main.options);
  out.copy_a = copy_layout.a, out.copy_b = copy_layout.b;
  out.a_ld = copy_layout.a_ld, out.b_ld = copy_layout.b_ld;
  out.a_at = copy_layout.a_at, out.b_at = copy_layout.b_at;
  std::size_t floats = copy_layout.floats;
  const auto reserve = [&floats](std::size_t size) {
    const std::size_t at = floats;
    floats = at + detail::workspace_region(size);
    return at;
  };
  if (out.copy_a || out.copy_b) out.copy = prepare_helper("copy_padded");
  if (spec.packs_operands) plan_packing(out, plan.run.precision, call, reserve);
  // The split was planned after the copies (copies_floats, the same layout); kernels that pack
  // do not slice K.
  note(split.reason);
  if (split.slices.slices > 1) {
    out.slices = split.slices;
    out.partial_ld = (call.n + 3) / 4 * 4;
    out.slab = std::size_t(call.m) * std::size_t(out.partial_ld);
    out.partial_at = reserve(out.slab * std::size_t(split.slices.slices));
    out.reduce = prepare_helper("splitk_reduce", detail::epilogue_build_options(call.epilogue));
  }
  out.workspace_bytes = floats * sizeof(float);
  return out;
}

void Context::State::plan_packing(detail::PreparedCall& out, Precision precision,
                                  const detail::KernelCall& call,
                                  const std::function<std::size_t(std::size_t)>& reserve) {
  const detail::Packing packing = detail::packing(call, out.main.options, precision);
  out.a_packing = packing.a;
  out.b_packing = packing.b;
  const std::size_t limit = detail::workspace_limit(selected.limits);
  if (!packing.fits(limit))
    throw Error(ErrorCode::AllocationTooLarge,
                "kernel '" + out.main.name + "' packs A and B of every product into the " +
                    "workspace: " +
                    (packing.a_bytes < SIZE_MAX && packing.b_bytes < SIZE_MAX
                         ? std::to_string(packing.a_bytes) + " + " +
                               std::to_string(packing.b_bytes) + " bytes"
                         : std::string("more bytes than a size_t holds")) +
                    " for " + std::to_string(call.batch) + " product(s), above the workspace " +
                    "limit of " + std::to_string(limit) + " bytes (a quarter of " +
                    "CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                    std::to_string(selected.limits.max_allocation_bytes) + ")");
  out.packed = true;
  out.a_at = reserve(packing.a_bytes / sizeof(float));
  out.b_at = reserve(packing.b_bytes / sizeof(float));
  const int mode = int(precision);
  out.pack_a = prepare_helper("wgmma_pack", " " + out.a_packing.build_options(mode));
  out.pack_b = prepare_helper("wgmma_pack", " " + out.b_packing.build_options(mode));
  out.reason += std::string(out.reason.empty() ? "" : "; ") + "A and B packed into " +
                (packing.a.parts == 2 ? "TF32 high and low parts" : "TF32") +
                ", K-major blocks of " + std::to_string(out.a_packing.tile_rows) + " and " +
                std::to_string(out.b_packing.tile_rows) + " rows by " +
                std::to_string(out.a_packing.slice_depth()) + " of K (wgmma_pack)";
}

detail::PreparedKernel Context::State::prepare_helper(const std::string& kernel,
                                                      const std::string& extra_options,
                                                      WarmOutcome* warming) {
  detail::PreparedKernel prepared;
  prepared.name = kernel;
  const auto& source = this->source(kernel + ".cl");
  std::size_t side = 16;
  for (;;) {
    while (side > 1 && side * side > selected.limits.max_work_group_size) side /= 2;
    prepared.options = {{"WG_X", long(side)}, {"WG_Y", long(side)}};
    prepared.build_options = format_build_options(prepared.options) + extra_options;
    prepared.built = program(kernel, kernel, source, prepared.build_options, prepared.cached,
                             detail::PtxRewrite::None, warming);
    if (!prepared.built) return prepared;  // warming: left in the disk cache
    if (side * side <= prepared.built->kernel_work_group_size || side == 1) return prepared;
    side /= 2;
  }
}

}  // namespace clgemm
