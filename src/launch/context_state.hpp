// Internal: what a Context holds (device, OpenCL context, programs, kernel sources, idle
// queues, the workspace, its bounded caches), the data a call's plan and preparation produce
// (CallPlan, PreparedCall), and the steps of a call, each defined in its layer: resolve_auto
// (choice/auto_resolution.cpp), plan (plan/call_plan.cpp), prepare (launch/prepare_call.cpp,
// launch/prepared_calls.cpp) and enqueue (launch/enqueue_call.cpp).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "catalog/kernel_spec.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/tuning.hpp"
#include "clgemm/warm.hpp"
#include "host/engine_sets.hpp"
#include "launch/background_warming.hpp"
#include "launch/build_options.hpp"
#include "launch/kernel_launch.hpp"
#include "launch/warm_set.hpp"
#include "launch/workspace.hpp"
#include "plan/aligned_copy.hpp"
#include "plan/edge_split.hpp"
#include "plan/index_range.hpp"
#include "plan/kernel_call.hpp"
#include "plan/operand_packing.hpp"
#include "plan/split_k.hpp"
#include "runtime/capability_probes.hpp"
#include "runtime/device_selection.hpp"
#include "runtime/kernel_source.hpp"
#include "runtime/program_cache.hpp"
#include "support/bounded_cache.hpp"

namespace clgemm {

namespace detail {

// What a call runs, decided before any resource is touched. BLAS semantics: M or N = 0 (or
// K = 0 or alpha = 0 with beta = 1) changes nothing; K = 0 or alpha = 0 otherwise scales C
// by beta (kernels/scale_c.cl) without reading A or B; everything else runs a GEMM kernel.
enum class CallKind { Nothing, ScaleC, Gemm };

struct EdgePlan;

struct CallPlan {
  CallKind kind = CallKind::Gemm;
  RunSettings run;     // the caller's settings with `auto` resolved
  std::string reason;  // why this runs, for GemmRecord::kernel_choice
  // Edge-aware tiling (edge_split.hpp): `run` computes only this region of C, and each of
  // `edges` computes a strip of the rest.
  std::optional<Region> whole_tiles;
  std::vector<EdgePlan> edges;
};

struct EdgePlan {
  Region region;
  CallPlan plan;
};

// A GEMM's split of K and why (see split_k.hpp): 1 slice is a single GEMM launch.
struct SplitPlan {
  KSlices slices;
  std::string reason;  // empty when the kernel does not slice K or nothing was considered
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
  std::string precision_path = "fp32";  // see GemmRecord::precision_path
};

// Everything one call launches, in order: aligned copies of the call's A and B into the
// workspace (copy_a, copy_b), the GEMM (`main`) and, for split-K, the reduction of its partial
// products; or scale_c alone (`main`). Offsets and leading dimensions in the workspace are in
// floats, each region starting at a multiple of 64 floats (256 bytes).
struct PreparedEdge;

struct PreparedCall {
  // Edge-aware tiling: these launches compute this region of C, and `edges` the rest.
  std::optional<Region> whole_tiles;
  std::vector<PreparedEdge> edges;
  PreparedKernel main;
  PreparedKernel copy;            // copy_padded, when an operand is copied
  PreparedKernel reduce;          // splitk_reduce, when K is split
  PreparedKernel pack_a, pack_b;  // wgmma_pack, for a kernel that reads packed operands
  bool column_major = false;      // the call's A and B are the problem's B and A
  bool copy_a = false, copy_b = false;
  bool packed = false;                   // A and B are packed (a_at, b_at) before the GEMM
  PackedOperand a_packing, b_packing;    // their floats_per_product() apart, product by product
  std::int64_t a_ld = 0, b_ld = 0;       // the copies' leading dimensions
  std::size_t a_at = 0, b_at = 0;        // the copies' offsets
  KSlices slices;                        // slices.slices > 1: split-K
  std::int64_t partial_ld = 0;           // N rounded up to 4
  std::size_t partial_at = 0, slab = 0;  // the first partial product, floats between slabs
  std::size_t workspace_bytes = 0;
  std::string reason;             // the plan's reason and what the launches add to it
  std::int64_t batch = 1;         // products
  bool product_table = false;     // their offsets and scalars from a table
  std::string epilogue = "none";  // describe_epilogue()

