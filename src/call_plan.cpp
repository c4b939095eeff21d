// Planning a call and preparing its launches (Context::State, context_state.hpp): what kind of
// call it is (nothing, C = beta * C, a GEMM), whether K is split and into how many slices,
// which operands are copied to aligned scratch first, the workspace that takes, and the
// programs each launch needs.
#include <algorithm>
#include <cstdint>

#include "clgemm/errors.hpp"
#include "context_state.hpp"
#include "error_boundary.hpp"

namespace clgemm {

namespace {

// Each region of the workspace starts at a multiple of 64 floats (256 bytes).
std::size_t workspace_region(std::size_t floats) {
  return (floats + 63) / 64 * 64;
}

// Lays the copies `copies` chose out at the start of the workspace: [copy of A][copy of B],
// each VEC-padded and a region of its own, into `out` (copy_a, a_ld, a_at, and B's). Returns
// the floats they take.
std::size_t lay_out_copies(detail::PreparedCall& out, const detail::KernelCall& call,
                           const detail::CopyChoice& copies, const KernelOptions& options) {
  const long vec = options.count("VEC") ? options.at("VEC") : 1;
  std::size_t floats = 0;
  const auto lay_out = [&](detail::StoredShape shape, bool& copied, std::int64_t& ld,
                           std::size_t& at) {
    copied = true;
    ld = detail::padded_ld(shape.length, vec);
    at = floats;
    floats += workspace_region(std::size_t(shape.lines) * std::size_t(ld));
  };
  if (copies.a) lay_out(detail::stored_a(call), out.copy_a, out.a_ld, out.a_at);
  if (copies.b) lay_out(detail::stored_b(call), out.copy_b, out.b_ld, out.b_at);
  return floats;
}

}  // namespace

detail::CopyChoice Context::State::choose_copies(const detail::KernelSpec& spec,
                                                 const KernelOptions& options,
                                                 const detail::KernelCall& call) {
  // A copy is of one matrix: batches read their operands where they are.
  if (!spec.slices_k || !spec.uses_alignment_hints || call.batched()) return {};
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

std::size_t Context::State::copies_floats(const detail::KernelCall& call,
                                          const detail::CopyChoice& copies,
                                          const KernelOptions& options) {
  detail::PreparedCall layout;
  return lay_out_copies(layout, call, copies, options);
}

detail::CallPlan Context::State::plan(const RunSettings& settings, const GemmProblem& problem,
                                      const detail::KernelCall& call, bool whole) {
  detail::CallPlan plan;
  plan.run = resolve_auto(settings, problem, plan.reason);
  const detail::KernelSpec& spec = detail::find_spec(plan.run.kernel);
  check_precision(spec, plan.run.precision);
  const KernelOptions options = options_for(plan.run.kernel, selected.limits, plan.run.overrides);
  if (problem.is_empty()) {
    plan.kind = detail::CallKind::Nothing;
    plan.reason = std::string(problem.m == 0 ? "M" : problem.n == 0 ? "N" : "batch") +
                  " = 0: nothing to compute (the BLAS quick return)";
    return plan;
  }
  if (!problem.reads_operands()) {
    const std::string why = problem.k == 0 ? "K = 0" : "alpha = 0";
    if (problem.beta == 1.0f && problem.epilogue.is_identity() && !problem.products.given()) {
      plan.kind = detail::CallKind::Nothing;
      plan.reason = why + " and beta = 1: C stays as it is (the BLAS quick return)";
    } else {
      plan.kind = detail::CallKind::ScaleC;
      plan.reason = why + ": C = " + (problem.epilogue.is_identity() ? "" : "act(") +
                    "beta * C" + (problem.epilogue.bias != Bias::None ? " + bias" : "") +
                    (problem.epilogue.is_identity() ? "" : ")") +
                    " without reading A or B (BLAS semantics)";
    }
    return plan;
  }
  detail::check_index_range(spec, options, call);
  // A forced split whose workspace does not fit fails here, before any buffer is looked at.
  if (spec.slices_k) plan_split(spec, options, call, 0);  // prepare() plans it again, for real
  if (whole && settings.kernel == "auto") plan_edges(plan, options, settings, problem, call);
  return plan;
}

void Context::State::plan_edges(detail::CallPlan& plan, const KernelOptions& options,
                                const RunSettings& settings, const GemmProblem& problem,
                                const detail::KernelCall& call) {
  if (call.batched() || plan.run.precision != Precision::FP32) return;
  const auto split =
      detail::split_edges(plan.run.kernel, options, call.m, call.n, call.k, selected.limits);
  if (!split) return;
  plan.whole_tiles = split->whole_tiles;
  plan.reason += "; " + split->reason + ":";
  for (const detail::Region& region : split->edges) {
    // The strip as a problem of its own, for auto's choice (which looks at its shape alone).
    GemmProblem strip = problem;
    (call.column_major ? strip.n : strip.m) = region.rows;
    (call.column_major ? strip.m : strip.n) = region.cols;
    detail::EdgePlan edge{region,
                          this->plan(settings, strip, detail::sub_call(call, region), false)};
    const bool rows = region.col0 == 0;  // a strip of the call's last rows, else of its columns
    const std::int64_t count = rows ? region.rows : region.cols;
    const std::string what = rows != call.column_major ? "row" : "column";
    plan.reason += " the last " + std::to_string(count) + " " + what + (count > 1 ? "s" : "") +
                   " of C (" + std::to_string(strip.m) + "x" + std::to_string(strip.n) + "x" +
                   std::to_string(strip.k) + ") by " + edge.plan.run.kernel +
                   (&region == &split->edges.back() ? "" : ",");
    plan.edges.push_back(std::move(edge));
  }
}

detail::SplitPlan Context::State::plan_split(const detail::KernelSpec& spec,
                                             const KernelOptions& options,
                                             const detail::KernelCall& call,
                                             std::size_t workspace_used) {
  detail::SplitPlan out;
  if (!spec.slices_k) return out;
  const auto it = options.find("SPLIT_K");
  const long forced = it == options.end() ? 0 : it->second;
  if (call.batched()) {
    // The products of a batch fill the device themselves, and share the grid's third dimension.
    if (forced > 1)
      out.reason = "SPLIT_K = " + std::to_string(forced) + ": a batch's products are not split";
    return out;
  }
  const auto block = spec.block(options);
  const long requested =
      forced > 0 ? forced
                 : detail::choose_split(call.m, call.n, call.k, block, selected.limits.compute_units);
  detail::KSlices slices = detail::slice_k(call.k, requested, block[2]);
  const auto forced_text = [forced] { return "SPLIT_K = " + std::to_string(forced); };
  if (slices.slices <= 1) {
    if (forced > 1)
      out.reason = forced_text() + ": K = " + std::to_string(call.k) +
                   " is a single slice of whole TILE_K steps, so it is not split";
    return out;
  }
  // S slabs of M x N (N padded to whole float4) in floats; the limit leaves room for copies.
  const std::int64_t partial_ld = (call.n + 3) / 4 * 4;
  const std::size_t limit = detail::workspace_limit(selected.limits);
  const std::size_t available = limit > workspace_used ? limit - workspace_used : 0;
  const auto bytes = detail::float_bytes(std::uint64_t(slices.slices), std::uint64_t(call.m),
                                         std::uint64_t(partial_ld));
  const auto limit_text = [&] {
    return "the workspace limit of " + std::to_string(available) +
      " bytes (a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
      std::to_string(selected.limits.max_allocation_bytes) + " of device '" +
      selected.limits.name + "'" + (workspace_used ? ", less the aligned copies" : "") + ")";
  };
  if (!bytes || *bytes > available) {
    const std::string need = std::to_string(slices.slices) + " partial products of " +
                             std::to_string(call.m) + " x " + std::to_string(call.n) + " need " +
                             (bytes ? std::to_string(*bytes) + " bytes" : "more bytes than a size_t holds");
    if (forced > 0)
      throw Error(ErrorCode::AllocationTooLarge,
                  forced_text() + ": " + need + " of workspace, above " + limit_text() +
                      "; ask for fewer slices");
    const auto per_slice = detail::float_bytes(std::uint64_t(call.m), std::uint64_t(partial_ld));
    const long fit = per_slice && *per_slice ? long(std::min<std::size_t>(available / *per_slice, 65536)) : 0;
    slices = detail::slice_k(call.k, fit, block[2]);
    if (slices.slices <= 1) {
      out.slices = {};
      out.reason = "split-K not used: " + need + ", above " + limit_text();
      return out;
    }
  }
  out.slices = slices;
  const std::int64_t groups = ((call.m + block[0] - 1) / block[0]) * ((call.n + block[1] - 1) / block[1]);
  out.reason = (forced > 0 ? forced_text() + ": split-K" : std::string("split-K")) + " into " +
               std::to_string(slices.slices) + " slices of K = " + std::to_string(slices.k_slice) +
               " (work-groups of " + std::to_string(block[0]) + " x " + std::to_string(block[1]) +
               " on C: " + std::to_string(groups) + ", for " +
               std::to_string(selected.limits.compute_units) +
               " compute units), summed in a fixed order by splitk_reduce";
  return out;
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
  std::size_t floats = lay_out_copies(out, call, copies, out.main.options);
  const auto reserve = [&floats](std::size_t size) {
    const std::size_t at = floats;
    floats = at + workspace_region(size);
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
                ", K-major blocks of " +
                std::to_string(out.a_packing.tile_rows) + " and " +
                std::to_string(out.b_packing.tile_rows) + " rows by " +
                std::to_string(out.a_packing.slice_depth()) + " of K (wgmma_pack)";
}

detail::PreparedKernel Context::State::prepare_helper(const std::string& kernel,
                                                      const std::string& extra_options) {
  detail::PreparedKernel prepared;
  prepared.name = kernel;
  const auto& source = this->source(kernel + ".cl");
  std::size_t side = 16;
  for (;;) {
    while (side > 1 && side * side > selected.limits.max_work_group_size) side /= 2;
    prepared.options = {{"WG_X", long(side)}, {"WG_Y", long(side)}};
    prepared.build_options = format_build_options(prepared.options) + extra_options;
    prepared.built = programs.get(kernel, kernel, source.text, source.hash,
                                  prepared.build_options, prepared.cached);
    if (side * side <= prepared.built->kernel_work_group_size || side == 1) return prepared;
    side /= 2;
  }
}

}  // namespace clgemm
