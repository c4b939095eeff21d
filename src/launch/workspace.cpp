// The Context's device workspace (see workspace.hpp).
#include "launch/workspace.hpp"

namespace clgemm::detail {

void Workspace::use(
    const cl::Context& context, std::size_t bytes,
    const std::function<cl::Event(const cl::Buffer&, const std::vector<cl::Event>&)>& enqueue) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<cl::Event> wait;
  if (bytes > bytes_) {
    // Grown in whole MiB. The old buffer is released here; OpenCL frees it only after the
    // launches still using it have completed.
    const std::size_t mib = std::size_t(1) << 20;
    const std::size_t grown = bytes / mib * mib == bytes ? bytes : (bytes / mib + 1) * mib;
    buffer_ = cl::Buffer(context, CL_MEM_READ_WRITE, grown);
    bytes_ = grown;
    last_use_ = cl::Event();
  } else if (last_use_()) {
    wait.push_back(last_use_);
  }
  last_use_ = enqueue(buffer_, wait);
}

}  // namespace clgemm::detail
