// Internal: building kernel programs and keeping them per context, keyed by the source hash,
// the full option string and the PTX rewrite, so each (kernel, options, rewrite) is built once
// per context; the compiled binary is also kept on disk (BinaryCache) so later processes skip
// the compiler. A call that compiles says so when the compile is slow (compile_notice.hpp);
// warming (warm()) makes sure a program is in memory or on disk without loading it. A build may ask
// for its PTX rewritten to sm_90a (ptx_rewrite.hpp): compiled from source, its PTX rewritten, then
// built again from that PTX.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "clgemm/device.hpp"
#include "clgemm/warm.hpp"
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
  // Concurrent requests for one program wait for a single build; different programs build at
  // the same time. A compile from source that lasts over a second prints the compile notice.
  std::shared_ptr<const BuiltProgram> get(const std::string& kernel_name,
                                          const std::string& entry_point, const std::string& source,
                                          std::uint64_t source_hash, const std::string& options,
                                          bool& cached, PtxRewrite rewrite = PtxRewrite::None);

  // Makes sure a later get() of the program needs no compile: InMemory (with the program) when
  // it is built in this context, OnDisk (without it; it stays there) when the disk cache holds
  // an intact binary, else Compiled: built from source as get() builds it, kept and stored,
  // without the notice. Throws like get().
  struct Warmed {
    WarmOutcome outcome = WarmOutcome::Compiled;
    std::shared_ptr<const BuiltProgram> built;  // null for OnDisk
  };
  Warmed warm(const std::string& kernel_name, const std::string& entry_point,
              const std::string& source, std::uint64_t source_hash, const std::string& options,
              PtxRewrite rewrite = PtxRewrite::None);

 private:
  // One program: built once, under its own lock, while other programs build beside it.
  struct Slot {
    std::mutex building;                        // held across the build
    std::shared_ptr<const BuiltProgram> built;  // null until built
  };
  using Key = std::tuple<std::uint64_t, std::string, PtxRewrite>;
  // Throws BuildError when `rewrite` is asked for on a device that does not run sm_90a.
  void check_rewrite(const std::string& kernel_name, const std::string& options,
                     PtxRewrite rewrite) const;
  std::shared_ptr<Slot> slot(const Key& key);
  // Loads the program from the disk cache or compiles it (storing the binary), then queries
  // its entry point; `notice`: print the compile notice when compiling takes over a second.
  std::shared_ptr<const BuiltProgram> build(const std::string& kernel_name,
                                            const std::string& entry_point,
                                            const std::string& source, const std::string& options,
                                            const std::string& disk_key, PtxRewrite rewrite,
                                            bool notice);
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
  std::mutex mutex_;  // guards programs_ (not the builds)
  std::map<Key, std::shared_ptr<Slot>> programs_;
};

}  // namespace clgemm::detail
