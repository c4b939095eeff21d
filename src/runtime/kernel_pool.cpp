// Taking kernel objects from a program's pool and giving them back (see kernel_pool.hpp).
#include "runtime/kernel_pool.hpp"

#include <utility>

namespace clgemm::detail {

KernelPool::Lease::Lease(KernelPool& pool, const cl::Program& program,
                         const std::string& entry_point)
    : pool_(pool), entry_point_(entry_point) {
  {
    std::lock_guard<std::mutex> lock(pool_.mutex_);
    auto& idle = pool_.idle_[entry_point_];
    if (!idle.empty()) {
      kernel_ = std::move(idle.back());
      idle.pop_back();
      return;
    }
  }
  kernel_ = cl::Kernel(program, entry_point_.c_str());
}

KernelPool::Lease::~Lease() {
  std::lock_guard<std::mutex> lock(pool_.mutex_);
  auto& idle = pool_.idle_[entry_point_];
  if (idle.size() < 64) idle.push_back(std::move(kernel_));  // more only under many threads
}

}  // namespace clgemm::detail
