// The Context: one device, its programs, and the host-array GEMM path (validate, build or reuse
// the program, upload, launch with enqueue + finish timed alone, download).
#include <chrono>
#include <cstring>
#include <mutex>

#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"
#include "device_selection.hpp"
#include "kernel_source.hpp"
#include "kernel_spec.hpp"
#include "program_cache.hpp"

namespace clgemm {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A program ready to launch, with the parameters it was built with.
struct PreparedKernel {
  const detail::KernelSpec* spec = nullptr;
  std::shared_ptr<const detail::BuiltProgram> built;
  KernelOptions options;
  std::string build_options;
  bool cached = false;
};

// The alignment hints of kernels that load vectors: a row of A (B) may be read as whole
// VEC-wide vectors when every row start is a multiple of VEC floats from an aligned base.
std::string alignment_hints(const KernelOptions& options, const GemmProblem* problem,
                            const DeviceLimits& limits) {
  const long vec = options.at("VEC");
  const bool base_aligned = limits.base_address_align_bits >= std::size_t(vec) * 32;
  const bool a = problem && base_aligned && problem->lda % vec == 0;
  const bool b = problem && base_aligned && problem->ldb % vec == 0;
  return std::string(" -D A_ALIGNED=") + (a ? "1" : "0") + " -D B_ALIGNED=" + (b ? "1" : "0");
}

void check_allocation(const char* what, std::size_t elements, const DeviceLimits& limits) {
  const std::size_t bytes = elements * sizeof(float);
  if (bytes > limits.max_allocation_bytes)
    throw Error(ErrorCode::AllocationTooLarge, std::string("matrix ") + what + " needs " +
                                                   std::to_string(bytes) +
                                                   " bytes, above CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                                                   std::to_string(limits.max_allocation_bytes) +
                                                   " of device '" + limits.name + "'");
}

}  // namespace

struct Context::State {
  detail::SelectedDevice selected;
  cl::Context context;
  detail::ProgramCache programs;
  std::mutex mutex;  // guards the members below
  std::map<std::string, detail::KernelSource> sources;
  std::vector<cl::CommandQueue> idle_queues;

  explicit State(detail::SelectedDevice device)
      : selected(std::move(device)),
        context(selected.device),
        programs(context, selected.device, selected.limits) {}

  const detail::KernelSource& source(const std::string& file) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sources.find(file);
    if (it == sources.end()) it = sources.emplace(file, detail::load_kernel_source(file)).first;
    return it->second;
  }

  // Each call gets a queue of its own, so finish() waits for that call's work only.
  cl::CommandQueue acquire_queue() {
    std::lock_guard<std::mutex> lock(mutex);
    if (idle_queues.empty()) return cl::CommandQueue(context, selected.device);
    cl::CommandQueue queue = idle_queues.back();
    idle_queues.pop_back();
    return queue;
  }
  void release_queue(cl::CommandQueue queue) {
    std::lock_guard<std::mutex> lock(mutex);
    idle_queues.push_back(std::move(queue));
  }

  PreparedKernel prepare(const RunSettings& settings, const GemmProblem* problem) {
    PreparedKernel prepared;
    prepared.spec = &detail::find_spec(settings.kernel);
    const auto& source = this->source(prepared.spec->description.file);
    DeviceLimits limits = selected.limits;
    // The kernel's own work-group limit (registers, local memory) is only known once it is
    // built; if the derived work-group exceeds it, derive again under that limit.
    for (int attempt = 0;; ++attempt) {
      prepared.options = resolve_options(settings.kernel, limits, settings.overrides);
      prepared.build_options = format_build_options(prepared.options);
      if (prepared.spec->uses_alignment_hints)
        prepared.build_options += alignment_hints(prepared.options, problem, limits);
      try {
        prepared.built = programs.get(settings.kernel, prepared.spec->entry_point, source.text,
                                      source.hash, prepared.build_options, prepared.cached);
      } catch (const cl::Error& error) {
        // A source that compiles but lacks the entry point (an empty or foreign .cl file in
        // CLGEMM_KERNEL_DIR) fails in clCreateKernel, after the build; no cl::Error may escape.
        if (error.err() != CL_INVALID_KERNEL_NAME) throw OpenCLError(error.what(), error.err());
        throw BuildError(settings.kernel, limits.name, prepared.build_options,
                         "the program built, but defines no __kernel '" +
                             prepared.spec->entry_point + "' (" + source.path + ")");
      }
      const auto wg = prepared.spec->work_group(prepared.options);
      const std::size_t items = wg[0] * wg[1];
      const std::size_t kernel_limit = prepared.built->kernel_work_group_size;
      if (items <= kernel_limit) return prepared;
      if (!settings.overrides.empty() || attempt == 2 || kernel_limit >= limits.max_work_group_size)
        throw Error(ErrorCode::InvalidOption,
                    "kernel '" + settings.kernel + "' built with '" + prepared.build_options +
                        "' needs " + std::to_string(items) +
                        " work-items per group, above its CL_KERNEL_WORK_GROUP_SIZE = " +
                        std::to_string(kernel_limit) + " on device '" + limits.name + "'");
      limits.max_work_group_size = kernel_limit;
    }
  }
};

