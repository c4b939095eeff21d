// Internal: building kernel programs and keeping them per context, keyed by the source hash
// and the full option string, so each (kernel, options) pair is built once per context; the
// compiled binary is also kept on disk (BinaryCache) so later processes skip the compiler.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "binary_cache.hpp"
#include "clgemm/device.hpp"
#include "kernel_pool.hpp"
#include "opencl.hpp"

namespace clgemm::detail {

struct BuiltProgram {
  cl::Program program;
  std::size_t kernel_work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE of the entry point
  std::size_t kernel_local_memory_bytes = 0;        // CL_KERNEL_LOCAL_MEM_SIZE
  std::array<std::size_t, 3> compile_work_group{};  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE
  double build_seconds = 0;
  bool from_disk_cache = false;  // loaded from a stored binary rather than compiled
  // Where launches of this build must run one after another (PoCL 5.0, see launch_order.hpp):
  // the build's identity across contexts; elsewhere empty.
  std::string launch_order_key;
  mutable KernelPool kernels;  // the objects launches use (kernel_pool.hpp)
};

class ProgramCache {
 public:
  ProgramCache(cl::Context context, cl::Device device, const DeviceLimits& limits);

  // Returns the program for this source and options, building it on first use. Throws
  // BuildError carrying the log, the options and the device when the compiler fails.
  // `cached` tells whether the program was already there.
  std::shared_ptr<const BuiltProgram> get(const std::string& kernel_name,
                                          const std::string& entry_point, const std::string& source,
                                          std::uint64_t source_hash, const std::string& options,
                                          bool& cached);

 private:
  // Compiles from source; throws BuildError with the log, options and device on failure.
  cl::Program compile(const std::string& kernel_name, const std::string& source,
                      const std::string& options);

  cl::Context context_;
  cl::Device device_;
  std::string device_name_;
  bool chain_launches_;
  BinaryCache disk_;
  std::mutex mutex_;
  std::map<std::pair<std::uint64_t, std::string>, std::shared_ptr<const BuiltProgram>> programs_;
};

}  // namespace clgemm::detail
