// Compiling kernel programs with their options, rewriting their PTX when the build asks for
// it, and caching them per context.
#include "runtime/program_cache.hpp"

#include <atomic>
#include <chrono>
#include <optional>

#include "clgemm/errors.hpp"
#include "clgemm/kernels.hpp"
#include "runtime/compile_notice.hpp"
#include "runtime/launch_order.hpp"
#include "support/delayed_notice.hpp"
#include "support/exit_stops.hpp"

namespace clgemm {
namespace {
std::atomic<int> compiles_running{0};
}  // namespace

int programs_compiling() noexcept {
  return compiles_running.load();
}

namespace detail {

namespace {

// Counts a compile from source while it lives (programs_compiling()).
struct CompileInProgress {
  CompileInProgress() { ++compiles_running; }
  ~CompileInProgress() { --compiles_running; }
  CompileInProgress(const CompileInProgress&) = delete;
  CompileInProgress& operator=(const CompileInProgress&) = delete;
};

// Builds a program from a stored binary; nothing when the driver refuses it.
std::optional<cl::Program> program_from_binary(const cl::Context& context, const cl::Device& device,
                                               const std::vector<unsigned char>& binary,
                                               const std::string& options) {
  try {
    cl::Program program(context, {device}, cl::Program::Binaries{binary});
    program.build({device}, options.c_str());
    return program;
  } catch (const cl::Error&) {
    return std::nullopt;
  }
}

// "vendor 'NVIDIA Corporation', compute capability 8.9", for the rewrite's errors.
std::string architecture_of(const DeviceLimits& limits) {
  std::string text = "vendor '" + limits.vendor + "'";
  if (limits.compute_capability > 0)
    text += ", compute capability " + std::to_string(limits.compute_capability / 10) + "." +
            std::to_string(limits.compute_capability % 10);
  return text;
}

// The build log of `program`, or what the failure said when the compiler left none.
std::string build_log(const cl::Program& program, const cl::Device& device,
                      const cl::Error& error) {
  std::string log;
  try {
    program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
  } catch (const cl::Error&) {
    log.clear();
  }
  if (log.find_first_not_of(" \n\r\t") == std::string::npos)
    log = "(the compiler gave no log; " + std::string(error.what()) + " returned " +
          std::to_string(error.err()) + ")";
  return log;
}

}  // namespace

ProgramCache::ProgramCache(cl::Context context, cl::Device device, const DeviceLimits& limits)
    : context_(std::move(context)),
      device_(std::move(device)),
      device_name_(limits.name),
      binaries_are_ptx_(limits.vendor.find("NVIDIA") != std::string::npos),
      runs_sm90a_(runs_sm90a(limits)),
      architecture_(architecture_of(limits)),
      chain_launches_(launches_need_chaining(limits)),
      disk_(limits, binary_cache_directory()) {}

void ProgramCache::check_rewrite(const std::string& kernel_name, const std::string& options,
                                 PtxRewrite rewrite) const {
  if (rewrite != PtxRewrite::None && !runs_sm90a_)
    throw BuildError(kernel_name, device_name_, options,
                     std::string("the build asks for its PTX rewritten to ") +
                         ptx_rewrite_name(rewrite) +
                         ", which only NVIDIA devices of compute capability 9.0 run; this device "
                         "has " +
                         architecture_);
}

std::shared_ptr<ProgramCache::Slot> ProgramCache::slot(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = programs_[key];
  if (!slot) slot = std::make_shared<Slot>();
  return slot;
}

std::shared_ptr<const BuiltProgram> ProgramCache::get(
    const std::string& kernel_name, const std::string& entry_point, const std::string& source,
    std::uint64_t source_hash, const std::string& options, bool& cached, PtxRewrite rewrite) {
  check_rewrite(kernel_name, options, rewrite);
  const auto program = slot(std::make_tuple(source_hash, options, rewrite));
  // Held across the build: concurrent requests for one program wait for a single compile.
  std::lock_guard<std::mutex> lock(program->building);
  cached = program->built != nullptr;
  if (!cached)
    program->built = build(kernel_name, entry_point, source, options,
                           disk_.key(options, source_hash, rewrite), rewrite, /*notice=*/true);
  return program->built;
}

ProgramCache::Warmed ProgramCache::warm(const std::string& kernel_name,
                                        const std::string& entry_point, const std::string& source,
                                        std::uint64_t source_hash, const std::string& options,
                                        PtxRewrite rewrite) {
  check_rewrite(kernel_name, options, rewrite);
  const auto program = slot(std::make_tuple(source_hash, options, rewrite));
  std::lock_guard<std::mutex> lock(program->building);
  if (program->built) return {WarmOutcome::InMemory, program->built};
  const std::string disk_key = disk_.key(options, source_hash, rewrite);
  if (disk_.load(disk_key)) return {WarmOutcome::OnDisk, nullptr};
  program->built = build(kernel_name, entry_point, source, options, disk_key, rewrite,
                         /*notice=*/false);
  return {WarmOutcome::Compiled, program->built};
}

std::shared_ptr<const BuiltProgram> ProgramCache::build(
    const std::string& kernel_name, const std::string& entry_point, const std::string& source,
    const std::string& options, const std::string& disk_key, PtxRewrite rewrite, bool notice) {
  const auto start = std::chrono::steady_clock::now();
  auto built = std::make_shared<BuiltProgram>();
  if (chain_launches_) built->launch_order_key = disk_key + " | " + entry_point;
  if (auto binary = disk_.load(disk_key)) {
    if (auto program = program_from_binary(context_, device_, *binary, options)) {
      built->program = *program;
      built->from_disk_cache = true;
    }
  }
  // A compile from source counts (programs_compiling()) until the kernel's first queries
  // return: some drivers (PoCL) finish compiling there, not in clBuildProgram. So does the
  // notice's watchdog.
  std::optional<CompileInProgress> compiling;
  std::optional<DelayedNotice> slow;
  if (!built->from_disk_cache) {
    compiling.emplace();
    if (notice && compile_notices_enabled())
      slow.emplace([text = compile_notice_text(kernel_name, device_name_, disk_.enabled())] {
        say_compile_notice(text);
      });
    built->program = compile(kernel_name, source, options, rewrite);
    const auto binaries = built->program.getInfo<CL_PROGRAM_BINARIES>();
    if (!binaries.empty()) disk_.store(disk_key, binaries.front());
  }
  try {
    cl::Kernel kernel(built->program, entry_point.c_str());
    built->kernel_work_group_size = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
    built->kernel_local_memory_bytes =
        std::size_t(kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device_));
    const auto compiled = kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device_);
    for (std::size_t i = 0; i < 3 && i < compiled.size(); ++i)
      built->compile_work_group[i] = compiled[i];
  } catch (const cl::Error& error) {
    // A source that compiles but lacks the entry point (an empty or foreign .cl file in
    // CLGEMM_KERNEL_DIR) fails here, after the build; no cl::Error may reach the caller.
    if (error.err() != CL_INVALID_KERNEL_NAME) throw OpenCLError(error.what(), error.err());
    throw BuildError(kernel_name, device_name_, options,
                     "the program built, but defines no __kernel '" + entry_point + "'");
  }
  slow.reset();
  compiling.reset();
  if (!built->from_disk_cache) renew_exit_handler();  // after the objects the build made
  built->build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return built;
}

