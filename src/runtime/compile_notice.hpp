// Internal: the line a call prints on stderr while it compiles a program for more than a
// second (clgemm/warm.hpp, CLGEMM_NOTICES), so that a cold first call does not wait silently.
#pragma once

#include <string>

namespace clgemm::detail {

// "clgemm: compiling kernel '<kernel>' for '<device>' (...) ..." for a call's compile; the
// parenthesis says how to avoid it: the disk cache keeps it for next time and
// `clgemm-run --warm-cache` builds every kernel ahead, or the cache is off.
std::string compile_notice_text(const std::string& kernel, const std::string& device,
                                bool disk_cache_on);

// Prints `text` on stderr as its own line, unless notices are off (compile_notices_enabled()):
// what a call's DelayedNotice (support/delayed_notice.hpp) says once its compile has taken
// longer than a second.
void say_compile_notice(const std::string& text);

}  // namespace clgemm::detail