Context::Context(const DeviceRequest& request)
    : state_(std::make_unique<State>(detail::select_device(request))) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

const DeviceLimits& Context::device() const {
  return state_->selected.limits;
}

GemmTiming Context::build(const std::string& kernel, const KernelOptions& overrides) {
  RunSettings settings;
  settings.kernel = kernel;
  settings.overrides = overrides;
  const auto prepared = state_->prepare(settings, nullptr);
  GemmTiming timing;
  timing.kernel = kernel;
  timing.options = prepared.options;
  timing.build_options = prepared.build_options;
  timing.program_cached = prepared.cached;
  timing.program_from_disk_cache = prepared.built->from_disk_cache;
  timing.build_seconds = prepared.cached ? 0 : prepared.built->build_seconds;
  return timing;
}

GemmTiming Context::sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                          const RunSettings& settings) {
  validate_problem(problem);
  for (auto [name, pointer] : {std::pair<const char*, const void*>{"A", a}, {"B", b}, {"C", c}})
    if (!pointer)
      throw Error(ErrorCode::InvalidArgument, std::string("matrix ") + name + " is a null pointer");
  if (settings.timed_runs < 1 || settings.warmup_runs < 0)
    throw Error(ErrorCode::InvalidArgument,
                "timed_runs must be at least 1 and warmup_runs at least 0 (got " +
                    std::to_string(settings.timed_runs) + " and " +
                    std::to_string(settings.warmup_runs) + ")");
  const DeviceLimits& limits = device();
  check_allocation("A", problem.a_elements(), limits);
  check_allocation("B", problem.b_elements(), limits);
  check_allocation("C", problem.c_elements(), limits);
  const std::size_t total_bytes =
      (problem.a_elements() + problem.b_elements() + 2 * problem.c_elements()) * sizeof(float);
  if (total_bytes > limits.global_memory_bytes)
    throw Error(ErrorCode::AllocationTooLarge,
                "A, B and C need " + std::to_string(total_bytes) +
                    " bytes together, above CL_DEVICE_GLOBAL_MEM_SIZE = " +
                    std::to_string(limits.global_memory_bytes));

  const PreparedKernel prepared = state_->prepare(settings, &problem);
  GemmTiming timing;
  timing.kernel = settings.kernel;
  timing.options = prepared.options;
  timing.build_options = prepared.build_options;
  timing.program_cached = prepared.cached;
  timing.program_from_disk_cache = prepared.built->from_disk_cache;
  timing.build_seconds = prepared.cached ? 0 : prepared.built->build_seconds;

  cl::CommandQueue queue = state_->acquire_queue();
  try {
    const bool read_c = problem.beta != 0.0f;  // BLAS: with beta = 0, C is never read
    const std::size_t c_bytes = problem.c_elements() * sizeof(float);
    auto start = Clock::now();
    cl::Buffer a_buf(state_->context, CL_MEM_READ_ONLY, problem.a_elements() * sizeof(float));
    cl::Buffer b_buf(state_->context, CL_MEM_READ_ONLY, problem.b_elements() * sizeof(float));
    cl::Buffer c_buf(state_->context, CL_MEM_READ_WRITE, c_bytes);
    queue.enqueueWriteBuffer(a_buf, CL_FALSE, 0, problem.a_elements() * sizeof(float), a);
    queue.enqueueWriteBuffer(b_buf, CL_FALSE, 0, problem.b_elements() * sizeof(float), b);
    // Repeated runs with beta != 0 each start from the caller's C, kept in a second buffer.
    const int launches = settings.warmup_runs + settings.timed_runs;
    cl::Buffer c_original;
    if (read_c) {
      queue.enqueueWriteBuffer(c_buf, CL_FALSE, 0, c_bytes, c);
      if (launches > 1) {
        c_original = cl::Buffer(state_->context, CL_MEM_READ_ONLY, c_bytes);
        queue.enqueueCopyBuffer(c_buf, c_original, 0, 0, c_bytes);
      }
    }
    queue.finish();
    timing.upload_seconds = seconds_since(start);

    cl::Kernel kernel(prepared.built->program, prepared.spec->entry_point.c_str());
    int arg = 0;
    kernel.setArg(arg++, cl_int(problem.m));
    kernel.setArg(arg++, cl_int(problem.n));
    kernel.setArg(arg++, cl_int(problem.k));
    kernel.setArg(arg++, problem.alpha);
    for (auto [buffer, ld] :
         {std::pair<cl::Buffer*, std::int64_t>{&a_buf, problem.lda}, {&b_buf, problem.ldb}}) {
      kernel.setArg(arg++, *buffer);
      kernel.setArg(arg++, cl_ulong(0));
      kernel.setArg(arg++, cl_int(ld));
    }
    kernel.setArg(arg++, problem.beta);
    kernel.setArg(arg++, c_buf);
    kernel.setArg(arg++, cl_ulong(0));
    kernel.setArg(arg++, cl_int(problem.ldc));

    const auto geometry = prepared.spec->geometry(prepared.options, problem.m, problem.n);
    const cl::NDRange global(geometry.global[0], geometry.global[1]);
    const cl::NDRange local(geometry.local[0], geometry.local[1]);
    for (int run = 0; run < launches; ++run) {
      if (read_c && run > 0) {
        queue.enqueueCopyBuffer(c_original, c_buf, 0, 0, c_bytes);
        queue.finish();
      }
      start = Clock::now();
      queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local);
      queue.finish();
      if (run >= settings.warmup_runs) timing.run_seconds.push_back(seconds_since(start));
    }

    // Download into a staging copy first, so C changes only once everything has succeeded.
    start = Clock::now();
    std::vector<float> result(problem.c_elements());
    queue.enqueueReadBuffer(c_buf, CL_TRUE, 0, c_bytes, result.data());
    for (std::int64_t row = 0; row < problem.m; ++row) {
      const std::size_t offset = std::size_t(row) * std::size_t(problem.ldc);
      std::memcpy(c + offset, result.data() + offset, std::size_t(problem.n) * sizeof(float));
    }
    timing.download_seconds = seconds_since(start);
  } catch (const cl::Error& error) {
    // The queue may hold failed work; it is dropped rather than returned to the pool.
    if (error.err() == CL_MEM_OBJECT_ALLOCATION_FAILURE || error.err() == CL_OUT_OF_RESOURCES)
      throw Error(ErrorCode::AllocationTooLarge,
                  std::string("device '") + limits.name + "' could not allocate the " +
                      std::to_string(total_bytes) + " bytes of A, B and C (" + error.what() +
                      " returned " + std::to_string(error.err()) + ")");
    throw OpenCLError(error.what(), error.err());
  }
  state_->release_queue(std::move(queue));
  return timing;
}

}  // namespace clgemm
