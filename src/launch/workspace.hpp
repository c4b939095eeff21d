// Internal: the device workspace of a Context, shared by the calls that need scratch memory
// (split-K partial products, aligned copies of operands). One buffer, grown on demand and kept
// for later calls; calls using it are serialised on the device: each call's first launch waits
// for the previous call's last launch on it, whatever queue or thread that came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "clgemm/device.hpp"
#include "plan/workspace_limit.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

class Workspace {
 public:
  // Runs `enqueue` with a buffer of at least `bytes` and the events its first launch must wait
  // for (the previous user's last launch), and records the event it returns as the last use.
  // Holds the workspace for that time: concurrent callers take turns.
  void use(
      const cl::Context& context, std::size_t bytes,
      const std::function<cl::Event(const cl::Buffer&, const std::vector<cl::Event>&)>& enqueue);

 private:
  std::mutex mutex_;  // guards the members below
  cl::Buffer buffer_;
  std::size_t bytes_ = 0;
  cl::Event last_use_;
};

}  // namespace clgemm::detail