  std::size_t launches() const {
    const auto product_launches =
        std::size_t((batch + detail::kProductsPerLaunch - 1) / detail::kProductsPerLaunch);
    return std::size_t(copy_a) + std::size_t(copy_b) + (packed ? 3 : 1) * product_launches +
           (slices.slices > 1 ? 1 : 0) + edge_launches();
  }
  std::size_t edge_launches() const;  // after PreparedEdge
};

struct PreparedEdge {
  Region region;
  PreparedCall prepared;
};

inline std::size_t PreparedCall::edge_launches() const {
  std::size_t count = 0;
  for (const auto& edge : edges) count += edge.prepared.launches();
  return count;
}

}  // namespace detail

// Hidden like everything internal, although Context itself is exported.
struct __attribute__((visibility("hidden"))) Context::State {
  detail::SelectedDevice selected;
  cl::Context context;
  detail::ProgramCache programs;
  std::mutex mutex;  // guards the members below
  std::map<std::string, detail::KernelSource> sources;
  std::vector<cl::CommandQueue> idle_queues;
  std::optional<TuningDatabase> tuning;  // loaded on the first `auto` call
  // What `auto` resolved to, by the row-major call's (m, n, k), batch and precision: weighing
  // every entry costs more than a small launch.
  struct ResolvedChoice {
    RunSettings settings;
    std::string reason;
  };
  detail::BoundedCache<ResolvedChoice> choices;
  // resolve_options() by kernel, overrides and work-group limit (the other limits are the
  // device's): deriving and validating a kernel's parameters costs more than a small launch.
  detail::BoundedCache<KernelOptions> resolved_options;
  // What prepare() made of a plan and call, with its record (prepared_call).
  struct PreparedEntry {
    detail::PreparedCall call;
    GemmRecord record;  // record_of(call)
  };
  detail::BoundedCache<std::shared_ptr<const PreparedEntry>> prepared_calls;

  State(detail::SelectedDevice device, cl::Context opencl_context);