cl::Program ProgramCache::compile(const std::string& kernel_name, const std::string& source,
                                  const std::string& options, PtxRewrite rewrite) {
  cl::Program program(context_, source);
  try {
    program.build({device_}, options.c_str());
  } catch (const cl::Error& error) {
    throw BuildError(kernel_name, device_name_, options, build_log(program, device_, error));
  }
  if (rewrite == PtxRewrite::None && !binaries_are_ptx_) return program;
  return apply_rewrite(kernel_name, program, options, rewrite);
}

cl::Program ProgramCache::apply_rewrite(const std::string& kernel_name, const cl::Program& compiled,
                                        const std::string& options, PtxRewrite rewrite) {
  const auto binaries = compiled.getInfo<CL_PROGRAM_BINARIES>();
  if (binaries.empty() || binaries.front().empty()) {
    if (rewrite == PtxRewrite::None) return compiled;  // nothing to check
    throw BuildError(kernel_name, device_name_, options,
                     "the compiled program has no binary (PTX) to rewrite");
  }
  RewrittenPtx ptx;
  try {
    ptx = rewrite_ptx(std::string(binaries.front().begin(), binaries.front().end()), rewrite);
  } catch (const Error& error) {
    throw BuildError(kernel_name, device_name_, options, error.what());
  }
  if (rewrite == PtxRewrite::None) return compiled;  // checked: no markers

  cl::Program program;
  try {
    program = cl::Program(
        context_, {device_},
        cl::Program::Binaries{std::vector<unsigned char>(ptx.text.begin(), ptx.text.end())});
  } catch (const cl::Error& error) {
    throw BuildError(kernel_name, device_name_, options,
                     std::string("the driver refused the PTX rewritten to ") +
                         ptx_rewrite_name(rewrite) + ": " + error.what() + " returned " +
                         std::to_string(error.err()));
  }
  try {
    program.build({device_}, options.c_str());
  } catch (const cl::Error& error) {
    throw BuildError(kernel_name, device_name_, options,
                     std::string("the PTX rewritten to ") + ptx_rewrite_name(rewrite) + " (" +
                         std::to_string(ptx.markers) + " marked statements) did not build:\n" +
                         build_log(program, device_, error));
  }
  return program;
}

}  // namespace detail
}  // namespace clgemm
