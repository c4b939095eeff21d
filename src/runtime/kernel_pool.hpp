// Internal: kernel objects of one built program, reused across launches. A launch takes an
// object, sets its arguments and enqueues it (OpenCL captures the arguments at enqueue), then
// gives it back, so no two threads ever set arguments on one object at once. Creating a
// kernel object per launch costs a driver call that a small GEMM cannot afford.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "support/opencl.hpp"

namespace clgemm::detail {

class KernelPool {
 public:
  // An object for `entry_point` of `program`, taken from the pool while it is held.
  class Lease {
   public:
    Lease(KernelPool& pool, const cl::Program& program, const std::string& entry_point);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    cl::Kernel& kernel() { return kernel_; }

   private:
    KernelPool& pool_;
    std::string entry_point_;
    cl::Kernel kernel_;
  };

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<cl::Kernel>> idle_;  // by entry point
};

}  // namespace clgemm::detail
