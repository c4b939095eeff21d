// Internal: the thread that warms a Context in the background (CLGEMM_WARM, clgemm/warm.hpp),
// owned by the Context's state and stopped and joined when the state is destroyed, or, when
// the program exits with the Context still open (a static Context, or one never destroyed),
// by the exit handler of support/exit_stops.hpp.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace clgemm::detail {

class BackgroundWarming {
 public:
  BackgroundWarming() = default;
  // Sets the stop flag and joins: waits for at most the build in progress.
  ~BackgroundWarming();
  // Sets the stop flag and joins (the exit handler's stop).
  void stop_and_join();
  BackgroundWarming(const BackgroundWarming&) = delete;
  BackgroundWarming& operator=(const BackgroundWarming&) = delete;

  // Runs `work` on a thread of its own at a lower scheduling priority (nice 10 on Linux);
  // `work` checks the flag it is given between programs and returns once it is set. Once.
  void start(std::function<void(const std::atomic<bool>& stop)> work);
  // Whether the thread has finished its work (or was never started).
  bool finished() const { return finished_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{true};
  std::thread thread_;
};

}  // namespace clgemm::detail
