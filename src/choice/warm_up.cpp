// Warming a Context (Context::State, launch/context_state.hpp): the set of programs a call may
// build on this device, derived from what `auto` chooses (choice/auto_candidates.hpp) and the
// build variants a call can need (launch/build_options.hpp), and building it ahead, on the
// caller's thread (Context::warm_up) or in the background when the Context opens (CLGEMM_WARM).
#include <algorithm>
#include <chrono>
#include <set>

#include "choice/auto_candidates.hpp"
#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"

namespace clgemm {

namespace {

// The rows of a synthetic call with these transposes, for the packs' build options.
detail::KernelCall transposed_call(bool trans_a, bool trans_b) {
  detail::KernelCall call;
  call.m = call.n = call.k = 1;
  call.a.transposed = trans_a;
  call.b.transposed = trans_b;
  return call;
}

}  // namespace

std::vector<detail::WarmProgram> Context::State::warm_set(const RunSettings& settings) {
  std::vector<RunSettings> kernels;
  if (settings.kernel == "auto") {
    // As resolve_auto() does: the probes run only for a precision tensor cores could serve.
    TensorCores cores = TensorCores::None;
    if (settings.precision != Precision::FP32 && tensor_core_support().available)
      cores = wgmma_support().available ? TensorCores::Wgmma : TensorCores::MmaSync;
    TuningDatabase database;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!tuning) tuning = TuningDatabase::load_default();
      database = *tuning;
    }
    for (const KernelSelection& selection :
         detail::auto_kernels(database, selected.limits, settings.precision, cores)) {
      RunSettings run = settings;
      run.kernel = selection.kernel;
      run.overrides = selection.overrides;
      for (const auto& [name, value] : settings.overrides) run.overrides[name] = value;
      kernels.push_back(run);
    }
  } else {
    check_precision(detail::find_spec(settings.kernel), settings.precision);  // throws
    kernels.push_back(settings);
  }

  // Each kernel's variants, then its helpers; collected per kernel, then taken round by round
  // so that every kernel's most common variant comes first.
  std::vector<std::vector<detail::WarmProgram>> per_kernel;
  std::vector<detail::WarmProgram> helpers;
  const int mode = int(settings.precision);
  const auto helper = [&helpers](const std::string& name, const std::string& options) {
    detail::WarmProgram program;
    program.helper = name;
    program.helper_options = options;
    program.kernel = name;
    program.build_options = options;
    helpers.push_back(std::move(program));
  };
  helper("scale_c", "");  // C = beta * C, whatever the kernel (K = 0 or alpha = 0)
  for (const RunSettings& run : kernels) {
    const detail::KernelSpec& spec = detail::find_spec(run.kernel);
    KernelOptions options;
    try {
      options = options_for(run.kernel, selected.limits, run.overrides);
    } catch (const Error&) {
      if (settings.kernel != "auto") throw;  // the caller's own kernel and overrides
      continue;  // resolve_auto() derives instead; the derived set is in the set already
    }
    std::vector<detail::WarmProgram> variants;
    for (const detail::BuildVariant& variant : detail::build_variants(spec)) {
      detail::WarmProgram program;
      program.settings = run;
      program.variant = variant;
      program.kernel = run.kernel;
      program.build_options = detail::variant_build_options(spec, options, variant, run.precision);
      variants.push_back(std::move(program));
    }
    per_kernel.push_back(std::move(variants));
    if (detail::may_copy_operands(spec)) helper("copy_padded", "");
    if (spec.slices_k) helper("splitk_reduce", "");
    if (spec.packs_operands)
      for (bool trans_a : {false, true})
        for (bool trans_b : {false, true}) {
          const detail::Packing packing =
              detail::packing(transposed_call(trans_a, trans_b), options, run.precision);
          helper("wgmma_pack", " " + packing.a.build_options(mode));
          helper("wgmma_pack", " " + packing.b.build_options(mode));
        }
  }

  std::vector<detail::WarmProgram> set;
  std::set<std::string> seen;
  const auto add = [&](const detail::WarmProgram& program) {
    if (seen.insert(program.kernel + "|" + program.build_options).second) set.push_back(program);
  };
  for (const auto& variants : per_kernel)
    if (!variants.empty()) add(variants.front());
  for (const auto& program : helpers) add(program);
  for (std::size_t round = 1;; ++round) {
    bool more = false;
    for (const auto& variants : per_kernel)
      if (round < variants.size()) add(variants[round]), more = true;
    if (!more) break;
  }
  return set;
}

WarmUpReport Context::State::warm_up(const std::vector<detail::WarmProgram>& set,
                                     const WarmUpCallback& progress,
                                     const std::atomic<bool>* stop) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  WarmUpReport report;
  report.programs = set.size();
  const auto start = Clock::now();
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (stop && stop->load()) {
      report.stopped = true;
      break;
    }
    const detail::WarmProgram& program = set[i];
    WarmUpProgress step;
    step.index = i + 1;
    step.total = set.size();
    step.kernel = program.kernel;
    step.build_options = program.build_options;
    const auto began = Clock::now();
    try {
      detail::PreparedKernel prepared;
      if (!program.helper.empty()) {
        prepared = prepare_helper(program.helper, program.helper_options, &step.outcome);
      } else {
        const detail::KernelSpec& spec = detail::find_spec(program.settings.kernel);
        prepared = prepare_build(
            program.settings,
            [&](const KernelOptions& options) {
              return detail::variant_build_options(spec, options, program.variant,
                                                   program.settings.precision);
            },
            &step.outcome);
      }
      step.build_options = prepared.build_options;
    } catch (const std::exception& error) {
      step.outcome = WarmOutcome::Failed;
      step.error = error.what();
    }
    step.seconds = seconds_since(began);
    switch (step.outcome) {
      case WarmOutcome::InMemory:
        ++report.in_memory;
        break;
      case WarmOutcome::OnDisk:
        ++report.on_disk;
        break;
      case WarmOutcome::Compiled:
        ++report.compiled;
        break;
      case WarmOutcome::Failed:
        if (report.failed++ == 0) report.first_error = step.error;
        break;
    }
    if (progress) progress(step);
  }
  report.seconds = seconds_since(start);
  return report;
}

void Context::State::start_background_warming() {
  if (warm_mode_for(selected.limits) != WarmMode::Background) return;
  background.start([this](const std::atomic<bool>& stop) {
    try {
      warm_up(warm_set(RunSettings{}), {}, &stop);
    } catch (...) {
      // Warming is an optimisation: a failure here is a call's to report, when it comes.
    }
  });
}

}  // namespace clgemm
