// Preparing a planned call (prepare_call.hpp): the programs each launch needs (the kernel,
// built again under a lower work-group limit where the built kernel allows fewer work-items
// than derived; the copies, packs, reduction and scale_c helpers) and the workspace they share;
// the same steps build a program ahead when warming (choice/warm_up.cpp).
#include "launch/prepare_call.hpp"

#include <algorithm>
#include <cstdint>

#include "catalog/device_support.hpp"
#include "clgemm/errors.hpp"
#include "launch/build_options.hpp"
#include "plan/aligned_copy.hpp"
#include "plan/index_range.hpp"
#include "plan/workspace_limit.hpp"

namespace clgemm::detail {

namespace {

// For a kernel that reads packed operands (KernelSpec::packs_operands): their layouts, their
// room in the workspace (`reserve` returns a region's offset in floats) and the packs (of B,
// and of A unless the kernel reads A as stored); Error(AllocationTooLarge) when every
// product's packed operands exceed workspace_limit().
void plan_packing(PreparedCall& out, Precision precision, const KernelCall& call,
                  const std::function<std::size_t(std::size_t)>& reserve, DeviceRuntime& device) {
  const Packing packing = detail::packing(*out.main.spec, call, out.main.options, precision);
  out.a_packed = packing.a_packed;
  out.a_packing = packing.a;
  out.b_packing = packing.b;
  const std::size_t limit = workspace_limit(device.limits());
  if (!packing.fits(limit))
    throw Error(ErrorCode::AllocationTooLarge,
                "kernel '" + out.main.name + "' packs " + (packing.a_packed ? "A and B" : "B") +
                    " of every product into the workspace: " +
                    (packing.a_bytes < SIZE_MAX && packing.b_bytes < SIZE_MAX
                         ? std::to_string(packing.a_bytes) + " + " +
                               std::to_string(packing.b_bytes) + " bytes"
                         : std::string("more bytes than a size_t holds")) +
                    " for " + std::to_string(call.batch) + " product(s), above the workspace " +
                    "limit of " + std::to_string(limit) + " bytes (a quarter of " +
                    "CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                    std::to_string(device.limits().max_allocation_bytes) + ")");
  out.packed = true;
  const int mode = int(precision);
  if (packing.a_packed) {
    out.a_at = reserve(packing.a_bytes / sizeof(float));
    out.pack_a = prepare_helper("wgmma_pack", " " + out.a_packing.build_options(mode), device);
  }
  out.b_at = reserve(packing.b_bytes / sizeof(float));
  out.pack_b = prepare_helper("wgmma_pack", " " + out.b_packing.build_options(mode), device);
  const bool a = packing.a_packed;
  out.reason += std::string(out.reason.empty() ? "" : "; ") + (a ? "A and B" : "B") +
                " packed into " + (packing.b.parts == 2 ? "TF32 high and low parts" : "TF32") +
                ", K-major blocks of " +
                (a ? std::to_string(out.a_packing.tile_rows) + " and " : std::string()) +
                std::to_string(out.b_packing.tile_rows) + " rows by " +
                std::to_string(out.b_packing.slice_depth()) + " of K (wgmma_pack)" +
                (a ? "" : "; A read as stored and rounded in registers");
}

// The workspace bytes a kernel's packed operands take before its partial products (0 for a
// kernel that packs nothing; SIZE_MAX where they do not fit one, which plan_packing reports).
std::size_t packed_bytes(const KernelSpec& spec, const KernelOptions& options,
                         const KernelCall& call, Precision precision) {
  if (!spec.packs_operands) return 0;
  const Packing packing = detail::packing(spec, call, options, precision);
  if (packing.a_bytes == SIZE_MAX || packing.b_bytes == SIZE_MAX) return SIZE_MAX;
  const std::size_t a = packing.a_packed ? workspace_region(packing.a_bytes / sizeof(float)) : 0;
  return (a + workspace_region(packing.b_bytes / sizeof(float))) * sizeof(float);
}

// The GEMM kernel of `plan` for `call`: which operands are read from aligned copies
// (plan_copies, which needs the operands' alignment) and the build for the call as the kernel
// then reads them; for a kernel that slices K, the plan's split where it holds beside the
// copies and the packed operands (holds_for), else the split planned again for what the build,
// the copies and the packs leave (plan_split): a sliced launch is a program of its own.
PreparedKernel prepare_gemm(const CallPlan& plan, const KernelCall& call, DeviceRuntime& device,
                            ResolvedOptions& options, CopyChoice& copies, SplitPlan& split) {
  const KernelSpec& spec = find_spec(plan.run.kernel);
  return prepare_build(
      plan.run,
      [&](const KernelOptions& kernel_options) {
        copies = plan_copies(spec, kernel_options, call, device.limits());
        const KernelCall reads = copied_call(call, copies, device.limits());
        bool sliced = false;
        if (spec.slices_k) {
          const std::size_t packs = packed_bytes(spec, kernel_options, call, plan.run.precision);
          const std::size_t copied = lay_out_copies(call, copies).floats * sizeof(float);
          const std::size_t used = packs > SIZE_MAX - copied ? SIZE_MAX : copied + packs;
          split = holds_for(plan.split, kernel_options, call, used, device.limits())
                      ? plan.split
                      : plan_split(spec, kernel_options, call, used, device.limits());
          sliced = split.slices.slices > 1;
        }
        return call_build_options(spec, kernel_options, &reads, plan.run.precision, sliced);
      },
      device, options);
}

// prepare_call() for one part: the launches of `plan` alone, its edges left out.
PreparedCall prepare_launches(const CallPlan& plan, const KernelCall& call, DeviceRuntime& device,
                              ResolvedOptions& options) {
  PreparedCall out;
  out.reason = plan.reason;
  out.column_major = call.column_major;
  out.batch = call.batch;
  out.product_table = call.has_table();
  Epilogue as_asked = call.epilogue;  // the problem's terms
  if (call.column_major) as_asked.bias = transposed_bias(as_asked.bias);
  out.epilogue = describe_epilogue(as_asked);
  if (plan.kind == CallKind::ScaleC) {
    out.main = prepare_helper(
        "scale_c", batch_build_options(call) + epilogue_build_options(call.epilogue), device);
    out.main.precision = plan.run.precision;
    out.main.precision_path = "no products (C = beta * C)";
    return out;
  }
  CopyChoice copies;
  SplitPlan split;
  out.main = prepare_gemm(plan, call, device, options, copies, split);
  const KernelSpec& spec = *out.main.spec;
  check_index_range(spec, out.main.options, call);  // re-derived
  const auto note = [&out](const std::string& text) {
    if (!text.empty()) out.reason += (out.reason.empty() ? "" : "; ") + text;
  };
  note(copies.reason);
  // The workspace: [copy of A][copy of B][partial products], each from a multiple of 64 floats.
  const CopyLayout copy_layout = lay_out_copies(call, copies);
  out.copy_a = copy_layout.a, out.copy_b = copy_layout.b;
  out.copy_a_transposed = copies.a_transposed;
  out.copy_b_transposed = copies.b_transposed;
  out.a_ld = copy_layout.a_ld, out.b_ld = copy_layout.b_ld;
  out.a_at = copy_layout.a_at, out.b_at = copy_layout.b_at;
  std::size_t floats = copy_layout.floats;
  const auto reserve = [&floats](std::size_t size) {
    const std::size_t at = floats;
    floats = at + workspace_region(size);
    return at;
  };
  if ((out.copy_a && !out.copy_a_transposed) || (out.copy_b && !out.copy_b_transposed))
    out.copy = prepare_helper("copy_padded", "", device);
  if (out.copy_a_transposed || out.copy_b_transposed)
    out.transpose = prepare_helper("copy_padded", transposing_copy_options(), device);
  if (spec.packs_operands) plan_packing(out, plan.run.precision, call, reserve, device);
  // The split fits beside the copies and the packs (prepare_gemm counted both).
  note(split.reason);
  if (split.slices.slices > 1) {
    out.slices = split.slices;
    out.partial_ld = (call.n + 3) / 4 * 4;
    out.slab = std::size_t(call.m) * std::size_t(out.partial_ld);
    out.partial_at = reserve(out.slab * std::size_t(split.slices.slices));
    out.reduce = prepare_helper("splitk_reduce", epilogue_build_options(call.epilogue), device);
  }
  out.workspace_bytes = floats * sizeof(float);
  return out;
}

}  // namespace

PreparedCall prepare_call(const CallPlan& plan, const KernelCall& call, DeviceRuntime& device,
                          ResolvedOptions& options) {
  if (!plan.whole_tiles) return prepare_launches(plan, call, device, options);
  PreparedCall out = prepare_launches(plan, sub_call(call, *plan.whole_tiles), device, options);
  out.whole_tiles = plan.whole_tiles;
  for (const EdgePlan& edge : plan.edges)
    out.edges.push_back(
        {edge.region, prepare_launches(edge.plan, sub_call(call, edge.region), device, options)});
  return out;
}

PreparedKernel prepare_kernel(const RunSettings& settings, DeviceRuntime& device,
                              ResolvedOptions& options) {
  const KernelSpec& spec = find_spec(settings.kernel);
  return prepare_build(
      settings,
      [&](const KernelOptions& kernel_options) {
        return call_build_options(spec, kernel_options, nullptr, settings.precision, false);
      },
      device, options);
}

PreparedKernel prepare_build(
    const RunSettings& settings,
    const std::function<std::string(const KernelOptions&)>& build_options_for,
    DeviceRuntime& device, ResolvedOptions& options, WarmOutcome* warming) {
  PreparedKernel prepared;
  prepared.name = settings.kernel;
  prepared.spec = &find_spec(settings.kernel);
  check_precision(*prepared.spec, settings.precision, device);
  prepared.precision = settings.precision;
  if (settings.precision != Precision::FP32)
    prepared.precision_path = prepared.spec->description.needs_wgmma ? "tensor cores (wgmma)"
                              : prepared.spec->description.needs_tensor_cores
                                  ? "tensor cores (mma.sync)"
                              : settings.precision == Precision::TF32
                                  ? "portable (operands rounded to TF32, FMA products)"
                                  : "portable (operands split into TF32 high and low parts, three "
                                    "FMA products)";
  const auto& source = device.source(prepared.spec->description.file);
  DeviceLimits limits = device.limits();
  // Host parameters (SPLIT_K, ...) do not change the build, so they do not pin its tiles.
  const bool fixed = !compiled_options(*prepared.spec, settings.overrides).empty();
  // The kernel's own work-group limit (registers, local memory) is only known once it is
  // built; if the derived work-group exceeds it, derive again under that limit.
  for (int attempt = 0;; ++attempt) {
    prepared.options = options.get(settings.kernel, limits, settings.overrides);
    prepared.build_options = build_options_for(prepared.options);
    prepared.built =
        device.program(settings.kernel, prepared.spec->entry_point, source, prepared.build_options,
                       prepared.cached, prepared.spec->ptx_rewrite, warming);
    if (!prepared.built) return prepared;  // warming: left in the disk cache
    const auto wg = prepared.spec->work_group(prepared.options);
    const std::size_t items = wg[0] * wg[1];
    const std::size_t kernel_limit = device.work_group_limit(*prepared.built);
    if (items <= kernel_limit) return prepared;
    if (fixed || attempt == 2 || kernel_limit >= limits.max_work_group_size)
      throw Error(ErrorCode::InvalidOption,
                  "kernel '" + settings.kernel + "' built with '" + prepared.build_options +
                      "' needs " + std::to_string(items) +
                      " work-items per group, above its limit of " + std::to_string(kernel_limit) +
                      " (CL_KERNEL_WORK_GROUP_SIZE) on device '" + limits.name + "'");
    limits.max_work_group_size = kernel_limit;
  }
}

PreparedKernel prepare_helper(const std::string& kernel, const std::string& extra_options,
                              DeviceRuntime& device, WarmOutcome* warming) {
  PreparedKernel prepared;
  prepared.name = kernel;
  const auto& source = device.source(kernel + ".cl");
  // side x side work-items (16 x 16 where the device and the build allow it); on a CPU four
  // times as wide as high: PoCL (2-core EPYC) copied 4096 x 4096 floats with copy_padded in
  // 3.5 ms on 64 x 4 against 8-9 ms on 16 x 16 (transposed, 11 ms on either).
  const bool cpu = device.limits().type == DeviceType::CPU;
  std::size_t side = 16;
  for (;;) {
    while (side > 1 && side * side > device.limits().max_work_group_size) side /= 2;
    const std::size_t wider = cpu && side >= 4 ? 4 : 1;
    prepared.options = {{"WG_X", long(side * wider)}, {"WG_Y", long(side / wider)}};
    prepared.build_options = format_build_options(prepared.options) + extra_options;
    prepared.built = device.program(kernel, kernel, source, prepared.build_options, prepared.cached,
                                    PtxRewrite::None, warming);
    if (!prepared.built) return prepared;  // warming: left in the disk cache
    if (side * side <= prepared.built->kernel_work_group_size || side == 1) return prepared;
    side /= 2;
  }
}

}  // namespace clgemm::detail
