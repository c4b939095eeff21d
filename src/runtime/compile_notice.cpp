// The notice a call prints while it compiles for more than a second, and its settings
// (CLGEMM_NOTICES, set_compile_notices).
#include "runtime/compile_notice.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "clgemm/warm.hpp"

namespace clgemm {

namespace {
std::atomic<bool> notices_allowed{true};
}  // namespace

void set_compile_notices(bool enabled) {
  notices_allowed.store(enabled);
}

bool compile_notices_enabled() {
  if (!notices_allowed.load()) return false;
  const char* setting = std::getenv("CLGEMM_NOTICES");
  if (!setting || !*setting || std::strcmp(setting, "1") == 0) return true;
  if (std::strcmp(setting, "0") == 0) return false;
  // Any other value is said once (per value) and leaves the notices on, the documented default.
  static std::mutex mutex;
  static std::set<std::string>* const said = new std::set<std::string>;  // kept until exit
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!said->insert(setting).second) return true;
  }
  std::fprintf(stderr,
               "clgemm: CLGEMM_NOTICES='%s' is not 0 (no compile notices) or 1 (the default); "
               "the compile notices stay on\n",
               setting);
  std::fflush(stderr);
  return true;
}

namespace detail {

std::string compile_notice_text(const std::string& kernel, const std::string& device,
                                bool disk_cache_on) {
  return "clgemm: compiling kernel '" + kernel + "' for '" + device + "' (" +
         (disk_cache_on ? "first use on this machine, then kept in the disk cache; "
                          "`clgemm-run --warm-cache` builds every kernel ahead"
                        : "the disk cache is off, CLGEMM_CACHE_DIR=off, so each process "
                          "compiles again") +
         "; CLGEMM_NOTICES=0 silences this) ...";
}

void say_compile_notice(const std::string& text) {
  if (!compile_notices_enabled()) return;
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

}  // namespace detail
}  // namespace clgemm