  const detail::KernelSource& source(const std::string& file);
  // Probed once per device and process (probe_tensor_cores remembers the answer).
  detail::Capability tensor_core_support();
  // Likewise for Hopper's wgmma (probe_wgmma remembers the answer).
  detail::Capability wgmma_support();
  // Each host-array call gets a queue of its own, so finish() waits for that call's work only.
  cl::CommandQueue acquire_queue();
  void release_queue(cl::CommandQueue queue);
  // Replaces kernel "auto" by the tuning database's choice for this problem (the reason is
  // stored in `reason`); other settings come back unchanged.
  RunSettings resolve_auto(const RunSettings& settings, const GemmProblem& problem,
                           const detail::KernelCall& call, std::string& reason);
  // resolve_options(kernel, limits, overrides) for this device's limits (`limits` is them, with
  // at most a lower work-group size), remembered in `resolved_options`.
  KernelOptions options_for(const std::string& kernel, const DeviceLimits& limits,
                            const KernelOptions& overrides);
  // Throws Error(UnsupportedPrecision) when the kernel does not compute `precision`, or needs
  // tensor cores (or wgmma) this device lacks.
  void check_precision(const detail::KernelSpec& spec, Precision precision);
  // Builds the kernel for `call` (the general case without one). With `copies`, it decides
  // which operands are read from aligned copies (choose_copies) and builds for the call as the
  // kernel then reads them; with `split` too, for a kernel that slices K, it plans the split
  // (plan_split, after the copies' workspace) and builds the sliced or the unsliced kernel.
  detail::PreparedKernel prepare(const RunSettings& settings, const detail::KernelCall* call,
                                 detail::CopyChoice* copies = nullptr,
                                 detail::SplitPlan* split = nullptr);
  // prepare()'s build of the kernel with the options `build_options_for` gives for its
  // resolved parameters (again under a lower work-group limit where the built kernel needs
  // it). Warming (`warming` given, its outcome stored there): programs.warm() instead of get(),
  // and a program left in the disk cache comes back with `built` null.
  detail::PreparedKernel prepare_build(
      const RunSettings& settings,
      const std::function<std::string(const KernelOptions&)>& build_options_for,
      WarmOutcome* warming = nullptr);
  // programs.get(), or programs.warm() when `warming` is given (null when left on disk).
  std::shared_ptr<const detail::BuiltProgram> program(const std::string& kernel,
                                                      const std::string& entry_point,
                                                      const detail::KernelSource& source,
                                                      const std::string& build_options,
                                                      bool& cached, detail::PtxRewrite rewrite,
                                                      WarmOutcome* warming = nullptr);
  // Checks the caller's kernel, parameters and precision (each an error when invalid, even
  // for a call with nothing to compute) and decides what the call runs; a GEMM's sizes are
  // checked against the kernel's index range (check_index_range).
  // With `auto`, it may also split off C's thin edges (plan_edges); a part itself is planned
  // with `whole = false`.
  detail::CallPlan plan(const RunSettings& settings, const GemmProblem& problem,
                        const detail::KernelCall& call, bool whole = true);
  // Edge-aware tiling for an FP32 GEMM of one product (split_edges, for the plan's kernel with
  // these resolved options): the strips' plans, each
  // with `auto`'s choice for its own shape, and the reason, added to `plan`.
  void plan_edges(detail::CallPlan& plan, const KernelOptions& options, const RunSettings& settings,
                  const GemmProblem& problem, const detail::KernelCall& call);
  // Which operands of `call` are read from aligned copies (ALIGN_COPY, choose_copies in
  // aligned_copy.hpp), none when the copies would not fit the workspace (Error
  // AllocationTooLarge under ALIGN_COPY = 2); and the call as the kernel then reads it.
  detail::CopyChoice choose_copies(const detail::KernelSpec& spec, const KernelOptions& options,
                                   const detail::KernelCall& call);
  detail::KernelCall copied_call(const detail::KernelCall& call, const detail::CopyChoice& copies,
                                 const KernelOptions& options) const;
  // The workspace floats the copies take: [copy of A][copy of B], each region rounded up to a
  // multiple of 64 floats (256 bytes), as prepare() lays them out.
  static std::size_t copies_floats(const detail::KernelCall& call, const detail::CopyChoice& copies,
                                   const KernelOptions& options);
  // The split of K for the GEMM `call` with these (resolved) options: SPLIT_K if given, else
  // choose_split(). Error(AllocationTooLarge) when a forced split's partial products do not
  // fit workspace_limit() less `workspace_used`; an automatic split is reduced to fit.
  detail::SplitPlan plan_split(const detail::KernelSpec& spec, const KernelOptions& options,
                               const detail::KernelCall& call, std::size_t workspace_used);
  // Builds or finds what `plan` launches (not for CallKind::Nothing), for the call whose
  // operands' base alignments are filled in.
  detail::PreparedCall prepare(const detail::CallPlan& plan, const detail::KernelCall& call);
  // prepare() and record_of() once per plan and call, buffers and scalars aside (the key holds
  // every other field either reads); later calls get the same launches, their programs
  // reported as found in memory.
  std::shared_ptr<const PreparedEntry> prepared_call(const detail::CallPlan& plan,
                                                     const detail::KernelCall& call);
  // prepare() for one part: the launches of `plan` alone, its edges left out.
  detail::PreparedCall prepare_launches(const detail::CallPlan& plan,
                                        const detail::KernelCall& call);
  // For a kernel that reads packed operands (KernelSpec::packs_operands): their layouts, their
  // room in the workspace (`reserve` returns a region's offset in floats) and the two packs;
  // Error(AllocationTooLarge) when every product's packed A and B exceed workspace_limit().
  void plan_packing(detail::PreparedCall& out, Precision precision, const detail::KernelCall& call,
                    const std::function<std::size_t(std::size_t)>& reserve);
  // The element-wise helper kernels (scale_c, copy_padded, splitk_reduce): square work-groups
  // as large as the device and the built kernel allow, up to 16 x 16; `extra_options` are
  // added to the build's (the epilogue's).
  detail::PreparedKernel prepare_helper(const std::string& kernel,
                                        const std::string& extra_options = "",
                                        WarmOutcome* warming = nullptr);
  // Enqueues the prepared launches on `queue` for `call` (buffers filled in): the first waits
  // for `wait`, each later one for the one before, and `event` receives the last one's event.
  void enqueue(const cl::CommandQueue& queue, const detail::PreparedCall& prepared,
               const detail::KernelCall& call, const std::vector<cl::Event>& wait,
               cl::Event* event);
  // enqueue() for one part: the launches of `prepared` alone, its edges left out.
  void enqueue_launches(const cl::CommandQueue& queue, const detail::PreparedCall& prepared,
                        const detail::KernelCall& call, const std::vector<cl::Event>& wait,
                        cl::Event* event);
  detail::Workspace workspace;  // guarded by its own lock

