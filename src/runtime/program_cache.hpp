// Internal: building kernel programs and keeping them per context, keyed by the source hash,
// the full option string and the PTX rewrite, so each (kernel, options, rewrite) is built once
// per context; the compiled binary is also kept on disk (BinaryCache) so later processes skip
// the compiler. A build may ask for its PTX rewritten to sm_90a (ptx_rewrite.hpp): compiled
// from source, its PTX rewritten, then built again from that PTX.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "clgemm/device.hpp"
#include "runtime/binary_cache.hpp"
#include "runtime/kernel_pool.hpp"
#include "runtime/ptx_rewrite.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

struct BuiltProgram {
  cl::Program program;
  std::size_t kernel_work_group_size = 0;           // CL_KERNEL_WORK_GROUP_SIZE of the entry point
  std::size_t kernel_local_memory_bytes = 0;        // CL_KERNEL_LOCAL_MEM_SIZE
  std::array<std::size_t, 3> compile_work_group{};  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE
  double build_seconds = 0;
  bool from_disk_cache = false;  // loaded from a stored binary rather than compiled
  // Where launches of this build must run one after another (PoCL 5.0 and 3.1, see
  // launch_order.hpp): the build's identity across contexts; elsewhere empty.
  std::string launch_order_key;
  mutable KernelPool kernels;  // the objects launches use (kernel_pool.hpp)
};

class ProgramCache {
 public:
  ProgramCache(cl::Context context, cl::Device device, const DeviceLimits& limits);

  // Returns the program for this source, options and PTX rewrite, building it on first use.
  // Throws BuildError carrying the log, the options and the device when the compiler fails,
  // when the rewrite is asked for on a device that does not run sm_90a (runs_sm90a) or refuses
  // the PTX, and when PTX built without the rewrite holds its markers. `cached` tells whether
  // the program was already there.
  std::shared_ptr<const BuiltProgram> get(const std::string& kernel_name,
                                          const std::string& entry_point, const std::string& source,
                                          std::uint64_t source_hash, const std::string& options,
                                          bool& cached, PtxRewrite rewrite = PtxRewrite::None);

 private:
  // Compiles from source and applies the rewrite (NVIDIA: checks the PTX for markers when
  // there is none); throws BuildError with the log, options and device on failure.
  cl::Program compile(const std::string& kernel_name, const std::string& source,
                      const std::string& options, PtxRewrite rewrite);
  // The compiled program's PTX through rewrite_ptx: without a rewrite, checked for markers and
  // the program returned as it is; with one, the program built again from the rewritten PTX.
  cl::Program apply_rewrite(const std::string& kernel_name, const cl::Program& compiled,
                            const std::string& options, PtxRewrite rewrite);

  cl::Context context_;
  cl::Device device_;
  std::string device_name_;
  bool binaries_are_ptx_;     // an NVIDIA device
  bool runs_sm90a_;           // runs_sm90a(limits)
  std::string architecture_;  // vendor and compute capability, for the rewrite's errors
  bool chain_launches_;
  BinaryCache disk_;
  std::mutex mutex_;
  std::map<std::tuple<std::uint64_t, std::string, PtxRewrite>, std::shared_ptr<const BuiltProgram>>
      programs_;
};

}  // namespace clgemm::detail
