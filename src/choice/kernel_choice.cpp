// The choice `auto` makes (choose_kernel, kernel_choice.hpp and clgemm/tuning.hpp): the regime
// of the row-major call's shape, then the tuned entries of the best-matching device level
// weighed by how much of the device their launch keeps busy on this shape.
#include "choice/kernel_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "catalog/kernel_spec.hpp"
#include "choice/auto_candidates.hpp"
#include "clgemm/errors.hpp"
#include "clgemm/tuning.hpp"
#include "plan/device_fill.hpp"
#include "plan/kernel_call.hpp"
#include "plan/operand_packing.hpp"
#include "plan/workspace_limit.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;  // the row-major kernel call's
  std::int64_t batch = 1;            // products of that shape in the call
};

Shape call_shape(const detail::KernelCall& call) {
  return {call.m, call.n, call.k, std::max<std::int64_t>(1, call.batch)};
}

double device_fill(const std::string& kernel, const KernelOptions& options, const Shape& shape,
                   const DeviceLimits& device) {
  return detail::device_fill(kernel, options, shape.m, shape.n, shape.k, shape.batch, device);
}

// The problem an entry was measured on: its own m, n, k, else its class's representative.
Shape measured_shape(const TunedEntry& e) {
  if (e.m > 0 && e.n > 0 && e.k > 0) return {e.m, e.n, e.k, std::max<std::int64_t>(1, e.batch)};
  return call_shape(detail::row_major_call(representative_problem(e.shape_class)));
}

// How far apart two shapes are: |log(volume ratio)| plus the sum of |log(side ratio)|, so that
// size and aspect both count (64x8192x8192 is as large as 2048^3 within a factor of two, but
// its measured speed is nearer that of 32x4096x8192, a factor of two in two sides; and
// 32x4096x8192, as large as 1024^3, is nearest to itself).
double size_distance(const Shape& a, const Shape& b) {
  const auto log_ratio = [](std::int64_t x, std::int64_t y) {
    return std::fabs(std::log(double(x) / double(y)));
  };
  const double va = double(a.m) * double(a.n) * double(a.k);
  const double vb = double(b.m) * double(b.n) * double(b.k);
  return std::fabs(std::log(va / vb)) + log_ratio(a.m, b.m) + log_ratio(a.n, b.n) +
         log_ratio(a.k, b.k);
}

struct Candidate {
  const TunedEntry* entry = nullptr;  // nullptr: the parameters derived from the device
  std::string kernel;
  KernelOptions options;    // complete (resolved), fitted to the call's C
  KernelOptions overrides;  // what the choice passes on: the entry's, and what fitting changed
  double predicted_gflops = 0;
  double fill = 0;
  double distance = 0;  // size_distance() to the entry's measured shape
};

// Fits the candidate's options to the call (KernelSpec::fit_to_call) and sets what its choice
// passes on: `overrides` plus every option the fit changed.
void fit_to_call(Candidate& c, KernelOptions overrides, const detail::KernelCall& call) {
  const auto& spec = detail::find_spec(c.kernel);
  if (spec.fit_to_call) {
    KernelOptions fitted = spec.fit_to_call(c.options, detail::call_layout(call));
    for (const auto& [name, value] : fitted)
      if (c.options.at(name) != value) overrides[name] = value;
    c.options = std::move(fitted);
  }
  c.overrides = std::move(overrides);
}

std::string format_gflops(double gflops) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", gflops);
  return text;
}

