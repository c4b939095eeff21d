// Compiling kernel programs with their options and caching them per context.
#include "program_cache.hpp"

#include <chrono>

#include "clgemm/errors.hpp"

namespace clgemm::detail {

ProgramCache::ProgramCache(cl::Context context, cl::Device device, std::string device_name)
    : context_(std::move(context)),
      device_(std::move(device)),
      device_name_(std::move(device_name)) {}

std::shared_ptr<const BuiltProgram> ProgramCache::get(const std::string& kernel_name,
                                                      const std::string& entry_point,
                                                      const std::string& source,
                                                      std::uint64_t source_hash,
                                                      const std::string& options, bool& cached) {
  // Held across the build: concurrent requests for one program wait for a single compile.
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_pair(source_hash, options);
  if (auto it = programs_.find(key); it != programs_.end()) {
    cached = true;
    return it->second;
  }
  cached = false;

  const auto start = std::chrono::steady_clock::now();
  cl::Program program(context_, source);
  try {
    program.build({device_}, options.c_str());
  } catch (const cl::Error& error) {
    std::string log;
    program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &log);
    if (log.find_first_not_of(" \n\r\t") == std::string::npos)
      log = "(the compiler gave no log; " + std::string(error.what()) + " returned " +
            std::to_string(error.err()) + ")";
    throw BuildError(kernel_name, device_name_, options, log);
  }
  auto built = std::make_shared<BuiltProgram>();
  built->program = program;
  cl::Kernel kernel(program, entry_point.c_str());
  built->kernel_work_group_size = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
  built->build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  programs_.emplace(key, built);
  return built;
}

}  // namespace clgemm::detail
