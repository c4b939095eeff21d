// Planning a call (Context::State, launch/context_state.hpp): what kind of call it is
// (nothing, C = beta * C, a GEMM), `auto`'s kernel, C's edges computed apart, whether K is split
// and into how many slices, and which operands are copied to aligned scratch first.
#include <algorithm>
#include <cstdint>

#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"

namespace clgemm {

detail::CopyChoice Context::State::choose_copies(const detail::KernelSpec& spec,
                                                 const KernelOptions& options,
                                                 const detail::KernelCall& call) {
  // A copy is of one matrix: batches read their operands where they are.
  if (!detail::may_copy_operands(spec) || call.batched()) return {};
  const long vec = options.at("VEC");
  const auto mode = options.find("ALIGN_COPY");
  detail::CopyChoice choice = detail::choose_copies(
      call, vec, mode == options.end() ? 1 : mode->second, detail::operand_aligned(call.a, vec),
      detail::operand_aligned(call.b, vec));
  if (!choice.a && !choice.b) return choice;
  // The copies alone must fit the workspace.
  const auto copy_bytes = [&](detail::StoredShape s) {
    return detail::float_bytes(std::uint64_t(s.lines),
                               std::uint64_t(detail::padded_ld(s.length, vec)));
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
  return detail::lay_out_copies(call, copies, options).floats;
}

detail::CallPlan Context::State::plan(const RunSettings& settings, const GemmProblem& problem,
                                      const detail::KernelCall& call, bool whole) {
  detail::CallPlan plan;
  plan.run = resolve_auto(settings, problem, call, plan.reason);
  const detail::KernelSpec& spec = detail::find_spec(plan.run.kernel);
  check_precision(spec, plan.run.precision);
  const KernelOptions options = options_for(plan.run.kernel, selected.limits, plan.run.overrides);
  if (problem.is_empty()) {
    plan.kind = detail::CallKind::Nothing;
    plan.reason = std::string(problem.m == 0   ? "M"
                              : problem.n == 0 ? "N"
                                               : "batch") +
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
      plan.reason = why + ": C = " + (problem.epilogue.is_identity() ? "" : "act(") + "beta * C" +
                    (problem.epilogue.bias != Bias::None ? " + bias" : "") +
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
  const long requested = forced > 0 ? forced
                                    : detail::choose_split(call.m, call.n, call.k, block,
                                                           selected.limits.compute_units);
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
    const std::string need =
        std::to_string(slices.slices) + " partial products of " + std::to_string(call.m) + " x " +
        std::to_string(call.n) + " need " +
        (bytes ? std::to_string(*bytes) + " bytes" : "more bytes than a size_t holds");
    if (forced > 0)
      throw Error(ErrorCode::AllocationTooLarge, forced_text() + ": " + need +
                                                     " of workspace, above " + limit_text() +
                                                     "; ask for fewer slices");
    const auto per_slice = detail::float_bytes(std::uint64_t(call.m), std::uint64_t(partial_ld));
    const long fit =
        per_slice && *per_slice ? long(std::min<std::size_t>(available / *per_slice, 65536)) : 0;
    slices = detail::slice_k(call.k, fit, block[2]);
    if (slices.slices <= 1) {
      out.slices = {};
      out.reason = "split-K not used: " + need + ", above " + limit_text();
      return out;
    }
  }
  out.slices = slices;
  const std::int64_t groups =
      ((call.m + block[0] - 1) / block[0]) * ((call.n + block[1] - 1) / block[1]);
  out.reason = (forced > 0 ? forced_text() + ": split-K" : std::string("split-K")) + " into " +
               std::to_string(slices.slices) + " slices of K = " + std::to_string(slices.k_slice) +
               " (work-groups of " + std::to_string(block[0]) + " x " + std::to_string(block[1]) +
               " on C: " + std::to_string(groups) + ", for " +
               std::to_string(selected.limits.compute_units) +
               " compute units), summed in a fixed order by splitk_reduce";
  return out;
}

}  // namespace clgemm
