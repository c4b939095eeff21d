// Warming a Context (warm_up.hpp): the set of programs a call may build on this device, derived
// from what `auto` chooses (choice/auto_candidates.hpp) and the build variants a call can need
// (launch/build_options.hpp), and building it ahead (launch/prepare_call.hpp).
#include "choice/warm_up.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "catalog/device_support.hpp"
#include "choice/auto_candidates.hpp"
#include "clgemm/errors.hpp"
#include "launch/build_options.hpp"
#include "launch/prepare_call.hpp"
#include "plan/aligned_copy.hpp"
#include "plan/operand_packing.hpp"

namespace clgemm::detail {

namespace {

// The rows of a synthetic call with these transposes, for the packs' build options.
KernelCall transposed_call(bool trans_a, bool trans_b) {
  KernelCall call;
  call.m = call.n = call.k = 1;
  call.a.transposed = trans_a;
  call.b.transposed = trans_b;
  return call;
}

}  // namespace

std::vector<WarmProgram> warm_set(const RunSettings& settings, DeviceRuntime& device,
                                  ResolvedOptions& options, AutoResources& choices) {
  std::vector<RunSettings> kernels;
  if (settings.kernel == "auto") {
    // The tensor cores and the database resolve_auto() weighs.
    const TensorCores cores = tensor_cores_for(settings.precision, device);
    const TuningDatabase database =
        choices.with_database([](const TuningDatabase& loaded) { return loaded; });
    for (const KernelSelection& selection :
         auto_kernels(database, device.limits(), settings.precision, cores)) {
      RunSettings run = settings;
      run.kernel = selection.kernel;
      run.overrides = selection.overrides;
      for (const auto& [name, value] : settings.overrides) run.overrides[name] = value;
      kernels.push_back(run);
    }
  } else {
    check_precision(find_spec(settings.kernel), settings.precision, device);  // throws
    kernels.push_back(settings);
  }

  // Each kernel's variants, then its helpers; collected per kernel, then taken round by round
  // so that every kernel's most common variant comes first.
  std::vector<std::vector<WarmProgram>> per_kernel;
  std::vector<WarmProgram> helpers;
  const int mode = int(settings.precision);
  const auto helper = [&helpers](const std::string& name, const std::string& helper_options) {
    WarmProgram program;
    program.helper = name;
    program.helper_options = helper_options;
    program.kernel = name;
    program.build_options = helper_options;
    helpers.push_back(std::move(program));
  };
  helper("scale_c", "");  // C = beta * C, whatever the kernel (K = 0 or alpha = 0)
  for (const RunSettings& run : kernels) {
    const KernelSpec& spec = find_spec(run.kernel);
    KernelOptions kernel_options;
    try {
      kernel_options = options.get(run.kernel, device.limits(), run.overrides);
    } catch (const Error&) {
      if (settings.kernel != "auto") throw;  // the caller's own kernel and overrides
      continue;  // resolve_auto() derives instead; the derived set is in the set already
    }
    std::vector<WarmProgram> variants;
    for (const BuildVariant& variant : build_variants(spec, kernel_options)) {
      WarmProgram program;
      program.settings = run;
      program.variant = variant;
      program.kernel = run.kernel;
      program.build_options = variant_build_options(spec, kernel_options, variant, run.precision);
      variants.push_back(std::move(program));
    }
    per_kernel.push_back(std::move(variants));
    const bool cpu = device.limits().type == DeviceType::CPU;
    if (may_copy_operands(spec) || (spec.reads_through_caches && cpu)) helper("copy_padded", "");
    if (spec.reads_a_transposed_copy || spec.reads_b_transposed_copy)
      helper("copy_padded", transposing_copy_options());
    if (spec.slices_k) helper("splitk_reduce", "");
    if (spec.packs_operands)
      for (bool trans_a : {false, true})
        for (bool trans_b : {false, true}) {
          const Packing packing = detail::packing(spec, transposed_call(trans_a, trans_b),
                                                  kernel_options, run.precision);
          if (packing.a_packed) helper("wgmma_pack", " " + packing.a.build_options(mode));
          helper("wgmma_pack", " " + packing.b.build_options(mode));
        }
  }

  std::vector<WarmProgram> set;
  std::set<std::string> seen;
  const auto add = [&](const WarmProgram& program) {
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

WarmUpReport warm_up(const std::vector<WarmProgram>& set, const WarmUpCallback& progress,
                     DeviceRuntime& device, ResolvedOptions& options,
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
    const WarmProgram& program = set[i];
    WarmUpProgress step;
    step.index = i + 1;
    step.total = set.size();
    step.kernel = program.kernel;
    step.build_options = program.build_options;
    const auto began = Clock::now();
    try {
      PreparedKernel prepared;
      if (!program.helper.empty()) {
        prepared = prepare_helper(program.helper, program.helper_options, device, &step.outcome);
      } else {
        const KernelSpec& spec = find_spec(program.settings.kernel);
        prepared = prepare_build(
            program.settings,
            [&](const KernelOptions& kernel_options) {
              return variant_build_options(spec, kernel_options, program.variant,
                                           program.settings.precision);
            },
            device, options, &step.outcome);
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

void start_background_warming(BackgroundWarming& background, DeviceRuntime& device,
                              ResolvedOptions& options, AutoResources& choices) {
  if (warm_mode_for(device.limits()) != WarmMode::Background) return;
  background.start([&device, &options, &choices](const std::atomic<bool>& stop) {
    try {
      warm_up(warm_set(RunSettings{}, device, options, choices), {}, device, options, &stop);
    } catch (...) {
      // Warming is an optimisation: a failure here is a call's to report, when it comes.
    }
  });
}

}  // namespace clgemm::detail