  // The host-memory engine (src/host/): a validated host-array call whose plan computes
  // something, streamed through an engine set (host_engine.cpp), or where the device shares
  // the host's memory, computed in place (in_place_gemm.cpp; nothing when a span is above
  // CL_DEVICE_MAX_MEM_ALLOC_SIZE, which only the streaming engine handles).
  GemmRecord sgemm_host(const GemmProblem& problem, const detail::CallPlan& plan,
                        const RunSettings& settings, const float* a, const float* b, float* c);
  std::optional<GemmRecord> sgemm_in_place(const GemmProblem& problem, const detail::CallPlan& plan,
                                           const float* a, const float* b, float* c);
  // The engine sets of this Context, made on first use.
  detail::EnginePool& engine_pool();
  std::unique_ptr<detail::EnginePool> engine_pool_;  // guarded by `mutex` until made
  // Warming (choice/warm_up.cpp). Every program a call with `settings` may build on this
  // device, none twice, the most common first: for "auto", every kernel and parameter set
  // auto_kernels() finds for the settings' precision, else the settings' kernel; each in every
  // build variant calls can need (build_variants), with the helpers they launch (scale_c,
  // copy_padded, splitk_reduce, wgmma_pack). Without product tables and epilogues, whose
  // variants are built on demand.
  std::vector<detail::WarmProgram> warm_set(const RunSettings& settings);
  // Makes sure each program of `set` is built or in the disk cache (ProgramCache::warm),
  // reporting each to `progress`; stops early once `stop` is set. A failed build is counted
  // and reported, and the others go on.
  WarmUpReport warm_up(const std::vector<detail::WarmProgram>& set, const WarmUpCallback& progress,
                       const std::atomic<bool>* stop = nullptr);
  // Starts warming `auto`'s FP32 set in the background when warm_mode_for(device) says so.
  void start_background_warming();
  // Last: destroyed first, so the thread is joined while everything it uses still lives.
  detail::BackgroundWarming background;
};

// The record of a call that runs `prepared`.
GemmRecord record_of(const detail::PreparedCall& prepared);
// The record of a build: `prepared` chosen for `reason`.
GemmRecord record_of_build(const detail::PreparedKernel& prepared, const std::string& reason);
// The record of a call that launched nothing.
GemmRecord record_of_nothing(const detail::CallPlan& plan);

}  // namespace clgemm
