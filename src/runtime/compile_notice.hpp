// Internal: the line a call prints on stderr while it compiles a program for more than a
// second (clgemm/warm.hpp, CLGEMM_NOTICES), so that a cold first call does not wait silently.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace clgemm::detail {

// "clgemm: compiling kernel '<kernel>' for '<device>' (...) ..." for a call's compile; the
// parenthesis says how to avoid it: the disk cache keeps it for next time and
// `clgemm-run --warm-cache` builds every kernel ahead, or the cache is off.
std::string compile_notice_text(const std::string& kernel, const std::string& device,
                                bool disk_cache_on);

// While it lives, prints `text` on stderr once, if it lives longer than `delay_seconds` and
// notices are enabled (compile_notices_enabled()); a watchdog thread waits for that.
class CompileNotice {
 public:
  explicit CompileNotice(std::string text, double delay_seconds = 1.0);
  ~CompileNotice();
  CompileNotice(const CompileNotice&) = delete;
  CompileNotice& operator=(const CompileNotice&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread watchdog_;
};

}  // namespace clgemm::detail
