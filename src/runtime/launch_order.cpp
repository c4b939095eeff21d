// Chaining the launches of one kernel build on PoCL 5.0 and 3.1 (see launch_order.hpp).
#include "runtime/launch_order.hpp"

#include <map>
#include <mutex>
#include <regex>

#include "support/immortal.hpp"

namespace clgemm::detail {

bool launches_need_chaining(const DeviceLimits& device) {
  // CL_PLATFORM_VERSION reads e.g. "OpenCL 3.0 PoCL 5.0+debian  Linux, ...".
  static const auto& affected = immortal<std::regex>(R"(PoCL (5\.0|3\.1)([^0-9]|$))");
  return std::regex_search(device.platform_version, affected);
}

void enqueue_in_order(const std::string& build_key, const cl::Context& context,
                      const std::function<cl::Event(const std::vector<cl::Event>&)>& enqueue) {
  if (build_key.empty()) {
    enqueue({});
    return;
  }
  struct LastLaunch {
    cl_context context = nullptr;
    cl::Event event;
  };
  // The lock is held from reading the last launch to recording the new one. The events are
  // never released at exit, when the driver may already be gone (support/immortal.hpp).
  static auto& mutex = immortal<std::mutex>();
  static auto& last = immortal<std::map<std::string, LastLaunch>>();
  std::lock_guard<std::mutex> lock(mutex);
  LastLaunch& previous = last[build_key];
  std::vector<cl::Event> wait;
  if (previous.event()) {
    if (previous.context == context())
      wait.push_back(previous.event);
    else
      previous.event.wait();
  }
  cl::Event launched = enqueue(wait);
  previous = {context(), launched};
}

}  // namespace clgemm::detail
