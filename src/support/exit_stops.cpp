// The stops called at exit (see exit_stops.hpp).
#include "support/exit_stops.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "support/immortal.hpp"

namespace clgemm::detail {

namespace {

struct ExitStops {
  std::mutex mutex;  // held while the stops run
  std::map<const void*, std::function<void()>> stops;
  std::atomic<std::size_t> count{0};  // stops.size(), read without the lock by a build that
                                      // ends while the handler waits for it
};

// Never destroyed: the handler runs while static destruction is under way.
ExitStops& exit_stops() {
  static auto& instance = immortal<ExitStops>();
  return instance;
}

void call_exit_stops() {
  auto& registry = exit_stops();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (auto& [owner, stop] : registry.stops) stop();
  registry.stops.clear();
  registry.count.store(0);
}

}  // namespace

void add_exit_stop(const void* owner, std::function<void()> stop) {
  {
    auto& registry = exit_stops();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.stops[owner] = std::move(stop);
    registry.count.store(registry.stops.size());
  }
  renew_exit_handler();
}

void remove_exit_stop(const void* owner) {
  auto& registry = exit_stops();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.stops.erase(owner);
  registry.count.store(registry.stops.size());
}

void renew_exit_handler() {
  // A failed registration leaves the earlier ones, which still run before older objects.
  if (exit_stops().count.load() > 0) std::atexit(call_exit_stops);
}

}  // namespace clgemm::detail
