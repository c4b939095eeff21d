// The watchdog behind every "still working on it" notice: the library's compile notice, the
// tools' notes and the Python extension's build notice. Header-only, so that the tools and the
// Python extension, which see only the shared library's exported symbols, compile their own copy.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace clgemm::detail {

// While it lives, calls `say` once on a watchdog thread if it lives longer than
// `delay_seconds` (a delay of 0 says it at once, however soon the notice ends) and, when
// `only_while` is given, at a moment after that when only_while() holds (checked every 50 ms).
// An empty `say` or a negative delay starts no thread and says nothing. The destructor stops the
// watchdog and waits for it (and so for a `say` under way).
class DelayedNotice {
 public:
  explicit DelayedNotice(std::function<void()> say, double delay_seconds = 1.0,
                         std::function<bool()> only_while = {}) {
    if (!say || !(delay_seconds >= 0)) return;
    watchdog_ = std::thread(
        [this, say = std::move(say), delay_seconds, only_while = std::move(only_while)] {
          std::unique_lock<std::mutex> lock(mutex_);
          const auto finished = [this] { return done_; };
          if (delay_seconds > 0 &&
              finished_.wait_for(lock, std::chrono::duration<double>(delay_seconds), finished))
            return;
          while (only_while && !only_while())
            if (finished_.wait_for(lock, std::chrono::milliseconds(50), finished)) return;
          lock.unlock();  // `say` may take its time (the Python GIL): the destructor is not held up
          say();
        });
  }

  ~DelayedNotice() {
    if (!watchdog_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    finished_.notify_one();
    watchdog_.join();
  }

  DelayedNotice(const DelayedNotice&) = delete;
  DelayedNotice& operator=(const DelayedNotice&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread watchdog_;
};

}  // namespace clgemm::detail
