// Internal: what a Context holds (device, OpenCL context, programs, kernel sources, idle
// queues) and how it prepares a kernel for a call: resolve options, build or reuse, and
// re-derive when the built kernel allows fewer work-items than derived.
#pragma once

#include <map>
#include <tuple>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"
#include "clgemm/tuning.hpp"
#include "device_selection.hpp"
#include "kernel_call.hpp"
#include "kernel_source.hpp"
#include "kernel_spec.hpp"
#include "program_cache.hpp"
#include "tensor_core_probe.hpp"

namespace clgemm {

namespace detail {

// What a call runs, decided before any resource is touched. BLAS semantics: M or N = 0 (or
// K = 0 or alpha = 0 with beta = 1) changes nothing; K = 0 or alpha = 0 otherwise scales C
// by beta (kernels/scale_c.cl) without reading A or B; everything else runs a GEMM kernel.
enum class CallKind { Nothing, ScaleC, Gemm };

struct CallPlan {
  CallKind kind = CallKind::Gemm;
  RunSettings run;     // the caller's settings with `auto` resolved
  std::string reason;  // why this runs, for GemmTiming::kernel_choice
};

// A program ready to launch, with the parameters it was built with.
struct PreparedKernel {
  std::string name;                  // the kernel reported as run ("scale_c" for ScaleC)
  const KernelSpec* spec = nullptr;  // null for scale_c
  std::shared_ptr<const BuiltProgram> built;
  KernelOptions options;
  std::string build_options;
  bool cached = false;
  Precision precision = Precision::FP32;
  std::string precision_path = "fp32";  // see GemmTiming::precision_path
};

}  // namespace detail

struct Context::State {
  detail::SelectedDevice selected;
  cl::Context context;
  detail::ProgramCache programs;
  std::mutex mutex;  // guards the members below
  std::map<std::string, detail::KernelSource> sources;
  std::vector<cl::CommandQueue> idle_queues;
  std::optional<TuningDatabase> tuning;  // loaded on the first `auto` call
  // What `auto` resolved to, by the row-major call's (m, n, k) and precision: the choice is a
  // function of those alone once the database is loaded, and weighing every entry costs more
  // than a small launch. Cleared when it reaches kChoiceCacheSize entries.
  struct ResolvedChoice {
    RunSettings settings;
    std::string reason;
  };
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, int>, ResolvedChoice> choices;
  static constexpr std::size_t kChoiceCacheSize = 4096;

  State(detail::SelectedDevice device, cl::Context opencl_context);

  const detail::KernelSource& source(const std::string& file);
  // Probed once per device and process (probe_tensor_cores remembers the answer).
  detail::TensorCoreSupport tensor_core_support();
  // Each host-array call gets a queue of its own, so finish() waits for that call's work only.
  cl::CommandQueue acquire_queue();
  void release_queue(cl::CommandQueue queue);
  // Replaces kernel "auto" by the tuning database's choice for this problem (the reason is
  // stored in `reason`); other settings come back unchanged.
  RunSettings resolve_auto(const RunSettings& settings, const GemmProblem& problem,
                           std::string& reason);
  // Throws Error(UnsupportedPrecision) when the kernel does not compute `precision`, or needs
  // tensor cores this device lacks.
  void check_precision(const detail::KernelSpec& spec, Precision precision);
  detail::PreparedKernel prepare(const RunSettings& settings, const detail::KernelCall* call);
  // Checks the caller's kernel, parameters and precision (each an error when invalid, even
  // for a call with nothing to compute) and decides what the call runs; a GEMM's sizes are
  // checked against the kernel's index range (check_index_range).
  detail::CallPlan plan(const RunSettings& settings, const GemmProblem& problem,
                        const detail::KernelCall& call);
  // Builds or finds what `plan` launches (not for CallKind::Nothing).
  detail::PreparedKernel prepare(const detail::CallPlan& plan, const detail::KernelCall* call);
  detail::PreparedKernel prepare_scale_c();
};

namespace detail {
// Launches a prepared kernel on the call: the GEMM kernel, or scale_c on C alone.
void enqueue_prepared(const cl::CommandQueue& queue, const PreparedKernel& prepared,
                      const KernelCall& call, cl::Event* event);
}  // namespace detail

// The record of a call that runs `prepared`, chosen for `reason`.
GemmRecord describe(const detail::PreparedKernel& prepared, const std::string& reason);
// The record of a call that launched nothing.
GemmRecord describe_nothing(const detail::CallPlan& plan);

}  // namespace clgemm
