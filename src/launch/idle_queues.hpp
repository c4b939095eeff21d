// Internal: a Context's idle command queues. Each host-array call gets a queue of its own, so
// finish() waits for that call's work only; a queue comes back for a later call.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

#include "support/opencl.hpp"

namespace clgemm::detail {

class IdleQueues {
 public:
  // An idle queue, or a new one on `device` in `context`.
  cl::CommandQueue acquire(const cl::Context& context, const cl::Device& device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queues_.empty()) return cl::CommandQueue(context, device);
    cl::CommandQueue queue = queues_.back();
    queues_.pop_back();
    return queue;
  }
  void release(cl::CommandQueue queue) {
    std::lock_guard<std::mutex> lock(mutex_);
    queues_.push_back(std::move(queue));
  }

 private:
  std::mutex mutex_;  // guards queues_
  std::vector<cl::CommandQueue> queues_;
};

}  // namespace clgemm::detail