std::string describe_shape(const Shape& s) {
  return (s.batch > 1 ? std::to_string(s.batch) + " products of " : std::string()) +
         std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// The better of two candidates: the higher prediction, or within 5% the one measured nearer
// in size (an entry before derived parameters, which were never measured).
bool better(const Candidate& a, const Candidate& b) {
  if (a.entry && !b.entry) return true;
  if (!a.entry && b.entry) return false;
  const double high = std::max(a.predicted_gflops, b.predicted_gflops);
  if (std::fabs(a.predicted_gflops - b.predicted_gflops) > 0.05 * high)
    return a.predicted_gflops > b.predicted_gflops;
  return a.distance < b.distance;
}

// Whether the call is in gemv's regime (is_gemv_regime) on this device: its M or N at most
// kGemvRowsOnGpus on a GPU (on the H200, gemv against blocked back to back: 1.5x at
// 1 x 4096 x 4096 and 1.26x at 8, but 0.82x at 16 and 0.35x at 32 x 4096 x 11008, where
// blocked's reuse of the short side wins), at most kGemvRowsOnCpus on a CPU (PoCL on the
// 2-core EPYC, gemv against blocked with 8-32-row tiles: 1.2x at 4 x 4096 x 4096, 0.62x at 8,
// 0.40x at 16, 0.41x at 32 x 4096 x 11008). On a CPU a long operand of at least
// kGemvStreamedFloats is streamed through gemv whatever K (is_long_operand_regime; PoCL on the
// 2-core Xeon: 16777216 x 1 x 2 gemv 0.72 s, blocked 6.5 s; 65536 x 1 x 16: 4.6 ms, 27 ms).
// But on a CPU, where the long operand is read as stored (op(B) = B for few rows of C, op(A)
// = A for few columns), such products run on register_block, its blocks shrunk to C's short
// side: per k a whole vector of B's row, or one element of each of A's rows in the block,
// where gemv reads a few vectors of each row of the long operand at a time and multiplies
// them element by element (PoCL on the 2-core Xeon, gemv against register_block, GFLOP/s: 1, 2
// and 4 x 4096 x 4096 2.3 / 5.0 / 13.2 against 7.2 / 27.4 / 47.0; 4096 x 1 x 4096 3.7
// against 12.4, 4096 x 2 x 4096 10.5 against 22.5; 1 x 16777216 x 2 0.35 against 6.5; with
// the long operand transposed gemv keeps them: 4096 x 4 x 4096, A transposed, 17.2 against
// 8.3), except where register_block's inner products read it as vectors along K
// (register_block_inner_products; 1 x 4096 x 4096 with op(B) = B^T: gemv 3.1, the inner
// products 16-20; 8 x 4096 x 4096 with both transposed: 4.9 against 30.4).
// Whether register_block computes the call as inner products, its operands read along K.
bool reads_along_k(const detail::KernelCall& call) {
  return detail::register_block_inner_products(detail::call_layout(call));
}

// Returns "gemv", "register_block" or "" where the call is not GEMV-like.
std::string gemv_like_kernel(const detail::KernelCall& call, const Shape& shape,
                             Precision precision, TensorCores cores, const DeviceLimits& device) {
  if (!detail::kernel_runs("gemv", precision, cores)) return "";
  const auto block = kernel_block("gemv", derive_options("gemv", device));
  const bool cpu = device.type == DeviceType::CPU;
  const std::int64_t rows =
      std::min(block[0], cpu ? detail::kGemvRowsOnCpus : detail::kGemvRowsOnGpus);
  if (!detail::is_gemv_regime(shape.m, shape.n, shape.k, rows) &&
      !(cpu && detail::is_long_operand_regime(shape.m, shape.n, shape.k, rows)))
    return "";
  const bool long_operand_as_stored = shape.m <= shape.n ? !call.b.transposed : !call.a.transposed;
  return cpu && (long_operand_as_stored || reads_along_k(call)) &&
                 detail::kernel_runs("register_block", precision, cores)
             ? "register_block"
             : "gemv";
}

// For a kernel that packs its operands into the workspace first (wgmma): why its packs for
// `call` do not fit the device's workspace limit, or "" when they do (or it packs nothing).
std::string packs_do_not_fit(const std::string& kernel, const KernelOptions& options,
                             const detail::KernelCall& call, Precision precision,
                             const DeviceLimits& device) {
  const auto& spec = detail::find_spec(kernel);
  if (!spec.packs_operands) return "";
  const std::size_t limit = detail::workspace_limit(device);
  if (detail::packing(spec, call, options, precision).fits(limit)) return "";
  return "its packed operands need more than the workspace limit of " + std::to_string(limit) +
         " bytes here";
}

// A choice a rule fixes before any tuned entry is weighed: the kernel, its overrides, and why.
KernelChoice fixed_choice(const std::string& kernel, const KernelOptions& overrides,
                          const std::string& reason) {
  KernelChoice choice;
  choice.kernel = kernel;
  choice.overrides = overrides;
  choice.reason = reason;
  return choice;
}

}  // namespace

KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                           const GemmProblem& problem, Precision precision, TensorCores cores) try {
  return detail::choose_kernel(database, device, detail::row_major_call(problem), precision, cores);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

namespace detail {

KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                           const KernelCall& call, Precision precision, TensorCores cores) try {
  const Shape shape = call_shape(call);
  // A product of few rows, too thin for wgmma's tiles, runs tensorcore's thin ones.
  if (detail::runs_thin_tensorcore_tiles(precision, cores, shape.m, shape.n, shape.k)) {
    const KernelOptions tiles = detail::tensorcore_thin_tiles(shape.m);
    return fixed_choice("tensorcore", tiles,
                        "thin for wgmma's tiles, " + describe_shape(shape) + ": tensorcore on " +
                            std::to_string(tiles.at("TILE_M")) +
                            "-row tiles, which copies A and B into local memory as they are "
                            "stored (no packs)");
  }
  // A TF32 or 3xTF32 call too small for wgmma's tiles runs tensorcore's small ones.
  if (detail::runs_small_tensorcore_tiles(precision, cores, shape.m, shape.n, shape.k, shape.batch))
    return fixed_choice("tensorcore", detail::tensorcore_small_tiles(),
                        "small for wgmma's tiles, " + describe_shape(shape) +
                            ": tensorcore on 64 x 64 tiles, which copies A and B into local "
                            "memory as they are stored (no packs)");
  // An FP32 call of short K on a device with cp.async runs blocked's pipeline of copies.
  if (detail::runs_short_k_pipeline(precision, device, shape.m, shape.n, shape.k, shape.batch))
    return fixed_choice("blocked", detail::blocked_short_k_tiles(),
                        "K of " + describe_shape(shape) + " is short (at most " +
                            std::to_string(detail::kShortPipelineDepth) +
                            "): blocked on 64 x 128 tiles with three stages of asynchronous "
                            "copies");
  // A product too thin for the tensor cores' tiles, or a TF32 call too small for wgmma's and
  // too narrow for tensorcore's small tiles, is computed as on a device without them.
  std::string thin = "";
  const std::int64_t thin_rows = detail::thin_for_tensor_cores_rows(precision, cores);
  if (detail::on_tensor_cores(precision, cores) &&
      detail::is_gemv_regime(shape.m, shape.n, shape.k, thin_rows)) {
    cores = TensorCores::None;
    thin = "thin for the tensor cores, " + describe_shape(shape) + ", on the FMA kernels: ";
  } else if (detail::small_for_wgmma(precision, cores, shape.m, shape.n, shape.k, shape.batch)) {
    cores = TensorCores::None;
    thin = "small for wgmma's tiles, " + describe_shape(shape) + ", on the FMA kernels: ";
  }
  const auto& problems = database.problems();
  const std::string problems_note =
      problems.empty() ? std::string()
                       : "; the tuning files had " + std::to_string(problems.size()) +
                             " problem(s), skipped (first: " + problems.front() +
                             "; clgemm-tune --check FILE lists them all)";
  // Tensor cores are used only for a reduced precision the caller asked for. Elsewhere the
  // reduced precisions run on the FP32 kernels' tuned parameters, looked up under fp32.
  const bool on_cores = detail::on_tensor_cores(precision, cores);
  const std::string mode = precision_name(on_cores ? precision : Precision::FP32);

  detail::AutoScope scope{precision, cores, false, shape.batch == 1};
  std::string regime = thin;
  const std::string gemv_like = detail::gemv_regime_possible(precision, cores)
                                    ? gemv_like_kernel(call, shape, precision, cores, device)
                                    : "";
  if (!gemv_like.empty()) regime += "GEMV-like shape " + describe_shape(shape) + ": ";
  if (gemv_like == "register_block")
    regime += reads_along_k(call) ? "the operands read along K, on a CPU's inner products: "
                                  : "the long operand read as stored, on a CPU: ";
  scope.gemv_regime = gemv_like == "gemv";
  // Outside gemv's regime the entries of every kernel compete, register_block's among them.
  const std::string regime_kernel =
      gemv_like == "register_block" ? gemv_like : detail::regime_kernel(scope);

  // The entries of the most specific level that can serve the call, each with its prediction
  // here.
  const detail::UsableEntries usable = detail::usable_entries(
      database, device, scope, [&](const TunedEntry& e, const KernelOptions& options) {
        return packs_do_not_fit(e.kernel, options, call, precision, device);
      });
  const MatchLevel level = usable.level;
  const std::string& skipped = usable.skipped;
  std::vector<Candidate> candidates;
  for (const auto& u : usable.entries) {
    const TunedEntry& e = u.entry;
    Candidate c;
    c.entry = &e;
    c.kernel = e.kernel;
    c.options = u.options;
    const Shape measured = measured_shape(e);
    const double measured_fill = device_fill(c.kernel, c.options, measured, device);
    fit_to_call(c, e.options, call);
    c.fill = device_fill(c.kernel, c.options, shape, device);
    // Never faster than measured: an entry speaks for shapes that keep the device at least as
    // busy as its own problem did, and loses in proportion on shapes that keep it less busy (a
    // tile measured on a poorly filled problem must not claim the large ones).
    c.predicted_gflops = e.gflops * std::min(1.0, c.fill / std::max(measured_fill, 1e-9));
    c.distance = size_distance(shape, measured);
    candidates.push_back(std::move(c));
  }
  // On tensor cores and on CPUs a kernel's measurement nearer to the shape bounds its farther
  // ones: the fill model sees a full device on a small problem as on a large one where a
  // kernel runs one or two work-groups per compute unit (on the H200, wgmma's 3xTF32 entry
  // from 4096^3, 78 TFLOP/s, would claim 1024^3, where its own entry measured 27.7), and on a
  // CPU, whose few cores any problem fills (on PoCL, register_block's 149 GFLOP/s from 512^3
  // would claim 32x4096x8192, where its own entry measured a third of it). The GPU FP32 kernels'
  // choices, measured over the shape suite with the fill model alone, keep it.
  // An entry tuned for the call's own shape class speaks for it and is not capped (on PoCL the
  // `gemv` entry's 8-row blocks, measured at 8x4096x4096, held the `thin` entry's to their 48
  // GFLOP/s at 16x4096x4096, where the thin blocks ran 90).
  if (on_cores || device.type == DeviceType::CPU) {
    const std::string call_class =
        shape_class(GemmProblem::packed_batch(shape.m, shape.n, shape.k, shape.batch));
    for (auto& c : candidates)
      for (const auto& nearer : candidates)
        if (c.entry->shape_class != call_class && nearer.kernel == c.kernel &&
            nearer.distance < c.distance)
          c.predicted_gflops = std::min(c.predicted_gflops, nearer.predicted_gflops);
  }
  Candidate derived;
  derived.kernel = regime_kernel;
  derived.options = derive_options(regime_kernel, device);
  fit_to_call(derived, {}, call);
  derived.fill = device_fill(derived.kernel, derived.options, shape, device);
  candidates.push_back(derived);

  const Candidate* best = &candidates.front();
  for (const auto& c : candidates)
    if (better(c, *best)) best = &c;

  char fill[64];
  std::snprintf(fill, sizeof fill, "; its launch fills %.0f%% of the device here",
                100.0 * best->fill);
  std::string reason;
  if (best->entry) {
    const TunedEntry& e = *best->entry;
    reason = regime + "tuned " + mode + " entry '" + e.shape_class + "' of " + e.kernel +
             " at the " + match_level_name(level) + " level (" +
             (level == MatchLevel::Device ? "this device" : "measured on " + e.device) + ", " +
             format_gflops(e.gflops) + " GFLOP/s on " + describe_shape(measured_shape(e)) +
             (e.tuned.empty() ? "" : ", tuned " + e.tuned) + "), of " +
             std::to_string(candidates.size() - 1) + " usable; predicted " +
             format_gflops(best->predicted_gflops) + " GFLOP/s" + fill;
  } else {
    reason = regime + "no usable " + mode + " tuning entry for device '" + device.name +
             "' or its kind: " + best->kernel + " with parameters derived from the device limits" +
             fill;
  }
  if (!skipped.empty()) reason += "; skipped " + skipped;
  KernelChoice choice;
  choice.kernel = best->kernel;
  choice.overrides = best->overrides;
  if (best->kernel == "gemv") {
    choice.overrides =
        gemv_overrides_for_precision(best->overrides, best->options, precision, device);
    if (choice.overrides != best->overrides)
      reason += "; in " + std::string(precision_name(precision)) + " on blocks of " +
                std::to_string(choice.overrides.at("VEC")) +
                " (each element's two parts as it is used: fewer registers)";
  }
  choice.reason = reason + problems_note;
  return choice;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace detail
}  // namespace clgemm
