// The notice a call prints while it compiles for more than a second, and its settings
// (CLGEMM_NOTICES, set_compile_notices).
#include "runtime/compile_notice.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
  return !(setting && std::strcmp(setting, "0") == 0);
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
